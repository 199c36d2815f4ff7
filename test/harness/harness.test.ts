import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import nock from 'nock';
import {
	NodeApiError,
	type IConnections,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeType,
} from 'n8n-workflow';

import {
	binaryDataStoragePath,
	createCredentialStore,
	loadWorkflow,
	runWorkflow,
	type CredentialStore,
} from './engine';
import {
	API_BASE,
	API_CALL_TYPE,
	AUTH_BASE,
	BINARY_TYPE,
	ECHO_TYPE,
	EVENTS_BASE,
	HarnessApiKey,
	POLL_TYPE,
	PollEvents,
	fixtureCredentialTypes,
	fixtureNodeTypes,
} from './fixtures';
import { HarnessCredentialsHelper } from './credentials';
import { nodeDescription } from './node-types';
import { createPollHarness } from './poll';

const TRIGGER: INode = {
	id: 'trigger',
	name: 'When clicking ‘Execute workflow’',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function node(
	name: string,
	type: string,
	parameters: INode['parameters'],
	extra: Partial<INode> = {},
): INode {
	return { id: name, name, type, typeVersion: 1, position: [0, 0], parameters, ...extra };
}

/** Connects the nodes one after the other, starting with the Manual Trigger. */
function chain(...nodes: INode[]): { nodes: INode[]; connections: IConnections } {
	const all = [TRIGGER, ...nodes];
	const connections: IConnections = {};
	for (let i = 0; i < all.length - 1; i++) {
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	}
	return { nodes: all, connections };
}

const json = (items: INodeExecutionData[]) => items.map((item) => item.json);

const tokenCredential = (data: Record<string, string> = {}) => ({
	id: 'cred-token',
	name: 'Token account',
	type: 'harnessTokenApi',
	data: { clientId: 'client-1', clientSecret: 'very-secret-client-secret', ...data },
});

const apiCall = (path: string, authentication = 'token') =>
	node(
		'Api Call',
		API_CALL_TYPE,
		{ authentication, path },
		{
			credentials:
				authentication === 'token'
					? { harnessTokenApi: { id: 'cred-token', name: 'Token account' } }
					: { harnessApiKey: { id: 'cred-key', name: 'Key account' } },
		},
	);

const ids = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { id: i + 1 } }));

beforeAll(() => {
	nock.disableNetConnect();
});

afterEach(() => {
	nock.cleanAll();
});

afterAll(() => {
	nock.enableNetConnect();
	// nock patches node's http module for the whole worker process; later test files in the same
	// worker must talk to real sockets (its pass-through breaks long streamed responses).
	nock.restore();
});

describe('runWorkflow', () => {
	test('the Manual Trigger emits one empty item by default and the chain runs in order', async () => {
		const result = await runWorkflow({
			workflow: chain(node('Echo', ECHO_TYPE, { value: 'fixed' })),
			nodeTypes: fixtureNodeTypes(),
		});

		expect(result.status).toBe('success');
		expect(result.error).toBeUndefined();
		expect(json(result.output(TRIGGER.name))).toEqual([{}]);
		expect(json(result.output('Echo'))).toEqual([{ value: 'fixed', count: 0 }]);
		expect(result.executedNodes()).toEqual([TRIGGER.name, 'Echo']);
	});

	test('expressions in parameters resolve per item, including references to other nodes', async () => {
		const result = await runWorkflow({
			workflow: chain(
				node('Echo', ECHO_TYPE, {
					value: `={{ $json.name.toUpperCase() }}-{{ $('${TRIGGER.name}').item.json.n }}`,
					count: '={{ $json.n * 10 + $itemIndex }}',
				}),
			),
			nodeTypes: fixtureNodeTypes(),
			inputItems: [{ json: { name: 'a', n: 1 } }, { json: { name: 'b', n: 2 } }],
		});

		expect(result.status).toBe('success');
		expect(json(result.output('Echo'))).toEqual([
			{ value: 'A-1', count: 10 },
			{ value: 'B-2', count: 21 },
		]);
	});

	test('a workflow exported from the editor runs unchanged (sticky note, No Op, $workflow)', async () => {
		const workflow = loadWorkflow(join(__dirname, 'workflows', 'exported-workflow.json'));

		const result = await runWorkflow({ workflow, nodeTypes: fixtureNodeTypes() });

		expect(result.status).toBe('success');
		expect(json(result.output('No Operation, do nothing'))).toEqual([
			{ value: 'hello from Harness export', count: 3 },
		]);
		expect(result.executedNodes()).toEqual([
			'When clicking ‘Execute workflow’',
			'Echo',
			'No Operation, do nothing',
		]);
		// The run works on copies: the loaded JSON is not modified.
		expect(workflow.nodes[1].parameters).toEqual({
			value: "={{ $json.greeting ?? 'hello' }} from {{ $workflow.name }}",
			count: 3,
		});
	});

	test('an unknown node type is reported clearly', async () => {
		await expect(
			runWorkflow({
				workflow: chain(node('Mystery', 'n8n-nodes-base.httpRequest', {})),
				nodeTypes: {},
			}),
		).rejects.toThrow('Unknown node type "n8n-nodes-base.httpRequest"');
	});

	/** Echo failing with an HTTP code, then a No Op that never runs. */
	const echoFailingWith = async (code: string) =>
		await runWorkflow({
			workflow: chain(
				node('Echo', ECHO_TYPE, { failWith: code }),
				node('After', 'n8n-nodes-base.noOp', {}),
			),
			nodeTypes: fixtureNodeTypes(),
		});

	test('output() of a node that never ran throws and names the failure', async () => {
		const result = await echoFailingWith('503');

		expect(() => result.output('After')).toThrow(/did not run.*Echo/);
		expect(result.output('Echo')).toEqual([]);
	});

	test('a NodeApiError thrown by a node is reported by nodeError() and fails the run', async () => {
		const result = await echoFailingWith('418');

		expect(result.status).toBe('error');
		expect(result.error).toBeDefined();
		const error = result.nodeError('Echo');
		expect(error).toMatchObject({
			name: 'NodeApiError',
			message: expect.any(String),
			httpCode: '418',
			description: 'The upstream system said no',
		});
		// n8n 2.41 stores a plain copy of the error in the run data, not the thrown instance.
		expect(error).not.toBeInstanceOf(NodeApiError);
		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '418' });
		expect(result.nodeError(TRIGGER.name)).toBeUndefined();
		expect(result.runData.After).toBeUndefined();
	});

	test('logs capture this.logger, n8n-core and console output of the run only', async () => {
		class Chatty implements INodeType {
			description = nodeDescription('chatty', 'Chatty');

			async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
				this.logger.warn('chatty says hi', { itemCount: this.getInputData().length });
				console.warn('chatty on the console');
				return [this.getInputData()];
			}
		}
		const first = await runWorkflow({
			workflow: chain(node('Chatty', 'x.chatty', {})),
			nodeTypes: { 'x.chatty': new Chatty() },
		});
		const second = await runWorkflow({ workflow: chain(), nodeTypes: {} });

		expect(first.logs).toContain('[warn] chatty says hi {"itemCount":1}');
		expect(first.logs).toContain('[console.warn] chatty on the console');
		expect(
			first.logs.some((line) => line.includes('Workflow execution finished successfully')),
		).toBe(true);
		expect(second.logs.some((line) => line.includes('chatty'))).toBe(false);
	});

	describe('credentials', () => {
		let store: CredentialStore;
		const tokenRequests: unknown[] = [];

		beforeEach(() => {
			tokenRequests.length = 0;
			store = createCredentialStore([
				tokenCredential(),
				{ id: 'cred-key', name: 'Key account', type: 'harnessApiKey', data: { apiKey: 'key-123' } },
			]);
		});

		const mockToken = (token: string, times = 1) =>
			nock(AUTH_BASE)
				.post('/token')
				.times(times)
				.reply(200, (_uri, body) => {
					tokenRequests.push(body);
					return { access_token: token, token_type: 'Bearer', expires_in: 3600 };
				});

		const mockItems = (token: string, count: number, status = 200) =>
			nock(API_BASE)
				.get(/^\/items\/\d+/)
				.query({ client: 'client-1' })
				.matchHeader('authorization', `Bearer ${token}`)
				.times(count)
				.reply(status, (uri) =>
					status === 200 ? { path: uri.split('?')[0], ok: true } : { error: 'nope' },
				);

		const run = (overrides: { inputItems?: INodeExecutionData[]; path?: string } = {}) =>
			runWorkflow({
				workflow: chain(apiCall(overrides.path ?? '={{ "/items/" + $json.id }}')),
				nodeTypes: fixtureNodeTypes(),
				credentialTypes: fixtureCredentialTypes(),
				credentials: store,
				inputItems: overrides.inputItems ?? ids(3),
			});

		test('preAuthentication fetches the token once for several items and persists it', async () => {
			const token = mockToken('tok-1');
			const api = mockItems('tok-1', 3);

			const result = await run();

			expect(result.status).toBe('success');
			expect(json(result.output('Api Call'))).toEqual([
				{ path: '/items/1', ok: true },
				{ path: '/items/2', ok: true },
				{ path: '/items/3', ok: true },
			]);
			expect(token.isDone()).toBe(true);
			expect(api.isDone()).toBe(true);
			expect(tokenRequests).toEqual([
				{
					grant_type: 'client_credentials',
					client_id: 'client-1',
					client_secret: 'very-secret-client-secret',
					scope: 'read',
				},
			]);
			expect(store.updates).toBe(1);
			// Persisted as n8n does: the stored data plus the new token, without the type's defaults.
			expect(store.get('cred-token')?.data).toEqual({
				clientId: 'client-1',
				clientSecret: 'very-secret-client-secret',
				accessToken: 'tok-1',
			});
		});

		test('a store shared by two runs keeps the token: still one token request', async () => {
			mockToken('tok-shared');
			mockItems('tok-shared', 4);

			const first = await run({ inputItems: ids(2) });
			const second = await run({ inputItems: ids(2) });

			expect(first.status).toBe('success');
			expect(second.status).toBe('success');
			expect(tokenRequests).toHaveLength(1);
			expect(store.updates).toBe(1);
			expect(second.output('Api Call')).toHaveLength(2);
		});

		test('a 401 triggers preAuthentication again and exactly one retry', async () => {
			store.set(tokenCredential({ accessToken: 'stale' }));
			const rejected = mockItems('stale', 1, 401);
			mockToken('fresh');
			const accepted = mockItems('fresh', 2);

			const result = await run({ inputItems: ids(2) });

			expect(result.status).toBe('success');
			expect(rejected.isDone()).toBe(true);
			expect(accepted.isDone()).toBe(true);
			expect(tokenRequests).toHaveLength(1);
			expect(store.updates).toBe(1);
			expect(store.get('cred-token')?.data.accessToken).toBe('fresh');
		});

		test('a second 401 after the refresh fails the node without looping', async () => {
			store.set(tokenCredential({ accessToken: 'stale' }));
			mockItems('stale', 1, 401);
			mockToken('also-rejected');
			const retried = mockItems('also-rejected', 1, 401);
			const extra = nock(API_BASE).get(/.*/).query(true).reply(200, {});

			const result = await run({ inputItems: ids(1) });

			expect(result.status).toBe('error');
			expect(retried.isDone()).toBe(true);
			expect(extra.isDone()).toBe(false);
			expect(tokenRequests).toHaveLength(1);
			expect(result.nodeError('Api Call')).toMatchObject({ name: 'NodeApiError', httpCode: '401' });
		});

		test('a server error surfaces as a NodeApiError with its HTTP code', async () => {
			mockToken('tok-1');
			mockItems('tok-1', 1, 500);

			const result = await run({ inputItems: ids(1) });

			expect(result.status).toBe('error');
			expect(result.nodeError('Api Call')).toMatchObject({ name: 'NodeApiError', httpCode: '500' });
			expect(tokenRequests).toHaveLength(1);
		});

		test('authenticate functions run, defaults of the credential type apply, expressions in credentials resolve', async () => {
			store.set({
				id: 'cred-key',
				name: 'Key account',
				type: 'harnessApiKey',
				data: { apiKey: '={{ "key-" + (40 + 2) }}' },
			});
			// headerName and baseUrl are not stored: they come from the type's defaults.
			const api = nock(API_BASE)
				.get('/status')
				.matchHeader('x-api-key', 'key-42')
				.reply(200, { up: true });

			const result = await runWorkflow({
				workflow: chain(apiCall('/status', 'apiKey')),
				nodeTypes: fixtureNodeTypes(),
				credentialTypes: fixtureCredentialTypes(),
				credentials: store,
			});

			expect(result.status).toBe('success');
			expect(api.isDone()).toBe(true);
			expect(json(result.output('Api Call'))).toEqual([{ up: true }]);
			expect(store.updates).toBe(0);
		});

		test('a missing credential is reported as the node error', async () => {
			const result = await runWorkflow({
				workflow: chain(apiCall('/items/1')),
				nodeTypes: fixtureNodeTypes(),
				credentialTypes: fixtureCredentialTypes(),
				credentials: createCredentialStore([]),
			});

			expect(result.status).toBe('error');
			expect(result.nodeError('Api Call')?.message).toContain(
				'Credential with ID "cred-token" does not exist',
			);
		});

		test('the logs of a credentialed run contain the node logs but neither secret nor token', async () => {
			mockToken('tok-very-private');
			mockItems('tok-very-private', 1);

			const result = await run({ inputItems: ids(1) });

			expect(result.status).toBe('success');
			expect(result.logs).toContain('[debug] Api Call requesting /items/1');
			const text = result.logs.join('\n');
			expect(text).not.toContain('very-secret-client-secret');
			expect(text).not.toContain('tok-very-private');
		});
	});

	describe('binary data', () => {
		const binaryWorkflow = (text: string, repeat = 1) =>
			chain(
				node('Write', BINARY_TYPE, { operation: 'write', text, repeat }),
				node('Read', BINARY_TYPE, { operation: 'read' }),
			);

		test('default mode keeps binary data inline as base64', async () => {
			const result = await runWorkflow({
				workflow: binaryWorkflow('hello inline'),
				nodeTypes: fixtureNodeTypes(),
				binaryDataMode: 'default',
			});

			expect(result.status).toBe('success');
			const binary = result.output('Write')[0].binary?.data;
			expect(binary?.id).toBeUndefined();
			expect(Buffer.from(binary?.data ?? '', 'base64').toString('utf8')).toBe('hello inline');
			expect(json(result.output('Read'))).toEqual([
				expect.objectContaining({ viaStream: false, length: 12, head: 'hello inline' }),
			]);
		});

		test('filesystem mode writes files and nodes read them back as streams', async () => {
			const text = 'stream me ';
			const result = await runWorkflow({
				workflow: binaryWorkflow(text, 100_000),
				nodeTypes: fixtureNodeTypes(),
				binaryDataMode: 'filesystem',
			});

			expect(result.status).toBe('success');
			const binary = result.output('Write')[0].binary?.data;
			expect(binary?.id).toMatch(/^filesystem-v2:/);
			expect(binary?.data).toBe('filesystem-v2');
			expect(binary?.bytes).toBe(text.length * 100_000);

			const storage = binaryDataStoragePath();
			expect(storage).toBeDefined();
			const files = listFiles(storage ?? '');
			expect(files.some((file) => statSync(file).size === text.length * 100_000)).toBe(true);

			const [read] = json(result.output('Read'));
			expect(read).toMatchObject({
				viaStream: true,
				length: text.length * 100_000,
				head: 'stream me stream',
			});
		});

		test('switching back to default mode after filesystem mode works', async () => {
			await runWorkflow({
				workflow: binaryWorkflow('fs'),
				nodeTypes: fixtureNodeTypes(),
				binaryDataMode: 'filesystem',
			});
			const result = await runWorkflow({
				workflow: binaryWorkflow('inline again'),
				nodeTypes: fixtureNodeTypes(),
			});

			expect(result.output('Write')[0].binary?.data.id).toBeUndefined();
			expect(json(result.output('Read'))[0]).toMatchObject({
				viaStream: false,
				head: 'inline again',
			});
		});
	});

	test('a polling trigger as start node runs in manual mode, like "Execute workflow" in the editor', async () => {
		const events = nock(EVENTS_BASE)
			.get('/events')
			.query({ after: 0, mode: 'manual', activation: 'manual' })
			.reply(200, { events: [{ id: 7, type: 'x' }] });
		const poller = node('Poll Events', POLL_TYPE, {});

		const result = await runWorkflow({
			workflow: {
				nodes: [poller, node('Pass', 'n8n-nodes-base.noOp', {})],
				connections: { 'Poll Events': { main: [[{ node: 'Pass', type: 'main', index: 0 }]] } },
			},
			nodeTypes: fixtureNodeTypes(),
		});

		expect(result.status).toBe('success');
		expect(events.isDone()).toBe(true);
		expect(json(result.output('Pass'))).toEqual([{ id: 7, type: 'x' }]);
	});
});

function listFiles(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
	);
}

describe('createPollHarness', () => {
	const pollNode = (parameters: INode['parameters'] = {}, extra: Partial<INode> = {}) =>
		node('Poll Events', POLL_TYPE, parameters, extra);

	const mockEvents = (after: number, eventIds: number[], query: Record<string, string> = {}) =>
		nock(EVENTS_BASE)
			.get('/events')
			.query({ after, mode: 'trigger', activation: 'activate', ...query })
			.reply(200, { events: eventIds.map((id) => ({ id, type: 'evt' })) });

	test('static data stays in memory between polls and is saved only when items are emitted', async () => {
		const harness = createPollHarness({ node: pollNode(), nodeType: new PollEvents() });

		mockEvents(0, []);
		expect(await harness.poll()).toBeNull();
		expect(harness.saves).toBe(0);
		expect(harness.staticData()).toEqual({});
		expect(harness.liveNodeStaticData()).toEqual({ polls: 1 });

		mockEvents(0, [1, 2]);
		const items = await harness.poll();
		expect(items?.[0].map((item) => item.json)).toEqual([
			{ id: 1, type: 'evt' },
			{ id: 2, type: 'evt' },
		]);
		expect(harness.saves).toBe(1);
		expect(harness.staticData()).toEqual({
			'node:Poll Events': { polls: 2, cursor: 2, seen: [1, 2] },
		});

		mockEvents(2, []);
		expect(await harness.poll()).toBeNull();
		expect(harness.saves).toBe(1);
		expect(harness.savedNodeStaticData()).toEqual({ polls: 2, cursor: 2, seen: [1, 2] });
		expect(harness.liveNodeStaticData()).toEqual({ polls: 3, cursor: 2, seen: [1, 2] });
		expect(harness.emitted).toHaveLength(1);
		expect(harness.logs).toContain('[info] Poll Events received 2 event(s) after 0');
	});

	test('pollManual reads the saved data and persists nothing', async () => {
		const harness = createPollHarness({
			node: pollNode(),
			nodeType: new PollEvents(),
			staticData: { 'node:Poll Events': { cursor: 10, seen: [10] } },
		});
		const manual = nock(EVENTS_BASE)
			.get('/events')
			.query({ after: 10, mode: 'manual', activation: 'manual' })
			.reply(200, { events: [{ id: 11, type: 'evt' }] });

		const items = await harness.pollManual();

		expect(manual.isDone()).toBe(true);
		expect(items?.[0].map((item) => item.json)).toEqual([{ id: 11, type: 'evt' }]);
		expect(harness.saves).toBe(0);
		expect(harness.savedNodeStaticData()).toEqual({ cursor: 10, seen: [10] });
		expect(harness.liveNodeStaticData()).toEqual({ cursor: 10, seen: [10] });

		mockEvents(10, [11]);
		await harness.poll();
		expect(harness.savedNodeStaticData()).toEqual({ cursor: 11, seen: [10, 11], polls: 1 });
	});

	test('reload() starts from the saved data, losing what was only in memory, and polls with activation "init"', async () => {
		const harness = createPollHarness({ node: pollNode(), nodeType: new PollEvents() });
		mockEvents(0, [3]);
		await harness.poll();
		mockEvents(3, []);
		await harness.poll();
		expect(harness.liveNodeStaticData()).toEqual({ polls: 2, cursor: 3, seen: [3] });

		const restarted = harness.reload();
		expect(restarted.liveNodeStaticData()).toEqual({ polls: 1, cursor: 3, seen: [3] });
		mockEvents(3, [4], { activation: 'init' });
		await restarted.poll();
		expect(restarted.savedNodeStaticData()).toEqual({ polls: 2, cursor: 4, seen: [3, 4] });
		// The first harness does not see what the restarted one saved.
		expect(harness.savedNodeStaticData()).toEqual({ polls: 1, cursor: 3, seen: [3] });

		const fromGiven = harness.reload({ 'node:Poll Events': { cursor: 100 } });
		expect(fromGiven.staticData()).toEqual({ 'node:Poll Events': { cursor: 100 } });
		mockEvents(100, [], { activation: 'init' });
		expect(await fromGiven.poll()).toBeNull();
	});

	test('an in-place change to an array the node stored earlier is not saved (n8n only sees assignments)', async () => {
		const harness = createPollHarness({
			node: pollNode({ stateStyle: 'mutate' }),
			nodeType: new PollEvents(),
		});
		mockEvents(0, [1]);
		await harness.poll(); // no array yet: assigns one
		mockEvents(1, [2]);
		expect(await harness.poll()).not.toBeNull();

		expect(harness.liveNodeStaticData().seen).toEqual([1, 2]);
		expect(harness.savedNodeStaticData().seen).toEqual([1]);
		expect(harness.saves).toBe(1);

		// Data loaded from the database is observed deeply, so after a restart the same push is saved.
		const restarted = harness.reload();
		mockEvents(1, [5], { activation: 'init' });
		await restarted.poll();
		expect(restarted.savedNodeStaticData().seen).toEqual([1, 5]);
	});

	test('polling nodes get the "Poll Times" parameter n8n\'s node loader adds', async () => {
		const withDefault = createPollHarness({ node: pollNode(), nodeType: new PollEvents() });
		const custom = createPollHarness({
			node: pollNode({ pollTimes: { item: [{ mode: 'everyHour', minute: 5 }] } }),
			nodeType: new PollEvents(),
		});
		mockEvents(0, []);
		mockEvents(0, []);

		await withDefault.poll();
		await custom.poll();

		expect(withDefault.logs).toContain(
			'[debug] Poll Events schedule {"item":[{"mode":"everyMinute"}]}',
		);
		expect(custom.logs).toContain(
			'[debug] Poll Events schedule {"item":[{"mode":"everyHour","minute":5}]}',
		);
	});

	test('errors of a poll reject, both at activation and on later polls', async () => {
		const harness = createPollHarness({ node: pollNode(), nodeType: new PollEvents() });
		nock(EVENTS_BASE).get('/events').query(true).reply(500, { error: 'down' });
		await expect(harness.poll()).rejects.toThrow();

		mockEvents(0, [1]);
		await harness.poll();
		nock(EVENTS_BASE).get('/events').query(true).reply(503, { error: 'down' });
		await expect(harness.poll()).rejects.toThrow();
		expect(harness.saves).toBe(1);
	});

	test('polls authenticate with credentials from the store', async () => {
		const credentials = createCredentialStore([
			{
				id: 'k',
				name: 'Key',
				type: 'harnessApiKey',
				data: { apiKey: 'poll-key', headerName: 'X-Poll-Key' },
			},
		]);
		const harness = createPollHarness({
			node: pollNode(
				{ useCredentials: true },
				{ credentials: { harnessApiKey: { id: 'k', name: 'Key' } } },
			),
			nodeType: new PollEvents(),
			credentialTypes: fixtureCredentialTypes(),
			credentials,
		});
		const scope = nock(EVENTS_BASE)
			.get('/events')
			.query(true)
			.matchHeader('x-poll-key', 'poll-key')
			.reply(200, { events: [{ id: 1, type: 'evt' }] });

		const items = await harness.poll();

		expect(scope.isDone()).toBe(true);
		expect(items?.[0]).toHaveLength(1);
	});
});

describe('HarnessCredentialsHelper', () => {
	test('restrictToSupportedNodes limits a credential type to its nodes', () => {
		const restricted = {
			...new HarnessApiKey(),
			restrictToSupportedNodes: true as const,
			supportedNodes: ['apiCall'],
		};
		const helper = new HarnessCredentialsHelper(createCredentialStore(), [restricted]);

		expect(helper.isCredentialUsableByNode('harnessApiKey', API_CALL_TYPE)).toBe(true);
		expect(helper.isCredentialUsableByNode('harnessApiKey', ECHO_TYPE)).toBe(false);
		expect(helper.isCredentialUsableByNode('unknownType', ECHO_TYPE)).toBe(true);
		expect(helper.getParentTypes('harnessApiKey')).toEqual([]);
	});

	test('runPreAuthentication calls the hook without checking expiry or persisting', async () => {
		const store = createCredentialStore([tokenCredential({ accessToken: 'still-valid' })]);
		const helper = new HarnessCredentialsHelper(store, fixtureCredentialTypes());
		const httpRequest = jest.fn(async () => ({ access_token: 'from-hook' }));

		const output = await helper.runPreAuthentication(
			{ helpers: { httpRequest } },
			{ tokenUrl: `${AUTH_BASE}/token`, clientId: 'c', accessToken: 'still-valid' },
			'harnessTokenApi',
		);

		expect(output).toEqual({ accessToken: 'from-hook' });
		expect(httpRequest).toHaveBeenCalledTimes(1);
		expect(store.updates).toBe(0);
	});

	test('preAuthentication leaves a valid token alone unless told it expired', async () => {
		const store = createCredentialStore([tokenCredential({ accessToken: 'still-valid' })]);
		const helper = new HarnessCredentialsHelper(store, fixtureCredentialTypes());
		const httpRequest = jest.fn(async () => ({ access_token: 'renewed' }));
		const apiNode = apiCall('/x');
		const credentials = { tokenUrl: `${AUTH_BASE}/token`, accessToken: 'still-valid' };

		expect(
			await helper.preAuthentication(
				{ helpers: { httpRequest } },
				credentials,
				'harnessTokenApi',
				apiNode,
				false,
			),
		).toBeUndefined();
		expect(httpRequest).not.toHaveBeenCalled();

		const renewed = await helper.preAuthentication(
			{ helpers: { httpRequest } },
			credentials,
			'harnessTokenApi',
			apiNode,
			true,
		);
		expect(renewed).toMatchObject({ accessToken: 'renewed' });
		expect(store.updates).toBe(1);
		expect(store.history[0].data).toMatchObject({ clientId: 'client-1', accessToken: 'renewed' });
	});
});
