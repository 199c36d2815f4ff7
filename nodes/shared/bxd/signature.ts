import { createHash, createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

import { attempt } from './attempt';
import { canonicalPayloadText } from './base64';
import { C14N, DSIG_NS, ENVELOPED_SIGNATURE, EXC_C14N, RSA_SHA256, SHA256, SHA512 } from './constants';
import type { PayloadDocument } from './document';
import { newPlaceholder, skeletonOf, splitAtPlaceholder } from './document';
import { BxdFormatError, BxdSignatureError } from './errors';

/** The customer's signing certificate and key, ready for use. */
export interface SigningMaterial {
	certificatePem: string;
	/** The DER certificate in base64 (for BinarySecurityToken and X509Certificate). */
	certificateBase64: string;
	key: KeyObject;
}

/** Canonicalization of the ApplicationRequest signature: banks differ. */
export type Canonicalization = 'inclusive' | 'exclusive';

const C14N_URI: Record<Canonicalization, string> = { inclusive: C14N, exclusive: EXC_C14N };

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Every PEM certificate in a text (a chain or a bundle), in order. */
export function pemCertificates(pem: string): string[] {
	return pem.match(PEM_CERT) ?? [];
}

/** The base64 body of a PEM block on one line. */
export function pemBase64(pem: string): string {
	return pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/[^A-Za-z0-9+/=]/g, '');
}

/** Reads the signing certificate (the first in the text) and the private key. */
export function signingMaterial(certificatePem: string, privateKeyPem: string, passphrase?: string): SigningMaterial {
	const [leaf] = pemCertificates(certificatePem);
	if (!leaf) throw new BxdSignatureError('The signing certificate is not a PEM certificate');
	const key = createPrivateKey({ key: privateKeyPem, format: 'pem', passphrase: passphrase || undefined });
	return { certificatePem: leaf, certificateBase64: pemBase64(leaf), key };
}

type HashName = 'sha256' | 'sha512';

const HASH_URIS: Record<string, HashName> = { [SHA256]: 'sha256', [SHA512]: 'sha512' };

/**
 * Hash algorithms for xml-crypto that digest the canonical text with the payload put back in
 * place of the placeholder. The document xml-crypto sees is small; the digest covers the file.
 */
function payloadHashAlgorithms(placeholder: string, payload: Buffer | undefined): SignedXml['HashAlgorithms'] {
	const algorithms: SignedXml['HashAlgorithms'] = {};
	for (const [uri, name] of Object.entries(HASH_URIS)) {
		algorithms[uri] = class PayloadHash {
			getHash(xml: string): string {
				const hash = createHash(name);
				const at = xml.indexOf(placeholder);
				if (at === -1) {
					hash.update(xml, 'utf8');
				} else {
					if (!payload || xml.indexOf(placeholder, at + placeholder.length) !== -1) {
						throw new BxdSignatureError('The document holds its payload more than once');
					}
					hash.update(xml.slice(0, at), 'utf8');
					hash.update(payload);
					hash.update(xml.slice(at + placeholder.length), 'utf8');
				}
				return hash.digest('base64');
			}

			getAlgorithmName(): string {
				return uri;
			}
		};
	}
	return algorithms;
}

export interface SignOptions {
	canonicalization?: Canonicalization;
}

/**
 * Signs an ApplicationRequest with an enveloped XML-DSig as the bxd banks expect: RSA-SHA256,
 * SHA-256 digest, one reference with URI "" and the enveloped-signature transform followed by
 * C14N (inclusive by default, as the banks' own samples do; exclusive on request), KeyInfo with
 * the certificate. The Signature is the last child of the root, where the schema puts it.
 */
export function signApplicationRequest(doc: PayloadDocument, material: SigningMaterial, options: SignOptions = {}): PayloadDocument {
	const c14n = C14N_URI[options.canonicalization ?? 'inclusive'];
	const placeholder = newPlaceholder();
	const signer = new SignedXml({
		privateKey: material.key,
		publicCert: material.certificatePem,
		signatureAlgorithm: RSA_SHA256,
		canonicalizationAlgorithm: c14n,
		getKeyInfoContent: () => `<X509Data><X509Certificate>${material.certificateBase64}</X509Certificate></X509Data>`,
	});
	signer.HashAlgorithms = payloadHashAlgorithms(placeholder, doc.payload);
	signer.addReference({
		xpath: '/*',
		transforms: [ENVELOPED_SIGNATURE, c14n],
		digestAlgorithm: SHA256,
		isEmptyUri: true,
	});
	signer.computeSignature(skeletonOf(doc, placeholder), { location: { reference: '/*', action: 'append' } });
	const signed = signer.getSignedXml();
	if (!doc.payload) return { head: signed, tail: '' };
	const { head, tail } = splitAtPlaceholder(signed, placeholder);
	return { head, payload: doc.payload, tail };
}

export interface WsSecurityReference {
	/** XPath of the element (it carries a wsu:Id). */
	xpath: string;
}

/**
 * Computes the WS-Security signature over the referenced elements (exclusive C14N, RSA-SHA256,
 * SHA-256 digests) and appends it to wsse:Security, with KeyInfo pointing at the
 * BinarySecurityToken. The skeleton holds `placeholder` where the payload goes.
 */
export function signWsSecurity(
	skeleton: string,
	placeholder: string,
	payload: Buffer | undefined,
	material: SigningMaterial,
	references: WsSecurityReference[],
	tokenId: string,
	prefixes: Record<string, string>,
): string {
	const signer = new SignedXml({
		privateKey: material.key,
		signatureAlgorithm: RSA_SHA256,
		canonicalizationAlgorithm: EXC_C14N,
		idMode: 'wssecurity',
		getKeyInfoContent: () =>
			`<wsse:SecurityTokenReference><wsse:Reference URI="#${tokenId}" ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"/></wsse:SecurityTokenReference>`,
	});
	signer.HashAlgorithms = payloadHashAlgorithms(placeholder, payload);
	for (const ref of references) {
		signer.addReference({ xpath: ref.xpath, transforms: [EXC_C14N], digestAlgorithm: SHA256 });
	}
	signer.computeSignature(skeleton, {
		prefix: 'ds',
		location: { reference: "//*[local-name(.)='Security']", action: 'append' },
		existingPrefixes: prefixes,
	});
	return signer.getSignedXml();
}

/** Who may sign the bank's responses: its certificate(s), or the CA that issues them. */
export interface BankTrust {
	certificates: X509Certificate[];
	now?: () => Date;
}

export function bankTrust(pem: string): BankTrust {
	const blocks = pemCertificates(pem);
	if (!blocks.length) throw new BxdSignatureError('The Bank Certificate is not a PEM certificate');
	return { certificates: blocks.map((block) => new X509Certificate(block)) };
}

/**
 * The keys that may have signed: the certificate in KeyInfo when it is one of the trusted
 * certificates or a trusted CA issued it (and it is valid now); without KeyInfo, every trusted
 * certificate. A certificate the bank sends that neither is nor is issued by a trusted one is
 * never used.
 */
function verificationKeys(trust: BankTrust, keyInfoCertBase64: string | undefined): KeyObject[] {
	const now = (trust.now ?? (() => new Date()))();
	if (keyInfoCertBase64?.trim()) {
		const read = attempt(() => new X509Certificate(Buffer.from(keyInfoCertBase64.replace(/\s+/g, ''), 'base64')));
		if (read.ok) {
			const signer = read.value;
			const same = trust.certificates.find((cert) => cert.fingerprint256 === signer.fingerprint256);
			if (same) return [same.publicKey];
			const issuer = trust.certificates.find((cert) => signer.checkIssued(cert) && signer.verify(cert.publicKey));
			if (issuer) {
				if (new Date(signer.validTo).getTime() < now.getTime() || new Date(signer.validFrom).getTime() > now.getTime()) {
					throw new BxdSignatureError(
						`The response signature is invalid: it was made with a certificate that is not valid now (valid ${signer.validFrom} to ${signer.validTo})`,
					);
				}
				return [signer.publicKey];
			}
			throw new BxdSignatureError(
				`The response signature is invalid: it was made with a certificate (${signer.subject.replace(/\n/g, ', ')}) that is neither the Bank Certificate of the credential nor issued by it`,
			);
		}
	}
	return trust.certificates.map((cert) => cert.publicKey);
}

function childElements(element: Element): Element[] {
	const out: Element[] = [];
	for (let node = element.firstChild; node; node = node.nextSibling) {
		if (node.nodeType === 1) out.push(node as Element);
	}
	return out;
}

export type SignatureStatus = 'valid' | 'unsigned';

/**
 * Verifies the enveloped signature of an ApplicationResponse held as a payload document (the
 * Content cut out). Returns 'unsigned' when there is no signature, 'valid' when it verifies, and
 * throws a BxdSignatureError when it does not, when it signs anything less than the whole
 * document, or when it uses SHA-1.
 */
export function verifyEnvelopedSignature(doc: PayloadDocument, trust: BankTrust): SignatureStatus {
	const placeholder = newPlaceholder();
	const skeleton = skeletonOf(doc, placeholder);
	const problems: string[] = [];
	const parsed = new DOMParser({
		errorHandler: (level: string, message: unknown) => {
			if (level !== 'warning') problems.push(String(message));
		},
	}).parseFromString(skeleton, 'text/xml') as unknown as Document;
	if (problems.length) throw new BxdFormatError(`The ApplicationResponse is not well-formed XML: ${problems[0]}`);
	const root = parsed.documentElement;
	if (!root) throw new BxdFormatError('The ApplicationResponse is empty');
	const all = parsed.getElementsByTagNameNS(DSIG_NS, 'Signature');
	if (all.length === 0) return 'unsigned';
	const enveloped = childElements(root).filter((el) => el.localName === 'Signature' && el.namespaceURI === DSIG_NS);
	if (all.length !== 1 || enveloped.length !== 1) {
		throw new BxdSignatureError('The response signature is invalid: expected exactly one enveloped signature on the ApplicationResponse');
	}
	const signatureElement = enveloped[0];
	const method = signatureElement.getElementsByTagNameNS(DSIG_NS, 'SignatureMethod')[0]?.getAttribute('Algorithm') ?? '';
	const digests = Array.from(signatureElement.getElementsByTagNameNS(DSIG_NS, 'DigestMethod')).map((el) => el.getAttribute('Algorithm') ?? '');
	const weak = [method, ...digests].find((uri) => /sha1$/i.test(uri));
	if (weak) {
		throw new BxdSignatureError(`The response signature is invalid: it uses SHA-1 (${weak}), which is no longer accepted`);
	}
	const certElement = signatureElement.getElementsByTagNameNS(DSIG_NS, 'X509Certificate')[0];
	const keys = verificationKeys(trust, certElement?.textContent ?? undefined);
	const payload = doc.payload ? canonicalPayloadText(doc.payload) : undefined;
	let lastError: BxdSignatureError | undefined;
	for (const key of keys) {
		const outcome = checkWithKey(skeleton, signatureElement, key, placeholder, payload);
		if (outcome === true) return 'valid';
		lastError = outcome;
		// A digest that does not match fails with every key.
		if (/digest/.test(outcome.message)) break;
	}
	throw lastError ?? new BxdSignatureError('The response signature is invalid');
}

function checkWithKey(
	skeleton: string,
	signatureElement: Element,
	key: KeyObject,
	placeholder: string,
	payload: Buffer | undefined,
): true | BxdSignatureError {
	const verifier = new SignedXml({ publicCert: key, getCertFromKeyInfo: () => null });
	verifier.HashAlgorithms = payloadHashAlgorithms(placeholder, payload);
	const algorithms = { ...verifier.SignatureAlgorithms };
	for (const uri of Object.keys(algorithms)) if (/sha1$/i.test(uri)) delete algorithms[uri];
	verifier.SignatureAlgorithms = algorithms;
	const outcome = attempt((): true | BxdSignatureError => {
		verifier.loadSignature(signatureElement as unknown as Node);
		const references = verifier.getReferences();
		if (references.length !== 1) {
			return new BxdSignatureError(`The response signature is invalid: it has ${references.length} references instead of one over the whole document`);
		}
		const [reference] = references;
		if (!(reference.uri === '' || reference.isEmptyUri)) {
			return new BxdSignatureError('The response signature is invalid: it does not cover the whole ApplicationResponse');
		}
		if (!reference.transforms.includes(ENVELOPED_SIGNATURE)) {
			return new BxdSignatureError('The response signature is invalid: it is not an enveloped signature');
		}
		if (!verifier.checkSignature(skeleton)) {
			return new BxdSignatureError('The response signature is invalid: the content does not match its digest (the response was altered)');
		}
		return true;
	});
	if (outcome.ok) return outcome.value;
	const error = outcome.error;
	if (error instanceof BxdSignatureError) return error;
	const message = (error as Error)?.message ?? String(error);
	if (/digest/i.test(message)) {
		return new BxdSignatureError('The response signature is invalid: the content does not match its digest (the response was altered)');
	}
	if (/signature value .* is incorrect/i.test(message)) {
		return new BxdSignatureError('The response signature is invalid: the signature value does not verify with the Bank Certificate');
	}
	return new BxdSignatureError(`The response signature is invalid: ${message}`);
}
