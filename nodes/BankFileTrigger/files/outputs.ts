/**
 * What the trigger emits for one bank file. Each output mode is one entry of FILE_OUTPUTS: its
 * choice in the Output parameter and the function that turns one listed file into items. The
 * poll does the bookkeeping around it (which files are due, remembering each file once all its
 * items are made), so a new mode is one more entry here. A mode that reads the file's content
 * (for example parsing statements into one item per entry) downloads it with `fetchFile` or its
 * streamed reading, sets `downloads: true`, and returns the items of that one file.
 */
import type { INodeExecutionData, INodePropertyOptions, IPollFunctions } from 'n8n-workflow';

import type { FileDescriptor } from '../../shared/bxd';
import type { ServiceContext } from '../../CorporateFileService/fileService';
import { descriptorJson } from '../../CorporateFileService/operations/common';
import { fetchFile } from '../../CorporateFileService/operations/downloadFile';
import type { FileTriggerSettings } from './settings';

export interface FileOutput {
	option: INodePropertyOptions;
	/** Whether the mode downloads the file, which the bank then marks as downloaded (DLD). */
	downloads: boolean;
	/**
	 * The items for one file. Undefined when the bank no longer has the file (code 24): it is then
	 * not remembered and not emitted. Any error stops the poll before this file.
	 */
	emit(ctx: IPollFunctions, service: ServiceContext, file: FileDescriptor & { fileReference: string }, settings: FileTriggerSettings): Promise<INodeExecutionData[] | undefined>;
}

const binary: FileOutput = {
	option: {
		name: 'Files (Download)',
		value: 'binary',
		description: "Download each new file as binary data with its descriptor. Downloading marks the file as downloaded at the bank.",
	},
	downloads: true,
	async emit(ctx, service, file, settings) {
		const item = await fetchFile(
			ctx,
			service,
			{ fileReference: file.fileReference, fileType: file.fileType, targetId: file.targetId ?? settings.targetId },
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
		description: 'Emit what the bank says about each new file (reference, type, name, date, amounts) without downloading it',
	},
	downloads: false,
	async emit(_ctx, _service, file) {
		return [{ json: descriptorJson(file) }];
	},
};

export const FILE_OUTPUTS = { binary, report } satisfies Record<string, FileOutput>;

export type OutputMode = keyof typeof FILE_OUTPUTS;

export const OUTPUT_MODE_OPTIONS: INodePropertyOptions[] = Object.values(FILE_OUTPUTS).map((mode) => mode.option);

export function isOutputMode(value: string): value is OutputMode {
	return Object.prototype.hasOwnProperty.call(FILE_OUTPUTS, value);
}
