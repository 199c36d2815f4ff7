import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ServiceContext } from '../fileService';
import {
	descriptorJson,
	exchange,
	fileTypeParam,
	readOptions,
	responseSummary,
	textParam,
} from './common';

/** Delete File: the bank's result with the file reference; no item when the file is not there (code 24). */
export async function deleteFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: ServiceContext,
): Promise<INodeExecutionData[]> {
	const fileReference = textParam(ctx, 'fileReference', itemIndex);
	if (!fileReference)
		throw new NodeOperationError(ctx.getNode(), 'File Reference is empty', { itemIndex });
	const options = readOptions(ctx, itemIndex);
	const result = await exchange(
		ctx,
		itemIndex,
		service,
		'deleteFile',
		{
			fileReferences: [fileReference],
			fileType: fileTypeParam(ctx, itemIndex),
			targetId: textParam(ctx, 'targetId', itemIndex),
		},
		options,
	);
	if (result.noData) return [];
	const descriptor = result.applicationResponse?.fileDescriptors.find(
		(d) => d.fileReference === fileReference,
	);
	return [
		{
			json: {
				...descriptorJson(descriptor),
				fileReference,
				deleted: true,
				...responseSummary(result),
			},
			pairedItem: { item: itemIndex },
		},
	];
}
