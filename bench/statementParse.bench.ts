/**
 * `statementParse`: a camt.053 statement of 100,000 entries with the detail large banks give
 * (about 160 MB) parsed into items by the Bank File parser, against fast-xml-parser (whole file to
 * a plain object) and the npm package camt-parser; and an MT940 file of 100,000 entries (100
 * statements of 1,000, structured :86: as German banks write it) against the npm package mt940js;
 * and a BAI2 file of 100,000 details (100 accounts, text continued in 88 records) against the
 * lower bound of reading its lines and splitting them at the commas (no JavaScript BAI2 parser is
 * on npm to compare with); each parser in its own process, in the same run.
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
import { benchNode, median, round } from './common';
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

const BAI2_ACCOUNTS = 100;
const BAI2_PER_ACCOUNT = 1_000;

/**
 * Writes a BAI2 file of one group with `accounts` accounts of `perAccount` details each, as US
 * banks write them: opening and closing ledger, total credits (100) and debits (400) with their
 * counts, details of ACH, wire and check codes with funds types 0, V and S, bank and customer
 * references, text continued in an 88 record; every trailer's control total and count right.
 */
export function writeBai2(file: string, accounts: number, perAccount: number): number {
	const prng = new Prng(20261202);
	const fd = openSync(file, 'w');
	const codes = ['142', '165', '195', '451', '475', '495'];
	let fileTotal = 0;
	let groupRecords = 2;
	try {
		writeSync(fd, '01,BENCHBANK,BENCHCORP,261202,0400,1,,,2/\n02,BENCHCORP,121000248,1,261201,2400,USD,2/\n');
		for (let a = 0; a < accounts; a++) {
			const details: string[] = [];
			let credits = 0;
			let debits = 0;
			let creditCount = 0;
			for (let d = 0; d < perAccount; d++) {
				const code = codes[prng.int(0, codes.length - 1)];
				const cents = prng.int(100, 2_500_000);
				if (code < '400') {
					credits += cents;
					creditCount++;
				} else debits += cents;
				const n = a * perAccount + d + 1;
				const funds = d % 3 === 0 ? '0' : d % 3 === 1 ? 'V,261201,1300' : `S,${cents},0,0`;
				details.push(
					`16,${code},${cents},${funds},B${String(n).padStart(12, '0')},INV-${n},${code < '400' ? 'ACH CREDIT RECEIVED' : 'PAYMENT TO'} COUNTERPARTY ${n} INC, INVOICE ${n}`,
					`88,EREF: E2E-${n} REMI: INVOICE ${n} DATED 2026-11-${String((n % 28) + 1).padStart(2, '0')}`,
				);
			}
			const opening = prng.int(10_000_000, 900_000_000);
			const closing = opening + credits - debits;
			const head = `03,${String(1_000_000_000 + a)},USD,010,${opening},,,015,${closing},,,100,${credits},${creditCount},,400,${debits},${perAccount - creditCount},/`;
			const total = opening + closing + credits + debits + credits + debits;
			const records = 2 + details.length;
			writeSync(fd, `${head}\n${details.join('\n')}\n49,${total},${records}/\n`);
			fileTotal += total;
			groupRecords += records;
		}
		writeSync(fd, `98,${fileTotal},${accounts},${groupRecords}/\n99,${fileTotal},1,${groupRecords + 2}/\n`);
		return accounts * perAccount;
	} finally {
		closeSync(fd);
	}
}

async function runWorker(worker: string, mode: string, file: string): Promise<WorkerResult> {
	const child = spawn(benchNode(), ['--expose-gc', '--max-old-space-size=8192', worker, mode, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
		const bai2File = path.join(dir, 'bai2-100k.bai');
		const bai2Entries = writeBai2(bai2File, BAI2_ACCOUNTS, BAI2_PER_ACCOUNT);
		for (const mode of ['bai2Ours', 'bai2Lines']) {
			const results: WorkerResult[] = [];
			for (let i = 0; i < RUNS; i++) {
				const result = await runWorker(worker, mode, bai2File);
				results.push(result);
				if (result.error) break;
			}
			const failed = results.find((r) => r.error);
			if (failed) throw new Error(`${mode}: ${failed.error}`);
			if (results.some((r) => r.entries !== bai2Entries)) throw new Error(`${mode} found ${results.map((r) => r.entries).join('/')} entries, not ${bai2Entries}`);
			const seconds = median(results.map((r) => r.seconds));
			measured[mode] = {
				seconds: round(seconds),
				entriesPerSecond: Math.round(bai2Entries / seconds),
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
		const bai2 = measured.bai2Ours;
		out.bai2 = {
			entries: bai2Entries,
			accounts: BAI2_ACCOUNTS,
			fileMb: round(statSync(bai2File).size / MIB, 1),
			entriesPerSecond: bai2.entriesPerSecond,
			seconds: bai2.seconds,
			peakRssOverIdleMb: bai2.peakOverIdleMb,
			itemsMb: bai2.retainedMb,
			itemsCopyMb: bai2.copiedMb,
			memoryTargetMb: round(bai2.retainedMb + 64, 1),
			memoryWithinTarget: bai2.peakOverIdleMb <= bai2.retainedMb + 64,
			linesAndCommas: measured.bai2Lines,
			ratioToLinesAndCommas: round(bai2.seconds / measured.bai2Lines.seconds),
		};
		return out;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
