/**
 * EBICS recovery in a real n8n (2.41, the packed package, `n8n execute`), against the sandbox
 * EBICS bank in its own process: a payment batch of 3 MiB read from disk is uploaded in five
 * segments, and the bank drops the connection after it stored the last one (fault
 * `dropLastUploadAnswer`).
 *
 * 1. A bank without recovery: the run fails naming the order ID and where to check it (HAC,
 *    PTK); the bank holds the order once, with the file's bytes; one initialisation only.
 * 2. The same file run again: nothing is sent; the bank's HAC lists the order, so the item says
 *    it was submitted already (the credential's upload journal kept it).
 * 3. A bank offering recovery (061101), another file: the run succeeds with the order ID the bank
 *    stored; again one initialisation and one order more.
 * 4. n8n killed (SIGKILL) while the bank holds the last segment of an upload: the bank then
 *    stores the order, n8n never hears it; run again, nothing is sent and the item says the
 *    upload was submitted already: the bank holds exactly one order for the file.
 * 5. The same kill, but the bank never got the last segment: run again, nothing is sent and the
 *    run fails saying what to check; with "Send Again After an Interrupted Upload" the file is
 *    sent once.
 *
 * Waiting is for n8n's run to end or for the bank to hold a request, never for time.
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { until } from './lib/ebicsSandbox';
import { nodeError, nodeItems, type RunData } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { credentialId, credentialName, type WorkflowJson } from './lib/workflows';

const EBICS = 'corporateBankingEbicsApi';
const WORKFLOW = 'cbebicsrecovery001';
/** The same workflow with "Send Again After an Interrupted Upload" on. */
const WORKFLOW_AGAIN = 'cbebicsrecovery002';
const SIZE = 3 * 1024 * 1024;

interface Upload {
	orderId: string;
	bytes: number;
	sha256: string | null;
}

let stack: Stack;
let sha256: string;
let file: string;

/** Puts a new batch of random bytes into the file the workflows read; its SHA-256. */
function newBatch(): string {
	const data = randomBytes(SIZE);
	writeFileSync(file, data);
	return createHash('sha256').update(data).digest('hex');
}

const holds = async () => await stack.bank.admin<{ armed: string[]; waiting: string[] }>('GET', '/ebics/holds');

const uploads = async (): Promise<Upload[]> => {
	const all = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; uploads: Upload[] }> }>('GET', '/ebics/subscribers');
	return all.subscribers.find((s) => s.partnerId === 'PARTNER2' && s.userId === 'READY1')!.uploads;
};

const btuInitialisations = async (): Promise<number> =>
	(await stack.bank.admin<Array<{ orderType?: string; phase?: string }>>('GET', '/ebics/records')).filter((r) => r.orderType === 'BTU' && r.phase === 'Initialisation').length;

function workflow(file: string, id = WORKFLOW, options: Record<string, unknown> = {}): WorkflowJson {
	return {
		id,
		name: 'EBICS: a payment batch from disk',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'read', name: 'Read Batch', type: 'n8n-nodes-base.readWriteFile', typeVersion: 1.1, position: [220, 0], parameters: { fileSelector: file, options: {} } },
			{
				id: 'upload',
				name: 'Upload',
				type: 'n8n-nodes-corporate-banking.ebics',
				typeVersion: 1,
				position: [440, 0],
				parameters: { operation: 'upload', uploadService: 'custom', serviceName: 'SCT', msgName: 'pain.001', options: { checkSchema: false, ...options } },
				credentials: { [EBICS]: { id: credentialId(EBICS), name: credentialName(EBICS) } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Read Batch', type: 'main', index: 0 }]] },
			'Read Batch': { main: [[{ node: 'Upload', type: 'main', index: 0 }]] },
		},
	} as unknown as WorkflowJson;
}

async function execute(id = WORKFLOW): Promise<RunData> {
	const result = await stack.n8n.execute(id);
	if (!result.run) throw new Error(`no run JSON in the output of n8n execute (exit ${result.exitCode}):\n${result.output.slice(-3000)}`);
	return result.run;
}

beforeAll(async () => {
	const { install, pkg } = requireContext();
	stack = await startStack({ install, pkg, n8nPort: 15712 });
	file = path.join(stack.filesFolder, 'batch.bin');
	sha256 = newBatch();
	await stack.n8n.importWorkflows([workflow(file), workflow(file, WORKFLOW_AGAIN, { sendAgainAfterInterruption: true })]);
});

afterAll(async () => {
	await stack?.stop();
});

test('the answer to the last segment is lost at a bank without recovery: the run fails naming the order and where to check it; the bank holds it once', async () => {
	await stack.bank.admin('POST', '/ebics/switches', { recovery: false });
	await stack.bank.admin('POST', '/ebics/faults', { kind: 'dropLastUploadAnswer' });
	const run = await execute();
	const error = nodeError(run, 'Upload');
	const stored = await uploads();
	expect(stored).toHaveLength(1);
	expect(stored[0]).toMatchObject({ bytes: SIZE, sha256 });
	expect(error?.message).toMatch(/^BTU SCT pain\.001 transfer of segment 5 of 5: no answer came, and the bank refused the segment sent again: the bank answered 091101 EBICS_TX_UNKNOWN_TXID/);
	expect(error?.description).toContain(`the bank may have order ${stored[0].orderId}. n8n did not send the file again.`);
	expect(error?.description).toContain('check the Customer Acknowledgement (HAC) or the Customer Protocol (PTK)');
	expect(error?.description).toContain('The upload is kept in the credential: running this file again does not send it but asks the bank (HAC) whether it has the order.');
	expect(await btuInitialisations()).toBe(1);
});

test('the same file run again: nothing is sent; HAC lists the order, the item says it was submitted already', async () => {
	const before = await uploads();
	const run = await execute();
	expect(nodeError(run, 'Upload')).toBeUndefined();
	const [item] = nodeItems(run, 'Upload');
	expect(item.json).toMatchObject({ alreadySubmitted: true, orderId: before[0].orderId, sha256, service: 'BTU SCT pain.001' });
	expect(await uploads()).toEqual(before);
	expect(await btuInitialisations()).toBe(1);
});

test('the same loss at a bank offering recovery (another file): the bank says it holds every segment, the run succeeds with the stored order ID; one order more', async () => {
	sha256 = newBatch();
	await stack.bank.admin('POST', '/ebics/switches', { recovery: true });
	await stack.bank.admin('POST', '/ebics/faults', { kind: 'dropLastUploadAnswer' });
	const run = await execute();
	expect(nodeError(run, 'Upload')).toBeUndefined();
	const [item] = nodeItems(run, 'Upload');
	const stored = await uploads();
	expect(stored).toHaveLength(2);
	expect(stored[1]).toMatchObject({ bytes: SIZE, sha256 });
	expect(item.json).toMatchObject({ orderId: stored[1].orderId, fileSize: SIZE, sha256, segments: 5 });
	expect(item.json.recovered).toEqual(['segment 5 of 5: no answer came; the bank holds segments 1 to 5 (061101 EBICS_TX_RECOVERY_SYNC)']);
	expect(await btuInitialisations()).toBe(2);
});

/** Runs the workflow and kills n8n once the bank holds the upload's last segment. */
async function killedAtLastSegment(): Promise<void> {
	await stack.bank.admin('POST', '/ebics/holds', { step: 'lastSegment' });
	const held = until('the last segment held at the bank', holds, (h) => h.waiting.includes('lastSegment'));
	const killed = await stack.n8n.execute(WORKFLOW, 180_000, held);
	expect(killed.signal).toBe('SIGKILL');
	expect(killed.run).toBeUndefined();
}

test('n8n killed while the bank holds the last segment, which the bank then stores: run again, nothing is sent; the item says it was submitted already; one order for the file', async () => {
	await stack.bank.admin('POST', '/ebics/switches', { recovery: false });
	sha256 = newBatch();
	const before = (await uploads()).length;
	const inits = await btuInitialisations();
	await killedAtLastSegment();
	await stack.bank.admin('POST', '/ebics/holds/release', { process: true });
	const stored = await until('the order stored at the bank', uploads, (u) => u.length === before + 1);
	const order = stored[before];
	expect(order).toMatchObject({ bytes: SIZE, sha256 });

	const run = await execute();
	expect(nodeError(run, 'Upload')).toBeUndefined();
	const [item] = nodeItems(run, 'Upload');
	expect(item.json).toMatchObject({ alreadySubmitted: true, orderId: order.orderId, sha256 });
	const after = await uploads();
	expect(after.filter((u) => u.sha256 === sha256)).toHaveLength(1);
	expect(await btuInitialisations()).toBe(inits + 1);
}, 420_000);

test('n8n killed while the bank holds the last segment, which the bank never gets: run again, nothing is sent and the run fails saying what to check; "Send Again After an Interrupted Upload" sends it once', async () => {
	sha256 = newBatch();
	const before = (await uploads()).length;
	const inits = await btuInitialisations();
	await killedAtLastSegment();
	await stack.bank.admin('POST', '/ebics/holds/release', { process: false });

	const run = await execute();
	const error = nodeError(run, 'Upload');
	expect(error?.message).toMatch(/^Not sent: this file was sent as order \w+ \(BTU SCT pain\.001\) on \S+ and the bank's answer to its last segment never came, so the bank may have it$/);
	expect(error?.description).toContain('switch on "Send Again After an Interrupted Upload" (Options) and run again');
	expect((await uploads()).length).toBe(before);
	expect(await btuInitialisations()).toBe(inits + 1);

	const again = await execute(WORKFLOW_AGAIN);
	expect(nodeError(again, 'Upload')).toBeUndefined();
	const [item] = nodeItems(again, 'Upload');
	const after = await uploads();
	expect(after.filter((u) => u.sha256 === sha256)).toHaveLength(1);
	expect(item.json).toMatchObject({ orderId: after[after.length - 1].orderId, sha256, earlierAttempt: { state: 'not checked' } });
	expect(await btuInitialisations()).toBe(inits + 2);
}, 420_000);
