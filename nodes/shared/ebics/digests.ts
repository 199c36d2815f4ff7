/**
 * Hashes of public keys: what the initialisation letters print and what requests carry as
 * BankPubKeyDigests / EncryptionPubKeyDigest.
 *
 * - EBICS 3.0 (H005): the SHA-256 hash of the X.509 certificate (DER). As of EBICS 3.0
 *   certificates are mandatory and "the hash values of the certificates" are given in the
 *   initialisation requests and letters (EBICS blog, "EBICS 3.0 harmonisation", 2019-08;
 *   ebics-client-php DigestResolverV3 `calculateCertificateFingerprint`). This is the default.
 * - EBICS 2.5 (H004) and earlier: SHA-256 over the ASCII text "<exponent hex> <modulus hex>",
 *   lower-case hex without leading zeros (EBICS 2.5 spec 4.4.1.2.3; the spec's letter example
 *   hashes to D4 7A 24 27 ..., railslove/epics issue #44). libeufin and the node-ebics TypeScript
 *   fork send this form in H005 requests too, and bank servers usually accept both forms during
 *   migration (EBICS blog, same post): `BankKeyDigestForm` 'publicKey' keeps that possible.
 *
 * In XML a digest is base64 of the 32 bytes (ds:DigestValueType); a letter prints it as upper-case
 * hex byte pairs.
 */
import { createHash, type KeyObject } from 'node:crypto';

import { EbicsValidationError } from './errors';

/** Which hash of the bank's keys the requests carry: the spec's (certificate) or the H004 form. */
export type BankKeyDigestForm = 'certificate' | 'publicKey';

/** SHA-256 of a DER certificate (the H005 hash of a key). */
export function certificateDigest(certificateDer: Buffer): Buffer {
	return createHash('sha256').update(certificateDer).digest();
}

/** SHA-256 over "<exponent hex> <modulus hex>" (the H004 hash of a key). */
export function publicKeyDigest(publicKey: KeyObject): Buffer {
	const jwk = publicKey.export({ format: 'jwk' });
	if (!jwk.n || !jwk.e)
		throw new EbicsValidationError('publicKey', 'The key is not an RSA public key');
	const hex = (value: string): string =>
		Buffer.from(value, 'base64url').toString('hex').replace(/^0+/, '');
	return createHash('sha256')
		.update(`${hex(jwk.e)} ${hex(jwk.n)}`, 'ascii')
		.digest();
}

/** The digest of a key in the chosen form (a bare key has only the H004 form). */
export function keyDigest(
	key: { publicKey: KeyObject; certificateDer?: Buffer },
	form: BankKeyDigestForm = 'certificate',
): Buffer {
	return form === 'certificate' && key.certificateDer
		? certificateDigest(key.certificateDer)
		: publicKeyDigest(key.publicKey);
}

/**
 * A hash as an initialisation letter prints it: upper-case hex byte pairs separated by spaces,
 * 16 bytes a line (two lines for SHA-256), as the EBICS letters lay out their hash values.
 */
export function formatHash(digest: Buffer): string {
	const pairs = digest.toString('hex').toUpperCase().match(/../g) ?? [];
	const lines: string[] = [];
	for (let i = 0; i < pairs.length; i += 16) lines.push(pairs.slice(i, i + 16).join(' '));
	return lines.join('\n');
}

/**
 * Reads a hash as a user types it from a letter: 64 hex digits in any grouping (spaces, colons,
 * line breaks, either case), or the 44-character base64 form. EbicsValidationError otherwise.
 */
export function parseHash(input: string, field: string): Buffer {
	const raw = (input ?? '').trim();
	const hex = raw.replace(/[\s:-]/g, '');
	if (/^[0-9a-fA-F]{64}$/.test(hex)) return Buffer.from(hex, 'hex');
	if (/^[A-Za-z0-9+/]{43}=$/.test(raw)) return Buffer.from(raw, 'base64');
	throw new EbicsValidationError(
		field,
		`${field} must be the SHA-256 hash the bank's letter prints: 32 bytes as 64 hexadecimal digits (spaces and line breaks allowed)${raw ? `; got ${Math.floor(hex.length / 2)} bytes` : ''}`,
	);
}
