import type { INodeProperties } from 'n8n-workflow';

import {
	canonicalizationOption,
	endpointOption,
	fileTypeLocator,
	requestCompressionOption,
	timeoutOption,
} from '../shared/bxd/node/sharedProperties';
import { parseOptionsProperty } from '../shared/delivery';
import { optionsCollection } from '../shared/common/properties';
import { OUTPUT_MODE_OPTIONS } from './files/outputs';

export const DEFAULTS = {
	maxFilesPerPoll: 25,
	lookBackDays: 7,
	rememberFiles: 10000,
} as const;

export const bankFileTriggerProperties: INodeProperties[] = [
	{
		displayName:
			'Every file that arrives at the bank is emitted once, even when a run fails after the download. The first poll after the workflow is published only notes which files the bank already handed out; new files follow from the next poll.',
		name: 'deliveryNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'File Types',
		name: 'fileTypes',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add File Type',
		default: {},
		description: 'Only files of these types, for example XT or camt.053.001.02. None: every type.',
		options: [
			{
				displayName: 'File Type',
				name: 'types',
				values: [{ ...fileTypeLocator, description: 'A file type code of your bank' }],
			},
		],
	},
	{
		displayName: 'Target ID',
		name: 'targetId',
		type: 'string',
		default: '',
		description: 'Only files in this target folder, for banks that use them',
	},
	{
		displayName: 'Service ID',
		name: 'serviceId',
		type: 'string',
		default: '',
		description: 'Only files of this service (for example one account)',
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		noDataExpression: true,
		options: OUTPUT_MODE_OPTIONS,
		default: 'binary',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		hint: 'The name of the output binary field to put the file in',
		displayOptions: { show: { output: ['binary', 'parse'] } },
	},
	parseOptionsProperty,
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
			endpointOption,
			{
				displayName: 'Look-Back Days',
				name: 'lookBackDays',
				type: 'number',
				default: 7,
				description:
					'How many days back every poll also lists the files already downloaded, to find a file that was downloaded but never reached the workflow',
			},
			{
				displayName: 'Remember Files',
				name: 'rememberFiles',
				type: 'number',
				default: 10000,
				description:
					'How many file references are remembered as emitted. Keep it above the number of files the bank lists in the look-back window.',
			},
			{ ...requestCompressionOption, displayOptions: { show: { '/output': ['binary', 'parse'] } } },
			canonicalizationOption,
			timeoutOption,
		],
		{ placeholder: 'Add Option' },
	),
];
