/**
 * Key generation every protocol uses: RSA key pairs made with node:crypto (off the event loop),
 * PKCS#10 requests for a bank to certify them (bxd certificate services, Danske Bank) and
 * self-signed X.509 certificates (EBICS), both made with node-forge (bundled). Private keys leave
 * here only as PKCS#8 PEM for the credential to keep; nothing here logs or throws key material.
 */
import { generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateKeyPairAsync = promisify(generateKeyPair);

/** The smallest RSA modulus the package generates or accepts for a bank key (EBICS 3.0: 2048). */
export const MIN_RSA_BITS = 2048;

export interface GeneratedKey {
	/** PKCS#8 PEM (unencrypted: the credential store encrypts it). */
	privateKeyPem: string;
	/** SubjectPublicKeyInfo PEM. */
	publicKeyPem: string;
}

/** Generates an RSA key pair (exponent 65537) of `bits` bits, at least MIN_RSA_BITS. */
export async function generateRsaKey(bits = MIN_RSA_BITS): Promise<GeneratedKey> {
	if (!Number.isInteger(bits) || bits < MIN_RSA_BITS)
		throw new RangeError(`An RSA key must have at least ${MIN_RSA_BITS} bits (asked for ${bits})`);
	const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
		modulusLength: bits,
		publicExponent: 0x10001,
	});
	return {
		privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
		publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
	};
}

export interface CertificateSubject {
	commonName: string;
	organization?: string;
	/** Two-letter country code. */
	country?: string;
}

/** What a self-signed certificate is for: it decides the keyUsage extension. */
export type CertificateUse = 'signature' | 'authentication' | 'encryption';

export interface SelfSignedOptions {
	subject: CertificateSubject;
	use: CertificateUse;
	/** Validity in days from `now` (default 5 years). */
	validityDays?: number;
	now?: Date;
}

const KEY_USAGE: Record<CertificateUse, Record<string, boolean>> = {
	signature: { digitalSignature: true, nonRepudiation: true },
	authentication: { digitalSignature: true },
	encryption: { keyEncipherment: true, dataEncipherment: true },
};

/**
 * A self-signed X.509 v3 certificate (SHA-256 with RSA) for a key: a random positive 16-byte
 * serial number, validity from a minute before `now`, keyUsage by `use`. Returns the PEM.
 */
export function selfSignedCertificate(privateKeyPem: string, options: SelfSignedOptions): string {
	const key = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
	const certificate = forge.pki.createCertificate();
	certificate.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
	const serial = randomBytes(16);
	serial[0] &= 0x7f;
	serial[0] |= 0x01;
	certificate.serialNumber = serial.toString('hex');
	const now = options.now ?? new Date();
	certificate.validity.notBefore = new Date(now.getTime() - 60_000);
	certificate.validity.notAfter = new Date(
		now.getTime() + (options.validityDays ?? 5 * 365) * 24 * 60 * 60 * 1000,
	);
	const attributes: forge.pki.CertificateField[] = [
		{ shortName: 'CN', value: options.subject.commonName },
	];
	if (options.subject.organization)
		attributes.push({ shortName: 'O', value: options.subject.organization });
	if (options.subject.country) attributes.push({ shortName: 'C', value: options.subject.country });
	certificate.setSubject(attributes);
	certificate.setIssuer(attributes);
	certificate.setExtensions([
		{ name: 'basicConstraints', cA: false },
		{ name: 'keyUsage', critical: true, ...KEY_USAGE[options.use] },
		{ name: 'subjectKeyIdentifier' },
	]);
	certificate.sign(key, forge.md.sha256.create());
	return forge.pki.certificateToPem(certificate).replace(/\r\n/g, '\n');
}

/** A fresh key pair and its self-signed certificate. */
export async function generateKeyWithCertificate(
	options: SelfSignedOptions & { bits?: number },
): Promise<GeneratedKey & { certificatePem: string }> {
	const key = await generateRsaKey(options.bits ?? MIN_RSA_BITS);
	return { ...key, certificatePem: selfSignedCertificate(key.privateKeyPem, options) };
}

/** The subject of a certificate request. */
export interface CsrSubject {
	commonName: string;
	/** The customer id, as the banks' own clients put it in serialNumber. */
	serialNumber?: string;
	country?: string;
}

/** A new key pair and the PKCS#10 request for it. The private key never leaves the credential. */
export interface KeyAndRequest {
	privateKeyPem: string;
	publicKey: KeyObject;
	csrDer: Buffer;
	csrPem: string;
}

/** Makes an RSA key pair (2048 bits) and a PKCS#10 request signed with SHA-256. */
export async function createKeyAndRequest(
	subject: CsrSubject,
	bits = MIN_RSA_BITS,
): Promise<KeyAndRequest> {
	const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
		modulusLength: bits,
		publicExponent: 0x10001,
	});
	const csr = forge.pki.createCertificationRequest();
	csr.publicKey = forge.pki.publicKeyFromPem(
		publicKey.export({ type: 'spki', format: 'pem' }).toString(),
	);
	const attributes: forge.pki.CertificateField[] = [{ shortName: 'CN', value: subject.commonName }];
	if (subject.serialNumber) attributes.push({ name: 'serialNumber', value: subject.serialNumber });
	if (subject.country) attributes.push({ shortName: 'C', value: subject.country });
	csr.setSubject(attributes);
	// forge signs with its own key object: read the key into it for this one use.
	csr.sign(
		forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
		forge.md.sha256.create(),
	);
	return {
		privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
		publicKey,
		csrDer: Buffer.from(
			forge.asn1.toDer(forge.pki.certificationRequestToAsn1(csr)).getBytes(),
			'binary',
		),
		csrPem: forge.pki.certificationRequestToPem(csr),
	};
}

/** Whether a certificate holds this public key. */
export function holdsKey(certificate: { publicKey: KeyObject }, key: KeyObject): boolean {
	return certificate.publicKey
		.export({ type: 'spki', format: 'der' })
		.equals(key.export({ type: 'spki', format: 'der' }));
}
