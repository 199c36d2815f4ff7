/** Writing a file the sandbox receives as it arrives: chunk by chunk, waiting when the disk is behind. */
import type { WriteStream } from 'node:fs';

/** Writes a chunk; when the stream's buffer is full, waits for it to drain (or fails with its error). */
export async function writeChunk(file: WriteStream, chunk: Buffer): Promise<void> {
	if (!chunk.length) return;
	if (file.write(chunk)) return;
	await new Promise<void>((resolve, reject) => {
		const onDrain = (): void => {
			file.off('error', onError);
			resolve();
		};
		const onError = (error: Error): void => {
			file.off('drain', onDrain);
			reject(error);
		};
		file.once('drain', onDrain);
		file.once('error', onError);
	});
}

/** Ends the file once everything written is flushed. */
export async function closeFile(file: WriteStream): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		file.once('error', reject);
		file.end(() => resolve());
	});
}
