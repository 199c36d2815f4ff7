/**
 * A cross-process lock for work several test processes may start at once (making the sandbox's
 * PKI, installing n8n): a lock file created exclusively, removed when the work is done.
 */
import { closeSync, openSync, rmSync, statSync } from 'node:fs';

/**
 * One try at taking the lock: true when this process now holds it. A lock older than `staleMs`
 * was left by a process that died: it is removed, for the next try to take.
 */
export function tryLock(lockPath: string, staleMs: number): boolean {
	try {
		closeSync(openSync(lockPath, 'wx'));
		return true;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		try {
			// recursive: a lock folder left by an older version of these tests goes as well
			if (Date.now() - statSync(lockPath).mtimeMs > staleMs)
				rmSync(lockPath, { recursive: true, force: true });
		} catch {
			// removed meanwhile
		}
		return false;
	}
}

/** Gives the lock back. */
export function unlock(lockPath: string): void {
	rmSync(lockPath, { recursive: true, force: true });
}
