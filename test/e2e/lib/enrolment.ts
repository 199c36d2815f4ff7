/**
 * File Service credentials holding only a PIN from the sandbox bank, in a real n8n: imported into
 * one stack for a whole test file, saved through n8n's REST API as the editor does (PATCH, then
 * n8n's credential test, which runs the enrolment), then used by examples that list and download
 * statements. What n8n stores and shows is checked for the PIN and the private keys. Also the
 * fields a person fills in to enrol (the demo and the editor test print and type them).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { CorporateBankingFileServiceApi } from '../../../credentials/CorporateBankingFileServiceApi.credentials';
import type { SandboxProcess } from './sandbox';

import { nodeError, nodeItems, type ExecuteResult } from './n8n';
import { requireContext, startStack, type Stack } from './stack';
import { setupOwner } from './ui';
import { loadExample, PACKAGE_NAME, workflowId, type WorkflowJson } from './workflows';

export const FILES = 'corporateBankingFileServiceApi';

export interface PinCredential {
	id: string;
	name: string;
	/** The sandbox's enrolment dialect: a bank profile such as 'op', or 'danske'. */
	bank: string;
}

/** What n8n's credential test answers the editor: OK, or an error with the message it shows. */
export interface CredentialTestAnswer {
	status: 'OK' | 'Error';
	message?: string;
}

/**
 * n8n's REST API as the editor uses it for File Service credentials, while n8n runs, signed in as
 * the owner.
 */
export interface Editor {
	/** POST /rest/credentials/test with these values, as the editor does when the user saves. */
	test(credential: PinCredential, values: Record<string, unknown>): Promise<CredentialTestAnswer>;
	/** The credential as the editor loads it (GET ?includeData=true): secret fields redacted. */
	load(credential: PinCredential): Promise<Record<string, unknown>>;
	/**
	 * The editor's "Save" of a credential it loaded, with `change` typed in: PATCH, then the
	 * credential test n8n runs after it. Returns the test's answer.
	 */
	save(credential: PinCredential, change: Record<string, unknown>): Promise<CredentialTestAnswer>;
}

async function rest<T>(stack: Stack, cookie: string, method: string, url: string, body?: unknown): Promise<T> {
	const response = await fetch(`${stack.n8n.baseUrl}${url}`, {
		method,
		headers: { 'content-type': 'application/json', cookie, 'browser-id': 'e2e-enrolment' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (response.status !== 200) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 500)}`);
	return (JSON.parse(text) as { data: T }).data;
}

/** Signs in to the running n8n of `stack` as the owner and returns the editor's calls. */
export async function editorOf(stack: Stack): Promise<Editor> {
	const cookie = await setupOwner(stack.n8n.baseUrl);
	const test = async (credential: PinCredential, values: Record<string, unknown>) =>
		await rest<CredentialTestAnswer>(stack, cookie, 'POST', '/rest/credentials/test', {
			credentials: { id: credential.id, name: credential.name, type: FILES, data: values },
		});
	const load = async (credential: PinCredential) =>
		(await rest<{ data: Record<string, unknown> }>(stack, cookie, 'GET', `/rest/credentials/${credential.id}?includeData=true`)).data;
	return {
		test,
		load,
		async save(credential, change) {
			const values = { ...(await load(credential)), ...change };
			await rest(stack, cookie, 'PATCH', `/rest/credentials/${credential.id}`, { name: credential.name, type: FILES, data: values });
			return await test(credential, values);
		},
	};
}

/** The PIN credentials of an e2e file: each with the values of a fresh sandbox enrolment. */
export interface PinStack {
	stack: Stack;
	editor: Editor;
	/** The values each credential was imported with (its PIN included), by credential id. */
	values: Record<string, Record<string, unknown>>;
}

/**
 * Before the test file's tests: ONE stack for the whole file (each n8n start costs tens of
 * seconds): the credentials imported, each holding the values of a fresh sandbox enrolment for
 * its bank (and `change` applied), the example workflows imported, n8n started and the owner
 * signed in. After them: the stack stopped. Tests that run `n8n execute` stop n8n first.
 */
export function usePinStack(
	credentials: Array<PinCredential & { change?: Record<string, unknown> }>,
	examples: string[] = [],
): () => PinStack {
	let ready: PinStack | undefined;
	let stack: Stack | undefined;
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		const values: Record<string, Record<string, unknown>> = {};
		for (const credential of credentials) {
			const fresh = await stack.bank.admin<Record<string, unknown>>('POST', '/enrolment', { bank: credential.bank });
			values[credential.id] = { ...fresh, ...(credential.change ?? {}) };
		}
		await stack.n8n.importCredentials(credentials.map((c) => ({ id: c.id, name: c.name, type: FILES, data: values[c.id] })));
		if (examples.length) await stack.n8n.importWorkflows(examples.map((file) => ({ ...loadExample(file), id: workflowId(file), active: false, settings: { executionOrder: 'v1' } })));
		await stack.n8n.start();
		ready = { stack, editor: await editorOf(stack), values };
	}, 600_000);

	afterAll(async () => {
		await stack?.stop();
	}, 120_000);

	return () => ready!;
}

/** n8n's database holds the keys and the PIN encrypted: none of them is readable in its file. */
export function expectNotInDatabase(stack: Stack, keys: string[], pin: string): void {
	const database = readFileSync(stack.n8n.databaseFile).toString('latin1');
	for (const key of keys) expect(database.includes(key.split('\n')[1])).toBe(false);
	expect(database.includes(pin)).toBe(false);
}

/**
 * Runs an example imported by usePinStack (it lists new statements and downloads each) with
 * `n8n execute` (n8n stopped first: both share the database) and checks that no node of the
 * package failed and every listed statement came as a file. Returns the result and everything the
 * run showed (its output and run data).
 */
export async function runStatementExample(
	stack: Stack,
	file: string,
): Promise<{ result: ExecuteResult; shown: string }> {
	if (stack.n8n.running) await stack.n8n.stop();
	const workflow = loadExample(file) as WorkflowJson;
	const result = await stack.n8n.execute(workflowId(file));
	expect(result.run).toBeDefined();
	const run = result.run!;
	for (const node of workflow.nodes.filter((n) => n.type.startsWith(`${PACKAGE_NAME}.`)))
		expect(nodeError(run, node.name)).toBeUndefined();
	const listed = nodeItems(run, 'List New Statements');
	expect(listed.length).toBeGreaterThan(0);
	const downloaded = nodeItems(run, 'Download Statement');
	expect(downloaded.length).toBe(listed.length);
	expect(downloaded[0].binary?.data).toBeDefined();
	return { result, shown: `${result.output}\n${JSON.stringify(run)}` };
}

/** No line of a private key long enough to recognise, and not the PIN, in what a run showed. */
export function expectNotShown(shown: string, keys: string[], pin: string): void {
	for (const key of keys) {
		for (const line of key.split('\n').filter((l) => l.length > 40))
			expect(shown.includes(line)).toBe(false);
	}
	expect(shown.includes(pin)).toBe(false);
}

/** One field of the File Service credential as a person fills it in to enrol with a PIN. */
export interface PinField {
	/** The field's label in the editor. */
	label: string;
	/** The credential parameter behind it. */
	name: string;
	/** `option`: pick this option's label; `text`: type it; `file`: paste the content of `file`. */
	kind: 'option' | 'text' | 'file';
	value: string;
	file?: string;
	/** Not needed in the demo's n8n (it trusts the sandbox's CA already). */
	optional?: boolean;
}

/** The sandbox bank profiles the demo hands out PINs for, with the name the editor shows. */
export const PIN_BANKS: Record<string, string> = {
	nordea: 'Nordea',
	op: 'OP Financial Group',
	samlink: 'Samlink',
	danske: 'Danske Bank',
};

const credentialProperties = (): INodeProperties[] => new CorporateBankingFileServiceApi().properties;

/**
 * A fresh one-time PIN from the sandbox bank for a bank profile, as the fields of a new File
 * Service credential a person fills in, top to bottom as the editor shows them: options by their
 * label, texts as they are, certificates (multi-line) as files written into `folder` whose content
 * is pasted. Saving the credential enrols it (n8n tests it, which enrols).
 */
export async function pinForm(
	bank: SandboxProcess,
	profile: string,
	folder: string,
): Promise<{ profile: string; pin: string; fields: PinField[] }> {
	const values = await bank.admin<Record<string, unknown>>('POST', '/enrolment', { bank: profile });
	const fields: PinField[] = [];
	for (const property of credentialProperties()) {
		const value = values[property.name];
		if (typeof value !== 'string' || value === '' || fields.some((f) => f.label === property.displayName)) continue;
		if (property.type === 'options') {
			const option = (property.options as INodePropertyOptions[]).find((o) => o.value === value);
			fields.push({ label: property.displayName, name: property.name, kind: 'option', value: option?.name ?? value });
		} else if (value.includes('\n')) {
			mkdirSync(folder, { recursive: true });
			const file = path.join(folder, `${profile}-${property.name}.pem`);
			writeFileSync(file, value);
			fields.push({ label: property.displayName, name: property.name, kind: 'file', value, file, optional: property.name === 'caCertificate' });
		} else {
			fields.push({ label: property.displayName, name: property.name, kind: 'text', value });
		}
	}
	return { profile, pin: String(values.pin), fields };
}

/** The lines the demo prints for one PIN: what goes into which field. */
export function pinFormLines(form: { profile: string; fields: PinField[] }): string[] {
	const width = Math.max(...form.fields.map((f) => f.label.length)) + 1;
	return [
		`  ${PIN_BANKS[form.profile] ?? form.profile}:`,
		...form.fields.map((field) => {
			const label = `${field.label}:`.padEnd(width + 1);
			if (field.kind === 'file')
				return `    ${label} paste the content of ${field.file}${field.optional ? ' (optional here: this n8n already trusts the sandbox\'s CA)' : ''}`;
			if (field.kind === 'option') return `    ${label} choose "${field.value}"`;
			return `    ${label} ${field.value}`;
		}),
	];
}

