/**
 * The sandbox bank as a separate process (the way a person runs it), on fixed ports when they
 * are free, with its state file and a small client for its admin API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(__dirname, '../../..');

/** What `cli.ts --state-file` writes. */
export interface SandboxState {
	pid: number;
	urls: Record<string, string>;
	clients: Record<string, unknown> & { mtlsClientId: string; clientId: string };
	credentials: Record<string, Record<string, unknown>>;
	events: { eventsUrl: string; jwksUrl: string; issuer: string; audience: string; kid: string };
	certDir: string;
}

/** Whether a TCP port is free on 127.0.0.1. */
export async function portFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
			server.close(() => resolve(true)),
		);
	});
}

async function randomFreePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen({ port: 0, host: '127.0.0.1' }, () => {
			const port = (server.address() as { port: number }).port;
			server.close(() => resolve(port));
		});
	});
}

/** The preferred ports when all are free, else free ports chosen by the system. */
/**
 * `count` distinct ports the system gave as free (none of `taken`). Tests use these rather than
 * fixed ports: several test runs may share the machine, and a fixed port left free for a moment
 * (between two `n8n execute` runs) can be taken by another run.
 */
export async function freePorts(count: number, taken: number[] = []): Promise<number[]> {
	const out: number[] = [];
	while (out.length < count) {
		const port = await randomFreePort();
		if (!out.includes(port) && !taken.includes(port)) out.push(port);
	}
	return out;
}

/** The preferred ports where free, else ports the system gives (for the demo's stable URLs). */
export async function choosePorts(preferred: number[]): Promise<number[]> {
	const out: number[] = [];
	for (const port of preferred) {
		out.push((await portFree(port)) && !out.includes(port) ? port : await randomFreePort());
	}
	return out;
}

export interface SandboxProcess {
	state: SandboxState;
	caPem: string;
	/** Calls the admin API (`/__sandbox/...`). */
	admin<T = unknown>(method: string, route: string, body?: unknown): Promise<T>;
	stop(): Promise<void>;
}

type SandboxOptions = {
	ports?: [number, number, number];
	seed?: number;
	mockErrorRate?: number;
	echo?: boolean;
};

/**
 * Starts `test/sandbox/cli.ts` and waits for `SANDBOX_READY`. A port the system gave as free can
 * be taken by another process before the bank listens on it (two test files start their stacks at
 * once): the bank then exits with EADDRINUSE, and it is started again on other free ports.
 */
export async function startSandboxProcess(opts: SandboxOptions = {}): Promise<SandboxProcess> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startSandboxOnce(opts);
		} catch (error) {
			if (attempt >= 3 || !/EADDRINUSE/.test(String(error))) throw error;
		}
	}
}

async function startSandboxOnce(opts: SandboxOptions): Promise<SandboxProcess> {
	const [port, mtlsPort, foreignPort] = opts.ports ? await choosePorts(opts.ports) : await freePorts(3);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'corporate-banking-sandbox-'));
	const stateFile = path.join(dir, 'sandbox.json');
	const args = [
		'--transpile-only',
		'--prefer-ts-exts',
		path.join(PROJECT_ROOT, 'test/sandbox/cli.ts'),
		'--port',
		String(port),
		'--mtls-port',
		String(mtlsPort),
		'--foreign-port',
		String(foreignPort),
		'--seed',
		String(opts.seed ?? 42),
		'--state-file',
		stateFile,
		'--quiet',
	];
	if (opts.mockErrorRate !== undefined) args.push('--mock-error-rate', String(opts.mockErrorRate));
	const tsNode = path.join(PROJECT_ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
	const child: ChildProcess = spawn(process.execPath, [tsNode, ...args], {
		cwd: PROJECT_ROOT,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, TS_NODE_PROJECT: path.join(PROJECT_ROOT, 'tsconfig.json') },
	});
	let output = '';
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`sandbox bank did not start within 60 s:\n${output}`)),
			60_000,
		);
		const onData = (chunk: Buffer): void => {
			output += chunk.toString();
			if (opts.echo) process.stderr.write(chunk);
			if (output.includes('SANDBOX_READY')) {
				clearTimeout(timer);
				resolve();
			}
		};
		child.stdout!.on('data', onData);
		child.stderr!.on('data', onData);
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`sandbox bank exited (${code}) before it was ready:\n${output}`));
		});
	});
	const state = JSON.parse(readFileSync(stateFile, 'utf8')) as SandboxState;
	const caPem = String(state.credentials.corporateBankingClientCredentialsApi.caCertificate);
	const base = new URL(state.urls.admin);

	const admin = async <T>(method: string, route: string, body?: unknown): Promise<T> =>
		await new Promise<T>((resolve, reject) => {
			const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
			const req = request(
				{
					host: base.hostname,
					port: base.port,
					path: `${base.pathname}${route}`,
					method,
					ca: caPem,
					headers: payload
						? { 'content-type': 'application/json', 'content-length': payload.length }
						: {},
				},
				(res) => {
					const chunks: Buffer[] = [];
					res.on('data', (c: Buffer) => chunks.push(c));
					res.on('end', () => {
						const text = Buffer.concat(chunks).toString('utf8');
						if ((res.statusCode ?? 500) >= 300)
							return reject(
								new Error(
									`sandbox admin ${method} ${route}: ${res.statusCode} ${text.slice(0, 300)}`,
								),
							);
						try {
							resolve(JSON.parse(text) as T);
						} catch {
							resolve(text as unknown as T);
						}
					});
				},
			);
			req.on('error', reject);
			req.end(payload);
		});

	const stop = async (): Promise<void> => {
		if (child.exitCode === null && child.signalCode === null) {
			await new Promise<void>((resolve) => {
				const timer = setTimeout(() => {
					child.kill('SIGKILL');
					resolve();
				}, 10_000);
				child.once('exit', () => {
					clearTimeout(timer);
					resolve();
				});
				child.kill('SIGTERM');
			});
		}
		rmSync(dir, { recursive: true, force: true });
	};
	return { state, caPem, admin, stop };
}
