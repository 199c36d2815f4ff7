/**
 * The Bank File Trigger with Output "Parsed Entries" in a real n8n: the example workflow of the
 * trigger, switched to Parsed Entries, is published and `n8n start` runs it on its own against the
 * sandbox bank. Every new statement comes once, as its entries (with the Bank File fields), its
 * statement summary and the file itself; a file that is not a statement comes once as the file
 * with the parser's error, and does not hold up the statements after it.
 */
import { readFileSync } from 'node:fs';

import { N8N_VERSION } from './lib/install';
import { nodeError, nodeItems, sleep, type StoredExecution } from './lib/n8n';
import { requireContext, startStack, type Stack } from './lib/stack';
import { exampleFiles, loadExample, packageManifest, PACKAGE_NAME, prepareForImport, workflowId, type WorkflowJson, type WorkflowNode } from './lib/workflows';

const TRIGGER = 'bankFileTrigger';

const manifest = packageManifest();
const example = exampleFiles().find((file) => loadExample(file).nodes.some((n) => n.type === `${PACKAGE_NAME}.${TRIGGER}`));
const skipReason = !manifest.nodes.includes(TRIGGER) ? `package.json does not list the ${TRIGGER} node` : !example ? 'no example workflow uses the Bank File Trigger' : undefined;

interface BankFile {
	fileReference: string;
	fileType: string;
	status: string;
}

type Item = { json: Record<string, unknown>; binary?: Record<string, unknown> };

let stack: Stack | undefined;
let trigger: WorkflowNode;
let workflow: WorkflowJson;
const id = workflowId('bank-file-trigger-parsed-entries');

const finished = (e: StoredExecution): boolean => e.finished || ['success', 'error', 'crashed', 'canceled'].includes(e.status);
const itemsOf = (executions: StoredExecution[]): Item[] => executions.flatMap((e) => (e.run ? (nodeItems(e.run, trigger.name) as Item[]) : []));

/** Waits until every wanted file has been emitted (its `kind: file` item) by finished executions. */
async function waitForFiles(wanted: string[], timeoutMs = 180_000): Promise<StoredExecution[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const executions = stack!.n8n.executions(id);
		const done = executions.filter(finished);
		const seen = new Set(itemsOf(done).filter((i) => i.json.kind === 'file').map((i) => String(i.json.fileReference)));
		if (executions.length === done.length && wanted.every((r) => seen.has(r))) return done;
		if (Date.now() > deadline)
			throw new Error(
				`waited ${timeoutMs / 1000} s for files ${wanted.filter((r) => !seen.has(r)).join(', ')}\n` + readFileSync(stack!.n8n.logFile, 'utf8').slice(-3000),
			);
		await sleep(1000);
	}
}

if (skipReason) {
	describe('Bank File Trigger, Parsed Entries, in real n8n', () => {
		it.skip(`not run: ${skipReason}`, () => undefined);
	});
} else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		const prepared = prepareForImport(example!, stack.bank.state, stack.bank.caPem);
		trigger = prepared.nodes.find((n) => n.type === `${PACKAGE_NAME}.${TRIGGER}`)!;
		trigger.parameters = { ...trigger.parameters, output: 'parse', parseOptions: {} };
		workflow = { ...prepared, id, name: 'Bank files: new statements as entries' };
		await stack.n8n.importWorkflows([workflow]);
	}, 300_000);

	afterAll(async () => {
		await stack?.stop();
	});

	it(`n8n ${N8N_VERSION} start: each new statement once as its entries, its statement and the file; a file that is no statement once with its error`, async () => {
		const before = await stack!.bank.admin<BankFile[]>('GET', '/files');
		const waiting = before.filter((f) => f.fileType === 'XT' && f.status === 'NEW').map((f) => f.fileReference);
		const { files } = await stack!.bank.admin<{ files: BankFile[] }>('POST', '/files/arrive', { count: 2, fileType: 'XT' });
		const broken = await stack!.bank.admin<BankFile>('POST', '/files', { fileType: 'XT', content: 'not a statement', userFilename: 'broken.xml' });
		const wanted = [...waiting, ...files.map((f) => f.fileReference), broken.fileReference];
		await stack!.n8n.publish(id);
		await stack!.n8n.start();
		const executions = await waitForFiles(wanted);
		await sleep(3000); // room for a wrong repeat to show up
		const items = itemsOf(stack!.n8n.executions(id).filter(finished));

		for (const execution of executions) {
			expect(execution.status).toBe('success');
			for (const node of workflow.nodes) expect([node.name, execution.run && nodeError(execution.run, node.name)?.message]).toEqual([node.name, undefined]);
		}
		const fileItems = items.filter((i) => i.json.kind === 'file');
		const references = fileItems.map((i) => String(i.json.fileReference));
		expect([...references].sort()).toEqual([...wanted].sort());
		for (const item of fileItems) expect(item.binary?.data).toBeDefined();
		const bad = fileItems.find((i) => i.json.fileReference === broken.fileReference)!;
		expect(bad.json).toMatchObject({ parsed: false, errorCode: 'NOT_XML' });
		for (const reference of wanted.filter((r) => r !== broken.fileReference)) {
			const file = fileItems.find((i) => i.json.fileReference === reference)!;
			expect(file.json).toMatchObject({ parsed: true, format: 'camt.053.001.02', statements: 1 });
			const entries = items.filter((i) => i.json.kind === 'entry' && i.json.fileReference === reference);
			expect(entries).toHaveLength(file.json.entries as number);
			expect(entries.length).toBeGreaterThan(0);
			for (const entry of entries) {
				expect(entry.json).toMatchObject({ messageType: 'camt.053.001.02', currency: 'EUR', recovered: false });
				expect(typeof entry.json.amount).toBe('number');
				expect(entry.binary).toBeUndefined();
			}
			const [statement] = items.filter((i) => i.json.kind === 'statement' && i.json.fileReference === reference);
			expect(statement.json).toMatchObject({ check: 'ok', entryCount: entries.length });
		}
		await stack!.n8n.stop();
	}, 400_000);
}
