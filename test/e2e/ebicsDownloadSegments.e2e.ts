/**
 * EBICS downloads in a real n8n (2.41, the packed package, `n8n execute`), against the sandbox
 * EBICS bank in its own process:
 *
 * 1. The bank encodes each segment on its own (switch `base64PerSegment`): every OrderData a
 *    complete base64 value ending in "==" (1,000 bytes a segment). The file arrives whole in n8n's
 *    binary storage and the bank gets the positive receipt after the last segment.
 * 2. The answer to segment 2 never comes, also when asked for again (fault `dropDownloadAnswer`):
 *    the run fails saying where the transfer broke off and that no receipt was sent; the bank got
 *    no receipt and keeps the file as new.
 *
 * Waiting is for n8n's run to end, never for time.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

import type { EbicsRecord } from '../sandbox/ebics/bank';
import { ebicsNodeWorkflow, withEbicsCredential } from './lib/ebicsSandbox';
import { binaryFile, nodeError, nodeItems, type RunData } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { credentialId, credentialName } from './lib/workflows';

const EBICS = 'corporateBankingEbicsApi';
const WORKFLOW = 'cbebicssegments01';

let stack: Stack;

interface BankFile {
	name: string;
	delivered: boolean;
	bytes: number;
}

const intradayFiles = async (): Promise<BankFile[]> => {
	const all = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; files: Array<BankFile & { msgName: string }> }> }>('GET', '/ebics/subscribers');
	return all.subscribers.find((s) => s.partnerId === 'PARTNER2' && s.userId === 'READY1')!.files.filter((f) => f.msgName === 'mt942');
};

const records = async (): Promise<EbicsRecord[]> => await stack.bank.admin<EbicsRecord[]>('GET', '/ebics/records');

async function addFile(content: Buffer, name: string): Promise<void> {
	await stack.bank.admin('POST', '/ebics/files', { partnerId: 'PARTNER2', userId: 'READY1', serviceName: 'STM', msgName: 'mt942', name, contentBase64: content.toString('base64') });
}

async function execute(): Promise<RunData> {
	const result = await stack.n8n.execute(WORKFLOW);
	if (!result.run) throw new Error(`no run JSON in the output of n8n execute (exit ${result.exitCode}):\n${result.output.slice(-3000)}`);
	return result.run;
}

function sha256Of(run: RunData): string {
	const [item] = nodeItems(run, 'Download');
	return createHash('sha256').update(readFileSync(binaryFile(stack.n8n.userFolder, item.binary!.data.id)!)).digest('hex');
}

beforeAll(async () => {
	const { install, pkg } = requireContext();
	stack = await startStack({ install, pkg, n8nPort: 15718 });
	const workflow = ebicsNodeWorkflow('Download', { operation: 'download', downloadService: 'mt942' });
	await stack.n8n.importWorkflows([withEbicsCredential(workflow, { id: credentialId(EBICS), name: credentialName(EBICS) }, WORKFLOW, 'EBICS: intraday report')]);
});

afterAll(async () => {
	await stack?.stop();
});

test('segments that each carry their own base64 padding: the file arrives whole, the positive receipt after the last segment', async () => {
	await stack.bank.admin('POST', '/ebics/switches', { base64PerSegment: true, segmentBytes: 1000 });
	const content = randomBytes(12_000);
	await addFile(content, 'padded.txt');
	const before = (await records()).length;
	const run = await execute();
	expect(nodeError(run, 'Download')).toBeUndefined();
	const [item] = nodeItems(run, 'Download');
	expect(item.json).toMatchObject({ fileName: 'mt942.txt', fileSize: content.length, receipt: 'positive' });
	expect(item.json.segments).toBeGreaterThanOrEqual(12);
	expect(sha256Of(run)).toBe(createHash('sha256').update(content).digest('hex'));
	const phases = (await records()).slice(before).filter((r) => r.orderType === 'BTD' || r.phase === 'Transfer' || r.phase === 'Receipt').map((r) => r.phase);
	expect(phases.at(-1)).toBe('Receipt');
	// One transfer per further segment (a segment asked for again on a closed kept-alive connection adds one).
	expect(phases.filter((p) => p === 'Transfer').length).toBeGreaterThanOrEqual(Number(item.json.segments) - 1);
	expect(phases.filter((p) => p === 'Receipt')).toHaveLength(1);
	expect((await intradayFiles()).find((f) => f.name === 'padded.txt')?.delivered).toBe(true);
});

test('the answer to segment 2 never comes: the run fails saying where it broke off, no receipt reaches the bank, the file stays new there', async () => {
	await stack.bank.admin('POST', '/ebics/switches', { base64PerSegment: false, segmentBytes: 3000 });
	const content = randomBytes(20_000);
	await addFile(content, 'broken-off.txt');
	const before = (await records()).length;
	for (let i = 0; i < 10; i++) await stack.bank.admin('POST', '/ebics/faults', { kind: 'dropDownloadAnswer' });
	const run = await execute();
	const error = nodeError(run, 'Download');
	expect(error?.message).toMatch(/^BTD STM mt942 transfer of segment 2 of 7: no answer came, also not when the segment was sent again$/);
	expect(error?.description).toContain('The transfer broke off at segment 2 of 7, so n8n sent no receipt (a receipt comes only after the last segment): the bank keeps the data and offers it again on the next download.');
	const requests = (await records()).slice(before);
	const transfers = requests.filter((r) => r.phase === 'Transfer');
	expect(transfers.length).toBeGreaterThanOrEqual(3);
	expect(transfers.every((r) => r.dropped)).toBe(true);
	expect(requests.filter((r) => r.phase === 'Receipt')).toEqual([]);
	expect((await intradayFiles()).find((f) => f.name === 'broken-off.txt')?.delivered).toBe(false);
});
