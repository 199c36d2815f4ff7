import type { INodeProperties } from 'n8n-workflow';

import { fileTypeProperty } from './common';

const show = { mode: ['build'], operation: ['downloadFile'] };

export const downloadProperties: INodeProperties[] = [
	{
		displayName: 'File Reference',
		name: 'fileReference',
		type: 'string',
		default: '',
		required: true,
		placeholder: '={{ $json.fileReference }}',
		description: 'The bank\'s reference of the file, as List Files returns it',
		displayOptions: { show },
	},
	fileTypeProperty(['downloadFile'], false, 'The file\'s type, for banks that ask for it with the reference'),
	{
		displayName: 'Target ID',
		name: 'targetId',
		type: 'string',
		default: '',
		description: 'The target folder of the file, for banks that ask for it',
		displayOptions: { show },
	},
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
