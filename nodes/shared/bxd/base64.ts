import { decodeBase64Strict, InvalidBase64Error } from '../transport/base64';
import { attempt } from './attempt';
import { BxdFormatError } from './errors';

/** Character references some SOAP stacks write for the line breaks inside base64 text. */
const WHITESPACE_REFS = /&#(?:x0*[dDaA9]|x0*20|0*13|0*10|0*9|0*32);/g;

function asText(raw: Buffer | string): string {
	return typeof raw === 'string' ? raw : raw.toString('latin1');
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
	if (decoded.error instanceof InvalidBase64Error) {
		throw new BxdFormatError(`${what} is not valid base64: ${decoded.error.message.replace(/^Invalid base64: /, '')}`);
	}
	throw decoded.error;
}

/**
 * The payload text as Canonical XML writes it (inclusive and exclusive C14N agree on text):
 * line ends normalised as an XML parser does, character references resolved, then &, <, >
 * and carriage returns escaped. Base64 text is almost always already canonical.
 */
export function canonicalPayloadText(raw: Buffer): Buffer {
	if (!raw.includes(0x0d) && !raw.includes(0x26)) return raw;
	const text = raw
		.toString('latin1')
		.replace(/\r\n?/g, '\n')
		.replace(/&#(x[0-9a-fA-F]+|\d+);|&(lt|gt|amp|quot|apos);/g, (_m, num: string | undefined, named: string | undefined) => {
			if (num) return String.fromCharCode(num.startsWith('x') ? parseInt(num.slice(1), 16) : parseInt(num, 10));
			return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[named as 'lt'];
		})
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/\r/g, '&#xD;');
	return Buffer.from(text, 'latin1');
}
