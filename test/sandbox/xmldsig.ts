/**
 * Enveloped XML-DSig for the file service.
 *
 * Responses: the sandbox writes its ApplicationResponse documents directly in canonical
 * form (exclusive C14N), so the reference digest can be computed while the parts are
 * produced, without ever holding a large document in memory. Any standard verifier
 * (xml-crypto, xmlsec) checks these signatures.
 *
 * Requests: customer signatures are verified with xml-crypto against the registered
 * customer certificate.
 */
import { createHash, createPrivateKey, sign as cryptoSign, type Hash } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

import { pemBody } from './certs';

export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
export const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/** Escapes character data the way Canonical XML writes it. */
export function c14nText(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/\r/g, '&#xD;');
}

/** Incremental digest over the canonical document (without the Signature element). */
export class CanonicalDigest {
	private readonly hash: Hash = createHash('sha256');

	update(chunk: string | Buffer): void {
		this.hash.update(chunk);
	}

	digestBase64(): string {
		return this.hash.digest('base64');
	}
}

/** Builds the <Signature> element for an enveloped signature over a document with digest `digestValue`. */
export function buildSignature(digestValue: string, keyPem: string, certPem: string): string {
	const signedInfo =
		`<SignedInfo xmlns="${DSIG_NS}">` +
		`<CanonicalizationMethod Algorithm="${EXC_C14N}"></CanonicalizationMethod>` +
		`<SignatureMethod Algorithm="${RSA_SHA256}"></SignatureMethod>` +
		'<Reference URI=""><Transforms>' +
		`<Transform Algorithm="${ENVELOPED}"></Transform>` +
		`<Transform Algorithm="${EXC_C14N}"></Transform>` +
		`</Transforms><DigestMethod Algorithm="${SHA256}"></DigestMethod>` +
		`<DigestValue>${digestValue}</DigestValue></Reference></SignedInfo>`;
	const signatureValue = cryptoSign(
		'sha256',
		Buffer.from(signedInfo, 'utf8'),
		createPrivateKey(keyPem),
	).toString('base64');
	return (
		`<Signature xmlns="${DSIG_NS}">${signedInfo}<SignatureValue>${signatureValue}</SignatureValue>` +
		`<KeyInfo><X509Data><X509Certificate>${pemBody(certPem)}</X509Certificate></X509Data></KeyInfo></Signature>`
	);
}

export type SignatureCheck = 'none' | 'valid' | 'invalid';

/**
 * The enveloped signature of an XML document: the one ds:Signature, a child of the root element.
 * 'none' without any signature; 'invalid' when the text does not parse, or the signatures are
 * several or nested elsewhere.
 */
export function envelopedSignature(xml: string): Element | 'none' | 'invalid' {
	let doc: Document;
	try {
		doc = new DOMParser({ errorHandler: () => undefined }).parseFromString(
			xml,
			'text/xml',
		) as unknown as Document;
	} catch {
		return 'invalid';
	}
	const root = doc.documentElement;
	if (!root) return 'invalid';
	const signatures: Element[] = [];
	for (let node = root.firstChild; node; node = node.nextSibling) {
		if (
			node.nodeType === 1 &&
			(node as Element).localName === 'Signature' &&
			(node as Element).namespaceURI === DSIG_NS
		) {
			signatures.push(node as Element);
		}
	}
	const nested = doc.getElementsByTagNameNS(DSIG_NS, 'Signature').length;
	if (signatures.length === 0 && nested === 0) return 'none';
	if (signatures.length !== 1 || nested !== 1) return 'invalid';
	return signatures[0];
}

/**
 * Verifies the enveloped signature of an XML document (child ds:Signature of the root
 * element, one reference covering the whole document) with the given certificate.
 */
export function verifyEnvelopedSignature(xml: string, certPem: string): SignatureCheck {
	const signature = envelopedSignature(xml);
	if (typeof signature === 'string') return signature;
	try {
		const verifier = new SignedXml({ publicCert: certPem, getCertFromKeyInfo: () => null });
		verifier.loadSignature(signature as unknown as Node);
		const references = verifier.getReferences();
		if (references.length !== 1 || !(references[0].uri === '' || references[0].isEmptyUri))
			return 'invalid';
		return verifier.checkSignature(xml) ? 'valid' : 'invalid';
	} catch {
		return 'invalid';
	}
}

/**
 * Signs an ApplicationRequest the way bxd banks expect (enveloped, RSA-SHA256,
 * SHA-256 digest, KeyInfo/X509Data). Used by tests and examples as the customer side.
 */
/**
 * Signs a document the way Danske Bank signs its PKI answers: the root element carries
 * `xml:id="response"` and the one Reference names it (`URI="#response"`), enveloped, exclusive C14N.
 */
export function signRootById(xml: string, keyPem: string, certPem: string, algorithm: 'sha256' | 'sha1' = 'sha256'): string {
	const withId = xml.replace(/^(<[\w.:-]+)/, '$1 xml:id="response"');
	const signer = new SignedXml({
		privateKey: keyPem,
		publicCert: certPem,
		signatureAlgorithm: algorithm === 'sha1' ? RSA_SHA1 : RSA_SHA256,
		canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
	});
	signer.addReference({
		xpath: '/*',
		transforms: [ENVELOPED, 'http://www.w3.org/2001/10/xml-exc-c14n#'],
		digestAlgorithm: algorithm === 'sha1' ? SHA1 : SHA256,
	});
	signer.computeSignature(withId, { location: { reference: '/*', action: 'append' } });
	return signer.getSignedXml();
}

/** Enveloped signature over the whole document, RSA-SHA256 (or RSA-SHA1, as older banks still sign). */
export function signApplicationRequest(xml: string, keyPem: string, certPem: string, algorithm: 'sha256' | 'sha1' = 'sha256'): string {
	const signer = new SignedXml({
		privateKey: keyPem,
		publicCert: certPem,
		signatureAlgorithm: algorithm === 'sha1' ? RSA_SHA1 : RSA_SHA256,
		canonicalizationAlgorithm: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
	});
	signer.addReference({
		xpath: '/*',
		transforms: [ENVELOPED, 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315'],
		digestAlgorithm: algorithm === 'sha1' ? SHA1 : SHA256,
		isEmptyUri: true,
	});
	signer.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
	return signer.getSignedXml();
}
