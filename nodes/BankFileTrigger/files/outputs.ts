/**
 * What the trigger emits for one bank file. Each output mode is one entry of FILE_OUTPUTS: its
 * choice in the Output parameter and the function that turns one listed file into items. The
 * poll does the bookkeeping around it (which files are due, remembering each file once all its
 * items are made), so a new mode is one more entry here. A mode that reads the file's content
 * downloads it with `fetchFile`, sets `downloads: true`, and returns the items of that one file
 * (Parsed Entries: one item per entry, then the file itself).
 */
import type { INodeExecutionData, INodePropertyOptions, IPollFunctions } from 'n8n-workflow';

import type { FileDescriptor } from '../../shared/bxd';
import type { ParseSettings } from '../../shared/delivery';
import { parsedItems } from '../../shared/delivery';
import { descriptorJson, fetchFile } from '../../shared/bxd/node/bankFiles';
import type { CommonOptions } from '../../shared/bxd/node/readParameters';
import type { ServiceContext } from '../../shared/bxd/node/serviceContext';

/** What the output modes need of the trigger's settings (settings.ts reads them). */
export interface OutputSettings extends ParseSettings {
	targetId?: string;
	/** How requests are sent (endpoint, signature canonicalization, timeout, compression). */
	request: CommonOptions;
}

export interface FileOutput {
	option: INodePropertyOptions;
	/** Whether the mode downloads the file, which the bank then marks as downloaded (DLD). */
	downloads: boolean;
	/**
	 * The items for one file. Undefined when the bank no longer has the file (code 24): it is then
	 * not remembered and not emitted. Any error stops the poll before this file.
	 */
	emit(
		ctx: IPollFunctions,
		service: ServiceContext,
		file: FileDescriptor & { fileReference: string },
		settings: OutputSettings,
	): Promise<INodeExecutionData[] | undefined>;
}

const binary: FileOutput = {
	option: {
		name: 'Files (Download)',
		value: 'binary',
		description:
			'Download each new file as binary data with its descriptor. Downloading marks the file as downloaded at the bank.',
	},
	downloads: true,
	async emit(ctx, service, file, settings) {
		const item = await fetchFile(
			ctx,
			service,
			{
				fileReference: file.fileReference,
				fileType: file.fileType,
				targetId: file.targetId ?? settings.targetId,
			},
			{ ...settings.request, itemIndex: 0, propertyName: settings.binaryPropertyName },
		);
		if (!item) return undefined;
		// The listing's descriptor first; what the download's answer says about the file wins.
		return [{ json: { ...descriptorJson(file), ...item.json }, binary: item.binary }];
	},
};

const report: FileOutput = {
	option: {
		name: 'Descriptors Only (No Download)',
		value: 'report',
		description:
			'Emit what the bank says about each new file (reference, type, name, date, amounts) without downloading it',
	},
	downloads: false,
	async emit(_ctx, _service, file) {
		return [{ json: descriptorJson(file) }];
	},
};

/**
 * The items of one downloaded file (its descriptor in the JSON, the file in the binary field):
 * one item per entry or payment status, the statements, then the file item; each names the file
 * by reference and name.
 */
export async function parsedOf(
	ctx: IPollFunctions,
	stored: INodeExecutionData,
	fileReference: string,
	settings: ParseSettings,
): Promise<INodeExecutionData[]> {
	const data = stored.binary![settings.binaryPropertyName];
	const fileName = (stored.json.fileName as string | undefined) ?? data.fileName ?? null;
	return await parsedItems(ctx, stored, { fileReference, fileName }, settings, 'Bank File Trigger');
}

const parse: FileOutput = {
	option: {
		name: 'Parsed Entries (Download and Parse)',
		value: 'parse',
		description:
			'Download each new file and parse it as the Bank File node does (camt.052, camt.053, camt.054, MT940, MT942, BAI2, pain.002, TITO, KTL): one item per entry or payment status, the statements, then the file itself. Downloading marks the file as downloaded at the bank.',
	},
	downloads: true,
	async emit(ctx, service, file, settings) {
		const fetched = await binary.emit(ctx, service, file, settings);
		if (!fetched) return undefined;
		return await parsedOf(ctx, fetched[0], file.fileReference, settings);
	},
};

export const FILE_OUTPUTS = { binary, report, parse } satisfies Record<string, FileOutput>;

export type OutputMode = keyof typeof FILE_OUTPUTS;

export const OUTPUT_MODE_OPTIONS: INodePropertyOptions[] = Object.values(FILE_OUTPUTS).map(
	(mode) => mode.option,
);

export function isOutputMode(value: string): value is OutputMode {
	return Object.prototype.hasOwnProperty.call(FILE_OUTPUTS, value);
}
