import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { BankFileFormat } from '../../shared/bankfiles';
import type { FileDescriptor } from '../../shared/bxd';
import { descriptorJson } from '../../CorporateFileService/helpers/bankFiles';
import type { ServiceContext } from '../../CorporateFileService/helpers/serviceContext';
import { loadServiceContext } from '../../CorporateFileService/helpers/serviceContext';
import { listForTrigger, oldestFirst, windowStart } from './bank';
import { FILE_OUTPUTS, parsedItems } from './outputs';
import type { SampleFile } from './samples';
import { SAMPLE_FILES } from './samples';
import type { FileTriggerSettings } from './settings';

const UNTOUCHED =
	'Nothing was marked as downloaded and nothing was remembered: the active workflow still receives every new file.';

/** The file reference of a sample file: never one a bank gives. */
export const SAMPLE_REFERENCE = 'SAMPLE';

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

/** What a file type holds, from its code and the bank profile's name for it. */
const FORMAT_OF_TYPE: Array<[RegExp, BankFileFormat]> = [
	[/camt\.?052/i, 'camt.052'],
	[/camt\.?054/i, 'camt.054'],
	[/camt\.?053|^XT$/i, 'camt.053'],
	[/pain\.?002|^XP$/i, 'pain.002'],
	[/\bTITO\b/i, 'tito'],
	[/\bKTL\b/i, 'ktl'],
	[/\bMT\s?942\b/i, 'mt942'],
	[/\bMT\s?940\b|\bSTA\b/i, 'mt940'],
];

/**
 * The sample for the trigger's settings: the File Format of the Parse Options when one is chosen,
 * else the format of the first file type that names one, else a camt.053 statement (and the note
 * says so).
 */
function chooseSample(
	settings: FileTriggerSettings,
	service: ServiceContext,
): { sample: SampleFile; note: string } {
	const chosen = settings.parse.format;
	if (chosen && chosen !== 'auto') return { sample: SAMPLE_FILES[chosen], note: '' };
	const labels = new Map((service.profile?.fileTypes ?? []).map((t) => [t.code, t.label]));
	for (const code of settings.fileTypes) {
		const text = [code, labels.get(code) ?? ''];
		const match = FORMAT_OF_TYPE.find(([pattern]) => text.some((t) => pattern.test(t)));
		if (match) return { sample: SAMPLE_FILES[match[1]], note: '' };
	}
	return {
		sample: SAMPLE_FILES['camt.053'],
		note: settings.fileTypes.length
			? ` The node has no sample of type ${settings.fileTypes.join(', ')}: this is a camt.053 statement.`
			: '',
	};
}

const FORMAT_NAMES: Record<BankFileFormat, string> = {
	'camt.052': 'camt.052 intraday account report',
	mt940: 'MT940 account statement',
	mt942: 'MT942 intraday report',
	'camt.053': 'camt.053 account statement',
	'camt.054': 'camt.054 debit/credit notification',
	'pain.002': 'pain.002 payment status report',
	tito: 'TITO account statement',
	ktl: 'KTL reference payment file',
};

/** The sample file as the Output makes a file into items, every item marked as a sample. */
async function sampleItems(
	ctx: IPollFunctions,
	settings: FileTriggerSettings,
	service: ServiceContext,
	why: string,
): Promise<INodeExecutionData[]> {
	const { sample, note } = chooseSample(settings, service);
	const data = await ctx.helpers.prepareBinaryData(
		Buffer.from(sample.content, 'utf8'),
		sample.fileName,
		sample.mimeType,
	);
	const stored: INodeExecutionData = {
		json: {
			fileReference: SAMPLE_REFERENCE,
			fileType: settings.fileTypes[0] ?? null,
			userFilename: sample.fileName,
			status: SAMPLE_REFERENCE,
			fileName: sample.fileName,
			mimeType: sample.mimeType,
			fileSize: Buffer.byteLength(sample.content, 'utf8'),
		},
		binary: { [settings.binaryPropertyName]: data },
	};
	const items =
		settings.output === 'parse'
			? await parsedItems(ctx, stored, SAMPLE_REFERENCE, settings)
			: [stored];
	const testEvent = `A sample ${FORMAT_NAMES[sample.format]} made by the node, not a file from the bank: ${why}. Build the workflow on it; once published, the workflow receives the bank's own files.${note} ${UNTOUCHED}`;
	for (const item of items) {
		item.json.sample = true;
		item.json.testEvent = testEvent;
	}
	return items;
}
