/**
 * EBICS recovery in a real n8n (2.41, the packed package, `n8n execute`), against the sandbox
 * EBICS bank in its own process: a payment batch of 3 MiB read from disk is uploaded in four
 * segments, and the bank drops the connection after it stored the last one (fault
 * `dropLastUploadAnswer`).
 *
 * 1. A bank without recovery: the run fails naming the order ID and where to check it (HAC,
 *    PTK); the bank holds the order once, with the file's bytes; one initialisation only.
 * 2. A bank offering recovery (061101): the run succeeds with the order ID the bank stored; again
 *    one initialisation and one order more.
 *
 * Waiting is for n8n's run to end, never for time.
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { nodeError, nodeItems, type RunData } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { credentialId, credentialName, type WorkflowJson } from './lib/workflows';

const EBICS = 'corporateBankingEbicsApi';
const WORKFLOW = 'cbebicsrecovery001';
const SIZE = 3 * 1024 * 1024;

interface Upload {
	orderId: string;
	bytes: number;
	sha256: string | null;
}

let stack: Stack;
let sha256: string;

const uploads = async (): Promise<Upload[]> => {
	const all = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; uploads: Upload[] }> }>('GET', '/ebics/subscribers');
	return all.subscribers.find((s) => s.partnerId === 'PARTNER2' && s.userId === 'READY1')!.uploads;
};

const btuInitialisations = async (): Promise<number> =>
	(await stack.bank.admin<Array<{ orderType?: string; phase?: string }>>('GET', '/ebics/records')).filter((r) => r.orderType === 'BTU' && r.phase === 'Initialisation').length;

function workflow(file: string): WorkflowJson {
	return {
		id: WORKFLOW,
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
				parameters: { operation: 'upload', uploadService: 'custom', serviceName: 'SCT', msgName: 'pain.001', options: { checkSchema: false } },
				credentials: { [EBICS]: { id: credentialId(EBICS), name: credentialName(EBICS) } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Read Batch', type: 'main', index: 0 }]] },
			'Read Batch': { main: [[{ node: 'Upload', type: 'main', index: 0 }]] },
		},
	} as unknown as WorkflowJson;
}

async function execute(): Promise<RunData> {
	const result = await stack.n8n.execute(WORKFLOW);
	if (!result.run) throw new Error(`no run JSON in the output of n8n execute (exit ${result.exitCode}):\n${result.output.slice(-3000)}`);
	return result.run;
}

beforeAll(async () => {
	const { install, pkg } = requireContext();
	stack = await startStack({ install, pkg, n8nPort: 15712 });
	const data = randomBytes(SIZE);
	sha256 = createHash('sha256').update(data).digest('hex');
	const file = path.join(stack.filesFolder, 'batch.bin');
	writeFileSync(file, data);
	await stack.n8n.importWorkflows([workflow(file)]);
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
	expect(await btuInitialisations()).toBe(1);
});

test('the same loss at a bank offering recovery: the bank says it holds every segment, the run succeeds with the stored order ID; one order more', async () => {
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
