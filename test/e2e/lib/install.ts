/**
 * Installs what the end-to-end tests and the demo need, outside the repository, once:
 * Node.js 24 (from the `node` npm package), n8n on that Node, and headless Chromium.
 *
 * The n8n version is `newest` of test/e2e/n8n-versions.json (the one place that names the
 * versions the package is proven in), or `N8N_E2E_VERSION` when set (`oldest` is proven that way).
 *
 * Layout under the cache folder (`$N8N_E2E_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-corporate-banking`):
 *
 *   node-24.21.0/   npm folder holding the `node` package (Node 24 binary and headers)
 *   n8n-<version>/  npm folder holding n8n, its dependencies and sqlite3 built for Node 24
 *
 * Each folder is built under a temporary name and renamed into place only after a marker file
 * records a finished install, so an interrupted install is never mistaken for a complete one.
 */
import { spawnSync } from 'node:child_process';
import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { tryLock, unlock } from '../../helpers/lock';

import versions from '../n8n-versions.json';

/** The n8n versions the package is proven in: the e2e suite runs `newest`, CI also `oldest`. */
export const N8N_NEWEST: string = versions.newest;
export const N8N_OLDEST: string = versions.oldest;
export const NODE_VERSION: string = versions.node;

/** The n8n the e2e tests and the demo run: `N8N_E2E_VERSION`, else the newest supported. */
export const N8N_VERSION: string = process.env.N8N_E2E_VERSION?.trim() || N8N_NEWEST;

/**
 * Dependencies pinned for an n8n version (`npm` overrides): releases of n8n's dependencies that
 * are broken or missing on the registry (n8n-versions.json says why for each version). A version
 * not listed there is installed as it is.
 */
export function n8nOverrides(version: string): Record<string, string> {
	const installs: Record<string, { overrides: Record<string, string> }> = versions.installs;
	return installs[version]?.overrides ?? {};
}

const MARKER = '.install-complete.json';

export function cacheRoot(): string {
	if (process.env.N8N_E2E_CACHE) return path.resolve(process.env.N8N_E2E_CACHE);
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, 'n8n-nodes-corporate-banking');
}

export interface NodeRuntime {
	/** The Node 24 executable. */
	node: string;
	/** Folder with `node` first, for PATH. */
	binDir: string;
	/** Node headers for native builds (`npm_config_nodedir`). */
	nodedir: string;
}

export interface N8nInstall {
	runtime: NodeRuntime;
	/** n8n's CLI entry (`bin/n8n`), run with `runtime.node`. */
	n8nBin: string;
	/** The n8n npm folder (its node_modules hold sqlite3 and flatted for Node 24). */
	dir: string;
	/** Seconds spent installing now (0 when the cache was used). */
	installSeconds: number;
}

type Log = (line: string) => void;

function readMarker(dir: string): Record<string, unknown> | undefined {
	try {
		return JSON.parse(readFileSync(path.join(dir, MARKER), 'utf8')) as Record<string, unknown>;
	} catch {
		return undefined;
	}
}

/** Runs a command with output appended to a log file; throws with the log's tail on failure. */
function runLogged(
	cmd: string,
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv,
	logFile: string,
): void {
	writeFileSync(logFile, `\n$ ${cmd} ${args.join(' ')}   (in ${cwd})\n`, { flag: 'a' });
	const fd = openSync(logFile, 'a');
	try {
		const res = spawnSync(cmd, args, { cwd, env, stdio: ['ignore', fd, fd] });
		if (res.status !== 0) {
			const lines = readFileSync(logFile, 'utf8').split('\n');
			const reason =
				lines.find((l) => /error|ERR!/i.test(l) && !/A complete log|^\s*npm error\s*$/.test(l)) ??
				'';
			throw new Error(
				`${cmd} ${args.join(' ')} failed (exit ${res.status ?? res.signal}): ${reason.trim()} (see ${logFile})\n${lines.slice(-30).join('\n')}`,
			);
		}
	} finally {
		closeSync(fd);
	}
}

/** A cross-process lock around an install; stale after 20 minutes. */
function withLock<T>(name: string, fn: () => T): T {
	const lock = path.join(cacheRoot(), `${name}.lock`);
	mkdirSync(cacheRoot(), { recursive: true });
	const deadline = Date.now() + 25 * 60_000;
	while (!tryLock(lock, 20 * 60_000)) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lock}`);
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000);
	}
	try {
		return fn();
	} finally {
		unlock(lock);
	}
}

/**
 * Builds `final` by calling `build(tmpDir)` in a fresh temporary folder, writing the marker and
 * renaming the folder into place. A complete folder (with marker) is reused as is.
 */
function installOnce(
	final: string,
	marker: Record<string, unknown>,
	log: Log,
	build: (dir: string) => void,
): number {
	const done = readMarker(final);
	if (done && JSON.stringify(done.spec) === JSON.stringify(marker)) return 0;
	return withLock(path.basename(final), () => {
		const again = readMarker(final);
		if (again && JSON.stringify(again.spec) === JSON.stringify(marker)) return 0;
		const started = Date.now();
		const tmp = `${final}.partial`;
		rmSync(tmp, { recursive: true, force: true });
		mkdirSync(tmp, { recursive: true });
		build(tmp);
		const seconds = (Date.now() - started) / 1000;
		writeFileSync(
			path.join(tmp, MARKER),
			JSON.stringify({ spec: marker, seconds, at: new Date().toISOString() }, null, '\t'),
		);
		rmSync(final, { recursive: true, force: true });
		renameSync(tmp, final);
		log(`installed ${path.basename(final)} in ${seconds.toFixed(0)} s`);
		return seconds;
	});
}

function runtimeAt(dir: string): NodeRuntime {
	const platformPkg = path.join(
		dir,
		'node_modules',
		'node',
		'node_modules',
		`node-${process.platform}-${process.arch}`,
	);
	return {
		node: path.join(platformPkg, 'bin', 'node'),
		binDir: path.join(platformPkg, 'bin'),
		nodedir: platformPkg,
	};
}

/** Node.js 24 from the registry's `node` package (its install script fetches the platform binary). */
export function ensureNode24(log: Log = console.log): NodeRuntime & { installSeconds: number } {
	const dir = path.join(cacheRoot(), `node-${NODE_VERSION}`);
	const logFile = path.join(cacheRoot(), 'install.log');
	const installSeconds = installOnce(dir, { node: NODE_VERSION }, log, (tmp) => {
		log(`installing Node.js ${NODE_VERSION} into ${dir} (log: ${logFile})`);
		writeFileSync(
			path.join(tmp, 'package.json'),
			JSON.stringify(
				{ name: 'e2e-node24', private: true, dependencies: { node: NODE_VERSION } },
				null,
				'\t',
			),
		);
		// The `node` package's install script fetches the binary. Scripts are on explicitly: under
		// `npm test` or `npm run demo`, npm hands the project's ignore-scripts (.npmrc) down as
		// npm_config_ignore_scripts.
		runLogged(
			'npm',
			['install', '--ignore-scripts=false', '--no-audit', '--no-fund', '--no-package-lock'],
			tmp,
			process.env,
			logFile,
		);
		const rt = runtimeAt(tmp);
		const res = spawnSync(rt.node, ['--version'], { encoding: 'utf8' });
		if (res.stdout.trim() !== `v${NODE_VERSION}`)
			throw new Error(`Node ${NODE_VERSION} did not install: ${res.stdout}${res.stderr}`);
		if (!existsSync(path.join(rt.nodedir, 'include', 'node', 'node.h')))
			throw new Error('Node headers missing from the node package');
	});
	return { ...runtimeAt(dir), installSeconds };
}

/** Environment that makes `npm` and native builds use Node 24. */
export function node24Env(rt: NodeRuntime, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	return {
		...process.env,
		PATH: `${rt.binDir}${path.delimiter}${process.env.PATH ?? ''}`,
		npm_config_nodedir: rt.nodedir,
		...extra,
	};
}

/**
 * n8n installed on Node 24 (about 2.4 GB, a few minutes the first time): `N8N_VERSION` unless
 * another version is given.
 */
export function ensureN8n(log: Log = console.log, version: string = N8N_VERSION): N8nInstall {
	if (!/^\d+\.\d+\.\d+$/.test(version))
		throw new Error(
			`N8N_E2E_VERSION must be an n8n version such as ${N8N_OLDEST}, not "${version}"`,
		);
	const rt = ensureNode24(log);
	const dir = path.join(cacheRoot(), `n8n-${version}`);
	const logFile = path.join(cacheRoot(), 'install.log');
	const overrides = n8nOverrides(version);
	const spec = { n8n: version, node: NODE_VERSION, overrides };
	const seconds = installOnce(dir, spec, log, (tmp) => {
		log(`installing n8n ${version} into ${dir} (a few minutes; log: ${logFile})`);
		writeFileSync(
			path.join(tmp, 'package.json'),
			JSON.stringify(
				{
					name: 'e2e-n8n',
					private: true,
					dependencies: { n8n: version },
					overrides,
				},
				null,
				'\t',
			),
		);
		const env = node24Env(rt);
		runLogged(
			'npm',
			['install', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund'],
			tmp,
			env,
			logFile,
		);
		// sqlite3's build script, explicitly on (see ensureNode24).
		runLogged('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false'], tmp, env, logFile);
		const check = spawnSync(
			rt.node,
			['-e', "require('sqlite3'); console.log(require('n8n/package.json').version)"],
			{ cwd: tmp, encoding: 'utf8' },
		);
		if (check.status !== 0 || check.stdout.trim() !== version)
			throw new Error(`n8n install check failed: ${check.stdout}${check.stderr}`);
	});
	return {
		runtime: rt,
		dir,
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		installSeconds: seconds + rt.installSeconds,
	};
}

export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium from Debian (apt-get, as root or through sudo). Returns its path or a reason. */
export function ensureChromium(log: Log = console.log): {
	path?: string;
	reason?: string;
	installSeconds: number;
} {
	const bin = process.env.CHROMIUM_PATH || CHROMIUM;
	if (existsSync(bin)) return { path: bin, installSeconds: 0 };
	const has = (c: string): boolean =>
		spawnSync('sh', ['-c', `command -v ${c}`], { stdio: 'ignore' }).status === 0;
	if (!has('apt-get'))
		return {
			reason: `${bin} is missing and there is no apt-get to install chromium`,
			installSeconds: 0,
		};
	const root = process.getuid?.() === 0;
	if (!root && !has('sudo'))
		return {
			reason: `${bin} is missing and installing chromium needs root or sudo`,
			installSeconds: 0,
		};
	const started = Date.now();
	const logFile = path.join(cacheRoot(), 'install.log');
	mkdirSync(cacheRoot(), { recursive: true });
	log(`installing chromium with apt-get (log: ${logFile})`);
	const apt = (args: string[]): void =>
		root
			? runLogged(
					'apt-get',
					args,
					process.cwd(),
					{ ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
					logFile,
				)
			: runLogged(
					'sudo',
					['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args],
					process.cwd(),
					process.env,
					logFile,
				);
	try {
		apt(['update', '-qq']);
		apt([
			'install',
			'-y',
			'-qq',
			'--no-install-recommends',
			'chromium',
			'fonts-liberation',
			'fonts-dejavu-core',
		]);
	} catch (error) {
		return {
			reason: `apt-get install chromium failed: ${(error as Error).message.split('\n')[0]}`,
			installSeconds: 0,
		};
	}
	if (!existsSync(bin))
		return { reason: `apt-get installed chromium but ${bin} does not exist`, installSeconds: 0 };
	return { path: bin, installSeconds: (Date.now() - started) / 1000 };
}
