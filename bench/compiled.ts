/**
 * Compiles a TypeScript entry point of this project to one JavaScript file (esbuild, libraries
 * left as they are in node_modules), so a benchmark can run it in a plain node process: no
 * TypeScript compiler in that process's memory, as in n8n, which runs the built package. Also
 * starts the sandbox bank that way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

import { build } from 'esbuild';

import { plainJson } from './common';
import type { SandboxProcess, SandboxState } from './sandboxProcess';

export const ROOT = path.resolve(__dirname, '..');

/** Inside node_modules, so the compiled file finds the project's libraries. */
const OUT_DIR = path.join(ROOT, 'node_modules', '.cache', 'bench-compiled');

/** Compiles `entry` (relative to the project) and returns the path of the JavaScript file. */
export async function compile(entry: string, name: string): Promise<string> {
	mkdirSync(OUT_DIR, { recursive: true });
	const outfile = path.join(OUT_DIR, `${name}.js`);
	await build({
		entryPoints: [path.join(ROOT, entry)],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		packages: 'external',
		sourcemap: false,
		logLevel: 'warning',
	});
	return outfile;
}

/** Starts the sandbox bank from compiled JavaScript in its own process. */
export async function startCompiledSandbox(args: string[] = []): Promise<SandboxProcess> {
	const script = await compile('test/sandbox/cli.ts', 'sandbox');
	const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-sandbox-'));
	const stateFile = path.join(dir, 'state.json');
	const nodeArgs = (process.env.BENCH_SANDBOX_NODE_ARGS ?? '').split(' ').filter(Boolean);
	const child: ChildProcess = spawn(process.execPath, [...nodeArgs, script, '--state-file', stateFile, '--quiet', ...args], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	await new Promise<void>((resolve, reject) => {
		let out = '';
		child.stdout?.on('data', (c: Buffer) => {
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
