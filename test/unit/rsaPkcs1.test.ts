import { constants, generateKeyPairSync, publicEncrypt, randomBytes } from 'node:crypto';

import { pkcs1Message, rsaPkcs1Decrypt } from '../../nodes/shared/keys/rsaPkcs1';

describe('RSA PKCS#1 v1.5 private decryption', () => {
	const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

	it('gives back what was encrypted for the key (node:crypto padding or the block read here)', () => {
		for (const size of [1, 16, 24, 245]) {
			const message = randomBytes(size);
			const wrapped = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, message);
			expect(rsaPkcs1Decrypt(wrapped, privateKey)?.equals(message)).toBe(true);
		}
	});

	it('gives nothing for a block wrapped for another key, or cut short', () => {
		const message = randomBytes(16);
		const wrapped = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, message);
		// Nothing, or (implicit rejection, OpenSSL 3.2+) other bytes of a length of their own.
		expect(rsaPkcs1Decrypt(wrapped, other)?.equals(message) ?? false).toBe(false);
		expect(rsaPkcs1Decrypt(wrapped.subarray(0, 100), privateKey)).toBeUndefined();
	});

	describe('the EME-PKCS1-v1_5 block', () => {
		const block = (parts: number[][]): Buffer => Buffer.from(parts.flat());
		const padding = (n: number): number[] => Array.from({ length: n }, (_, i) => (i % 255) + 1);

		it('reads the message after the padding', () => {
			expect(pkcs1Message(block([[0, 2], padding(8), [0], [7, 8, 9]]))).toEqual(Buffer.from([7, 8, 9]));
			expect(pkcs1Message(block([[0, 2], padding(20), [0]]))).toEqual(Buffer.alloc(0));
			expect(pkcs1Message(block([[0, 2], padding(8), [0], [0, 0, 5]]))).toEqual(Buffer.from([0, 0, 5]));
		});

		it.each([
			['a first byte other than 0', [[1, 2], padding(8), [0], [7]]],
			['a second byte other than 2 (a signature block)', [[0, 1], padding(8), [0], [7]]],
			['fewer than 8 padding bytes', [[0, 2], padding(7), [0], [7]]],
			['no zero byte after the padding', [[0, 2], padding(30)]],
			['fewer than 11 bytes', [[0, 2], padding(7)]],
		])('refuses %s', (_what, parts) => {
			expect(pkcs1Message(block(parts))).toBeUndefined();
		});
	});
});
