/**
 * XML for EBICS: requests are written as text from escaped parts (no pretty-printing, so what is
 * signed is what is sent); answers are parsed into a DOM (@xmldom/xmldom) after the safety rule
 * (no DOCTYPE, no ENTITY) and read with the namespace-aware helpers below.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';

import { assertSafeXml, escapeXml, UnsafeXmlError } from '../xmlSafety';

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
 * with native searches only; it is put back into the element after parsing, so the document is
 * the same.
 */
function setAsideOrderData(text: string): { text: string; orderData?: string } {
	if (text.length < SET_ASIDE_FROM) return { text };
	const name = text.indexOf('OrderData');
	if (name < 0 || text.indexOf('OrderData', name + 9) < 0) return { text };
	const openStart = text.lastIndexOf('<', name);
	const openEnd = text.indexOf('>', name);
	if (openStart < 0 || openEnd < 0) return { text };
	const contentEnd = text.indexOf('<', openEnd + 1);
	if (contentEnd < 0 || contentEnd - openEnd < SET_ASIDE_FROM / 2) return { text };
	const open = text.slice(openStart, openEnd + 1);
	const close = ORDER_DATA_CLOSE.exec(text.slice(contentEnd, contentEnd + 200))?.[0];
	if (!ORDER_DATA_OPEN.test(open) || !close || open.endsWith('/>')) return { text };
	// Only the element's own close tag may follow: one OrderData element in all.
	if (text.indexOf('OrderData', contentEnd + close.length) >= 0) return { text };
	const content = text.slice(openEnd + 1, contentEnd);
	if (content.includes('&') || content.includes(']]>')) return { text };
	return { text: text.slice(0, openEnd + 1) + text.slice(contentEnd), orderData: content };
}

/** Parses an XML document after the safety rule; EbicsFormatError names what is wrong. */
export function parseDocument(xml: string | Buffer, what: string): Document {
	const { text, orderData } = setAsideOrderData(
		(Buffer.isBuffer(xml) ? xml.toString('utf8') : xml).replace(/^[\uFEFF\s]+(?=<)/, ''),
	);
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
	if (orderData !== undefined) {
		const found = allElements(root).filter((e) => e.localName === 'OrderData');
		if (found.length !== 1)
			throw new EbicsFormatError(`${what} has its OrderData in a place it cannot be`);
		found[0].appendChild(doc.createTextNode(orderData));
	}
	return doc;
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
