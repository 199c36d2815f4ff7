import {
	createHash,
	createPrivateKey,
	type Hash,
	type KeyObject,
	X509Certificate,
} from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

import { normalizePem, pemCertificates } from '../transport/tls';
import { attempt } from '../common/attempt';
import { canonicalPayloadText } from './base64';
import {
	C14N,
	DSIG_NS,
	ENVELOPED_SIGNATURE,
	EXC_C14N,
	RSA_SHA1,
	RSA_SHA256,
	SHA1,
	SHA256,
	SHA512,
} from './constants';
import type { PayloadDocument } from './document';
import { newPlaceholder, skeletonOf, splitAtPlaceholder } from './document';
import { BxdFormatError, BxdSignatureError } from './errors';

/** The hash a signature is made with: SHA-256 unless the bank's profile says otherwise. */
export type SignatureAlgorithm = 'sha256' | 'sha1';

/** Signature and digest method URIs of each signature algorithm. */
export const SIGNATURE_URIS: Record<SignatureAlgorithm, { signature: string; digest: string }> = {
	sha256: { signature: RSA_SHA256, digest: SHA256 },
	sha1: { signature: RSA_SHA1, digest: SHA1 },
};

/** The customer's signing certificate and key, ready for use. */
export interface SigningMaterial {
	certificatePem: string;
	/** The DER certificate in base64 (for BinarySecurityToken and X509Certificate). */
	certificateBase64: string;
	key: KeyObject;
	/** The algorithm requests are signed with (default SHA-256). */
	algorithm?: SignatureAlgorithm;
}

/** Canonicalization of the ApplicationRequest signature: banks differ. */
export type Canonicalization = 'inclusive' | 'exclusive';

const C14N_URI: Record<Canonicalization, string> = { inclusive: C14N, exclusive: EXC_C14N };

/** Every PEM certificate in a text (a chain or a bundle), in order. */
export { pemCertificates };

/** The base64 body of a PEM block on one line. */
export function pemBase64(pem: string): string {
	return pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/[^A-Za-z0-9+/=]/g, '');
}

/** Reads the signing certificate (the first in the text) and the private key. */
export function signingMaterial(
	certificatePem: string,
	privateKeyPem: string,
	passphrase?: string,
): SigningMaterial {
	const [leaf] = pemCertificates(certificatePem);
	if (!leaf) throw new BxdSignatureError('The signing certificate is not a PEM certificate');
	const key = createPrivateKey({
		key: privateKeyPem,
		format: 'pem',
		passphrase: passphrase || undefined,
	});
	return { certificatePem: leaf, certificateBase64: pemBase64(leaf), key };
}

export type HashName = 'sha256' | 'sha512' | 'sha1';

const HASH_URIS: Record<string, HashName> = {
	[SHA256]: 'sha256',
	[SHA512]: 'sha512',
	[SHA1]: 'sha1',
};

/**
 * What a signature reference digests around the payload: the canonical text before and after
 * it. The payload itself (base64 text, canonical as it is) is never part of the XML that
 * xml-crypto sees: a placeholder stands in for it.
 */
export interface PayloadSlot {
	algorithm: HashName;
	/** Canonical text before the payload. */
	prefix: string;
	/** Canonical text after the payload. */
	suffix: string;
}

/** Returns the base64 digest of prefix + payload + suffix. */
export type PayloadDigester = (slot: PayloadSlot) => string;

/** Digests a payload held in memory. */
export function bufferDigester(payload: Buffer | undefined): PayloadDigester {
	return ({ algorithm, prefix, suffix }) => {
		if (!payload) throw new BxdSignatureError('The document has no payload to digest');
		return createHash(algorithm)
			.update(prefix, 'utf8')
			.update(payload)
			.update(suffix, 'utf8')
			.digest('base64');
	};
}

const DUMMY_DIGEST: Record<HashName, string> = {
	sha256: Buffer.alloc(32).toString('base64'),
	sha512: Buffer.alloc(64).toString('base64'),
	sha1: Buffer.alloc(20).toString('base64'),
};

/**
 * Records the slots a signature would digest, answering with a dummy digest. Signing (or
 * verifying) once with it tells what a streaming pass over the payload has to hash; the real
 * signature is then made with the digests that pass computed.
 */
export class DigestCapture {
	readonly slots: PayloadSlot[] = [];

	readonly digester: PayloadDigester = (slot) => {
		this.slots.push(slot);
		return DUMMY_DIGEST[slot.algorithm];
	};

	/** The one slot that was digested (a document has one payload, referenced once). */
	single(): PayloadSlot {
		if (this.slots.length !== 1) {
			throw new BxdSignatureError(
				`Internal error: expected one digest over the payload, got ${this.slots.length}`,
			);
		}
		return this.slots[0];
	}
}

/** Answers with digests computed beforehand for exactly these slots. */
export function fixedDigester(
	entries: Array<{ slot: PayloadSlot; digest: string }>,
): PayloadDigester {
	return (slot) => {
		const found = entries.find(
			(entry) =>
				entry.slot.algorithm === slot.algorithm &&
				entry.slot.prefix === slot.prefix &&
				entry.slot.suffix === slot.suffix,
		);
		if (!found)
			throw new BxdSignatureError(
				'Internal error: the document changed between digesting and signing',
			);
		return found.digest;
	};
}

/**
 * Hash algorithms for xml-crypto that digest the canonical text with the payload put back in
 * place of the placeholder. The document xml-crypto sees is small; the digest covers the file.
 */
function payloadHashAlgorithms(
	placeholder: string,
	digester: PayloadDigester,
): SignedXml['HashAlgorithms'] {
	const algorithms: SignedXml['HashAlgorithms'] = {};
	for (const [uri, name] of Object.entries(HASH_URIS)) {
		algorithms[uri] = class PayloadHash {
			getHash(xml: string): string {
				const at = xml.indexOf(placeholder);
				if (at === -1) return createHash(name).update(xml, 'utf8').digest('base64');
				if (xml.indexOf(placeholder, at + placeholder.length) !== -1) {
					throw new BxdSignatureError('The document holds its payload more than once');
				}
				return digester({
					algorithm: name,
					prefix: xml.slice(0, at),
					suffix: xml.slice(at + placeholder.length),
				});
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
export function signApplicationRequest(
	doc: PayloadDocument,
	material: SigningMaterial,
	options: SignOptions = {},
): PayloadDocument {
	const placeholder = newPlaceholder();
	const signed = signEnvelopedSkeleton(
		skeletonOf(doc, placeholder),
		placeholder,
		material,
		options,
		bufferDigester(doc.payload),
	);
	if (!doc.payload) return { head: signed, tail: '' };
	const { head, tail } = splitAtPlaceholder(signed, placeholder);
	return { head, payload: doc.payload, tail };
}

/**
 * The enveloped signature of an ApplicationRequest given as a skeleton (the document with
 * `placeholder` where its payload goes); `digester` supplies the digest over the payload, so
 * the payload may be a file that is never in memory. Returns the signed skeleton.
 */
export function signEnvelopedSkeleton(
	skeleton: string,
	placeholder: string,
	material: SigningMaterial,
	options: SignOptions,
	digester: PayloadDigester,
): string {
	const c14n = C14N_URI[options.canonicalization ?? 'inclusive'];
	const uris = SIGNATURE_URIS[material.algorithm ?? 'sha256'];
	const signer = new SignedXml({
		privateKey: material.key,
		publicCert: material.certificatePem,
		signatureAlgorithm: uris.signature,
		canonicalizationAlgorithm: c14n,
		getKeyInfoContent: () =>
			`<X509Data><X509Certificate>${material.certificateBase64}</X509Certificate></X509Data>`,
	});
	signer.HashAlgorithms = payloadHashAlgorithms(placeholder, digester);
	signer.addReference({
		xpath: '/*',
		transforms: [ENVELOPED_SIGNATURE, c14n],
		digestAlgorithm: uris.digest,
		isEmptyUri: true,
	});
	signer.computeSignature(skeleton, { location: { reference: '/*', action: 'append' } });
	return signer.getSignedXml();
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
	payload: Buffer | PayloadDigester | undefined,
	material: SigningMaterial,
	references: WsSecurityReference[],
	tokenId: string,
	prefixes: Record<string, string>,
): string {
	const uris = SIGNATURE_URIS[material.algorithm ?? 'sha256'];
	const signer = new SignedXml({
		privateKey: material.key,
		signatureAlgorithm: uris.signature,
		canonicalizationAlgorithm: EXC_C14N,
		idMode: 'wssecurity',
		getKeyInfoContent: () =>
			`<wsse:SecurityTokenReference><wsse:Reference URI="#${tokenId}" ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"/></wsse:SecurityTokenReference>`,
	});
	signer.HashAlgorithms = payloadHashAlgorithms(
		placeholder,
		typeof payload === 'function' ? payload : bufferDigester(payload),
	);
	for (const ref of references) {
		signer.addReference({ xpath: ref.xpath, transforms: [EXC_C14N], digestAlgorithm: uris.digest });
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
	/** Accept answers signed with RSA-SHA1 / SHA-1 digests (the user's explicit opt-in). */
	acceptSha1?: boolean;
}

/** The name of a signature or digest method URI, for messages ("RSA-SHA1", "SHA-256"). */
export function algorithmName(uri: string): string {
	const match = /#(rsa-)?(sha\d+)$/i.exec(uri);
	if (!match) return uri;
	const hash = match[2].toUpperCase().replace(/^SHA/, 'SHA-');
	return match[1] ? `RSA-${hash.replace('-', '')}` : hash;
}

/**
 * How a document's enveloped signature (a `ds:Signature` child of its root) was made, for the
 * user: "RSA-SHA1", "RSA-SHA256", with the digest named when it differs ("RSA-SHA256 with SHA-1
 * digests"); "unsigned" when the root has no signature. It says nothing of whether the signature
 * verifies: call it on a document verifyEnvelopedSignature accepted.
 */
export function signatureAlgorithmOf(xml: string): string {
	const parsed = attempt(
		() =>
			new DOMParser({ errorHandler: () => undefined }).parseFromString(
				xml,
				'text/xml',
			) as unknown as Document,
	);
	const root = parsed.ok ? parsed.value.documentElement : undefined;
	const signature = root
		? childElements(root).find((el) => el.localName === 'Signature' && el.namespaceURI === DSIG_NS)
		: undefined;
	if (!signature) return 'unsigned';
	const method =
		signature.getElementsByTagNameNS(DSIG_NS, 'SignatureMethod')[0]?.getAttribute('Algorithm') ??
		'';
	const name = algorithmName(method);
	const digests = [
		...new Set(
			Array.from(signature.getElementsByTagNameNS(DSIG_NS, 'DigestMethod')).map((el) =>
				algorithmName(el.getAttribute('Algorithm') ?? ''),
			),
		),
	].filter((digest) => digest && !name.endsWith(digest.replace('-', '')));
	return digests.length ? `${name} with ${digests.join(' and ')} digests` : name;
}

/** A response signed with SHA-1 while the credential does not accept it. */
export class Sha1SignatureError extends BxdSignatureError {
	constructor(readonly algorithmUri: string) {
		super(
			`The response signature uses ${algorithmName(algorithmUri)} (${algorithmUri}), which is not accepted by default. The bank still signs with SHA-1: if you accept that, switch on "Accept SHA-1 Signatures From the Bank" in the credential; otherwise ask the bank for SHA-256 (RSA-SHA256) signatures`,
		);
		this.name = 'Sha1SignatureError';
	}
}

/**
 * The Bank Certificate cannot be used. The message states the rule (without the field's name,
 * which the caller puts in front) and never quotes the text that was given.
 */
export class BankCertificateError extends BxdSignatureError {
	constructor(message: string) {
		super(message);
		this.name = 'BankCertificateError';
	}
}

const PEM_MARKER = /-----(BEGIN|END) ([A-Z0-9 ]+)-----/g;
const PRIVATE_KEY_LABEL = /(^|\s)PRIVATE KEY$/;
/** Anything but printable ASCII and line breaks: bytes of a binary (DER) file read as text. */
const BINARY = /[^\t\n\r\x20-\x7e]/;
const PASTE_CERTIFICATE = "paste the bank's certificate (-----BEGIN CERTIFICATE-----)";

/** What a PEM block that is not a certificate is, in a user's words, and what to paste instead. */
function notACertificate(label: string): string {
	if (PRIVATE_KEY_LABEL.test(label)) return `a private key was given; ${PASTE_CERTIFICATE}`;
	if (/CERTIFICATE REQUEST$/.test(label)) {
		return 'a certificate request (CSR) was given; paste the certificate the bank issued (-----BEGIN CERTIFICATE-----)';
	}
	if (/PUBLIC KEY$/.test(label))
		return `a public key was given; ${PASTE_CERTIFICATE}, which holds it`;
	if (label === 'PKCS7' || label === 'CMS') {
		return 'a PKCS#7 bundle was given; export its certificates as PEM (-----BEGIN CERTIFICATE-----) and paste them';
	}
	return `a PEM block that is not a certificate was given; ${PASTE_CERTIFICATE}`;
}

/** "the PEM certificate" when there is one, "PEM certificate 2 of 3" in a chain or bundle. */
function which(index: number, count: number): string {
	return count === 1 ? 'the PEM certificate' : `PEM certificate ${index + 1} of ${count}`;
}

/**
 * Checks the shape of the text before anything reads it: no private key or other PEM block,
 * every BEGIN CERTIFICATE line closed by its END line, no binary bytes.
 */
function checkBankCertificateText(text: string): void {
	const markers = [...text.matchAll(PEM_MARKER)].map((m) => ({
		end: m[1] === 'END',
		label: m[2],
		at: m.index ?? 0,
		length: m[0].length,
	}));
	// A private key is named first, wherever it is in the text.
	const key = markers.find((m) => PRIVATE_KEY_LABEL.test(m.label));
	if (key) throw new BankCertificateError(notACertificate(key.label));
	if (!markers.length) {
		if (BINARY.test(text)) {
			throw new BankCertificateError(
				'binary (DER) data was given; convert it to PEM (for example openssl x509 -inform der) and paste the text from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----',
			);
		}
		throw new BankCertificateError(
			'not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")',
		);
	}
	const other = markers.find((m) => m.label !== 'CERTIFICATE');
	if (other) throw new BankCertificateError(notACertificate(other.label));
	const paired = markers.every((m, i) => m.end === (i % 2 === 1));
	if (!paired || markers.length % 2 === 1) {
		throw new BankCertificateError(
			'the PEM certificate is incomplete: each -----BEGIN CERTIFICATE----- line needs its -----END CERTIFICATE----- line (it may be truncated)',
		);
	}
	const count = markers.length / 2;
	for (let i = 0; i < count; i++) {
		const begin = markers[2 * i];
		if (BINARY.test(text.slice(begin.at + begin.length, markers[2 * i + 1].at))) {
			throw new BankCertificateError(
				`${which(i, count)} holds binary (DER) data instead of base64 text; convert the file to PEM (for example openssl x509 -inform der) and paste the text`,
			);
		}
	}
}

/**
 * A self-signed certificate whose signature does not verify with its own key was changed after it
 * was made.
 */
function damagedSelfSigned(cert: X509Certificate): boolean {
	const checked = attempt(() => cert.checkIssued(cert) && !cert.verify(cert.publicKey));
	return checked.ok && checked.value;
}

/**
 * Reads the bank's certificate(s) (a certificate, its CA, or a chain or bundle of them), as
 * pasted into a credential: line breaks lost on the way are repaired. Throws a
 * BankCertificateError for anything else, or anything that cannot be read.
 */
export function bankTrust(pem: string): BankTrust {
	checkBankCertificateText(pem);
	const blocks = pemCertificates(normalizePem(pem));
	if (!blocks.length)
		throw new BankCertificateError(
			'not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")',
		);
	const certificates = blocks.map((block, index) => {
		const read = attempt(() => new X509Certificate(block));
		if (!read.ok)
			throw new BankCertificateError(
				`${which(index, blocks.length)} cannot be read (it may be truncated or corrupted)`,
			);
		if (damagedSelfSigned(read.value)) {
			throw new BankCertificateError(
				`${which(index, blocks.length)} is corrupted: its signature does not match its content (paste it again from the bank's original file)`,
			);
		}
		return read.value;
	});
	return { certificates };
}

/** The bank's certificate(s) as `bankTrust` reads them, refused when one has expired at `now`. */
export function readBankCertificate(pem: string, now: Date = new Date()): BankTrust {
	const trust = bankTrust(pem);
	const count = trust.certificates.length;
	trust.certificates.forEach((cert, index) => {
		const notAfter = new Date(cert.validTo);
		if (!Number.isNaN(notAfter.getTime()) && notAfter.getTime() < now.getTime()) {
			throw new BankCertificateError(
				count === 1
					? `expired on ${notAfter.toISOString()}; ask the bank for its current certificate`
					: `PEM certificate ${index + 1} of ${count} expired on ${notAfter.toISOString()}; remove it, or ask the bank for its current certificate`,
			);
		}
	});
	return trust;
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
		const read = attempt(
			() => new X509Certificate(Buffer.from(keyInfoCertBase64.replace(/\s+/g, ''), 'base64')),
		);
		if (read.ok) {
			const signer = read.value;
			const same = trust.certificates.find((cert) => cert.fingerprint256 === signer.fingerprint256);
			if (same) return [same.publicKey];
			const issuer = trust.certificates.find(
				(cert) => signer.checkIssued(cert) && signer.verify(cert.publicKey),
			);
			if (issuer) {
				if (
					new Date(signer.validTo).getTime() < now.getTime() ||
					new Date(signer.validFrom).getTime() > now.getTime()
				) {
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
 * document, or when it uses SHA-1. A document whose payload streamed past (not in `doc`) is
 * checked with `streamed`, which gives the digest over it.
 */
export function verifyEnvelopedSignature(
	doc: PayloadDocument,
	trust: BankTrust,
	streamed?: PayloadDigester,
): SignatureStatus {
	const placeholder = newPlaceholder();
	const skeleton = doc.head + (doc.payload || streamed ? placeholder : '') + doc.tail;
	const problems: string[] = [];
	const parsed = new DOMParser({
		errorHandler: (level: string, message: unknown) => {
			if (level !== 'warning') problems.push(String(message));
		},
	}).parseFromString(skeleton, 'text/xml') as unknown as Document;
	if (problems.length)
		throw new BxdFormatError(`The ApplicationResponse is not well-formed XML: ${problems[0]}`);
	const root = parsed.documentElement;
	if (!root) throw new BxdFormatError('The ApplicationResponse is empty');
	const all = parsed.getElementsByTagNameNS(DSIG_NS, 'Signature');
	if (all.length === 0) return 'unsigned';
	const enveloped = childElements(root).filter(
		(el) => el.localName === 'Signature' && el.namespaceURI === DSIG_NS,
	);
	if (all.length !== 1 || enveloped.length !== 1) {
		throw new BxdSignatureError(
			'The response signature is invalid: expected exactly one enveloped signature on the ApplicationResponse',
		);
	}
	const signatureElement = enveloped[0];
	const method =
		signatureElement
			.getElementsByTagNameNS(DSIG_NS, 'SignatureMethod')[0]
			?.getAttribute('Algorithm') ?? '';
	const digests = Array.from(signatureElement.getElementsByTagNameNS(DSIG_NS, 'DigestMethod')).map(
		(el) => el.getAttribute('Algorithm') ?? '',
	);
	const weak = [method, ...digests].find((uri) => /sha1$/i.test(uri));
	if (weak && !trust.acceptSha1) throw new Sha1SignatureError(weak);
	const certElement = signatureElement.getElementsByTagNameNS(DSIG_NS, 'X509Certificate')[0];
	const keys = verificationKeys(trust, certElement?.textContent ?? undefined);
	const digester =
		streamed ?? bufferDigester(doc.payload ? canonicalPayloadText(doc.payload) : undefined);
	let lastError: BxdSignatureError | undefined;
	for (const key of keys) {
		const outcome = checkWithKey(
			skeleton,
			signatureElement,
			key,
			placeholder,
			digester,
			!!trust.acceptSha1,
		);
		if (outcome === true) return 'valid';
		lastError = outcome;
		// A digest that does not match fails with every key.
		if (/digest/.test(outcome.message)) break;
	}
	throw lastError ?? new BxdSignatureError('The response signature is invalid');
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const ID_ATTRIBUTES = ['Id', 'ID', 'id'];

/**
 * Whether a reference `#name` names the document's root element, the way some banks sign the
 * whole document (Danske Bank: `xml:id="response"` on the root, `URI="#response"`): the root
 * carries that ID and no other element does, so the reference covers exactly the whole document.
 */
function referencesRoot(signatureElement: Element, uri: string | undefined): boolean {
	const id = /^#([^\s#]+)$/.exec(uri ?? '')?.[1];
	const root = signatureElement.ownerDocument?.documentElement;
	if (!id || !root) return false;
	const ids = (element: Element): string[] =>
		[
			...ID_ATTRIBUTES.map((name) => element.getAttribute(name)),
			element.getAttributeNS(XML_NS, 'id'),
		].filter((value): value is string => !!value);
	if (!ids(root).includes(id)) return false;
	const all = root.getElementsByTagName('*');
	for (let i = 0; i < all.length; i++) if (ids(all[i]).includes(id)) return false;
	return true;
}

function checkWithKey(
	skeleton: string,
	signatureElement: Element,
	key: KeyObject,
	placeholder: string,
	digester: PayloadDigester,
	acceptSha1: boolean,
): true | BxdSignatureError {
	const verifier = new SignedXml({ publicCert: key, getCertFromKeyInfo: () => null });
	verifier.HashAlgorithms = payloadHashAlgorithms(placeholder, digester);
	if (!acceptSha1) {
		const algorithms = { ...verifier.SignatureAlgorithms };
		for (const uri of Object.keys(algorithms)) if (/sha1$/i.test(uri)) delete algorithms[uri];
		verifier.SignatureAlgorithms = algorithms;
		for (const uri of Object.keys(verifier.HashAlgorithms))
			if (/sha1$/i.test(uri)) delete verifier.HashAlgorithms[uri];
	}
	const outcome = attempt((): true | BxdSignatureError => {
		verifier.loadSignature(signatureElement as unknown as Node);
		const references = verifier.getReferences();
		if (references.length !== 1) {
			return new BxdSignatureError(
				`The response signature is invalid: it has ${references.length} references instead of one over the whole document`,
			);
		}
		const [reference] = references;
		if (
			!(
				reference.uri === '' ||
				reference.isEmptyUri ||
				referencesRoot(signatureElement, reference.uri)
			)
		) {
			return new BxdSignatureError(
				'The response signature is invalid: it does not cover the whole ApplicationResponse',
			);
		}
		if (!reference.transforms.includes(ENVELOPED_SIGNATURE)) {
			return new BxdSignatureError(
				'The response signature is invalid: it is not an enveloped signature',
			);
		}
		if (!verifier.checkSignature(skeleton)) {
			return new BxdSignatureError(
				'The response signature is invalid: the content does not match its digest (the response was altered)',
			);
		}
		return true;
	});
	if (outcome.ok) return outcome.value;
	const error = outcome.error;
	if (error instanceof BxdSignatureError) return error;
	const message = (error as Error)?.message ?? String(error);
	if (/digest/i.test(message)) {
		return new BxdSignatureError(
			'The response signature is invalid: the content does not match its digest (the response was altered)',
		);
	}
	if (/signature value .* is incorrect/i.test(message)) {
		return new BxdSignatureError(
			'The response signature is invalid: the signature value does not verify with the Bank Certificate',
		);
	}
	return new BxdSignatureError(`The response signature is invalid: ${message}`);
}

/**
 * The canonical text a verifier puts before the payload when it digests a document for an
 * enveloped signature, for each canonicalization banks use (inclusive and exclusive C14N).
 * It depends only on the text before the payload, so it is known when the payload starts to
 * arrive and the payload can be hashed as it streams by. `head` ends with the opening tag of
 * the payload element, `contentClose` closes that element and `rootClose` the root element.
 */
export function payloadPrefixes(head: string, contentClose: string, rootClose: string): string[] {
	const prefixes = new Set<string>();
	for (const c14n of [C14N, EXC_C14N]) {
		const placeholder = newPlaceholder();
		const probe =
			`<ds:Signature xmlns:ds="${DSIG_NS}"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="${EXC_C14N}"/>` +
			`<ds:SignatureMethod Algorithm="${RSA_SHA256}"/><ds:Reference URI=""><ds:Transforms>` +
			`<ds:Transform Algorithm="${ENVELOPED_SIGNATURE}"/><ds:Transform Algorithm="${c14n}"/></ds:Transforms>` +
			`<ds:DigestMethod Algorithm="${SHA256}"/><ds:DigestValue>AQ==</ds:DigestValue></ds:Reference></ds:SignedInfo>` +
			'<ds:SignatureValue>AQ==</ds:SignatureValue></ds:Signature>';
		const xml = `${head}${placeholder}${contentClose}${probe}${rootClose}`;
		const capture = new DigestCapture();
		const verifier = new SignedXml({ getCertFromKeyInfo: () => null });
		verifier.HashAlgorithms = payloadHashAlgorithms(placeholder, capture.digester);
		attempt(() => {
			const parsed = new DOMParser({ errorHandler: () => undefined }).parseFromString(
				xml,
				'text/xml',
			) as unknown as Document;
			const signature = parsed.getElementsByTagNameNS(DSIG_NS, 'Signature')[0];
			if (!signature) return false;
			verifier.loadSignature(signature as unknown as Node);
			return verifier.checkSignature(xml);
		});
		for (const slot of capture.slots) prefixes.add(slot.prefix);
	}
	return [...prefixes];
}

/** A running hash of the payload that started from one of the possible prefixes. */
export interface PrefixedHash {
	prefix: string;
	hash: Hash;
}

/**
 * Gives the digest of a payload hashed while it streamed, for a verifier: the hash that started
 * from the prefix the verifier asks for, finished with its suffix. A canonicalization whose
 * prefix was not foreseen cannot be checked after the payload has gone by.
 */
export function streamedDigester(hashes: PrefixedHash[]): PayloadDigester {
	return ({ algorithm, prefix, suffix }) => {
		const found =
			algorithm === 'sha256' ? hashes.find((entry) => entry.prefix === prefix) : undefined;
		if (!found) {
			throw new BxdSignatureError(
				`The response signature cannot be checked: a file this large is verified while it streams, which works for SHA-256 digests with inclusive or exclusive C14N, and this signature uses ${
					algorithm === 'sha256' ? 'another canonicalization' : algorithm.toUpperCase()
				}`,
			);
		}
		return found.hash.copy().update(suffix, 'utf8').digest('base64');
	};
}
