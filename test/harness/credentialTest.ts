/**
 * n8n's credential test (what the editor runs when a credential is saved, opened or "Retry" is
 * clicked), on the harness: the credential type's `test.request` is sent through n8n-core's
 * httpRequestWithAuthentication from an ExecuteContext of a temporary No Op node, as n8n's
 * CredentialsTester builds it. As there, n8n runs the credential's preAuthentication when its
 * expirable field is empty (and stores what it returns), then its authenticate, then the request.
 * The answer is what the editor shows: OK, or the error's message.
 */
import { ExecuteContext } from 'n8n-core';
import {
	createEmptyRunExecutionData,
	Workflow,
	type ICredentialType,
	type IExecuteData,
	type IHttpRequestOptions,
	type INode,
} from 'n8n-workflow';

import { HarnessCredentialsHelper, type CredentialStore } from './credentials';
import { HarnessNodeTypes, NO_OP_TYPE } from './node-types';
import { createAdditionalData } from './runtime';

export interface CredentialTestAnswer {
	status: 'OK' | 'Error';
	message?: string;
}

/** The innermost message of what n8n threw (its NodeApiError wraps the credential's error). */
function messageOf(error: unknown): string {
	let current = error as { message?: string; cause?: unknown } | undefined;
	let message = current?.message ?? String(error);
	const seen = new Set<unknown>();
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		if (typeof current.message === 'string' && current.message) message = current.message;
		current = current.cause as typeof current;
	}
	return message;
}

/**
 * Tests the stored credential `id` the way the editor's "Save" does. `values` (default: the
 * stored ones) stand for what the editor sends.
 */
export async function testCredential(opts: {
	store: CredentialStore;
	credentialTypes: ICredentialType[];
	id: string;
	values?: Record<string, unknown>;
}): Promise<CredentialTestAnswer> {
	const row = opts.store.get(opts.id);
	if (!row) throw new Error(`Credential "${opts.id}" is not in the store`);
	const type = opts.credentialTypes.find((t) => t.name === row.type);
	const request = type?.test && 'request' in type.test ? type.test.request : undefined;
	if (!request) throw new Error(`Credential type ${row.type} has no test request`);
	const helper = new HarnessCredentialsHelper(opts.store, opts.credentialTypes);
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: NO_OP_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [row.type]: { id: row.id, name: row.name } },
	};
	// The Workflow writes parameter defaults into its nodes: it gets a copy, the context the node.
	const workflow = new Workflow({
		nodes: [structuredClone(node)],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({}),
	});
	const additionalData = createAdditionalData({ credentialsHelper: helper, workflowId: 'credential-test' });
	const data = helper.applyDefaultsAndResolve(
		additionalData,
		(opts.values ?? row.data) as typeof row.data,
		row.type,
		'internal',
	);
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createEmptyRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	try {
		await context.helpers.httpRequestWithAuthentication.call(
			context,
			row.type,
			{ ...request, url: String(request.url), method: request.method ?? 'GET' } as IHttpRequestOptions,
			{ credentialsDecrypted: { id: row.id, name: row.name, type: row.type, data } },
		);
		return { status: 'OK' };
	} catch (error) {
		return { status: 'Error', message: messageOf(error) };
	}
}
