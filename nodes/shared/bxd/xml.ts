import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';

import { assertSafeXml } from '../common/xmlSafety';

export { assertSafeXml, escapeXml, UnsafeXmlError } from '../common/xmlSafety';

/** XML that is not well-formed. */
export class MalformedXmlError extends Error {
	override name = 'MalformedXmlError';
}

const parser = new XMLParser({
	ignoreAttributes: false,
	attributeNamePrefix: '@_',
	removeNSPrefix: true,
	parseTagValue: false,
	parseAttributeValue: false,
	trimValues: true,
	processEntities: false,
	htmlEntities: false,
	ignoreDeclaration: true,
	ignorePiTags: true,
});

/** Standard XML escapes, the only entity references a bank document may use. */
function unescapeXml(text: string): string {
	return text.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_m, ref: string) => {
		switch (ref) {
			case 'lt':
				return '<';
			case 'gt':
				return '>';
			case 'amp':
				return '&';
			case 'quot':
				return '"';
			case 'apos':
				return "'";
			default:
				return ref.startsWith('#x')
					? String.fromCodePoint(parseInt(ref.slice(2), 16))
					: String.fromCodePoint(parseInt(ref.slice(1), 10));
		}
	});
}

function unescapeTree(node: unknown): unknown {
	if (typeof node === 'string') return node.includes('&') ? unescapeXml(node) : node;
	if (Array.isArray(node)) return node.map(unescapeTree);
	if (node && typeof node === 'object') {
		const out: Record<string, unknown> = {};
		for (const [k, v] of Object.entries(node)) out[k] = unescapeTree(v);
		return out;
	}
	return node;
}

/**
 * Parses a small XML document (headers, descriptors; never a payload-bearing message) into plain
 * objects with namespace prefixes removed. DOCTYPE and ENTITY declarations are refused before
 * parsing; malformed XML gives a MalformedXmlError.
 */
export function parseXml<T = Record<string, unknown>>(xml: string | Buffer): T {
	// A byte-order mark or white space before the XML declaration (some gateways send one) is
	// not part of the document.
	const text = (Buffer.isBuffer(xml) ? xml.toString('utf8') : xml).replace(/^[\uFEFF\s]+(?=<)/, '');
	assertSafeXml(text);
	const valid = XMLValidator.validate(text);
	if (valid !== true) {
		throw new MalformedXmlError(`Malformed XML: ${valid.err.msg} (line ${valid.err.line})`);
	}
	return unescapeTree(parser.parse(text)) as T;
}

const builder = new XMLBuilder({
	ignoreAttributes: false,
	attributeNamePrefix: '@_',
	suppressEmptyNode: false,
	format: false,
	processEntities: true,
});

/** Builds XML from the object form `parseXml` returns (attributes under '@_name'). */
export function buildXml(obj: Record<string, unknown>): string {
	return builder.build(obj) as string;
}

/** Returns the value at a path of element names, or undefined. Arrays take their first element. */
export function xmlPath(obj: unknown, ...path: string[]): unknown {
	let cur: unknown = obj;
	for (const key of path) {
		if (Array.isArray(cur)) cur = cur[0];
		if (!cur || typeof cur !== 'object') return undefined;
		cur = (cur as Record<string, unknown>)[key];
	}
	return cur;
}

/** Always an array: XML parsers give one child as an object and several as an array. */
export function asArray<T>(value: T | T[] | undefined | null): T[] {
	if (value === undefined || value === null || value === '') return [];
	return Array.isArray(value) ? value : [value];
}

/** The text of an element, whether the parser gave a string or an object with '#text'. */
export function xmlText(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (typeof value === 'object' && '#text' in (value as object))
		return String((value as Record<string, unknown>)['#text']);
	return undefined;
}

/** An element as `parseXml` gives it: children by name, attributes under '@_name'. */
export type XmlObject = Record<string, unknown>;

/** A parsed element as an object (the first of several), or undefined when it is text or absent. */
export function xmlObject(value: unknown): XmlObject | undefined {
	if (Array.isArray(value)) value = value[0];
	return value && typeof value === 'object' ? (value as XmlObject) : undefined;
}

/** The trimmed text of a parsed element (the first of several), or undefined when it is empty. */
export function xmlValue(value: unknown): string | undefined {
	const trimmed = xmlText(Array.isArray(value) ? value[0] : value)?.trim();
	return trimmed ? trimmed : undefined;
}
