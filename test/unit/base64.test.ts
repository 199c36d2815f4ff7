/**
 * The base64 of the bxd layer: the chunk-by-chunk encoder and strict decoder and the
 * transforms built on them, against whole-text base64, for every way the chunks can be cut.
 */
import { randomBytes } from 'node:crypto';

import { Base64Decode, Base64Encode, Base64Encoder, base64Length, decodeBase64Strict, InvalidBase64Error } from '../../nodes/shared/bxd/base64';
import { cut, through } from '../helpers/chunks';

async function failure(run: () => Promise<unknown>): Promise<unknown> {
	return await run().then(
		() => undefined,
		(error: unknown) => error,
	);
}

const CHUNKINGS = [[1], [3], [4], [5], [7, 1, 2], [4096], [65537], [1 << 20]];

describe('base64 in chunks against whole-text base64', () => {
	const data = randomBytes(100_003);
	const text = data.toString('base64');
	const lines = text.match(/.{1,76}/g) as string[];

	test.each(CHUNKINGS)('encoding in chunks of %p gives the same text, in lines when asked', async (...sizes) => {
		const encoder = new Base64Encoder();
		const parts = [...cut(data, sizes)].map((chunk) => encoder.write(chunk));
		parts.push(encoder.end());
		expect(Buffer.concat(parts).toString('latin1')).toBe(text);
		expect((await through(data, new Base64Encode(76), sizes)).toString('latin1')).toBe(lines.join('\n'));
	});

	test('the length of the text is known from the number of bytes', () => {
		for (const bytes of [0, 1, 2, 3, 4, data.length]) expect(base64Length(bytes)).toBe(data.subarray(0, bytes).toString('base64').length);
	});

	test.each(CHUNKINGS)('strict decoding in chunks of %p: plain and in lines', async (...sizes) => {
		for (const variant of [text, lines.join('\n'), lines.join('\r\n')]) {
			const decoded = await through(variant, new Base64Decode(), sizes);
			expect(decoded.equals(data)).toBe(true);
			expect(decodeBase64Strict(variant).equals(data)).toBe(true);
		}
	});

	test.each([
		['a character outside the alphabet', 'QUJD*REVG', /unexpected character/, /unexpected character/],
		['URL-safe characters', 'QUJD-_VG', /unexpected character/, /unexpected character/],
		['padding in the middle', 'QQ==QUJD', /padding in the middle|after the final padding/, /padding in the middle/],
		['a truncated last group', 'QUJDREV', /ends in the middle of a group/, /length 7 is not a multiple of 4 \(truncated data\)/],
	])('strict decoding refuses %s, however it is cut', async (_label, input, streamed, whole) => {
		for (const sizes of [[1], [3], [1 << 20]]) {
			const error = await failure(() => through(input, new Base64Decode(), sizes));
			expect(error).toBeInstanceOf(InvalidBase64Error);
			expect((error as Error).message).toMatch(streamed);
		}
		expect(() => decodeBase64Strict(input)).toThrow(InvalidBase64Error);
		expect(() => decodeBase64Strict(input)).toThrow(whole);
	});

	test('strict decoding refuses data in a chunk after one that ended with the padding', async () => {
		await expect(through('QQ==QUJD', new Base64Decode(), [4])).rejects.toThrow(/after the final padding/);
	});
});
