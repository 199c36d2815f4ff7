import type { INodeProperties } from 'n8n-workflow';

import { fileTypeProperty } from './common';

const show = { mode: ['build'], operation: ['uploadFile'] };

export const uploadProperties: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the file to be uploaded',
		displayOptions: { show },
	},
	fileTypeProperty(
		['uploadFile'],
		true,
		"The bank's code for the kind of file, for example XL or pain.001.001.03 for payments",
	),
	{
		displayName: 'Target ID',
		name: 'targetId',
		type: 'string',
		default: '',
		description: "The bank's target folder for the file, when it uses them (see Get User Info)",
		displayOptions: { show },
	},
	{
		displayName: 'User Filename',
		name: 'userFilename',
		type: 'string',
		default: '',
		description: 'The file name shown at the bank. Empty: the file name of the binary data.',
		displayOptions: { show },
	},
];
