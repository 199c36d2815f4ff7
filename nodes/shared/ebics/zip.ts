/**
 * Containers of downloaded order data: a ZIP (Container containerType="ZIP", or data that starts
 * with a ZIP local file header) is opened into one file per entry with fflate (bundled); anything
 * else is one file (`streamContainer` does the same on a stream, entry by entry). A damaged or cut-off archive is an EbicsDataError naming the problem.
 */
import { PassThrough, Readable } from 'node:stream';

import { Unzip, UnzipInflate, unzipSync, type UnzipFile } from 'fflate';

import { peekStream } from '../common/streamHead';
import { EbicsDataError, rethrowAs } from './errors';

export interface ContainerFile {
	/** The entry's name in the archive (folders kept), or the name given for a single file. */
	name: string;
	data: Buffer;
}

/** Whether data starts like a ZIP archive (local file header, or the empty archive's end record). */
export function isZip(data: Buffer): boolean {
	return (
		data.length >= 4 &&
		data[0] === 0x50 &&
		data[1] === 0x4b &&
		(data[2] === 0x03 || data[2] === 0x05) &&
		(data[3] === 0x04 || data[3] === 0x06)
	);
}

export interface OpenOptions {
	/** The Container of the service: ZIP opens the archive; absent: by the data's first bytes. */
	container?: string;
	/** Name of the single file when the data is not an archive. */
	name: string;
	/** Refuse an archive that unpacks to more than this many bytes (default 4 GiB). */
	maxBytes?: number;
}

/** Opens a download's order data into its files. */
export function openContainer(data: Buffer, options: OpenOptions): ContainerFile[] {
	const zip = options.container === 'ZIP' || (options.container === undefined && isZip(data));
	if (!zip) return [{ name: options.name, data }];
	if (!isZip(data))
		throw new EbicsDataError(
			'The download was announced as a ZIP container but is not a ZIP archive',
		);
	const limit = options.maxBytes ?? 4 * 1024 ** 3;
	let total = 0;
	const entries: Record<string, Uint8Array> = rethrowAs(
		() =>
			unzipSync(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), {
				filter: (file) => {
					total += file.originalSize;
					if (total > limit)
						throw new EbicsDataError(`The ZIP container unpacks to more than ${limit} bytes`);
					return !file.name.endsWith('/');
				},
			}),
		(error) =>
			error instanceof EbicsDataError
				? error
				: new EbicsDataError(
						`The ZIP container is damaged or cut off: ${(error as Error).message || 'it cannot be read'}`,
					),
	);
	return Object.entries(entries).map(([name, content]) => ({
		name,
		data: Buffer.from(content.buffer, content.byteOffset, content.byteLength),
	}));
}

/** A file of streamed order data: its name and its content, to be read to the end. */
export interface StreamedFile {
	name: string;
	stream: Readable;
}

/** Bytes handed to the unzipper at a time, so a file's output never runs far ahead of its reader. */
const UNZIP_PIECE = 64 * 1024;
/** Bytes a file's stream may hold unread before the unzipping waits for its reader. */
const FILE_BUFFER = 1024 * 1024;

/** The end record (22 bytes) and the longest comment it may carry. */
const TAIL_BYTES = 22 + 0xffff;

/**
 * What is wrong with the end of an archive: no end of central directory record, or one that
 * counts other entries than were read; undefined when it is whole.
 */
function endRecordProblem(tail: Buffer, entries: number): string | undefined {
	for (let at = tail.length - 22; at >= 0; at--) {
		if (tail.readUInt32LE(at) !== 0x06054b50) continue;
		const total = tail.readUInt16LE(at + 10);
		if (total !== 0xffff && total !== entries % 0x10000)
			return `its directory lists ${total} files, ${entries} were read`;
		return undefined;
	}
	return 'it has no end record (the end of the archive is missing)';
}

const damaged = (why: string): EbicsDataError =>
	new EbicsDataError(`The ZIP container is damaged or cut off: ${why}`);

/**
 * Opens streamed order data into its files as they come, without holding any file whole: a ZIP
 * container (as `openContainer` decides) is unzipped entry by entry with fflate's streaming
 * unzipper, anything else is one file. `onFile` is called for each file with a stream of its
 * content and must read it to the end; the data is read only as fast as the files are. Resolves
 * with what `onFile` gave for each file, once every file is read; an archive that is damaged or
 * cut off is an EbicsDataError (and the streams of its files fail with it).
 */
export async function streamContainer<T>(
	data: Readable,
	options: OpenOptions,
	onFile: (file: StreamedFile) => Promise<T>,
): Promise<T[]> {
	const { head: start, stream: rest } = await peekStream(data, 4);
	const zip = options.container === 'ZIP' || (options.container === undefined && isZip(start));
	if (!zip) {
		return [await onFile({ name: options.name, stream: rest })];
	}
	if (!isZip(start)) {
		data.destroy();
		throw new EbicsDataError(
			'The download was announced as a ZIP container but is not a ZIP archive',
		);
	}
	const limit = options.maxBytes ?? 4 * 1024 ** 3;
	let total = 0;
	let entries = 0;
	// The end of the archive, where its end record is: the archive is whole only when it is there.
	let tail = Buffer.alloc(0);
	let failure: Error | undefined;
	const results: Array<Promise<T>> = [];
	const open = new Set<PassThrough>();
	let current: PassThrough | undefined;
	const fail = (error: Error): void => {
		failure ??= error;
		for (const stream of open) stream.destroy(failure);
		open.clear();
	};
	const unzip = new Unzip((file: UnzipFile) => {
		if (failure) return;
		entries++;
		if (file.name.endsWith('/')) return;
		const stream = new PassThrough({ highWaterMark: FILE_BUFFER });
		// Its reader sees the error; the unzipping reports it itself.
		stream.on('error', () => undefined);
		open.add(stream);
		current = stream;
		file.ondata = (error, chunk, final) => {
			if (failure) return;
			if (error) return fail(damaged(error.message || 'an entry does not decompress'));
			total += chunk.length;
			if (total > limit)
				return fail(new EbicsDataError(`The ZIP container unpacks to more than ${limit} bytes`));
			if (chunk.length) stream.write(Buffer.from(chunk));
			if (final) {
				open.delete(stream);
				stream.end();
			}
		};
		const result = onFile({ name: file.name, stream });
		// A reader that gives up stops the unzipping; its own error is the one reported.
		result.catch((error: unknown) =>
			fail(error instanceof Error ? error : new Error(String(error))),
		);
		results.push(result);
		file.start();
	});
	unzip.register(UnzipInflate);
	const push = (piece: Uint8Array, final: boolean): void => {
		try {
			unzip.push(piece, final);
		} catch (error) {
			fail(damaged((error as Error).message || 'it cannot be read'));
		}
	};
	try {
		for await (const chunk of rest) {
			tail =
				chunk.length >= TAIL_BYTES
					? Buffer.from(chunk.subarray(chunk.length - TAIL_BYTES))
					: Buffer.concat([tail, chunk]).subarray(-TAIL_BYTES);
			for (let at = 0; at < chunk.length && !failure; at += UNZIP_PIECE) {
				push(chunk.subarray(at, at + UNZIP_PIECE), false);
				const reader = current;
				if (reader && !reader.destroyed && reader.writableLength > FILE_BUFFER)
					await new Promise<void>((resolve) => {
						const done = (): void => {
							reader.off('drain', done);
							reader.off('close', done);
							resolve();
						};
						reader.once('drain', done);
						reader.once('close', done);
					});
			}
			if (failure) break;
		}
		if (!failure) push(new Uint8Array(0), true);
	} catch (error) {
		fail(error instanceof Error ? error : new Error(String(error)));
	}
	if (!failure && open.size) fail(damaged('an entry ends before its end'));
	if (!failure) {
		const problem = endRecordProblem(tail, entries);
		if (problem) fail(damaged(problem));
	}
	if (failure) {
		data.destroy();
		await Promise.allSettled(results);
		throw failure;
	}
	return await Promise.all(results);
}
