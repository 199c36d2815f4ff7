#!/usr/bin/env node
/**
 * `npm run demo`: sets up, builds, and runs the example workflows in a real n8n against the
 * sandbox bank (see scripts/demo.ts). `npm run demo -- --ui` opens the n8n editor instead;
 * `npm run demo -- --engine` runs the examples through n8n's workflow engine only.
 */
const { run, ensureDependencies } = require('./setup');

ensureDependencies();
run('npm', ['run', 'build']);
run('npx', [
	'ts-node',
	'--transpile-only',
	'--prefer-ts-exts',
	'scripts/demo.ts',
	...process.argv.slice(2),
]);
