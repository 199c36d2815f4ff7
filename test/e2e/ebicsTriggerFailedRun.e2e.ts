/**
 * The EBICS Trigger with Output "Parsed Entries" in a real n8n, and a workflow whose every run
 * fails after the trigger (a Stop and Error node where the example processes the statement): each
 * statement still starts the workflow exactly once, as its entries, its statement and the file,
 * and the bank gets the positive receipt, since the receipt follows n8n holding the files, not the
 * run's outcome. A run that fails is n8n's to show and to retry from its execution list.
 */
import { finished, waitForEmitted } from './lib/executions';
import { statementsAt, until, type EbicsBankFile } from './lib/ebicsSandbox';
import { N8N_VERSION } from './lib/install';
import { nodeError, nodeItems, type StoredExecution } from './lib/n8n';
import { requireContext, skipAll, startStack, type Stack } from './lib/stack';
import { exampleUsing, packageManifest, packageNode, prepareForImport, TEST_POLL_SECONDS, workflowId, type WorkflowJson, type WorkflowNode } from './lib/workflows';

const TRIGGER = 'ebicsTrigger';
const PARTNER = 'PARTNER2';
const USER = 'READY1';

const manifest = packageManifest();
const example = exampleUsing(TRIGGER)?.file;
const skipReason = !manifest.nodes.includes(TRIGGER) ? `package.json does not list the ${TRIGGER} node` : !example ? 'no example workflow uses the EBICS Trigger' : undefined;

type Item = { json: Record<string, unknown>; binary?: Record<string, unknown> };

let stack: Stack | undefined;
let trigger: WorkflowNode;
let workflow: WorkflowJson;
const id = workflowId('ebics-trigger-failed-run');
const FAILING = 'Book Statement';

const itemsOf = (executions: StoredExecution[]): Item[] => executions.flatMap((e) => (e.run ? (nodeItems(e.run, trigger.name) as Item[]) : []));
const fileNames = (executions: StoredExecution[]): string[] => itemsOf(executions).filter((i) => i.json.kind === 'file').map((i) => String(i.json.fileName));

const statements = async (): Promise<EbicsBankFile[]> => await statementsAt(stack!, PARTNER, USER);

/** A copy of one of the bank's statements under a new name and message ID (a real statement to parse). */
async function arriveCopy(name: string): Promise<void> {
	await stack!.bank.admin('POST', '/ebics/files', {
		partnerId: PARTNER,
		userId: USER,
		serviceName: 'EOP',
		msgName: 'camt.053',
		name,
		content: `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${name}</MsgId><CreDtTm>2026-11-20T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${name}</Id><CreDtTm>2026-11-20T18:00:00</CreDtTm><Acct><Id><IBAN>DE02500105170137075030</IBAN></Id><Ccy>EUR</Ccy></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-19</Dt></Dt></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">150.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal><Ntry><Amt Ccy="EUR">50.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt><ValDt><Dt>2026-11-20</Dt></ValDt><BkTxCd/></Ntry></Stmt></BkToCstmrStmt></Document>\n`,
	});
}

if (skipReason) skipAll('EBICS Trigger, Parsed Entries and failing runs, in real n8n', skipReason);
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		const prepared = prepareForImport(example!, stack.bank.state, stack.bank.caPem, undefined, { pollEverySeconds: TEST_POLL_SECONDS });
		trigger = packageNode(prepared, TRIGGER)!;
		trigger.parameters = { ...trigger.parameters, output: 'parse', parseOptions: {} };
		const process = prepared.nodes.find((n) => n.name === 'Process Statement')!;
		Object.assign(process, { name: FAILING, type: 'n8n-nodes-base.stopAndError', typeVersion: 1, parameters: { errorMessage: 'The statement could not be booked' } });
		const connections = { [trigger.name]: { main: [[{ node: FAILING, type: 'main', index: 0 }]] } };
		workflow = { ...prepared, id, name: 'EBICS: new statements as entries, into a run that fails', connections } as WorkflowJson;
		await stack.n8n.importWorkflows([workflow]);
	}, 300_000);

	afterAll(async () => {
		await stack?.stop();
	});

	it(`n8n ${N8N_VERSION} start: every run fails after the trigger, yet each statement comes once as its entries, its statement and the file, and the bank has it delivered`, async () => {
		const waiting = (await statements()).filter((f) => !f.delivered).map((f) => f.name);
		expect(waiting).toHaveLength(5);
		await arriveCopy('camt053_failed_run_1.xml');
		const wanted = [...waiting, 'camt053_failed_run_1.xml'];
		await stack!.n8n.publish(id);
		await stack!.n8n.start();
		await waitForEmitted(stack!.n8n, id, wanted, fileNames, 'statements', 180_000);
		await until('the positive receipt of the statements whose runs failed', statements, (files) => files.every((f) => f.delivered));
		// One more statement after the receipts: a wrong repeat would have come with it by now.
		await arriveCopy('camt053_failed_run_2.xml');
		await waitForEmitted(stack!.n8n, id, ['camt053_failed_run_2.xml'], fileNames, 'statements', 180_000);
		const executions = stack!.n8n.executions(id).filter(finished);
		const all = fileNames(executions);
		expect(all.filter((n, i) => all.indexOf(n) !== i)).toEqual([]);
		expect([...all].sort()).toEqual([...wanted, 'camt053_failed_run_2.xml'].sort());

		for (const execution of executions) {
			expect(execution.mode).toBe('trigger');
			expect(execution.status).toBe('error');
			expect(nodeError(execution.run!, FAILING)?.message).toBe('The statement could not be booked');
		}
		const items = itemsOf(executions);
		for (const name of all) {
			const file = items.find((i) => i.json.kind === 'file' && i.json.fileName === name)!;
			expect(file.json).toMatchObject({ parsed: true, format: 'camt.053.001.02', statements: 1, service: 'BTD EOP camt.053 ZIP' });
			expect(file.binary?.data).toBeDefined();
			const entries = items.filter((i) => i.json.kind === 'entry' && i.json.sha256 === file.json.sha256);
			expect(entries).toHaveLength(file.json.entries as number);
			expect(entries.length).toBeGreaterThan(0);
			const [statement] = items.filter((i) => i.json.kind === 'statement' && i.json.sha256 === file.json.sha256);
			expect(statement.json).toMatchObject({ check: 'ok', entryCount: entries.length });
		}
		await until('the positive receipt of the last statement (with the poll after it)', statements, (files) => files.every((f) => f.delivered));
		await stack!.n8n.stop();
	}, 420_000);
}
