import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ServiceContext } from '../fileService';
import { binaryItem, unpackedContent } from './binaryOutput';
import { descriptorJson, exchange, fileTypeParam, readOptions, responseSummary, textParam } from './common';

/**
 * Download File: the file as binary data (unpacked when the bank compressed it) and its
 * descriptor as JSON. No item when the bank has no such file (code 24).
 */
export async function downloadFile(ctx: IExecuteFunctions, itemIndex: number, service: ServiceContext): Promise<INodeExecutionData[]> {
	const fileReference = textParam(ctx, 'fileReference', itemIndex);
	if (!fileReference) throw new NodeOperationError(ctx.getNode(), 'File Reference is empty', { itemIndex });
	const propertyName = textParam(ctx, 'binaryPropertyName', itemIndex) ?? 'data';
	const options = readOptions(ctx, itemIndex);
	const fileType = fileTypeParam(ctx, itemIndex);
	const result = await exchange(
		ctx,
		itemIndex,
		service,
		'downloadFile',
		{
			fileReferences: [fileReference],
			fileType,
			targetId: textParam(ctx, 'targetId', itemIndex),
			...(options.requestCompression ? { compression: true, compressionMethod: 'GZIP' } : {}),
		},
		options,
	);
	const response = result.applicationResponse;
	if (result.noData || !response) return [];
	const content = unpackedContent(ctx, itemIndex, response);
	if (!content) {
		throw new NodeOperationError(ctx.getNode(), `Download file: the bank answered code ${result.code} but sent no file content`, { itemIndex });
	}
	const descriptor = response.fileDescriptors.find((d) => d.fileReference === fileReference) ?? response.fileDescriptors[0];
	return [
		await binaryItem(
			ctx,
			itemIndex,
			content,
			{ userFilename: descriptor?.userFilename, fileReference, fileType: descriptor?.fileType ?? response.fileType ?? fileType },
			propertyName,
			{
				...descriptorJson(descriptor),
				fileReference,
				...responseSummary(result),
				compressed: response.compressed === true,
				...(response.compressed ? { compressionMethod: response.compressionMethod ?? 'GZIP' } : {}),
			},
		),
	];
}
