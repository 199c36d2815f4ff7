/**
 * E002, the encryption of EBICS order data and signature data: a fresh 128-bit AES transaction
 * key per transaction, AES-128-CBC with an IV of 16 zero bytes, padding as ANSI X9.23 / ISO 10126
 * (the last byte counts the padding bytes, 1 to 16; the others are free: this side writes PKCS#7,
 * which is one valid form, and reads any form by the last byte only, as libeufin (BouncyCastle
 * X9.23Padding) and the node-ebics clients write zeros). The transaction key travels wrapped with
 * RSAES-PKCS1-v1_5 to the recipient's E002 key (TransactionKey of DataEncryptionInfo).
 *
 * The ciphers work chunk by chunk (`E002Encryptor`, `E002Decryptor`) so that a transfer can be
 * pushed through them segment by segment without holding the whole order data.
 */
import {
	constants as cryptoConstants,
	createCipheriv,
	createDecipheriv,
	type Cipher,
	type Decipher,
	type KeyObject,
	publicEncrypt,
	randomBytes,
} from 'node:crypto';

import { rsaPkcs1Decrypt } from '../keys/rsaPkcs1';
import { EbicsDataError } from './errors';

const ZERO_IV = Buffer.alloc(16);
const BLOCK = 16;

/** A new random AES-128 transaction key. */
export function newTransactionKey(): Buffer {
	return randomBytes(16);
}

/** Wraps a transaction key with RSAES-PKCS1-v1_5 for the holder of `recipientKey` (their E002 key). */
export function wrapTransactionKey(transactionKey: Buffer, recipientKey: KeyObject): Buffer {
	return publicEncrypt(
		{ key: recipientKey, padding: cryptoConstants.RSA_PKCS1_PADDING },
		transactionKey,
	);
}

/**
 * Unwraps a transaction key with the E002 private key; EbicsDataError when it was wrapped for
 * another key or is damaged (anything but 16 bytes out).
 */
export function unwrapTransactionKey(wrapped: Buffer, privateKey: KeyObject): Buffer {
	const key = rsaPkcs1Decrypt(wrapped, privateKey);
	if (!key || key.length !== 16)
		throw new EbicsDataError(
			'The transaction key cannot be decrypted with the E002 encryption key: the data was encrypted for another key, or the TransactionKey is damaged',
		);
	return key;
}

/** AES-128-CBC encryption with a zero IV, chunk by chunk. */
export class E002Encryptor {
	private readonly cipher: Cipher;

	constructor(transactionKey: Buffer) {
		this.cipher = createCipheriv('aes-128-cbc', transactionKey, ZERO_IV);
	}

	update(chunk: Buffer): Buffer {
		return this.cipher.update(chunk);
	}

	/** The last block, with its padding. */
	final(): Buffer {
		return this.cipher.final();
	}
}

/**
 * AES-128-CBC decryption with a zero IV, chunk by chunk; the last block is kept back until
 * `final()`, which removes the padding by its last byte.
 */
export class E002Decryptor {
	private readonly decipher: Decipher;
	private held = Buffer.alloc(0);
	private bytes = 0;

	constructor(transactionKey: Buffer) {
		this.decipher = createDecipheriv('aes-128-cbc', transactionKey, ZERO_IV).setAutoPadding(false);
	}

	update(chunk: Buffer): Buffer {
		this.bytes += chunk.length;
		// Whole blocks only (no automatic padding); the last one is held back for `final()`.
		const out = this.decipher.update(chunk);
		if (out.length === 0) return out;
		const last = Buffer.from(out.subarray(out.length - BLOCK));
		if (this.held.length === 0) {
			this.held = last;
			return out.subarray(0, out.length - BLOCK);
		}
		// The block held before goes first: the output moves up one block in place rather than
		// being copied into a new buffer (a download decrypts its whole size through here).
		out.copyWithin(BLOCK, 0, out.length - BLOCK);
		this.held.copy(out, 0);
		this.held = last;
		return out;
	}

	final(): Buffer {
		if (this.bytes === 0 || this.bytes % BLOCK !== 0)
			throw new EbicsDataError(
				`The encrypted order data is damaged: ${this.bytes} bytes is not a whole number of AES blocks`,
			);
		const last = Buffer.concat([this.held, this.decipher.final()]);
		const pad = last[last.length - 1];
		if (pad < 1 || pad > BLOCK || pad > last.length)
			throw new EbicsDataError(
				'The encrypted order data does not decrypt to valid padding: it was encrypted with another transaction key, or it is damaged',
			);
		return last.subarray(0, last.length - pad);
	}
}

/** Encrypts a whole buffer (small data: signature data, key management order data). */
export function encryptE002(data: Buffer, transactionKey: Buffer): Buffer {
	const encryptor = new E002Encryptor(transactionKey);
	return Buffer.concat([encryptor.update(data), encryptor.final()]);
}

/** Decrypts a whole buffer. */
export function decryptE002(data: Buffer, transactionKey: Buffer): Buffer {
	const decryptor = new E002Decryptor(transactionKey);
	return Buffer.concat([decryptor.update(data), decryptor.final()]);
}
