import type { INodeProperties } from 'n8n-workflow';

import { parseOptionsProperty } from '../shared/delivery';
import { optionsCollection } from '../shared/common/properties';

export const DEFAULTS = { maxFilesPerPoll: 25, rememberFiles: 10000 } as const;

export const bankSftpTriggerProperties: INodeProperties[] = [
	{
		displayName:
			'Every file the bank puts in the incoming folder is emitted once. With After Delivery Leave the File, the first poll after the workflow is published only notes the files already there; with Move or Delete, the files there are taken. A file is emitted once its size and time are the same in two polls in a row, so a file the bank is still writing is never taken.',
		name: 'deliveryNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Files',
				value: 'binary',
				description:
					'Each new file as binary data (decrypted and verified when chosen) with its name, size and time',
			},
			{
				name: 'Parsed Entries',
				value: 'parse',
				description:
					'Each new file parsed as the Bank File node does: one item per entry or payment status, the statements, then the file itself',
			},
		],
		default: 'binary',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		hint: 'The name of the output binary field to put the file in',
	},
	parseOptionsProperty,
	{
		displayName: 'Decrypt and Verify',
		name: 'decrypt',
		type: 'boolean',
		default: true,
		description:
			"Whether to decrypt each file with your OpenPGP key and verify the bank's signature. A file that fails is not emitted and stays at the bank; the log says why.",
	},
	{
		displayName: 'Allow Unsigned Files',
		name: 'allowUnsigned',
		type: 'boolean',
		default: false,
		displayOptions: { show: { decrypt: [true] } },
		description: 'Whether to accept files the bank did not sign',
	},
	{
		displayName: 'After Delivery',
		name: 'afterDelivery',
		type: 'options',
		options: [
			{
				name: 'Leave the File',
				value: 'leave',
				description: 'The trigger remembers it and never emits it again',
			},
			{
				name: 'Move to the Archive Folder',
				value: 'move',
				description: 'Moved once n8n holds the file for good (at the next poll)',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Deleted once n8n holds the file for good (at the next poll)',
			},
		],
		default: 'leave',
	},
	{
		displayName: 'Max Files per Poll',
		name: 'maxFilesPerPoll',
		type: 'number',
		default: 25,
		description:
			'At most this many files are emitted by one poll; the rest follow with the next polls',
	},
	optionsCollection(
		[
			{
				displayName: 'Folder',
				name: 'folder',
				type: 'string',
				default: '',
				description: "The folder to watch. Empty: the credential's Incoming Folder.",
			},
			{
				displayName: 'Archive Folder',
				name: 'archiveFolder',
				type: 'string',
				default: '',
				description: "Where After Delivery moves files. Empty: the credential's Archive Folder.",
			},
			{
				displayName: 'File Name Pattern',
				name: 'pattern',
				type: 'string',
				default: '',
				placeholder: '\\.xml(\\.pgp)?$',
				description: 'Only files whose name matches this regular expression. Empty: every file.',
			},
			{
				displayName: 'Wait for Files to Settle',
				name: 'settle',
				type: 'boolean',
				default: true,
				description:
					'Whether to emit a file only when its size and time are the same in two polls in a row. Off: at the first poll that sees it (for banks that write under a temporary name and rename).',
			},
			{
				displayName: 'Remember Files',
				name: 'rememberFiles',
				type: 'number',
				default: 10000,
				description:
					'How many delivered files are remembered. Keep it above the number of files left in the folder.',
			},
		],
		{ placeholder: 'Add Option' },
	),
];
