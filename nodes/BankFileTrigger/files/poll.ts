import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { onePollAtATime, pollDeadline } from '../../shared/common/polling';
import type { ServiceContext } from '../../shared/bxd/node/serviceContext';
import { loadServiceContext } from '../../shared/bxd/node/serviceContext';
import type { ListedFile } from './bank';
import { describeFailure, fileDay, listForTrigger, oldestFirst, utcDay, windowStart } from './bank';
import { FILE_OUTPUTS } from './outputs';
import type { FileTriggerSettings } from './settings';
import { FileMemory } from './state';

const TRIGGER = 'Bank File Trigger';
const LOG = `${TRIGGER}:`;

/** A file due for emission, and whether it was found downloaded but never emitted. */
interface DueFile {
	file: ListedFile;
	recovered: boolean;
}

/**
 * One scheduled poll. Every file that arrives at the bank is emitted once:
 *
 * - The first poll on a scope (file types, target, service) notes the files the bank has already
 *   handed out (any status but NEW, within the look-back window) as the baseline and emits
 *   nothing. It downloads nothing, so nothing can be lost before n8n has saved that note (n8n
 *   saves static data after the activation poll).
 * - Later polls list the bank's NEW files and every file of the look-back window. Due are the NEW
 *   files and the downloaded (DLD) ones of the covered days that were never emitted and are not in
 *   the baseline: files downloaded by a poll that failed or a process that died before the items
 *   were handed over. Files already emitted (remembered by reference) never are.
 * - Due files are emitted oldest first, at most Max Files per Poll. A file is remembered only once
 *   all its items are made; the memory is written to static data right before the items are
 *   handed over, so it is saved with them.
 *
 * Failures: a listing that fails ends the poll before anything is downloaded. A download that
 * fails (after the transport's retries) ends the poll: the files before it are emitted, that file
 * and the rest are due again next time (as NEW, or as downloaded but never emitted). Failures are
 * logged with the bank's code and message, never thrown, so the trigger keeps polling.
 */
export async function pollFiles(
	ctx: IPollFunctions,
	settings: FileTriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	return await onePollAtATime(ctx, TRIGGER, async () => await deliver(ctx, settings));
}

async function deliver(
	ctx: IPollFunctions,
	settings: FileTriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const start = Date.now();
	const stopAt = pollDeadline(ctx, start);
	// Credential problems are thrown: activation fails with the name of the field to fix.
	const service = await loadServiceContext(ctx);
	const memory = new FileMemory(ctx.getWorkflowStaticData('node'), settings.rememberFiles);
	const firstDay = windowStart(start, settings.lookBackDays);

	if (!memory.startedFor(settings.scope))
		return await startBaseline(ctx, service, settings, memory, start, firstDay);

	memory.advance(firstDay);
	let fresh: ListedFile[];
	let recent: ListedFile[];
	try {
		fresh = await listForTrigger(ctx, service, settings, { status: 'NEW' });
		recent = await listForTrigger(ctx, service, settings, { status: 'ALL', startDate: firstDay });
	} catch (error) {
		ctx.logger.error(
			`${LOG} listing the bank's files failed: ${describeFailure(error, service)}. Nothing was downloaded; the next poll tries again.`,
		);
		memory.save(new Set());
		return null;
	}

	const listed = new Set([...fresh, ...recent].map((f) => f.fileReference));
	const due = dueFiles(fresh, recent, memory).sort((a, b) => oldestFirst(a.file, b.file));
	const output = FILE_OUTPUTS[settings.output];
	const items: INodeExecutionData[] = [];
	let emittedFiles = 0;
	let recovered = 0;
	for (const { file, recovered: wasRecovered } of due) {
		if (emittedFiles >= settings.maxFilesPerPoll || Date.now() >= stopAt) break;
		let out: INodeExecutionData[] | undefined;
		try {
			out = await output.emit(ctx, service, file, settings);
		} catch (error) {
			ctx.logger.error(
				`${LOG} file ${file.fileReference} could not be fetched: ${describeFailure(error, service)}. ` +
					`${emittedFiles} files of this poll are handed over; this file and the rest follow with the next poll.`,
			);
			break;
		}
		if (!out) {
			ctx.logger.warn(
				`${LOG} file ${file.fileReference} is listed but the bank no longer has it (code 24); it is skipped.`,
			);
			continue;
		}
		for (const item of out) item.json.recovered = wasRecovered;
		items.push(...out);
		memory.emitted(file.fileReference);
		emittedFiles++;
		if (wasRecovered) recovered++;
	}

	memory.save(listed);
	const left = due.length - emittedFiles;
	ctx.logger.debug(
		`${LOG} ${fresh.length} new and ${recent.length} recent files listed, ${emittedFiles} emitted (${recovered} found downloaded but never emitted)` +
			(left > 0 ? `, ${left} left for the next polls` : ''),
	);
	if (recovered) {
		ctx.logger.info(
			`${LOG} ${recovered} files found downloaded but never emitted (by a poll that failed or was cut short, or by another program) are emitted now`,
		);
	}
	return items.length ? [items] : null;
}

/**
 * The files to emit: NEW ones and downloaded ones of the covered days, never emitted and not in the
 * baseline.
 */
function dueFiles(fresh: ListedFile[], recent: ListedFile[], memory: FileMemory): DueFile[] {
	const due = new Map<string, DueFile>();
	for (const file of fresh) {
		if (!memory.wasEmitted(file.fileReference))
			due.set(file.fileReference, { file, recovered: false });
	}
	for (const file of recent) {
		const reference = file.fileReference;
		if (due.has(reference) || memory.wasEmitted(reference) || memory.inBaseline(reference))
			continue;
		const status = (file.status ?? '').toUpperCase();
		if (status === 'NEW') {
			due.set(reference, { file, recovered: false });
		} else if (status === 'DLD') {
			const day = fileDay(file);
			if (day === undefined || day >= memory.firstCoveredDay)
				due.set(reference, { file, recovered: true });
		}
	}
	return [...due.values()];
}

/** The first poll on a scope: notes the files already handed out, emits and downloads nothing. */
async function startBaseline(
	ctx: IPollFunctions,
	service: ServiceContext,
	settings: FileTriggerSettings,
	memory: FileMemory,
	now: number,
	firstDay: string,
): Promise<null> {
	let recent: ListedFile[];
	try {
		recent = await listForTrigger(ctx, service, settings, { status: 'ALL', startDate: firstDay });
	} catch (error) {
		ctx.logger.error(
			`${LOG} listing the bank's files to start failed: ${describeFailure(error, service)}. The next poll tries again.`,
		);
		return null;
	}
	const handedOut = recent
		.filter((f) => (f.status ?? '').toUpperCase() !== 'NEW')
		.map((f) => f.fileReference);
	memory.start(settings.scope, handedOut, utcDay(now), firstDay);
	memory.save(new Set());
	ctx.logger.info(
		`${LOG} started: ${handedOut.length} files the bank handed out before are left alone; new files are emitted from the next poll on`,
	);
	return null;
}
