import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};

// `npm test` builds before running the tests; this checks what the build produced.
describe('the built package', () => {
	const listed = [...pkg.n8n.nodes, ...pkg.n8n.credentials];

	it('lists the five nodes and three credentials', () => {
		expect(pkg.n8n.nodes.map((p) => path.basename(p))).toEqual(
			expect.arrayContaining([
				'CorporateFileService.node.js',
				'FxTradeReport.node.js',
				'FxTradeExecution.node.js',
				'BankEventTrigger.node.js',
				'BankMockService.node.js',
			]),
		);
		expect(pkg.n8n.credentials).toHaveLength(3);
	});

	it('has no runtime dependencies and n8n-workflow as a peer', () => {
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	});

	it.each(listed)('%s is built, self-contained and loads', (file) => {
		const full = path.join(root, file);
		expect(existsSync(full)).toBe(true);
		const code = readFileSync(full, 'utf8');
		const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
		const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
		expect(required.filter((r) => r !== 'n8n-workflow' && !builtins.has(r))).toEqual([]);
		const exported = jest.requireActual<Record<string, new () => { description?: { name: string }; name?: string }>>(full);
		const className = path.basename(file).split('.')[0];
		const instance = new exported[className]();
		expect(instance.description?.name ?? instance.name).toBeTruthy();
	});

	it('ships the icons and codex files the nodes refer to', () => {
		expect(existsSync(path.join(root, 'dist/icons/bank.svg'))).toBe(true);
		expect(existsSync(path.join(root, 'dist/icons/bank.dark.svg'))).toBe(true);
		for (const node of pkg.n8n.nodes) expect(existsSync(path.join(root, node.replace(/\.js$/, '.json')))).toBe(true);
	});
});
