/**
 * The bank's keys from an EBICS 2.5 (H004) HPB: each key info holds the bare key (PubKeyValue:
 * RSAKeyValue, always) and may hold its X.509 certificate (X509Data). A certificate is kept only
 * when it holds the same key as the RSAKeyValue; a bank that sends none is kept by its bare keys.
 */
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

import { DSIG_NS } from '../constants';
import { EbicsFormatError, rethrowAs } from '../errors';
import type { EbicsBankKeys } from '../keys';
import { child, parseDocument, path, text } from '../xml';
import { H004_NS } from './requests';

/** A public key from ds:RSAKeyValue (modulus and exponent in base64). */
export function readRsaKeyValue(rsaKeyValue: Element | undefined, what: string): KeyObject {
	const modulus = text(child(rsaKeyValue, DSIG_NS, 'Modulus'))?.replace(/\s+/g, '');
	const exponent = text(child(rsaKeyValue, DSIG_NS, 'Exponent'))?.replace(/\s+/g, '');
	if (!modulus || !exponent)
		throw new EbicsFormatError(`The bank's ${what} key (HPB) has no RSAKeyValue`);
	return rethrowAs(
		() =>
			createPublicKey({
				key: {
					kty: 'RSA',
					n: Buffer.from(modulus, 'base64').toString('base64url'),
					e: Buffer.from(exponent, 'base64').toString('base64url'),
				},
				format: 'jwk',
			}),
		() => new EbicsFormatError(`The bank's ${what} key (HPB) is not an RSA key`),
	);
}

function readKey(
	info: Element | undefined,
	what: string,
): { certificatePem?: string; publicKeyPem: string } {
	if (!info) throw new EbicsFormatError(`The bank's keys (HPB) have no ${what} key`);
	const publicKey = readRsaKeyValue(
		child(child(info, H004_NS, 'PubKeyValue'), DSIG_NS, 'RSAKeyValue'),
		what,
	);
	const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
	const der = text(path(info, DSIG_NS, 'X509Data', 'X509Certificate'))?.replace(/\s+/g, '');
	if (!der) return { publicKeyPem };
	const certificate = rethrowAs(
		() => new X509Certificate(Buffer.from(der, 'base64')),
		() => new EbicsFormatError(`The bank's ${what} certificate (HPB) cannot be read`),
	);
	const spki = (key: KeyObject): string =>
		key.export({ type: 'spki', format: 'der' }).toString('base64');
	if (spki(certificate.publicKey) !== spki(publicKey))
		throw new EbicsFormatError(
			`The bank's ${what} certificate (HPB) holds another key than its RSAKeyValue`,
		);
	return { certificatePem: certificate.toString(), publicKeyPem };
}

/** Reads an H004 HPBResponseOrderData: the bank's X002 and E002 keys. */
export function readHpbOrderDataH004(xml: Buffer | string): {
	hostId?: string;
	keys: EbicsBankKeys;
} {
	const root = parseDocument(xml, "The bank's keys (HPB)").documentElement;
	if (root.localName !== 'HPBResponseOrderData' || root.namespaceURI !== H004_NS)
		throw new EbicsFormatError(
			`The bank's keys (HPB) are not an H004 HPBResponseOrderData (the root is ${root.localName})`,
		);
	const authentication = readKey(
		child(root, H004_NS, 'AuthenticationPubKeyInfo'),
		'authentication (X002)',
	);
	const encryption = readKey(child(root, H004_NS, 'EncryptionPubKeyInfo'), 'encryption (E002)');
	const keys: EbicsBankKeys =
		authentication.certificatePem && encryption.certificatePem
			? {
					authenticationCertificatePem: authentication.certificatePem,
					encryptionCertificatePem: encryption.certificatePem,
				}
			: {
					authenticationPublicKeyPem: authentication.publicKeyPem,
					encryptionPublicKeyPem: encryption.publicKeyPem,
				};
	return { hostId: text(child(root, H004_NS, 'HostID')), keys };
}
