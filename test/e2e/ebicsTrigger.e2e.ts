/**
 * The EBICS Trigger in a real n8n, against the sandbox EBICS bank (the ready subscriber
 * PARTNER2/READY1): `examples/ebics-trigger.json` is published and `n8n start` runs it on its own.
 * n8n is killed (SIGKILL: no graceful shutdown) twice at a known step of a poll, held there by the
 * sandbox bank: once after the files were handed over, while the positive receipt is on its way
 * (the bank never gets it); once in the middle of a download. After each restart every statement
 * has been emitted exactly once and the bank has every one delivered. Executions are read back
 * from n8n's sqlite database.
 */
import { expectNoNodeErrors, finished, waitForEmitted } from './lib/executions';
import { statementsAt, until, type EbicsBankFile } from './lib/ebicsSandbox';
import { N8N_VERSION } from './lib/install';
import { nodeItems, type StoredExecution } from './lib/n8n';
import { skipAll, useTriggerExample, type Stack } from './lib/stack';
import { exampleUsing, packageManifest, type WorkflowJson, type WorkflowNode } from './lib/workflows';

const TRIGGER = 'ebicsTrigger';
const PARTNER = 'PARTNER2';
const USER = 'READY1';

const manifest = packageManifest();
const example = exampleUsing(TRIGGER);
const skipReason = !manifest.nodes.includes(TRIGGER)
	? `package.json does not list the ${TRIGGER} node`
	: !example
		? 'no example workflow uses the EBICS Trigger'
		: undefined;

let stack: Stack | undefined;
let trigger: WorkflowNode;
let workflow: WorkflowJson;
let id: string;
/** Statements emitted so far (file names, which the sandbox makes unique). */
const delivered: string[] = [];
let arrivals = 0;

/** The file names the trigger emitted in finished executions, one entry per emission. */
function emitted(executions: StoredExecution[]): string[] {
	return executions.flatMap((e) => (e.run ? nodeItems(e.run, trigger.name) : []).map((item) => String(item.json.fileName ?? '')));
}

async function waitForFiles(wanted: string[]): Promise<StoredExecution[]> {
	return await waitForEmitted(stack!.n8n, id, wanted, emitted, 'statements', 180_000);
}

const statements = async (): Promise<EbicsBankFile[]> => await statementsAt(stack!, PARTNER, USER);

/** New statements arriving at the bank; their file names. */
async function arrive(count: number): Promise<string[]> {
	const names: string[] = [];
	for (let i = 0; i < count; i++) {
		const n = ++arrivals;
		const name = `camt053_arrived_${String(n).padStart(3, '0')}.xml`;
		const content = `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>E2E-ARRIVED-${n}</MsgId><CreDtTm>2026-11-20T18:00:00</CreDtTm></GrpHdr></BkToCstmrStmt></Document>\n`;
		await stack!.bank.admin('POST', '/ebics/files', { partnerId: PARTNER, userId: USER, serviceName: 'EOP', msgName: 'camt.053', name, content });
		names.push(name);
	}
	return names;
}

const holds = async () => await stack!.bank.admin<{ armed: string[]; waiting: string[] }>('GET', '/ebics/holds');

/** Every execution is a successful trigger execution whose items are statements with their file. */
function expectCleanRuns(executions: StoredExecution[]): void {
	for (const execution of executions) {
		expect(execution.mode).toBe('trigger');
		expect(execution.status).toBe('success');
		expectNoNodeErrors(execution, workflow);
		for (const item of nodeItems(execution.run!, trigger.name)) {
			expect(item.json).toMatchObject({ service: 'BTD EOP camt.053 ZIP', orderType: 'BTD', mimeType: 'application/xml' });
			expect(String(item.json.sha256)).toMatch(/^[0-9a-f]{64}$/);
			expect((item as { binary?: Record<string, unknown> }).binary?.data).toBeDefined();
		}
	}
}

/** Every emission so far: none twice, and exactly the statements the bank had for the trigger. */
function expectEachOnce(all: string[], expected: string[]): void {
	expect(all.filter((name, i) => all.indexOf(name) !== i)).toEqual([]);
	expect([...all].sort()).toEqual([...expected].sort());
}

if (skipReason) skipAll('EBICS Trigger in real n8n', skipReason);
else {
	({ workflow, trigger, id } = useTriggerExample(example!, TRIGGER, (started) => (stack = started)));

	describe(`examples/${example!.file} ("${example!.workflow.name}"): published and run by n8n ${N8N_VERSION} start, killed twice`, () => {
		it('first start: every statement the bank has not delivered is emitted once; the bank marks them delivered with the poll after', async () => {
			const waiting = (await statements()).filter((f) => !f.delivered).map((f) => f.name);
			expect(waiting.length).toBe(5);
			const arrived = await arrive(2);
			await stack!.n8n.publish(id);
			await stack!.n8n.start();
			const executions = await waitForFiles([...waiting, ...arrived]);
			const all = emitted(executions);
			expectEachOnce(all, [...waiting, ...arrived]);
			expectCleanRuns(executions);
			await until('the positive receipt of the first statements', statements, (files) => files.every((f) => f.delivered));
			delivered.push(...all);
		}, 300_000);

		it('killed after the hand-over, while the receipt is on its way: the restarted trigger sends the receipt, nothing is emitted twice', async () => {
			await stack!.bank.admin('POST', '/ebics/holds', { step: 'receipt' });
			const arrived = await arrive(2);
			const executions = await waitForFiles(arrived);
			expectCleanRuns(executions);
			// The next poll sends the positive receipt; the bank holds it unread; n8n dies.
			await until('the receipt held at the bank', holds, (h) => h.waiting.includes('receipt'));
			await stack!.n8n.kill();
			await stack!.bank.admin('POST', '/ebics/holds/release', { process: false });
			const afterKill = await statements();
			for (const name of arrived) expect(afterKill.find((f) => f.name === name)?.delivered).toBe(false);

			await stack!.n8n.start();
			await until('the receipt sent again after the restart', statements, (files) => files.every((f) => f.delivered));
			const marker = await arrive(1);
			await waitForFiles(marker);
			const all = emitted(stack!.n8n.executions(id).filter(finished));
			expectEachOnce(all, [...delivered, ...arrived, ...marker]);
			delivered.push(...arrived, ...marker);
		}, 420_000);

		it('killed in the middle of a download: the bank had no receipt, the restarted trigger emits those statements once; every statement was emitted exactly once and is delivered', async () => {
			await stack!.bank.admin('POST', '/ebics/holds', { step: 'download' });
			const arrived = await arrive(3);
			await until('a download held at the bank', holds, (h) => h.waiting.includes('download'));
			await stack!.n8n.kill();
			await stack!.bank.admin('POST', '/ebics/holds/release', { process: false });
			for (const name of arrived) expect((await statements()).find((f) => f.name === name)?.delivered).toBe(false);

			await stack!.n8n.start();
			const executions = await waitForFiles(arrived);
			expectCleanRuns(executions);
			const marker = await arrive(1);
			await waitForFiles(marker);
			await until('every statement delivered at the bank', statements, (files) => files.every((f) => f.delivered));
			const all = emitted(stack!.n8n.executions(id).filter(finished));
			expectEachOnce(all, [...delivered, ...arrived, ...marker]);
			await stack!.n8n.stop();
		}, 420_000);
	});
}
