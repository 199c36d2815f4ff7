/**
 * `npm run demo`: the example workflows in a real n8n against the local sandbox bank, with
 * a short summary of what every node returned.
 *
 *   npm run demo                # run the examples in real n8n (installed once into the cache)
 *   npm run demo -- --ui        # the n8n editor on http://localhost:5678 with everything loaded, until Ctrl-C
 *   npm run demo -- --engine    # run the examples through n8n's workflow engine (n8n-core) only
 *
 * When real n8n cannot be installed, the examples run through the engine instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { ebicsForm, ebicsFormLines } from '../test/e2e/lib/ebicsSandbox';
import { SAMPLE_FILES } from '../nodes/shared/delivery';
import { PIN_BANKS, pinForm, pinFormLines } from '../test/e2e/lib/enrolment';
import { ensureN8n, N8N_VERSION, type N8nInstall } from '../test/e2e/lib/install';
import { nodeError, nodeItems, sleep, type RunData, type RunItem } from '../test/e2e/lib/n8n';
import { buildAndPack, type PackedPackage } from '../test/e2e/lib/package';
import { PROJECT_ROOT } from '../test/e2e/lib/sandbox';
import {
	copySampleBankFiles,
	SAMPLE_BANK_FILES,
	startStack,
	type Stack,
	type StackOptions,
} from '../test/e2e/lib/stack';
import { DEMO_OWNER, setupOwner } from '../test/e2e/lib/ui';
import {
	credentialName,
	exampleFiles,
	isManual,
	loadExample,
	missingNodeTypes,
	packageManifest,
	PACKAGE_NAME,
	PIN_EXAMPLES,
	pinCredential,
	sandboxCredentials,
	workflowId,
	type WorkflowJson,
} from '../test/e2e/lib/workflows';

const SANDBOX_PORTS: [number, number, number] = [8443, 8444, 8445];
const UI_PORT = 5678;
/** The folder `--ui` lets n8n read files from, with sample bank files in it. */
const DEMO_FILES = path.join(PROJECT_ROOT, 'demo-files');

/** What the bank saw in the whole demo: each example starts from a reset bank, so its figures add up. */
const BANK_TOTALS = ['tokenRequests', 'mtlsTokenRequests', 'executions', 'mockCalls', 'mockErrors', 'eventPolls'] as const;
type BankTotals = Record<(typeof BANK_TOTALS)[number] | 'soapCalls', number>;

async function addBankStats(stack: Stack, totals: BankTotals): Promise<void> {
	const stats = await stack.bank.admin<Record<string, number & unknown[]>>('GET', '/stats');
	for (const key of BANK_TOTALS) totals[key] += Number(stats[key] ?? 0);
	totals.soapCalls += stats.soapCalls?.length ?? 0;
}

/** One example's outcome, for the last line. */
interface Outcome {
	file: string;
	ok: boolean;
}

function summaryLine(outcomes: Outcome[], started: number, how: string): string {
	const failed = outcomes.filter((o) => !o.ok);
	return (
		`demo: ${outcomes.length - failed.length} of ${outcomes.length} examples passed, ${failed.length} failed ` +
		`(${how}, ${Math.round((Date.now() - started) / 1000)} s)${failed.length ? `: ${failed.map((o) => o.file).join(', ')}` : ''}`
	);
}

const KEYS = [
	'tradeId',
	'counterpart',
	'product',
	'maturityDate',
	'executionId',
	'jti',
	'eventType',
	'fileReference',
	'userFilename',
	'fileType',
	'status',
	'mockAttempts',
	'statementId',
	'bookingDate',
	'amount',
	'currency',
	'counterpartyName',
	'closingBalance',
	'check',
	'numberOfTransactions',
	'controlSum',
	'error',
];

function summarise(json: Record<string, unknown>): string {
	const parts = KEYS.filter((k) => json[k] !== undefined && json[k] !== null).map(
		(k) => `${k}=${String(json[k])}`,
	);
	for (const k of ['sold', 'bought']) {
		const money = json[k] as { currency?: string; amount?: number } | undefined;
		if (money?.currency) parts.push(`${k}=${money.amount} ${money.currency}`);
	}
	return parts.slice(0, 6).join(', ') || JSON.stringify(json).slice(0, 100);
}

function printItems(label: string, items: RunItem[]): void {
	console.log(`   ${label}: ${items.length} item(s)`);
	for (const item of items.slice(0, 3)) {
		const file = item.binary ? Object.values(item.binary)[0] : undefined;
		console.log(
			`     - ${summarise(item.json)}${file ? ` [file ${file.fileName}, ${file.fileSize}]` : ''}`,
		);
	}
	if (items.length > 3) console.log(`     ... and ${items.length - 3} more`);
}

/** Prints every node of a run; returns the number of nodes that failed. */
function printRun(workflow: WorkflowJson, run: RunData): number {
	let failures = 0;
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.stickyNote' || node.type === 'n8n-nodes-base.manualTrigger')
			continue;
		if (!run.data.resultData.runData[node.name]) {
			console.log(`   ${node.name}: did not run`);
			continue;
		}
		const error = nodeError(run, node.name);
		if (error) {
			failures++;
			console.log(`   ${node.name}: ERROR ${error.message ?? ''}`);
			continue;
		}
		const outputs = run.data.resultData.runData[node.name][0]?.data?.main ?? [];
		if (outputs.length > 1)
			outputs.forEach((_, index) =>
				printItems(`${node.name} (output ${index + 1})`, nodeItems(run, node.name, index)),
			);
		else printItems(node.name, nodeItems(run, node.name));
	}
	return failures;
}

/** The demo's stack: the package packed from the build, the sandbox bank on the demo's ports with 20 % mock errors. */
async function startDemoStack(install: N8nInstall, options: StackOptions = {}): Promise<{ pkg: PackedPackage; stack: Stack }> {
	const pkg = buildAndPack({ build: false });
	const stack = await startStack({ install, pkg, sandboxPorts: SANDBOX_PORTS, seed: 42, mockErrorRate: 0.2, ...options });
	return { pkg, stack };
}

async function realDemo(install: N8nInstall): Promise<number> {
	const started = Date.now();
	const { pkg, stack } = await startDemoStack(install);
	const interrupt = (): void => {
		console.log('\nInterrupted: stopping n8n and the sandbox bank...');
		void stack.stop().finally(() => process.exit(130));
	};
	process.once('SIGINT', interrupt);
	process.once('SIGTERM', interrupt);
	const outcomes: Outcome[] = [];
	try {
		console.log(
			`Sandbox bank running at ${stack.bank.state.urls.base} (mutual TLS at ${stack.bank.state.urls.mtlsBase})`,
		);
		console.log(
			`n8n ${N8N_VERSION} with ${pkg.name}@${pkg.version} installed as a community package\n`,
		);
		// Manual examples first, then the triggers. Each example starts from a reset bank, so that
		// each has the bank's statements, events and trades to itself.
		const files = exampleFiles().sort((a, b) => Number(!isManual(loadExample(a))) - Number(!isManual(loadExample(b))));
		const runnable = files.filter((f) => !missingNodeTypes(loadExample(f)).length);
		await stack.importExamples(runnable);
		const totals = Object.fromEntries([...BANK_TOTALS, 'soapCalls'].map((k) => [k, 0])) as BankTotals;
		for (const file of files) {
			const workflow = loadExample(file);
			const missing = missingNodeTypes(workflow);
			if (missing.length) {
				console.log(
					`== ${workflow.name ?? file}  (examples/${file}) -> skipped: package.json does not list ${missing.join(', ')}\n`,
				);
				continue;
			}
			const kind = TRIGGERS.find((t) => workflow.nodes.some((n) => n.type === `${PACKAGE_NAME}.${t.type}`));
			if (!isManual(workflow) && !kind) {
				console.log(`== ${workflow.name ?? file}  (examples/${file}) -> not run here: it starts with a trigger this demo does not drive; try it in the editor (npm run demo -- --ui)\n`);
				continue;
			}
			await stack.bank.admin('POST', '/reset', { all: true });
			const failures = isManual(workflow) ? await runManual(stack, file, workflow) : await runTrigger(stack, file, workflow, kind!);
			outcomes.push({ file, ok: failures === 0 });
			await addBankStats(stack, totals);
		}
		console.log(
			`Bank saw ${totals.tokenRequests} token request(s), ${totals.mtlsTokenRequests} mutual-TLS token request(s), ${totals.executions} trade execution(s), ` +
				`${totals.mockCalls} mock call(s) (${totals.mockErrors} random errors survived), ${totals.eventPolls} event poll(s), ${totals.soapCalls} file service call(s).`,
		);
	} finally {
		await stack.stop();
	}
	console.log(summaryLine(outcomes, started, `n8n ${N8N_VERSION}`));
	return outcomes.filter((o) => !o.ok).length;
}

async function runManual(stack: Stack, file: string, workflow: WorkflowJson): Promise<number> {
	console.log(`.. running examples/${file} with n8n execute (a few seconds: n8n loads, runs it, exits)`);
	const result = await stack.n8n.execute(workflowId(file));
	if (!result.run) {
		console.log(
			`== ${workflow.name ?? file}  (examples/${file}) -> n8n execute printed no run (exit ${result.exitCode})`,
		);
		console.log(result.output.split('\n').slice(-15).join('\n'));
		return 1;
	}
	const status = result.run.data.resultData.error ? 'error' : 'success';
	console.log(
		`== ${workflow.name ?? file}  (examples/${file}) -> ${status} (n8n execute, ${result.seconds.toFixed(1)} s)`,
	);
	const failures = printRun(workflow, result.run);
	const pinBank = PIN_EXAMPLES[file];
	if (pinBank) {
		// The example ran with a credential holding only a PIN: the run enrolled it.
		const { id, name } = pinCredential(pinBank);
		const stored = (await stack.n8n.decryptedCredentials()).find((c) => c.id === id)?.data ?? {};
		const certificate = String(stored.enrolmentStatus ?? '') || 'not enrolled';
		console.log(`   credential "${name}": ${certificate}${stored.pin ? '' : '; its PIN was spent and cleared'}`);
	}
	console.log('');
	return failures + (status === 'success' ? 0 : 1);
}

/** The polling triggers of the examples: what to make happen at the bank, and how their items name it. */
interface TriggerDemo {
	type: string;
	/** Makes the bank produce work for the trigger; returns the ids the items will carry. */
	queue: (stack: Stack) => Promise<string[]>;
	key: string;
	what: string;
	timeoutMs: number;
}

const TRIGGERS: TriggerDemo[] = [
	{
		type: 'bankEventTrigger',
		queue: async (stack) => (await stack.bank.admin<{ jtis: string[] }>('POST', '/events', { count: 3 })).jtis,
		key: 'jti',
		what: 'queued event(s)',
		timeoutMs: 90_000,
	},
	{
		// The first poll only notes what the bank already handed out; the next minute's poll emits.
		type: 'bankFileTrigger',
		queue: async (stack) =>
			(await stack.bank.admin<{ files: Array<{ fileReference: string }> }>('POST', '/files/arrive', { count: 3 })).files.map((f) => f.fileReference),
		key: 'fileReference',
		what: 'new bank file(s)',
		timeoutMs: 150_000,
	},
	{
		// The first poll already emits what the bank has not delivered (its own five statements too).
		type: 'ebicsTrigger',
		queue: async (stack) => {
			const names: string[] = [];
			for (let n = 1; n <= 3; n++) {
				const name = `camt053_demo_${n}.xml`;
				const content = `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>DEMO-${n}</MsgId><CreDtTm>2026-11-20T18:00:00</CreDtTm></GrpHdr></BkToCstmrStmt></Document>\n`;
				await stack.bank.admin('POST', '/ebics/files', { partnerId: 'PARTNER2', userId: 'READY1', serviceName: 'EOP', msgName: 'camt.053', name, content });
				names.push(name);
			}
			return names;
		},
		key: 'fileName',
		what: 'new EBICS statement(s)',
		timeoutMs: 120_000,
	},
	{
		// A pain.002 acknowledgement and a camt.053 statement, encrypted to the customer and signed
		// by the bank, in the SFTP incoming folder; taken once two polls saw them unchanged.
		type: 'bankSftpTrigger',
		queue: async (stack) => {
			const files = [
				{ name: 'ack_pain002_demo.xml', content: SAMPLE_FILES['pain.002'].content },
				{ name: 'stmt_camt053_demo.xml', content: SAMPLE_FILES['camt.053'].content },
			];
			for (const file of files) await stack.bank.admin('POST', '/sftp/arrive', { name: `${file.name}.pgp`, content: file.content });
			return files.map((file) => file.name);
		},
		key: 'fileName',
		what: 'new file(s) in the SFTP folder',
		timeoutMs: 180_000,
	},
];

async function runTrigger(stack: Stack, file: string, workflow: WorkflowJson, kind: TriggerDemo): Promise<number> {
	const id = workflowId(file);
	const ids = await kind.queue(stack);
	const started = Date.now();
	console.log(
		`.. examples/${file}: ${ids.length} ${kind.what} at the bank; publishing the workflow and starting n8n ` +
			'(n8n start takes 30 to 60 s; the trigger polls as soon as the workflow is active, then on its schedule)',
	);
	// Progress for the person watching; the loop below waits for the executions themselves.
	const progress = setInterval(
		() => console.log(`   still waiting for n8n to start and poll (${Math.round((Date.now() - started) / 1000)} s)`),
		10_000,
	);
	await stack.n8n.publish(id);
	try {
		await stack.n8n.start();
	} finally {
		clearInterval(progress);
	}
	console.log(`   n8n is up after ${Math.round((Date.now() - started) / 1000)} s; waiting for the trigger's executions`);
	try {
		const deadline = Date.now() + kind.timeoutMs;
		while (Date.now() < deadline) {
			const executions = stack.n8n
				.executions(id)
				.filter((e) => e.finished || e.status === 'success' || e.status === 'error');
			const trigger = workflow.nodes.find((n) => n.type === `${PACKAGE_NAME}.${kind.type}`)!;
			const seen = executions.flatMap((e) =>
				(e.run ? nodeItems(e.run, trigger.name) : []).map((i) => i.json[kind.key]),
			);
			if (ids.every((j) => seen.includes(j))) {
				console.log(
					`== ${workflow.name ?? file}  (examples/${file}) -> published; n8n start ran ${executions.length} execution(s) for ${ids.length} ${kind.what} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
				);
				let failures = 0;
				for (const execution of executions) {
					console.log(`   execution ${execution.id} (${execution.mode}, ${execution.status}):`);
					failures += printRun(workflow, execution.run!);
				}
				console.log('');
				return failures;
			}
			await sleep(1000);
		}
		console.log(
			`== ${workflow.name ?? file}  (examples/${file}) -> the trigger did not emit the ${kind.what} within ${kind.timeoutMs / 1000} s (log: ${stack.n8n.logFile})`,
		);
		return 1;
	} finally {
		await stack.n8n.stop();
	}
}

async function uiDemo(install: N8nInstall): Promise<void> {
	// A folder n8n may read files from, with sample bank files; files already there are kept.
	copySampleBankFiles(
		DEMO_FILES,
		Object.keys(SAMPLE_BANK_FILES).filter((name) => !existsSync(path.join(DEMO_FILES, name))),
	);
	const { stack } = await startDemoStack(install, {
		n8nPort: UI_PORT,
		trustSandboxCa: true,
		filesFolder: DEMO_FILES,
	});
	let stopping = false;
	const stop = async (): Promise<void> => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping n8n and the sandbox bank...');
		await stack.stop();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
	const files = exampleFiles().filter((f) => !missingNodeTypes(loadExample(f)).length);
	await stack.importExamples(files);
	await stack.n8n.start();
	await setupOwner(stack.n8n.baseUrl);
	const credentials = sandboxCredentials(stack.bank.state).map((c) => credentialName(c.type));
	const pinCredentials = [...new Set(Object.values(PIN_EXAMPLES))].map((bank) => pinCredential(bank).name);
	// One fresh PIN per bank, as the fields of a new credential; certificates as files to paste.
	const pinFolder = path.join(stack.n8n.userFolder, 'pins');
	const pins: string[] = [];
	for (const bank of Object.keys(PIN_BANKS)) pins.push(...pinFormLines(await pinForm(stack.bank, bank, pinFolder)));
	const cacert = path.join(stack.bank.state.certDir, 'ca.crt');
	const ebics = ebicsFormLines(await ebicsForm(stack.bank));
	console.log(
		[
			'',
			`n8n ${N8N_VERSION} editor: ${stack.n8n.baseUrl}`,
			`  log in as ${DEMO_OWNER.email} / ${DEMO_OWNER.password} (a local demo account of this throwaway instance)`,
			`  nodes: ${packageManifest()
				.nodes.map((n) => `${PACKAGE_NAME}.${n}`)
				.join(', ')}`,
			`  credentials: ${[...credentials, ...pinCredentials].join('; ')}`,
			`    (the two "enrols from a PIN" hold only a PIN: the first run of their example, or Save in the credential, enrols them)`,
			`  workflows: ${files.map((f) => loadExample(f).name ?? f).join('; ')}`,
			`Files: n8n may read and write files in ${stack.filesFolder} (N8N_RESTRICT_FILE_ACCESS_TO).`,
			`  It holds sample bank files; drop your own there and run "${loadExample('bank-file-from-disk.json').name}" (Read/Write Files from Disk, ${stack.filesFolder}/*.xml).`,
			`Enrol a certificate yourself: Overview > Create credential > "Corporate Banking File Service API", fill in these fields, Save.`,
			`  Each PIN works once (the sandbox's certificate service). n8n tests the credential on Save, which enrols it.`,
			...pins,
			`  More PINs: curl --cacert ${cacert} -X POST ${stack.bank.state.urls.admin}/enrolment -H 'content-type: application/json' -d '{"bank": "op"}'`,
			`    (answers every field's value as JSON; bank: nordea, op, samlink, aktia, pop, saastopankki, handelsbanken or danske)`,
			`EBICS: a new subscriber yourself: Overview > Create credential > "Corporate Banking EBICS API", fill in these fields, Save.`,
			...ebics,
			`Sandbox bank: ${stack.bank.state.urls.base} (mutual TLS ${stack.bank.state.urls.mtlsBase}); n8n trusts its test CA.`,
			`  queue bank events: curl --cacert ${cacert} -X POST ${stack.bank.state.urls.admin}/events -H 'content-type: application/json' -d '{"count": 3}'`,
			`n8n's log: ${stack.n8n.logFile}`,
			'Press Ctrl-C to stop (the n8n data folder is temporary and is removed; demo-files stays).',
		].join('\n'),
	);
	await new Promise(() => undefined);
}

/** The engine-based run (n8n-core's WorkflowExecute in this process): no n8n install needed. */
async function engineDemo(): Promise<number> {
	const started = Date.now();
	require('../test/harness/env');
	const { MANUAL_TRIGGER_TYPE } = await import('../test/harness/engine');
	const { manualExamples, runExample } = await import('../test/helpers/examples');
	const nodes = await import('../test/helpers/nodes');
	const { startSandbox } = await import('../test/sandbox');
	const known = Object.keys(nodes.packageNodeTypes());
	const bank = await startSandbox({ seed: 42, mockErrorRate: 0.2 });
	console.log(`Sandbox bank running at ${bank.urls.base} (mutual TLS at ${bank.urls.mtlsBase})\n`);
	const outcomes: Outcome[] = [];
	const totals = { tokenRequests: 0, executions: 0, mockCalls: 0, mockErrors: 0 };
	try {
		for (const file of manualExamples()) {
			const types = (
				JSON.parse(
					readFileSync(path.join(__dirname, '..', 'examples', file), 'utf8'),
				) as WorkflowJson
			).nodes.map((n) => n.type);
			const unknown = [
				...new Set(types.filter((t) => t.startsWith(`${PACKAGE_NAME}.`) && !known.includes(t))),
			];
			if (unknown.length) {
				console.log(
					`== examples/${file} -> skipped: the engine run does not know ${unknown.join(', ')}\n`,
				);
				continue;
			}
			// Each example starts from a reset bank: its statements, events and trades are its own.
			bank.resetAll();
			const result = await runExample(file, bank);
			console.log(`== ${result.workflow.name ?? file}  (examples/${file}) -> ${result.status}`);
			let failures = result.status === 'success' ? 0 : 1;
			for (const node of result.workflow.nodes) {
				if (node.type === MANUAL_TRIGGER_TYPE || node.type === 'n8n-nodes-base.stickyNote')
					continue;
				const error = result.nodeError(node.name);
				if (error) {
					failures++;
					console.log(`   ${node.name}: ERROR ${error.message}`);
					continue;
				}
				printItems(node.name, result.output(node.name) as RunItem[]);
			}
			const pinBank = PIN_EXAMPLES[file];
			if (pinBank) {
				const { id, name } = pinCredential(pinBank);
				const stored = result.store.get(id)?.data ?? {};
				console.log(`   credential "${name}": ${String(stored.enrolmentStatus ?? '') || 'not enrolled'}${stored.pin ? '' : '; its PIN was spent and cleared'}`);
			}
			console.log('');
			outcomes.push({ file, ok: failures === 0 });
			for (const key of Object.keys(totals) as Array<keyof typeof totals>) totals[key] += bank.stats[key];
		}
		console.log(
			`Bank saw ${totals.tokenRequests} token request(s), ${totals.executions} trade execution(s), ${totals.mockCalls} mock call(s) (${totals.mockErrors} random errors survived).`,
		);
	} finally {
		await bank.stop();
	}
	console.log(summaryLine(outcomes, started, "n8n's workflow engine"));
	return outcomes.filter((o) => !o.ok).length;
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const ui = args.includes('--ui');
	if (args.includes('--engine')) process.exit((await engineDemo()) ? 1 : 0);
	let install: N8nInstall | undefined;
	try {
		console.log(
			`Preparing n8n ${N8N_VERSION} on Node.js 24 (installed once into the cache; the first time takes a few minutes)...`,
		);
		install = ensureN8n((line) => console.log(`  ${line}`));
	} catch (error) {
		const reason = (error as Error).message.split('\n')[0];
		if (ui) {
			console.error(`Real n8n could not be installed, so the editor cannot start: ${reason}`);
			process.exit(1);
		}
		console.log(
			`Real n8n could not be installed (${reason}).\nRunning the example workflows through n8n's workflow engine (n8n-core) instead.\n`,
		);
		process.exit((await engineDemo()) ? 1 : 0);
	}
	if (ui) return await uiDemo(install);
	process.exit((await realDemo(install)) ? 1 : 0);
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : String(error));
	process.exit(1);
});
