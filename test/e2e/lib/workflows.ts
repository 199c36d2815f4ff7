/**
 * The package's example workflows, prepared for import into a real n8n: node types as the
 * community-package installer names them, credentials pointing at the sandbox bank's credentials
 * of the same type, the mock service and event settings pointing at the sandbox bank (the same
 * rewriting test/helpers/examples.ts does for the engine-based runs).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { SandboxState } from './sandbox';
import { PROJECT_ROOT } from './sandbox';

export const PACKAGE_NAME = 'n8n-nodes-corporate-banking';
export const EXAMPLES_DIR = path.join(PROJECT_ROOT, 'examples');
export const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	disabled?: boolean;
}

export interface WorkflowJson {
	id?: string;
	name?: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	active?: boolean;
	[key: string]: unknown;
}

/** package.json's `n8n` section: node and credential type names the package declares. */
export function packageManifest(): { nodes: string[]; credentials: string[]; nodeFiles: string[] } {
	const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const base = (file: string, suffix: string): string => {
		const name = path.basename(file).replace(suffix, '');
		return name.charAt(0).toLowerCase() + name.slice(1);
	};
	return {
		nodeFiles: pkg.n8n.nodes,
		nodes: pkg.n8n.nodes.map((f) => base(f, '.node.js')),
		credentials: pkg.n8n.credentials.map((f) => base(f, '.credentials.js')),
	};
}

/** Whether package.json lists a node (by type name without package prefix, e.g. `bankEventTrigger`). */
export function packageHasNode(name: string): boolean {
	return packageManifest().nodes.includes(name);
}

/**
 * Credential ids in the e2e n8n: one credential per type, holding the sandbox bank's values, and
 * more of a type under "type#NAME" keys (the EBICS signers SIGNER1 and SIGNER2).
 */
export function credentialId(key: string): string {
	const [type, more] = key.split('#');
	return (more ? `sandbox-${more.toLowerCase()}-${type}` : `sandbox-${type}`).slice(0, 36);
}

/**
 * The sandbox credential an example's credential stands for: the type's own, or for an example
 * with two EBICS subscribers (credential ids ending in "-signer1", "-signer2") the sandbox's
 * signers of one partner.
 */
export function sandboxCredentialKey(type: string, exampleCredentialId: string | undefined): string {
	const signer = /-signer([12])$/.exec(exampleCredentialId ?? '');
	return signer ? `${type}#SIGNER${signer[1]}` : type;
}

export function credentialName(key: string): string {
	const [type, more] = key.split('#');
	if (more) return `${credentialName(type)} (${more})`;
	const label: Record<string, string> = {
		corporateBankingClientCredentialsApi: 'Sandbox bank: FX API (client credentials)',
		corporateBankingMtlsApi: 'Sandbox bank: events (mutual TLS)',
		corporateBankingFileServiceApi: 'Sandbox bank: file service',
		corporateBankingEbicsApi: 'Sandbox bank: EBICS',
		corporateBankingSftpApi: 'Sandbox bank: host-to-host SFTP',
	};
	return label[type] ?? `Sandbox bank: ${type}`;
}

/** `n8n import:credentials` input for every credential type the package lists and the sandbox offers. */
export function sandboxCredentials(
	state: SandboxState,
): Array<{ id: string; name: string; type: string; data: Record<string, unknown> }> {
	const types = packageManifest().credentials;
	return Object.keys(state.credentials)
		.filter((key) => types.includes(key.split('#')[0]))
		.map((key) => ({
			id: credentialId(key),
			name: credentialName(key),
			type: key.split('#')[0],
			data: state.credentials[key],
		}));
}

/**
 * The folder the examples read bank files from: n8n 2.x's default allowed folder (`~/.n8n-files`)
 * in n8n's Docker image. A stack points it at the folder it allows (N8N_RESTRICT_FILE_ACCESS_TO).
 */
export const EXAMPLE_FILES_FOLDER = '/home/node/.n8n-files';

/** The File Service credential type: the one a credential enrolled from a PIN is of. */
export const FILE_SERVICE_CREDENTIAL = 'corporateBankingFileServiceApi';

/**
 * The examples that enrol a File Service credential from a one-time PIN, with the sandbox bank
 * profile each is written for. Each runs with a credential of its own that holds only a fresh PIN
 * (not enrolled yet), so that the example shows the enrolment.
 */
export const PIN_EXAMPLES: Readonly<Record<string, 'op' | 'danske'>> = {
	'file-service-enrol.json': 'op',
	'file-service-danske.json': 'danske',
};

/** The id and name of the PIN credential of a bank profile (see PIN_EXAMPLES). */
export function pinCredential(bank: string): { id: string; name: string } {
	const label = bank === 'danske' ? 'Danske Bank' : bank.toUpperCase();
	return { id: `sandbox-pin-${bank}`, name: `Sandbox bank: ${label} file service, enrols from a PIN` };
}

/** A stable n8n workflow id (16 alphanumerics) for an example file. */
export function workflowId(file: string): string {
	return `cb${createHash('sha256').update(file).digest('hex').slice(0, 14)}`;
}

export function exampleFiles(): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
}

export function loadExample(file: string): WorkflowJson {
	return JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
}

export function isManual(workflow: WorkflowJson): boolean {
	return workflow.nodes.some((n) => n.type === MANUAL_TRIGGER && !n.disabled);
}

/** Node types of the package the workflow uses (without prefix). */
export function packageNodeTypes(workflow: WorkflowJson): string[] {
	return [
		...new Set(
			workflow.nodes
				.filter((n) => n.type.startsWith(`${PACKAGE_NAME}.`))
				.map((n) => n.type.slice(PACKAGE_NAME.length + 1)),
		),
	];
}

/** Node types of the package the workflow uses that package.json does not list (without prefix). */
export function missingNodeTypes(workflow: WorkflowJson): string[] {
	const listed = packageManifest().nodes;
	return packageNodeTypes(workflow).filter((t) => !listed.includes(t));
}

/** The workflow's node of a package type (without prefix, e.g. `bankEventTrigger`). */
export function packageNode(workflow: WorkflowJson, type: string): WorkflowNode | undefined {
	return workflow.nodes.find((n) => n.type === `${PACKAGE_NAME}.${type}`);
}

/** The first example workflow that uses a node of a package type (without prefix). */
export function exampleUsing(type: string): { file: string; workflow: WorkflowJson } | undefined {
	return exampleFiles()
		.map((file) => ({ file, workflow: loadExample(file) }))
		.find(({ workflow }) => packageNode(workflow, type) !== undefined);
}

/**
 * Points an example at the sandbox bank; the result is ready for `n8n import:workflow`. The PIN
 * examples use their PIN credential (see the stack's `importPinCredentials`); an example reading
 * files from EXAMPLE_FILES_FOLDER reads them from `filesFolder`.
 */
/**
 * How often the tests' polling triggers poll: n8n refuses a poll time under a minute, but takes
 * several poll times, each once a minute at its own second. Twelve of them poll every five
 * seconds, so a test waits for the next poll seconds instead of up to a minute; the tests wait
 * for what the bank and n8n report, never for a time.
 */
export const TEST_POLL_SECONDS = 5;

/** Poll times for a polling trigger that polls every `seconds` seconds (a divisor of 60). */
export function pollTimesEvery(seconds: number): { item: Array<{ mode: 'custom'; cronExpression: string }> } {
	const item: Array<{ mode: 'custom'; cronExpression: string }> = [];
	for (let second = 0; second < 60; second += seconds) item.push({ mode: 'custom', cronExpression: `${second} * * * * *` });
	return { item };
}

export interface ImportOptions {
	/** The polling triggers poll every this many seconds (TEST_POLL_SECONDS) instead of as the example says. */
	pollEverySeconds?: number;
}

export function prepareForImport(
	file: string,
	state: SandboxState,
	caPem: string,
	filesFolder?: string,
	options: ImportOptions = {},
): WorkflowJson {
	const workflow = loadExample(file);
	const pinBank = PIN_EXAMPLES[file];
	for (const node of workflow.nodes) {
		if (options.pollEverySeconds && node.parameters.pollTimes) node.parameters.pollTimes = pollTimesEvery(options.pollEverySeconds);
		for (const type of Object.keys(node.credentials ?? {})) {
			node.credentials![type] =
				pinBank && type === FILE_SERVICE_CREDENTIAL
					? pinCredential(pinBank)
					: {
							id: credentialId(sandboxCredentialKey(type, node.credentials![type].id ?? undefined)),
							name: credentialName(sandboxCredentialKey(type, node.credentials![type].id ?? undefined)),
						};
		}
		if (typeof node.parameters.mockBaseUrl === 'string') {
			node.parameters.mockBaseUrl = state.urls.mockBase;
			node.parameters.connection = {
				...((node.parameters.connection as object) ?? {}),
				caCertificate: caPem,
			};
		}
		const selector = node.parameters.fileSelector;
		if (filesFolder && typeof selector === 'string' && selector.startsWith(`${EXAMPLE_FILES_FOLDER}/`))
			node.parameters.fileSelector = `${filesFolder}${selector.slice(EXAMPLE_FILES_FOLDER.length)}`;
		if (node.type === `${PACKAGE_NAME}.bankEventTrigger`) {
			const ev = state.events;
			// An empty Events URL means {credential Base URL}/events: the credential already points at the sandbox.
			if (node.parameters.eventsUrl) node.parameters.eventsUrl = ev.eventsUrl;
			if ((node.parameters.keySource ?? 'jwks') === 'jwks') node.parameters.jwksUrl = ev.jwksUrl;
			node.parameters.issuer = ev.issuer;
			node.parameters.audience = ev.audience;
		}
	}
	return {
		...workflow,
		id: workflowId(file),
		name: workflow.name ?? file,
		active: false,
		settings: { executionOrder: 'v1', ...(workflow.settings ?? {}) },
	};
}
