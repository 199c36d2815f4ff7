import type { INodeProperties } from 'n8n-workflow';

import { SERVICE_PRESETS } from '../shared/ebics';
import { parseOptionsProperty } from '../shared/delivery';
import { optionsCollection } from '../shared/common/properties';
import {
	describeService,
	PRESET_ORDER,
	scopeNotice,
	typedServiceFields,
} from '../shared/ebics/node/services';

export const DEFAULTS = {
	services: ['camt053'],
	rememberFiles: 1000,
} as const;

/** The Output choices: each file as it is, or parsed by the Bank File parser. */
const OUTPUTS = [
	{
		name: 'Files',
		value: 'binary',
		description: 'Each new file as binary data, with the service and order it came from',
	},
	{
		name: 'Parsed Entries',
		value: 'parse',
		description:
			'Each new file parsed as the Bank File node does (camt.052, camt.053, camt.054, MT940, MT942, BAI2, pain.002): one item per entry or payment status, the statements, then the file itself',
	},
];

export const ebicsTriggerProperties: INodeProperties[] = [
	{
		displayName:
			"Every file the bank delivers is emitted once, even when a run fails after the download or n8n stops in the middle of a poll. The bank's positive receipt is sent with the next poll, once n8n has saved the files it started the workflow with.",
		name: 'deliveryNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Services',
		name: 'services',
		type: 'multiOptions',
		default: [...DEFAULTS.services],
		description:
			'The BTF services to watch for new data (BTD, what the bank has not delivered yet); with an EBICS 2.5 credential, their EBICS 2.5 order types',
		options: PRESET_ORDER.download.map((key) => ({
			name: SERVICE_PRESETS[key].label,
			value: key,
			description: describeService(SERVICE_PRESETS[key].service),
		})),
	},
	{
		displayName: 'Scope',
		name: 'scope',
		type: 'string',
		default: '',
		placeholder: 'DE',
		description:
			'BTF Scope the bank uses for the chosen services: a country code (DE for German banks under the DK rules, CH, FR, ...) or empty for the global definition',
	},
	scopeNotice('scope'),
	{
		displayName: 'Other Services',
		name: 'otherServices',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Service (Type Its BTF Parameters)',
		default: {},
		description:
			'Services the presets do not cover, with their BTF parameters as the bank documents them',
		options: [
			{
				displayName: 'Service',
				name: 'service',
				values: typedServiceFields(),
			},
		],
	},
	{
		// Named for no EBICS version: the panel cannot know the credential's (EBICS 3.0 leaves it empty).
		displayName: 'Order Types',
		name: 'h004OrderTypes',
		type: 'string',
		default: '',
		placeholder: 'CRZ, Z01 (EBICS 2.5 credentials only)',
		description:
			'Only for credentials whose EBICS Version is H004 (EBICS 2.5); an EBICS 3.0 credential leaves it empty and takes the services above. Further order types to watch, as the bank contract names them, separated by commas. The presets above are sent as their EBICS 2.5 order types (C53, C52, C54, STA, VMK).',
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		noDataExpression: true,
		options: OUTPUTS,
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
	optionsCollection(
		[
			{
				displayName: 'Remember Files',
				name: 'rememberFiles',
				type: 'number',
				default: 1000,
				description:
					'How many files (by their SHA-256) are remembered as emitted, to recognise a file the bank delivers again because its receipt did not reach it',
			},
		],
		{ placeholder: 'Add Option' },
	),
];
