/**
 * The base64 text of payload elements: decoded whole or as it arrives, with the character
 * references some SOAP stacks write for line breaks skipped and failures named as format errors,
 * and its canonical form for digests, whole or chunk by chunk.
 */
import {
	Base64Decode,
	Base64Decoder,
	decodeBase64Strict,
	InvalidBase64Error,
} from '../transport/base64';
import { attempt } from './attempt';
import { BxdFormatError } from './errors';

const EMPTY = Buffer.alloc(0);

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

/** Base64Decoder that also skips line-break character references, including ones cut between chunks. */
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

/** Decodes the base64 text of an element as it arrives, as strictly as decodePayload; errors name `what`. */
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
