import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { descriptorJson } from '../../CorporateFileService/helpers/bankFiles';
import { loadServiceContext } from '../../CorporateFileService/helpers/serviceContext';
import { listForTrigger, oldestFirst, windowStart } from './bank';
import { FILE_OUTPUTS } from './outputs';
import type { FileTriggerSettings } from './settings';

const UNTOUCHED =
	'Nothing was marked as downloaded and nothing was remembered: the active workflow still receives every new file.';

/**
 * The editor's "Fetch Test Event": the newest file of the chosen types, changing nothing at the
 * bank or in the trigger's memory. A file still NEW is shown by its descriptor only, since
 * downloading it would mark it as downloaded; a file already downloaded is downloaded again (its
 * status stays) when the Output downloads. Every item says so in `testEvent`. No file at all is
 * reported as an item too, not as an error. Bank failures are thrown with the bank's message.
 */
export async function fetchSample(
	ctx: IPollFunctions,
	settings: FileTriggerSettings,
): Promise<INodeExecutionData[][]> {
	const service = await loadServiceContext(ctx);
	const newest = [
		...(await listForTrigger(ctx, service, settings, { status: 'NEW' })),
		...(await listForTrigger(ctx, service, settings, {
			status: 'ALL',
			startDate: windowStart(Date.now(), settings.lookBackDays),
		})),
	]
		.sort(oldestFirst)
		.pop();
	const types = settings.fileTypes.length
		? `of type ${settings.fileTypes.join(', ')}`
		: 'of any type';
	if (!newest) {
		return [
			[
				{
					json: {
						testEvent: `No files ${types} at the bank (new ones, or downloaded in the last ${settings.lookBackDays} days). ${UNTOUCHED}`,
						files: 0,
					},
				},
			],
		];
	}
	const output = FILE_OUTPUTS[settings.output];
	const isNew = (newest.status ?? '').toUpperCase() === 'NEW';
	if (output.downloads && isNew) {
		return [
			[
				{
					json: {
						...descriptorJson(newest),
						testEvent: `The newest file ${types}, shown by its descriptor only: it is still new at the bank and downloading it would mark it as downloaded. ${UNTOUCHED}`,
					},
				},
			],
		];
	}
	const items = (await output.emit(ctx, service, newest, settings)) ?? [
		{ json: descriptorJson(newest) },
	];
	const how = output.downloads
		? 'downloaded again (it was already downloaded, so its status stays)'
		: 'as the bank lists it';
	for (const item of items) item.json.testEvent = `The newest file ${types}, ${how}. ${UNTOUCHED}`;
	return [items];
}
