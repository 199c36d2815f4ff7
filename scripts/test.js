#!/usr/bin/env node
/**
 * `npm test`: everything from a fresh clone. Installs dependencies when they are missing or
 * stale, builds, lints, runs every test suite through jest and the end-to-end tests in a real
 * n8n, then prints the time of each phase and one summary line.
 *
 * What the end-to-end tests need (Node 24 and n8n, Chromium) is installed in the background while
 * the build, the lint and the fast suites run (test/e2e/prepare.ts): the install is mostly network
 * and disk, the suites mostly CPU.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { root, run, ensureDependencies, ensureSystemPackages } = require('./setup');

const phases = [];
/** Runs `step`, recording its wall time under `name`. */
function phase(name, step) {
	const started = Date.now();
	const result = step();
	phases.push([name, (Date.now() - started) / 1000]);
	return result;
}
async function phaseAsync(name, step) {
	const started = Date.now();
	const result = await step();
	phases.push([name, (Date.now() - started) / 1000]);
	return result;
}

/** The e2e install in the background; resolves with its exit code once it has finished. */
function startE2eInstall(logFile) {
	const out = fs.openSync(logFile, 'w');
	const child = spawn(
		process.execPath,
		[require.resolve('ts-node/dist/bin.js', { paths: [root] }), '--transpile-only', 'test/e2e/prepare.ts'],
		{ cwd: root, stdio: ['ignore', out, out] },
	);
	const started = Date.now();
	return new Promise((resolve) => {
		child.once('error', () => resolve({ status: 1, seconds: (Date.now() - started) / 1000 }));
		child.once('exit', (code) => {
			fs.closeSync(out);
			resolve({ status: code ?? 1, seconds: (Date.now() - started) / 1000 });
		});
	});
}

async function main() {
	const extra = process.argv.slice(2);
	phase('npm dependencies', ensureDependencies);
	phase('Debian packages', ensureSystemPackages);
	// The packed package inside a real n8n (skipped when the run is narrowed to some test files).
	const withE2e = extra.length === 0;
	const installLog = path.join(os.tmpdir(), `e2e-install-${process.pid}.log`);
	const install = withE2e ? startE2eInstall(installLog) : undefined;
	phase('build', () => run('npm', ['run', 'build']));
	phase('lint', () => run('npm', ['run', 'lint']));

	const report = path.join(os.tmpdir(), `jest-report-${process.pid}.json`);
	const status = phase('jest (unit, integration, reliability, sandbox)', () =>
		run('npx', ['jest', '--ci', '--json', `--outputFile=${report}`, ...extra], { allowFail: true }),
	);
	let e2eStatus = 0;
	if (install) {
		const installed = await phaseAsync('waiting for the e2e install (after the jest suites)', async () => await install);
		process.stdout.write(`\n${fs.existsSync(installLog) ? fs.readFileSync(installLog, 'utf8') : ''}`);
		fs.rmSync(installLog, { force: true });
		phases.push([`  e2e install in the background (Node 24, n8n, Chromium; exit ${installed.status})`, installed.seconds]);
		e2eStatus = phase('e2e in real n8n', () =>
			run('node', ['test/e2e/run.js', '--no-build', `--merge-into=${report}`], { allowFail: true }),
		);
	}
	let summary = 'tests: 0 passed, 0 failed';
	if (fs.existsSync(report)) {
		const r = JSON.parse(fs.readFileSync(report, 'utf8'));
		const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
		summary = `tests: ${r.numPassedTests} passed, ${failed} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : '');
		fs.rmSync(report, { force: true });
	}
	const total = phases.filter(([name]) => !name.startsWith(' ')).reduce((sum, [, s]) => sum + s, 0);
	console.log('\nTime of each phase:');
	for (const [name, seconds] of [...phases, ['total', total]]) console.log(`  ${name.padEnd(72)} ${seconds.toFixed(0).padStart(5)} s`);
	console.log(`\n${summary}`);
	process.exit(status || e2eStatus);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
