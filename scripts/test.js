#!/usr/bin/env node
/**
 * `npm test`: everything from a fresh clone. Installs dependencies when they are missing or
 * stale, builds, lints, and runs every test suite through jest, then prints one summary line.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
process.chdir(root);

function run(cmd, args, opts = {}) {
	console.log(`\n> ${cmd} ${args.join(' ')}`);
	const res = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...(opts.env ?? {}) } });
	if (res.status !== 0) {
		console.error(`\n${cmd} ${args.join(' ')} failed (exit ${res.status ?? res.signal})`);
		if (!opts.allowFail) process.exit(res.status || 1);
	}
	return res.status ?? 1;
}

function depsStale() {
	const marker = path.join(root, 'node_modules', '.package-lock.json');
	if (!fs.existsSync(marker)) return true;
	return fs.statSync(path.join(root, 'package-lock.json')).mtimeMs > fs.statSync(marker).mtimeMs;
}

// n8n's packages pull in a native module built only for Node 24; the engine does not need it.
if (depsStale()) run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund']);
run('npm', ['run', 'build']);
run('npm', ['run', 'lint']);

const extra = process.argv.slice(2);
const report = path.join(os.tmpdir(), `jest-report-${process.pid}.json`);
const status = run('npx', ['jest', '--ci', '--json', `--outputFile=${report}`, ...extra], { allowFail: true });
let summary = 'tests: 0 passed, 0 failed';
if (fs.existsSync(report)) {
	const r = JSON.parse(fs.readFileSync(report, 'utf8'));
	summary = `tests: ${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : '');
	fs.rmSync(report, { force: true });
}
console.log(`\n${summary}`);
process.exit(status);
