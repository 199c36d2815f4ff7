import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';

export default [
	...configWithoutCloudSupport,
	{ ignores: ['dist/**', 'test/**', 'bench/**', 'scripts/**', 'examples/**', 'node_modules/**', 'gulpfile.js', 'jest.config.js', '.prettierrc.js'] },
];
