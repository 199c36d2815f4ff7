/**
 * XML for EBICS: requests are written as text from escaped parts (no pretty-printing, so what is
 * signed is what is sent); answers are parsed into a DOM (@xmldom/xmldom) after the safety rule
 * (no DOCTYPE, no ENTITY) and read with the namespace-aware helpers below.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';

import { assertSafeXml, escapeXml, UnsafeXmlError } from '../common/xmlSafety';

export { escapeXml };
import { EbicsFormatError, rethrowAs } from './errors';

export type Attributes = Record<string, string | number | boolean | undefined>;
/** Child content: XML text already built, or nothing. */
export type Content = string | undefined | false | Content[];

function attributeText(attributes: Attributes): string {
	return Object.entries(attributes)
		.filter(([, value]) => value !== undefined)
		.map(([name, value]) => ` ${name}="${escapeXml(String(value))}"`)
		.join('');
}

function contentText(content: Content[]): string {
	return content.map((c) => (Array.isArray(c) ? contentText(c) : c || '')).join('');
}

/** An element with attributes and children (children are XML text already built). */
export function el(name: string, attributes: Attributes = {}, ...children: Content[]): string {
	const inner = contentText(children);
	return `<${name}${attributeText(attributes)}>${inner}</${name}>`;
}

/** An element holding text (escaped here). */
export function leaf(name: string, text: string | number, attributes: Attributes = {}): string {
	return `<${name}${attributeText(attributes)}>${escapeXml(String(text))}</${name}>`;
}

/** An empty element. */
export function empty(name: string, attributes: Attributes = {}): string {
	return `<${name}${attributeText(attributes)}/>`;
}

/** Documents at least this long have their base64 OrderData set aside while they are parsed. */
const SET_ASIDE_FROM = 64 * 1024;
const ORDER_DATA_OPEN = /<(?:[A-Za-z_][\w.-]*:)?OrderData(?:\s[^<>]*)?>$/;
const ORDER_DATA_CLOSE = /^<\/(?:[A-Za-z_][\w.-]*:)?OrderData\s*>/;

/**
 * A segment's OrderData (up to 1,048,576 base64 characters) set aside from the text: a DOM
 * parser is slow on one large text node, and base64 needs no parsing. Only when there is exactly
 * one OrderData element and its content is plain text (no markup, no entity reference), found
 * with native searches only. From bytes (an answer as it came), the OrderData stays bytes, so
 * the segment is never turned into text.
 */
function setAsideOrderData(xml: string | Buffer): { text: string; orderData?: string | Buffer } {
	const whole = () => ({ text: Buffer.isBuffer(xml) ? xml.toString('utf8') : xml });
	if (xml.length < SET_ASIDE_FROM) return whole();
	// Searches work alike on text and on bytes (the names and markup searched are ASCII).
	const name = xml.indexOf('OrderData');
	if (name < 0) return whole();
	const openStart = xml.lastIndexOf('<', name);
	const openEnd = xml.indexOf('>', name);
	if (openStart < 0 || openEnd < 0) return whole();
	const contentEnd = xml.indexOf('<', openEnd + 1);
	if (contentEnd < 0 || contentEnd - openEnd < SET_ASIDE_FROM / 2) return whole();
	const textOf = (from: number, to?: number): string =>
		Buffer.isBuffer(xml) ? xml.toString('utf8', from, to) : xml.slice(from, to);
	const open = textOf(openStart, openEnd + 1);
	const close = ORDER_DATA_CLOSE.exec(textOf(contentEnd, contentEnd + 200))?.[0];
	if (!ORDER_DATA_OPEN.test(open) || !close || open.endsWith('/>')) return whole();
	// Only the element's own close tag may follow: one OrderData element in all.
	if (xml.indexOf('OrderData', contentEnd + close.length) >= 0) return whole();
	const content = Buffer.isBuffer(xml)
		? xml.subarray(openEnd + 1, contentEnd)
		: xml.slice(openEnd + 1, contentEnd);
	// In bytes, single bytes are searched (a native scan); ']' only starts the search for ']]>'.
	const hasAmpersand = Buffer.isBuffer(content) ? content.includes(0x26) : content.includes('&');
	const hasCdataEnd = Buffer.isBuffer(content)
		? content.includes(0x5d) && content.includes(']]>')
		: content.includes(']]>');
	if (hasAmpersand || hasCdataEnd) return whole();
	return {
		text: textOf(0, openEnd + 1) + textOf(contentEnd),
		orderData: content,
	};
}

/** A parsed document whose large OrderData content was kept out of the DOM. */
export interface ParsedWithOrderData {
	doc: Document;
	/** The content of the one OrderData element (text, or bytes when the document was bytes). */
	orderData?: string | Buffer;
	/** That element, empty in the DOM. */
	orderDataElement?: Element;
}

/**
 * Parses an XML document after the safety rule, with a large OrderData content left out of the
 * DOM (see `parseDocument`, which puts it back); EbicsFormatError names what is wrong.
 */
export function parseKeepingOrderDataOut(xml: string | Buffer, what: string): ParsedWithOrderData {
	const aside = setAsideOrderData(xml);
	const text = aside.text.replace(/^[\uFEFF\s]+(?=<)/, '');
	rethrowAs(
		() => assertSafeXml(text),
		(error) =>
			error instanceof UnsafeXmlError
				? new EbicsFormatError(`${what} is refused: ${error.message}`)
				: (error as Error),
	);
	const errors: string[] = [];
	const doc = new DOMParser({
		errorHandler: (level: string, message: unknown) => {
			if (level !== 'warning') errors.push(String(message));
		},
	}).parseFromString(text, 'text/xml') as unknown as Document;
	const root = doc?.documentElement as Element | null;
	if (errors.length || !root) {
		const first = (errors[0] ?? 'no root element')
			.split('\n')[0]
			.replace(/^\[xmldom [^\]]*\]\s*/, '');
		throw new EbicsFormatError(`${what} is not well-formed XML (${first})`);
	}
	if (aside.orderData === undefined) return { doc };
	const found = allElements(root).filter((e) => e.localName === 'OrderData');
	if (found.length !== 1)
		throw new EbicsFormatError(`${what} has its OrderData in a place it cannot be`);
	return { doc, orderData: aside.orderData, orderDataElement: found[0] };
}

/** Puts OrderData content kept out of the DOM back into its element. */
export function restoreOrderData(parsed: ParsedWithOrderData): void {
	const { doc, orderData, orderDataElement } = parsed;
	if (orderData === undefined || !orderDataElement) return;
	orderDataElement.appendChild(
		doc.createTextNode(Buffer.isBuffer(orderData) ? orderData.toString('utf8') : orderData),
	);
}

/** Parses an XML document after the safety rule; EbicsFormatError names what is wrong. */
export function parseDocument(xml: string | Buffer, what: string): Document {
	const parsed = parseKeepingOrderDataOut(xml, what);
	restoreOrderData(parsed);
	return parsed.doc;
}

/** Serialises a DOM node back to text. */
export function serialize(node: Node): string {
	return new XMLSerializer().serializeToString(node);
}

/** The element children of an element. */
export function elements(parent: Element | Document): Element[] {
	const out: Element[] = [];
	for (let node = parent.firstChild; node; node = node.nextSibling)
		if (node.nodeType === 1) out.push(node as Element);
	return out;
}

/** The first child element with this namespace and local name. */
export function child(
	parent: Element | undefined,
	ns: string,
	localName: string,
): Element | undefined {
	return parent
		? elements(parent).find((e) => e.namespaceURI === ns && e.localName === localName)
		: undefined;
}

/** Every child element with this namespace and local name. */
export function children(parent: Element | undefined, ns: string, localName: string): Element[] {
	return parent
		? elements(parent).filter((e) => e.namespaceURI === ns && e.localName === localName)
		: [];
}

/** Follows a path of local names in one namespace from an element. */
export function path(
	parent: Element | undefined,
	ns: string,
	...names: string[]
): Element | undefined {
	let current = parent;
	for (const name of names) current = child(current, ns, name);
	return current;
}

/** The trimmed text of an element, or undefined when absent or empty. */
export function text(element: Element | undefined): string | undefined {
	const value = element?.textContent?.trim();
	return value ? value : undefined;
}

/** Every element of a document in document order (depth first). */
export function allElements(root: Element): Element[] {
	const out: Element[] = [];
	const walk = (element: Element): void => {
		out.push(element);
		for (const e of elements(element)) walk(e);
	};
	walk(root);
	return out;
}
