#!/usr/bin/env node
/**
 * `npm test`: everything from a fresh clone. Installs dependencies when they are missing or
 * stale, builds, lints, runs every test suite through jest and the end-to-end tests in a real
 * n8n, then prints one summary line.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { run, ensureDependencies, ensureSystemPackages } = require('./setup');

ensureDependencies();
ensureSystemPackages();
run('npm', ['run', 'build']);
run('npm', ['run', 'lint']);

const extra = process.argv.slice(2);
const report = path.join(os.tmpdir(), `jest-report-${process.pid}.json`);
const status = run('npx', ['jest', '--ci', '--json', `--outputFile=${report}`, ...extra], { allowFail: true });
// The packed package inside a real n8n (skipped when the run is narrowed to some test files).
const e2eStatus = extra.length ? 0 : run('node', ['test/e2e/run.js', '--no-build', `--merge-into=${report}`], { allowFail: true });
let summary = 'tests: 0 passed, 0 failed';
if (fs.existsSync(report)) {
	const r = JSON.parse(fs.readFileSync(report, 'utf8'));
	const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
	summary = `tests: ${r.numPassedTests} passed, ${failed} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : '');
	fs.rmSync(report, { force: true });
}
console.log(`\n${summary}`);
process.exit(status || e2eStatus);
