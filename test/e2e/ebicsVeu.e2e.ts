/**
 * The EBICS distributed signature (VEU) in a real n8n: the packed package in n8n 2.41, the sandbox
 * EBICS bank as its own process, two EBICS credentials of one customer (SIGNER1, signature class
 * A; SIGNER2, class B, both imported from the sandbox), the example workflows run with `n8n
 * execute`.
 *
 * 1. examples/ebics-approve.json: SIGNER1 uploads a pain.001; the bank holds it; SIGNER2 lists it
 *    (HVU), reads what is signed (HVD) and each payment (HVT) and signs it (HVE); the bank executes
 *    it only then.
 * 2. The same workflow with a digest that is not the order's: the run stops at Sign with the
 *    error naming both digests; the order stays waiting with one signature (nothing was signed).
 * 3. The same workflow cancelling instead of signing (HVS): the order is never executed.
 * 4. No private key of either credential in any output, n8n's log or its database file.
 */
import { readFileSync } from 'node:fs';

import { N8N_VERSION } from './lib/install';
import { nodeError, nodeItems, type ExecuteResult } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { prepareForImport, type WorkflowJson } from './lib/workflows';

const EXAMPLE = 'ebics-approve.json';
const IDS = { approve: 'cbebicsveuapprove1', wrongDigest: 'cbebicsveuwrong001', cancel: 'cbebicsveucancel01' };
const SIGN = 'Approve: Sign the Order (HVE)';

interface VeuOrder {
	orderId: string;
	state: 'waiting' | 'executed' | 'cancelled';
	dataDigest: string;
	signatures: Array<{ userId: string; level: string }>;
}

let stack: Stack;
const outputs: string[] = [];

/** The example as imported for the sandbox, under another id, with its Sign node changed. */
function variant(id: string, name: string, change: (sign: WorkflowJson['nodes'][number]) => void): WorkflowJson {
	const workflow = prepareForImport(EXAMPLE, stack.bank.state, stack.bank.caPem);
	change(workflow.nodes.find((n) => n.name === SIGN)!);
	return { ...workflow, id, name };
}

async function execute(id: string): Promise<ExecuteResult> {
	const result = await stack.n8n.execute(id);
	outputs.push(result.output);
	if (!result.run) throw new Error(`no run JSON in the output of n8n execute (exit ${result.exitCode}):\n${result.output.slice(-3000)}`);
	return result;
}

const orders = async (): Promise<VeuOrder[]> => await stack.bank.admin<VeuOrder[]>('GET', '/ebics/veu');

beforeAll(async () => {
	const { install, pkg } = requireContext();
	stack = await startStack({ install, pkg, n8nPort: 15730 });
	const [approve] = await stack.importExamples([EXAMPLE]);
	await stack.n8n.importWorkflows([
		{ ...approve, id: IDS.approve, name: 'EBICS: approve (distributed signature)' },
		variant(IDS.wrongDigest, 'EBICS: approve with a digest that is not the order\'s', (sign) => {
			sign.parameters.confirmedDigest = 'AB'.repeat(32);
		}),
		variant(IDS.cancel, 'EBICS: cancel instead of approving', (sign) => {
			sign.parameters.operation = 'veuCancel';
			sign.name = SIGN;
		}),
	]);
}, 600_000);

afterAll(async () => {
	await stack?.stop();
});

describe(`EBICS distributed signature in real n8n ${N8N_VERSION}: an upload by one subscriber approved by another`, () => {
	test('the first signer uploads, the second sees the order waiting, reads what is signed and signs it: the bank executes it', async () => {
		const run = (await execute(IDS.approve)).run!;
		const [uploaded] = nodeItems(run, 'Upload by the First Signer (BTU)');
		const orderId = uploaded.json.orderId as string;
		expect(orderId).toMatch(/^[A-Z][A-Z0-9]{3}$/);
		const waiting = nodeItems(run, 'Orders Waiting for the Second Signer (HVU)').map((i) => i.json);
		expect(waiting).toEqual([
			expect.objectContaining({ orderId, partnerId: 'PARTNER3', serviceName: 'SCT', scope: 'DE', signaturesRequired: 2, signaturesDone: 1, readyToBeSigned: true, originator: expect.objectContaining({ userId: 'SIGNER1' }) }),
		]);
		const [details] = nodeItems(run, 'What Is Signed (HVD)');
		expect(details.json.displayFile).toMatch(/3 payment\(s\), control sum 1840.25/);
		expect(details.json.displayFile).toContain('1500.00 EUR to Fournitures Dupont SARL FR1420041010050500013M02606');
		expect(details.json.dataDigest).toBe(waiting[0].dataDigest);
		// Each payment of the order as an item (HVT), read before the signature.
		const payments = nodeItems(run, 'What It Pays (HVT)').map((i) => i.json);
		expect(payments.map((p) => p.position)).toEqual([1, 2, 3]);
		expect(payments.every((p) => p.orderId === orderId && p.transactionsInOrder === 3)).toBe(true);
		expect(payments).toContainEqual(expect.objectContaining({ amount: 1500, amountText: '1500.00', currency: 'EUR', recipient: expect.objectContaining({ accountNumber: 'FR1420041010050500013M02606', holder: 'Fournitures Dupont SARL' }) }));
		const [signed] = nodeItems(run, SIGN);
		expect(signed.json).toMatchObject({ signed: true, signer: 'PARTNER3/SIGNER2', orderId, dataDigest: details.json.dataDigest, signaturesBefore: 1 });
		const order = (await orders()).find((o) => o.orderId === orderId)!;
		expect(order.state).toBe('executed');
		expect(order.signatures.map((s) => `${s.userId}:${s.level}`)).toEqual(['SIGNER1:A', 'SIGNER2:B']);
		expect(order.dataDigest).toBe(String(details.json.dataDigest).replace(/ /g, ''));
	});

	test('a digest other than the order\'s is refused before anything is signed: the order keeps waiting with one signature', async () => {
		const result = await execute(IDS.wrongDigest);
		const run = result.run!;
		const orderId = nodeItems(run, 'Upload by the First Signer (BTU)')[0].json.orderId as string;
		const error = nodeError(run, SIGN) as { message?: string; description?: string } | undefined;
		expect(error?.message).toMatch(new RegExp(`^The confirmed digest AB AB .* is not the data digest the bank reports for order ${orderId} \\(([0-9A-F]{2} ){31}[0-9A-F]{2}\\): nothing was signed or sent`));
		const order = (await orders()).find((o) => o.orderId === orderId)!;
		expect(order).toMatchObject({ state: 'waiting', signatures: [expect.objectContaining({ userId: 'SIGNER1' })] });
	});

	test('the second signer cancels an order (HVS): it is never executed', async () => {
		const run = (await execute(IDS.cancel)).run!;
		const orderId = nodeItems(run, 'Upload by the First Signer (BTU)')[0].json.orderId as string;
		expect(nodeItems(run, SIGN)[0].json).toMatchObject({ cancelled: true, canceller: 'PARTNER3/SIGNER2', orderId });
		expect((await orders()).find((o) => o.orderId === orderId)!.state).toBe('cancelled');
	});

	test("no private key of either signer appears in any output, in n8n's log or readable in its database", async () => {
		const credentials = await stack.n8n.decryptedCredentials();
		const signers = credentials.filter((c) => /^sandbox-signer[12]-/.test(c.id));
		expect(signers).toHaveLength(2);
		const lines = signers.flatMap((c) =>
			['signaturePrivateKey', 'authenticationPrivateKey', 'encryptionPrivateKey'].flatMap((field) =>
				String(c.data[field] ?? '')
					.split('\n')
					.filter((line) => line.length > 40 && !line.startsWith('-----')),
			),
		);
		expect(lines.length).toBeGreaterThan(60);
		const log = readFileSync(stack.n8n.logFile, 'utf8');
		const database = readFileSync(stack.n8n.databaseFile).toString('latin1');
		const shown = lines.filter((line) => outputs.some((out) => out.includes(line)) || log.includes(line) || database.includes(line));
		expect(shown).toEqual([]);
	});
});
