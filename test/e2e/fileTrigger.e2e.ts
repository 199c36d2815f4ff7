/**
 * The Bank File Trigger in a real n8n: the example workflow is published and `n8n start` runs it
 * on its own (the activation poll notes what the bank already handed out, the next minute's poll
 * emits the new files) against the sandbox bank's file service. Executions are read back from
 * n8n's sqlite database. n8n is then stopped twice, new files arrive while it is down, and each
 * restart must emit exactly the files that arrived: every file once, none twice.
 */
import { expectNoNodeErrors, finished, waitForEmitted } from './lib/executions';
import { N8N_VERSION } from './lib/install';
import { nodeItems, type StoredExecution } from './lib/n8n';
import { skipAll, useTriggerExample, type Stack } from './lib/stack';
import { exampleUsing, packageManifest, type WorkflowJson, type WorkflowNode } from './lib/workflows';

const TRIGGER = 'bankFileTrigger';

const manifest = packageManifest();
const example = exampleUsing(TRIGGER);
const skipReason = !manifest.nodes.includes(TRIGGER)
	? `package.json does not list the ${TRIGGER} node`
	: !example
		? 'no example workflow uses the Bank File Trigger'
		: undefined;

interface BankFile {
	fileReference: string;
	fileType: string;
	status: string;
	userFilename?: string;
}

let stack: Stack | undefined;
let trigger: WorkflowNode;
let workflow: WorkflowJson;
let id: string;
const delivered: string[] = [];

/** File references the trigger emitted in finished executions, one entry per emission. */
function emitted(executions: StoredExecution[]): string[] {
	return executions.flatMap((e) => (e.run ? nodeItems(e.run, trigger.name) : []).map((item) => String(item.json.fileReference ?? '')));
}

/** Waits until every wanted file has been emitted by finished trigger executions. */
async function waitForFiles(wanted: string[]): Promise<StoredExecution[]> {
	return await waitForEmitted(stack!.n8n, id, wanted, emitted, 'files', 180_000);
}

async function arrive(count: number): Promise<string[]> {
	const { files } = await stack!.bank.admin<{ files: BankFile[] }>('POST', '/files/arrive', { count, fileType: 'XT' });
	return files.map((f) => f.fileReference);
}

async function bankFiles(): Promise<BankFile[]> {
	return await stack!.bank.admin<BankFile[]>('GET', '/files');
}

/**
 * n8n stopped, `count` files arrive, n8n started: waits until they are emitted, then for one more
 * file emitted by a later poll (a wrong repeat would have shown by then). Returns the files, the
 * finished executions that emitted them and every emission so far.
 */
async function restartWithArrivals(count: number): Promise<{ arrived: string[]; marker: string[]; executions: StoredExecution[]; all: string[] }> {
	await stack!.n8n.stop();
	const arrived = await arrive(count);
	await stack!.n8n.start();
	await waitForFiles(arrived);
	const marker = await arrive(1);
	const executions = await waitForFiles([...arrived, ...marker]);
	const all = emitted(stack!.n8n.executions(id).filter(finished));
	return { arrived, marker, executions, all };
}

/** Every execution ran each node without error; the trigger's items carry the statement as a file. */
function expectCleanRuns(executions: StoredExecution[]): void {
	for (const execution of executions) {
		expect(execution.mode).toBe('trigger');
		expect(execution.status).toBe('success');
		expectNoNodeErrors(execution, workflow);
		for (const item of nodeItems(execution.run!, trigger.name)) {
			expect(item.json).toMatchObject({ fileType: 'XT', responseCode: '00', mimeType: 'application/xml' });
			expect((item as { binary?: Record<string, unknown> }).binary?.data).toBeDefined();
		}
	}
}

if (skipReason) skipAll('Bank File Trigger in real n8n', skipReason);
else {
	({ workflow, trigger, id } = useTriggerExample(example!, TRIGGER, (started) => (stack = started)));

	describe(`examples/${example!.file} ("${example!.workflow.name}"): published and run by n8n ${N8N_VERSION} start`, () => {
		it('first start: the activation poll downloads nothing; the next poll emits every new statement once, with the file; statements handed out before are left alone', async () => {
			const before = await bankFiles();
			const waiting = before.filter((f) => f.fileType === 'XT' && f.status === 'NEW').map((f) => f.fileReference);
			const handedOut = before.filter((f) => f.fileType === 'XT' && f.status !== 'NEW').map((f) => f.fileReference);
			const arrived = await arrive(3);
			await stack!.n8n.publish(id);
			await stack!.n8n.start();
			const executions = await waitForFiles([...waiting, ...arrived]);
			const all = emitted(executions);
			expect([...all].sort()).toEqual([...waiting, ...arrived].sort());
			for (const reference of handedOut) expect(all).not.toContain(reference);
			expectCleanRuns(executions);
			delivered.push(...all);
		}, 300_000);

		it('first restart: files that arrived while n8n was down are emitted once at start-up, nothing earlier again', async () => {
			expect(delivered.length).toBeGreaterThan(0);
			const { arrived, marker, executions, all } = await restartWithArrivals(2);
			expect([...all].sort()).toEqual([...delivered, ...arrived, ...marker].sort());
			expectCleanRuns(executions);
			delivered.push(...arrived, ...marker);
		}, 300_000);

		it('second restart: the same again; every statement was emitted exactly once and is downloaded at the bank', async () => {
			const { arrived, marker, executions, all } = await restartWithArrivals(4);
			expect(all.filter((r, i) => all.indexOf(r) !== i)).toEqual([]);
			expect([...all].sort()).toEqual([...delivered, ...arrived, ...marker].sort());
			expectCleanRuns(executions);
			const status = new Map((await bankFiles()).map((f) => [f.fileReference, f.status]));
			for (const reference of [...delivered, ...arrived, ...marker]) expect(status.get(reference)).toBe('DLD');
			await stack!.n8n.stop();
		}, 300_000);
	});
}
