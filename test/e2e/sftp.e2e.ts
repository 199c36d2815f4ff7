/**
 * Bank SFTP in a real n8n, one stack (the sandbox bank with its host-to-host SFTP server, n8n with
 * the packed package installed, ssh2 and openpgp.js bundled without native parts):
 *
 * 1. `n8n execute` of the upload example: a pain.001 built with Bank File, signed, encrypted and
 *    uploaded under a temporary name; the bank holds one file under its own name.
 * 2. The trigger example published and run by `n8n start`: a pain.002 acknowledgement and a
 *    camt.053 statement the bank encrypted and signed come once each, decrypted, verified and
 *    parsed; n8n is killed (SIGKILL) after the hand-over and started again; the files are moved
 *    to the archive folder and none is emitted twice.
 */
import { expectNoNodeErrors, finished, waitForEmitted } from './lib/executions';
import { N8N_VERSION } from './lib/install';
import { nodeError, nodeItems, sleep, type StoredExecution } from './lib/n8n';
import { requireContext, skipAll, startStack, type Stack } from './lib/stack';
import { packageManifest, packageNode, prepareForImport, TEST_POLL_SECONDS, type WorkflowJson, type WorkflowNode } from './lib/workflows';

const manifest = packageManifest();
const skipReason = !manifest.nodes.includes('bankSftp') || !manifest.nodes.includes('bankSftpTrigger') ? 'package.json does not list the Bank SFTP nodes' : undefined;

type Item = { json: Record<string, unknown>; binary?: Record<string, unknown> };
interface Folders {
	outgoing: string[];
	incoming: string[];
	archive: string[];
}

let stack: Stack | undefined;
let upload: WorkflowJson;
let trigger: WorkflowJson;
let triggerNode: WorkflowNode;

if (skipReason) skipAll('Bank SFTP in real n8n', skipReason);
else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		upload = prepareForImport('sftp-payments-upload.json', stack.bank.state, stack.bank.caPem, stack.filesFolder);
		trigger = prepareForImport('sftp-trigger.json', stack.bank.state, stack.bank.caPem, undefined, { pollEverySeconds: TEST_POLL_SECONDS });
		triggerNode = packageNode(trigger, 'bankSftpTrigger')!;
		await stack.n8n.importWorkflows([upload, trigger]);
	}, 300_000);

	afterAll(async () => {
		await stack?.stop();
	});

	it(`n8n ${N8N_VERSION} execute: the upload example signs, encrypts and uploads a pain.001; the bank holds it under its own name only`, async () => {
		const result = await stack!.n8n.execute(upload.id!);
		expect(result.run).toBeDefined();
		for (const node of upload.nodes) expect([node.name, nodeError(result.run!, node.name)?.message]).toEqual([node.name, undefined]);
		const [sent] = nodeItems(result.run!, 'Upload to Bank (SFTP)');
		expect(sent.json).toMatchObject({ folder: 'outgoing', signed: true, encrypted: true });
		expect(String(sent.json.name)).toMatch(/^pain001-\d{8}-\d{6}\.xml\.pgp$/);
		const folders = await stack!.bank.admin<Folders>('GET', '/sftp');
		expect(folders.outgoing).toEqual([sent.json.name]);
	}, 300_000);

	it(`n8n ${N8N_VERSION} start: an acknowledgement and a statement from the bank come once each, decrypted, verified and parsed, then moved to the archive, across a SIGKILL of n8n after the hand-over`, async () => {
		const wanted = ['ack_pain002_e2e.xml', 'stmt_camt053_e2e.xml'];
		const statement = (await import('../../nodes/shared/delivery')).SAMPLE_FILES;
		await stack!.bank.admin('POST', '/sftp/arrive', { name: `${wanted[0]}.pgp`, content: statement['pain.002'].content });
		await stack!.bank.admin('POST', '/sftp/arrive', { name: `${wanted[1]}.pgp`, content: statement['camt.053'].content });
		const id = trigger.id!;
		await stack!.n8n.publish(id);
		await stack!.n8n.start();
		const itemsOf = (executions: StoredExecution[]): Item[] => executions.flatMap((e) => (e.run ? (nodeItems(e.run, triggerNode.name) as Item[]) : []));
		const files = (done: StoredExecution[]) => itemsOf(done).filter((i) => i.json.kind === 'file').map((i) => String(i.json.fileName));
		const executions = await waitForEmitted(stack!.n8n, id, wanted, files, 'files', 240_000);
		for (const execution of executions) {
			expect(execution.status).toBe('success');
			expectNoNodeErrors(execution, trigger);
		}
		// n8n killed (SIGKILL, as a crash) once the hand-over is saved, before or while the next poll
		// moves the files; started again, it moves what is left and emits nothing twice.
		await stack!.n8n.kill();
		await stack!.n8n.start();
		// The next poll moves them; a wrong repeat would show up as another execution meanwhile.
		const deadline = Date.now() + 120_000;
		let folders = await stack!.bank.admin<Folders>('GET', '/sftp');
		while (folders.archive.length < 2 && Date.now() < deadline) {
			await sleep(1000);
			folders = await stack!.bank.admin<Folders>('GET', '/sftp');
		}
		expect(folders.archive).toEqual(wanted.map((n) => `${n}.pgp`).sort());
		expect(folders.incoming).toEqual([]);
		await sleep(TEST_POLL_SECONDS * 2000); // two more polls: room for a wrong repeat to show up
		const items = itemsOf(stack!.n8n.executions(id).filter(finished));
		const fileItems = items.filter((i) => i.json.kind === 'file');
		expect(fileItems.map((i) => i.json.fileName).sort()).toEqual([...wanted].sort());
		for (const file of fileItems) expect(file.json).toMatchObject({ decrypted: true, signed: true, parsed: true });
		expect(items.filter((i) => i.json.kind === 'paymentStatus').length).toBeGreaterThan(0);
		expect(items.filter((i) => i.json.kind === 'entry')).toHaveLength(7);
		await stack!.n8n.stop();
	}, 600_000);
}
