/**
 * One real n8n instance (installed by install.ts) with its own user folder and sqlite database:
 * the CLI commands the tests use (import, execute, publish), `n8n start` / stop, and reading
 * executions back from the database.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
	closeSync,
	copyFileSync,
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	writeFileSync,
	type WriteStream,
} from 'node:fs';
import { get } from 'node:http';
import os from 'node:os';
import path from 'node:path';

import type { N8nInstall } from './install';
import { choosePorts, freePorts } from './sandbox';

/** One item as n8n stores it in run data. */
export interface RunItem {
	json: Record<string, unknown>;
	binary?: Record<string, { fileName?: string; mimeType?: string; fileSize?: string; id?: string }>;
}

export interface TaskData {
	executionStatus?: string;
	error?: { message?: string; description?: string; name?: string };
	data?: Record<string, Array<RunItem[] | null>>;
}

/** What `n8n execute --rawOutput` prints and what the executions table holds (the parts we read). */
export interface RunData {
	status?: string;
	mode?: string;
	finished?: boolean;
	data: {
		resultData: {
			runData: Record<string, TaskData[]>;
			error?: { message?: string };
			lastNodeExecuted?: string;
		};
	};
}

export interface ExecuteResult {
	exitCode: number | null;
	/** The signal that ended n8n, if one did. */
	signal: NodeJS.Signals | null;
	run?: RunData;
	/** stdout + stderr, for failure messages. */
	output: string;
	seconds: number;
}

export interface StoredExecution {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	run?: RunData;
}

/** Items of a node's output `index` (run 0 unless given). */
export function nodeItems(run: RunData, node: string, index = 0, runIndex = 0): RunItem[] {
	const task = run.data.resultData.runData[node]?.[runIndex];
	return task?.data?.main?.[index] ?? [];
}

/** Where n8n keeps a binary item in filesystem mode (`filesystem-v2:<path>` under `.n8n/storage`). */
export function binaryFile(userFolder: string, id: string | undefined): string | undefined {
	if (!id) return undefined;
	const match = /^filesystem(?:-v2)?:(.+)$/.exec(id);
	return match ? path.join(userFolder, '.n8n', 'storage', match[1]) : undefined;
}

export function nodeError(run: RunData, node: string): TaskData['error'] | undefined {
	return run.data.resultData.runData[node]?.[0]?.error;
}

/**
 * Finds the run JSON among n8n's log lines: every top-level `{ ... }` block is tried (strings
 * and escapes respected) and the last one shaped like a run is returned.
 */
export function extractRun(text: string): RunData | undefined {
	let found: RunData | undefined;
	for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
		if (start > 0 && text[start - 1] !== '\n') continue;
		let depth = 0;
		let inString = false;
		let end = -1;
		for (let i = start; i < text.length; i++) {
			const c = text[i];
			if (inString) {
				if (c === '\\') i++;
				else if (c === '"') inString = false;
			} else if (c === '"') inString = true;
			else if (c === '{' || c === '[') depth++;
			else if (c === '}' || c === ']') {
				depth--;
				if (depth === 0) {
					end = i;
					break;
				}
			}
		}
		if (end === -1) continue;
		try {
			const value = JSON.parse(text.slice(start, end + 1)) as RunData;
			if (value?.data?.resultData?.runData) {
				found = value;
				start = end;
			}
		} catch {
			/* not JSON */
		}
	}
	return found;
}

/** The environment variable naming the migrated database each new instance starts from. */
export const DATABASE_TEMPLATE_ENV = 'CORPORATE_BANKING_E2E_DATABASE';

/**
 * Makes `file` an empty n8n database with every migration of this n8n run (a throwaway instance's,
 * copied as one file by SQLite's VACUUM INTO). Instances created while DATABASE_TEMPLATE_ENV names
 * it start from a copy: a new n8n's first command otherwise spends seconds of CPU migrating.
 */
export async function makeDatabaseTemplate(install: N8nInstall, file: string): Promise<void> {
	const n8n = await N8n.create({ install });
	try {
		await n8n.importCredentials([]);
		n8n.query('VACUUM INTO ?', [file]);
	} finally {
		await n8n.dispose();
	}
}

export interface N8nOptions {
	install: N8nInstall;
	/** Editor/REST port (preferred when free; default: a port the system gives). The task broker always gets one the system gives. */
	port?: number;
	/** Extra environment for every n8n process. */
	env?: NodeJS.ProcessEnv;
	/** Where n8n's own output goes (default: a file in the user folder). */
	logFile?: string;
	/** Keep the user folder after `dispose` (default: removed; CORPORATE_BANKING_E2E_KEEP=1 keeps it). */
	keep?: boolean;
}

export class N8n {
	readonly userFolder: string;
	readonly logFile: string;
	private server?: ChildProcess;
	private serverLog?: WriteStream;
	private readonly encryptionKey = randomBytes(24).toString('hex');

	private constructor(
		readonly install: N8nInstall,
		readonly port: number,
		private readonly brokerPort: number,
		private readonly extraEnv: NodeJS.ProcessEnv,
		logFile: string | undefined,
		private readonly keep: boolean,
	) {
		this.userFolder = mkdtempSync(path.join(os.tmpdir(), 'corporate-banking-n8n-'));
		mkdirSync(path.join(this.userFolder, '.n8n', 'nodes'), { recursive: true });
		// A database n8n has migrated already (see makeDatabaseTemplate): its first command then
		// starts without running every migration again.
		const template = process.env[DATABASE_TEMPLATE_ENV];
		if (template && existsSync(template)) copyFileSync(template, this.databaseFile);
		this.logFile = logFile ?? path.join(this.userFolder, 'n8n.log');
	}

	static async create(opts: N8nOptions): Promise<N8n> {
		const [port] = opts.port ? await choosePorts([opts.port]) : await freePorts(1);
		const [brokerPort] = await freePorts(1, [port]);
		return new N8n(
			opts.install,
			port,
			brokerPort,
			opts.env ?? {},
			opts.logFile,
			opts.keep ?? process.env.CORPORATE_BANKING_E2E_KEEP === '1',
		);
	}

	get baseUrl(): string {
		return `http://localhost:${this.port}`;
	}

	get nodesDir(): string {
		return path.join(this.userFolder, '.n8n', 'nodes');
	}

	get databaseFile(): string {
		return path.join(this.userFolder, '.n8n', 'database.sqlite');
	}

	env(): NodeJS.ProcessEnv {
		const rt = this.install.runtime;
		// Under jest NODE_ENV is 'test', which switches n8n into its own test mode: run it as deployed.
		const inherited = Object.fromEntries(
			Object.entries(process.env).filter(([k]) => !k.startsWith('JEST_') && k !== 'NODE_ENV'),
		);
		return {
			...inherited,
			NODE_ENV: 'production',
			PATH: `${rt.binDir}${path.delimiter}${process.env.PATH ?? ''}`,
			npm_config_nodedir: rt.nodedir,
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: this.encryptionKey,
			DB_TYPE: 'sqlite',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_LOG_LEVEL: 'info',
			N8N_PORT: String(this.port),
			// `n8n worker` serves its health checks here (queue mode).
			QUEUE_HEALTH_CHECK_PORT: String(this.port),
			N8N_HOST: 'localhost',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_SECURE_COOKIE: 'false',
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			NODE_OPTIONS: '',
			...this.extraEnv,
		};
	}

	private log(text: string): void {
		writeFileSync(this.logFile, text, { flag: 'a' });
	}

	/**
	 * Runs `n8n <args>` to completion, or until `killWhen` resolves: then the process and its group
	 * are killed at once (SIGKILL: no graceful shutdown, nothing saved), as a crash does.
	 */
	async cli(
		args: string[],
		timeoutMs = 180_000,
		killWhen?: Promise<unknown>,
	): Promise<{
		code: number | null;
		signal: NodeJS.Signals | null;
		stdout: string;
		stderr: string;
		seconds: number;
	}> {
		const started = Date.now();
		this.log(`\n$ n8n ${args.join(' ')}\n`);
		// The output goes to files, not pipes: n8n ends with process.exit(), and what it wrote to a
		// pipe the reader had not yet drained (a large run JSON on a loaded machine) would be lost.
		// Writes to a file are complete when the process has exited.
		const base = path.join(this.userFolder, `cli-${randomBytes(6).toString('hex')}`);
		const outFd = openSync(`${base}.out`, 'w');
		const errFd = openSync(`${base}.err`, 'w');
		const readOutput = (): { stdout: string; stderr: string } => {
			const stdout = readFileSync(`${base}.out`, 'utf8');
			const stderr = readFileSync(`${base}.err`, 'utf8');
			return { stdout, stderr };
		};
		return await new Promise((resolve, reject) => {
			let child: ChildProcess;
			try {
				child = track(
					spawn(this.install.runtime.node, [this.install.n8nBin, ...args], {
						env: this.env(),
						stdio: ['ignore', outFd, errFd],
						detached: true,
					}),
				);
			} finally {
				closeSync(outFd);
				closeSync(errFd);
			}
			const timer = setTimeout(() => {
				killGroup(child, 'SIGKILL');
				const { stdout, stderr } = readOutput();
				reject(
					new Error(
						`n8n ${args.join(' ')} did not finish within ${timeoutMs / 1000} s:\n${(stdout + stderr).slice(-3000)}`,
					),
				);
			}, timeoutMs);
			child.once('error', reject);
			void killWhen?.then(() => {
				if (child.exitCode === null && child.signalCode === null) killGroup(child, 'SIGKILL');
			});
			child.once('exit', (code, signal) => {
				clearTimeout(timer);
				// Processes n8n started (task runners) end with it.
				killGroup(child, 'SIGKILL');
				const { stdout, stderr } = readOutput();
				rmSync(`${base}.out`, { force: true });
				rmSync(`${base}.err`, { force: true });
				this.log(stdout + stderr);
				if (signal) this.log(`\n(n8n ${args[0]} ended by ${signal})\n`);
				const seconds = (Date.now() - started) / 1000;
				recordTime(args[0], seconds);
				resolve({ code, signal, stdout, stderr, seconds });
			});
		});
	}

	private async cliOk(args: string[], timeoutMs?: number): Promise<string> {
		const res = await this.cli(args, timeoutMs);
		if (res.code !== 0)
			throw new Error(
				`n8n ${args.join(' ')} failed (exit ${res.code}):\n${(res.stdout + res.stderr).slice(-3000)}`,
			);
		return res.stdout + res.stderr;
	}

	/** `n8n import:credentials` from plain JSON (n8n encrypts it); the file is removed afterwards. */
	async importCredentials(
		credentials: Array<{ id: string; name: string; type: string; data: Record<string, unknown> }>,
	): Promise<void> {
		const file = path.join(this.userFolder, `credentials-${Date.now()}.json`);
		writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
		try {
			await this.cliOk(['import:credentials', `--input=${file}`]);
		} finally {
			rmSync(file, { force: true });
		}
	}

	async importWorkflows(workflows: object[]): Promise<void> {
		const dir = path.join(this.userFolder, `workflows-${Date.now()}`);
		mkdirSync(dir);
		workflows.forEach((wf, i) => writeFileSync(path.join(dir, `${i}.json`), JSON.stringify(wf)));
		try {
			await this.cliOk(['import:workflow', '--separate', `--input=${dir}`]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	/**
	 * The stored credentials, decrypted (`n8n export:credentials --decrypted`), for tests that look
	 * for secrets in outputs. The export file is removed at once; never print the result.
	 */
	async decryptedCredentials(): Promise<
		Array<{ id: string; type: string; data: Record<string, unknown> }>
	> {
		const file = path.join(this.userFolder, `export-${Date.now()}.json`);
		try {
			await this.cliOk(['export:credentials', '--all', '--decrypted', `--output=${file}`]);
			return JSON.parse(readFileSync(file, 'utf8')) as Array<{
				id: string;
				type: string;
				data: Record<string, unknown>;
			}>;
		} finally {
			rmSync(file, { force: true });
		}
	}

	/**
	 * `n8n execute --id --rawOutput`; the run JSON is parsed out of the output. `killWhen`: n8n is
	 * killed (SIGKILL) when it resolves.
	 */
	async execute(
		id: string,
		timeoutMs = 180_000,
		killWhen?: Promise<unknown>,
	): Promise<ExecuteResult> {
		const res = await this.cli(['execute', `--id=${id}`, '--rawOutput'], timeoutMs, killWhen);
		const output = res.stdout + res.stderr;
		return {
			exitCode: res.code,
			signal: res.signal,
			run: extractRun(res.stdout) ?? extractRun(output),
			output,
			seconds: res.seconds,
		};
	}

	async publish(id: string): Promise<void> {
		await this.cliOk(['publish:workflow', `--id=${id}`]);
	}

	get running(): boolean {
		return !!this.server && this.server.exitCode === null && this.server.signalCode === null;
	}

	/** The process id of the running `n8n start` / `n8n worker`. */
	get pid(): number | undefined {
		return this.running ? this.server?.pid : undefined;
	}

	/**
	 * `n8n start` (or `n8n worker`, whose health server then listens on this instance's port);
	 * resolves when /healthz/readiness answers 200.
	 */
	async start(timeoutMs = 120_000, command: 'start' | 'worker' = 'start', args: string[] = []): Promise<void> {
		if (this.running) throw new Error('n8n is already running');
		this.log(`\n$ n8n ${[command, ...args].join(' ')}\n`);
		this.serverLog = createWriteStream(this.logFile, { flags: 'a' });
		const child = track(
			spawn(this.install.runtime.node, [this.install.n8nBin, command, ...args], {
				env: this.env(),
				stdio: ['ignore', 'pipe', 'pipe'],
				detached: true,
			}),
		);
		this.server = child;
		let tail = '';
		const keep = (c: Buffer): void => {
			this.serverLog?.write(c);
			tail = (tail + c.toString()).slice(-4000);
		};
		child.stdout!.on('data', keep);
		child.stderr!.on('data', keep);
		const started = Date.now();
		const deadline = started + timeoutMs;
		while (Date.now() < deadline) {
			if (!this.running)
				throw new Error(`n8n ${command} exited (${child.exitCode ?? child.signalCode}):\n${tail}`);
			if ((await httpStatus(`http://127.0.0.1:${this.port}/healthz/readiness`)) === 200) {
				recordTime(`${command} (until ready)`, (Date.now() - started) / 1000);
				return;
			}
			await sleep(500);
		}
		await this.stop();
		throw new Error(`n8n ${command} did not become ready within ${timeoutMs / 1000} s:\n${tail}`);
	}

	/**
	 * Kills `n8n start` and every process of its group at once (SIGKILL: no graceful shutdown,
	 * nothing saved), as a crash or a power cut does; resolves when it has exited.
	 */
	async kill(): Promise<void> {
		const child = this.server;
		if (!child) return;
		if (this.running) {
			const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
			killGroup(child, 'SIGKILL');
			await exited;
		}
		await this.stop();
	}

	/** Stops `n8n start` (SIGTERM, n8n's graceful shutdown; SIGKILL after 60 s). */
	async stop(): Promise<void> {
		const child = this.server;
		if (!child) return;
		if (this.running) {
			await new Promise<void>((resolve) => {
				const timer = setTimeout(() => {
					killGroup(child, 'SIGKILL');
				}, 60_000);
				child.once('exit', () => {
					clearTimeout(timer);
					resolve();
				});
				child.kill('SIGTERM');
			});
		}
		// Task runners n8n started in its process group.
		killGroup(child, 'SIGTERM');
		this.server = undefined;
		await new Promise<void>((resolve) =>
			this.serverLog ? this.serverLog.end(resolve) : resolve(),
		);
		this.serverLog = undefined;
	}

	/** Runs SQL against n8n's sqlite database with Node 24's node:sqlite (read-only). */
	query<T = Record<string, unknown>>(sql: string, params: Array<string | number> = []): T[] {
		const script = `
			const { DatabaseSync } = require('node:sqlite');
			const { parse } = require(${JSON.stringify(path.join(this.install.dir, 'node_modules', 'flatted'))});
			const [file, sql, params] = JSON.parse(process.argv[1]);
			const db = new DatabaseSync(file, { readOnly: true });
			const rows = db.prepare(sql).all(...params);
			for (const row of rows) for (const k of Object.keys(row)) if (k.endsWith('__flatted') && row[k] != null) { row[k.slice(0, -9)] = parse(row[k]); delete row[k]; }
			process.stdout.write(JSON.stringify(rows));
			db.close();
		`;
		const res = spawnSync(
			this.install.runtime.node,
			['--no-warnings', '-e', script, JSON.stringify([this.databaseFile, sql, params])],
			{
				encoding: 'utf8',
				maxBuffer: 512 * 1024 * 1024,
			},
		);
		if (res.status !== 0) throw new Error(`sqlite query failed: ${res.stderr}`);
		return JSON.parse(res.stdout) as T[];
	}

	/** Executions of a workflow, oldest first, with their run data decoded. */
	executions(workflowId: string): StoredExecution[] {
		const rows = this.query<{
			id: number;
			workflowId: string;
			status: string;
			mode: string;
			finished: number;
			data?: RunData['data'];
		}>(
			`SELECT e.id, e.workflowId, e.status, e.mode, e.finished, d.data AS data__flatted
			   FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id
			  WHERE e.workflowId = ? ORDER BY e.id`,
			[workflowId],
		);
		return rows.map((r) => ({
			id: String(r.id),
			workflowId: r.workflowId,
			status: r.status,
			mode: r.mode,
			finished: !!r.finished,
			// execution_data.data is the run execution data itself (resultData at its top).
			run: r.data
				? { data: r.data, status: r.status, mode: r.mode, finished: !!r.finished }
				: undefined,
		}));
	}

	/** Stops n8n and removes the user folder (unless `keep`). */
	async dispose(): Promise<void> {
		await this.stop();
		if (!this.keep) rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/**
 * n8n runs in its own process group (so its task runners can be stopped with it); these are the
 * groups still running, ended when this process exits for any reason other than a signal.
 */
const liveGroups = new Set<ChildProcess>();
process.once('exit', () => {
	for (const child of liveGroups) killGroup(child, 'SIGKILL');
});

function track<T extends ChildProcess>(child: T): T {
	liveGroups.add(child);
	child.once('exit', () => liveGroups.delete(child));
	return child;
}

/** Ends every n8n process started here (for signal handlers of scripts). */
export function killAllN8n(): void {
	for (const child of liveGroups) killGroup(child, 'SIGTERM');
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		/* already gone */
	}
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Writes what an n8n process cost to the file CORPORATE_BANKING_E2E_TIMING names (one JSON line:
 * the test file, `n8n <command>`, its seconds), for the runner's summary of where e2e time goes.
 */
function recordTime(command: string, seconds: number): void {
	const file = process.env.CORPORATE_BANKING_E2E_TIMING;
	if (!file) return;
	const testPath = (globalThis as { expect?: { getState(): { testPath?: string } } }).expect?.getState().testPath;
	writeFileSync(file, `${JSON.stringify({ file: testPath ?? '', command, seconds })}\n`, { flag: 'a' });
}

export async function httpStatus(url: string): Promise<number> {
	return await new Promise((resolve) => {
		const req = get(url, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on('error', () => resolve(0));
		req.setTimeout(5000, () => {
			req.destroy();
			resolve(0);
		});
	});
}
