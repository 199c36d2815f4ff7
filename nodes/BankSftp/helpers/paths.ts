/** Remote paths as the operations take them: a name in a folder of the credential, or a path. */
import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { joinRemote } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';

/** The File field of the operations that take a file at the bank (Download, Move, Delete). */
export function incomingFileField(
	displayOptions: IDisplayOptions,
	placeholder?: string,
): INodeProperties {
	return {
		displayName: 'File',
		name: 'path',
		type: 'string',
		default: '',
		required: true,
		...(placeholder ? { placeholder } : {}),
		description: "A name in the credential's Incoming Folder, or a path with its folder",
		displayOptions,
	};
}

/** The path the File field names: a name alone is in the credential's Incoming Folder. */
export function incomingFile(ctx: IExecuteFunctions, run: SftpRun, itemIndex: number): string {
	return remotePath(ctx.getNodeParameter('path', itemIndex) as string, run.view.folders.incoming);
}

/**
 * A name alone is taken in `folder`; a value with a slash is a path as it is (relative to where
 * the server puts the user, or absolute).
 */
export function remotePath(value: string, folder: string): string {
	const given = value.trim();
	return given.includes('/') ? given : joinRemote(folder, given);
}

/** The folder and name of a path. */
export function splitPath(path: string): { folder: string; name: string } {
	const slash = path.lastIndexOf('/');
	return slash < 0
		? { folder: '.', name: path }
		: { folder: path.slice(0, slash) || '/', name: path.slice(slash + 1) };
}
