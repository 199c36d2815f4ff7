/**
 * The download's decoding reuses its buffers and still gives the same bytes: E002 decryption fed
 * in pieces of any size (the block held back for the padding moved in place) equals decryption
 * of the whole; a segment given as bytes is decoded into the decoder's kept buffer and comes out
 * in a few parts of about 256 KiB; parts taken by the careful path (line breaks, groups cut
 * between parts) keep their order among the others. Segments are read as banks cut them: one
 * base64 text cut at group boundaries or anywhere, or each segment a complete base64 value of its
 * own bytes ending in its own padding (the schemas type OrderData as base64Binary); text after
 * the padding within a segment is damage, named by its segment.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';

import {
	decodeDownload,
	decryptE002,
	DownloadDecoder,
	EbicsDataError,
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

});

describe('two ways of cutting the base64 into segments', () => {
	/** Compressed, encrypted order data and the transaction key. */
	function ciphertext(bytes: number) {
		const data = randomBytes(bytes);
		const key = newTransactionKey();
		return { data, key, encrypted: encryptE002(deflateSync(data), key) };
	}

	/** Each segment of `sizes` bytes (the rest in the last) encoded on its own. */
	function perSegment(encrypted: Buffer, sizes: number[]): string[] {
		const segments: string[] = [];
		let at = 0;
		for (const size of sizes) {
			segments.push(encrypted.toString('base64', at, at + size));
			at += size;
		}
		segments.push(encrypted.toString('base64', at));
		return segments;
	}

	/** Decodes the segments as the client does: as bytes, one segment at a time. */
	function decodedAsBytes(segments: string[], key: Buffer): Buffer {
		const decoder = new DownloadDecoder(key);
		const parts = segments.flatMap((segment) => decoder.segmentParts(Buffer.from(segment, 'latin1')));
		return Buffer.concat([...parts, decoder.end()]);
	}

	it('one base64 text cut at group boundaries: no padding but at the end', () => {
		const { data, key, encrypted } = ciphertext(20_000);
		const text = encrypted.toString('base64');
		const cut = [text.slice(0, 4000), text.slice(4000, 8000), text.slice(8000)];
		expect(cut.slice(0, 2).every((segment) => segment.length % 4 === 0 && !segment.includes('='))).toBe(true);
		expect(decodeDownload(cut, key).equals(data)).toBe(true);
		expect(decodedAsBytes(cut, key).equals(decryptE002(encrypted, key))).toBe(true);
	});

	it('each segment a base64 value of its own, ending in "==" (bytes = 1 mod 3) and "=" (bytes = 2 mod 3)', () => {
		const { data, key, encrypted } = ciphertext(20_000);
		expect(encrypted.length).toBeGreaterThan(1000 + 1001 + 3 + 1);
		// 1000 bytes: 333 groups and one byte, "=="; 1001 bytes: "="; 3 bytes: no padding.
		const segments = perSegment(encrypted, [1000, 1001, 3, 1000]);
		expect(segments.map((segment) => /={0,2}$/.exec(segment)?.[0])).toEqual(['==', '=', '', '==', expect.any(String)]);
		expect(segments.every((segment) => segment.length % 4 === 0)).toBe(true);
		expect(decodeDownload(segments, key).equals(data)).toBe(true);
		expect(decodedAsBytes(segments, key).equals(decryptE002(encrypted, key))).toBe(true);
	});

	it('a padded segment larger than a part (64 Ki characters) still ends its value only at its end', () => {
		const { key, encrypted } = ciphertext(600_000);
		const segments = perSegment(encrypted, [200_002, 200_000]);
		expect(segments[0].endsWith('==')).toBe(true);
		expect(segments[1].endsWith('=')).toBe(true);
		expect(decodedAsBytes(segments, key).equals(decryptE002(encrypted, key))).toBe(true);
	});

	it('both ways in one download, and line breaks after the padding of a segment', () => {
		const { data, key, encrypted } = ciphertext(20_000);
		const [first, second, rest] = perSegment(encrypted, [1000, 1200]);
		// Segment 1 padded with a line break after; segment 2 (1200 bytes, no padding) cut from the
		// same text as segment 3 in the middle of a group.
		const joined = second + rest;
		const segments = [`${first}\r\n`, joined.slice(0, 1601), joined.slice(1601)];
		expect(decodeDownload(segments, key).equals(data)).toBe(true);
		expect(decodedAsBytes(segments, key).equals(decryptE002(encrypted, key))).toBe(true);
	});

	it('text after the padding within a segment is damage, named by its segment', () => {
		const { key, encrypted } = ciphertext(20_000);
		const [first, second, rest] = perSegment(encrypted, [1000, 1001]);
		const damaged = [first, `${second}QUJD`, rest];
		expect(() => decodeDownload(damaged, key)).toThrow(
			new EbicsDataError('Segment 2 of the order data is damaged: its OrderData is not base64'),
		);
		expect(() => decodedAsBytes(damaged, key)).toThrow(
			new EbicsDataError('Segment 2 of the order data is damaged: its OrderData is not base64'),
		);
		// Padding in the middle of a group, and characters outside base64, in segment 3.
		expect(() => decodeDownload([first, second, `QQ=A${rest}`], key)).toThrow(
			'Segment 3 of the order data is damaged: its OrderData is not base64',
		);
		expect(() => decodedAsBytes([first, second, `${rest.slice(0, 8)}%%${rest.slice(10)}`], key)).toThrow(
			'Segment 3 of the order data is damaged: its OrderData is not base64',
		);
	});

	it('a segment cut mid-group that then carries padding of its own is damage of that segment', () => {
		const { key, encrypted } = ciphertext(20_000);
		const text = encrypted.toString('base64');
		// Segment 1 ends two characters into a group; segment 2 begins a new value ("QQ==").
		expect(() => decodeDownload([text.slice(0, 1002), `QQ==${text.slice(1004)}`], key)).toThrow(
			'Segment 2 of the order data is damaged: its OrderData is not base64',
		);
	});

	it('a download cut off in the middle of a group is named', () => {
		const { key, encrypted } = ciphertext(20_000);
		const text = encrypted.toString('base64');
		const decoder = new DownloadDecoder(key);
		decoder.segmentParts(Buffer.from(text.slice(0, 1002), 'latin1'));
		expect(() => decoder.end()).toThrow('The order data is damaged: the base64 of segment 1 ends in the middle of a group');
	});
});
