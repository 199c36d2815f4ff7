import type { INodeProperties } from 'n8n-workflow';

import { fileTypeProperty } from './common';

const show = { mode: ['build'], operation: ['downloadFileList'] };

export const listProperties: INodeProperties[] = [
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: [
			{ name: 'All', value: 'ALL', description: 'Every file' },
			{ name: 'Downloaded', value: 'DLD', description: 'Files already downloaded' },
			{ name: 'New', value: 'NEW', description: 'Files not downloaded yet' },
		],
		default: 'NEW',
		description: 'Which files to list',
		displayOptions: { show },
	},
	fileTypeProperty(
		['downloadFileList'],
		false,
		'Only files of this type, for example XT or camt.053.001.02. Empty: every type.',
	),
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		typeOptions: { dateOnly: true },
		default: '',
		description: 'Only files from this day on. Empty: no lower limit.',
		displayOptions: { show },
	},
	{
		displayName: 'End Date',
		name: 'endDate',
		type: 'dateTime',
		typeOptions: { dateOnly: true },
		default: '',
		description: 'Only files up to this day. Empty: no upper limit.',
		displayOptions: { show },
	},
	{
		displayName: 'Target ID',
		name: 'targetId',
		type: 'string',
		default: '',
		description: 'Only files in this target folder',
		displayOptions: { show },
	},
	{
		displayName: 'Service ID',
		name: 'serviceId',
		type: 'string',
		default: '',
		description: 'Only files of this service (for example one account)',
		displayOptions: { show },
	},
];
