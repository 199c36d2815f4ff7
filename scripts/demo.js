#!/usr/bin/env node
/** `npm run demo`: sets up, builds, and runs the example workflows against the sandbox bank. */
const { run, ensureDependencies } = require('./setup');

ensureDependencies();
run('npm', ['run', 'build']);
run('npx', ['ts-node', '--transpile-only', '--prefer-ts-exts', 'scripts/demo.ts', ...process.argv.slice(2)]);
