/**
 * `statementParse`: a camt.053 statement of 100,000 entries with the detail large banks give
 * (about 160 MB) parsed into items by the Bank File parser, against fast-xml-parser (whole file to
 * a plain object) and the npm package camt-parser, each in its own process, in the same run.
 * Reported: entries per second, peak RSS over the process's idle RSS, the items' own size (heap
 * they keep after a full collection; `itemsCopyMb`: the same for a structured clone of them, which
 * shares nothing with the parser, as the check that nothing else is counted) and the time ratios.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { StatementDetail } from '../test/sandbox/bankfiles';
import { camt053, makeIban } from '../test/sandbox/bankfiles';
import { Prng } from '../test/sandbox/prng';
import { median, round } from './common';
import { compile, ROOT } from './compiled';

const ENTRIES = 100_000;
/** Entries as large banks write them: references, both parties, the invoice, dates, additional text, indented. */
const DETAIL: StatementDetail = { owner: { name: 'Bench Oy' } };
const RUNS = 3;
const MIB = 1024 * 1024;

interface WorkerResult {
	entries: number;
	seconds: number;
	idleRss: number;
	maxRss: number;
	retainedHeap: number;
	copiedHeap?: number;
	error?: string;
}

/**
 * Writes one statement of `count` entries, generated in slices of 10,000 (the text is never one
 * huge string): a first pass finds the closing balance, the second writes the file.
 */
export function writeStatement(file: string, count: number): number {
	const account = { iban: makeIban('FI', '12345600000785'), currency: 'EUR' };
	const date = new Date('2026-11-20T00:00:00Z');
	const slices = Math.ceil(count / 10_000);
	const pass = (write?: (text: string, slice: number) => void): number => {
		const prng = new Prng(20261123);
		let opening = 50_000_000;
		for (let slice = 0; slice < slices; slice++) {
			const size = Math.min(10_000, count - slice * 10_000);
			const { xml, closingCents } = camt053({ prng, account, date, sequence: 1, customerName: 'Bench Oy', customerId: 'BENCH', openingCents: opening, entries: size, detail: DETAIL });
			write?.(xml, slice);
			opening = closingCents;
		}
		return opening;
	};
	const closing = pass();
	const fd = openSync(file, 'w');
	try {
		pass((xml, slice) => {
			const end = xml.lastIndexOf('</Ntry>') + '</Ntry>'.length;
			if (slice === 0) {
				const head = xml
					.slice(0, end)
					.replace(
						/(<Cd>CL(?:BD|AV)<\/Cd><\/CdOrPrtry><\/Tp><Amt Ccy="EUR">)[^<]*(<\/Amt><CdtDbtInd>)[A-Z]*/g,
						`$1${(Math.abs(closing) / 100).toFixed(2)}$2${closing >= 0 ? 'CRDT' : 'DBIT'}`,
					);
				writeSync(fd, head);
			} else writeSync(fd, `\n      ${xml.slice(xml.indexOf('<Ntry>'), end)}`);
			if (slice === slices - 1) writeSync(fd, '\n    </Stmt>\n  </BkToCstmrStmt>\n</Document>\n');
		});
		return count;
	} finally {
		closeSync(fd);
	}
}

async function runWorker(worker: string, mode: string, file: string): Promise<WorkerResult> {
	const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', worker, mode, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
	child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
	const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
	const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
	if (!line) return { entries: 0, seconds: NaN, idleRss: 0, maxRss: 0, retainedHeap: 0, error: /Error: ([^\n]+)/.exec(stderr)?.[1] ?? `exit code ${code}` };
	return JSON.parse(line.slice(7)) as WorkerResult;
}

export async function run(): Promise<Record<string, unknown>> {
	const dir = mkdtempSync(path.join(tmpdir(), 'bench-statement-'));
	try {
		const file = path.join(dir, 'camt053-100k.xml');
		const entries = writeStatement(file, ENTRIES);
		const sizeMb = round(statSync(file).size / MIB, 1);
		const worker = await compile('bench/statementParseWorker.ts', 'statementParseWorker');
		const out: Record<string, unknown> = { entries, fileMb: sizeMb, runs: RUNS };
		const measured: Record<string, { seconds: number; peakOverIdleMb: number; retainedMb: number; copiedMb?: number; entriesPerSecond: number; error?: string }> = {};
		for (const mode of ['ours', 'fastXmlParser', 'camtParser']) {
			const results: WorkerResult[] = [];
			for (let i = 0; i < RUNS; i++) {
				const result = await runWorker(worker, mode, file);
				results.push(result);
				if (result.error) break;
			}
			const failed = results.find((r) => r.error);
			if (failed) {
				measured[mode] = { seconds: NaN, peakOverIdleMb: NaN, retainedMb: NaN, entriesPerSecond: NaN, error: failed.error };
				continue;
			}
			if (results.some((r) => r.entries !== entries)) throw new Error(`${mode} found ${results.map((r) => r.entries).join('/')} entries, not ${entries}`);
			const seconds = median(results.map((r) => r.seconds));
			measured[mode] = {
				seconds: round(seconds),
				entriesPerSecond: Math.round(entries / seconds),
				peakOverIdleMb: round(median(results.map((r) => (r.maxRss - r.idleRss) / MIB)), 1),
				retainedMb: round(median(results.map((r) => r.retainedHeap / MIB)), 1),
				...(results[0].copiedHeap !== undefined ? { copiedMb: round(median(results.map((r) => (r.copiedHeap ?? 0) / MIB)), 1) } : {}),
			};
		}
		const ours = measured.ours;
		out.entriesPerSecond = ours.entriesPerSecond;
		out.seconds = ours.seconds;
		out.peakRssOverIdleMb = ours.peakOverIdleMb;
		out.itemsMb = ours.retainedMb;
		out.itemsCopyMb = ours.copiedMb;
		out.memoryTargetMb = round(ours.retainedMb + 64, 1);
		out.memoryWithinTarget = ours.peakOverIdleMb <= ours.retainedMb + 64;
		out.fastXmlParser = measured.fastXmlParser;
		out.camtParser = measured.camtParser;
		out.ratioToFastXmlParser = round(ours.seconds / measured.fastXmlParser.seconds);
		out.ratioToCamtParser = Number.isFinite(measured.camtParser.seconds) ? round(ours.seconds / measured.camtParser.seconds) : null;
		return out;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
