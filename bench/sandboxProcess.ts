import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

import { benchNode, plainJson } from './common';

export interface SandboxState {
	urls: Record<string, string>;
	clients: { clientId: string; mtlsClientId: string };
	credentials: Record<string, Record<string, unknown>>;
	events: { eventsUrl: string; jwksUrl: string; issuer: string; audience: string; kid: string };
	certDir: string;
}

export interface SandboxProcess {
	state: SandboxState;
	/** The bank process's ID (a benchmark reads the bank's CPU time from it). */
	pid: number;
	caPem: string;
	admin<T = unknown>(method: string, subPath: string, body?: unknown): Promise<T>;
	stop(): Promise<void>;
}

/**
 * Runs the sandbox bank in its own process, as a real bank is on another machine: the server's work
 * does not share the event loop with the client being measured.
 */
export async function startSandboxProcess(args: string[] = [], launch?: { script: string; nodeArgs?: string[] }): Promise<SandboxProcess> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-sandbox-'));
	const stateFile = path.join(dir, 'state.json');
	const root = path.resolve(__dirname, '..');
	// By default through ts-node; a benchmark measuring memory passes a compiled script instead.
	const command = launch
		? [...(launch.nodeArgs ?? []), launch.script]
		: [path.join(root, 'node_modules/ts-node/dist/bin.js'), '--transpile-only', '--prefer-ts-exts', path.join(root, 'test/sandbox/cli.ts')];
	const child: ChildProcess = spawn(benchNode(), [...(process.env.BENCH_BANK_FLAGS ?? '').split(' ').filter(Boolean), ...command, '--state-file', stateFile, '--quiet', ...args], {
		cwd: root,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	await new Promise<void>((resolve, reject) => {
		let out = '';
		child.stdout!.on('data', (c: Buffer) => {
			out += c.toString();
			if (out.includes('SANDBOX_READY')) resolve();
		});
		child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
	});
	const state = JSON.parse(readFileSync(stateFile, 'utf8')) as SandboxState;
	const caPem = String(state.credentials.corporateBankingClientCredentialsApi.caCertificate);
	const agent = new https.Agent({ keepAlive: true, ca: caPem });
	return {
		state,
		pid: child.pid ?? 0,
		caPem,
		async admin<T>(method: string, subPath: string, body?: unknown): Promise<T> {
			const res = await plainJson<T>(agent, `${state.urls.admin}${subPath}`, {
				method,
				headers: { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			if (res.status >= 400) throw new Error(`sandbox admin ${method} ${subPath}: ${res.status}`);
			return res.body;
		},
		async stop() {
			agent.destroy();
			child.kill('SIGTERM');
			await new Promise((r) => child.once('exit', r));
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
