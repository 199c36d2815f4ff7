import type { Readable } from 'node:stream';

export type BankFileSource =
	| Readable
	| Buffer
	| Uint8Array
	| AsyncIterable<Buffer | Uint8Array | string>;

const CHUNK = 256 * 1024;

/** The source as a sequence of byte chunks (a Buffer is sliced, a stream is read as it comes). */
export async function* chunksOf(source: BankFileSource): AsyncGenerator<Buffer> {
	if (source instanceof Uint8Array) {
		const buffer = Buffer.isBuffer(source)
			? source
			: Buffer.from(source.buffer, source.byteOffset, source.byteLength);
		for (let offset = 0; offset < buffer.length; offset += CHUNK)
			yield buffer.subarray(offset, offset + CHUNK);
		return;
	}
	for await (const chunk of source as AsyncIterable<Buffer | Uint8Array | string>) {
		if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8');
		else
			yield Buffer.isBuffer(chunk)
				? chunk
				: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
	}
}

/**
 * Reads the first bytes (at least `length`, unless the source ends) and hands back the rest of
 * the stream with those bytes put back in front.
 */
export async function peek(
	source: BankFileSource,
	length: number,
): Promise<{ head: Buffer; chunks: AsyncGenerator<Buffer> }> {
	const iterator = chunksOf(source);
	const taken: Buffer[] = [];
	let size = 0;
	while (size < length) {
		const next = await iterator.next();
		if (next.done) break;
		taken.push(next.value);
		size += next.value.length;
	}
	const head = Buffer.concat(taken);
	async function* rest(): AsyncGenerator<Buffer> {
		if (head.length) yield head;
		for (;;) {
			const next = await iterator.next();
			if (next.done) return;
			yield next.value;
		}
	}
	return { head, chunks: rest() };
}
