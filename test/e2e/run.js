#!/usr/bin/env node
/**
 * Runs the end-to-end tests (test/e2e/*.e2e.ts) with jest and their own configuration:
 *
 *   node test/e2e/run.js [--no-build] [--outputFile=report.json] [--merge-into=report.json]
 *                        [jest options or test name patterns]
 *
 * The global set-up installs Node 24 + n8n (N8N_VERSION) into the cache once, builds (unless
 * --no-build) and packs the package. Prints `e2e: N passed, N failed, N skipped` at the end and
 * exits with jest's status. --outputFile keeps jest's JSON report there; --merge-into adds the e2e
 * counts to another jest JSON report (npm test's, so its summary line counts the e2e tests too).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');

/** Counts of a jest JSON report: { passed, failed, skipped }. */
function countReport(file) {
	const r = JSON.parse(fs.readFileSync(file, 'utf8'));
	return {
		passed: r.numPassedTests,
		failed: r.numFailedTests + r.numRuntimeErrorTestSuites,
		skipped: r.numPendingTests + r.numTodoTests,
		files: r.testResults.map((s) => [
			path.relative(root, s.name),
			(s.endTime - s.startTime) / 1000,
		]),
		skippedNames: r.testResults.flatMap((s) =>
			s.assertionResults.filter((a) => a.status === 'pending').map((a) => a.fullName),
		),
	};
}

function main() {
	const args = process.argv.slice(2);
	const outArg = args.find((a) => a.startsWith('--outputFile='));
	const mergeArg = args.find((a) => a.startsWith('--merge-into='));
	const keepReport = Boolean(outArg);
	const report = outArg
		? path.resolve(outArg.slice('--outputFile='.length))
		: path.join(os.tmpdir(), `jest-e2e-report-${process.pid}.json`);
	const build = !args.includes('--no-build');
	const rest = args.filter((a) => a !== outArg && a !== mergeArg && a !== '--no-build');
	const started = Date.now();
	const timing = path.join(os.tmpdir(), `corporate-banking-e2e-timing-${process.pid}.jsonl`);
	fs.rmSync(timing, { force: true });
	const res = spawnSync(
		process.execPath,
		[
			require.resolve('jest/bin/jest', { paths: [root] }),
			'--config',
			path.join(__dirname, 'jest.config.js'),
			'--ci',
			'--maxWorkers=2',
			'--json',
			`--outputFile=${report}`,
			...rest,
		],
		{
			stdio: 'inherit',
			cwd: root,
			env: {
				...process.env,
				CORPORATE_BANKING_E2E_BUILD: build ? '1' : '0',
				CORPORATE_BANKING_E2E_TIMING: timing,
			},
		},
	);
	const status = res.status ?? 1;
	let summary = 'e2e: no report (jest did not finish)';
	if (!fs.existsSync(report) && mergeArg)
		mergeInto(path.resolve(mergeArg.slice('--merge-into='.length)), {
			passed: 0,
			failed: 1,
			skipped: 0,
		});
	if (fs.existsSync(report)) {
		const c = countReport(report);
		summary =
			`e2e: ${c.passed} passed, ${c.failed} failed` + (c.skipped ? `, ${c.skipped} skipped` : '');
		for (const name of c.skippedNames) summary += `\n  skipped: ${name}`;
		console.log('\nTime of each e2e file:');
		for (const [file, seconds] of c.files.sort((a, b) => b[1] - a[1]))
			console.log(`  ${file.padEnd(48)} ${seconds.toFixed(0).padStart(5)} s`);
		printN8nTimes(timing);
		if (mergeArg) mergeInto(path.resolve(mergeArg.slice('--merge-into='.length)), c);
		if (!keepReport) fs.rmSync(report, { force: true });
	}
	fs.rmSync(timing, { force: true });
	console.log(`\n${summary} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
	return status;
}

/**
 * Where the e2e time goes: the n8n processes the tests started (the `n8n <command>` CLI runs, each
 * a whole n8n start-up, and the servers until ready), counted with their seconds, per command and
 * per test file (from the lines lib/n8n.ts writes).
 */
function printN8nTimes(file) {
	if (!fs.existsSync(file)) return;
	const lines = fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((l) => JSON.parse(l));
	const add = (map, key, seconds) => {
		const entry = map.get(key) ?? { count: 0, seconds: 0 };
		entry.count += 1;
		entry.seconds += seconds;
		map.set(key, entry);
	};
	const byCommand = new Map();
	const byFile = new Map();
	for (const { file: test, command, seconds } of lines) {
		add(byCommand, `n8n ${command}`, seconds);
		add(byFile, path.relative(root, test) || '(set-up)', seconds);
	}
	const show = (title, map) => {
		console.log(`\n${title}:`);
		for (const [key, { count, seconds }] of [...map].sort((a, b) => b[1].seconds - a[1].seconds))
			console.log(`  ${key.padEnd(48)} ${String(count).padStart(4)} × ${seconds.toFixed(0).padStart(5)} s`);
	};
	show('n8n processes started by the e2e tests, by command (count × seconds in all)', byCommand);
	show('the same, by test file', byFile);
}

/** Adds counts to the totals of a jest JSON report (creating a minimal one when it is missing). */
function mergeInto(file, c) {
	const r = fs.existsSync(file)
		? JSON.parse(fs.readFileSync(file, 'utf8'))
		: {
				numPassedTests: 0,
				numFailedTests: 0,
				numRuntimeErrorTestSuites: 0,
				numPendingTests: 0,
				numTodoTests: 0,
				numTotalTests: 0,
			};
	r.numPassedTests += c.passed;
	r.numFailedTests += c.failed;
	r.numPendingTests += c.skipped;
	r.numTotalTests += c.passed + c.failed + c.skipped;
	if (c.failed) r.success = false;
	fs.writeFileSync(file, JSON.stringify(r));
}

module.exports = { countReport, mergeInto };

if (require.main === module) process.exit(main());
