import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { gzip, gzipStream } from '../../shared/bxd';
import type { ServiceContext } from '../fileService';
import { descriptorJson, exchange, fileTypeParam, readOptions, responseSummary, textParam } from './common';

/** Keeps a default file name within the schema's 80 characters, extension included. */
function fitFilename(name: string): string {
	if (name.length <= 80) return name;
	const dot = name.lastIndexOf('.');
	const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
	return name.slice(0, 80 - extension.length) + extension;
}

/**
 * Upload File: sends the input item's binary file (gzipped unless Compress is off) and returns the
 * bank's result with the file reference it gave the file.
 */
export async function uploadFile(ctx: IExecuteFunctions, itemIndex: number, service: ServiceContext): Promise<INodeExecutionData[]> {
	const node = ctx.getNode();
	const propertyName = textParam(ctx, 'binaryPropertyName', itemIndex) ?? 'data';
	const fileType = fileTypeParam(ctx, itemIndex);
	if (!fileType) throw new NodeOperationError(node, 'File Type is empty: the bank needs to know what kind of file this is', { itemIndex });
	const options = readOptions(ctx, itemIndex);
	const binaryData = ctx.helpers.assertBinaryData(itemIndex, propertyName);

	let content: Buffer;
	let fileSize: number;
	if (options.compress) {
		if (binaryData.id) {
			const packed = await gzipStream(await ctx.helpers.getBinaryStream(binaryData.id));
			content = packed.compressed;
			fileSize = packed.inputBytes;
		} else {
			const raw = await ctx.helpers.getBinaryDataBuffer(itemIndex, propertyName);
			content = gzip(raw);
			fileSize = raw.length;
		}
	} else {
		content = await ctx.helpers.getBinaryDataBuffer(itemIndex, propertyName);
		fileSize = content.length;
	}
	if (fileSize === 0) throw new NodeOperationError(node, `The file in the binary field "${propertyName}" is empty`, { itemIndex });

	const userFilename = textParam(ctx, 'userFilename', itemIndex) ?? (binaryData.fileName ? fitFilename(binaryData.fileName) : undefined);
	const result = await exchange(
		ctx,
		itemIndex,
		service,
		'uploadFile',
		{
			fileType,
			targetId: textParam(ctx, 'targetId', itemIndex),
			userFilename,
			content,
			...(options.compress ? { compression: true, compressionMethod: 'GZIP' } : {}),
		},
		options,
	);
	const descriptor = result.applicationResponse?.fileDescriptors[0];
	return [
		{
			json: {
				...descriptorJson(descriptor),
				fileReference: descriptor?.fileReference ?? null,
				fileType: descriptor?.fileType ?? fileType,
				...(userFilename ? { userFilename: descriptor?.userFilename ?? userFilename } : {}),
				...responseSummary(result),
				fileSize,
				compressed: options.compress,
				signed: !!service.settings.signing,
			},
			pairedItem: { item: itemIndex },
		},
	];
}
