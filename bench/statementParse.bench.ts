/**
 * `statementParse`: a camt.053 statement of 100,000 entries with the detail large banks give
 * (about 160 MB) parsed into items by the Bank File parser, against fast-xml-parser (whole file to
 * a plain object) and the npm package camt-parser; and an MT940 file of 100,000 entries (100
 * statements of 1,000, structured :86: as German banks write it) against the npm package mt940js;
 * each parser in its own process, in the same run.
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

const MT940_STATEMENTS = 100;
const MT940_PER_STATEMENT = 1_000;

/** A German bank's structured :86: purpose: each item on 27-character lines, ?20, ?21, ... */
function purposeFields(items: string[]): string {
	const lines = items.flatMap((item) => item.match(/.{1,27}/g) ?? []);
	return lines.map((line, i) => `?${20 + i}${line}`).join('');
}

/** A :86: field wrapped at 65 characters per line, as SWIFT writes it. */
function wrap65(text: string): string {
	const lines: string[] = [];
	for (let i = 0; i < text.length; i += 65) lines.push(text.slice(i, i + 65));
	return lines.join('\r\n');
}

const amount = (cents: number): string => `${Math.floor(Math.abs(cents) / 100)},${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/**
 * Writes MT940 statements of one account (ISO-8859-1, CRLF), each in its SWIFT envelope, every
 * entry with a structured :86: (GVC, booking text, EREF+ / SVWZ+ purpose, BIC, IBAN, name).
 */
export function writeMt940(file: string, statements: number, perStatement: number): number {
	const prng = new Prng(20261126);
	const fd = openSync(file, 'w');
	let balance = 1_000_000_00;
	try {
		for (let s = 0; s < statements; s++) {
			const day = new Date(Date.UTC(2026, 0, 2 + s));
			const yymmdd = day.toISOString().slice(2, 10).replace(/-/g, '');
			const mmdd = yymmdd.slice(2);
			const lines: string[] = [
				'{1:F01COBADEFFAXXX0000000000}{2:O9401630' + yymmdd + 'COBADEFFAXXX0000000000' + yymmdd + '1630N}{4:',
				':20:STARTUMSE',
				':25:37040044/0532013000',
				`:28C:${String(s + 1).padStart(5, '0')}/001`,
				`:60F:${balance >= 0 ? 'C' : 'D'}${yymmdd}EUR${amount(balance)}`,
			];
			for (let e = 0; e < perStatement; e++) {
				const credit = prng.next() < 0.6;
				const cents = prng.int(100, 2_500_000);
				balance += credit ? cents : -cents;
				const n = s * perStatement + e + 1;
				const iban = makeIban('DE', `37040044${String(prng.int(1, 9_999_999_999)).padStart(10, '0')}`);
				lines.push(`:61:${yymmdd}${mmdd}${credit ? 'C' : 'D'}R${amount(cents)}NTRFNONREF//B${String(n).padStart(12, '0')}`);
				const gvc = credit ? '166?00GUTSCHR. UEBERWEISUNG' : '116?00SEPA-UEBERWEISUNG';
				const purpose = purposeFields([`EREF+INV-${n}`, `SVWZ+Rechnung ${n} vom ${day.toISOString().slice(0, 10)} Kunde ${prng.int(1000, 9999)}`]);
				lines.push(wrap65(`:86:${gvc}?100931${purpose}?30COBADEFFXXX?31${iban}?32Firma ${n} Handels GmbH?34997`));
			}
			lines.push(`:62F:${balance >= 0 ? 'C' : 'D'}${yymmdd}EUR${amount(balance)}`, '-}');
			writeSync(fd, Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1'));
		}
		return statements * perStatement;
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
		const mt940File = path.join(dir, 'mt940-100k.sta');
		const mt940Entries = writeMt940(mt940File, MT940_STATEMENTS, MT940_PER_STATEMENT);
		for (const mode of ['mt940Ours', 'mt940js']) {
			const results: WorkerResult[] = [];
			for (let i = 0; i < RUNS; i++) {
				const result = await runWorker(worker, mode, mt940File);
				results.push(result);
				if (result.error) break;
			}
			const failed = results.find((r) => r.error);
			if (failed) throw new Error(`${mode}: ${failed.error}`);
			if (results.some((r) => r.entries !== mt940Entries)) throw new Error(`${mode} found ${results.map((r) => r.entries).join('/')} entries, not ${mt940Entries}`);
			const seconds = median(results.map((r) => r.seconds));
			measured[mode] = {
				seconds: round(seconds),
				entriesPerSecond: Math.round(mt940Entries / seconds),
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
		const mt940 = measured.mt940Ours;
		out.mt940 = {
			entries: mt940Entries,
			statements: MT940_STATEMENTS,
			fileMb: round(statSync(mt940File).size / MIB, 1),
			entriesPerSecond: mt940.entriesPerSecond,
			seconds: mt940.seconds,
			peakRssOverIdleMb: mt940.peakOverIdleMb,
			itemsMb: mt940.retainedMb,
			itemsCopyMb: mt940.copiedMb,
			memoryTargetMb: round(mt940.retainedMb + 64, 1),
			memoryWithinTarget: mt940.peakOverIdleMb <= mt940.retainedMb + 64,
			mt940js: measured.mt940js,
			ratioToMt940js: round(mt940.seconds / measured.mt940js.seconds),
		};
		return out;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
