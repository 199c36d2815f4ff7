/**
 * The files at the bank as items: listing them, downloading one (whole or as a stream into n8n's
 * binary storage), and the JSON every item carries. Used by the operations and by the Bank File
 * Trigger.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type {
	ApplicationResponse,
	FileDescriptor,
	FileServiceResult,
	PreparedRequest,
} from '../index';
import { InputError } from '../../common/errors';
import type { BankContext } from '../../transport/request';
import type { FileNames, FileOutputContext } from '../../common/binaryOutput';
import { binaryItem } from '../../common/binaryOutput';
import { encryptedError, streamedBinaryItem, unpackedContent } from './binaryOutput';
import { fileServiceFailure } from './failures';
import type { CommonOptions, NamedFile } from './readParameters';
import type { SendOptions } from './request';
import { exchange, prepare, sendForDownload } from './request';
import type { ServiceContext } from './serviceContext';

/** The response summary every operation adds to its items. */
export function responseSummary(result: FileServiceResult): IDataObject {
	const ar = result.applicationResponse;
	const summary: IDataObject = {
		responseCode: result.code,
		responseText: ar?.responseText ?? result.header.responseText ?? null,
	};
	if (ar?.amountTotal !== undefined) summary.amountTotal = ar.amountTotal;
	if (ar?.transactionCount !== undefined) summary.transactionCount = ar.transactionCount;
	if (ar?.executionSerial !== undefined) summary.executionSerial = ar.executionSerial;
	return summary;
}

export function descriptorJson(descriptor: FileDescriptor | undefined): IDataObject {
	return descriptor ? ({ ...descriptor } as IDataObject) : {};
}

/** What a file list asks the bank for (every field optional but the status). */
export interface FileListQuery {
	/** NEW, DLD, ALL or another status the bank knows. */
	status: string;
	fileType?: string;
	/** YYYY-MM-DD */
	startDate?: string;
	/** YYYY-MM-DD */
	endDate?: string;
	targetId?: string;
	serviceId?: string;
}

/**
 * The files the bank offers (downloadFileList), as typed descriptors; none when it has none
 * (code 24). Used by List Files and by the Bank File Trigger.
 */
export async function listFiles(
	ctx: BankContext,
	service: ServiceContext,
	query: FileListQuery,
	options: CommonOptions,
	itemIndex = 0,
): Promise<FileDescriptor[]> {
	const result = await exchange(ctx, service, 'downloadFileList', itemIndex, { ...query }, options);
	if (result.noData) return [];
	return result.applicationResponse?.fileDescriptors ?? [];
}

/** The code and header of an answer, read whole or streamed. */
type AnswerHead = Pick<FileServiceResult, 'code' | 'header'>;

/** How a download answer becomes an item. */
export interface FileItemSpec {
	/** The binary field the file goes into. */
	propertyName: string;
	/** What the stored file is named after. */
	names(response: ApplicationResponse): FileNames;
	/** The item's JSON, once the whole answer has been read and checked. */
	json(answer: AnswerHead, response: ApplicationResponse): IDataObject;
	/** What an answer read whole without a file gives: an item, nothing, or an error. */
	withoutFile(result: FileServiceResult): INodeExecutionData | undefined;
	/** Whether an answer saying the bank has no such file (code 24) gives nothing. */
	noDataIsEmpty: boolean;
}

/** The item of an answer read whole: its Content (unpacked) as binary data. */
export async function wholeAnswerItem(
	ctx: FileOutputContext,
	itemIndex: number,
	result: FileServiceResult,
	spec: FileItemSpec,
): Promise<INodeExecutionData | undefined> {
	if (spec.noDataIsEmpty && result.noData) return undefined;
	const response = result.applicationResponse;
	const content = response && unpackedContent(itemIndex, response);
	if (!response || !content) return spec.withoutFile(result);
	return await binaryItem(
		ctx,
		itemIndex,
		content,
		spec.names(response),
		spec.propertyName,
		spec.json(result, response),
	);
}

/**
 * Sends a prepared downloadFile request and makes the item of the file it brings. A small answer
 * is read whole; a larger one is judged up to its Content, and the file goes to n8n's binary
 * storage as a stream while the rest of the answer is checked.
 */
export async function downloadItem(
	ctx: FileOutputContext,
	service: ServiceContext,
	prepared: PreparedRequest,
	options: SendOptions,
	spec: FileItemSpec,
): Promise<INodeExecutionData | undefined> {
	const { itemIndex } = options;
	const { reading, errorContext } = await sendForDownload(ctx, service, prepared, options);
	if (!reading.streamed) return await wholeAnswerItem(ctx, itemIndex, reading.result, spec);

	const answer = reading.answer;
	if (spec.noDataIsEmpty && answer.noData) {
		answer.abort();
		return undefined;
	}
	if (answer.applicationResponse.encrypted) {
		answer.abort();
		throw encryptedError(itemIndex);
	}
	try {
		return await streamedBinaryItem(
			ctx,
			itemIndex,
			answer,
			spec.names(answer.applicationResponse),
			spec.propertyName,
			(response) => spec.json(answer, response),
		);
	} catch (error) {
		answer.abort();
		throw fileServiceFailure(error, errorContext);
	}
}

export interface FetchOptions extends CommonOptions {
	/** The binary field the file goes into. */
	propertyName: string;
	/** The input item the output item is paired with. */
	itemIndex: number;
}

/**
 * Downloads one file (downloadFile) as an item: the file as binary data, unpacked when the bank
 * compressed it, and its descriptor as JSON. Undefined when the bank has no such file (code 24).
 * A large answer is read as it arrives and the file goes to n8n's binary storage as a stream.
 * Used by Download File and by the Bank File Trigger.
 */
export async function fetchFile(
	ctx: FileOutputContext,
	service: ServiceContext,
	file: NamedFile,
	options: FetchOptions,
): Promise<INodeExecutionData | undefined> {
	const { fileReference, fileType } = file;
	const { itemIndex } = options;
	const prepared = await prepare(
		service,
		'downloadFile',
		itemIndex,
		{
			fileReferences: [fileReference],
			fileType,
			targetId: file.targetId,
			...(options.requestCompression ? { compression: true, compressionMethod: 'GZIP' } : {}),
		},
		options,
	);
	const descriptorOf = (response: ApplicationResponse) =>
		response.fileDescriptors.find((d) => d.fileReference === fileReference) ??
		response.fileDescriptors[0];
	return await downloadItem(
		ctx,
		service,
		prepared,
		{ itemIndex, endpoint: options.endpoint, timeoutMs: options.timeoutMs },
		{
			propertyName: options.propertyName,
			names: (response) => ({
				userFilename: descriptorOf(response)?.userFilename,
				fileReference,
				fileType: descriptorOf(response)?.fileType ?? response.fileType ?? fileType,
			}),
			json: (answer, response) => ({
				...descriptorJson(descriptorOf(response)),
				fileReference,
				...responseSummary({
					code: answer.code,
					header: answer.header,
					applicationResponse: response,
					noData: false,
				}),
				compressed: response.compressed === true,
				...(response.compressed ? { compressionMethod: response.compressionMethod ?? 'GZIP' } : {}),
			}),
			withoutFile: (result) => {
				if (!result.applicationResponse) return undefined;
				throw new InputError(
					`Download file: the bank answered code ${result.code} but sent no file content`,
					{ itemIndex },
				);
			},
			noDataIsEmpty: true,
		},
	);
}
