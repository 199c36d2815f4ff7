import { readdirSync } from 'node:fs';
import path from 'node:path';

import type { INode } from 'n8n-workflow';

import type { CredentialStore, HarnessWorkflow, RunResult } from '../harness/engine';
import { loadWorkflow, MANUAL_TRIGGER_TYPE, runWorkflow } from '../harness/engine';
import type { SandboxBank } from '../sandbox';
import { CREDENTIAL_IDS, sandboxCredentials } from './bank';
import { packageCredentialTypes, packageNodeTypes } from './nodes';

export const EXAMPLES_DIR = path.resolve(__dirname, '../../examples');

/** Example workflows that start with a Manual Trigger (the trigger examples run as polls). */
export function manualExamples(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.filter((f) => loadWorkflow(path.join(EXAMPLES_DIR, f)).nodes.some((n) => n.type === MANUAL_TRIGGER_TYPE))
		.sort();
}

/**
 * Points an example at the sandbox bank: its credentials at the sandbox's credentials of the same
 * type, the mock service URL at the sandbox, trusting the sandbox's test CA.
 */
export function prepareExample(file: string, bank: SandboxBank): { workflow: HarnessWorkflow; store: CredentialStore } {
	const workflow = loadWorkflow(path.join(EXAMPLES_DIR, file));
	for (const node of workflow.nodes as INode[]) {
		for (const type of Object.keys(node.credentials ?? {})) {
			const id = CREDENTIAL_IDS[type as keyof typeof CREDENTIAL_IDS];
			if (id) node.credentials![type] = { id, name: `${type} (sandbox)` };
		}
		if (typeof node.parameters.mockBaseUrl === 'string') {
			node.parameters.mockBaseUrl = bank.urls.mockBase;
			node.parameters.connection = { ...((node.parameters.connection as object) ?? {}), caCertificate: bank.tls.caPem };
		}
	}
	return { workflow, store: sandboxCredentials(bank) };
}

export async function runExample(file: string, bank: SandboxBank): Promise<RunResult & { workflow: HarnessWorkflow }> {
	const { workflow, store } = prepareExample(file, bank);
	const result = await runWorkflow({
		workflow,
		nodeTypes: packageNodeTypes(),
		credentialTypes: packageCredentialTypes(),
		credentials: store,
		binaryDataMode: 'filesystem',
	});
	return Object.assign(result, { workflow });
}
