/**
 * Base64 for payloads of any size: an encoder and a strict decoder that work chunk by chunk
 * across any chunk boundaries, the transforms built on them, and strict decoding of a whole text.
 * Nothing here holds more than a chunk of the data. Then the base64 text of payload elements:
 * decoded whole or as it arrives, with the character references some SOAP stacks write for line
 * breaks skipped and failures named as format errors, and its canonical form for digests, whole
 * or chunk by chunk.
 */
import { Transform, type TransformCallback } from 'node:stream';

import { attempt } from '../common/attempt';
import { BxdFormatError } from './errors';

const EMPTY = Buffer.alloc(0);
const NEWLINE = Buffer.from('\n', 'latin1');

export class InvalidBase64Error extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'InvalidBase64Error';
	}
}

/** Length of the base64 text of `bytes` bytes. */
export function base64Length(bytes: number): number {
	return 4 * Math.ceil(bytes / 3);
}

/** Base64 of a byte stream, chunk by chunk (no line breaks), without copying the chunks. */
export class Base64Encoder {
	private carry: Buffer = EMPTY;

	/** Encodes what can be encoded now; up to two bytes wait for the next chunk. */
	write(chunk: Buffer): Buffer {
		let start = 0;
		let lead = '';
		if (this.carry.length) {
			const need = 3 - this.carry.length;
			if (chunk.length < need) {
				this.carry = Buffer.concat([this.carry, chunk]);
				return EMPTY;
			}
			lead = Buffer.concat([this.carry, chunk.subarray(0, need)]).toString('base64');
			start = need;
			this.carry = EMPTY;
		}
		const end = chunk.length - ((chunk.length - start) % 3);
		if (end < chunk.length) this.carry = Buffer.from(chunk.subarray(end));
		const body = end > start ? chunk.toString('base64', start, end) : '';
		if (!lead) return body ? Buffer.from(body, 'latin1') : EMPTY;
		const out = Buffer.allocUnsafe(lead.length + body.length);
		out.write(lead, 0, 'latin1');
		if (body) out.write(body, lead.length, 'latin1');
		return out;
	}

	end(): Buffer {
		const rest = this.carry;
		this.carry = EMPTY;
		return rest.length ? Buffer.from(rest.toString('base64'), 'latin1') : EMPTY;
	}
}

/**
 * A transform encoding a byte stream to base64 text, in lines of `lineLength` characters when it
 * is not 0.
 */
export class Base64Encode extends Transform {
	private readonly encoder = new Base64Encoder();
	private column = 0;

	constructor(private readonly lineLength = 0) {
		super();
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		this.pass(this.encoder.write(chunk));
		done();
	}

	_flush(done: TransformCallback): void {
		this.pass(this.encoder.end());
		done();
	}

	private pass(text: Buffer): void {
		if (text.length) this.push(this.lineLength ? this.inLines(text) : text);
	}

	private inLines(text: Buffer): Buffer {
		const parts: Buffer[] = [];
		let at = 0;
		while (at < text.length) {
			const take = Math.min(this.lineLength - this.column, text.length - at);
			parts.push(text.subarray(at, at + take));
			at += take;
			this.column += take;
			if (this.column === this.lineLength) {
				parts.push(NEWLINE);
				this.column = 0;
			}
		}
		return Buffer.concat(parts);
	}
}

const NOT_BASE64 = /[^A-Za-z0-9+/=\s]/;
const WHITESPACE = /\s/;
const ONLY_PADDING = /^=*$/;

/**
 * The base64 characters of a text: whitespace is skipped, any other character outside the
 * alphabet is an error.
 */
function base64Characters(text: string): string {
	if (NOT_BASE64.test(text))
		throw new InvalidBase64Error('Invalid base64: unexpected character in the data');
	return WHITESPACE.test(text) ? text.replace(/\s+/g, '') : text;
}

/**
 * Decodes base64 text arriving in chunks as strictly as a whole text is decoded: whitespace is
 * skipped; any other character outside the alphabet, padding in the middle, data after the
 * padding and a truncated last group are errors, so a cut or corrupted payload never passes as a
 * shorter file.
 */
export class Base64Decoder {
	private carry = '';
	private padded = false;

	write(chunk: Buffer | string): Buffer {
		const text = this.characters(typeof chunk === 'string' ? chunk : chunk.toString('latin1'));
		if (!text) return EMPTY;
		if (this.padded) throw new InvalidBase64Error('Invalid base64: data after the final padding');
		const all = this.carry ? this.carry + text : text;
		const pad = all.indexOf('=');
		if (pad !== -1) {
			if (!ONLY_PADDING.test(all.slice(pad)))
				throw new InvalidBase64Error('Invalid base64: padding in the middle of the data');
			if (all.length % 4 !== 0) {
				this.carry = all;
				return EMPTY;
			}
			if (pad < all.length - 2)
				throw new InvalidBase64Error('Invalid base64: padding in the middle of the data');
			this.padded = true;
			this.carry = '';
			return Buffer.from(all, 'base64');
		}
		const usable = all.length - (all.length % 4);
		this.carry = usable < all.length ? all.slice(usable) : '';
		return usable ? Buffer.from(usable < all.length ? all.slice(0, usable) : all, 'base64') : EMPTY;
	}

	end(): void {
		if (this.carry.length) {
			throw new InvalidBase64Error(
				`Invalid base64: the data ends in the middle of a group (${this.carry.length} characters left over)`,
			);
		}
	}

	/** The base64 characters of one chunk of text; a subclass may skip more than whitespace first. */
	protected characters(text: string): string {
		return base64Characters(text);
	}
}

/** Decoded bytes are collected in slabs of this size before they are passed on. */
const SLAB = 128 * 1024;
/**
 * Whether text has characters Node's decoder takes but strict base64 does not (URL-safe ones,
 * references).
 */
function unusual(text: string): boolean {
	return text.indexOf('-') !== -1 || text.indexOf('_') !== -1 || text.indexOf('&') !== -1;
}

/**
 * A transform decoding base64 text as strictly as Base64Decoder, fast: clean base64 (no
 * whitespace, no padding yet) is decoded straight into large output slabs, and a decoded length
 * short of what the text must give (a character outside the alphabet, whitespace, padding)
 * sends the chunk through the strict decoder, which skips what may be skipped and names what may
 * not. Its errors pass through `failure` before the stream fails with them.
 */
export class Base64Decode extends Transform {
	private strictMode = false;
	private carry = '';
	private slab: Buffer = EMPTY;
	private used = 0;

	constructor(private readonly strict: Base64Decoder = new Base64Decoder()) {
		super();
	}

	/** The error the stream fails with for an error of the decoder. */
	protected failure(error: unknown): unknown {
		return error;
	}

	private room(bytes: number): void {
		if (this.slab.length - this.used >= bytes) return;
		this.release();
		this.slab = Buffer.allocUnsafe(Math.max(SLAB, bytes));
		this.used = 0;
	}

	private release(): void {
		if (this.used) this.push(this.slab.subarray(0, this.used));
		this.slab = this.slab.subarray(this.used);
		this.used = 0;
	}

	private keep(bytes: Buffer): void {
		if (!bytes.length) return;
		this.room(bytes.length);
		bytes.copy(this.slab, this.used);
		this.used += bytes.length;
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		try {
			const text = chunk.toString('latin1');
			if (!this.strictMode) {
				const all = this.carry ? this.carry + text : text;
				const usable = all.length - (all.length % 4);
				const expected = (usable / 4) * 3;
				if (usable === 0 && !unusual(all)) {
					this.carry = all;
					done();
					return;
				}
				this.room(expected);
				const written = this.slab.write(
					usable < all.length ? all.slice(0, usable) : all,
					this.used,
					'base64',
				);
				if (written === expected && !unusual(all)) {
					this.used += written;
					this.carry = usable < all.length ? all.slice(usable) : '';
					if (this.used >= SLAB) this.release();
					done();
					return;
				}
				// Not plain base64 (whitespace, padding, references or a wrong character): from here on
				// every chunk is read strictly.
				this.strictMode = true;
				this.keep(this.strict.write(all));
				this.carry = '';
			} else {
				this.keep(this.strict.write(text));
			}
			if (this.used >= SLAB) this.release();
			done();
		} catch (error) {
			done(this.failure(error) as Error);
		}
	}

	_flush(done: TransformCallback): void {
		try {
			if (this.carry) this.keep(this.strict.write(this.carry));
			this.carry = '';
			this.strict.end();
			this.release();
			done();
		} catch (error) {
			done(this.failure(error) as Error);
		}
	}
}

/** Base64Decoder for text that is already only base64 characters. */
class CleanTextDecoder extends Base64Decoder {
	protected override characters(text: string): string {
		return text;
	}
}

/**
 * Decodes a whole base64 text by the rules of Base64Decoder; a text whose length without
 * whitespace is not a multiple of 4 is reported as truncated.
 */
export function decodeBase64Strict(text: string): Buffer {
	const clean = base64Characters(text);
	if (clean.length % 4 !== 0) {
		throw new InvalidBase64Error(
			`Invalid base64: length ${clean.length} is not a multiple of 4 (truncated data)`,
		);
	}
	const decoder = new CleanTextDecoder();
	const bytes = decoder.write(clean);
	decoder.end();
	return bytes;
}

/** Character references some SOAP stacks write for the line breaks inside base64 text. */
const WHITESPACE_REFS = /&#(?:x0*[dDaA9]|x0*20|0*13|0*10|0*9|0*32);/g;

function asText(raw: Buffer | string): string {
	return typeof raw === 'string' ? raw : raw.toString('latin1');
}

/** Turns a decoder failure into the format error that names what was being read. */
function base64Error(error: unknown, what: string): unknown {
	if (error instanceof InvalidBase64Error) {
		return new BxdFormatError(
			`${what} is not valid base64: ${error.message.replace(/^Invalid base64: /, '')}`,
		);
	}
	return error;
}

/**
 * Decodes the base64 text of an element strictly: any character outside the alphabet,
 * padding in the middle or a truncated last group is an error naming `what`, so a cut or
 * corrupted message never passes as a shorter file.
 */
export function decodePayload(raw: Buffer | string, what: string): Buffer {
	let text = asText(raw);
	if (text.includes('&')) text = text.replace(WHITESPACE_REFS, '');
	const decoded = attempt(() => decodeBase64Strict(text));
	if (decoded.ok) return decoded.value;
	throw base64Error(decoded.error, what);
}

/**
 * Base64Decoder that also skips line-break character references, including ones cut between chunks.
 */
class ElementTextDecoder extends Base64Decoder {
	private reference = '';

	protected override characters(chunk: string): string {
		let text = chunk;
		if (this.reference) {
			text = this.reference + text;
			this.reference = '';
		}
		if (text.includes('&')) {
			const amp = text.lastIndexOf('&');
			if (text.indexOf(';', amp) === -1) {
				this.reference = text.slice(amp);
				if (this.reference.length > 16)
					throw new InvalidBase64Error('Invalid base64: unexpected character in the data');
				text = text.slice(0, amp);
			}
			text = text.replace(WHITESPACE_REFS, '');
		}
		return super.characters(text);
	}

	override end(): void {
		if (this.reference)
			throw new InvalidBase64Error('Invalid base64: unexpected character in the data');
		super.end();
	}
}

/**
 * Decodes the base64 text of an element as it arrives, as strictly as decodePayload; errors name
 * `what`.
 */
export class Base64DecodeStream extends Base64Decode {
	constructor(private readonly what: string) {
		super(new ElementTextDecoder());
	}

	protected override failure(error: unknown): unknown {
		return base64Error(error, this.what);
	}
}

/**
 * The payload text as Canonical XML writes it (inclusive and exclusive C14N agree on text):
 * line ends normalised as an XML parser does, character references resolved, then &, <, >
 * and carriage returns escaped. Base64 text is almost always already canonical.
 */
export function canonicalPayloadText(raw: Buffer): Buffer {
	if (!raw.includes(0x0d) && !raw.includes(0x26)) return raw;
	return canonicalize(raw.toString('latin1'));
}

/**
 * The text of an element as Canonical XML writes it, chunk by chunk (see canonicalPayloadText):
 * base64 text passes unchanged; line ends and character references are normalised.
 */
export class CanonicalText {
	private carry = '';

	write(chunk: Buffer): Buffer {
		if (!this.carry && !chunk.includes(0x0d) && !chunk.includes(0x26)) return chunk;
		let text = this.carry + chunk.toString('latin1');
		this.carry = '';
		const amp = text.lastIndexOf('&');
		if (amp !== -1 && text.indexOf(';', amp) === -1 && text.length - amp <= 16) {
			this.carry = text.slice(amp);
			text = text.slice(0, amp);
		}
		if (text.endsWith('\r')) {
			this.carry = `\r${this.carry}`;
			text = text.slice(0, -1);
		}
		return canonicalize(text);
	}

	end(): Buffer {
		const rest = this.carry;
		this.carry = '';
		return rest ? canonicalize(rest) : EMPTY;
	}
}

function canonicalize(text: string): Buffer {
	const out = text
		.replace(/\r\n?/g, '\n')
		.replace(
			/&#(x[0-9a-fA-F]+|\d+);|&(lt|gt|amp|quot|apos);/g,
			(_m, num: string | undefined, named: string | undefined) => {
				if (num)
					return String.fromCharCode(
						num.startsWith('x') ? parseInt(num.slice(1), 16) : parseInt(num, 10),
					);
				return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[named as 'lt'];
			},
		)
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/\r/g, '&#xD;');
	return Buffer.from(out, 'latin1');
}
