/**
 * Builds and packs the package (`npm run build && npm pack`) and installs the tarball into an n8n
 * user folder the way n8n's community-package installer does (n8n 2.x, `downloadPackage`):
 * unpack into `<nodes>/node_modules/<name>`, drop dev/peer/optional dependencies from its
 * package.json, `npm install` its runtime dependencies there, and record it in `<nodes>/package.json`.
 * n8n then loads it at start-up and names its node types `<package name>.<node name>`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { PROJECT_ROOT } from './sandbox';

function run(
	cmd: string,
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv = process.env,
): string {
	const res = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	if (res.status !== 0)
		throw new Error(
			`${cmd} ${args.join(' ')} failed (exit ${res.status ?? res.signal}):\n${(res.stdout + res.stderr).slice(-4000)}`,
		);
	return res.stdout;
}

export interface PackedPackage {
	name: string;
	version: string;
	tarball: string;
}

/** `npm run build` (unless `build: false`) then `npm pack` into a temporary folder removed when this process exits. */
export function buildAndPack(
	opts: { build?: boolean; log?: (line: string) => void } = {},
): PackedPackage {
	const log = opts.log ?? (() => undefined);
	if (opts.build !== false) {
		log('npm run build');
		run('npm', ['run', 'build'], PROJECT_ROOT);
	}
	const dest = mkdtempSync(path.join(os.tmpdir(), 'corporate-banking-pack-'));
	// the tarball lives as long as this process
	process.once('exit', () => rmSync(dest, { recursive: true, force: true }));
	const out = run('npm', ['pack', '--json', '--pack-destination', dest], PROJECT_ROOT);
	const info = (
		JSON.parse(out) as Array<{
			name: string;
			version: string;
			filename: string;
			files: Array<{ path: string }>;
		}>
	)[0];
	const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const packed = new Set(info.files.map((f) => f.path));
	const missing = [...manifest.n8n.nodes, ...manifest.n8n.credentials].filter(
		(f) => !packed.has(f),
	);
	if (missing.length)
		throw new Error(
			`the packed package lacks ${missing.join(', ')} (listed in package.json): run npm run build`,
		);
	log(`npm pack: ${info.filename} (${info.files.length} files)`);
	return { name: info.name, version: info.version, tarball: path.join(dest, info.filename) };
}

/** Installs a packed tarball into `<nodesDir>/node_modules/<name>` like n8n's installer. */
export function installIntoNodesFolder(
	pkg: PackedPackage,
	nodesDir: string,
	env: NodeJS.ProcessEnv = process.env,
): string {
	const dir = path.join(nodesDir, 'node_modules', pkg.name);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	run('tar', ['-xzf', pkg.tarball, '-C', dir, '--strip-components=1'], nodesDir);
	const manifestFile = path.join(dir, 'package.json');
	// eslint-disable-next-line @typescript-eslint/no-unused-vars
	const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
		readFileSync(manifestFile, 'utf8'),
	) as Record<string, unknown>;
	writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
	run(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		dir,
		env,
	);
	const ledgerFile = path.join(nodesDir, 'package.json');
	let ledger: { name: string; private: boolean; dependencies: Record<string, string> } = {
		name: 'installed-nodes',
		private: true,
		dependencies: {},
	};
	try {
		ledger = JSON.parse(readFileSync(ledgerFile, 'utf8')) as typeof ledger;
	} catch {
		/* new ledger */
	}
	ledger.dependencies = { ...ledger.dependencies, [pkg.name]: pkg.version };
	writeFileSync(ledgerFile, JSON.stringify(ledger, null, 2));
	return dir;
}
