/** The first bytes of a stream, read before deciding what to do with the whole of it. */
import { Readable } from 'node:stream';

/**
 * Reads the first `count` bytes of a stream (fewer when it is shorter) and returns them with a
 * stream that gives the whole content again, those bytes first. Errors of the source come out of
 * the new stream; destroying the new stream destroys the source.
 */
export async function peekStream(
	source: Readable,
	count: number,
): Promise<{ head: Buffer; stream: Readable }> {
	const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
	const parts: Buffer[] = [];
	let size = 0;
	let ended = false;
	while (size < count) {
		const next = await iterator.next();
		if (next.done) {
			ended = true;
			break;
		}
		parts.push(next.value);
		size += next.value.length;
	}
	const head = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
	async function* again(): AsyncGenerator<Buffer> {
		try {
			if (head.length) yield head;
			while (!ended) {
				const next = await iterator.next();
				if (next.done) {
					ended = true;
					return;
				}
				yield next.value;
			}
		} finally {
			if (!ended) await iterator.return?.();
		}
	}
	return {
		head,
		stream: Readable.from(again(), { objectMode: false, highWaterMark: 1024 * 1024 }),
	};
}
