/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
	},
	setupFiles: ['<rootDir>/test/harness/env.ts'],
	testTimeout: 60000,
	maxWorkers: 2,
};
