/**
 * What the trigger emits for one bank file. Each output mode is one entry of FILE_OUTPUTS: its
 * choice in the Output parameter and the function that turns one listed file into items. The
 * poll does the bookkeeping around it (which files are due, remembering each file once all its
 * items are made), so a new mode is one more entry here. A mode that reads the file's content
 * downloads it with `fetchFile`, sets `downloads: true`, and returns the items of that one file
 * (Parsed Entries: one item per entry, then the file itself).
 */
import type { Readable } from 'node:stream';

import type {
	IBinaryData,
	IDataObject,
	INodeExecutionData,
	INodePropertyOptions,
	IPollFunctions,
} from 'n8n-workflow';
import { BINARY_ENCODING } from 'n8n-workflow';

import { BankFileError, parseBankFile } from '../../shared/bankfiles';

import type { FileDescriptor } from '../../shared/bxd';
import { descriptorJson, fetchFile } from '../../CorporateFileService/helpers/bankFiles';
import type { ServiceContext } from '../../CorporateFileService/helpers/serviceContext';
import type { FileTriggerSettings } from './settings';

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
		settings: FileTriggerSettings,
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
 * The file's content: read back from n8n's binary storage as a stream, or the bytes held in the
 * item.
 */
async function contentOf(ctx: IPollFunctions, binary: IBinaryData): Promise<Buffer | Readable> {
	return binary.id
		? await ctx.helpers.getBinaryStream(binary.id)
		: Buffer.from(binary.data, BINARY_ENCODING);
}

/**
 * A parsed entry (or payment status) as an item: the parser's object itself with the kind and the
 * file added, not a copy, since a statement can have a hundred thousand of them.
 */
function tagged(
	value: object,
	kind: string,
	fileReference: string,
	fileName: string | null,
): IDataObject {
	const json = value as IDataObject;
	json.kind = kind;
	json.fileReference = fileReference;
	json.fileName = fileName;
	return json;
}

/**
 * The items of one file held in an item (its descriptor in the JSON, the file in the binary
 * field): one item per entry or payment status, the statements, then the file item with what was
 * found. A file that cannot be parsed is the file item alone, with the reason.
 */
export async function parsedItems(
	ctx: IPollFunctions,
	stored: INodeExecutionData,
	fileReference: string,
	settings: FileTriggerSettings,
): Promise<INodeExecutionData[]> {
	const data = stored.binary![settings.binaryPropertyName];
	const fileName = (stored.json.fileName as string | undefined) ?? data.fileName ?? null;
	const of = { fileReference, fileName };
	const items: INodeExecutionData[] = [];
	const counts = { entries: 0, paymentStatuses: 0, statements: 0, warnings: 0 };
	let format: string | null = null;
	try {
		for await (const event of parseBankFile(await contentOf(ctx, data), settings.parse)) {
			switch (event.type) {
				case 'format':
					format = event.format.messageType;
					break;
				case 'entry':
					counts.entries++;
					items.push({ json: tagged(event.entry, 'entry', fileReference, fileName) });
					break;
				case 'paymentStatus':
					counts.paymentStatuses++;
					items.push({ json: tagged(event.status, 'paymentStatus', fileReference, fileName) });
					break;
				case 'statement':
					counts.statements++;
					items.push({
						json: { kind: 'statement', ...(event.statement as unknown as IDataObject), ...of },
					});
					break;
				case 'warning':
					counts.warnings++;
					items.push({
						json: { kind: 'warning', ...(event.warning as unknown as IDataObject), ...of },
					});
					break;
				default:
					break;
			}
		}
	} catch (error) {
		// A file that cannot be parsed is emitted once as it is, with the reason, so it is neither
		// lost nor retried forever; none of its entries are emitted (a half-read file would look
		// whole).
		const problem = error instanceof BankFileError ? error : undefined;
		ctx.logger.warn(
			`Bank File Trigger: file ${fileReference} could not be parsed: ${(error as Error).message}. It is emitted with the error.`,
		);
		return [
			{
				json: {
					kind: 'file',
					...stored.json,
					parsed: false,
					format,
					error: (error as Error).message,
					errorCode: problem?.code ?? null,
					errorLocation: problem?.location ?? null,
				},
				binary: stored.binary,
			},
		];
	}
	items.push({
		json: { kind: 'file', ...stored.json, parsed: true, format, ...counts },
		binary: stored.binary,
	});
	return items;
}

const parse: FileOutput = {
	option: {
		name: 'Parsed Entries (Download and Parse)',
		value: 'parse',
		description:
			'Download each new file and parse it as the Bank File node does (camt.052, camt.053, camt.054, MT940, MT942, pain.002, TITO, KTL): one item per entry or payment status, the statements, then the file itself. Downloading marks the file as downloaded at the bank.',
	},
	downloads: true,
	async emit(ctx, service, file, settings) {
		const fetched = await binary.emit(ctx, service, file, settings);
		if (!fetched) return undefined;
		return await parsedItems(ctx, fetched[0], file.fileReference, settings);
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
