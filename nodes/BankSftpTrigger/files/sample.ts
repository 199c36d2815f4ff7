import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { sampleItems } from '../../shared/delivery';
import type { SftpRun } from '../../shared/sftp/node/context';
import { candidates, itemsOf, TRIGGER } from './poll';
import type { SftpTriggerSettings } from './settings';

const UNTOUCHED =
	'Nothing was moved, deleted or remembered: the active workflow still receives every new file.';

/**
 * "Fetch Test Event": the newest file of the folder, read as the Output makes it (decrypted and
 * verified when chosen), changing nothing at the bank or in the trigger's memory; when the folder
 * is empty, a sample file made by the node, every item marked `sample: true`.
 */
export async function fetchSample(
	ctx: IPollFunctions,
	run: SftpRun,
	settings: SftpTriggerSettings,
): Promise<INodeExecutionData[][]> {
	const session = await run.connect();
	const newest = candidates(await session.list(settings.folder), settings).at(-1);
	if (newest) {
		const items = await itemsOf(ctx, run, newest, settings);
		for (const item of items)
			item.json.testEvent = `The newest file in ${settings.folder}. ${UNTOUCHED}`;
		return [items];
	}
	const format =
		settings.parse.format && settings.parse.format !== 'auto' ? settings.parse.format : 'camt.053';
	return [
		await sampleItems(
			ctx,
			{
				format,
				parsed: settings.output === 'parse',
				binaryPropertyName: settings.binaryPropertyName,
				parse: settings.parse,
				trigger: TRIGGER,
			},
			(sample) =>
				`${sample}, not a file from the bank: ${settings.folder} has no files. ${UNTOUCHED}`,
		),
	];
}
