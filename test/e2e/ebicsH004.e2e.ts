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
 * 5. Get Subscriber Permissions, Get Customer Data and Get Available Downloads read the bank's
 *    EBICS 2.5 HTD, HKD and HAA (order types, OrderTypes lists), each acknowledged.
 * 6. The distributed signature in H004: examples/ebics-approve.json with two H004 credentials of
 *    one customer (the sandbox's PARTNER3 SIGNER1, class A, and SIGNER2, class B, keys imported):
 *    the CCT of the first signer waits at the bank; the second lists it by order type (HVZ), reads
 *    what is signed (HVD) and its payments (HVT), and signs it (HVE, a signature only); the bank
 *    executes it only then. No private key of either signer in any output.
 * 7. No private key of the credential (the new keys and the replaced ones) in any output or n8n's
 *    log.
 */
import { readFileSync } from 'node:fs';

import { N8N_VERSION } from './lib/install';
import { EBICS_CREDENTIAL as EBICS, ebicsNodeWorkflow, executeCleanly, withEbicsCredential } from './lib/ebicsSandbox';
import { binaryFile, nodeItems } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { credentialId, loadExample, prepareForImport, sandboxCredentialKey } from './lib/workflows';
import type { WorkflowJson } from './lib/workflows';

const CREDENTIAL = { id: 'ebics-h004-subscr-01', name: 'Bank EBICS 2.5 (new subscriber)' };
const WORKFLOWS = { letters: 'cbebicsh004letter1', payments: 'cbebicsh004paymnt1', keys: 'cbebicsh004keychg1', statements: 'cbebicsh004statmt1', admin: 'cbebicsh004admin01', approve: 'cbebicsh004approv1' };
/** The H004 credentials of the sandbox's two signers of PARTNER3, by the id the approve example's nodes get. */
const SIGNERS = [1, 2].map((n) => ({ sandboxId: credentialId(sandboxCredentialKey(EBICS, `bank-ebics-signer${n}`)), id: `ebics-h004-signer${n}`, name: `Bank EBICS 2.5 (signer ${n})`, key: `${EBICS}#SIGNER${n}` }));
const SIGN = 'Approve: Sign the Order (HVE)';
type KeyName = 'signature' | 'authentication' | 'encryption';

interface SubscriberInfo {
	partnerId: string;
	userId: string;
	state: string;
	keyHashes: Record<KeyName, string | null>;
	files: Array<{ serviceName: string; msgName: string; name: string; delivered: boolean; bytes: number }>;
	uploads: Array<{ orderId: string; orderType: string; bytes: number; signatureFlag: string }>;
}

const ADMIN_NODES: Array<[string, Record<string, unknown>]> = [
	['Permissions (HTD)', { operation: 'subscriberPermissions' }],
	['Customer Data (HKD)', { operation: 'customerData', infoOutput: 'whole' }],
	['Available Downloads (HAA)', { operation: 'availableDownloads' }],
];
/** The DK order types that download each service and message of the sandbox (EBICS 3.0 annex: mapping of order types to BTF). */
const ORDER_TYPES_OF: Record<string, string[]> = { 'EOP camt.053': ['C53', 'Z53'], 'EOP mt940': ['STA'], 'STM camt.052': ['C52', 'Z52'], 'STM mt942': ['VMK'], 'REP camt.054': ['C54', 'Z54'], 'PSR pain.002': ['Z01'] };

/** Manual Trigger -> Get Subscriber Permissions (HTD), Get Customer Data (HKD, whole answer) and Get Available Downloads (HAA), one after the other. */
function adminWorkflow(): WorkflowJson {
	const nodes = ADMIN_NODES.map(([name, parameters]) => ebicsNodeWorkflow(name, parameters).nodes[1]).map((node, index) => ({ ...node, id: `admin${index}`, position: [240, index * 200] as [number, number] }));
	return {
		nodes: [ebicsNodeWorkflow('unused', {}).nodes[0], ...nodes],
		connections: { Start: { main: [ADMIN_NODES.map(([name]) => ({ node: name, type: 'main', index: 0 }))] } },
	} as WorkflowJson;
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
	// The signers' sandbox credentials (keys imported, active at the bank) set to EBICS 2.5.
	const signers = SIGNERS.map((signer) => ({
		id: signer.id,
		name: signer.name,
		type: EBICS,
		data: { ...stack.bank.state.credentials[signer.key], ebicsVersion: 'H004', bankAuthenticationHash: sandbox.bankHashesH004.authentication, bankEncryptionHash: sandbox.bankHashesH004.encryption },
	}));
	const approve = prepareForImport('ebics-approve.json', stack.bank.state, stack.bank.caPem);
	for (const node of approve.nodes) {
		const signer = SIGNERS.find((s) => s.sandboxId === node.credentials?.[EBICS]?.id);
		if (signer) node.credentials![EBICS] = { id: signer.id, name: signer.name };
	}
	await stack.n8n.importCredentials([
		...signers,
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
		withEbicsCredential(adminWorkflow(), CREDENTIAL, WORKFLOWS.admin, 'EBICS 2.5: permissions, customer data, available downloads'),
		{ ...approve, id: WORKFLOWS.approve, name: 'EBICS 2.5: approve (distributed signature)', active: false },
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
		expect(String(letter.json.signatureHash)).toMatch(/^([0-9A-F]{2} ){31}[0-9A-F]{2}$/);
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

	test('Get Subscriber Permissions, Get Customer Data and Get Available Downloads read the bank\'s EBICS 2.5 answers (HTD, HKD, HAA) and acknowledge them', async () => {
		const me = await subscriber();
		const waiting = [...new Set(me.files.filter((f) => !f.delivered).flatMap((f) => ORDER_TYPES_OF[`${f.serviceName} ${f.msgName}`] ?? []))];
		expect(waiting.length).toBeGreaterThan(0);
		const run = (await executeCleanly(stack, WORKFLOWS.admin, outputs)).run!;
		const permissions = nodeItems(run, 'Permissions (HTD)').map((i) => i.json);
		expect(permissions).toContainEqual(expect.objectContaining({ userId: 'USER2', orderType: 'CCT', accountId: 'ACC1', signatureClass: 'E' }));
		expect(permissions).toContainEqual(expect.objectContaining({ userId: 'USER2', orderType: 'C53' }));
		const [customer] = nodeItems(run, 'Customer Data (HKD)');
		expect((customer.json.users as Array<{ userId: string }>).map((u) => u.userId)).toEqual(['USER1', 'USER2']);
		const available = nodeItems(run, 'Available Downloads (HAA)').map((i) => i.json);
		expect(available.map((a) => a.orderType).sort()).toEqual([...waiting].sort());
		expect(available.every((a) => String(a.service).startsWith(String(a.orderType)) && 'preset' in a)).toBe(true);
		const records = await stack.bank.admin<Array<{ protocol: string; orderType?: string; phase?: string; userId?: string; technical: string; business: string }>>('GET', '/ebics/records');
		const admin = records.filter((r) => r.userId === 'USER2' && ['HTD', 'HKD', 'HAA'].includes(r.orderType ?? '') && r.phase === 'Initialisation');
		expect(admin.map((r) => `${r.protocol} ${r.orderType} ${r.technical} ${r.business}`)).toEqual(['H004 HTD 000000 000000', 'H004 HKD 000000 000000', 'H004 HAA 000000 000000']);
	});

	test('the distributed signature in H004: the second signer sees the CCT waiting by its order type, reads what is signed and signs it; the bank executes it only then', async () => {
		const run = (await executeCleanly(stack, WORKFLOWS.approve, outputs)).run!;
		const [uploaded] = nodeItems(run, 'Upload by the First Signer (BTU)');
		expect(uploaded.json).toMatchObject({ orderType: 'CCT', signature: 'authorise' });
		const orderId = uploaded.json.orderId as string;
		const waiting = nodeItems(run, 'Orders Waiting for the Second Signer (HVU)').map((i) => i.json);
		expect(waiting).toEqual([
			expect.objectContaining({ orderId, partnerId: 'PARTNER3', orderType: 'CCT', service: 'CCT (SEPA credit transfer pain.001)', serviceName: null, signaturesRequired: 2, signaturesDone: 1, readyToBeSigned: true, originator: expect.objectContaining({ userId: 'SIGNER1' }) }),
		]);
		const [details] = nodeItems(run, 'What Is Signed (HVD)');
		expect(details.json).toMatchObject({ orderId, orderType: 'CCT', dataDigest: waiting[0].dataDigest });
		expect(details.json.displayFile).toMatch(/3 payment\(s\), control sum 1840.25/);
		const payments = nodeItems(run, 'What It Pays (HVT)').map((i) => i.json);
		expect(payments.map((p) => p.position)).toEqual([1, 2, 3]);
		expect(payments).toContainEqual(expect.objectContaining({ amount: 1500, currency: 'EUR', msgName: 'pain.001', recipient: expect.objectContaining({ accountNumber: 'FR1420041010050500013M02606' }) }));
		const [signed] = nodeItems(run, SIGN);
		expect(signed.json).toMatchObject({ signed: true, signer: 'PARTNER3/SIGNER2', orderId, orderType: 'CCT', dataDigest: details.json.dataDigest, signaturesBefore: 1 });
		const orders = await stack.bank.admin<Array<{ orderId: string; state: string; signatures: Array<{ userId: string; level: string }> }>>('GET', '/ebics/veu');
		const order = orders.find((o) => o.orderId === orderId)!;
		expect(order.state).toBe('executed');
		expect(order.signatures.map((s) => `${s.userId}:${s.level}`)).toEqual(['SIGNER1:A', 'SIGNER2:B']);
		// Every step went in H004, HVE as a signature only, and the bank took each request as valid against the H004 schemas.
		const records = await stack.bank.admin<Array<{ protocol: string; orderType?: string; phase?: string; userId?: string; technical: string; business: string }>>('GET', '/ebics/records');
		const mine = records.filter((r) => r.userId === 'SIGNER1' || r.userId === 'SIGNER2');
		expect(mine.filter((r) => r.phase === 'Initialisation').map((r) => `${r.protocol} ${r.orderType} ${r.technical} ${r.business}`)).toEqual(expect.arrayContaining(['H004 CCT 000000 000000', 'H004 HVZ 000000 000000', 'H004 HVD 000000 000000', 'H004 HVT 000000 000000', 'H004 HVE 000000 000000']));
		expect(mine.filter((r) => r.protocol !== 'H004' && r.protocol !== 'HEV')).toEqual([]);
		// No private key of either signer in any output.
		const lines = SIGNERS.flatMap((signer) =>
			['signaturePrivateKey', 'authenticationPrivateKey', 'encryptionPrivateKey'].flatMap((field) =>
				String(stack.bank.state.credentials[signer.key][field] ?? '')
					.split('\n')
					.filter((line) => line.length > 40 && !line.startsWith('-----')),
			),
		);
		expect(lines.length).toBeGreaterThan(60);
		expect(lines.filter((line) => outputs.some((out) => out.includes(line)))).toEqual([]);
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
