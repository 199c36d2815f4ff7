#!/usr/bin/env node
/** `npm run bench`: sets up, builds, runs the benchmarks and writes bench/results.json. */
const { run, ensureDependencies } = require('./setup');

ensureDependencies();
run('npm', ['run', 'build']);
run('node', ['--expose-gc', 'node_modules/ts-node/dist/bin.js', '--transpile-only', '--prefer-ts-exts', 'bench/run.ts', ...process.argv.slice(2)]);
