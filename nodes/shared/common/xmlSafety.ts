/**
 * The XML rules every bank protocol shares (bxd, EBICS): no document type and no entity
 * declarations in what is parsed, and the escapes of what is written.
 */

/** XML refused before it is parsed: it declares a document type or entities. */
export class UnsafeXmlError extends Error {
	override name = 'UnsafeXmlError';
}

/**
 * Refuses XML that declares a document type or entities. Banks never need them, and they are
 * how entity-expansion ("billion laughs") and external-entity attacks get in.
 */
export function assertSafeXml(xml: string): void {
	if (/<!DOCTYPE/i.test(xml)) throw new UnsafeXmlError('XML with a DOCTYPE declaration is refused');
	if (/<!ENTITY/i.test(xml)) throw new UnsafeXmlError('XML with an ENTITY declaration is refused');
}

/** Escapes text for use inside an XML element or attribute. */
export function escapeXml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&apos;');
}
