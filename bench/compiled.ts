/**
 * Compiles a TypeScript entry point of this project to one JavaScript file (esbuild, libraries
 * left as they are in node_modules), so a benchmark can run it in a plain node process: no
 * TypeScript compiler in that process's memory, as in n8n, which runs the built package. Also
 * starts the sandbox bank that way.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { build } from 'esbuild';

import type { SandboxProcess } from './sandboxProcess';
import { startSandboxProcess } from './sandboxProcess';

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
	const nodeArgs = (process.env.BENCH_SANDBOX_NODE_ARGS ?? '').split(' ').filter(Boolean);
	return await startSandboxProcess(args, { script, nodeArgs });
}
