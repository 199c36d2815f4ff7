/**
 * RSA PKCS#1 v1.5 private decryption ("RSAES-PKCS1-v1_5"), which bank protocols still use to wrap
 * a transaction key (Danske's XML Encryption rsa-1_5, EBICS E002).
 *
 * Node 20's OpenSSL 3.0 build refuses it in node:crypto (the Marvin attack fix, CVE-2023-46809,
 * revertible only with a process flag); Node 22.13+/24 (OpenSSL 3.2+) allow it because OpenSSL
 * does implicit rejection there (a bad block gives random bytes instead of an error). So
 * node:crypto is used where it works, and node-forge's RSAES-PKCS1-V1_5 (bundled) where node:crypto
 * refuses. Either way a caller accepts the result only when it has the length and meaning it
 * expects (a 24-byte 3DES key, a 16-byte AES key that deciphers to well-padded data).
 */
import { constants as cryptoConstants, type KeyObject, privateDecrypt } from 'node:crypto';
import forge from 'node-forge';

/** Whether this node:crypto refuses RSA PKCS#1 v1.5 private decryption (Node 20's OpenSSL 3.0). */
let nodeRefusesPkcs1: boolean | undefined;

/**
 * Decrypts an RSA PKCS#1 v1.5 block with a private key; undefined when it cannot be decrypted
 * (another key, a damaged block). Never throws with key material in the message.
 */
export function rsaPkcs1Decrypt(wrapped: Buffer, key: KeyObject): Buffer | undefined {
	if (nodeRefusesPkcs1 !== true) {
		try {
			const out = privateDecrypt({ key, padding: cryptoConstants.RSA_PKCS1_PADDING }, wrapped);
			nodeRefusesPkcs1 = false;
			return out;
		} catch (error) {
			const code = (error as { code?: string }).code;
			if (code !== 'ERR_INVALID_ARG_VALUE') return undefined;
			nodeRefusesPkcs1 = true;
		}
	}
	try {
		const pem = key.export({ type: 'pkcs1', format: 'pem' }) as string;
		const forgeKey = forge.pki.privateKeyFromPem(pem);
		return Buffer.from(forgeKey.decrypt(wrapped.toString('binary'), 'RSAES-PKCS1-V1_5'), 'binary');
	} catch {
		return undefined;
	}
}
