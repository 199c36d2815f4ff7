import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApplicationResponse, FileServiceResult, StreamedAnswer } from '../../shared/bxd';
import type { ServiceContext } from '../fileService';
import { sendForDownload, toNodeError } from '../fileService';
import type { FileOutputContext } from './binaryOutput';
import { binaryItem, encryptedError, streamedBinaryItem, unpackedContent } from './binaryOutput';
import type { CommonOptions } from './common';
import {
	descriptorJson,
	fileTypeParam,
	prepare,
	readOptions,
	responseSummary,
	textParam,
} from './common';

/** The file to download: its reference, and the type and target folder some banks want with it. */
export interface FileToFetch {
	fileReference: string;
	fileType?: string;
	targetId?: string;
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
	file: FileToFetch,
	options: FetchOptions,
): Promise<INodeExecutionData | undefined> {
	const { fileReference, fileType } = file;
	const { itemIndex, propertyName } = options;
	const prepared = prepare(
		ctx,
		itemIndex,
		service,
		'downloadFile',
		{
			fileReferences: [fileReference],
			fileType,
			targetId: file.targetId,
			...(options.requestCompression ? { compression: true, compressionMethod: 'GZIP' } : {}),
		},
		options,
	);
	const { reading, errorContext } = await sendForDownload(ctx, service, prepared, {
		itemIndex,
		endpoint: options.endpoint,
		timeoutMs: options.timeoutMs,
	});

	const itemJson = (
		result: Pick<FileServiceResult, 'code' | 'header' | 'applicationResponse'>,
		response: ApplicationResponse,
	): IDataObject => {
		const descriptor =
			response.fileDescriptors.find((d) => d.fileReference === fileReference) ??
			response.fileDescriptors[0];
		return {
			...descriptorJson(descriptor),
			fileReference,
			...responseSummary({ ...result, noData: false }),
			compressed: response.compressed === true,
			...(response.compressed ? { compressionMethod: response.compressionMethod ?? 'GZIP' } : {}),
		};
	};
	const namesOf = (response: ApplicationResponse) => {
		const descriptor =
			response.fileDescriptors.find((d) => d.fileReference === fileReference) ??
			response.fileDescriptors[0];
		return {
			userFilename: descriptor?.userFilename,
			fileReference,
			fileType: descriptor?.fileType ?? response.fileType ?? fileType,
		};
	};

	if (!reading.streamed) {
		const result = reading.result;
		const response = result.applicationResponse;
		if (result.noData || !response) return undefined;
		const content = unpackedContent(ctx, itemIndex, response);
		if (!content) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Download file: the bank answered code ${result.code} but sent no file content`,
				{ itemIndex },
			);
		}
		return await binaryItem(
			ctx,
			itemIndex,
			content,
			namesOf(response),
			propertyName,
			itemJson(result, response),
		);
	}

	const answer: StreamedAnswer = reading.answer;
	if (answer.noData) {
		answer.abort();
		return undefined;
	}
	if (answer.applicationResponse.encrypted) {
		answer.abort();
		throw encryptedError(ctx, itemIndex);
	}
	try {
		return await streamedBinaryItem(
			ctx,
			itemIndex,
			answer,
			namesOf(answer.applicationResponse),
			propertyName,
			(response) =>
				itemJson(
					{ code: answer.code, header: answer.header, applicationResponse: response },
					response,
				),
		);
	} catch (error) {
		answer.abort();
		throw toNodeError(ctx.getNode(), error, errorContext);
	}
}

/** Download File: the file named by the item's parameters; nothing when the bank has no such file (code 24). */
export async function downloadFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: ServiceContext,
): Promise<INodeExecutionData[]> {
	const fileReference = textParam(ctx, 'fileReference', itemIndex);
	if (!fileReference)
		throw new NodeOperationError(ctx.getNode(), 'File Reference is empty', { itemIndex });
	const item = await fetchFile(
		ctx,
		service,
		{
			fileReference,
			fileType: fileTypeParam(ctx, itemIndex),
			targetId: textParam(ctx, 'targetId', itemIndex),
		},
		{
			...readOptions(ctx, itemIndex),
			itemIndex,
			propertyName: textParam(ctx, 'binaryPropertyName', itemIndex) ?? 'data',
		},
	);
	return item ? [item] : [];
}
