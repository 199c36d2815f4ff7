import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { attemptAsync } from '../../shared/common/attempt';
import { clause } from '../../shared/common/errors';
import type { Download, EbicsClient } from '../../shared/ebics';
import { onePollAtATime, pollDeadline } from '../../shared/common/polling';
import { loadEbicsRun } from '../../shared/ebics/node/context';
import { ebicsFailure } from '../../shared/ebics/node/failures';
import type { DownloadedFile } from './files';
import { describeFailure, fileItems, filesOf, TRIGGER } from './files';
import { checkForVersion, triggerDownloads } from './orders';
import type { EbicsTriggerSettings } from './settings';
import { DownloadState } from './state';

const LOG = `${TRIGGER}:`;

/** What a failure of the EBICS library or the transport says, as one log line. */
function why(error: unknown): string {
	return clause(describeFailure(ebicsFailure(error)));
}

/**
 * One scheduled poll. Every file the bank delivers is emitted once (the argument is in
 * docs/guarantees.md, "EBICS Trigger"):
 *
 * 1. The positive receipts of the downloads the previous emitting poll handed over are sent
 *    first: n8n saved that poll's state (these receipts, the files' digests) when it started the
 *    execution, so the bank is told only about files n8n holds for good. A receipt that fails
 *    (the bank forgot the transaction, the connection broke) is logged: the bank then delivers
 *    the files again, and they are recognised by their SHA-256.
 * 2. Each service is downloaded (BTD, or its EBICS 2.5 order type: what the bank has not
 *    delivered yet). Files handed over
 *    before are left out. A download of files that were all handed over by earlier polls gets its
 *    positive receipt at once; one with a new file is handed over and its receipt is due with the
 *    next poll. A download that cannot be read or stored gets the negative receipt (the bank
 *    delivers it again), and the other services go on.
 * 3. The digests and the due receipts are written to static data right before the items are
 *    handed over, so n8n saves them together with starting the execution.
 *
 * Failures are logged with the bank's code and message, never thrown, so the trigger keeps
 * polling; credential problems are thrown, so activation fails with the field to fix.
 */
export async function pollDownloads(
	ctx: IPollFunctions,
	settings: EbicsTriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	return await onePollAtATime(ctx, TRIGGER, async () => await deliver(ctx, settings));
}

async function deliver(
	ctx: IPollFunctions,
	settings: EbicsTriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const stopAt = pollDeadline(ctx, Date.now());
	const run = await loadEbicsRun(ctx, 'bank', TRIGGER, {
		check: (view) => checkForVersion(view.version, settings),
	});
	const client = run.client!;
	const downloads = triggerDownloads(client, settings);
	const state = new DownloadState(ctx.getWorkflowStaticData('node'), settings.rememberFiles);

	for (const due of state.takeDueReceipts()) {
		const sent = await attemptAsync(
			async () => await client.receipt(due.transactionId, true, due.service),
		);
		if (sent.ok) ctx.logger.debug(`${LOG} ${due.service}: positive receipt sent`);
		else
			ctx.logger.warn(
				`${LOG} ${due.service}: the positive receipt of transaction ${due.transactionId} did not go through: ${why(sent.error)}. If the bank did not get it earlier, it delivers those files again; they are recognised and not emitted twice.`,
			);
	}

	const items: INodeExecutionData[] = [];
	let emittedFiles = 0;
	for (const { label, fetch } of downloads) {
		if (Date.now() >= stopAt) break;
		const fetched = await attemptAsync(fetch);
		if (!fetched.ok) {
			ctx.logger.error(
				`${LOG} ${label}: the download failed: ${why(fetched.error)}. n8n did not confirm it: the bank keeps the data and the next poll tries again.`,
			);
			continue;
		}
		const download = fetched.value;
		if (!download) continue;
		const handed = await handOver(ctx, client, download, label, state, settings);
		items.push(...handed.items);
		emittedFiles += handed.files;
	}

	state.save();
	if (emittedFiles)
		ctx.logger.debug(
			`${LOG} ${emittedFiles} new files emitted; their receipts go with the next poll`,
		);
	return items.length ? [items] : null;
}

/** One download: its new files as items, and what becomes of its receipt. */
async function handOver(
	ctx: IPollFunctions,
	client: EbicsClient,
	download: Download,
	label: string,
	state: DownloadState,
	settings: EbicsTriggerSettings,
): Promise<{ items: INodeExecutionData[]; files: number }> {
	const reject = async (reason: string) => {
		const rejected = await attemptAsync(async () => await download.reject());
		ctx.logger.error(
			`${LOG} ${label}: ${reason}. ${rejected.ok ? 'n8n sent the negative receipt' : `The negative receipt did not go through (${why(rejected.error)})`}: the bank keeps the data and delivers it again on the next poll.`,
		);
	};
	let files: DownloadedFile[];
	try {
		files = filesOf(download);
	} catch (error) {
		await reject(`the data could not be opened: ${why(error)}`);
		return { items: [], files: 0 };
	}
	const fresh: DownloadedFile[] = [];
	let repeated = 0;
	for (const file of files) {
		if (state.delivered(file.digest)) repeated++;
		else fresh.push(file);
	}
	if (!fresh.length && files.every((f) => state.deliveredBefore(f.digest))) {
		// Every file was handed over by an earlier poll, whose state n8n has saved: the bank
		// delivered them again because their receipt did not reach it. Receipt them now.
		const sent = await attemptAsync(async () => await download.acknowledge());
		ctx.logger.info(
			`${LOG} ${label}: the bank delivered ${files.length} files again that were emitted before; they are not emitted twice` +
				(sent.ok
					? ' and the positive receipt is sent now.'
					: `; the positive receipt did not go through (${why(sent.error)}), so the bank may deliver them again.`),
		);
		return { items: [], files: 0 };
	}
	let items: INodeExecutionData[];
	try {
		items = await fileItems(ctx, download, label, fresh, settings);
	} catch (error) {
		await reject(`the files could not be kept: ${why(error)}`);
		return { items: [], files: 0 };
	}
	for (const file of fresh) state.deliver(file.digest);
	state.receiptLater({ transactionId: download.transactionId, service: label });
	if (repeated)
		ctx.logger.info(
			`${LOG} ${label}: ${repeated} files of this download were emitted before and are left out`,
		);
	return { items, files: fresh.length };
}
