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
 * 3. New Keys for Change Keys: in n8n's editor (headless Chromium) the switch turned on and a new
 *    signature key with a certificate the bank's authority issued pasted into the credential,
 *    which the editor saves and tests; Change Keys (PUB) then sends that key, not one made in n8n.
 * 4. No private key (the pasted ones, the new ones) in any output or n8n's log.
 */
import { createHash, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { ensureChromium, N8N_VERSION } from './lib/install';
import { parameterInput } from './lib/editor';
import { launchChromium, setupOwner, signedInContext } from './lib/ui';
import { EBICS_CREDENTIAL as EBICS, ebicsNodeWorkflow, executeCleanly, withEbicsCredential } from './lib/ebicsSandbox';
import { nodeItems } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { loadExample } from './lib/workflows';
import { issueCustomerCertificate, loadOrCreatePki } from '../sandbox/certs';

const CREDENTIAL = { id: 'ebics-imported-key01', name: 'Bank EBICS (imported keys)' };
const chromium = ensureChromium((line) => process.stderr.write(`[e2e] ${line}\n`));
/** The editor test needs Chromium (the e2e set-up installs it). */
const inEditor = chromium.path ? test : test.skip;
const WORKFLOWS = { keys: 'cbebicsimpkeychg01', statements: 'cbebicsimpstatmt01', pub: 'cbebicsimpkeypub01' };
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
/** The private key of the new signature key pasted for Change Keys (test 3). */
let newSignatureKeyPem = '';

const subscriber = async (): Promise<SubscriberInfo> => {
	const all = await stack.bank.admin<{ subscribers: SubscriberInfo[] }>('GET', '/ebics/subscribers');
	return all.subscribers.find((s) => s.partnerId === 'PARTNER2' && s.userId === 'READY1')!;
};

/** The sandbox's key hash of an RSA public key: SHA-256 of its exponent and modulus in hex, as EBICS 2.5 letters print it. */
function keyHash(publicKey: KeyObject): string {
	const jwk = publicKey.export({ format: 'jwk' });
	const hex = (value: string) => Buffer.from(value, 'base64url').toString('hex').replace(/^0+/, '');
	return createHash('sha256').update(`${hex(jwk.e!)} ${hex(jwk.n!)}`, 'ascii').digest('hex');
}

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
		withEbicsCredential(
			ebicsNodeWorkflow('Change Keys', { operation: 'changeKeys', keyChangeOrder: 'PUB', confirmKeyChange: true }),
			CREDENTIAL,
			WORKFLOWS.pub,
			'EBICS imported keys: new signature key pasted',
		),
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

	inEditor('New Keys for Change Keys, pasted in the editor: PUB sends the signature key pasted with its issued certificate; the bank holds that key', async () => {
		const before = await subscriber();
		const pki = await loadOrCreatePki(stack.bank.state.certDir);
		const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
		newSignatureKeyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
		const issued = issueCustomerCertificate(pki, { commonName: 'Renewed Signature', country: 'FR' }, pair.publicKey, new Date(Date.now() - 86_400_000), new Date(Date.now() + 365 * 86_400_000));
		expect(new X509Certificate(issued).issuer).not.toBe(new X509Certificate(issued).subject);
		// In the editor: the switch turned on shows the new fields; the pair pasted; Save stores and tests the credential.
		await stack.n8n.start();
		const browser = await launchChromium(chromium.path!);
		try {
			const context = await signedInContext(browser, stack.n8n.baseUrl, await setupOwner(stack.n8n.baseUrl), { debounce: false });
			const page = await context.newPage();
			await page.goto(`${stack.n8n.baseUrl}/home/credentials/${CREDENTIAL.id}`, { waitUntil: 'commit' });
			const dialog = page.locator('[data-test-id="credential-edit-dialog"]:visible').first();
			const toggle = dialog.locator('[data-test-id="parameter-input-replacementKeys"]');
			await toggle.waitFor();
			expect(await dialog.locator('[data-test-id="parameter-input-newSignatureCertificate"]').count()).toBe(0);
			await toggle.locator('[role="switch"], .el-switch').first().click();
			for (const [name, value] of [['newSignatureCertificate', issued], ['newSignaturePrivateKey', newSignatureKeyPem]]) {
				const input = parameterInput(dialog, name);
				await input.click();
				await input.fill(value);
				await input.press('Tab');
			}
			const saved = page.waitForRequest((r) => /\/rest\/credentials\//.test(r.url()) && ['PATCH', 'POST'].includes(r.method()) && !/\/test$/.test(r.url()));
			const tested = page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()));
			await page.locator('[data-test-id="credential-save-button"]').click();
			const sent = ((await saved).postDataJSON() as { data: Record<string, unknown> }).data;
			expect(sent).toMatchObject({ replacementKeys: true, newSignatureCertificate: issued });
			expect(String(sent.newSignaturePrivateKey).trim()).toBe(newSignatureKeyPem.trim());
			// The credential test checks the pasted pair and the subscriber as it stands (nothing changes at the bank yet).
			expect(((await (await tested).json()) as { data: unknown }).data).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect(await subscriber()).toEqual(before);
		} finally {
			await browser.close();
			await stack.n8n.stop();
		}
		const run = (await executeCleanly(stack, WORKFLOWS.pub, outputs)).run!;
		const [changed] = nodeItems(run, 'Change Keys');
		expect(changed.json).toMatchObject({ changed: true, order: 'PUB', recovered: false });
		const certificateHash = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
		expect(String((changed.json.hashes as Record<string, string>).signature).replace(/\s+/g, '').toLowerCase()).toBe(certificateHash(issued));
		const state = JSON.parse(String((await credentialData()).ebicsState)) as { generated: Record<string, { certificatePem: string }> };
		expect(state.generated.signature.certificatePem.trim()).toBe(issued.trim());
		// The bank holds the pasted key for the signature, the other two as they were.
		const after = await subscriber();
		const flat = (hash: string | null) => String(hash).replace(/\s+/g, '').toLowerCase();
		expect(flat(after.keyHashes.signature)).toBe(keyHash(pair.publicKey));
		expect(after.keyHashes.authentication).toBe(before.keyHashes.authentication);
		expect(after.keyHashes.encryption).toBe(before.keyHashes.encryption);
	});

	test("no private key, pasted or new, in any output or in n8n's log", async () => {
		const data = await credentialData();
		const state = JSON.parse(String(data.ebicsState)) as { generated: Record<string, { privateKeyPem: string }> };
		const log = readFileSync(stack.n8n.logFile, 'utf8');
		const pems = [...Object.values(state.generated).map((pair) => pair.privateKeyPem), ...['signaturePrivateKey', 'authenticationPrivateKey', 'encryptionPrivateKey'].map((field) => String(pastedFields[field]))];
		if (chromium.path) pems.push(newSignatureKeyPem);
		expect(pems.length).toBe(chromium.path ? 7 : 6);
		for (const pem of pems) {
			const body = pem.split('\n')[1];
			expect(body.length).toBeGreaterThan(40);
			for (const text of [...outputs, log]) expect(text.includes(body)).toBe(false);
		}
	});
});
