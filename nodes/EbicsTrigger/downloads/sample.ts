import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { attemptAsync } from '../../shared/common/attempt';
import type { BankFileFormat } from '../../shared/bankfiles';
import { formatNamed, sampleItems } from '../../shared/delivery';
import { loadEbicsRun } from '../../shared/ebics/node/context';
import { ebicsFailure } from '../../shared/ebics/node/failures';
import { describeFailure, fileItems, filesOf, TRIGGER } from './files';
import { checkForVersion, triggerDownloads } from './orders';
import type { EbicsTriggerSettings } from './settings';

const UNTOUCHED =
	"No positive receipt was sent and nothing was remembered: the bank's delivery state is as it was, and the published workflow still receives every new file.";

/**
 * The editor's "Fetch Test Event": the files of the first chosen service with new data at the
 * bank, as the Output makes them, then handed back with the negative receipt, so the bank
 * delivers them again to the published workflow (EBICS has no download that leaves the data
 * untouched without a receipt: the negative one says "not taken"). The trigger's memory is not
 * touched. When no service has data, a sample file of the first service's format made by the
 * node. Every item says in `testEvent` what it is. Bank failures are thrown with the bank's
 * message.
 */
export async function fetchSample(
	ctx: IPollFunctions,
	settings: EbicsTriggerSettings,
): Promise<INodeExecutionData[][]> {
	const run = await loadEbicsRun(ctx, 'bank', TRIGGER, {
		check: (view) => checkForVersion(view.version, settings),
	});
	const downloads = triggerDownloads(run.client!, settings);
	for (const { label, fetch } of downloads) {
		const download = await fetch();
		if (!download) continue;
		const built = await attemptAsync(
			async () => await fileItems(ctx, download, label, filesOf(download), settings),
		);
		const rejected = await attemptAsync(async () => await download.reject());
		if (!built.ok) throw ebicsFailure(built.error);
		const receipt = rejected.ok
			? 'handed back with the negative receipt'
			: `left without a receipt (the negative receipt did not go through: ${describeFailure(ebicsFailure(rejected.error))})`;
		const testEvent = `New data of ${label}, downloaded for this test and ${receipt}: the bank delivers it again. ${UNTOUCHED}`;
		for (const item of built.value) item.json.testEvent = testEvent;
		return [built.value];
	}
	const first = downloads[0];
	const chosen = settings.parse.format;
	const format: BankFileFormat =
		(chosen && chosen !== 'auto' ? chosen : undefined) ??
		formatNamed(first.formatNames) ??
		'camt.053';
	const labels = downloads.map((d) => d.label).join(', ');
	return [
		await sampleItems(
			ctx,
			{
				format,
				parsed: settings.output === 'parse',
				binaryPropertyName: settings.binaryPropertyName,
				parse: settings.parse,
				trigger: TRIGGER,
				fields: { service: first.label },
			},
			(sample) =>
				`${sample}, not a file from the bank: the bank has no new data for ${labels}. Build the workflow on it; once published, the workflow receives the bank's own files. ${UNTOUCHED}`,
		),
	];
}
