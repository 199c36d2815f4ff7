/** Remote paths as the operations take them: a name in a folder of the credential, or a path. */
import { joinRemote } from '../../shared/sftp';

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
