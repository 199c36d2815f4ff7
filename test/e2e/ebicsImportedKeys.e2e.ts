/**
 * Key changes of imported EBICS keys in a real n8n: the packed package in n8n 2.41, the sandbox
 * EBICS bank as its own process, the workflows run with `n8n execute`.
 *
 * 1. The sandbox's ready subscriber PARTNER2/READY1, initialised by another client, its keys
 *    pasted in the credential (Import Keys); Change Keys (HCS) replaces all three at the bank: the
 *    bank holds the new keys, whose hashes the item prints, and the item says the pasted keys are
 *    superseded. n8n keeps the new keys in the credential's hidden state; the pasted fields stay.
 * 2. The statements example, with the new keys, fetches the camt.053 statements, delivered at the
 *    bank after.
 * 3. No private key (the pasted ones, the new ones) in any output or n8n's log.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { N8N_VERSION } from './lib/install';
import { EBICS_CREDENTIAL as EBICS, ebicsNodeWorkflow, executeCleanly, withEbicsCredential } from './lib/ebicsSandbox';
import { nodeItems } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { loadExample } from './lib/workflows';

const CREDENTIAL = { id: 'ebics-imported-key01', name: 'Bank EBICS (imported keys)' };
const WORKFLOWS = { keys: 'cbebicsimpkeychg01', statements: 'cbebicsimpstatmt01' };
const PASTED = ['signaturePrivateKey', 'signatureCertificate', 'authenticationPrivateKey', 'authenticationCertificate', 'encryptionPrivateKey', 'encryptionCertificate'];

interface SubscriberInfo {
	partnerId: string;
	userId: string;
	keyHashes: Record<'signature' | 'authentication' | 'encryption', string | null>;
	files: Array<{ msgName: string; name: string; delivered: boolean }>;
}

let stack: Stack;
let pastedFields: Record<string, unknown>;
const outputs: string[] = [];

const subscriber = async (): Promise<SubscriberInfo> => {
	const all = await stack.bank.admin<{ subscribers: SubscriberInfo[] }>('GET', '/ebics/subscribers');
	return all.subscribers.find((s) => s.partnerId === 'PARTNER2' && s.userId === 'READY1')!;
};

const credentialData = async (): Promise<Record<string, unknown>> => (await stack.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL.id)!.data;

beforeAll(async () => {
	const { install, pkg } = requireContext();
	stack = await startStack({ install, pkg, n8nPort: 15714 });
	const data = stack.bank.state.credentials[EBICS] as Record<string, unknown>;
	expect(data).toMatchObject({ keySource: 'import', partnerId: 'PARTNER2', userId: 'READY1' });
	pastedFields = Object.fromEntries(PASTED.map((field) => [field, data[field]]));
	await stack.n8n.importCredentials([{ ...CREDENTIAL, type: EBICS, data }]);
	await stack.n8n.importWorkflows([
		withEbicsCredential(
			ebicsNodeWorkflow('Change Keys', { operation: 'changeKeys', keyChangeOrder: 'HCS', confirmKeyChange: true }),
			CREDENTIAL,
			WORKFLOWS.keys,
			'EBICS imported keys: change keys',
		),
		withEbicsCredential(loadExample('ebics-statements.json'), CREDENTIAL, WORKFLOWS.statements, 'EBICS imported keys: statements'),
	]);
}, 600_000);

afterAll(async () => {
	await stack?.stop();
});

describe(`imported EBICS keys changed in real n8n ${N8N_VERSION}`, () => {
	test('Change Keys (HCS) replaces the pasted keys at the bank; the credential keeps the new ones and its pasted fields as they were', async () => {
		const before = await subscriber();
		const run = (await executeCleanly(stack, WORKFLOWS.keys, outputs)).run!;
		const [changed] = nodeItems(run, 'Change Keys');
		expect(changed.json).toMatchObject({ changed: true, order: 'HCS', recovered: false, pastedKeysSuperseded: true });
		expect(String(changed.json.notice)).toMatch(/^The keys pasted in the credential are superseded by this change/);
		// The bank holds other keys for all three; the statements below prove they are the new ones.
		const after = await subscriber();
		for (const key of ['signature', 'authentication', 'encryption'] as const) expect(after.keyHashes[key]).not.toBe(before.keyHashes[key]);
		const data = await credentialData();
		expect(Object.fromEntries(PASTED.map((field) => [field, data[field]]))).toEqual(pastedFields);
		const state = JSON.parse(String(data.ebicsState)) as { generated: Record<string, { certificatePem: string }>; pastedReplaced?: { fingerprint: string } };
		// The item's hashes are the EBICS 3.0 hashes (SHA-256 of the certificate) of the new keys kept in the credential.
		const certificateHash = (pem: string) => (createHash('sha256').update(new X509Certificate(pem).raw).digest('hex').toUpperCase().match(/../g) ?? []).join(' ');
		for (const key of ['signature', 'authentication', 'encryption']) {
			expect(String((changed.json.hashes as Record<string, string>)[key]).replace(/\s+/g, ' ')).toBe(certificateHash(state.generated[key].certificatePem));
			expect(state.generated[key].certificatePem).not.toBe(pastedFields[`${key}Certificate`]);
		}
		expect(state.pastedReplaced?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
		expect(String(data.ebicsStatus)).toMatch(/The pasted keys are superseded by the key change made on \d{4}-\d\d-\d\d/);
	});

	test('with the new keys the statements example fetches the camt.053 statements, delivered at the bank after', async () => {
		const waiting = (await subscriber()).files.filter((f) => f.msgName === 'camt.053' && !f.delivered);
		expect(waiting.length).toBeGreaterThan(0);
		const run = (await executeCleanly(stack, WORKFLOWS.statements, outputs)).run!;
		const files = nodeItems(run, 'Download Statements (BTD)');
		expect(files.map((f) => f.json.fileName).sort()).toEqual(waiting.map((f) => f.name).sort());
		expect((await subscriber()).files.filter((f) => f.msgName === 'camt.053').every((f) => f.delivered)).toBe(true);
	});

	test("no private key, pasted or new, in any output or in n8n's log", async () => {
		const data = await credentialData();
		const state = JSON.parse(String(data.ebicsState)) as { generated: Record<string, { privateKeyPem: string }> };
		const log = readFileSync(stack.n8n.logFile, 'utf8');
		const pems = [...Object.values(state.generated).map((pair) => pair.privateKeyPem), ...['signaturePrivateKey', 'authenticationPrivateKey', 'encryptionPrivateKey'].map((field) => String(pastedFields[field]))];
		expect(pems.length).toBe(6);
		for (const pem of pems) {
			const body = pem.split('\n')[1];
			expect(body.length).toBeGreaterThan(40);
			for (const text of [...outputs, log]) expect(text.includes(body)).toBe(false);
		}
	});
});
