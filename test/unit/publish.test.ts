/**
 * The package as it is published and the way it is published: what `npm pack` puts in it and its
 * size, the licence, the changelog, a plain `npm ci`, the GitHub Actions workflows (actionlint),
 * the n8n versions the docs state, and n8n's community package checks (`n8n-node lint` in its
 * cloud mode and @n8n/scan-community-package's lint of the source and of the tarball).
 *
 * Needs a build: `npm test` and CI build before the fast suites.
 */
import { execFile } from 'node:child_process';
import {
	cpSync,
	existsSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { parse as parseYaml } from 'yaml';

import versions from '../e2e/n8n-versions.json';

const root = path.resolve(__dirname, '../..');
const exec = promisify(execFile);
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
	name: string;
	version: string;
	license: string;
	author: { name: string };
	files: string[];
	n8n: { nodes: string[]; credentials: string[] };
};

/**
 * The environment of a developer's shell: without npm's `npm_config_*` variables (set when jest
 * runs under npm) and jest's NODE_ENV=test (eslint-plugin-n8n-nodes-base reads file names
 * differently under it).
 */
function plainEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env = Object.fromEntries(
		Object.entries(process.env).filter(
			([k]) =>
				!k.toLowerCase().startsWith('npm_config_') && k !== 'NODE_ENV' && !k.startsWith('JEST_'),
		),
	);
	return { ...env, ...extra };
}

/** A `## Heading` section of a Markdown file, up to the next heading of the same level. */
function section(markdown: string, heading: string): string {
	const start = markdown.indexOf(`\n## ${heading}\n`);
	if (start < 0) throw new Error(`no "## ${heading}" section`);
	const end = markdown.indexOf('\n## ', start + 4);
	return markdown.slice(start, end < 0 ? undefined : end);
}

function tempDir(name: string): string {
	return mkdtempSync(path.join(os.tmpdir(), `corporate-banking-${name}-`));
}

describe('what npm publishes', () => {
	interface Packed {
		size: number;
		unpackedSize: number;
		entryCount: number;
		files: Array<{ path: string; size: number }>;
	}
	let packed: Packed;
	let paths: string[];

	beforeAll(async () => {
		if (!existsSync(path.join(root, 'dist')))
			throw new Error('dist/ is missing: run `npm run build` first');
		const { stdout } = await exec('npm', ['pack', '--dry-run', '--json'], {
			cwd: root,
			env: plainEnv(),
			maxBuffer: 64 * 1024 * 1024,
		});
		[packed] = JSON.parse(stdout) as Packed[];
		paths = packed.files.map((f) => f.path);
	});

	it('holds dist/, docs/, the README, the licence, the changelog and package.json, nothing else', () => {
		const outside = paths.filter(
			(p) =>
				!/^(dist|docs)\//.test(p) &&
				!['README.md', 'LICENSE', 'CHANGELOG.md', 'package.json'].includes(p),
		);
		expect(outside).toEqual([]);
		expect(paths).toEqual(
			expect.arrayContaining([
				'README.md',
				'LICENSE',
				'CHANGELOG.md',
				'package.json',
				'dist/vendor.js',
			]),
		);
		for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) expect(paths).toContain(file);
		const docs = readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));
		for (const page of docs) expect(paths).toContain(`docs/${page}`);
	});

	it('holds no tests, fixtures, sandbox, sources, source maps, keys or certificates files', () => {
		const unwanted = paths.filter(
			(p) =>
				/(^|\/)(test|tests|__tests__|fixtures|sandbox|bench|examples|scripts|node_modules)\//.test(
					p,
				) || /\.(ts|map|tgz|pem|key|crt|cer|der|p12|pfx|jks)$/.test(p),
		);
		expect(unwanted).toEqual([]);
		for (const p of paths.filter((f) => f.endsWith('.js'))) {
			expect([p, /sourceMappingURL=/.test(read(p))]).toEqual([p, false]);
		}
	});

	it('holds no private key, in any text file', () => {
		// A PEM private key block with its base64 body; the code's placeholders and checks name the
		// header alone.
		const key = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\s*[A-Za-z0-9+/=]{40}/;
		const text = paths.filter((p) => /\.(js|json|md|svg|txt)$/.test(p) || !p.includes('.'));
		expect(text.length).toBeGreaterThan(100);
		expect(text.filter((p) => key.test(read(p)))).toEqual([]);
	});

	it('its size is the one docs/development.md reports (within a quarter; update the page when it is not)', () => {
		const mb = (bytes: number): string => (bytes / 1e6).toFixed(2);
		const page = read('docs/development.md');
		const reported = /\*\*([\d.]+) MB\*\* packed, \*\*([\d.]+) MB\*\* unpacked, (\d+) files/.exec(
			page,
		);
		const now = `**${mb(packed.size)} MB** packed, **${mb(packed.unpackedSize)} MB** unpacked, ${packed.entryCount} files`;
		expect(reported ? reported[0] : 'no size in docs/development.md').toMatch(/MB/);
		const [, size, unpacked] = reported!.map(Number);
		expect([now, Math.abs(packed.size / 1e6 / size - 1) <= 0.25]).toEqual([now, true]);
		expect([now, Math.abs(packed.unpackedSize / 1e6 / unpacked - 1) <= 0.25]).toEqual([now, true]);
	});
});

describe('licence', () => {
	it('LICENSE is the MIT licence of the author package.json names, as package.json and the README say', () => {
		const license = read('LICENSE');
		expect(license.split('\n')[0]).toBe('MIT License');
		expect(license).toMatch(new RegExp(`^Copyright \\(c\\) 20\\d\\d ${pkg.author.name}$`, 'm'));
		expect(license).toContain(
			'Permission is hereby granted, free of charge, to any person obtaining a copy',
		);
		expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
		expect(pkg.license).toBe('MIT');
		expect(section(read('README.md'), 'License')).toContain('[MIT](LICENSE)');
	});
});

describe('changelog', () => {
	const changelog = existsSync(path.join(root, 'CHANGELOG.md')) ? read('CHANGELOG.md') : '';
	const headings = [
		...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?(.*)$/gm),
	].map((m) => ({
		version: m[1],
		date: m[2],
		rest: m[3],
	}));

	it('follows Keep a Changelog: Unreleased first, then released versions newest first, each dated', () => {
		expect(existsSync(path.join(root, 'CHANGELOG.md'))).toBe(true);
		expect(changelog.split('\n')[0]).toBe('# Changelog');
		expect(changelog).toContain('https://keepachangelog.com/en/1.1.0/');
		expect(changelog).toContain('https://semver.org/spec/v2.0.0.html');
		expect(headings[0]).toEqual({ version: 'Unreleased', date: undefined, rest: '' });
		const released = headings.slice(1);
		expect(released.length).toBeGreaterThanOrEqual(2);
		for (const h of released)
			expect([h.version, h.version, h.date]).toEqual([
				h.version,
				expect.stringMatching(/^\d+\.\d+\.\d+$/),
				expect.any(String),
			]);
		const key = (v: string): number => v.split('.').reduce((n, part) => n * 1000 + Number(part), 0);
		for (let i = 1; i < released.length; i++) {
			expect(key(released[i - 1].version)).toBeGreaterThan(key(released[i].version));
			expect(released[i - 1].date >= released[i].date).toBe(true);
		}
	});

	it("its newest release is package.json's version", () => {
		expect(headings[1].version).toBe(pkg.version);
	});

	it('has only the change types Keep a Changelog names, each with entries, and no placeholders', () => {
		const types = [...changelog.matchAll(/^### (.*)$/gm)].map((m) => m[1]);
		expect(types.length).toBeGreaterThan(0);
		for (const t of types)
			expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(t);
		const bodies = changelog.split(/^### .*$/m).slice(1);
		for (const body of bodies) expect(body.split(/^## /m)[0]).toMatch(/^- \S/m);
		expect(changelog).not.toMatch(/\b(TODO|TBD|FIXME|XXX)\b|lorem ipsum/i);
	});
});

describe('a plain npm ci on Node.js 20, 22 and 24', () => {
	/**
	 * Every dependency with an install script, and why the package works without it: the project's
	 * .npmrc runs none (two of them break a plain install). A new one must be looked at and added.
	 */
	const WITHOUT_INSTALL_SCRIPT: Record<string, string> = {
		'eslint-plugin-n8n-nodes-base':
			'`preinstall: npx only-allow pnpm` refuses npm; its lint rules need no install step',
		'isolated-vm':
			'a node-gyp build that needs Node 24; n8n-workflow loads it only for an expression engine the tests never select',
		esbuild:
			'its postinstall checks the platform binary, which npm installs as @esbuild/<platform>',
		'unrs-resolver':
			'its postinstall fetches the binding only when npm left out the optional @unrs/resolver-binding-<platform>',
		'@parcel/watcher':
			'builds from source only without a prebuilt @parcel/watcher-<platform>; jest uses it in watch mode',
		'@sentry/node-cpu-profiler':
			"checks its prebuilt binaries; n8n-core's profiling is never on here",
		'@sentry/node-native-stacktrace':
			"checks its prebuilt binaries; n8n-core's native stack traces are never on here",
		ssh2: 'builds an optional crypto binding and works without it',
		'cpu-features': "ssh2's optional native helper",
	};

	it("npm takes ignore-scripts from the project's .npmrc", async () => {
		expect(read('.npmrc')).toMatch(/^ignore-scripts=true$/m);
		const { stdout } = await exec('npm', ['config', 'get', 'ignore-scripts'], {
			cwd: root,
			env: plainEnv(),
		});
		expect(stdout.trim()).toBe('true');
	});

	// Node.js 20 and 22 come with npm 10, Node.js 24 with npm 11. npm 11 leaves out of the lock file
	// the nested copies npm 10 wants for optional peer dependencies that the hoisted copy does not
	// satisfy (openai's @aws-sdk/credential-provider-node), and npm 10's `npm ci` then refuses it.
	it.each([
		['10.8.2', 'the npm of Node.js 20'],
		['current', 'the npm running this test'],
	])('npm ci takes package-lock.json as it is, with npm %s (%s)', async (version) => {
		const dir = tempDir('lock');
		try {
			for (const file of ['package.json', 'package-lock.json', '.npmrc'])
				cpSync(path.join(root, file), path.join(dir, file));
			const npm = version === 'current' ? ['npm'] : ['npx', '--yes', `npm@${version}`];
			const result = await exec(
				npm[0],
				[...npm.slice(1), 'ci', '--dry-run', '--no-audit', '--no-fund'],
				{
					cwd: dir,
					env: plainEnv(),
					maxBuffer: 64 * 1024 * 1024,
				},
			).then(
				() => 'in sync',
				(error: { stderr?: string }) =>
					`refused (write the lock file with npm 10, which npm 11 reads too: npx npm@10.8.2 install --package-lock-only): ${(
						error.stderr ?? ''
					)
						.split('\n')
						.filter((l) => /error/.test(l))
						.slice(0, 5)
						.join('\n')}`,
			);
			expect(result).toBe('in sync');
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('every dependency with an install script works without it, for a reason this test gives', () => {
		const lock = JSON.parse(read('package-lock.json')) as {
			packages: Record<string, { hasInstallScript?: boolean }>;
		};
		const withScripts = Object.entries(lock.packages)
			.filter(([, p]) => p.hasInstallScript)
			.map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
		expect(withScripts.length).toBeGreaterThan(0);
		expect([...new Set(withScripts)].filter((name) => !WITHOUT_INSTALL_SCRIPT[name])).toEqual([]);
	});
});

describe('GitHub Actions workflows', () => {
	type Step = {
		uses?: string;
		run?: string;
		with?: Record<string, string>;
		env?: Record<string, string>;
	};
	type Job = {
		needs?: string | string[];
		permissions?: Record<string, string>;
		strategy?: { matrix?: Record<string, string[]> };
		env?: Record<string, string>;
		steps: Step[];
	};
	type Workflow = {
		on: Record<string, unknown>;
		permissions?: Record<string, string>;
		jobs: Record<string, Job>;
	};
	const ci = parseYaml(read('.github/workflows/ci.yml')) as Workflow;
	const release = parseYaml(read('.github/workflows/release.yml')) as Workflow;
	const runs = (job: Job): string[] => job.steps.flatMap((s) => (s.run ? [s.run.trim()] : []));

	interface Problem {
		file: string;
		line: number;
		kind: string;
		message: string;
	}
	async function actionlint(...files: string[]): Promise<Problem[]> {
		const { stdout } = await exec(
			process.execPath,
			[path.join(root, 'test/helpers/publishChecks.mjs'), 'actionlint', ...files],
			{
				cwd: root,
				env: plainEnv(),
				maxBuffer: 16 * 1024 * 1024,
			},
		);
		return JSON.parse(stdout) as Problem[];
	}

	it('actionlint finds nothing wrong in ci.yml and release.yml', async () => {
		const problems = await actionlint('.github/workflows/ci.yml', '.github/workflows/release.yml');
		expect(problems).toEqual([]);
	});

	it('actionlint finds each fault put into a copy of ci.yml', async () => {
		const original = read('.github/workflows/ci.yml');
		const lines = original.split('\n');
		const faults: Array<[RegExp, (line: string) => string, RegExp]> = [
			[/^\s+runs-on: /, (l) => l.replace('runs-on', 'runs_on'), /unexpected key "runs_on"/],
			[
				/needs\.versions\.outputs\.oldest \}\}/,
				(l) => l.replace('outputs.oldest }}', 'outputs.olderst }}'),
				/property "olderst" is not defined/,
			],
			[
				/^\s+timeout-minutes: \d+$/,
				(l) => l.replace(/\d+$/, 'soon'),
				/timeout-minutes|number|float/i,
			],
		];
		const broken = [...lines];
		const expected: Array<[number, RegExp]> = [];
		for (const [find, change, says] of faults) {
			const at = broken.findIndex((l, i) => find.test(l) && !expected.some(([n]) => n === i + 1));
			expect(at).toBeGreaterThanOrEqual(0);
			broken[at] = change(broken[at]);
			expected.push([at + 1, says]);
		}
		const dir = tempDir('workflow');
		try {
			const file = path.join(dir, 'ci.yml');
			writeFileSync(file, broken.join('\n'));
			const problems = await actionlint(file);
			for (const [line, says] of expected) {
				expect([line, problems.some((p) => p.line === line && says.test(p.message))]).toEqual([
					line,
					true,
				]);
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it("ci.yml runs the README's test command, plain npm ci and the fast suites on Node.js 20, 22 and 24, and the examples in the oldest n8n", () => {
		expect(read('README.md')).toContain('npm test ');
		expect(runs(ci.jobs.test)).toContain('npm test');
		const unit = ci.jobs.unit;
		expect(unit.strategy?.matrix?.node).toEqual(expect.arrayContaining(['20', '22', '24']));
		expect(runs(unit)).toEqual(
			expect.arrayContaining(['npm ci', 'npm run build', 'npx jest --ci']),
		);
		const oldest = ci.jobs.oldest;
		const e2e = oldest.steps.find((s) => s.run === 'npm run test:e2e -- --no-build examples');
		expect(e2e?.env).toEqual({ N8N_E2E_VERSION: '${{ needs.versions.outputs.oldest }}' });
	});

	it('ci.yml keeps the n8n install of each version in the Actions cache, keyed on the version', () => {
		for (const [job, which] of [
			['test', 'newest'],
			['oldest', 'oldest'],
		] as const) {
			const cache = ci.jobs[job].steps.find((s) => s.uses === 'actions/cache@v5');
			expect(cache?.with?.path).toContain(
				`~/.cache/n8n-nodes-corporate-banking/n8n-\${{ needs.versions.outputs.${which} }}`,
			);
			expect(cache?.with?.key).toMatch(
				new RegExp(`^n8n-\\$\\{\\{ needs\\.versions\\.outputs\\.${which} \\}\\}-`),
			);
		}
		expect(runs(ci.jobs.versions)).toEqual(['node .github/n8n-versions.js']);
	});

	it('.github/n8n-versions.js gives the workflows the versions of test/e2e/n8n-versions.json', async () => {
		const dir = tempDir('outputs');
		try {
			const out = path.join(dir, 'outputs');
			await exec(process.execPath, [path.join(root, '.github/n8n-versions.js')], {
				env: { ...process.env, GITHUB_OUTPUT: out },
			});
			const outputs = Object.fromEntries(
				readFileSync(out, 'utf8')
					.trim()
					.split('\n')
					.map((l) => l.split('=') as [string, string]),
			);
			expect(outputs).toEqual({
				newest: versions.newest,
				oldest: versions.oldest,
				node: versions.node,
				'newest-spec': expect.stringMatching(/^[0-9a-f]{12}$/),
				'oldest-spec': expect.stringMatching(/^[0-9a-f]{12}$/),
			});
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('release.yml: on a version tag, builds and runs npm test, then publishes with provenance, the only job that may get an id-token', () => {
		expect(release.on).toEqual({ push: { tags: ['v*'] } });
		expect(release.permissions).toEqual({ contents: 'read' });
		const { test, publish } = release.jobs;
		/** The positions of these commands among the job's steps: each there, in this order. */
		const inOrder = (job: Job, wanted: string[]): boolean => {
			const at = wanted.map((r) => runs(job).indexOf(r));
			return at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]));
		};
		expect(inOrder(test, ['npm ci', 'npm run build', 'npm test'])).toBe(true);
		expect(test.permissions).toBeUndefined();
		expect(publish.needs).toBe('test');
		expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		expect(
			inOrder(publish, ['npm ci', 'npm run build', 'npm publish --provenance --access public']),
		).toBe(true);
	});
});

describe('the n8n versions the package supports', () => {
	const semver = (v: string): number[] => v.split('.').map(Number);
	const n8nVersionsIn = (text: string): string[] =>
		[...text.matchAll(/\bn8n (\d+\.\d+\.\d+)\b/g)].map((m) => m[1]);
	const known = new Set([versions.newest, versions.oldest]);

	it('the oldest is 2.20 or newer (client certificates on helpers.httpRequest) and older than the newest', () => {
		const [oldMajor, oldMinor] = semver(versions.oldest);
		expect(oldMajor).toBe(2);
		expect(oldMinor).toBeGreaterThanOrEqual(20);
		expect(semver(versions.newest)[0]).toBe(2);
		expect(semver(versions.newest)[1]).toBeGreaterThan(oldMinor);
	});

	it("the README's install section states both, and the README, docs/development.md and the e2e README name no other", () => {
		// Markdown wraps lines anywhere: compared with white space made single spaces.
		const flat = (text: string): string => text.replace(/\s+/g, ' ');
		const readme = read('README.md');
		const install = flat(section(readme, 'Installing in n8n'));
		expect(install).toContain(`n8n ${versions.oldest}`);
		expect(install).toContain(`n8n ${versions.newest}`);
		const commands = flat(section(readme, 'The two commands'));
		expect(commands).toContain(`n8n ${versions.newest}`);
		for (const file of ['docs/development.md', 'test/e2e/README.md']) {
			const text = flat(read(file));
			expect([
				file,
				text.includes(`n8n ${versions.newest}`),
				text.includes(`n8n ${versions.oldest}`),
				text.includes('N8N_E2E_VERSION'),
			]).toEqual([file, true, true, true]);
		}
		// The Supported n8n versions section also names the versions that fail, and why.
		const page = read('docs/development.md');
		const development = flat(page.replace(section(page, 'Supported n8n versions'), ''));
		for (const text of [install, commands, development, flat(read('test/e2e/README.md'))]) {
			expect(n8nVersionsIn(text).filter((v) => !known.has(v))).toEqual([]);
		}
	});

	it('the e2e tests and the demo take the version from test/e2e/n8n-versions.json, none writes one itself', () => {
		const files = [
			'scripts/demo.ts',
			...readdirSync(path.join(root, 'test/e2e'))
				.filter((f) => f.endsWith('.ts'))
				.map((f) => `test/e2e/${f}`),
			...readdirSync(path.join(root, 'test/e2e/lib')).map((f) => `test/e2e/lib/${f}`),
		];
		const written = files.filter((f) => /['"`]2\.\d+\.\d+['"`]|n8n@2\.\d+/.test(read(f)));
		expect(written).toEqual([]);
		expect(read('test/e2e/lib/install.ts')).toContain("from '../n8n-versions.json'");
	});
});

describe("n8n's community package checks", () => {
	interface Finding {
		file: string;
		line: number;
		severity: string;
		message: string;
		rule: string;
	}
	/** ESLint's "stylish" report (what both tools print) as findings, file paths relative. */
	function findings(report: string, base: string): Finding[] {
		const out: Finding[] = [];
		let file = '';
		for (const raw of report.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
			if (raw.startsWith('/')) file = path.relative(base, raw.trim());
			const m = /^\s+(\d+):\d+\s+(error|warning)\s+(.*?)\s{2,}(\S+)\s*$/.exec(raw);
			if (m) out.push({ file, line: Number(m[1]), severity: m[2], message: m[3], rule: m[4] });
		}
		return out;
	}

	/** What n8n Cloud forbids and a self-hosted package needs (docs/development.md says why). */
	const CLOUD_ONLY = {
		'@n8n/community-nodes/no-restricted-imports': [
			'node:fs',
			'node:fs/promises',
			'node:stream',
			'node:stream/promises',
			'node:zlib',
			'node:http',
			'node:https',
			'node:tls',
			'node:util',
			'node:os',
			'node:path',
			'node:buffer',
			'node:events',
			'node:worker_threads',
			'util',
			'worker_threads',
			'path',
			'fs',
			// ssh2 and openpgp.js in dist/vendor.js (the Bank SFTP nodes: SSH over TCP).
			'assert',
			'buffer',
			'dns',
			'events',
			'http',
			'https',
			'module',
			'net',
			'stream',
			'tls',
			'url',
			'zlib',
		],
		'@n8n/community-nodes/no-restricted-globals': [
			'process',
			'setTimeout',
			'clearTimeout',
			'setImmediate',
			'global',
			'globalThis',
			'__dirname',
			'__filename',
			// ssh2's keep-alive timer.
			'setInterval',
			'clearInterval',
		],
	} as Record<string, string[]>;
	/** Rules a line of our source switches off with a reason next to it (the scanner ignores that). */
	const DISABLED_IN_SOURCE = [
		'@n8n/community-nodes/credential-password-field',
		'n8n-nodes-base/node-param-type-options-missing-from-limit',
	];
	/**
	 * Rules only the bundled third-party libraries break (dist/vendor.js, and xmllint-wasm's worker
	 * script dist/xmllint-node.js): our code has none.
	 */
	const VENDOR_ONLY = ['no-console'];
	const VENDOR_FILES = ['dist/vendor.js', 'dist/xmllint-node.js'];
	/** Warnings, which fail neither check. */
	const WARNINGS = ['@n8n/community-nodes/credential-unnecessary-password'];

	/** Each finding is cloud-only (with the module or global named), switched off in the source, or a warning. */
	function unexplained(list: Finding[], base: string): Finding[] {
		return list.filter((f) => {
			if (CLOUD_ONLY[f.rule]) {
				const name = /'([^']+)'/.exec(f.message)?.[1] ?? '';
				return !CLOUD_ONLY[f.rule].includes(name);
			}
			if (VENDOR_ONLY.includes(f.rule)) return !VENDOR_FILES.includes(f.file);
			if (DISABLED_IN_SOURCE.includes(f.rule)) {
				const before = readFileSync(path.join(base, f.file), 'utf8').split('\n')[f.line - 2] ?? '';
				return !before.includes(`eslint-disable-next-line ${f.rule}`);
			}
			return !(f.severity === 'warning' && WARNINGS.includes(f.rule));
		});
	}

	let cloudLint: { status: number; output: string; base: string };
	let scanSource: { passed: boolean; message?: string; details?: string };
	let scanTarball: { passed: boolean; message?: string; details?: string; base: string };
	const cleanup: string[] = [];

	beforeAll(async () => {
		if (!existsSync(path.join(root, 'dist')))
			throw new Error('dist/ is missing: run `npm run build` first');

		// `n8n-node lint` as a package in cloud mode has it: the template's eslint.config.mjs
		// (`config`, not `configWithoutCloudSupport`) and "strict": true, on the files the package
		// is made of.
		const copy = tempDir('cloud-lint');
		cleanup.push(copy);
		for (const part of ['nodes', 'credentials', 'icons', 'tsconfig.json'])
			cpSync(path.join(root, part), path.join(copy, part), { recursive: true });
		const manifest = JSON.parse(read('package.json')) as { n8n: Record<string, unknown> };
		manifest.n8n.strict = true;
		writeFileSync(path.join(copy, 'package.json'), JSON.stringify(manifest, null, 2));
		const cli = path.join(root, 'node_modules/@n8n/node-cli');
		cpSync(
			path.join(cli, 'dist/template/templates/shared/default/eslint.config.mjs'),
			path.join(copy, 'eslint.config.mjs'),
		);
		symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
		const lint = exec(process.execPath, [path.join(cli, 'bin/n8n-node.mjs'), 'lint'], {
			cwd: copy,
			env: plainEnv({ CI: 'true' }),
			maxBuffer: 16 * 1024 * 1024,
		}).then(
			({ stdout, stderr }) => ({ status: 0, output: stdout + stderr, base: copy }),
			(error: { code?: number; stdout?: string; stderr?: string }) => ({
				status: error.code ?? 1,
				output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
				base: copy,
			}),
		);

		// The scanner's two ESLint passes: the source checkout its provenance names (here: this
		// repository) and the unpacked tarball.
		const scan = async (folder: string, patterns: string[]): Promise<typeof scanSource> => {
			const { stdout } = await exec(
				process.execPath,
				[path.join(root, 'test/helpers/publishChecks.mjs'), 'scan', folder, ...patterns],
				{
					cwd: root,
					env: plainEnv(),
					maxBuffer: 64 * 1024 * 1024,
				},
			);
			return JSON.parse(stdout) as typeof scanSource;
		};
		const tarballDir = tempDir('tarball');
		cleanup.push(tarballDir);
		const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', tarballDir], {
			cwd: root,
			env: plainEnv(),
		});
		const [{ filename }] = JSON.parse(stdout) as Array<{ filename: string }>;
		const unpacked = path.join(tarballDir, 'package');
		await exec('tar', ['-xzf', path.join(tarballDir, filename), '-C', tarballDir]);
		const [lintResult, source, tarball] = await Promise.all([
			lint,
			scan(root, ['package.json', '{nodes,credentials}/**/*.{js,ts,json}']),
			scan(unpacked, ['**/*.js', 'package.json']),
		]);
		cloudLint = lintResult;
		scanSource = source;
		scanTarball = { ...tarball, base: unpacked };
	});

	afterAll(() => {
		for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
	});

	it('n8n-node lint in cloud mode fails on the Node modules and globals n8n Cloud forbids, and on nothing else', () => {
		const list = findings(cloudLint.output, cloudLint.base);
		expect(cloudLint.status).toBe(1);
		expect(cloudLint.output).toContain('n8n Cloud compatibility issues detected');
		expect(list.filter((f) => f.severity === 'error').length).toBeGreaterThan(0);
		expect(list.filter((f) => f.severity === 'error' && !CLOUD_ONLY[f.rule])).toEqual([]);
		expect(unexplained(list, cloudLint.base)).toEqual([]);
	});

	it('the scanner flags in the source only those, and rules our source switches off next to its reason', () => {
		expect(scanSource.message).toBe('ESLint violations found');
		const list = findings(scanSource.details ?? '', root);
		expect(list.length).toBeGreaterThan(0);
		expect(unexplained(list, root)).toEqual([]);
	});

	it('the scanner flags in the tarball only the Node modules and globals the code and its bundled libraries use, and the console calls of those libraries', () => {
		expect(scanTarball.message).toBe('ESLint violations found');
		const list = findings(scanTarball.details ?? '', scanTarball.base);
		expect(list.length).toBeGreaterThan(0);
		expect(list.filter((f) => !CLOUD_ONLY[f.rule] && !VENDOR_ONLY.includes(f.rule))).toEqual([]);
		expect(unexplained(list, scanTarball.base)).toEqual([]);
	});

	it('docs/development.md lists every rule, module and global the checks flag', () => {
		const page = section(read('docs/development.md'), "n8n's community package checks");
		const names = [
			...Object.keys(CLOUD_ONLY),
			...Object.values(CLOUD_ONLY).flat(),
			...VENDOR_ONLY,
			...DISABLED_IN_SOURCE,
			...WARNINGS,
		];
		for (const name of names) {
			expect([name, page.includes(`\`${name}\``)]).toEqual([name, true]);
		}
	});
});
