/**
 * Deflate on several threads into ONE standard zlib stream (RFC 1950 around RFC 1951), the way
 * pigz does it: any inflater reads the result as if one deflate had made it.
 *
 * - The input is cut into blocks; each is compressed by Node's own zlib asynchronously (a raw
 *   deflate on libuv's thread pool), so several blocks compress at once on several cores.
 * - Each block is primed with the last 32 KiB of the input before it (`dictionary`), so matches
 *   reach back across the cut and the result is about as small as one stream's.
 * - Each block ends with a sync flush (an empty stored block), which leaves it byte-aligned and
 *   not final, so the blocks' outputs are simply concatenated in order.
 * - The stream is the 2-byte zlib header, the blocks, an empty final block (BFINAL), and the
 *   Adler-32 of the whole input, computed as the input comes.
 *
 * Memory stays bounded: at most `inFlight` blocks are being compressed at a time (each holding its
 * input and its output); while they are, the next block is filled, and the input is then held
 * back until the oldest has finished. Output keeps the input's order and respects the reader's
 * backpressure (the Transform holds its input while its output is not read).
 */
import { buf as adler32 } from 'adler-32';
import { availableParallelism } from 'node:os';
import { Transform, type TransformCallback } from 'node:stream';
import { constants, createDeflateRaw, type DeflateRaw } from 'node:zlib';

/** Bytes of input per block: large enough that a block's set-up and priming are a small share. */
export const PARALLEL_DEFLATE_BLOCK = 512 * 1024;

/** The window of deflate: the bytes a block is primed with. */
const WINDOW = 32 * 1024;

/** CMF 0x78 (deflate, 32 KiB window), FLG 0x9c (default level, no dictionary, check bits). */
const ZLIB_HEADER = Buffer.from([0x78, 0x9c]);

/** An empty fixed-Huffman block with BFINAL set: the end of the deflate data. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/**
 * Blocks compressed at a time by default: one per core, at least 2, at most 3 (libuv's pool has
 * 4 threads by default; one is left for the file system, which the same pool serves).
 */
function defaultInFlight(): number {
	return Math.max(2, Math.min(3, availableParallelism()));
}

export interface ParallelDeflateOptions {
	/** zlib level (default Z_DEFAULT_COMPRESSION). */
	level?: number;
	/** Bytes of input per block (default PARALLEL_DEFLATE_BLOCK; at least 32 KiB). */
	blockSize?: number;
	/** Blocks compressed at a time (default: see defaultInFlight). */
	inFlight?: number;
}

interface Job {
	/** The block's input, given back to the free list when the job is done. */
	input: Buffer;
	done: Promise<Buffer[]>;
	output?: Buffer[];
	deflate: DeflateRaw;
}

/** The FLEVEL bits of the zlib header for a level (RFC 1950: what the compressor used). */
function zlibHeader(level: number): Buffer {
	if (level === constants.Z_DEFAULT_COMPRESSION || level === 6) return ZLIB_HEADER;
	const flevel = level < 2 ? 0 : level < 6 ? 1 : level === 6 ? 2 : 3;
	const cmf = 0x78;
	let flg = flevel << 6;
	flg += 31 - ((cmf * 256 + flg) % 31);
	return Buffer.from([cmf, flg]);
}

/** A Transform that deflates what is written into a zlib stream, on several threads. */
export class ParallelDeflate extends Transform {
	private readonly level: number;
	private readonly blockSize: number;
	private readonly inFlight: number;
	private readonly jobs: Job[] = [];
	private readonly free: Buffer[] = [];
	private block: Buffer | undefined;
	private filled = 0;
	/** The last WINDOW bytes of input before the current block (empty for the first). */
	private dictionary = Buffer.alloc(0);
	private adler = 1;
	private started = false;

	constructor(options: ParallelDeflateOptions = {}) {
		super();
		this.level = options.level ?? constants.Z_DEFAULT_COMPRESSION;
		this.blockSize = options.blockSize ?? PARALLEL_DEFLATE_BLOCK;
		this.inFlight = options.inFlight ?? defaultInFlight();
		if (!Number.isInteger(this.blockSize) || this.blockSize < WINDOW)
			throw new RangeError(`A block must hold at least ${WINDOW} bytes`);
		if (!Number.isInteger(this.inFlight) || this.inFlight < 1)
			throw new RangeError('At least one block must be compressed at a time');
	}

	override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		this.addInput(chunk).then(() => done(), done);
	}

	override _flush(done: TransformCallback): void {
		this.endInput().then(() => done(), done);
	}

	override _destroy(error: Error | null, done: (error: Error | null) => void): void {
		for (const job of this.jobs.splice(0)) job.deflate.destroy();
		done(error);
	}

	private async addInput(chunk: Buffer): Promise<void> {
		this.start();
		this.adler = adler32(chunk, this.adler);
		for (let at = 0; at < chunk.length; ) {
			// Its own memory (never a slice of Node's shared pool): it is compressed from and reused.
			this.block ??= this.free.pop() ?? Buffer.allocUnsafeSlow(this.blockSize);
			const copied = chunk.copy(this.block, this.filled, at);
			this.filled += copied;
			at += copied;
			if (this.filled === this.blockSize) await this.launch();
		}
		this.pushFinished();
	}

	private async endInput(): Promise<void> {
		this.start();
		if (this.filled > 0) await this.launch();
		while (this.jobs.length) await this.pushOldest();
		const trailer = Buffer.alloc(4);
		trailer.writeUInt32BE(this.adler >>> 0);
		this.push(Buffer.concat([FINAL_BLOCK, trailer]));
	}

	private start(): void {
		if (this.started) return;
		this.started = true;
		this.push(zlibHeader(this.level));
	}

	/** Starts compressing the filled block, first waiting for a place among those in flight. */
	private async launch(): Promise<void> {
		while (this.jobs.length >= this.inFlight) await this.pushOldest();
		const input = this.block as Buffer;
		const data = input.subarray(0, this.filled);
		const dictionary = this.dictionary;
		// A copy: the block's memory is reused once it is compressed.
		this.dictionary = Buffer.from(data.subarray(Math.max(0, data.length - WINDOW)));
		this.block = undefined;
		this.filled = 0;
		const deflate = createDeflateRaw({
			level: this.level,
			// One pass of the thread pool for the block (random data grows a little in deflate).
			chunkSize: data.length + (data.length >> 4) + 1024,
			finishFlush: constants.Z_SYNC_FLUSH,
			...(dictionary.length ? { dictionary } : {}),
		});
		const job: Job = {
			input,
			deflate,
			done: new Promise<Buffer[]>((resolve, reject) => {
				const output: Buffer[] = [];
				deflate.on('data', (out: Buffer) => output.push(out));
				deflate.once('error', reject);
				deflate.once('end', () => resolve(output));
			}),
		};
		// Kept until it is its turn to be pushed; a failure is reported then (not as unhandled).
		job.done.then(
			(output) => (job.output = output),
			() => undefined,
		);
		this.jobs.push(job);
		deflate.end(data);
	}

	/** Waits for the oldest block and pushes its output. */
	private async pushOldest(): Promise<void> {
		const job = this.jobs[0];
		const output = await job.done;
		this.jobs.shift();
		this.free.push(job.input);
		for (const out of output) this.push(out);
	}

	/** Pushes the output of the oldest blocks that are done already (in order). */
	private pushFinished(): void {
		while (this.jobs.length && this.jobs[0].output) {
			const job = this.jobs.shift() as Job;
			this.free.push(job.input);
			for (const out of job.output as Buffer[]) this.push(out);
		}
	}
}

/** A stream deflating into one zlib stream on several threads (see ParallelDeflate). */
export function createParallelDeflate(options?: ParallelDeflateOptions): ParallelDeflate {
	return new ParallelDeflate(options);
}
