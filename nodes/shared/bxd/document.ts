import { randomBytes } from 'node:crypto';

import { attempt } from '../common/attempt';
import { BxdFormatError } from './errors';
import type { XmlObject } from './xml';
import { MalformedXmlError, parseXml, UnsafeXmlError } from './xml';

/**
 * An XML document held as the text around one payload slot. The payload is base64 text (the
 * file in an ApplicationRequest, the ApplicationRequest in a SOAP body) and never goes through
 * an XML parser or a string template: it is joined to the text parts as bytes. A streaming
 * path only has to replace `payload` with a stream.
 */
export interface PayloadDocument {
	/** XML text up to the start of the payload (or the whole document when there is none). */
	head: string;
	/** The payload as base64 text bytes, or undefined when the document has no payload slot. */
	payload?: Buffer;
	/** XML text after the payload. */
	tail: string;
}

/** The document as bytes (UTF-8 text parts, payload as is). */
export function documentBytes(doc: PayloadDocument): Buffer {
	const parts: Buffer[] = [Buffer.from(doc.head, 'utf8')];
	if (doc.payload) parts.push(doc.payload);
	parts.push(Buffer.from(doc.tail, 'utf8'));
	return Buffer.concat(parts);
}

/** Size of the document in bytes, without assembling it. */
export function documentSize(doc: PayloadDocument): number {
	return (
		Buffer.byteLength(doc.head, 'utf8') +
		(doc.payload?.length ?? 0) +
		Buffer.byteLength(doc.tail, 'utf8')
	);
}

/**
 * A marker that stands in for the payload while the rest of the document is parsed, signed or
 * verified. It is random per use, so no text in a bank's document can imitate it, and it is
 * left unchanged by XML canonicalization.
 */
export function newPlaceholder(): string {
	return `bxd-payload-${randomBytes(16).toString('hex')}`;
}

/** The document with the payload replaced by `placeholder` (small enough for any parser). */
export function skeletonOf(doc: PayloadDocument, placeholder: string): string {
	return doc.head + (doc.payload ? placeholder : '') + doc.tail;
}

/** Splits text produced from a skeleton back into head and tail around the placeholder. */
export function splitAtPlaceholder(
	text: string,
	placeholder: string,
): { head: string; tail: string } {
	const at = text.indexOf(placeholder);
	if (at === -1 || text.indexOf(placeholder, at + placeholder.length) !== -1) {
		throw new BxdFormatError(
			'Internal error: the payload position was lost while building the message',
		);
	}
	return { head: text.slice(0, at), tail: text.slice(at + placeholder.length) };
}

interface ElementCut {
	/** Text before the element's content (including the opening tag). */
	head: string;
	/** Start and end offsets of the content in the source. */
	start: number;
	end: number;
	/** Text after the content (including the closing tag). */
	tail: string;
}

function findOpenTag(
	source: string,
	localName: string,
	from = 0,
): { index: number; end: number; prefix: string; selfClosing: boolean } | undefined {
	const re = new RegExp(`<(?:([A-Za-z_][\\w.-]*):)?${localName}(?=[\\s/>])[^>]*?(/?)>`, 'g');
	re.lastIndex = from;
	const match = re.exec(source);
	if (!match) return undefined;
	return {
		index: match.index,
		end: match.index + match[0].length,
		prefix: match[1] ?? '',
		selfClosing: match[2] === '/',
	};
}

/**
 * Finds the first element with this local name and cuts its text content out, scanning with
 * indexOf only (the content may be hundreds of megabytes). `source` is a string whose offsets
 * match the bytes (latin1 for raw bytes), or already decoded text.
 */
export function cutFirstElement(source: string, localName: string): ElementCut | undefined {
	const open = findOpenTag(source, localName);
	if (!open) return undefined;
	if (open.selfClosing) {
		return {
			head: source.slice(0, open.end),
			start: open.end,
			end: open.end,
			tail: source.slice(open.end),
		};
	}
	const close = `</${open.prefix ? `${open.prefix}:` : ''}${localName}`;
	const closeAt = source.indexOf(close, open.end);
	if (closeAt === -1)
		throw new BxdFormatError(
			`The bank's message is cut off: the ${localName} element is not closed`,
		);
	return {
		head: source.slice(0, open.end),
		start: open.end,
		end: closeAt,
		tail: source.slice(closeAt),
	};
}

/**
 * Finds the last element with this local name and namespace prefix (a child of the root near the
 * end, like Content) by searching backwards from the end, and cuts its content out.
 */
export function cutLastElement(
	source: Buffer,
	localName: string,
	prefix: string,
): { head: Buffer; content: Buffer; tail: Buffer } | undefined {
	const qname = `${prefix ? `${prefix}:` : ''}${localName}`;
	const closeAt = source.lastIndexOf(`</${qname}`);
	if (closeAt === -1) {
		// An empty element written as <Content/> has no payload.
		return undefined;
	}
	let openAt = source.lastIndexOf(`<${qname}`, closeAt);
	while (openAt !== -1) {
		const next = source[openAt + qname.length + 1];
		// '>' or whitespace or '/' ends the name; anything else is a longer name (ContentType).
		if (next === 0x3e || next === 0x20 || next === 0x09 || next === 0x0a || next === 0x0d) break;
		openAt = openAt === 0 ? -1 : source.lastIndexOf(`<${qname}`, openAt - 1);
	}
	if (openAt === -1)
		throw new BxdFormatError(
			`The bank's document is not well-formed: ${localName} has no opening tag`,
		);
	const openEnd = source.indexOf('>', openAt);
	if (openEnd === -1 || openEnd > closeAt)
		throw new BxdFormatError(`The bank's document is not well-formed around ${localName}`);
	return {
		head: source.subarray(0, openEnd + 1),
		content: source.subarray(openEnd + 1, closeAt),
		tail: source.subarray(closeAt),
	};
}

/** The namespace prefix of the root element ('' for a default namespace). */
export function rootPrefix(xmlHead: string): string {
	const withoutProlog = xmlHead.replace(/^\uFEFF?\s*(<\?[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*/, '');
	const match = /^<(?:([A-Za-z_][\w.-]*):)?([A-Za-z_][\w.-]*)/.exec(withoutProlog);
	return match?.[1] ?? '';
}

/**
 * Parses a document the bank sent; one that is refused (a DOCTYPE or ENTITY declaration) or not
 * well-formed is a BxdFormatError naming `what`. With `explainRefusal`, a refusal says why.
 */
export function parseBankXml(
	xml: string,
	what: string,
	options: { explainRefusal?: boolean } = {},
): XmlObject {
	const parsed = attempt(() => parseXml<XmlObject>(xml));
	if (parsed.ok) return parsed.value;
	const error = parsed.error;
	if (error instanceof UnsafeXmlError) {
		const why = options.explainRefusal
			? ' (a bank never needs one; this can be an XML attack)'
			: '';
		throw new BxdFormatError(`${what} was refused: ${error.message}${why}`);
	}
	if (error instanceof MalformedXmlError) {
		throw new BxdFormatError(
			`${what} is not well-formed XML: ${error.message.replace(/^Malformed XML: /, '')}`,
		);
	}
	throw error;
}
