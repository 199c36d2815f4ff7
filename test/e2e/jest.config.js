/**
 * End-to-end tests: the packed package in a real n8n (N8N_VERSION) against the sandbox bank.
 * Run with `node test/e2e/run.js` (or `npm run test:e2e`); the global set-up installs n8n once
 * into a cache outside the repository. Test files end in `.e2e.ts` so the fast suites never pick
 * them up.
 */
const path = require('node:path');

/** @type {import('jest').Config} */
module.exports = {
	rootDir: path.resolve(__dirname, '../..'),
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
	},
	globalSetup: '<rootDir>/test/e2e/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e/globalTeardown.ts',
	testTimeout: 5 * 60_000,
	maxWorkers: 2,
	verbose: true,
};
