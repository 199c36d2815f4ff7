/**
 * Tiny node and credential types used to test the harness itself.
 */
import {
	NodeApiError,
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type IPollFunctions,
	type JsonObject,
} from 'n8n-workflow';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

import { nodeDescription } from './node-types';

export const API_BASE = 'https://api.harness.test';
export const AUTH_BASE = 'https://auth.harness.test';
export const EVENTS_BASE = 'https://events.harness.test';

export const NODE_PREFIX = 'n8n-nodes-harness';
export const API_CALL_TYPE = `${NODE_PREFIX}.apiCall`;
export const ECHO_TYPE = `${NODE_PREFIX}.echo`;
export const BINARY_TYPE = `${NODE_PREFIX}.binary`;
export const POLL_TYPE = `${NODE_PREFIX}.pollEvents`;

/** Client-credentials style API: the access token is fetched by preAuthentication and cached. */
export class HarnessTokenApi implements ICredentialType {
	name = 'harnessTokenApi';

	displayName = 'Harness Token API';

	properties: ICredentialType['properties'] = [
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: API_BASE },
		{ displayName: 'Token URL', name: 'tokenUrl', type: 'string', default: `${AUTH_BASE}/token` },
		{ displayName: 'Client ID', name: 'clientId', type: 'string', default: '' },
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Scope', name: 'scope', type: 'string', default: 'read' },
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true },
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const response = (await this.helpers.httpRequest({
			method: 'POST',
			url: credentials.tokenUrl as string,
			body: {
				grant_type: 'client_credentials',
				client_id: credentials.clientId,
				client_secret: credentials.clientSecret,
				scope: credentials.scope,
			},
			json: true,
		})) as { access_token: string };
		return { accessToken: response.access_token };
	}

	authenticate: ICredentialType['authenticate'] = {
		type: 'generic',
		properties: {
			headers: { Authorization: '=Bearer {{$credentials.accessToken}}' },
			qs: { client: '={{$credentials.clientId}}' },
		},
	};
}

/** Static key added by an authenticate function. */
export class HarnessApiKey implements ICredentialType {
	name = 'harnessApiKey';

	displayName = 'Harness API Key';

	properties: ICredentialType['properties'] = [
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: API_BASE },
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Header Name', name: 'headerName', type: 'string', default: 'X-Api-Key' },
	];

	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => ({
		...requestOptions,
		headers: {
			...requestOptions.headers,
			[credentials.headerName as string]: credentials.apiKey as string,
		},
	});
}

/** An options parameter of [name, value] choices; the first is the default. */
function choice(
	displayName: string,
	name: string,
	choices: Array<[string, string]>,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'options',
		options: choices.map(([label, value]) => ({ name: label, value })),
		default: choices[0][1],
	};
}

/** GETs `path` for each item with the chosen credential and returns the JSON body. */
export class ApiCall implements INodeType {
	description = nodeDescription(API_CALL_TYPE, 'Api Call', {
		credentials: [
			{
				name: 'harnessTokenApi',
				required: true,
				displayOptions: { show: { authentication: ['token'] } },
			},
			{
				name: 'harnessApiKey',
				required: true,
				displayOptions: { show: { authentication: ['apiKey'] } },
			},
		],
		properties: [
			choice('Authentication', 'authentication', [
				['Token', 'token'],
				['API Key', 'apiKey'],
			]),
			{ displayName: 'Path', name: 'path', type: 'string', default: '/items' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const authentication = this.getNodeParameter('authentication', 0) as string;
		const credentialType = authentication === 'token' ? 'harnessTokenApi' : 'harnessApiKey';
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>(credentialType);
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const path = this.getNodeParameter('path', i) as string;
			this.logger.debug(`Api Call requesting ${path}`);
			const body = (await this.helpers.httpRequestWithAuthentication.call(this, credentialType, {
				method: 'GET',
				url: `${baseUrl}${path}`,
				json: true,
			})) as IDataObject;
			out.push({ json: body, pairedItem: { item: i } });
		}
		return [out];
	}
}

/** Outputs its resolved parameters; throws a NodeApiError on request. */
export class Echo implements INodeType {
	description = nodeDescription(ECHO_TYPE, 'Echo', {
		properties: [
			{ displayName: 'Value', name: 'value', type: 'string', default: '' },
			{ displayName: 'Count', name: 'count', type: 'number', default: 0 },
			{ displayName: 'Fail With HTTP Code', name: 'failWith', type: 'string', default: '' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		return [
			items.map((_item, i) => {
				const failWith = this.getNodeParameter('failWith', i) as string;
				if (failWith) {
					throw new NodeApiError(
						this.getNode(),
						{ message: 'Upstream refused', status: failWith } as JsonObject,
						{ httpCode: failWith, description: 'The upstream system said no', itemIndex: i },
					);
				}
				return {
					json: {
						value: this.getNodeParameter('value', i) as string,
						count: this.getNodeParameter('count', i) as number,
					},
					pairedItem: { item: i },
				};
			}),
		];
	}
}

async function streamToBuffer(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream)
		chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
	return Buffer.concat(chunks);
}

/** 'write' turns `text` into a binary property; 'read' reads it back, by stream when stored on disk. */
export class BinaryFixture implements INodeType {
	description = nodeDescription(BINARY_TYPE, 'Binary Fixture', {
		properties: [
			choice('Operation', 'operation', [
				['Write', 'write'],
				['Read', 'read'],
			]),
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
			{ displayName: 'Repeat', name: 'repeat', type: 'number', default: 1 },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const operation = this.getNodeParameter('operation', i) as string;
			if (operation === 'write') {
				const text = (this.getNodeParameter('text', i) as string).repeat(
					this.getNodeParameter('repeat', i) as number,
				);
				const binary = await this.helpers.prepareBinaryData(
					Buffer.from(text, 'utf8'),
					'out.txt',
					'text/plain',
				);
				out.push({
					json: { written: text.length },
					binary: { data: binary },
					pairedItem: { item: i },
				});
				continue;
			}
			const meta = this.helpers.assertBinaryData(i, 'data');
			const buffer = meta.id
				? await streamToBuffer(await this.helpers.getBinaryStream(meta.id))
				: await this.helpers.getBinaryDataBuffer(i, 'data');
			if (!buffer.length)
				throw new NodeOperationError(this.getNode(), 'Empty binary data', { itemIndex: i });
			out.push({
				json: {
					viaStream: Boolean(meta.id),
					length: buffer.length,
					sha256: createHash('sha256').update(buffer).digest('hex'),
					head: buffer.subarray(0, 16).toString('utf8'),
				},
				pairedItem: { item: i },
			});
		}
		return [out];
	}
}

interface HarnessEvent {
	id: number;
	type: string;
}

/**
 * Polls `${EVENTS_BASE}/events?after=<cursor>`. The cursor lives in the node's
 * static data. 'reassign' assigns new values; 'mutate' only pushes into the
 * array stored earlier and writes nothing else, a change n8n notices only
 * when that array was loaded from saved data.
 * On purpose this fixture updates its cursor in manual mode too, so tests
 * can show that a manual poll never persists anything.
 */
export class PollEvents implements INodeType {
	description = nodeDescription(POLL_TYPE, 'Poll Events', {
		group: ['trigger'],
		polling: true,
		inputs: [],
		credentials: [{ name: 'harnessApiKey', required: false }],
		properties: [
			choice('State Style', 'stateStyle', [
				['Reassign', 'reassign'],
				['Mutate In Place', 'mutate'],
			]),
			{ displayName: 'Use Credentials', name: 'useCredentials', type: 'boolean', default: false },
		],
	});

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const state = this.getWorkflowStaticData('node');
		const cursor = typeof state.cursor === 'number' ? state.cursor : 0;
		const request: IHttpRequestOptions = {
			method: 'GET',
			url: `${EVENTS_BASE}/events`,
			qs: { after: cursor, mode: this.getMode(), activation: this.getActivationMode() },
			json: true,
		};
		// Only present because n8n's node loader adds it to every polling node.
		this.logger.debug(`Poll Events schedule ${JSON.stringify(this.getNodeParameter('pollTimes'))}`);
		const useCredentials = this.getNodeParameter('useCredentials') as boolean;
		const response = (
			useCredentials
				? await this.helpers.httpRequestWithAuthentication.call(this, 'harnessApiKey', request)
				: await this.helpers.httpRequest(request)
		) as { events: HarnessEvent[] };
		const events = response.events ?? [];
		this.logger.info(`Poll Events received ${events.length} event(s) after ${cursor}`);
		const ids = events.map((e) => e.id);

		if (this.getNodeParameter('stateStyle') === 'mutate' && Array.isArray(state.seen)) {
			// Only an in-place change: nothing else in the static data is written.
			(state.seen as number[]).push(...ids);
			return events.length
				? [this.helpers.returnJsonArray(events as unknown as IDataObject[])]
				: null;
		}

		state.polls = ((state.polls as number | undefined) ?? 0) + 1;
		if (!events.length) return null;
		state.cursor = Math.max(cursor, ...ids);
		state.seen = [...((state.seen as number[] | undefined) ?? []), ...ids];
		return [this.helpers.returnJsonArray(events as unknown as IDataObject[])];
	}
}

export const fixtureNodeTypes = () => ({
	[API_CALL_TYPE]: new ApiCall(),
	[ECHO_TYPE]: new Echo(),
	[BINARY_TYPE]: new BinaryFixture(),
	[POLL_TYPE]: new PollEvents(),
});

export const fixtureCredentialTypes = () => [new HarnessTokenApi(), new HarnessApiKey()];
