/**
 * Uploads that the bank never sees half-written: the file is written under a temporary name and
 * renamed to its own name only once the server has acknowledged every byte. A temporary file
 * left by an upload that stopped (n8n killed, the connection lost) is removed and written again
 * from the start: an encrypted file differs at every run (a new session key), so it cannot be
 * resumed, and nothing of it was ever under its own name.
 */
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';

import { attemptAsync } from '../common/attempt';
import { SftpFileError, SftpValidationError } from './errors';
import type { SftpSession } from './session';
import { joinRemote, SFTP_STATUS } from './session';

/** The default temporary name: a dot in front (hidden on most servers) and `.part` after. */
export const DEFAULT_TEMPORARY_NAME = '.{name}.part';

/** Names files take while they are written, by this node or by others (banks, clients). */
const PARTIAL = [
	/\.part$/i,
	/\.filepart$/i,
	/\.tmp$/i,
	/\.partial$/i,
	/^\./,
	/~$/,
	/\.crdownload$/i,
];

/** Whether a name is one that files take while they are still being written. */
export function isPartialName(name: string): boolean {
	return PARTIAL.some((pattern) => pattern.test(name));
}

/** A file name: no folder part, no `.` or `..`, no control characters. */
export function checkFileName(field: string, name: string): string {
	const trimmed = name.trim();
	// eslint-disable-next-line no-control-regex
	if (!trimmed || trimmed === '.' || trimmed === '..' || /[/\\\u0000-\u001f]/.test(trimmed))
		throw new SftpValidationError(
			field,
			`"${name}" is not a file name (no folders, slashes or control characters)`,
		);
	return trimmed;
}

/** The temporary name for a file from a pattern with `{name}` in it (`.{name}.part`). */
export function temporaryNameFor(pattern: string, name: string): string {
	const given = pattern.trim() || DEFAULT_TEMPORARY_NAME;
	if (!given.includes('{name}'))
		throw new SftpValidationError('Temporary Name', "must contain {name}, the file's own name");
	const temporary = given.split('{name}').join(name);
	if (temporary === name)
		throw new SftpValidationError('Temporary Name', "must differ from the file's own name");
	return checkFileName('Temporary Name', temporary);
}

export interface UploadResult {
	/** The file's path at the bank. */
	path: string;
	/** The name it was written under before the rename. */
	temporaryPath: string;
	/** Bytes written. */
	bytes: number;
	/** Whether a temporary file of an earlier upload that stopped was found and removed. */
	removedLeftover: boolean;
}

/**
 * Writes `source` to `folder/name` through a temporary name. Refuses when a file of that name is
 * already there (the bank has not picked up an earlier one): nothing is overwritten.
 */
export async function uploadStream(
	session: SftpSession,
	source: Readable,
	target: { folder: string; name: string; temporaryName?: string },
	/** Called after the bytes are at the bank under the temporary name, before the rename. */
	beforeRename?: (temporaryPath: string, bytes: number) => Promise<void>,
): Promise<UploadResult> {
	const name = checkFileName('File Name', target.name);
	const path = joinRemote(target.folder, name);
	const temporaryPath = joinRemote(
		target.folder,
		temporaryNameFor(target.temporaryName ?? DEFAULT_TEMPORARY_NAME, name),
	);
	if (await session.stat(path)) {
		source.destroy();
		throw new SftpFileError(
			`A file named ${path} is already at the bank (not picked up yet): nothing was written. Give the file another name, or wait until the bank has taken the earlier one`,
			path,
			SFTP_STATUS.FAILURE,
		);
	}
	let removedLeftover = false;
	if (await session.stat(temporaryPath)) {
		await session.remove(temporaryPath);
		removedLeftover = true;
	}
	const writer = session.write(temporaryPath);
	const sent = await attemptAsync(async () => await pipeline(source, writer));
	if (!sent.ok) {
		// Nothing under the file's own name: the temporary file is removed (or left for the next
		// upload of the same name to remove).
		await session.remove(temporaryPath).catch(() => undefined);
		throw sent.error;
	}
	const bytes = writer.bytesWritten();
	const written = await session.stat(temporaryPath);
	if (!written || written.size !== bytes)
		throw new SftpFileError(
			`The server holds ${written?.size ?? 'no'} bytes of ${temporaryPath} after ${bytes} were written: the file was not renamed`,
			temporaryPath,
		);
	if (beforeRename) await beforeRename(temporaryPath, bytes);
	await session.rename(temporaryPath, path);
	return { path, temporaryPath, bytes, removedLeftover };
}
