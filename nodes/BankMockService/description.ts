import type { INodeProperties } from 'n8n-workflow';

import { executionProperties } from '../shared/fx/execution/description';
import { reportProperties } from '../shared/fx/report/description';
import { caCertificateField } from '../shared/common/credentialFields';
import { EXECUTION_PATH, REPORT_PATH } from '../shared/fx/api';

/**
 * The mock APIs the bank publishes, with their default version and name (the API Version and API
 * Name fields below repeat them as literals, which n8n's lint requires of a default).
 */
export const MOCK_APIS = {
	report: { version: '1.0.0', name: 'fx-open-and-historical-trades-api', path: REPORT_PATH },
	execution: { version: '1.0.1', name: 'fx-trade-execution-api', path: EXECUTION_PATH },
} as const;

export type MockApi = keyof typeof MOCK_APIS;

/**
 * Which parameter chooses the API: `api` in version 1 of the node, `resource` from version 2 (the
 * name n8n's node panel reads to list each API's operations as actions). Saved version 1 nodes
 * keep their `api`.
 */
const API_SELECTORS = ['api', 'resource'] as const;

/**
 * Fields shown only for one API: each field twice, once for each version's selector, with the
 * API's value joining the field's display conditions.
 */
function forApi(api: MockApi, properties: INodeProperties[]): INodeProperties[] {
	return API_SELECTORS.flatMap((selector) =>
		properties.map((property) => ({
			...property,
			displayOptions: {
				...property.displayOptions,
				show: {
					[selector]: [api],
					// Version 1 only, whatever `api` a later version's parameters may hold. (The
					// `resource` fields carry no version: n8n's panel lists the operations of a
					// resource only when they name no version or the node's own.)
					...(selector === 'api' ? { '@version': [1] } : {}),
					...property.displayOptions?.show,
				},
			},
		})),
	);
}

const apiOptions = [
	{ name: 'FX Trade Report', value: 'report' },
	{ name: 'FX Trade Execution', value: 'execution' },
];

export const mockProperties: INodeProperties[] = [
	{
		displayName: 'Mock Base URL',
		name: 'mockBaseUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://mock.bank.example',
		description:
			"The host of the bank's mock service. Requests go to {Mock Base URL}/mock/sandbox/{API Version}/{API Name}/{operation path}.",
	},
	{
		displayName: 'API',
		name: 'api',
		type: 'options',
		noDataExpression: true,
		options: apiOptions,
		default: 'report',
		displayOptions: { show: { '@version': [1] } },
	},
	{
		displayName: 'API',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: apiOptions,
		default: 'report',
		displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
	},
	...forApi('report', [
		{ displayName: 'API Version', name: 'apiVersion', type: 'string', default: '1.0.0' },
		{
			displayName: 'API Name',
			name: 'apiName',
			type: 'string',
			default: 'fx-open-and-historical-trades-api',
		},
	]),
	...forApi('execution', [
		{ displayName: 'API Version', name: 'apiVersion', type: 'string', default: '1.0.1' },
		{ displayName: 'API Name', name: 'apiName', type: 'string', default: 'fx-trade-execution-api' },
	]),
	{
		displayName: 'Connection',
		name: 'connection',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			caCertificateField("the mock service's TLS certificate"),
			{
				displayName: 'Ignore SSL Issues (Insecure)',
				name: 'allowUnauthorizedCerts',
				type: 'boolean',
				default: false,
				description: 'Whether to connect even if SSL certificate validation is not possible',
			},
			{
				displayName: 'Timeout (Ms)',
				name: 'timeoutMs',
				type: 'number',
				default: 30000,
				description: 'How long to wait for each answer',
			},
		],
	},
	{
		displayName:
			'Certificate verification is off: anyone on the network path can read and change what is sent to and answered by the mock service. Use it only against a local test server.',
		name: 'allowUnauthorizedCertsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { 'connection.allowUnauthorizedCerts': [true] } },
	},
	...forApi('report', reportProperties),
	...forApi(
		'execution',
		executionProperties.filter((p) => p.name !== 'allowAiAgentUse'),
	),
	{
		displayName: 'Random Errors',
		name: 'errorHandling',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		description:
			'The mock service answers with random errors on purpose; these settings decide how they are survived',
		options: [
			{
				displayName: 'Attempts',
				name: 'attempts',
				type: 'number',
				default: 5,
				description: 'How many times a request is sent before giving up (1 = no retry)',
			},
			{
				displayName: 'Backoff (Ms)',
				name: 'baseDelayMs',
				type: 'number',
				default: 200,
				description: 'Wait before the first retry; it doubles each time, with random jitter',
			},
			{
				displayName: 'Fallback JSON',
				name: 'fallbackJson',
				type: 'json',
				default: '{}',
				description: 'The item to output for a request that still fails after every attempt',
				displayOptions: { show: { fallback: ['fallbackJson'] } },
			},
			{
				displayName: 'Max Backoff (Ms)',
				name: 'maxDelayMs',
				type: 'number',
				default: 3000,
			},
			{
				displayName: 'When Retries Run Out',
				name: 'fallback',
				type: 'options',
				options: [
					{ name: 'Fail the Node', value: 'fail' },
					{ name: 'Output an Error Item', value: 'errorItem' },
					{ name: 'Output Fallback JSON', value: 'fallbackJson' },
				],
				default: 'fail',
			},
		],
	},
];
