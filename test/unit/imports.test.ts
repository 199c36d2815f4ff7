/**
 * The layout rules that keep the code easy to follow: no module of the product (nodes/,
 * credentials/) reaches itself through its imports, type-only imports included (a type that two
 * modules need lives in the one that the other imports); each protocol has one home under
 * nodes/shared (its library, and its n8n side in sub-folders) and never imports another; the
 * generic helpers sit together in nodes/shared/common; code two nodes use lives under
 * nodes/shared, never in another node's folder. docs/architecture.md draws the layout.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(dir)) {
		const file = path.join(dir, name);
		if (statSync(file).isDirectory()) out.push(...sources(file));
		else if (file.endsWith('.ts') && !file.endsWith('.d.ts')) out.push(file);
	}
	return out;
}

/** The product files each file imports (relative imports; `import type` only with `types`). */
function importsOf(file: string, types: boolean): string[] {
	const text = readFileSync(file, 'utf8');
	const out: string[] = [];
	for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;'"]*?\sfrom\s+)?'(\.[^']+)'/gms)) {
		if (match[1] && !types) continue;
		const target = path.resolve(path.dirname(file), match[2]);
		const found = [`${target}.ts`, path.join(target, 'index.ts')].find((candidate) => existsSync(candidate));
		if (found) out.push(found);
	}
	return out;
}

/** Strongly connected groups of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
	let counter = 0;
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	const visit = (v: string): void => {
		index.set(v, counter);
		low.set(v, counter++);
		stack.push(v);
		onStack.add(v);
		for (const w of graph.get(v) ?? []) {
			if (!index.has(w)) {
				visit(w);
				low.set(v, Math.min(low.get(v)!, low.get(w)!));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
		}
		if (low.get(v) === index.get(v)) {
			const group: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				onStack.delete(w);
				group.push(path.relative(ROOT, w));
			} while (w !== v);
			if (group.length > 1) found.push(group.sort());
		}
	};
	for (const v of graph.keys()) if (!index.has(v)) visit(v);
	return found;
}

const files = [...sources(path.join(ROOT, 'nodes')), ...sources(path.join(ROOT, 'credentials'))];
const graph = new Map(files.map((file) => [file, importsOf(file, false)]));
const withTypes = new Map(files.map((file) => [file, importsOf(file, true)]));

test('no product module imports itself through others, type-only imports included', () => {
	expect(graph.size).toBeGreaterThan(50);
	expect(cycles(withTypes)).toEqual([]);
});

test('type-only imports count: a circle made only of them is found', () => {
	const dir = path.join(ROOT, 'nodes', 'BankFileTrigger');
	const circle = new Map(withTypes);
	// The circle the Bank File Trigger had: its description, output modes and settings.
	circle.set(path.join(dir, 'files', 'outputs.ts'), [path.join(dir, 'files', 'settings.ts')]);
	expect(cycles(circle).flat()).toEqual(
		expect.arrayContaining(['nodes/BankFileTrigger/files/outputs.ts', 'nodes/BankFileTrigger/files/settings.ts']),
	);
});

test('the file triggers share one delivery core and import no other trigger', () => {
	const rel = (file: string) => path.relative(ROOT, file);
	for (const trigger of ['BankFileTrigger', 'EbicsTrigger', 'BankSftpTrigger']) {
		const own = files.filter((f) => rel(f).startsWith(`nodes/${trigger}/`));
		expect(own.length).toBeGreaterThan(0);
		const targets = own.flatMap((f) => (withTypes.get(f) ?? []).map(rel));
		expect(targets.some((t) => t.startsWith('nodes/shared/delivery/'))).toBe(true);
		expect(targets.filter((t) => /^nodes\/(BankFileTrigger|EbicsTrigger|BankSftpTrigger)\//.test(t) && !t.startsWith(`nodes/${trigger}/`))).toEqual([]);
	}
});

test('the detector finds a cycle when there is one', () => {
	const a = '/x/a.ts';
	const b = '/x/b.ts';
	expect(cycles(new Map([[a, [b]], [b, [a]]])).length).toBe(1);
	expect(cycles(new Map([[a, [b]], [b, []]]))).toEqual([]);
});

/** The protocol families, each one home under nodes/shared: its library and its n8n side. */
const PROTOCOLS = ['bxd', 'ebics', 'fx', 'sftp'];
const rel = (file: string) => path.relative(ROOT, file);
const protocolOf = (file: string) => PROTOCOLS.find((name) => rel(file).startsWith(`nodes/shared/${name}/`));
const nodeOf = (file: string) => /^nodes\/(?!shared\/)([^/]+)\//.exec(rel(file))?.[1];

test('a protocol folder never imports another (bxd, ebics, fx, sftp)', () => {
	const crossings: string[] = [];
	for (const [file, imports] of withTypes) {
		const home = protocolOf(file);
		if (!home) continue;
		for (const target of imports) {
			const other = protocolOf(target);
			if (other && other !== home) crossings.push(`${rel(file)} -> ${rel(target)}`);
		}
	}
	expect(crossings).toEqual([]);
});

test('nothing of one protocol sits loose at the top of nodes/shared: only folders are there', () => {
	const top = readdirSync(path.join(ROOT, 'nodes', 'shared'));
	expect(top.filter((name) => !statSync(path.join(ROOT, 'nodes', 'shared', name)).isDirectory())).toEqual([]);
	expect(top).toEqual(expect.arrayContaining([...PROTOCOLS, 'common', 'keys', 'transport', 'delivery', 'bankfiles']));
});

test('no node imports from another node\'s folder, and nodes/shared imports no node folder', () => {
	const crossings: string[] = [];
	for (const [file, imports] of withTypes) {
		const from = nodeOf(file);
		for (const target of imports) {
			const to = nodeOf(target);
			if (to && to !== from) crossings.push(`${rel(file)} -> ${rel(target)}`);
		}
	}
	expect(crossings).toEqual([]);
});

test('the generic helpers (nodes/shared/common) know no protocol and no key store: only each other and the transport', () => {
	const found: string[] = [];
	for (const [file, imports] of withTypes) {
		if (!rel(file).startsWith('nodes/shared/common/')) continue;
		for (const target of imports)
			if (!/^nodes\/shared\/(common|transport)\//.test(rel(target))) found.push(`${rel(file)} -> ${rel(target)}`);
	}
	expect(found).toEqual([]);
});

test('a protocol\'s library does not import its n8n side (credential, enrolment, initialisation, journal, node)', () => {
	const sides = /^nodes\/shared\/(bxd|ebics|sftp)\/(credential|enrolment|initialisation|journal|node)\//;
	const found: string[] = [];
	for (const [file, imports] of withTypes) {
		const name = rel(file);
		if (!/^nodes\/shared\/(bxd|ebics|sftp)\//.test(name) || sides.test(name)) continue;
		for (const target of imports) if (sides.test(rel(target))) found.push(`${name} -> ${rel(target)}`);
	}
	expect(found).toEqual([]);
});

test('the layout detectors find what they look for', () => {
	const node = path.join(ROOT, 'nodes', 'Ebics', 'Ebics.node.ts');
	const other = path.join(ROOT, 'nodes', 'EbicsTrigger', 'EbicsTrigger.node.ts');
	expect([nodeOf(node), nodeOf(other), nodeOf(path.join(ROOT, 'nodes', 'shared', 'ebics', 'client.ts'))]).toEqual(['Ebics', 'EbicsTrigger', undefined]);
	expect(protocolOf(path.join(ROOT, 'nodes', 'shared', 'bxd', 'node', 'request.ts'))).toBe('bxd');
	expect(protocolOf(path.join(ROOT, 'nodes', 'shared', 'common', 'errors.ts'))).toBeUndefined();
});

test('the credential reading, the enrolment and the key management import in one direction', () => {
	const importsOf = (file: string) => (graph.get(path.join(ROOT, file)) ?? []).map(rel);
	const credential = 'nodes/shared/bxd/credential/fileServiceCredential.ts';
	expect(importsOf(credential).filter((t) => t.startsWith('nodes/shared/bxd/enrolment/'))).toEqual([]);
	expect(importsOf('nodes/shared/bxd/enrolment/danskeEnrolment.ts')).not.toContain('nodes/shared/bxd/enrolment/fileServiceEnrolment.ts');
	for (const file of files.filter((f) => rel(f).startsWith('nodes/shared/keys/')))
		expect(importsOf(rel(file)).filter((t) => /fileService|danske|ebics|bxd\//.test(t))).toEqual([]);
});
