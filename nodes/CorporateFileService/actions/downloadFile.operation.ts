import type { INodeProperties } from 'n8n-workflow';

import { fetchFile } from '../helpers/bankFiles';
import { namedFileParams, readOptions, textParam } from '../helpers/readParameters';
import type { FileServiceOperation } from '../helpers/serviceContext';
import {
	fileReferenceField,
	referenceFileTypeField,
	referenceTargetIdField,
} from '../helpers/sharedProperties';

const displayOptions = { show: { mode: ['build'], operation: ['downloadFile'] } };

export const description: INodeProperties[] = [
	{
		...fileReferenceField,
		description: "The bank's reference of the file, as List Files returns it",
		displayOptions,
	},
	{ ...referenceFileTypeField, displayOptions },
	{ ...referenceTargetIdField, displayOptions },
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions,
	},
];

/**
 * Download File: the file named by the item's parameters; nothing when the bank has no such file
 * (code 24).
 */
export const execute: FileServiceOperation = async (ctx, itemIndex, service) => {
	const item = await fetchFile(ctx, service, namedFileParams(ctx, itemIndex), {
		...readOptions(ctx, itemIndex),
		itemIndex,
		propertyName: textParam(ctx, 'binaryPropertyName', itemIndex) ?? 'data',
	});
	return item ? [item] : [];
};
