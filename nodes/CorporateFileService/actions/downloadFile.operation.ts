import type { INodeProperties } from 'n8n-workflow';

import { fetchFile } from '../../shared/bxd/node/bankFiles';
import { namedFileParams, readOptions, textParam } from '../../shared/bxd/node/readParameters';
import type { FileServiceOperation } from '../../shared/bxd/node/serviceContext';
import {
	fileReferenceField,
	referenceFileTypeField,
	referenceTargetIdField,
} from '../../shared/bxd/node/sharedProperties';
import { outputFileField } from '../../shared/common/properties';

const displayOptions = { show: { mode: ['build'], operation: ['downloadFile'] } };

export const description: INodeProperties[] = [
	{
		...fileReferenceField,
		description: "The bank's reference of the file, as List Files returns it",
		displayOptions,
	},
	{ ...referenceFileTypeField, displayOptions },
	{ ...referenceTargetIdField, displayOptions },
	outputFileField(displayOptions),
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
