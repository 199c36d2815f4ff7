import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
	files: string[];
};

// `npm test` builds before running the tests; this checks what the build produced.
describe('the built package', () => {
	const listed = [...pkg.n8n.nodes, ...pkg.n8n.credentials];

	it('lists the nodes and the five credentials', () => {
		expect(pkg.n8n.nodes.map((p) => path.basename(p))).toEqual(
			expect.arrayContaining([
				'CorporateFileService.node.js',
				'FxTradeReport.node.js',
				'FxTradeExecution.node.js',
				'BankEventTrigger.node.js',
				'BankFileTrigger.node.js',
				'BankMockService.node.js',
				'Ebics.node.js',
				'EbicsTrigger.node.js',
				'BankSftp.node.js',
				'BankSftpTrigger.node.js',
			]),
		);
		expect(pkg.n8n.credentials).toHaveLength(5);
	});

	it('has no runtime dependencies and n8n-workflow as a peer', () => {
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	});

	/** The built files a built file requires by relative path, and the bare module names it requires. */
	function requiresOf(file: string): { files: string[]; bare: string[] } {
		const code = readFileSync(file, 'utf8');
		const specs = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
		return {
			files: specs.filter((s) => s.startsWith('.')).map((s) => require.resolve(path.resolve(path.dirname(file), s))),
			bare: specs.filter((s) => !s.startsWith('.')),
		};
	}

	it.each(listed)('%s is built, needs only n8n-workflow and Node built-ins, and loads', (file) => {
		const full = path.join(root, file);
		expect(existsSync(full)).toBe(true);
		const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
		// Everything it requires, followed through the built files it requires by relative path.
		const seen = new Set<string>();
		const bare = new Set<string>();
		const queue = [full];
		while (queue.length) {
			const next = queue.pop() as string;
			if (seen.has(next)) continue;
			seen.add(next);
			const r = requiresOf(next);
			for (const b of r.bare) bare.add(b);
			queue.push(...r.files);
		}
		for (const f of seen) expect(path.relative(path.join(root, 'dist'), f)).not.toMatch(/^\.\./);
		expect([...bare].filter((r) => r !== 'n8n-workflow' && !builtins.has(r))).toEqual([]);
		const exported = jest.requireActual<Record<string, new () => { description?: { name: string }; name?: string }>>(full);
		const className = path.basename(file).split('.')[0];
		const instance = new exported[className]();
		expect(instance.description?.name ?? instance.name).toBeTruthy();
	});

	describe('loaded together in one process, as n8n loads them', () => {
		type Probe = {
			files: Record<string, { memo: string[]; pool: string[]; vendor: string[]; external: string[] }>;
			token: { first: string; afterFirst: number; reused: string; afterReuse: number; nodeHasMemo: boolean; renewed?: string; afterForget: number };
		};
		let probe: Probe;
		beforeAll(() => {
			// A plain Node process (not jest's module registry), so module instances are Node's own.
			const out = execFileSync(process.execPath, [path.join(root, 'test/helpers/builtModuleProbe.js'), root], { encoding: 'utf8' });
			probe = JSON.parse(out) as Probe;
		});

		it('every node and credential reaches the same single token memo and connection pool module', () => {
			const files = Object.values(probe.files);
			expect(files).toHaveLength(listed.length);
			const memos = new Set(files.flatMap((f) => f.memo));
			const pools = new Set(files.flatMap((f) => f.pool));
			// The Bank File node works on files only and never speaks to a bank: it loads no transport.
			// The Bank SFTP trigger and credential speak SSH, not HTTP: no HTTP transport either (the
			// node loads it with the key store it writes its upload journal through).
			const offline = [
				'dist/nodes/BankFile/BankFile.node.js',
				'dist/nodes/BankSftpTrigger/BankSftpTrigger.node.js',
				'dist/credentials/CorporateBankingSftpApi.credentials.js',
			];
			for (const [file, f] of Object.entries(probe.files)) {
				const expected = offline.includes(file) ? 0 : 1;
				expect([file, f.memo.length, f.pool.length]).toEqual([file, expected, expected]);
			}
			expect(memos.size).toBe(1);
			expect(pools.size).toBe(1);
		});

		it('the third-party libraries are loaded once, from one vendor file inside dist/', () => {
			const files = Object.values(probe.files);
			const vendors = new Set(files.flatMap((f) => f.vendor));
			expect(vendors.size).toBe(1);
			expect([...vendors][0]).toMatch(/^\d+:dist\//);
			for (const f of files) expect(f.external.every((e) => e.includes('n8n-workflow'))).toBe(true);
		});

		it("a token a credential stored is reused, and a node's forgetToken makes the credential ask again", () => {
			expect(probe.token.afterFirst).toBe(1);
			expect(probe.token.reused).toBe(probe.token.first);
			expect(probe.token.afterReuse).toBe(1);
			expect(probe.token.nodeHasMemo).toBe(true);
			expect(probe.token.renewed).not.toBe(probe.token.first);
			expect(probe.token.afterForget).toBe(2);
		});
	});

	it('ships the icons and codex files the nodes refer to', () => {
		expect(existsSync(path.join(root, 'dist/icons/bank.svg'))).toBe(true);
		expect(existsSync(path.join(root, 'dist/icons/bank.dark.svg'))).toBe(true);
		for (const node of pkg.n8n.nodes) expect(existsSync(path.join(root, node.replace(/\.js$/, '.json')))).toBe(true);
	});

	it("links every node and credential to its page in the package's docs/, which the package ships", () => {
		const DOCS = 'https://unpkg.com/n8n-nodes-corporate-banking/';
		expect(pkg.files).toContain('docs');
		const urls: string[] = [];
		for (const node of pkg.n8n.nodes) {
			const codex = JSON.parse(readFileSync(path.join(root, node.replace(/\.js$/, '.json')), 'utf8')) as {
				resources?: { primaryDocumentation?: Array<{ url: string }> };
			};
			const [doc] = codex.resources?.primaryDocumentation ?? [];
			expect([node, doc?.url.startsWith(DOCS)]).toEqual([node, true]);
			urls.push(doc.url);
		}
		for (const credential of pkg.n8n.credentials) {
			const { documentationUrl } = readFileSync(path.join(root, credential), 'utf8').match(/documentationUrl = '(?<documentationUrl>[^']+)'/)?.groups ?? {};
			expect([credential, documentationUrl?.startsWith(DOCS)]).toEqual([credential, true]);
			urls.push(documentationUrl);
		}
		for (const url of urls) {
			const page = url.slice(DOCS.length);
			expect([page, /^docs\/[a-z-]+\.md$/.test(page) && existsSync(path.join(root, page))]).toEqual([page, true]);
		}
	});
});
