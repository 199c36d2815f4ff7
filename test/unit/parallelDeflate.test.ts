/**
 * The parallel deflate makes ONE standard zlib stream: zlib's own inflater (whole, and streaming)
 * gives back exactly the input for every size around the block boundaries, compressible and
 * random; its header and Adler-32 are those zlib writes; the empty stream is zlib's own; output
 * keeps the input's order with several blocks in flight; a slow reader holds the input back;
 * failures of the source or of a block come out of the stream.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createInflate, deflateSync, inflateSync } from 'node:zlib';

import { ParallelDeflate, type ParallelDeflateOptions } from '../../nodes/shared/common/parallelDeflate';

const BLOCK = 32 * 1024;

/** Compresses `data` written in pieces of `piece` bytes. */
async function compress(
	data: Buffer,
	options: ParallelDeflateOptions = {},
	piece = 7_777,
): Promise<Buffer> {
	const out: Buffer[] = [];
	const pieces = function* (): Generator<Buffer> {
		for (let at = 0; at < data.length; at += piece) yield data.subarray(at, at + piece);
	};
	await pipeline(
		Readable.from(pieces()),
		new ParallelDeflate(options),
		new Writable({
			write(chunk: Buffer, _encoding, done) {
				out.push(chunk);
				done();
			},
		}),
	);
	return Buffer.concat(out);
}

/** Text that compresses well and has matches reaching across block boundaries. */
function compressible(size: number): Buffer {
	const lines: string[] = [];
	let length = 0;
	for (let i = 0; length < size; i++) {
		const line = `${i % 97};DE${(i * 7919) % 100_000};${(i * 37) % 1000}.${i % 100};EUR;invoice ${i % 13}\n`;
		lines.push(line);
		length += line.length;
	}
	return Buffer.from(lines.join('')).subarray(0, size);
}

describe('ParallelDeflate', () => {
	const sizes = [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 5 * BLOCK + 123, 8 * BLOCK];
	for (const [kind, make] of [
		['compressible', compressible],
		['random', (size: number) => randomBytes(size)],
	] as const) {
		for (const size of sizes) {
			it(`inflates back to ${kind} input of ${size} bytes (blocks of ${BLOCK})`, async () => {
				const data = make(size);
				const compressed = await compress(data, { blockSize: BLOCK, inFlight: 3 });
				expect(inflateSync(compressed).equals(data)).toBe(true);
				// zlib's header for the default level and zlib's Adler-32 of the whole input.
				const zlib = deflateSync(data);
				expect(compressed.subarray(0, 2)).toEqual(zlib.subarray(0, 2));
				expect(compressed.subarray(-4)).toEqual(zlib.subarray(-4));
			});
		}
	}

	it('writes exactly zlib’s empty stream for empty input', async () => {
		expect(await compress(Buffer.alloc(0))).toEqual(deflateSync(Buffer.alloc(0)));
	});

	it('compresses about as well as one stream, thanks to the dictionary of each block', async () => {
		const data = compressible(40 * BLOCK);
		const parallel = await compress(data, { blockSize: BLOCK });
		const single = deflateSync(data);
		// Without the previous block's window, every block would start without matches.
		expect(parallel.length).toBeLessThan(single.length * 1.01 + 40 * 8);
		expect(inflateSync(parallel).equals(data)).toBe(true);
	});

	it('is read by the streaming inflater, fed in small pieces', async () => {
		const data = compressible(6 * BLOCK + 5);
		const compressed = await compress(data, { blockSize: BLOCK, inFlight: 2 });
		const out: Buffer[] = [];
		const inflate = createInflate();
		inflate.on('data', (chunk: Buffer) => out.push(chunk));
		const ended = new Promise((resolve, reject) => {
			inflate.once('end', resolve);
			inflate.once('error', reject);
		});
		for (let at = 0; at < compressed.length; at += 1000)
			inflate.write(compressed.subarray(at, at + 1000));
		inflate.end();
		await ended;
		expect(Buffer.concat(out).equals(data)).toBe(true);
	});

	it('takes input written in one piece larger than several blocks, with one block in flight', async () => {
		const data = randomBytes(7 * BLOCK + 3);
		const compressed = await compress(data, { blockSize: BLOCK, inFlight: 1 }, data.length);
		expect(inflateSync(compressed).equals(data)).toBe(true);
	});

	it('writes the header of other levels as zlib does', async () => {
		const data = compressible(3 * BLOCK);
		for (const level of [0, 1, 5, 6, 9]) {
			const compressed = await compress(data, { blockSize: BLOCK, level });
			expect(compressed.subarray(0, 2)).toEqual(deflateSync(data, { level }).subarray(0, 2));
			expect(inflateSync(compressed).equals(data)).toBe(true);
		}
	});

	it('holds a bounded amount of input ahead of what its reader has taken', async () => {
		const blocks = 64;
		let produced = 0;
		let received = 0;
		let lead = 0;
		const source = new Readable({
			read() {
				if (produced === blocks * BLOCK) return void this.push(null);
				produced += BLOCK;
				this.push(randomBytes(BLOCK));
			},
		});
		const out: Buffer[] = [];
		await pipeline(
			source,
			new ParallelDeflate({ blockSize: BLOCK, inFlight: 3 }),
			new Writable({
				highWaterMark: 1,
				write(chunk: Buffer, _encoding, done) {
					out.push(chunk);
					received += chunk.length;
					lead = Math.max(lead, produced - received);
					// A slow reader: the next chunk is taken only after the producer has had its turn.
					setImmediate(done);
				},
			}),
		);
		expect(inflateSync(Buffer.concat(out)).length).toBe(blocks * BLOCK);
		// The blocks in flight, the one being filled and the streams' own buffers; not the input.
		expect(lead).toBeLessThan(10 * BLOCK);
	});

	it('ends with its source’s failure and stops its blocks', async () => {
		const deflate = new ParallelDeflate({ blockSize: BLOCK, level: constants.Z_BEST_SPEED });
		const failure = new Error('source failed');
		const source = new Readable({
			read() {
				this.push(randomBytes(BLOCK));
			},
		});
		let pushed = 0;
		source.on('data', () => {
			if (++pushed === 5) source.destroy(failure);
		});
		await expect(pipeline(source, deflate, new PassThrough().resume())).rejects.toBe(failure);
		expect(deflate.destroyed).toBe(true);
	});

	it('fails with zlib’s error when a block cannot be compressed', async () => {
		await expect(compress(randomBytes(3 * BLOCK), { blockSize: BLOCK, level: 42 })).rejects.toThrow(
			/level/,
		);
	});

	it('rejects a block smaller than the deflate window', () => {
		expect(() => new ParallelDeflate({ blockSize: 1024 })).toThrow(/at least 32768 bytes/);
	});
});
