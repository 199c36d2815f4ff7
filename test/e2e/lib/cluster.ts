/**
 * n8n in queue mode on this machine: a throwaway PostgreSQL (Debian's `postgresql`, initdb +
 * pg_ctl in a temporary folder, as the `postgres` user when running as root) and Redis
 * (`redis-server`, no persistence) on free local ports, one `n8n start` (main) and N `n8n worker`
 * processes sharing them, each with its own user folder and the packed package installed into it
 * the way n8n's installer does. Plus a small HTTP collector the test workflows report to (and
 * wait at, for "gates" the test opens), so tests wait for events, never for time.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { N8nInstall } from './install';
import { N8n } from './n8n';
import { installIntoNodesFolder, type PackedPackage } from './package';
import { choosePorts, startSandboxProcess, type SandboxProcess } from './sandbox';
import { sandboxCredentials } from './workflows';

/** Debian packages the cluster needs (installed by scripts/setup.js ensureSystemPackages). */
export const CLUSTER_PACKAGES = ['redis-server', 'postgresql'];

function postgresBin(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(root, versions[0], 'bin') : undefined;
}

/** Why a queue-mode cluster cannot run here, or undefined when it can. */
export function clusterUnavailable(): string | undefined {
	if (!postgresBin()) return 'PostgreSQL is not installed (apt-get install postgresql)';
	if (spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status !== 0)
		return 'redis-server is not installed (apt-get install redis-server)';
	return undefined;
}

/** Runs a PostgreSQL tool, as `postgres` when this process is root (initdb refuses root). */
function pgTool(tool: string, args: string[]): void {
	const bin = path.join(postgresBin()!, tool);
	const asRoot = process.getuid?.() === 0;
	const res = asRoot
		? spawnSync('runuser', ['-u', 'postgres', '--', bin, ...args], { encoding: 'utf8' })
		: spawnSync(bin, args, { encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${res.status}): ${res.stderr}${res.stdout}`);
}

export interface Postgres {
	port: number;
	/** Runs SQL in the n8n database and returns the rows as tab-separated fields. */
	query(sql: string): string[][];
	stop(): void;
}

/** A throwaway PostgreSQL cluster in `dir`, database `n8n`, user `n8n` (trust, 127.0.0.1 only). */
export async function startPostgres(dir: string): Promise<Postgres> {
	const [port] = await choosePorts([25432]);
	if (process.getuid?.() === 0) {
		const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
		const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
		chownSync(dir, uid, gid);
	}
	const data = path.join(dir, 'data');
	pgTool('initdb', ['-D', data, '-A', 'trust', '-U', 'n8n', '--no-sync', '-E', 'UTF8']);
	pgTool('pg_ctl', [
		'-D',
		data,
		'-o',
		`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
		'-l',
		path.join(dir, 'postgres.log'),
		'-w',
		'start',
	]);
	const created = spawnSync(path.join(postgresBin()!, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', '-d', 'postgres', '-c', 'CREATE DATABASE n8n'], {
		encoding: 'utf8',
	});
	if (created.status !== 0) throw new Error(`could not create the n8n database: ${created.stderr}`);
	let running = true;
	const stop = (): void => {
		if (!running) return;
		running = false;
		try {
			pgTool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
		} catch {
			/* already stopped */
		}
	};
	// pg_ctl runs the server in the background: never leave it behind, whatever ends this process.
	process.once('exit', stop);
	return {
		port,
		query: (sql) => {
			const res = spawnSync(path.join(postgresBin()!, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', '-d', 'n8n', '-At', '-F', '\t', '-c', sql], {
				encoding: 'utf8',
			});
			if (res.status !== 0) throw new Error(`psql failed: ${res.stderr}`);
			return res.stdout
				.split('\n')
				.filter(Boolean)
				.map((line) => line.split('\t'));
		},
		stop,
	};
}

export interface Redis {
	port: number;
	stop(): Promise<void>;
}

export async function startRedis(dir: string): Promise<Redis> {
	const [port] = await choosePorts([26379]);
	const child: ChildProcess = spawn(
		'redis-server',
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let output = '';
	await new Promise<void>((resolve, reject) => {
		const onData = (c: Buffer): void => {
			output += c.toString();
			if (output.includes('Ready to accept connections')) resolve();
		};
		child.stdout!.on('data', onData);
		child.stderr!.on('data', onData);
		child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)));
	});
	return {
		port,
		stop: async () => {
			if (child.exitCode !== null) return;
			await new Promise<void>((resolve) => {
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			});
		},
	};
}

/** One POST the test workflows sent to the collector. */
export interface Report {
	kind: string;
	body: Record<string, unknown>;
}

/**
 * An HTTP server the test workflows call with n8n's HTTP Request node: `POST /report/<kind>` is
 * recorded and answered at once; `POST /gate/<kind>` is recorded and answered only when the test
 * opens it (an execution waits there, so its worker is busy).
 */
export class Collector {
	readonly reports: Report[] = [];
	private readonly held: Array<{ report: Report; res: ServerResponse }> = [];
	private waiters: Array<() => void> = [];
	private constructor(
		private readonly server: Server,
		readonly url: string,
	) {}

	static async start(): Promise<Collector> {
		let collector: Collector | undefined;
		const server = createServer((req, res) => void collector!.handle(req, res));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		collector = new Collector(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
		return collector;
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const c of req) chunks.push(c as Buffer);
		const [, type, kind] = (req.url ?? '').split('/');
		let body: Record<string, unknown> = {};
		try {
			body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
		} catch {
			body = { raw: Buffer.concat(chunks).toString('utf8') };
		}
		const report = { kind: `${type}/${kind}`, body };
		this.reports.push(report);
		if (type === 'gate') this.held.push({ report, res });
		else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		const waiters = this.waiters;
		this.waiters = [];
		for (const w of waiters) w();
	}

	of(kind: string): Report[] {
		return this.reports.filter((r) => r.kind === kind);
	}

	/** Executions waiting at a gate of this kind. */
	waiting(kind: string): Report[] {
		return this.held.filter((h) => h.report.kind === kind).map((h) => h.report);
	}

	/** Resolves when `test` holds (checked on every new report). */
	async until(test: () => boolean, what: string, timeoutMs = 240_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (!test()) {
			const left = deadline - Date.now();
			if (left <= 0) throw new Error(`waited ${timeoutMs / 1000} s for ${what}; reports: ${JSON.stringify(this.reports).slice(0, 2000)}`);
			await new Promise<void>((resolve) => {
				const timer = setTimeout(resolve, left);
				this.waiters.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
	}

	/** Lets the held executions of a gate (those matching `which`) go on. */
	open(kind: string, which: (r: Report) => boolean = () => true): number {
		let opened = 0;
		for (let i = this.held.length - 1; i >= 0; i--) {
			const h = this.held[i];
			if (h.report.kind === `gate/${kind}` && which(h.report)) {
				h.res.writeHead(200, { 'content-type': 'application/json' }).end('{"open":true}');
				this.held.splice(i, 1);
				opened++;
			}
		}
		return opened;
	}

	async stop(): Promise<void> {
		for (const h of this.held.splice(0)) h.res.destroy();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

export interface Cluster {
	bank: SandboxProcess;
	pg: Postgres;
	main: N8n;
	/** Workers by name (`worker-1`, ...); each has CLUSTER_PROCESS=<name> in its environment. */
	workers: Map<string, N8n>;
	collector: Collector;
	/** (Re)starts a worker process. */
	startWorker(name: string): Promise<void>;
	/**
	 * Resolves when the main has registered these webhook paths (n8n 2.x activates published
	 * workflows in the background after it reports ready).
	 */
	webhooksRegistered(paths: string[], timeoutMs?: number): Promise<void>;
	stop(): Promise<void>;
}

export interface ClusterOptions {
	install: N8nInstall;
	pkg: PackedPackage;
	workers?: number;
	/** Executions one worker runs at a time (default 1, so a gate makes the next job go elsewhere). */
	concurrency?: number;
	env?: NodeJS.ProcessEnv;
	log?: (line: string) => void;
}

/** Postgres, Redis, the sandbox bank, a main and the workers, with the sandbox credentials imported. */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
	const log = opts.log ?? (() => undefined);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'corporate-banking-cluster-'));
	const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
	const cleanup = async (): Promise<void> => {
		for (const c of cleanups.splice(0).reverse()) await c();
	};
	try {
		const pg = await startPostgres(dir);
		cleanups.push(() => pg.stop());
		const redis = await startRedis(dir);
		cleanups.push(() => redis.stop());
		log(`postgres on ${pg.port}, redis on ${redis.port}`);
		const bank = await startSandboxProcess();
		cleanups.push(() => bank.stop());
		const collector = await Collector.start();
		cleanups.push(() => collector.stop());
		const shared: NodeJS.ProcessEnv = {
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(pg.port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'n8n',
			DB_POSTGRESDB_PASSWORD: '',
			// The test workflows name the process they ran in with {{ $env.CLUSTER_PROCESS }}.
			N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			...(opts.env ?? {}),
		};
		const main = await N8n.create({ install: opts.install, port: 15700, env: { ...shared, CLUSTER_PROCESS: 'main' } });
		cleanups.push(() => main.dispose());
		installIntoNodesFolder(opts.pkg, main.nodesDir, main.env());
		await main.importCredentials(sandboxCredentials(bank.state));
		const workers = new Map<string, N8n>();
		for (let i = 1; i <= (opts.workers ?? 2); i++) {
			const name = `worker-${i}`;
			const worker = await N8n.create({ install: opts.install, port: 15700 + 10 * i, env: { ...shared, CLUSTER_PROCESS: name } });
			cleanups.push(() => worker.dispose());
			installIntoNodesFolder(opts.pkg, worker.nodesDir, worker.env());
			workers.set(name, worker);
		}
		const startWorker = async (name: string): Promise<void> => {
			const worker = workers.get(name)!;
			await worker.start(180_000, 'worker', [`--concurrency=${opts.concurrency ?? 1}`]);
			log(`${name} ready (pid ${worker.pid})`);
		};
		const webhooksRegistered = async (paths: string[], timeoutMs = 180_000): Promise<void> => {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const registered = new Set(pg.query('SELECT "webhookPath" FROM webhook_entity').map((r) => r[0]));
				if (paths.every((p) => registered.has(p))) return;
				if (Date.now() > deadline)
					throw new Error(
						`webhooks ${paths.filter((p) => !registered.has(p)).join(', ')} not registered after ${timeoutMs / 1000} s; the main's log ends:\n` +
							(existsSync(main.logFile) ? readFileSync(main.logFile, 'utf8').slice(-4000) : '(no log)'),
					);
				await new Promise((r) => setTimeout(r, 500));
			}
		};
		return {
			bank,
			pg,
			webhooksRegistered,
			main,
			workers,
			collector,
			startWorker,
			stop: cleanup,
		};
	} catch (error) {
		await cleanup();
		throw error;
	}
}
