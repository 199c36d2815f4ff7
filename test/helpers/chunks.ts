import { Readable } from 'node:stream';

/** A buffer cut into chunks of the given sizes (repeated). */
export function* cut(data: Buffer, sizes: number[]): Generator<Buffer> {
	let offset = 0;
	for (let i = 0; offset < data.length; i++) {
		const size = sizes[i % sizes.length];
		yield data.subarray(offset, offset + size);
		offset += size;
	}
}

/** Everything a stream gives, as one buffer. */
export async function collect(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/** Data (text as latin1) sent through a transform in chunks of the given sizes; what comes out. */
export async function through(data: Buffer | string, transform: NodeJS.ReadWriteStream, sizes: number[]): Promise<Buffer> {
	const source = Readable.from(cut(Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1'), sizes), { objectMode: false });
	return await collect(source.pipe(transform) as unknown as Readable);
}
