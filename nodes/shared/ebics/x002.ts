/**
 * X002, the identification and authentication signature of EBICS requests and responses: an
 * XML-DSig signature in AuthSignature with RSA-SHA256 (RSASSA-PKCS1-v1_5) over the canonical
 * SignedInfo, whose one Reference "#xpointer(//*[@authenticate='true'])" digests (SHA-256) every
 * element marked authenticate="true", in document order, each canonicalised with inclusive C14N
 * 1.0 (http://www.w3.org/TR/2001/REC-xml-c14n-20010315) as the apex of a document subset: the
 * namespaces in scope from its ancestors (the default EBICS namespace and ds:) are written on it.
 * SignedInfo is canonicalised the same way (so it carries xmlns="urn:org:ebics:H005" from the
 * root). Canonicalisation is xml-crypto's C14nCanonicalization, given the ancestors' namespaces.
 */
import { createSign, createVerify, createHash, type KeyObject } from 'node:crypto';
import { C14nCanonicalization } from 'xml-crypto';

import { AUTHENTICATE_XPOINTER, C14N, DSIG_NS, H005_NS, RSA_SHA256, SHA256_URI } from './constants';
import { EbicsSignatureError } from './errors';
import { allElements, child, children, el, empty, parseDocument, serialize } from './xml';

/** The AuthSignature of a request before signing (empty DigestValue and SignatureValue). */
export function authSignatureTemplate(): string {
	return el(
		'AuthSignature',
		{},
		el(
			'ds:SignedInfo',
			{},
			empty('ds:CanonicalizationMethod', { Algorithm: C14N }),
			empty('ds:SignatureMethod', { Algorithm: RSA_SHA256 }),
			el(
				'ds:Reference',
				{ URI: AUTHENTICATE_XPOINTER },
				el('ds:Transforms', {}, empty('ds:Transform', { Algorithm: C14N })),
				empty('ds:DigestMethod', { Algorithm: SHA256_URI }),
				el('ds:DigestValue'),
			),
		),
		el('ds:SignatureValue'),
	);
}

interface NamespaceBinding {
	prefix: string;
	namespaceURI: string;
}

/** The namespaces bound on the ancestors of an element (nearest binding wins), minus its own. */
function inheritedNamespaces(element: Element): NamespaceBinding[] {
	const own = new Set<string>();
	for (let i = 0; i < element.attributes.length; i++) {
		const attr = element.attributes[i];
		if (attr.name === 'xmlns') own.add('');
		else if (attr.name.startsWith('xmlns:')) own.add(attr.name.slice(6));
	}
	const found = new Map<string, string>();
	for (let node = element.parentNode; node && node.nodeType === 1; node = node.parentNode) {
		const ancestor = node as Element;
		for (let i = 0; i < ancestor.attributes.length; i++) {
			const attr = ancestor.attributes[i];
			const prefix =
				attr.name === 'xmlns'
					? ''
					: attr.name.startsWith('xmlns:')
						? attr.name.slice(6)
						: undefined;
			if (prefix === undefined || own.has(prefix) || found.has(prefix)) continue;
			found.set(prefix, attr.value);
		}
	}
	const out: NamespaceBinding[] = [];
	for (const [prefix, namespaceURI] of found) {
		if (!namespaceURI) continue;
		// An unprefixed element in the inherited default namespace declares it itself in xml-crypto.
		if (prefix === '' && !element.prefix && element.namespaceURI === namespaceURI) continue;
		out.push({ prefix, namespaceURI });
	}
	return out;
}

/** Inclusive C14N 1.0 of an element as the apex of a document subset. */
export function canonicalize(element: Element): string {
	return new C14nCanonicalization().process(element, {
		ancestorNamespaces: inheritedNamespaces(element),
	});
}

/** The elements the X002 reference covers: authenticate="true", in document order. */
export function authenticatedElements(doc: Document): Element[] {
	return allElements(doc.documentElement).filter((e) => e.getAttribute('authenticate') === 'true');
}

/** SHA-256 over the concatenated canonical forms of the authenticated elements. */
export function authenticationDigest(doc: Document): Buffer {
	const hash = createHash('sha256');
	for (const element of authenticatedElements(doc)) hash.update(canonicalize(element), 'utf8');
	return hash.digest();
}

function authSignatureOf(doc: Document): Element | undefined {
	return child(doc.documentElement, doc.documentElement.namespaceURI ?? H005_NS, 'AuthSignature');
}

/**
 * Signs a request built with `authSignatureTemplate()`: fills the DigestValue and the
 * SignatureValue with the subscriber's X002 key and returns the document text to send.
 */
export function signRequest(xml: string, authenticationKey: KeyObject): string {
	const doc = parseDocument(xml, 'The request');
	const signature = authSignatureOf(doc);
	const signedInfo = child(signature, DSIG_NS, 'SignedInfo');
	const digestValue = child(child(signedInfo, DSIG_NS, 'Reference'), DSIG_NS, 'DigestValue');
	const signatureValue = child(signature, DSIG_NS, 'SignatureValue');
	if (!signedInfo || !digestValue || !signatureValue)
		throw new EbicsSignatureError('The request has no AuthSignature template to fill');
	digestValue.textContent = authenticationDigest(doc).toString('base64');
	const signer = createSign('RSA-SHA256');
	signer.update(canonicalize(signedInfo), 'utf8');
	signatureValue.textContent = signer.sign(authenticationKey).toString('base64');
	return `<?xml version="1.0" encoding="UTF-8"?>${serialize(doc.documentElement)}`;
}

/**
 * Verifies the X002 signature of a parsed message with the signer's public key. Throws
 * EbicsSignatureError naming what is wrong: no AuthSignature, other algorithms than X002's, a
 * reference other than the authenticate="true" elements, nothing authenticated, a digest or a
 * signature value that does not match.
 */
export function verifyAuthSignature(doc: Document, publicKey: KeyObject, whose: string): void {
	const signature = authSignatureOf(doc);
	if (!signature) throw new EbicsSignatureError(`${whose} is not signed: it has no AuthSignature`);
	const signedInfo = child(signature, DSIG_NS, 'SignedInfo');
	const references = children(signedInfo, DSIG_NS, 'Reference');
	const algorithm = (element: Element | undefined): string =>
		element?.getAttribute('Algorithm') ?? '';
	if (!signedInfo || references.length !== 1)
		throw new EbicsSignatureError(
			`${whose}: its AuthSignature must have one SignedInfo with one Reference`,
		);
	const reference = references[0];
	if (algorithm(child(signedInfo, DSIG_NS, 'CanonicalizationMethod')) !== C14N)
		throw new EbicsSignatureError(
			`${whose}: its AuthSignature is not canonicalised with C14N 1.0 as X002 requires`,
		);
	if (algorithm(child(signedInfo, DSIG_NS, 'SignatureMethod')) !== RSA_SHA256)
		throw new EbicsSignatureError(`${whose}: its AuthSignature is not RSA-SHA256 as X002 requires`);
	if (reference.getAttribute('URI') !== AUTHENTICATE_XPOINTER)
		throw new EbicsSignatureError(
			`${whose}: its AuthSignature does not reference the authenticate="true" elements`,
		);
	const transforms = children(child(reference, DSIG_NS, 'Transforms'), DSIG_NS, 'Transform');
	if (transforms.length !== 1 || algorithm(transforms[0]) !== C14N)
		throw new EbicsSignatureError(
			`${whose}: its AuthSignature reference must have the one C14N transform of X002`,
		);
	if (algorithm(child(reference, DSIG_NS, 'DigestMethod')) !== SHA256_URI)
		throw new EbicsSignatureError(
			`${whose}: its AuthSignature digest is not SHA-256 as X002 requires`,
		);
	if (authenticatedElements(doc).length === 0)
		throw new EbicsSignatureError(`${whose}: no element is marked authenticate="true"`);
	const expected = Buffer.from(
		child(reference, DSIG_NS, 'DigestValue')?.textContent?.trim() ?? '',
		'base64',
	);
	if (!expected.equals(authenticationDigest(doc)))
		throw new EbicsSignatureError(
			`${whose}: the authentication signature does not match the content (digest differs: the message was changed after signing)`,
		);
	const value = Buffer.from(
		child(signature, DSIG_NS, 'SignatureValue')?.textContent?.replace(/\s+/g, '') ?? '',
		'base64',
	);
	const verifier = createVerify('RSA-SHA256');
	verifier.update(canonicalize(signedInfo), 'utf8');
	let valid = false;
	try {
		valid = value.length > 0 && verifier.verify(publicKey, value);
	} catch {
		valid = false;
	}
	if (!valid)
		throw new EbicsSignatureError(
			`${whose}: the authentication signature value does not verify with the expected X002 key`,
		);
}
