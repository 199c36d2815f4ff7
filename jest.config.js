/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
	},
	setupFiles: ['<rootDir>/test/harness/env.ts'],
	// A guard against a test that hangs, never a speed check (speed is measured by the benchmarks):
	// the suite must pass on a heavily loaded machine, where a 50 MB round trip takes minutes.
	testTimeout: 10 * 60_000,
	maxWorkers: 2,
};
