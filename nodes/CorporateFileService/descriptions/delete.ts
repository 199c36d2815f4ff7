import type { INodeProperties } from 'n8n-workflow';

import { fileTypeProperty } from './common';

const show = { mode: ['build'], operation: ['deleteFile'] };

export const deleteProperties: INodeProperties[] = [
	{
		displayName: 'File Reference',
		name: 'fileReference',
		type: 'string',
		default: '',
		required: true,
		placeholder: '={{ $json.fileReference }}',
		description: 'The bank\'s reference of the file to delete',
		displayOptions: { show },
	},
	fileTypeProperty(['deleteFile'], false, 'The file\'s type, for banks that ask for it with the reference'),
	{
		displayName: 'Target ID',
		name: 'targetId',
		type: 'string',
		default: '',
		description: 'The target folder of the file, for banks that ask for it',
		displayOptions: { show },
	},
];
