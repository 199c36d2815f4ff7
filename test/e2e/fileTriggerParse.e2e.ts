/**
 * The Bank File Trigger with Output "Parsed Entries" in a real n8n: the example workflow of the
 * trigger, switched to Parsed Entries, is published and `n8n start` runs it on its own against the
 * sandbox bank. Every new statement comes once, as its entries (with the Bank File fields), its
 * statement summary and the file itself (a BAI2 report as well as camt.053); a file that is not a
 * statement comes once as the file with the parser's error, and does not hold up the statements
 * after it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { expectNoNodeErrors, finished, waitForEmitted } from './lib/executions';
import { N8N_VERSION } from './lib/install';
import { nodeItems, sleep, type StoredExecution } from './lib/n8n';
import type { SoapCallRecord } from '../sandbox/types';
import { requireContext, skipAll, startStack, type Stack } from './lib/stack';
import { exampleUsing, packageManifest, packageNode, prepareForImport, TEST_POLL_SECONDS, workflowId, type WorkflowJson, type WorkflowNode } from './lib/workflows';

const TRIGGER = 'bankFileTrigger';
const BAI2_SAMPLE = path.resolve(__dirname, '../fixtures/bankfiles/bai2/moj-svb_us_example.bai2');

const manifest = packageManifest();
const example = exampleUsing(TRIGGER)?.file;
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

const itemsOf = (executions: StoredExecution[]): Item[] => executions.flatMap((e) => (e.run ? (nodeItems(e.run, trigger.name) as Item[]) : []));

/** Waits until every wanted file has been emitted (its `kind: file` item) by finished executions. */
async function waitForFiles(wanted: string[]): Promise<StoredExecution[]> {
	const files = (done: StoredExecution[]) => itemsOf(done).filter((i) => i.json.kind === 'file').map((i) => String(i.json.fileReference));
	return await waitForEmitted(stack!.n8n, id, wanted, files, 'files', 180_000);
}

/** The File Service list calls the bank has answered so far. */
async function listCalls(): Promise<number> {
	const { soapCalls } = await stack!.bank.admin<{ soapCalls: SoapCallRecord[] }>('GET', '/stats');
	return soapCalls.filter((c) => c.operation === 'downloadFileList').length;
}

/** Waits until the trigger has listed the bank's files `more` times after this call. */
async function waitForListCalls(more: number): Promise<void> {
	const wanted = (await listCalls()) + more;
	const deadline = Date.now() + 120_000;
	while ((await listCalls()) < wanted) {
		if (Date.now() > deadline) throw new Error(`the trigger did not list the bank's files ${more} more times in 120 s`);
		await sleep(500);
	}
}

if (skipReason) skipAll('Bank File Trigger, Parsed Entries, in real n8n', skipReason);
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		const prepared = prepareForImport(example!, stack.bank.state, stack.bank.caPem, undefined, { pollEverySeconds: TEST_POLL_SECONDS });
		trigger = packageNode(prepared, TRIGGER)!;
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
		// A US bank's BAI2 report among the statements: detected and parsed by the packed package.
		const bai2 = await stack!.bank.admin<BankFile>('POST', '/files', { fileType: 'XT', content: readFileSync(BAI2_SAMPLE, 'latin1'), userFilename: 'svb-20220202.bai' });
		const wanted = [...waiting, ...files.map((f) => f.fileReference), broken.fileReference, bai2.fileReference];
		await stack!.n8n.publish(id);
		await stack!.n8n.start();
		const executions = await waitForFiles(wanted);
		// Two more polls of the bank after every file was handed over: the first of them has then
		// run to its end, so a file it delivered a second time would be in n8n's database now.
		await waitForListCalls(2);
		const items = itemsOf(stack!.n8n.executions(id).filter(finished));

		for (const execution of executions) {
			expect(execution.status).toBe('success');
			expectNoNodeErrors(execution, workflow);
		}
		const fileItems = items.filter((i) => i.json.kind === 'file');
		const references = fileItems.map((i) => String(i.json.fileReference));
		expect([...references].sort()).toEqual([...wanted].sort());
		for (const item of fileItems) expect(item.binary?.data).toBeDefined();
		const bad = fileItems.find((i) => i.json.fileReference === broken.fileReference)!;
		expect(bad.json).toMatchObject({ parsed: false, errorCode: 'NOT_XML' });
		const report = fileItems.find((i) => i.json.fileReference === bai2.fileReference)!;
		expect(report.json).toMatchObject({ parsed: true, format: 'BAI2', entries: 2, statements: 2 });
		// SVB's figures: 347,269.79 + 4,901.96 = 352,171.75; 352,171.75 + 9,058.00 = 361,229.75.
		expect(items.filter((i) => i.json.kind === 'entry' && i.json.fileReference === bai2.fileReference).map((i) => [i.json.amount, i.json.currency, i.json.accountServicerReference, i.json.remittanceText])).toEqual([
			[4901.96, 'USD', '172629', 'SOME PAYMENT ACH OFFSET'],
			[9058, 'USD', '150675', 'SOME PAYMENT ACH OFFSET'],
		]);
		expect(items.filter((i) => i.json.kind === 'statement' && i.json.fileReference === bai2.fileReference).map((i) => [i.json.openingBalance, i.json.closingBalance, i.json.check])).toEqual([
			[347269.79, 352171.75, 'ok'],
			[352171.75, 361229.75, 'ok'],
		]);
		for (const reference of wanted.filter((r) => r !== broken.fileReference && r !== bai2.fileReference)) {
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
