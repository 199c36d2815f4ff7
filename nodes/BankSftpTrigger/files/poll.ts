import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { parsedItems } from '../../shared/delivery';
import { onePollAtATime, pollDeadline } from '../../shared/common/polling';
import {
	isPartialName,
	joinRemote,
	SFTP_STATUS,
	SftpFileError,
	type RemoteEntry,
} from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { sftpFailure } from '../../shared/sftp/node/failures';
import { receiveFile } from '../../shared/sftp/node/receive';
import type { SftpTriggerSettings } from './settings';
import { fileKey, SftpTriggerState, type DueAction } from './state';

export const TRIGGER = 'Bank SFTP Trigger';
const LOG = `${TRIGGER}:`;
/** A move or delete that failed this many times is given up (the file stays, still remembered). */
const MAX_TRIES = 5;

const why = (error: unknown): string => sftpFailure(error).message;

/** The files of the folder the trigger looks at: files only, not being written, matching. */
export function candidates(entries: RemoteEntry[], settings: SftpTriggerSettings): RemoteEntry[] {
	return entries
		.filter(
			(e) =>
				e.isFile && !isPartialName(e.name) && (!settings.pattern || settings.pattern.test(e.name)),
		)
		.sort((a, b) => a.modifiedAt - b.modifiedAt || a.name.localeCompare(b.name));
}

/** One file as the Output makes it: the file, or its entries, statements and the file. */
export async function itemsOf(
	ctx: IPollFunctions,
	run: SftpRun,
	entry: RemoteEntry,
	settings: SftpTriggerSettings,
): Promise<INodeExecutionData[]> {
	const stored = await receiveFile(ctx, run, entry, {
		itemIndex: 0,
		binaryPropertyName: settings.binaryPropertyName,
		decrypt: settings.decrypt,
		allowUnsigned: settings.allowUnsigned,
	});
	delete stored.pairedItem;
	if (settings.output !== 'parse') return [stored];
	return await parsedItems(
		ctx,
		stored,
		{ path: entry.path, fileName: String(stored.json.fileName) },
		settings,
		TRIGGER,
	);
}

/**
 * One scheduled poll. Every file the bank puts in the folder is emitted once (the argument is in
 * docs/guarantees.md, "Bank SFTP Trigger"):
 *
 * 1. The moves or deletes of the files the previous emitting poll handed over are done first:
 *    n8n saved that poll's state (the files delivered, these actions) when it started the
 *    execution. A move that fails leaves the file where it is, still remembered as delivered, so
 *    it is not emitted again; the move is tried again by the next polls.
 * 2. The folder is listed. The first poll on a folder notes the files there and emits nothing
 *    when files are left after delivery; when they are moved or deleted, the files there are due.
 *    Files whose names say they are being written are left out; a file is due once the previous
 *    poll saw it with the same size and time (Wait for Files to Settle), and it was not delivered.
 * 3. Due files are read (decrypted and verified when chosen), oldest first, at most Max Files per
 *    Poll. A file that fails (a signature, its integrity, it changed while it was read) is not
 *    emitted and stays at the bank; the log says why, and the next poll tries it again.
 * 4. The memory (delivered files, due actions) is written to static data right before the items
 *    are handed over, so n8n saves it with them.
 *
 * Failures are logged, never thrown, so the trigger keeps polling; credential problems are thrown,
 * so activation fails with the field to fix.
 */
export async function pollFiles(
	ctx: IPollFunctions,
	run: SftpRun,
	settings: SftpTriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	return await onePollAtATime(ctx, TRIGGER, async () => await deliver(ctx, run, settings));
}

async function act(run: SftpRun, due: DueAction, settings: SftpTriggerSettings): Promise<void> {
	const session = await run.connect();
	try {
		if (due.action === 'delete') await session.remove(due.path);
		else
			await session.rename(
				due.path,
				joinRemote(settings.archiveFolder, due.path.slice(due.path.lastIndexOf('/') + 1)),
			);
	} catch (error) {
		// Gone already (done before a restart, or by someone else): nothing left to do.
		if (
			error instanceof SftpFileError &&
			error.status === SFTP_STATUS.NO_SUCH_FILE &&
			!(await session.stat(due.path))
		)
			return;
		return await Promise.reject(error);
	}
}

async function deliver(
	ctx: IPollFunctions,
	run: SftpRun,
	settings: SftpTriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const stopAt = pollDeadline(ctx, Date.now());
	const state = new SftpTriggerState(ctx.getWorkflowStaticData('node'), settings.rememberFiles);
	let session;
	try {
		session = await run.connect();
	} catch (error) {
		const failure = sftpFailure(error);
		// A pinned key that does not match, a field to fix: activation fails naming it.
		if (failure.name === 'InputError') return await Promise.reject(failure);
		ctx.logger.error(
			`${LOG} the connection failed: ${failure.message}. The next poll tries again.`,
		);
		return null;
	}

	for (const due of state.takeDue()) {
		try {
			await act(run, due, settings);
			ctx.logger.debug(
				`${LOG} ${due.path}: ${due.action === 'move' ? 'moved to the archive' : 'deleted'} after delivery`,
			);
		} catch (error) {
			const tries = due.tries + 1;
			if (tries < MAX_TRIES) state.addDue({ ...due, tries });
			ctx.logger.warn(
				`${LOG} ${due.path} was delivered, but the ${due.action} after delivery failed: ${why(error)}. It is not emitted again; ` +
					(tries < MAX_TRIES
						? 'the next poll tries again.'
						: `given up after ${tries} tries: ${due.action} it by hand.`),
			);
		}
	}

	let entries: RemoteEntry[];
	try {
		entries = candidates(await session.list(settings.folder), settings);
	} catch (error) {
		ctx.logger.error(
			`${LOG} listing ${settings.folder} failed: ${why(error)}. Nothing was read; the next poll tries again.`,
		);
		return null;
	}
	const listed = new Set(entries.map(fileKey));
	if (!state.startedFor(settings.scope)) {
		// Files left after delivery: those there now were there before, and are left alone. Files
		// moved or deleted after delivery: those there now are waiting to be taken, and are due.
		const leave = settings.afterDelivery === 'leave';
		state.start(settings.scope, leave ? [...listed] : []);
		if (leave) {
			state.save(listed);
			ctx.logger.info(
				`${LOG} started on ${settings.folder}: ${listed.size} files already there are left alone; new files are emitted from the next poll on`,
			);
			return null;
		}
		ctx.logger.info(
			`${LOG} started on ${settings.folder}: the ${listed.size} files there wait to be taken (After Delivery moves or deletes them)`,
		);
	}
	state.pruneBaseline(listed);

	const items: INodeExecutionData[] = [];
	let emitted = 0;
	let waiting = 0;
	for (const entry of entries) {
		const key = fileKey(entry);
		if (state.inBaseline(key)) continue;
		if (state.delivered.has(key)) {
			// Delivered, its move or delete given up or lost: it stays, never emitted again.
			continue;
		}
		if (settings.settle && !state.wasSettling(key)) {
			waiting++;
			continue;
		}
		if (emitted >= settings.maxFilesPerPoll || Date.now() >= stopAt) break;
		let out: INodeExecutionData[];
		try {
			out = await itemsOf(ctx, run, entry, settings);
		} catch (error) {
			ctx.logger.error(
				`${LOG} ${entry.path} is not emitted: ${why(error)}. It stays at the bank; the next poll tries again.`,
			);
			continue;
		}
		items.push(...out);
		state.delivered.add(key);
		if (settings.afterDelivery !== 'leave')
			state.addDue({ path: entry.path, key, action: settings.afterDelivery, tries: 0 });
		emitted++;
	}
	state.seen([...listed]);
	state.save(listed);
	ctx.logger.debug(
		`${LOG} ${entries.length} files listed in ${settings.folder}, ${emitted} emitted, ${waiting} waiting to settle`,
	);
	return items.length ? [items] : null;
}
