import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gunzipSync, gzipSync, inflateRawSync, inflateSync } from 'node:zlib';

import { attempt } from '../common/attempt';
import { BxdFormatError } from './errors';

/** Compression methods the node can read; GZIP (RFC 1952) is the bxd default. */
export type CompressionMethod = 'GZIP' | 'DEFLATE';

export function compressionMethodOf(value: string | undefined): CompressionMethod | undefined {
	const name = (value ?? '').trim().toUpperCase();
	if (name === '' || name === 'GZIP' || name === 'GZ') return 'GZIP';
	if (name === 'DEFLATE' || name === 'ZLIB') return 'DEFLATE';
	return undefined;
}

export function gzip(data: Buffer): Buffer {
	return gzipSync(data);
}

/** Gzips a stream into one buffer: only the compressed bytes are held in memory. */
export async function gzipStream(
	source: Readable,
): Promise<{ compressed: Buffer; inputBytes: number }> {
	const chunks: Buffer[] = [];
	let inputBytes = 0;
	const count = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			inputBytes += chunk.length;
			done(null, chunk);
		},
	});
	await pipeline(source, count, createGzip(), async (compressed: AsyncIterable<Buffer>) => {
		for await (const chunk of compressed) chunks.push(chunk);
	});
	return { compressed: Buffer.concat(chunks), inputBytes };
}

/**
 * Gzips a stream into a file, never holding more than a chunk; returns the sizes before and after.
 */
export async function gzipToFile(
	source: Readable,
	path: string,
): Promise<{ inputBytes: number; outputBytes: number }> {
	let inputBytes = 0;
	const count = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			inputBytes += chunk.length;
			done(null, chunk);
		},
	});
	await pipeline(source, count, createGzip({ chunkSize: 256 * 1024 }), createWriteStream(path));
	return { inputBytes, outputBytes: (await stat(path)).size };
}

/** Reads a stream into one buffer. */
export async function streamToBuffer(source: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of source)
		chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
	return Buffer.concat(chunks);
}

const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * Unpacks content the bank says is compressed. GZIP must carry the gzip header; DEFLATE is read as
 * zlib and, failing that, as raw deflate (banks use both under that name). A damaged or cut
 * archive is an error, never a shorter file.
 */
export function decompress(data: Buffer, methodName: string | undefined): Buffer {
	const method = compressionMethodOf(methodName);
	if (!method)
		throw new BxdFormatError(
			`The bank used a compression method this node cannot read: ${methodName}`,
		);
	if (method === 'GZIP') {
		if (data.length < 2 || data[0] !== GZIP_MAGIC[0] || data[1] !== GZIP_MAGIC[1]) {
			throw new BxdFormatError(
				'The bank said the file is GZIP-compressed, but it is not a gzip archive',
			);
		}
		const unpacked = attempt(() => gunzipSync(data));
		if (unpacked.ok) return unpacked.value;
		throw new BxdFormatError(
			`The GZIP-compressed file is damaged or cut off: ${(unpacked.error as Error).message}`,
		);
	}
	const zlib = attempt(() => inflateSync(data));
	if (zlib.ok) return zlib.value;
	const raw = attempt(() => inflateRawSync(data));
	if (raw.ok) return raw.value;
	throw new BxdFormatError(
		`The DEFLATE-compressed file is damaged or cut off: ${(raw.error as Error).message}`,
	);
}
