/**
 * A File Service credential holding only a PIN from the sandbox bank, in a real n8n: imported,
 * tested through n8n's REST API as the editor does when the user saves it (n8n's credential test
 * runs the enrolment), then used by an example that lists and downloads statements. What n8n
 * stores and shows is checked for the PIN and the private keys.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { CorporateBankingFileServiceApi } from '../../../credentials/CorporateBankingFileServiceApi.credentials';
import type { SandboxProcess } from './sandbox';

import { nodeError, nodeItems, type ExecuteResult } from './n8n';
import { requireContext, startStack, type Stack } from './stack';
import { setupOwner } from './ui';
import { loadExample, PACKAGE_NAME, type WorkflowJson } from './workflows';

export const FILES = 'corporateBankingFileServiceApi';

export interface PinCredential {
	id: string;
	name: string;
	/** The sandbox's enrolment dialect: a bank profile such as 'op', or 'danske'. */
	bank: string;
}

/** The stack of a test file and the values of the sandbox enrolment its credential holds. */
export interface Enrolled {
	stack: Stack;
	data: Record<string, unknown>;
	pin: string;
}

/**
 * Before the test file's tests: a stack, and the credential imported holding the values of a
 * fresh sandbox enrolment (PIN included); after them: the stack stopped. The result reads them.
 */
export function usePinCredential(credential: PinCredential): () => Enrolled {
	let enrolled: Enrolled | undefined;
	let stack: Stack | undefined;
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		const data = await stack.bank.admin<Record<string, unknown>>('POST', '/enrolment', {
			bank: credential.bank,
		});
		await stack.n8n.importCredentials([
			{ id: credential.id, name: credential.name, type: FILES, data },
		]);
		enrolled = { stack, data, pin: String(data.pin) };
	}, 600_000);

	afterAll(async () => {
		await stack?.stop();
	}, 120_000);

	return () => enrolled!;
}

/** The credential's values as n8n stores them (decrypted). */
export async function storedCredential(stack: Stack, id: string): Promise<Record<string, unknown>> {
	return (await stack.n8n.decryptedCredentials()).find((c) => c.id === id)!.data;
}

/** What n8n's credential test answers the editor: OK, or an error with the message it shows. */
export interface CredentialTestAnswer {
	status: 'OK' | 'Error';
	message?: string;
}

/** Tests credential values through n8n's REST API, as the editor does when the user saves them. */
export type CredentialTester = (values: Record<string, unknown>) => Promise<CredentialTestAnswer>;

/**
 * Starts n8n, signs the owner in and hands `use` a tester for the credential (stopping n8n after).
 */
export async function withCredentialTests(
	stack: Stack,
	credential: PinCredential,
	browserId: string,
	use: (test: CredentialTester) => Promise<void>,
): Promise<void> {
	await stack.n8n.start();
	try {
		const cookie = await setupOwner(stack.n8n.baseUrl);
		await use(async (values) => {
			const response = await fetch(`${stack.n8n.baseUrl}/rest/credentials/test`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', cookie, 'browser-id': browserId },
				body: JSON.stringify({
					credentials: { id: credential.id, name: credential.name, type: FILES, data: values },
				}),
			});
			expect(response.status).toBe(200);
			return ((await response.json().catch(() => ({}))) as { data: CredentialTestAnswer }).data;
		});
	} finally {
		await stack.n8n.stop();
	}
}

/**
 * Tests the credential through n8n's REST API as the editor does on save, with n8n started for
 * it (and stopped after `whileRunning`): n8n answers OK. Returns the credential's values as n8n
 * stores them afterwards.
 */
export async function credentialTestInN8n(
	{ stack, data }: Enrolled,
	credential: PinCredential,
	browserId: string,
	whileRunning: () => Promise<void> = async () => undefined,
): Promise<Record<string, unknown>> {
	await withCredentialTests(stack, credential, browserId, async (test) => {
		expect(await test(data)).toMatchObject({ status: 'OK' });
		await whileRunning();
	});
	return await storedCredential(stack, credential.id);
}

/** n8n's database holds the keys and the PIN encrypted: none of them is readable in its file. */
export function expectNotInDatabase(stack: Stack, keys: string[], pin: string): void {
	const database = readFileSync(stack.n8n.databaseFile).toString('latin1');
	for (const key of keys) expect(database.includes(key.split('\n')[1])).toBe(false);
	expect(database.includes(pin)).toBe(false);
}

/**
 * Imports an example that lists new statements and downloads each, runs it with `n8n execute`
 * and checks that no node of the package failed and every listed statement came as a file.
 * Returns the result, everything the run showed (its output and run data) and the credential's
 * values as n8n stores them afterwards.
 */
export async function runStatementExample(
	stack: Stack,
	credential: PinCredential,
	file: string,
	workflowId: string,
): Promise<{ result: ExecuteResult; shown: string; stored: Record<string, unknown> }> {
	const example = loadExample(file) as WorkflowJson;
	const workflow = {
		...example,
		id: workflowId,
		active: false,
		settings: { executionOrder: 'v1' },
	};
	await stack.n8n.importWorkflows([workflow]);
	const result = await stack.n8n.execute(workflowId);
	expect(result.run).toBeDefined();
	const run = result.run!;
	for (const node of workflow.nodes.filter((n) => n.type.startsWith(`${PACKAGE_NAME}.`)))
		expect(nodeError(run, node.name)).toBeUndefined();
	const listed = nodeItems(run, 'List New Statements');
	expect(listed.length).toBeGreaterThan(0);
	const downloaded = nodeItems(run, 'Download Statement');
	expect(downloaded.length).toBe(listed.length);
	expect(downloaded[0].binary?.data).toBeDefined();
	return {
		result,
		shown: `${result.output}\n${JSON.stringify(run)}`,
		stored: await storedCredential(stack, credential.id),
	};
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

