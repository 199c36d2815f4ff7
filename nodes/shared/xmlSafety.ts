/**
 * The XML safety rule every bank protocol applies before parsing an answer (bxd, EBICS): no
 * document type, no entity declarations.
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
