/**
 * The key material of an EBICS subscriber, in the shape the credential keeps (PEM text, so it can
 * be stored encrypted by n8n and read back as it was), and its loading into node:crypto keys with
 * the checks a bank would make. Nothing here logs or throws key material.
 *
 * Shape kept by the credential (`EbicsKeyMaterial`, JSON):
 *
 *   {
 *     "version": 1,
 *     "subscriber": {
 *       "signature":      { "privateKeyPem": "...", "certificatePem": "..." },   // A006, INI
 *       "authentication": { "privateKeyPem": "...", "certificatePem": "..." },   // X002, HIA
 *       "encryption":     { "privateKeyPem": "...", "certificatePem": "..." }    // E002, HIA
 *     },
 *     "bank": {                                     // after HPB, checked against the pinned hashes
 *       "authenticationCertificatePem": "...",      // X002: verifies the bank's responses
 *       "encryptionCertificatePem": "..."           // E002: uploads are encrypted to it
 *     }
 *   }
 *
 * Private keys are PKCS#8 (or PKCS#1) PEM, unencrypted inside the credential (n8n encrypts the
 * credential as a whole). The pinned bank hashes are credential fields of their own (what the
 * bank's letter prints), not part of this object.
 */
import { createPrivateKey, createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';

import {
	generateKeyWithCertificate,
	MIN_RSA_BITS,
	type CertificateSubject,
} from '../keys/generate';
import { EbicsKeyError, rethrowAs } from './errors';

export interface EbicsKeyPairPem {
	privateKeyPem: string;
	certificatePem: string;
}

export interface EbicsSubscriberKeys {
	/** A006: signs order data (INI sends its certificate). */
	signature: EbicsKeyPairPem;
	/** X002: signs every request (HIA sends its certificate). */
	authentication: EbicsKeyPairPem;
	/** E002: the bank encrypts downloads to it (HIA sends its certificate). */
	encryption: EbicsKeyPairPem;
}

/**
 * The bank's two keys: certificates (EBICS 3.0 always; EBICS 2.5 banks may send them) or, from an
 * EBICS 2.5 (H004) bank that sends bare keys (RSAKeyValue), the public keys as SPKI PEM.
 */
export interface EbicsBankKeys {
	authenticationCertificatePem?: string;
	encryptionCertificatePem?: string;
	authenticationPublicKeyPem?: string;
	encryptionPublicKeyPem?: string;
}

export interface EbicsKeyMaterial {
	version: 1;
	subscriber: EbicsSubscriberKeys;
	bank?: EbicsBankKeys;
}

/** One key ready for use: the private key, its certificate (DER) and its public key. */
export interface LoadedKeyPair {
	privateKey: KeyObject;
	publicKey: KeyObject;
	certificate: X509Certificate;
	/** The DER certificate. */
	certificateDer: Buffer;
}

export interface LoadedSubscriberKeys {
	signature: LoadedKeyPair;
	authentication: LoadedKeyPair;
	encryption: LoadedKeyPair;
}

/** One key of the bank; no certificate when an EBICS 2.5 bank sent the bare key. */
export interface LoadedBankKey {
	publicKey: KeyObject;
	certificate?: X509Certificate;
	certificateDer?: Buffer;
}

export interface LoadedBankKeys {
	authentication: LoadedBankKey;
	encryption: LoadedBankKey;
}

export const KEY_NAMES = {
	signature: 'signature key (A006)',
	authentication: 'authentication key (X002)',
	encryption: 'encryption key (E002)',
} as const;

function readCertificate(pem: string, what: string): X509Certificate {
	const match = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(pem ?? '');
	if (!match)
		throw new EbicsKeyError(
			what,
			`The ${what} certificate is not a PEM certificate (-----BEGIN CERTIFICATE-----)`,
		);
	return rethrowAs(
		() => new X509Certificate(match[0]),
		() =>
			new EbicsKeyError(what, `The ${what} certificate cannot be read: the PEM text is damaged`),
	);
}

function rsaBits(key: KeyObject): number {
	return key.asymmetricKeyDetails?.modulusLength ?? 0;
}

function checkRsa(key: KeyObject, what: string, minBits: number): void {
	if (key.asymmetricKeyType !== 'rsa')
		throw new EbicsKeyError(
			what,
			`The ${what} must be an RSA key (it is ${key.asymmetricKeyType ?? 'not an asymmetric key'})`,
		);
	if (rsaBits(key) < minBits)
		throw new EbicsKeyError(
			what,
			`The ${what} has ${rsaBits(key)} bits; EBICS 3.0 needs at least ${minBits}`,
		);
}

/** Reads one key pair and checks it: RSA, at least 2048 bits, the certificate holds its public key. */
export function loadKeyPair(
	pair: EbicsKeyPairPem,
	what: string,
	minBits = MIN_RSA_BITS,
): LoadedKeyPair {
	const privateKey: KeyObject = rethrowAs(
		() => createPrivateKey({ key: pair?.privateKeyPem ?? '', format: 'pem' }),
		() =>
			new EbicsKeyError(
				what,
				`The ${what} private key cannot be read: it must be an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)`,
			),
	);
	checkRsa(privateKey, what, minBits);
	const certificate = readCertificate(pair.certificatePem, what);
	const publicKey = createPublicKey(privateKey);
	const fromCertificate = certificate.publicKey.export({ type: 'spki', format: 'der' });
	if (!fromCertificate.equals(publicKey.export({ type: 'spki', format: 'der' })))
		throw new EbicsKeyError(what, `The ${what} certificate does not belong to its private key`);
	return { privateKey, publicKey, certificate, certificateDer: certificate.raw };
}

/** Reads the subscriber's three key pairs; they must be three different keys. */
export function loadSubscriberKeys(keys: EbicsSubscriberKeys): LoadedSubscriberKeys {
	if (!keys) throw new EbicsKeyError('subscriber keys', 'The subscriber has no keys');
	const loaded = {
		signature: loadKeyPair(keys.signature, KEY_NAMES.signature),
		authentication: loadKeyPair(keys.authentication, KEY_NAMES.authentication),
		encryption: loadKeyPair(keys.encryption, KEY_NAMES.encryption),
	};
	const spki = (pair: LoadedKeyPair): string =>
		pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
	const seen = new Set([
		spki(loaded.signature),
		spki(loaded.authentication),
		spki(loaded.encryption),
	]);
	if (seen.size !== 3)
		throw new EbicsKeyError(
			'subscriber keys',
			'The signature, authentication and encryption keys must be three different keys',
		);
	return loaded;
}

/** Reads the bank's two keys (from HPB, kept in the credential): certificates or bare keys. */
export function loadBankKeys(keys: EbicsBankKeys): LoadedBankKeys {
	const read = (
		certificatePem: string | undefined,
		publicKeyPem: string | undefined,
		what: string,
	): LoadedBankKey => {
		if (!certificatePem && publicKeyPem) {
			const publicKey = rethrowAs(
				() => createPublicKey({ key: publicKeyPem, format: 'pem' }),
				() => new EbicsKeyError(what, `The ${what} cannot be read: the PEM text is damaged`),
			);
			checkRsa(publicKey, what, 1024);
			return { publicKey };
		}
		const certificate = readCertificate(certificatePem ?? '', what);
		checkRsa(certificate.publicKey, what, 1024);
		return { publicKey: certificate.publicKey, certificate, certificateDer: certificate.raw };
	};
	return {
		authentication: read(
			keys?.authenticationCertificatePem,
			keys?.authenticationPublicKeyPem,
			"bank's authentication key (X002)",
		),
		encryption: read(
			keys?.encryptionCertificatePem,
			keys?.encryptionPublicKeyPem,
			"bank's encryption key (E002)",
		),
	};
}

export interface GenerateSubscriberKeysOptions {
	/** Who the self-signed certificates name (the company, or the user). */
	subject: CertificateSubject;
	/** RSA modulus length (default 2048, the least EBICS 3.0 allows). */
	bits?: number;
	validityDays?: number;
	now?: Date;
}

/** Generates the three key pairs of a new subscriber with self-signed X.509 certificates. */
export async function generateSubscriberKeys(
	options: GenerateSubscriberKeysOptions,
): Promise<EbicsSubscriberKeys> {
	const make = async (
		use: 'signature' | 'authentication' | 'encryption',
	): Promise<EbicsKeyPairPem> => {
		const made = await generateKeyWithCertificate({ ...options, use });
		return { privateKeyPem: made.privateKeyPem, certificatePem: made.certificatePem };
	};
	const [signature, authentication, encryption] = await Promise.all([
		make('signature'),
		make('authentication'),
		make('encryption'),
	]);
	return { signature, authentication, encryption };
}
