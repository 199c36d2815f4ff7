/**
 * The download's decoding reuses its buffers and still gives the same bytes: E002 decryption fed
 * in pieces of any size (the block held back for the padding moved in place) equals decryption
 * of the whole; a segment given as bytes is decoded into the decoder's kept buffer and comes out
 * in a few parts of about 256 KiB; parts taken by the careful path (line breaks, groups cut
 * between parts) keep their order among the others; text after the padding is damage.
 */
import { createCipheriv, randomBytes } from 'node:crypto';

import {
	decryptE002,
	DownloadDecoder,
	E002Decryptor,
	encryptE002,
	newTransactionKey,
} from '../../nodes/shared/ebics';

/** Order data encrypted and cut into base64 segments of `segmentBytes` bytes each. */
function encryptedSegments(data: Buffer, segmentBytes: number) {
	const key = newTransactionKey();
	const encrypted = encryptE002(data, key);
	const segments: string[] = [];
	for (let at = 0; at < encrypted.length; at += segmentBytes)
		segments.push(encrypted.subarray(at, at + segmentBytes).toString('base64'));
	return { key, encrypted, segments };
}

describe('E002 decryption in pieces', () => {
	for (const pieces of [
		[1, 15, 16, 17, 31, 32, 33, 1000, 4096],
		[16, 16, 16, 16],
		[100_000, 3, 5, 65_536],
	]) {
		it(`gives the same bytes as the whole, fed in pieces of ${pieces.join(', ')}`, () => {
			const data = randomBytes(pieces.reduce((sum, n) => sum + n, 0) * 2 + 7);
			const key = newTransactionKey();
			const encrypted = encryptE002(data, key);
			const decryptor = new E002Decryptor(key);
			const out: Buffer[] = [];
			let at = 0;
			for (let i = 0; at < encrypted.length; i++) {
				const size = pieces[i % pieces.length];
				out.push(Buffer.from(decryptor.update(encrypted.subarray(at, at + size))));
				at += size;
			}
			out.push(decryptor.final());
			expect(Buffer.concat(out).equals(data)).toBe(true);
			expect(decryptE002(encrypted, key).equals(data)).toBe(true);
		});
	}

	it('still refuses a last block that is no padding, after whole pieces', () => {
		const key = newTransactionKey();
		const cipher = createCipheriv('aes-128-cbc', key, Buffer.alloc(16)).setAutoPadding(false);
		const unpadded = Buffer.concat([cipher.update(Buffer.alloc(64, 0)), cipher.final()]);
		const decryptor = new E002Decryptor(key);
		for (let at = 0; at < unpadded.length; at += 32)
			decryptor.update(unpadded.subarray(at, at + 32));
		expect(() => decryptor.final()).toThrow(/does not decrypt to valid padding/);
	});
});

describe('segments decoded into a kept buffer', () => {
	it('gives a segment of 786,432 bytes in a few parts of about 256 KiB, the same bytes as its text', () => {
		const data = randomBytes(3 * 786_432 + 1000);
		const { key, encrypted, segments } = encryptedSegments(data, 786_432);
		const decoder = new DownloadDecoder(key);
		const parts = segments.map((segment) => decoder.segmentParts(Buffer.from(segment, 'latin1')));
		// Each whole segment: 16 texts of 64 KiB decoded into one buffer, decrypted in 3 goes.
		for (const segmentParts of parts.slice(0, 3)) {
			expect(segmentParts.length).toBe(3);
			for (const part of segmentParts) expect(part.length).toBeGreaterThanOrEqual(196_608 - 16);
		}
		const decoded = Buffer.concat([...parts.flat(), decoder.end()]);
		expect(decoded.equals(decryptE002(encrypted, key))).toBe(true);
	});

	it('keeps the order of parts taken by the careful path among the others', () => {
		const data = randomBytes(600_000);
		const { key, encrypted, segments } = encryptedSegments(data, 450_000);
		// Segment 1: whole groups, then line breaks from character 200,000 on; segment 2: cut in
		// the middle of a group at a part boundary (a carry between parts).
		const first =
			segments[0].slice(0, 200_000) + segments[0].slice(200_000).replace(/(.{76})/g, '$1\r\n');
		const second = `${segments[1].slice(0, 65_537)} ${segments[1].slice(65_537)}`;
		const decoder = new DownloadDecoder(key);
		const parts = [
			...decoder.segmentParts(Buffer.from(first, 'latin1')),
			...decoder.segmentParts(Buffer.from(second, 'latin1')),
			decoder.end(),
		];
		expect(Buffer.concat(parts).equals(decryptE002(encrypted, key))).toBe(true);
	});

	it('names text after the padding of the last group as damage', () => {
		const { key, segments } = encryptedSegments(randomBytes(1010), 2000);
		const padded = segments[0];
		expect(padded.endsWith('=')).toBe(true);
		const decoder = new DownloadDecoder(key);
		decoder.segmentParts(Buffer.from(padded, 'latin1'));
		expect(() => decoder.segmentParts(Buffer.from('QUJD', 'latin1'))).toThrow(
			'Segment 2 of the order data is damaged: its OrderData is not base64',
		);
	});
});
