/**
 * Enrolment in a real n8n: a File Service credential holding only a PIN (OP profile, the
 * sandbox's addresses) is tested through n8n's own REST API, as the editor does when the user
 * saves it. n8n runs the credential's preAuthentication, which enrols against the sandbox's
 * certificate service, and stores key and certificate encrypted in the credential. The
 * enrolment example then lists and downloads a statement with the new certificate, and nothing
 * in the run shows the key or the PIN.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { nodeError, nodeItems } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { setupOwner } from './lib/ui';
import { loadExample, packageManifest, PACKAGE_NAME, type WorkflowJson } from './lib/workflows';

const FILES = 'corporateBankingFileServiceApi';
const CREDENTIAL_ID = 'enrolled-from-pin-0001';
const EXAMPLE = 'file-service-enrol.json';
const skipReason = packageManifest().credentials.includes(FILES) ? undefined : `package.json does not list ${FILES}`;

let stack: Stack | undefined;
let pin = '';
let credentialData: Record<string, unknown> = {};

async function rest(path: string, cookie: string, body: unknown): Promise<{ status: number; json: { data?: { status?: string; message?: string } } }> {
	const response = await fetch(`${stack!.n8n.baseUrl}${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie, 'browser-id': 'e2e-enrolment' },
		body: JSON.stringify(body),
	});
	return { status: response.status, json: (await response.json().catch(() => ({}))) as { data?: { status?: string; message?: string } } };
}

async function adminPost(path: string, body: unknown): Promise<Record<string, unknown>> {
	return (await stack!.bank.admin('POST', path, body)) as Record<string, unknown>;
}

(skipReason ? describe.skip : describe)(`enrolment from a PIN in real n8n${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		credentialData = await adminPost('/enrolment', { bank: 'op' });
		pin = String(credentialData.pin);
		await stack.n8n.importCredentials([{ id: CREDENTIAL_ID, name: 'Bank File Service (enrolled from a PIN)', type: FILES, data: credentialData }]);
	}, 600_000);

	afterAll(async () => {
		await stack?.stop();
	}, 120_000);

	test('the credential test in n8n enrols: key and certificate stored in the credential, PIN cleared', async () => {
		await stack!.n8n.start();
		try {
			const cookie = await setupOwner(stack!.n8n.baseUrl);
			const result = await rest('/rest/credentials/test', cookie, {
				credentials: { id: CREDENTIAL_ID, name: 'Bank File Service (enrolled from a PIN)', type: FILES, data: credentialData },
			});
			expect(result.status).toBe(200);
			expect(result.json.data).toMatchObject({ status: 'OK' });
			const records = (await stack!.bank.admin('GET', '/enrolment')) as { records: Array<{ command: string; responseCode: string }> };
			expect(records.records.map((r) => [r.command, r.responseCode])).toEqual([['GetCertificate', '00']]);
		} finally {
			await stack!.n8n.stop();
		}
		const stored = (await stack!.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL_ID)!;
		const data = stored.data as Record<string, unknown>;
		expect(data.pin).toBe('');
		expect(String(data.enrolmentStatus)).toMatch(/^Certificate enrolled \d{4}-\d\d-\d\d; valid until /);
		const state = JSON.parse(String(data.enrolment)) as { certificatePem: string; privateKeyPem: string };
		expect(new X509Certificate(state.certificatePem).checkIssued(new X509Certificate(stack!.bank.caPem))).toBe(true);
		expect(state.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
		// The database holds it encrypted: neither the key nor the PIN is readable in the file.
		const database = readFileSync(stack!.n8n.databaseFile).toString('latin1');
		expect(database.includes(state.privateKeyPem.split('\n')[1])).toBe(false);
		expect(database.includes(pin)).toBe(false);
	}, 300_000);

	test('the example lists and downloads a statement with the enrolled certificate; no key or PIN in the run', async () => {
		const example = loadExample(EXAMPLE) as WorkflowJson;
		const workflow = { ...example, id: 'cbenrolmentexample1', active: false, settings: { executionOrder: 'v1' } };
		await stack!.n8n.importWorkflows([workflow]);
		const result = await stack!.n8n.execute('cbenrolmentexample1');
		expect(result.run).toBeDefined();
		const run = result.run!;
		for (const node of workflow.nodes.filter((n) => n.type.startsWith(`${PACKAGE_NAME}.`))) expect(nodeError(run, node.name)).toBeUndefined();
		const listed = nodeItems(run, 'List New Statements');
		expect(listed.length).toBeGreaterThan(0);
		const downloaded = nodeItems(run, 'Download Statement');
		expect(downloaded.length).toBe(listed.length);
		expect(downloaded[0].binary?.data).toBeDefined();
		const stored = (await stack!.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL_ID)!;
		const state = JSON.parse(String((stored.data as Record<string, unknown>).enrolment)) as { privateKeyPem: string };
		const shown = `${result.output}\n${JSON.stringify(run)}`;
		for (const line of state.privateKeyPem.split('\n').filter((l) => l.length > 40)) expect(shown.includes(line)).toBe(false);
		expect(shown.includes(pin)).toBe(false);
		expect(result.exitCode).toBe(0);
	}, 300_000);
});
