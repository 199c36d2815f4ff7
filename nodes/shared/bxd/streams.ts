/**
 * Stream pieces for files of any size: base64 both ways across chunk boundaries, the canonical
 * form of base64 text for digests, and a cutter that splits an XML byte stream into the text
 * before one big element, the element's content (passed on as it arrives) and the small rest.
 * Nothing here holds more than a chunk of the payload.
 */
import { Readable, Transform, type TransformCallback } from 'node:stream';

import { InvalidBase64Error } from '../transport/base64';
import { BxdFormatError } from './errors';

const EMPTY = Buffer.alloc(0);

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

/** Length of the base64 text of `bytes` bytes. */
export function base64Length(bytes: number): number {
	return 4 * Math.ceil(bytes / 3);
}

/** Character references some SOAP stacks write for the line breaks inside base64 text. */
const WHITESPACE_REFS = /&#(?:x0*[dDaA9]|x0*20|0*13|0*10|0*9|0*32);/g;
const NOT_BASE64 = /[^A-Za-z0-9+/=\s]/;
const WHITESPACE = /\s/;
const ONLY_PADDING = /^=*$/;

/**
 * Decodes base64 text arriving in chunks as strictly as a whole text is decoded: whitespace
 * and the character references of line breaks are skipped; any other character, padding in
 * the middle, data after the padding and a truncated last group are errors, so a cut or
 * corrupted payload never passes as a shorter file.
 */
export class Base64Decoder {
	private carry = '';
	private reference = '';
	private padded = false;

	write(chunk: Buffer | string): Buffer {
		let text = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
		if (this.reference) {
			text = this.reference + text;
			this.reference = '';
		}
		if (text.includes('&')) {
			const amp = text.lastIndexOf('&');
			if (text.indexOf(';', amp) === -1) {
				this.reference = text.slice(amp);
				if (this.reference.length > 16) throw new InvalidBase64Error('Invalid base64: unexpected character in the data');
				text = text.slice(0, amp);
			}
			text = text.replace(WHITESPACE_REFS, '');
		}
		if (NOT_BASE64.test(text)) throw new InvalidBase64Error('Invalid base64: unexpected character in the data');
		if (WHITESPACE.test(text)) text = text.replace(/\s+/g, '');
		if (!text) return EMPTY;
		if (this.padded) throw new InvalidBase64Error('Invalid base64: data after the final padding');
		const all = this.carry ? this.carry + text : text;
		const pad = all.indexOf('=');
		if (pad !== -1) {
			if (!ONLY_PADDING.test(all.slice(pad))) throw new InvalidBase64Error('Invalid base64: padding in the middle of the data');
			if (all.length % 4 !== 0) {
				this.carry = all;
				return EMPTY;
			}
			if (pad < all.length - 2) throw new InvalidBase64Error('Invalid base64: padding in the middle of the data');
			this.padded = true;
			this.carry = '';
			return Buffer.from(all, 'base64');
		}
		const usable = all.length - (all.length % 4);
		this.carry = usable < all.length ? all.slice(usable) : '';
		return usable ? Buffer.from(usable < all.length ? all.slice(0, usable) : all, 'base64') : EMPTY;
	}

	end(): void {
		if (this.reference) throw new InvalidBase64Error('Invalid base64: unexpected character in the data');
		if (this.carry.length) {
			throw new InvalidBase64Error(`Invalid base64: the data ends in the middle of a group (${this.carry.length} characters left over)`);
		}
	}
}

/** Turns a decoder failure into the format error that names what was being read. */
export function base64Error(error: unknown, what: string): unknown {
	if (error instanceof InvalidBase64Error) {
		return new BxdFormatError(`${what} is not valid base64: ${error.message.replace(/^Invalid base64: /, '')}`);
	}
	return error;
}

/** Decoded bytes are collected in slabs of this size before they are passed on. */
const SLAB = 128 * 1024;
/** Whether text has characters Node's decoder takes but strict base64 does not (URL-safe ones, references). */
function unusual(text: string): boolean {
	return text.indexOf('-') !== -1 || text.indexOf('_') !== -1 || text.indexOf('&') !== -1;
}

/**
 * A transform decoding base64 text as strictly as Base64Decoder, fast: clean base64 (no
 * whitespace, no padding yet) is decoded straight into large output slabs, and a decoded length
 * short of what the text must give (a character outside the alphabet, whitespace, padding)
 * sends the chunk through Base64Decoder, which skips what may be skipped and names what may not.
 */
export class Base64DecodeStream extends Transform {
	private readonly strict = new Base64Decoder();
	private strictMode = false;
	private carry = '';
	private slab: Buffer = EMPTY;
	private used = 0;

	constructor(private readonly what: string) {
		super();
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
				const written = this.slab.write(usable < all.length ? all.slice(0, usable) : all, this.used, 'base64');
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
			done(base64Error(error, this.what) as Error);
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
			done(base64Error(error, this.what) as Error);
		}
	}
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
		.replace(/&#(x[0-9a-fA-F]+|\d+);|&(lt|gt|amp|quot|apos);/g, (_m, num: string | undefined, named: string | undefined) => {
			if (num) return String.fromCharCode(num.startsWith('x') ? parseInt(num.slice(1), 16) : parseInt(num, 10));
			return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[named as 'lt'];
		})
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/\r/g, '&#xD;');
	return Buffer.from(out, 'latin1');
}

/**
 * The qualified names of the elements still open at the end of an XML text, outermost first.
 * Comments, CDATA sections, processing instructions and quoted attribute values are skipped.
 */
export function openElements(xml: string): string[] {
	const stack: string[] = [];
	let at = xml.indexOf('<');
	while (at !== -1 && at < xml.length) {
		if (xml.startsWith('<!--', at)) {
			const end = xml.indexOf('-->', at + 4);
			if (end === -1) break;
			at = xml.indexOf('<', end + 3);
			continue;
		}
		if (xml.startsWith('<![CDATA[', at)) {
			const end = xml.indexOf(']]>', at + 9);
			if (end === -1) break;
			at = xml.indexOf('<', end + 3);
			continue;
		}
		if (xml.startsWith('<?', at) || xml.startsWith('<!', at)) {
			const end = xml.indexOf('>', at + 2);
			if (end === -1) break;
			at = xml.indexOf('<', end + 1);
			continue;
		}
		const closing = xml[at + 1] === '/';
		const nameMatch = /^[^\s/>]+/.exec(xml.slice(at + (closing ? 2 : 1), at + 300));
		const name = nameMatch?.[0] ?? '';
		// Find the end of the tag, skipping quoted attribute values.
		let i = at + 1;
		let quote = '';
		for (; i < xml.length; i++) {
			const c = xml[i];
			if (quote) {
				if (c === quote) quote = '';
			} else if (c === '"' || c === "'") {
				quote = c;
			} else if (c === '>') {
				break;
			}
		}
		if (i >= xml.length) break;
		if (closing) {
			if (stack[stack.length - 1] === name) stack.pop();
		} else if (xml[i - 1] !== '/' && name) {
			stack.push(name);
		}
		at = xml.indexOf('<', i + 1);
	}
	return stack;
}

/** The closing tags of the elements `openElements` found, innermost first. */
export function closingTags(open: string[]): string {
	return [...open]
		.reverse()
		.map((name) => `</${name}>`)
		.join('');
}

export interface CutHead {
	/** The bytes up to and including the opening tag of the element. */
	head: Buffer;
	/** Its qualified name as written (prefix:local). */
	qname: string;
	/** `<x/>`: the element has no content. */
	selfClosing: boolean;
}

export interface ElementCutOptions {
	/** Local name of the element whose content is passed on. */
	localName: string;
	/** What the stream is, for error messages ("The bank's answer"). */
	what: string;
	/** Most bytes kept before the element (or in all when it never comes). */
	maxHead: number;
	/** Most bytes kept after the content. */
	maxTail: number;
	/** Whether this occurrence is the one (for example a child of the root), given the text before it (latin1). */
	accept?: (before: string, qname: string) => boolean;
	/** Called with the head before any content is passed on; throwing stops the stream. */
	onHead?: (head: CutHead) => void;
}

const LOOKBEHIND = 512;
const MAX_TAG = 64 * 1024;

/**
 * Splits an XML byte stream at one element: the bytes before its content are kept (see
 * `found`), its text content is passed on as it arrives, without ever being held whole, and the
 * bytes from the first `<` after it are kept (`tail`). The content must be text without markup,
 * as base64 is. When the element never appears, everything read is kept in `whole`.
 */
export class ElementCut extends Transform {
	found?: CutHead;
	whole?: Buffer;
	tail?: Buffer;
	/** Bytes of content passed on. */
	contentBytes = 0;

	private state: 'head' | 'content' | 'tail' = 'head';
	private readonly chunks: Buffer[] = [];
	private size = 0;
	private window = '';
	private windowStart = 0;
	private searchFrom = 0;
	private readonly opening: RegExp;

	constructor(private readonly options: ElementCutOptions) {
		super();
		this.opening = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${options.localName}(?=[\\s/>])`, 'g');
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		try {
			if (this.state === 'head') this.scanHead(chunk);
			else if (this.state === 'content') this.passContent(chunk);
			else this.keepTail(chunk);
			done();
		} catch (error) {
			done(error as Error);
		}
	}

	_flush(done: TransformCallback): void {
		if (this.state === 'head') {
			this.whole = Buffer.concat(this.chunks, this.size);
			this.chunks.length = 0;
			done();
			return;
		}
		if (this.state === 'content') {
			done(new BxdFormatError(`${this.options.what} is cut off: the ${this.options.localName} element is not closed`));
			return;
		}
		this.tail = Buffer.concat(this.chunks, this.size);
		this.chunks.length = 0;
		done();
	}

	private scanHead(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		this.window += chunk.toString('latin1');
		for (;;) {
			this.opening.lastIndex = Math.max(0, this.searchFrom - this.windowStart);
			const match = this.opening.exec(this.window);
			if (!match) {
				this.trimWindow(this.window.length - LOOKBEHIND);
				break;
			}
			const gt = this.window.indexOf('>', match.index);
			if (gt === -1) {
				if (this.window.length - match.index > MAX_TAG) throw new BxdFormatError(`${this.options.what} has a broken ${this.options.localName} tag`);
				this.trimWindow(match.index);
				this.searchFrom = this.windowStart;
				break;
			}
			const start = this.windowStart + match.index;
			const end = this.windowStart + gt + 1;
			const qname = match[0].slice(1);
			const all = Buffer.concat(this.chunks, this.size);
			if (this.options.accept && !this.options.accept(all.toString('latin1', 0, start), qname)) {
				this.searchFrom = end;
				continue;
			}
			this.found = { head: all.subarray(0, end), qname, selfClosing: this.window[gt - 1] === '/' };
			this.chunks.length = 0;
			this.size = 0;
			this.window = '';
			this.options.onHead?.(this.found);
			const rest = all.subarray(end);
			if (this.found.selfClosing) {
				this.state = 'tail';
				if (rest.length) this.keepTail(rest);
			} else {
				this.state = 'content';
				if (rest.length) this.passContent(rest);
			}
			return;
		}
		if (this.size > this.options.maxHead) {
			throw new BxdFormatError(`${this.options.what} is too large: no ${this.options.localName} in its first ${this.options.maxHead} bytes`);
		}
	}

	private trimWindow(keepFrom: number): void {
		if (keepFrom <= 0) return;
		this.window = this.window.slice(keepFrom);
		this.windowStart += keepFrom;
		if (this.searchFrom < this.windowStart) this.searchFrom = this.windowStart;
	}

	private passContent(chunk: Buffer): void {
		const lt = chunk.indexOf(0x3c);
		if (lt === -1) {
			this.contentBytes += chunk.length;
			this.push(chunk);
			return;
		}
		if (lt > 0) {
			this.contentBytes += lt;
			this.push(chunk.subarray(0, lt));
		}
		this.state = 'tail';
		this.keepTail(chunk.subarray(lt));
	}

	private keepTail(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.size += chunk.length;
		if (this.size > this.options.maxTail) {
			throw new BxdFormatError(`${this.options.what} is too large after its ${this.options.localName} element`);
		}
	}
}

/** Passes chunks on in pieces of at least `size` bytes (fewer, larger writes downstream). */
export class Coalesce extends Transform {
	private readonly pending: Buffer[] = [];
	private pendingSize = 0;

	constructor(private readonly size: number) {
		super();
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		this.pending.push(chunk);
		this.pendingSize += chunk.length;
		if (this.pendingSize >= this.size) this.release();
		done();
	}

	protected release(): void {
		if (!this.pendingSize) return;
		this.push(this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingSize));
		this.pending.length = 0;
		this.pendingSize = 0;
	}

	_flush(done: TransformCallback): void {
		this.release();
		done();
	}
}

/** Reads a stream into one buffer, refusing more than `limit` bytes. */
export async function readAtMost(source: Readable, limit: number, what: string): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of source) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
		size += bytes.length;
		if (size > limit) {
			source.destroy();
			throw new BxdFormatError(`${what} is larger than ${limit} bytes`);
		}
		chunks.push(bytes);
	}
	return Buffer.concat(chunks, size);
}

/**
 * Reads the first `count` bytes of a stream (fewer when it is shorter) and returns them with a
 * stream that gives the whole content again, those bytes first. Errors of the source come out of
 * the new stream; destroying the new stream destroys the source.
 */
export async function peekStream(source: Readable, count: number): Promise<{ head: Buffer; stream: Readable }> {
	const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
	const parts: Buffer[] = [];
	let size = 0;
	let ended = false;
	while (size < count) {
		const next = await iterator.next();
		if (next.done) {
			ended = true;
			break;
		}
		parts.push(next.value);
		size += next.value.length;
	}
	const head = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
	async function* again(): AsyncGenerator<Buffer> {
		try {
			if (head.length) yield head;
			while (!ended) {
				const next = await iterator.next();
				if (next.done) {
					ended = true;
					return;
				}
				yield next.value;
			}
		} finally {
			if (!ended) await iterator.return?.();
		}
	}
	return { head, stream: Readable.from(again(), { objectMode: false, highWaterMark: 1024 * 1024 }) };
}
