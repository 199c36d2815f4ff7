import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { BankFileFormat } from '../../shared/bankfiles';
import type { FileDescriptor } from '../../shared/bxd';
import { formatNamed, sampleItems as sharedSampleItems } from '../../shared/delivery';
import { descriptorJson } from '../../shared/bxd/node/bankFiles';
import type { ServiceContext } from '../../shared/bxd/node/serviceContext';
import { loadServiceContext } from '../../shared/bxd/node/serviceContext';
import { listForTrigger, oldestFirst, windowStart } from './bank';
import { FILE_OUTPUTS } from './outputs';
import type { FileTriggerSettings } from './settings';

const UNTOUCHED =
	'Nothing was marked as downloaded and nothing was remembered: the active workflow still receives every new file.';

const isNew = (file: FileDescriptor): boolean => (file.status ?? '').toUpperCase() === 'NEW';

/**
 * The editor's "Fetch Test Event": a file of the chosen types to build the workflow on, changing
 * nothing at the bank or in the trigger's memory. With an Output that downloads, that is the
 * newest file the bank has already handed out, downloaded again (its status stays); a file still
 * NEW is never downloaded here, since downloading marks it as downloaded (bxd has no download that
 * leaves a file new). When the bank has no such file, it is a sample file of the chosen type made
 * by the node, as the Output makes it (the file, or its entries, statements and the file), every
 * item marked `sample: true`. Descriptors Only shows the newest file as the bank lists it. Every
 * item says in `testEvent` what it is. Bank failures are thrown with the bank's message.
 */
export async function fetchSample(
	ctx: IPollFunctions,
	settings: FileTriggerSettings,
): Promise<INodeExecutionData[][]> {
	const service = await loadServiceContext(ctx);
	const listed = [
		...(await listForTrigger(ctx, service, settings, { status: 'NEW' })),
		...(await listForTrigger(ctx, service, settings, {
			status: 'ALL',
			startDate: windowStart(Date.now(), settings.lookBackDays),
		})),
	].sort(oldestFirst);
	const newest = listed.at(-1);
	const types = settings.fileTypes.length
		? `of type ${settings.fileTypes.join(', ')}`
		: 'of any type';
	const output = FILE_OUTPUTS[settings.output];
	if (!output.downloads) {
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
		const items = (await output.emit(ctx, service, newest, settings)) ?? [
			{ json: descriptorJson(newest) },
		];
		for (const item of items)
			item.json.testEvent = `The newest file ${types}, as the bank lists it. ${UNTOUCHED}`;
		return [items];
	}
	const handedOut = listed.filter((file) => !isNew(file)).at(-1);
	const fetched = handedOut && (await output.emit(ctx, service, handedOut, settings));
	if (handedOut && fetched) {
		const newer =
			newest && newest !== handedOut && isNew(newest)
				? ` A newer file (${newest.fileReference}) is still new at the bank: it is not downloaded here, since downloading marks a file as downloaded.`
				: '';
		for (const item of fetched)
			item.json.testEvent = `The newest file ${types} the bank has already handed out, downloaded again (its status stays).${newer} ${UNTOUCHED}`;
		return [fetched];
	}
	const why = newest
		? `every file ${types} at the bank is still new (the newest is ${newest.fileReference}), and downloading one here would mark it as downloaded`
		: `the bank has no files ${types} (new ones, or downloaded in the last ${settings.lookBackDays} days)`;
	return [await sampleItems(ctx, settings, service, why)];
}

/**
 * The sample for the trigger's settings: the File Format of the Parse Options when one is chosen,
 * else the format of the first file type that names one, else a camt.053 statement (and the note
 * says so).
 */
function chooseSample(
	settings: FileTriggerSettings,
	service: ServiceContext,
): { format: BankFileFormat; note: string } {
	const chosen = settings.parse.format;
	if (chosen && chosen !== 'auto') return { format: chosen, note: '' };
	const labels = new Map((service.profile?.fileTypes ?? []).map((t) => [t.code, t.label]));
	for (const code of settings.fileTypes) {
		const format = formatNamed([code, labels.get(code) ?? '']);
		if (format) return { format, note: '' };
	}
	return {
		format: 'camt.053',
		note: settings.fileTypes.length
			? ` The node has no sample of type ${settings.fileTypes.join(', ')}: this is a camt.053 statement.`
			: '',
	};
}

/** The sample file as the Output makes a file into items, every item marked as a sample. */
async function sampleItems(
	ctx: IPollFunctions,
	settings: FileTriggerSettings,
	service: ServiceContext,
	why: string,
): Promise<INodeExecutionData[]> {
	const { format, note } = chooseSample(settings, service);
	return await sharedSampleItems(
		ctx,
		{
			format,
			parsed: settings.output === 'parse',
			binaryPropertyName: settings.binaryPropertyName,
			parse: settings.parse,
			trigger: 'Bank File Trigger',
			fields: { fileType: settings.fileTypes[0] ?? null },
		},
		(sample) =>
			`${sample}, not a file from the bank: ${why}. Build the workflow on it; once published, the workflow receives the bank's own files.${note} ${UNTOUCHED}`,
	);
}
