/**
 * An EBICS 2.5 (H004) credential in a real n8n: the packed package in n8n 2.41, the sandbox EBICS
 * bank as its own process, the workflows run with `n8n execute`.
 *
 * 1. A new credential with EBICS Version H004 (bare keys) and the bank's EBICS 2.5 hashes; the
 *    letters workflow's first run makes the keys and sends INI and HIA in H004, and prints the
 *    letters with the hashes of exponent and modulus.
 * 2. The bank activates the subscriber; the payments example sends its pain.001 as CCT (the
 *    SEPA credit transfer preset), the bank verifies the signature; HAC names the order.
 * 3. Change Keys (HCS) replaces all three keys at the bank in H004: the bank holds the new keys,
 *    whose hashes (exponent and modulus) the item prints.
 * 4. The statements example, with the new keys, fetches the camt.053 statements as C53, delivered
 *    at the bank after.
 * 5. No private key of the credential (the new keys and the replaced ones) in any output or n8n's
 *    log.
 */
import { readFileSync } from 'node:fs';

import { N8N_VERSION } from './lib/install';
import { EBICS_CREDENTIAL as EBICS, ebicsNodeWorkflow, executeCleanly, withEbicsCredential } from './lib/ebicsSandbox';
import { binaryFile, nodeItems } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { loadExample } from './lib/workflows';

const CREDENTIAL = { id: 'ebics-h004-subscr-01', name: 'Bank EBICS 2.5 (new subscriber)' };
const WORKFLOWS = { letters: 'cbebicsh004letter1', payments: 'cbebicsh004paymnt1', keys: 'cbebicsh004keychg1', statements: 'cbebicsh004statmt1' };
type KeyName = 'signature' | 'authentication' | 'encryption';

interface SubscriberInfo {
	partnerId: string;
	userId: string;
	state: string;
	keyHashes: Record<KeyName, string | null>;
	files: Array<{ serviceName: string; msgName: string; name: string; delivered: boolean; bytes: number }>;
	uploads: Array<{ orderId: string; orderType: string; bytes: number; signatureFlag: string }>;
}

let stack: Stack;
const outputs: string[] = [];
/** The private keys the credential held before the key change. */
const replacedKeys: string[] = [];

const subscriber = async (): Promise<SubscriberInfo> => {
	const all = await stack.bank.admin<{ subscribers: SubscriberInfo[] }>('GET', '/ebics/subscribers');
	return all.subscribers.find((s) => s.partnerId === 'PARTNER1' && s.userId === 'USER2')!;
};

beforeAll(async () => {
	const { install, pkg } = requireContext();
	stack = await startStack({ install, pkg, n8nPort: 15712 });
	const sandbox = await stack.bank.admin<{ bankHashesH004: { authentication: string; encryption: string } }>('GET', '/ebics/subscribers');
	await stack.n8n.importCredentials([
		{
			...CREDENTIAL,
			type: EBICS,
			data: {
				url: stack.bank.state.urls.ebics,
				hostId: 'SBXEBICS',
				partnerId: 'PARTNER1',
				userId: 'USER2',
				ebicsVersion: 'H004',
				h004KeyForm: 'key',
				bankAuthenticationHash: sandbox.bankHashesH004.authentication,
				bankEncryptionHash: sandbox.bankHashesH004.encryption,
				keySource: 'generate',
				subscriberName: 'Erika Mustermann, Sandbox Customer GmbH',
				caCertificate: stack.bank.caPem,
			},
		},
	]);
	await stack.n8n.importWorkflows([
		withEbicsCredential(
			ebicsNodeWorkflow('Initialisation Letters', { operation: 'initialisationLetters' }),
			CREDENTIAL,
			WORKFLOWS.letters,
			'EBICS 2.5: initialisation letters',
		),
		withEbicsCredential(loadExample('ebics-payments.json'), CREDENTIAL, WORKFLOWS.payments, 'EBICS 2.5: payments'),
		withEbicsCredential(
			ebicsNodeWorkflow('Change Keys', { operation: 'changeKeys', keyChangeOrder: 'HCS', confirmKeyChange: true }),
			CREDENTIAL,
			WORKFLOWS.keys,
			'EBICS 2.5: change keys',
		),
		withEbicsCredential(loadExample('ebics-statements.json'), CREDENTIAL, WORKFLOWS.statements, 'EBICS 2.5: statements'),
	]);
}, 600_000);

afterAll(async () => {
	await stack?.stop();
});

describe(`an EBICS 2.5 (H004) credential in real n8n ${N8N_VERSION}`, () => {
	test('the first run sends INI and HIA in H004 and prints the letters with the hashes of exponent and modulus', async () => {
		const run = (await executeCleanly(stack, WORKFLOWS.letters, outputs)).run!;
		const [letter] = nodeItems(run, 'Initialisation Letters');
		expect(letter.json).toMatchObject({ ebicsVersion: 'H004', status: expect.stringMatching(/^Letters sent/) });
		expect(String(letter.json.signatureHash)).toMatch(/^([0-9A-F]{2} ){15}[0-9A-F]{2}\n([0-9A-F]{2} ){15}[0-9A-F]{2}$/);
		expect(await subscriber()).toMatchObject({ state: 'initialised' });
		const html = readFileSync(binaryFile(stack.n8n.userFolder, letter.binary!.html.id)!, 'utf8');
		expect(html).toContain('H004 (EBICS 2.5)');
		expect(html).toContain('Hash value of the public key (SHA-256 of exponent and modulus):');
	});

	test('after activation the payments example sends its pain.001 as CCT; the bank verifies it; HAC names the order', async () => {
		await stack.bank.admin('POST', '/ebics/subscribers/PARTNER1/USER2/activate', {});
		const run = (await executeCleanly(stack, WORKFLOWS.payments, outputs)).run!;
		const [uploaded] = nodeItems(run, 'Upload Credit Transfer (BTU)');
		expect(uploaded.json).toMatchObject({ orderType: 'CCT', returnCodes: { technical: '000000', business: '000000' } });
		const stored = (await subscriber()).uploads.find((u) => u.orderId === uploaded.json.orderId);
		expect(stored).toMatchObject({ orderType: 'CCT', signatureFlag: 'authorise' });
		const hac = nodeItems(run, 'What the Bank Did (HAC)').map((i) => i.json);
		expect(hac.some((entry) => entry.orderId === uploaded.json.orderId)).toBe(true);
	});

	test('Change Keys (HCS) replaces all three keys at the bank in H004; the item prints the new keys\' hashes', async () => {
		const before = await subscriber();
		const stateBefore = JSON.parse(String((await stack.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL.id)!.data.ebicsState)) as { generated: Record<KeyName, { privateKeyPem: string }> };
		replacedKeys.push(...Object.values(stateBefore.generated).map((pair) => pair.privateKeyPem));
		const run = (await executeCleanly(stack, WORKFLOWS.keys, outputs)).run!;
		const [changed] = nodeItems(run, 'Change Keys');
		expect(changed.json).toMatchObject({ changed: true, order: 'HCS', recovered: false });
		const after = await subscriber();
		expect(changed.json.hashes).toEqual(after.keyHashes);
		for (const key of ['signature', 'authentication', 'encryption'] as const) expect(after.keyHashes[key]).not.toBe(before.keyHashes[key]);
		const records = await stack.bank.admin<Array<{ protocol: string; orderType?: string; phase?: string; userId?: string; technical: string; business: string }>>('GET', '/ebics/records');
		expect(records.filter((r) => r.userId === 'USER2' && r.orderType === 'HCS' && r.phase === 'Initialisation').map((r) => [r.protocol, r.technical, r.business])).toEqual([['H004', '000000', '000000']]);
	});

	test('with the new keys the statements example fetches the camt.053 statements as C53, delivered at the bank after', async () => {
		const waiting = (await subscriber()).files.filter((f) => f.msgName === 'camt.053' && !f.delivered);
		expect(waiting.length).toBeGreaterThan(0);
		const run = (await executeCleanly(stack, WORKFLOWS.statements, outputs)).run!;
		const files = nodeItems(run, 'Download Statements (BTD)');
		expect(files.map((f) => f.json.fileName).sort()).toEqual(waiting.map((f) => f.name).sort());
		expect(files[0].json).toMatchObject({ orderType: 'C53', receipt: 'positive' });
		expect((await subscriber()).files.filter((f) => f.msgName === 'camt.053').every((f) => f.delivered)).toBe(true);
	});

	test('no private key of the credential in any output or in n8n\'s log', async () => {
		const data = (await stack.n8n.decryptedCredentials()).find((c) => c.id === CREDENTIAL.id)!.data;
		const state = JSON.parse(String(data.ebicsState)) as { generated: Record<string, { privateKeyPem: string }> };
		const log = readFileSync(stack.n8n.logFile, 'utf8');
		expect(replacedKeys.length).toBe(3);
		for (const pem of [...Object.values(state.generated).map((pair) => pair.privateKeyPem), ...replacedKeys]) {
			const body = pem.split('\n')[1];
			expect(body.length).toBeGreaterThan(40);
			for (const text of [...outputs, log]) expect(text.includes(body)).toBe(false);
		}
	});
});
