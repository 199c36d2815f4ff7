/**
 * RSA PKCS#1 v1.5 private decryption ("RSAES-PKCS1-v1_5"), which bank protocols still use to wrap
 * a transaction key (Danske's XML Encryption rsa-1_5, EBICS E002).
 *
 * Node 20's OpenSSL 3.0 build refuses it in node:crypto (the Marvin attack fix, CVE-2023-46809,
 * revertible only with a process flag); Node 22.13+/24 (OpenSSL 3.2+) allow it because OpenSSL
 * does implicit rejection there (a bad block gives random bytes instead of an error). So
 * node:crypto's PKCS#1 v1.5 is used where it works; where node:crypto refuses it, the RSA
 * operation is still node:crypto's (without padding) and the block's EME-PKCS1-v1_5 layout
 * (RFC 8017, 7.2.2) is read here, the whole block every time. Either way a caller accepts the
 * result only when it has the length and meaning it expects (a 24-byte 3DES key, a 16-byte AES
 * key that deciphers to well-padded data).
 */
import { constants as cryptoConstants, type KeyObject, privateDecrypt } from 'node:crypto';

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
	let block: Buffer;
	try {
		block = privateDecrypt({ key, padding: cryptoConstants.RSA_NO_PADDING }, wrapped);
	} catch {
		return undefined;
	}
	return pkcs1Message(block);
}

/**
 * The message of an EME-PKCS1-v1_5 block (0x00 0x02, at least 8 non-zero padding bytes, 0x00, the
 * message); undefined when the block is not one. Every byte is looked at whatever it holds.
 */
export function pkcs1Message(block: Buffer): Buffer | undefined {
	let bad = block.length < 11 ? 1 : 0;
	bad |= block[0] | (block[1] ^ 2);
	// The first zero byte after the two leading ones ends the padding.
	let separator = 0;
	for (let i = 2; i < block.length; i++) {
		const isZero = ((block[i] - 1) >>> 31) & (separator === 0 ? 1 : 0);
		separator |= isZero * i;
	}
	// No separator (0) or fewer than 8 padding bytes.
	bad |= separator < 10 ? 1 : 0;
	return bad ? undefined : Buffer.from(block.subarray(separator + 1));
}
