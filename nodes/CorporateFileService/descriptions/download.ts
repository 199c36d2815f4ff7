import type { INodeProperties } from 'n8n-workflow';

import { fileReferenceProperties } from './common';

const show = { mode: ['build'], operation: ['downloadFile'] };

export const downloadProperties: INodeProperties[] = [
	...fileReferenceProperties(
		'downloadFile',
		"The bank's reference of the file, as List Files returns it",
	),
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions: { show },
	},
];
