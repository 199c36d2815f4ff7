/**
 * One parser over one camt.053 file in a process of its own, so its peak RSS is its own:
 * `node statementParseWorker.js <mode> <file>` prints `RESULT {...}`.
 *   ours           Bank File's streaming parser, every entry kept as an item object (what the node returns)
 *   fastXmlParser  fast-xml-parser on the whole file read as a string, to a plain object
 *   camtParser     the npm package camt-parser (what the community camt node uses)
 *   mt940Ours      Bank File's parser over an MT940 file, every entry kept as an item object
 *   mt940js        the npm package mt940js on the whole file read as a string
 *   bai2Ours       Bank File's parser over a BAI2 file, every entry kept as an item object
 *   bai2Lines      the lower bound for BAI2: its lines split at the commas, nothing kept
 */
import { createReadStream, readFileSync } from 'node:fs';

import { parseCamt053 } from 'camt-parser';
import { XMLParser } from 'fast-xml-parser';

import { parseBankFile } from '../nodes/shared/bankfiles';

// mt940js has no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Parser: Mt940js } = require('mt940js') as { Parser: new () => { parse(text: string): Array<{ transactions: unknown[] }> } };

function gc(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

async function main(): Promise<void> {
	const [mode, file] = process.argv.slice(2);
	gc();
	const idleRss = process.memoryUsage().rss;
	const idleHeap = process.memoryUsage().heapUsed;
	const start = process.hrtime.bigint();
	let entries = 0;
	let kept: unknown[] = [];
	if (mode === 'ours' || mode === 'mt940Ours' || mode === 'bai2Ours') {
		for await (const event of parseBankFile(createReadStream(file, { highWaterMark: 256 * 1024 }))) {
			if (event.type === 'entry') kept.push({ json: event.entry });
		}
		entries = kept.length;
	} else if (mode === 'bai2Lines') {
		// The lower bound: the file's lines split at the commas, the details counted, nothing kept.
		let rest = '';
		for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024, encoding: 'latin1' })) {
			const lines = (rest + (chunk as string)).split('\n');
			rest = lines.pop() ?? '';
			for (const line of lines) if (line.split(',')[0] === '16') entries++;
		}
	} else if (mode === 'fastXmlParser') {
		const parsed = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(file, 'utf8')) as {
			Document: { BkToCstmrStmt: { Stmt: { Ntry: unknown[] } | Array<{ Ntry: unknown[] }> } };
		};
		const statements = parsed.Document.BkToCstmrStmt.Stmt;
		for (const statement of Array.isArray(statements) ? statements : [statements]) entries += statement.Ntry.length;
		kept = [parsed];
	} else if (mode === 'mt940js') {
		const statements = new Mt940js().parse(readFileSync(file, 'latin1'));
		for (const statement of statements) entries += statement.transactions.length;
		kept = [statements];
	} else if (mode === 'camtParser') {
		const parsed = await parseCamt053(readFileSync(file, 'utf8'));
		const document = parsed as unknown as { statements?: Array<{ transactions?: unknown[]; entries?: unknown[] }> };
		for (const statement of document.statements ?? []) entries += (statement.transactions ?? statement.entries ?? []).length;
		kept = [parsed];
	} else throw new Error(`unknown mode ${mode}`);
	const seconds = Number(process.hrtime.bigint() - start) / 1e9;
	gc();
	const retainedHeap = process.memoryUsage().heapUsed - idleHeap;
	const maxRss = process.resourceUsage().maxRSS * 1024;
	// The check that the retained heap is the items' own: a copy of them (fresh objects and strings,
	// nothing shared with the parser's input or state) is measured the same way. Done after the
	// peak RSS was read, so the copy does not count there.
	let copiedHeap: number | undefined;
	if (mode === 'ours' || mode === 'mt940Ours' || mode === 'bai2Ours') {
		kept = structuredClone(kept);
		gc();
		copiedHeap = process.memoryUsage().heapUsed - idleHeap;
	}
	process.stdout.write(`RESULT ${JSON.stringify({ entries, seconds, idleRss, maxRss, retainedHeap, copiedHeap, kept: kept.length })}\n`);
}

void main().catch((error: unknown) => {
	process.stdout.write(`RESULT ${JSON.stringify({ error: (error as Error).message })}\n`);
	process.exit(1);
});
