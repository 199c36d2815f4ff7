import { readdirSync } from 'node:fs';
import path from 'node:path';

import type { INode } from 'n8n-workflow';

import type { CredentialStore, HarnessWorkflow, RunResult } from '../harness/engine';
import { loadWorkflow, MANUAL_TRIGGER_TYPE, runWorkflow } from '../harness/engine';
import { EXAMPLE_FILES_FOLDER, FILE_SERVICE_CREDENTIAL, PIN_EXAMPLES, pinCredential, sandboxCredentialKey } from '../e2e/lib/workflows';
import type { SandboxBank } from '../sandbox';
import { CREDENTIAL_IDS, sandboxCredentials } from './bank';
import { packageCredentialTypes, packageNodeTypes } from './nodes';

export const EXAMPLES_DIR = path.resolve(__dirname, '../../examples');

/** Where an example reading bank files from a folder reads them in engine runs: the test fixtures. */
const BANK_FILE_FIXTURES = path.resolve(__dirname, '../fixtures/bankfiles');

/** Example workflows that start with a Manual Trigger (the trigger examples run as polls). */
export function manualExamples(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.filter((f) => loadWorkflow(path.join(EXAMPLES_DIR, f)).nodes.some((n) => n.type === MANUAL_TRIGGER_TYPE))
		.sort();
}

/**
 * Points an example at the sandbox bank: its credentials at the sandbox's credentials of the same
 * type, the mock service URL at the sandbox, trusting the sandbox's test CA; a folder of bank files
 * at the project's bank file fixtures. An example that
 * enrols from a PIN (PIN_EXAMPLES) gets a File Service credential of its own holding only a fresh
 * PIN from the sandbox, so that its run enrols.
 */
export function prepareExample(file: string, bank: SandboxBank, dir = EXAMPLES_DIR): { workflow: HarnessWorkflow; store: CredentialStore } {
	const workflow = loadWorkflow(path.join(dir, file));
	const store = sandboxCredentials(bank);
	const pinBank = PIN_EXAMPLES[file];
	if (pinBank) {
		const data = pinBank === 'danske' ? bank.danskeCredential({ pin: 'new' }) : bank.enrolmentCredential(pinBank);
		store.set({ ...pinCredential(pinBank), type: FILE_SERVICE_CREDENTIAL, data: data as Record<string, string> });
	}
	for (const node of workflow.nodes as INode[]) {
		for (const type of Object.keys(node.credentials ?? {})) {
			const id = CREDENTIAL_IDS[type as keyof typeof CREDENTIAL_IDS];
			const key = sandboxCredentialKey(type, node.credentials![type].id ?? undefined);
			if (pinBank && type === FILE_SERVICE_CREDENTIAL) node.credentials![type] = pinCredential(pinBank);
			else if (key !== type) {
				// A second subscriber of the type (the EBICS signers): its own credential.
				store.set({ id: key, name: key, type, data: bank.credentialValues()[key] as Record<string, string> });
				node.credentials![type] = { id: key, name: key };
			} else if (id) node.credentials![type] = { id, name: `${type} (sandbox)` };
		}
		const selector = node.parameters.fileSelector;
		if (typeof selector === 'string' && selector.startsWith(`${EXAMPLE_FILES_FOLDER}/`))
			node.parameters.fileSelector = `${BANK_FILE_FIXTURES}${selector.slice(EXAMPLE_FILES_FOLDER.length)}`;
		if (typeof node.parameters.mockBaseUrl === 'string') {
			node.parameters.mockBaseUrl = bank.urls.mockBase;
			node.parameters.connection = { ...((node.parameters.connection as object) ?? {}), caCertificate: bank.tls.caPem };
		}
	}
	return { workflow, store };
}

/** Runs an example (or a workflow of `dir` prepared the same way) through the n8n engine. */
export async function runExample(file: string, bank: SandboxBank, dir = EXAMPLES_DIR): Promise<RunResult & { workflow: HarnessWorkflow; store: CredentialStore }> {
	const { workflow, store } = prepareExample(file, bank, dir);
	const result = await runWorkflow({
		workflow,
		nodeTypes: packageNodeTypes(),
		credentialTypes: packageCredentialTypes(),
		credentials: store,
		binaryDataMode: 'filesystem',
	});
	return Object.assign(result, { workflow, store });
}
