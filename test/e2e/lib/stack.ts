/**
 * A running test stack: the sandbox bank (its own process), a real n8n with the packed package
 * installed as a community package, the sandbox's credentials imported, and example workflows
 * imported and pointed at the sandbox.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ensureN8n, type N8nInstall } from './install';
import { N8n } from './n8n';
import { buildAndPack, installIntoNodesFolder, type PackedPackage } from './package';
import { PROJECT_ROOT, startSandboxProcess, type SandboxProcess } from './sandbox';
import {
	FILE_SERVICE_CREDENTIAL,
	packageNode,
	PIN_EXAMPLES,
	pinCredential,
	prepareForImport,
	sandboxCredentials,
	TEST_POLL_SECONDS,
	workflowId,
	type ImportOptions,
	type WorkflowJson,
	type WorkflowNode,
} from './workflows';

/** What the jest global set-up prepared once for every e2e test file (see globalSetup.ts). */
export interface E2eContext {
	install?: N8nInstall;
	installError?: string;
	pkg?: PackedPackage;
	packError?: string;
	/** Seconds spent installing n8n in this run (0 when cached). */
	installSeconds: number;
}

export function loadContext(): E2eContext {
	const file = process.env.CORPORATE_BANKING_E2E_CONTEXT;
	if (!file)
		throw new Error(
			'CORPORATE_BANKING_E2E_CONTEXT is not set: run the e2e tests through test/e2e/run.js or with test/e2e/jest.config.js',
		);
	return JSON.parse(readFileSync(file, 'utf8')) as E2eContext;
}

/** Throws the set-up's failure (n8n not installed, package not packed) as the test's failure. */
export function requireContext(): Required<Pick<E2eContext, 'install' | 'pkg'>> {
	const ctx = loadContext();
	if (!ctx.install)
		throw new Error(`Real n8n is not available: ${ctx.installError ?? 'not installed'}`);
	if (!ctx.pkg)
		throw new Error(
			`The package could not be built and packed: ${ctx.packError ?? 'unknown error'}`,
		);
	return { install: ctx.install, pkg: ctx.pkg };
}

/** Bank files of the project's test fixtures, by the name they get in a stack's files folder. */
export const SAMPLE_BANK_FILES: Record<string, string> = {
	'statement-camt053.xml': 'camt.053.001.02.xml',
	'notification-camt054.xml': 'camt.054.001.02.xml',
	'status-report-pain002.xml': 'pain.002.001.03.xml',
	'statement-tito.txt': 'tito-utf8.txt',
	'reference-payments-ktl.txt': 'ktl-latin1.txt',
};

/** Copies sample bank files (names of SAMPLE_BANK_FILES) into a folder. */
export function copySampleBankFiles(folder: string, names: string[]): void {
	mkdirSync(folder, { recursive: true });
	for (const name of names)
		copyFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'bankfiles', SAMPLE_BANK_FILES[name]), path.join(folder, name));
}

export interface Stack {
	n8n: N8n;
	bank: SandboxProcess;
	/** The folder n8n may read and write files in (N8N_RESTRICT_FILE_ACCESS_TO). */
	filesFolder: string;
	/**
	 * Imports example files (rewritten for the sandbox) and returns what was imported. A PIN
	 * example's credential is imported with it, holding a fresh PIN (see PIN_EXAMPLES).
	 */
	importExamples(files: string[], options?: ImportOptions): Promise<WorkflowJson[]>;
	/**
	 * Imports, for each bank profile, a File Service credential holding only a fresh PIN from the
	 * sandbox (not enrolled), replacing the one imported before; returns the values imported.
	 */
	importPinCredentials(banks: string[]): Promise<Record<string, Record<string, unknown>>>;
	stop(): Promise<void>;
}

export interface StackOptions {
	install?: N8nInstall;
	pkg?: PackedPackage;
	n8nPort?: number;
	sandboxPorts?: [number, number, number];
	seed?: number;
	mockErrorRate?: number;
	n8nEnv?: NodeJS.ProcessEnv;
	/** Start n8n with NODE_EXTRA_CA_CERTS = the sandbox's CA (for nodes added by hand in the editor). */
	trustSandboxCa?: boolean;
	/**
	 * The folder n8n may read and write files in (N8N_RESTRICT_FILE_ACCESS_TO): kept as it is. By
	 * default a temporary folder holding a camt.053 statement, removed with the stack.
	 */
	filesFolder?: string;
	keepUserFolder?: boolean;
	log?: (line: string) => void;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
	const log = opts.log ?? (() => undefined);
	const install = opts.install ?? ensureN8n(log);
	const pkg = opts.pkg ?? buildAndPack({ build: false, log });
	const bank = await startSandboxProcess({
		ports: opts.sandboxPorts,
		seed: opts.seed,
		mockErrorRate: opts.mockErrorRate,
	});
	let n8n: N8n | undefined;
	const ownFolder = opts.filesFolder === undefined;
	const filesFolder = ownFolder
		? mkdtempSync(path.join(os.tmpdir(), 'corporate-banking-files-'))
		: opts.filesFolder!;
	if (ownFolder) copySampleBankFiles(filesFolder, ['statement-camt053.xml']);
	mkdirSync(filesFolder, { recursive: true });
	// n8n compares the real path of a file with the allowed folders as given.
	const allowed = realpathSync(filesFolder);
	const removeFolder = (): void => {
		if (ownFolder) rmSync(filesFolder, { recursive: true, force: true });
	};
	try {
		const caFile = path.join(bank.state.certDir, 'ca.crt');
		n8n = await N8n.create({
			install,
			port: opts.n8nPort,
			keep: opts.keepUserFolder,
			env: {
				N8N_RESTRICT_FILE_ACCESS_TO: allowed,
				...(opts.n8nEnv ?? {}),
				...(opts.trustSandboxCa ? { NODE_EXTRA_CA_CERTS: caFile } : {}),
			},
		});
		installIntoNodesFolder(pkg, n8n.nodesDir, n8n.env());
		log(`installed ${pkg.name}@${pkg.version} into ${n8n.nodesDir}`);
		await n8n.importCredentials(sandboxCredentials(bank.state));
	} catch (error) {
		await n8n?.dispose();
		await bank.stop();
		removeFolder();
		throw error;
	}
	const instance = n8n;
	const importPinCredentials = async (
		banks: string[],
	): Promise<Record<string, Record<string, unknown>>> => {
		const values: Record<string, Record<string, unknown>> = {};
		for (const profile of banks)
			values[profile] = await bank.admin<Record<string, unknown>>('POST', '/enrolment', { bank: profile });
		await instance.importCredentials(
			banks.map((profile) => ({ ...pinCredential(profile), type: FILE_SERVICE_CREDENTIAL, data: values[profile] })),
		);
		return values;
	};
	return {
		n8n: instance,
		bank,
		filesFolder: allowed,
		async importExamples(files, options) {
			const banks = [...new Set(files.map((f) => PIN_EXAMPLES[f]).filter((b) => b !== undefined))];
			if (banks.length) await importPinCredentials(banks);
			const workflows = files.map((f) => prepareForImport(f, bank.state, bank.caPem, allowed, options));
			if (workflows.length) await instance.importWorkflows(workflows);
			return workflows;
		},
		importPinCredentials,
		async stop() {
			await instance.dispose();
			await bank.stop();
			removeFolder();
		},
	};
}

/** A suite that does not run: one skipped test says why. */
export function skipAll(title: string, reason: string): void {
	describe(title, () => {
		it.skip(`not run: ${reason}`, () => undefined);
	});
}

/**
 * Before the test file's tests: a stack with these examples imported, handed to `started`; after
 * them: the stack stopped.
 */
export function useExampleStack(files: string[], started: (stack: Stack) => void, options?: ImportOptions): void {
	let stack: Stack | undefined;
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		stack = await startStack({ install, pkg });
		await stack.importExamples(files, options);
		started(stack);
	}, 300_000);

	afterAll(async () => {
		await stack?.stop();
	});
}

/**
 * An example workflow that starts with a package trigger (type without prefix), imported into a
 * stack for the test file's tests (handed to `started`): its workflow, its trigger node and its
 * id in n8n.
 */
export function useTriggerExample(
	example: { file: string; workflow: WorkflowJson },
	type: string,
	started: (stack: Stack) => void,
): { workflow: WorkflowJson; trigger: WorkflowNode; id: string } {
	useExampleStack([example.file], started, { pollEverySeconds: TEST_POLL_SECONDS });
	return {
		workflow: example.workflow,
		trigger: packageNode(example.workflow, type)!,
		id: workflowId(example.file),
	};
}
