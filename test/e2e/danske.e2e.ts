/**
 * Danske Bank in a real n8n: a File Service credential holding only a PIN (Danske Bank profile,
 * the sandbox's Danske addresses, the sandbox CA pinned as the bank's root) is tested through
 * n8n's own REST API, as the editor does when the user saves it. n8n runs the credential's
 * preAuthentication, which enrols through the sandbox's PKIFactoryService (GetBankCertificate,
 * CreateCertificate with the PIN, CertificateStatus) and stores both key pairs encrypted in the
 * credential. The Danske example then lists and downloads statements, every request encrypted and
 * every answer decrypted, and nothing in the run shows a key or the PIN.
 */
import { readFileSync } from 'node:fs';

import { nodeError, nodeItems } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { setupOwner } from './lib/ui';
import { loadExample, packageManifest, PACKAGE_NAME, type WorkflowJson } from './lib/workflows';

const FILES = 'corporateBankingFileServiceApi';
const CREDENTIAL_ID = 'bank-files-danske';
const CREDENTIAL_NAME = 'Danske Bank File Service (enrolled from a PIN)';
const EXAMPLE = 'file-service-danske.json';
const skipReason = packageManifest().credentials.includes(FILES) ? undefined : `package.json does not list ${FILES}`;

let stack: Stack | undefined;
let pin = '';
let credentialData: Record<string, unknown> = {};

interface State {
	certificatePem: string;
	privateKeyPem: string;
	encryption: { certificatePem: string; privateKeyPem: string };
}

(skipReason ? describe.skip : describe)(`Danske Bank in real n8n${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		credentialData = (await stack.bank.admin('POST', '/enrolment', { bank: 'danske' })) as Record<string, unknown>;
		pin = String(credentialData.pin);
		await stack.n8n.importCredentials([{ id: CREDENTIAL_ID, name: CREDENTIAL_NAME, type: FILES, data: credentialData }]);
	}, 600_000);

	afterAll(async () => {
		await stack?.stop();
	}, 120_000);

	test('the credential test in n8n enrols through the PKIFactoryService: two key pairs stored, PIN cleared', async () => {
		await stack!.n8n.start();
		try {
			const cookie = await setupOwner(stack!.n8n.baseUrl);
			const response = await fetch(`${stack!.n8n.baseUrl}/rest/credentials/test`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', cookie, 'browser-id': 'e2e-danske' },
				body: JSON.stringify({ credentials: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME, type: FILES, data: credentialData } }),
			});
			expect(response.status).toBe(200);
			expect(((await response.json()) as { data?: unknown }).data).toMatchObject({ status: 'OK' });
		} finally {
			await stack!.n8n.stop();
		}
		const stored = (await stack!.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL_ID)!;
		const data = stored.data as Record<string, unknown>;
		expect(data.pin).toBe('');
		expect(String(data.enrolmentStatus)).toMatch(/^Signing and encryption certificates enrolled /);
		const state = JSON.parse(String(data.enrolment)) as State;
		expect(state.encryption.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
		const database = readFileSync(stack!.n8n.databaseFile).toString('latin1');
		for (const key of [state.privateKeyPem, state.encryption.privateKeyPem]) expect(database.includes(key.split('\n')[1])).toBe(false);
		expect(database.includes(pin)).toBe(false);
	}, 300_000);

	test('the Danske example lists and downloads statements, encrypted both ways; no key or PIN in the run', async () => {
		const example = loadExample(EXAMPLE) as WorkflowJson;
		const workflow = { ...example, id: 'cbdanskeexample001', active: false, settings: { executionOrder: 'v1' } };
		await stack!.n8n.importWorkflows([workflow]);
		const result = await stack!.n8n.execute('cbdanskeexample001');
		expect(result.run).toBeDefined();
		const run = result.run!;
		for (const node of workflow.nodes.filter((n) => n.type.startsWith(`${PACKAGE_NAME}.`))) expect(nodeError(run, node.name)).toBeUndefined();
		const listed = nodeItems(run, 'List New Statements');
		expect(listed.length).toBeGreaterThan(0);
		const downloaded = nodeItems(run, 'Download Statement');
		expect(downloaded.length).toBe(listed.length);
		expect(downloaded[0].binary?.data).toBeDefined();
		const stored = (await stack!.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL_ID)!;
		const state = JSON.parse(String((stored.data as Record<string, unknown>).enrolment)) as State;
		const shown = `${result.output}\n${JSON.stringify(run)}`;
		for (const key of [state.privateKeyPem, state.encryption.privateKeyPem]) {
			for (const line of key.split('\n').filter((l) => l.length > 40)) expect(shown.includes(line)).toBe(false);
		}
		expect(shown.includes(pin)).toBe(false);
		expect(result.exitCode).toBe(0);
	}, 300_000);
});
