/**
 * What the EBICS end-to-end tests read from the sandbox EBICS bank's admin API, waiting for a
 * state of it (an event at the bank, never a time), and running their workflows.
 */
import path from 'node:path';

import type { INodePropertyOptions } from 'n8n-workflow';

import { CorporateBankingEbicsApi } from '../../../credentials/CorporateBankingEbicsApi.credentials';
import { nodeError, sleep, type ExecuteResult } from './n8n';
import type { SandboxProcess } from './sandbox';
import type { Stack } from './stack';
import { credentialName, type WorkflowJson } from './workflows';

/** The EBICS credential type. */
export const EBICS_CREDENTIAL = 'corporateBankingEbicsApi';

export interface EbicsBankFile {
	id?: number;
	serviceName: string;
	msgName: string;
	name: string;
	delivered: boolean;
}

/** A subscriber's end-of-day statements (camt.053) at the bank. */
export async function statementsAt(stack: Stack, partnerId: string, userId: string): Promise<EbicsBankFile[]> {
	const { subscribers } = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; files: EbicsBankFile[] }> }>('GET', '/ebics/subscribers');
	const subscriber = subscribers.find((s) => s.partnerId === partnerId && s.userId === userId)!;
	return subscriber.files.filter((f) => f.serviceName === 'EOP' && f.msgName === 'camt.053');
}

/** Reads until `check` holds; fails naming `what` (and the last value read) after 3 minutes. */
export async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
	const deadline = Date.now() + 180_000;
	for (;;) {
		const value = await read();
		if (check(value)) return value;
		if (Date.now() > deadline) throw new Error(`waited 180 s for ${what}; last: ${JSON.stringify(value)}`);
		await sleep(500);
	}
}

/** A workflow to import, its EBICS nodes using `credential`, under this id and name. */
export function withEbicsCredential(workflow: WorkflowJson, credential: { id: string; name: string }, id: string, name: string): WorkflowJson {
	for (const node of workflow.nodes) if (node.credentials?.[EBICS_CREDENTIAL]) node.credentials[EBICS_CREDENTIAL] = { ...credential };
	return { ...workflow, id, name, active: false, settings: { executionOrder: 'v1' } };
}

/**
 * Runs a workflow with `n8n execute` (n8n stopped first: both share the database), keeps its
 * output in `outputs` for the secret checks, and expects no node to have failed.
 */
export async function executeCleanly(stack: Stack, id: string, outputs: string[]): Promise<ExecuteResult> {
	await stack.n8n.stop();
	const result = await stack.n8n.execute(id);
	outputs.push(result.output);
	if (!result.run) throw new Error(`no run JSON in the output of n8n execute (exit ${result.exitCode}):\n${result.output.slice(-3000)}`);
	for (const name of Object.keys(result.run.data.resultData.runData)) expect([name, nodeError(result.run, name)?.message]).toEqual([name, undefined]);
	return result;
}

/** Manual Trigger -> one EBICS node named `name` with these parameters (its credential set by withEbicsCredential). */
export function ebicsNodeWorkflow(name: string, parameters: Record<string, unknown>): WorkflowJson {
	return {
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'ebics', name, type: 'n8n-nodes-corporate-banking.ebics', typeVersion: 1, position: [240, 0], parameters, credentials: { [EBICS_CREDENTIAL]: { id: '', name: '' } } },
		],
		connections: { Start: { main: [[{ node: name, type: 'main', index: 0 }]] } },
	} as WorkflowJson;
}

/** One field of the EBICS credential as a person fills it in for a new subscriber. */
export interface EbicsFormField {
	/** The field's label in the editor (read from the credential type). */
	label: string;
	/** The credential parameter behind it. */
	name: string;
	value: string;
}

/** What the sandbox EBICS bank gives a person to try a new subscriber (`npm run demo -- --ui`). */
export interface EbicsForm {
	/** The fields of a new EBICS credential, top to bottom as the editor shows them. */
	fields: EbicsFormField[];
	/** The other subscribers the bank has that nothing was sent for yet (Partner ID / User ID). */
	moreFree: string[];
	/** The subscribers ready already (their keys are in the demo's imported credential). */
	ready: string[];
	/** What the editor shows in EBICS Version and Subscriber Keys of a new credential: left as they are. */
	defaults: string[];
	/** Activates the subscriber of `fields` at the bank, as the bank does once it has the letters. */
	activate: string;
	/** The same, for any subscriber: `{partnerId}` and `{userId}` to replace. */
	activateAny: string;
}

interface AdminSubscribers {
	hostId: string;
	bankHashes: { authentication: string; encryption: string };
	subscribers: Array<{ partnerId: string; userId: string; state: string }>;
}

/**
 * The fields a person types into a new EBICS credential for a free subscriber of this sandbox
 * bank (its first subscriber nothing was sent for), labelled as the editor labels them, with the
 * bank's key hashes as its letter prints them (on one line) and the command that activates the
 * subscriber at this very bank (its admin address, its test CA).
 */
export async function ebicsForm(bank: SandboxProcess): Promise<EbicsForm> {
	const info = await bank.admin<AdminSubscribers>('GET', '/ebics/subscribers');
	const free = info.subscribers.filter((s) => s.state === 'new');
	if (!free.length) throw new Error('the sandbox EBICS bank has no subscriber left that nothing was sent for');
	const [first] = free;
	const values: Record<string, string> = {
		url: bank.state.urls.ebics,
		hostId: info.hostId,
		partnerId: first.partnerId,
		userId: first.userId,
		bankAuthenticationHash: info.bankHashes.authentication.replace(/\s+/g, ' '),
		bankEncryptionHash: info.bankHashes.encryption.replace(/\s+/g, ' '),
	};
	const properties = new CorporateBankingEbicsApi().properties;
	const defaults = properties
		.filter((property) => property.name === 'ebicsVersion' || property.name === 'keySource')
		.map((property) => String((property.options as INodePropertyOptions[]).find((o) => o.value === property.default)?.name));
	const fields: EbicsFormField[] = properties
		.filter((property) => values[property.name] !== undefined)
		.map((property) => ({ label: property.displayName, name: property.name, value: values[property.name] }));
	const command = (partnerId: string, userId: string): string =>
		`curl --cacert ${path.join(bank.state.certDir, 'ca.crt')} -X POST ${bank.state.urls.admin}/ebics/subscribers/${partnerId}/${userId}/activate`;
	return {
		fields,
		defaults,
		moreFree: free.slice(1).map((s) => `${s.partnerId} / ${s.userId}`),
		ready: info.subscribers.filter((s) => s.state === 'ready').map((s) => `${s.partnerId} / ${s.userId}`),
		activate: command(first.partnerId, first.userId),
		activateAny: command('{partnerId}', '{userId}'),
	};
}

/** The lines the demo prints for a new EBICS subscriber: what goes into which field, then what to do. */
export function ebicsFormLines(form: EbicsForm): string[] {
	const width = Math.max(...form.fields.map((f) => f.label.length)) + 2;
	return [
		...form.fields.map((field) => `    ${`${field.label}:`.padEnd(width)} ${field.value}`),
		`    ${'EBICS Version, Subscriber Keys:'.padEnd(width)} leave them as they are (${form.defaults.join(', ')})`,
		'  Save: the test makes the keys and sends INI and HIA. Print the letters (EBICS node, Initialisation Letters), then activate the subscriber as the bank does once it has them:',
		`    ${form.activate}`,
		"  and open the credential again: its test fetches the bank's keys (HPB) and the subscriber is ready.",
		...(form.moreFree.length
			? [`  Other free subscribers (Partner ID / User ID): ${form.moreFree.join(', ')}; activate one with`, `    ${form.activateAny}`]
			: []),
		...(form.ready.length ? [`  Ready already: ${form.ready.join(', ')} (the credential "${credentialName(EBICS_CREDENTIAL)}" is PARTNER2 / READY1, its keys imported)`] : []),
	];
}
