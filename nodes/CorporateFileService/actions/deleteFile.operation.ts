import type { INodeProperties } from 'n8n-workflow';

import { descriptorJson, responseSummary } from '../../shared/bxd/node/bankFiles';
import { namedFileParams, readOptions } from '../../shared/bxd/node/readParameters';
import { exchange } from '../../shared/bxd/node/request';
import type { FileServiceOperation } from '../../shared/bxd/node/serviceContext';
import {
	fileReferenceField,
	referenceFileTypeField,
	referenceTargetIdField,
} from '../../shared/bxd/node/sharedProperties';

const displayOptions = { show: { mode: ['build'], operation: ['deleteFile'] } };

export const description: INodeProperties[] = [
	{
		...fileReferenceField,
		description: "The bank's reference of the file to delete",
		displayOptions,
	},
	{ ...referenceFileTypeField, displayOptions },
	{ ...referenceTargetIdField, displayOptions },
];

/**
 * Delete File: the bank's result with the file reference; no item when the file is not there
 * (code 24).
 */
export const execute: FileServiceOperation = async (ctx, itemIndex, service) => {
	const file = namedFileParams(ctx, itemIndex);
	const result = await exchange(
		ctx,
		service,
		'deleteFile',
		itemIndex,
		{ fileReferences: [file.fileReference], fileType: file.fileType, targetId: file.targetId },
		readOptions(ctx, itemIndex),
	);
	if (result.noData) return [];
	const descriptor = result.applicationResponse?.fileDescriptors.find(
		(d) => d.fileReference === file.fileReference,
	);
	return [
		{
			json: {
				...descriptorJson(descriptor),
				fileReference: file.fileReference,
				deleted: true,
				...responseSummary(result),
			},
			pairedItem: { item: itemIndex },
		},
	];
};
