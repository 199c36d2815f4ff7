/**
 * Tools for proving that a file is streamed: deterministic large content made chunk by chunk,
 * and a watch on the largest buffer or string made while a run goes on.
 */

/** Deterministic bytes that gzip cannot shrink: a 64 KiB pseudo-random block, then xor-shifted per block. */
export function* fileChunks(size: number): Generator<Buffer> {
	const block = Buffer.alloc(65536);
	let x = 0x2545f491;
	for (let offset = 0; offset < size; offset += block.length) {
		for (let i = 0; i < block.length; i += 4) {
			x ^= x << 13;
			x ^= x >>> 17;
			x ^= x << 5;
			block.writeInt32LE(x | 0, i);
		}
		yield Buffer.from(block.subarray(0, Math.min(block.length, size - offset)));
	}
}

/**
 * Records the largest buffer and the longest string made from a buffer while a run goes on
 * (in this process: the engine, the node and the sandbox bank). A file held whole, or its base64,
 * would show up here.
 */
export function allocationWatch(): { stop: () => number } {
	let largest = 0;
	const seen = (value: { length: number }) => {
		if (value.length > largest) largest = value.length;
		return value;
	};
	const originals = { from: Buffer.from, concat: Buffer.concat, alloc: Buffer.alloc, allocUnsafe: Buffer.allocUnsafe, toString: Buffer.prototype.toString };
	const wrap = <T extends (...args: never[]) => { length: number }>(fn: T): T => ((...args: never[]) => seen(fn.apply(Buffer, args))) as unknown as T;
	Buffer.from = wrap(originals.from as unknown as (...args: never[]) => Buffer) as unknown as typeof Buffer.from;
	Buffer.concat = wrap(originals.concat);
	Buffer.alloc = wrap(originals.alloc);
	Buffer.allocUnsafe = wrap(originals.allocUnsafe);
	Buffer.prototype.toString = function (this: Buffer, ...args: Parameters<Buffer['toString']>) {
		return seen(originals.toString.apply(this, args)) as string;
	};
	return {
		stop: () => {
			Object.assign(Buffer, { from: originals.from, concat: originals.concat, alloc: originals.alloc, allocUnsafe: originals.allocUnsafe });
			Buffer.prototype.toString = originals.toString;
			return largest;
		},
	};
}

