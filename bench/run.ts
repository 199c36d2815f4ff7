/**
 * `npm run bench`: runs every benchmark (each with its baseline in the same run), merges the
 * results into bench/results.json and prints one table of every benchmark's last figures: its
 * ratio against its baseline or peer, its memory, its target, met or not (docs/performance.md
 * opens with the same table). `npm run bench -- fileService` runs one; `-- --summary` only
 * prints the table.
 */
import '../test/harness/env';

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { benchNode } from './common';

type Bench = { name: string; file: string };

const BENCHES: Bench[] = [
	{ name: 'fxReportReturnAll', file: './fxReport.bench' },
	{ name: 'eventTrigger', file: './eventTrigger.bench' },
	{ name: 'fileService', file: './fileService.bench' },
	{ name: 'danskeDownload', file: './danske.bench' },
	{ name: 'ebicsTransfer', file: './ebicsTransfer.bench' },
	{ name: 'statementParse', file: './statementParse.bench' },
	{ name: 'sftpTransfer', file: './sftpTransfer.bench' },
];

type Result = Record<string, unknown>;
/** One line of the summary: what was measured, against what, the ratio, the memory, the target and whether it is met. */
export interface SummaryRow {
	benchmark: string;
	measured: string;
	against: string;
	ratio: string;
	memory: string;
	target: string;
	met: boolean | undefined;
	date: string;
}

const fixed = (n: unknown, digits = 2): string => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '—');
const mib = (n: unknown): string => (typeof n === 'number' && Number.isFinite(n) ? `+${n.toFixed(1)} MiB` : '—');
const sizeName = (size: number): string => (size >= 1024 ? `${size / 1024} GiB` : `${size} MiB`);

/** The summary rows of one benchmark's results (as bench/results.json holds them). */
function rowsOf(name: string, r: Result): Array<Omit<SummaryRow, 'benchmark' | 'date'>> {
	const sizes = (r.sizes as number[] | undefined) ?? [];
	const at = (size: number) => r[String(size)] as Record<string, number> & Result;
	switch (name) {
		case 'fxReportReturnAll':
			return [{ measured: `${Number(r.trades).toLocaleString('en')} trades, Return All`, against: 'keep-alive HTTPS loop', ratio: fixed(r.ratio), memory: '—', target: 'ratio <= 1.2, 1 token request', met: Number(r.ratio) <= 1.2 && r.tokenRequests === 1 }];
		case 'eventTrigger':
			return [{ measured: `${Number(r.events).toLocaleString('en')} signed events (${r.eventsPerSecond}/s)`, against: 'mutual-TLS loop verifying with jose', ratio: fixed(r.ratio), memory: '—', target: '>= 5,000 events/s, ratio <= 1.3', met: Number(r.eventsPerSecond) >= 5000 && Number(r.ratio) <= 1.3 }];
		case 'fileService':
			return sizes.flatMap((size) => {
				const s = at(size);
				const rows = [{ measured: `${sizeName(size)} round trip`, against: 'streaming lower bound', ratio: fixed(s.ratioToLowerBound), memory: mib(s.peakRssMb), target: 'peak < 64 MiB', met: s.peakRssMb < 64 }];
				if (s.signedUploadRatio !== undefined)
					rows.push({ measured: `${sizeName(size)} signed upload (CPU ratio ${fixed(s.signedUploadCpuRatio)}; round trip ${fixed(s.signedRatio)})`, against: 'the same upload unsigned', ratio: fixed(s.signedUploadRatio), memory: mib(s.signedPeakRssMb), target: 'ratio <= 1.2, peak < 64 MiB', met: s.signedUploadRatio <= 1.2 && s.signedPeakRssMb < 64 });
				return rows;
			});
		case 'danskeDownload':
			return sizes.map((size) => {
				const s = at(size);
				return { measured: `${sizeName(size)} encrypted download`, against: 'the same download unencrypted', ratio: fixed(s.ratio), memory: mib(s.encryptedPeakRssMb), target: 'ratio <= 1.5, peak < 64 MiB', met: s.ratio <= 1.5 && s.encryptedPeakRssMb < 64 };
			});
		case 'ebicsTransfer': {
			const rows: Array<Omit<SummaryRow, 'benchmark' | 'date'>> = sizes.flatMap((size) => {
				const s = at(size);
				if (s.ratioToPairUpload === undefined) return [];
				return (['Upload', 'Download'] as const).map((direction) => {
					const ratio = s[`ratioToPair${direction}`];
					const memory = s[`${direction.toLowerCase()}PeakRssMb`];
					return { measured: `${sizeName(size)} ${direction.toLowerCase()} (H005)`, against: 'minimal client + bank pair', ratio: fixed(ratio), memory: mib(memory), target: 'ratio <= 1.3, peak < 64 MiB', met: ratio <= 1.3 && memory < 64 };
				});
			});
			const peer = r.peer as (Result & Record<string, number>) | undefined;
			if (peer)
				for (const direction of ['Upload', 'Download'] as const) {
					const ratio = peer[`ratioToPeer${direction}`];
					const rss = peer[`rssRatioToPeer${direction}`];
					const carried = peer[`peer${direction}Mib`];
					const short = carried !== undefined && carried < Number(peer.sizeMib);
					const measured = short ? `${direction.toLowerCase()} (H004) at ${sizeName(carried)}: ebics-client fails at ${sizeName(Number(peer.sizeMib))}` : `${sizeName(Number(peer.sizeMib))} ${direction.toLowerCase()} (H004)`;
					rows.push({ measured, against: `ebics-client ${String(peer.peerVersion ?? '')}`.trim(), ratio: fixed(ratio), memory: `${mib(peer[`node${direction}PeakRssMb`])} (${fixed(rss)} of the peer's)`, target: 'faster (< 1), less memory (< 1)', met: ratio < 1 && rss < 1 });
				}
			return rows;
		}
		case 'sftpTransfer':
			return sizes.flatMap((size) => {
				const s = at(size);
				if (s.ratioToLowerBoundUpload === undefined) return [];
				return (['Upload', 'Download'] as const).flatMap((direction) => {
					const ratio = s[`ratioToLowerBound${direction}`];
					const memory = s[`${direction.toLowerCase()}PeakRssOverIdleMiB`];
					const rows: Array<Omit<SummaryRow, 'benchmark' | 'date'>> = [{ measured: `${sizeName(size)} ${direction === 'Upload' ? 'upload, signed and encrypted' : 'download, decrypted and verified'}`, against: 'OpenSSH sftp + gpg', ratio: fixed(ratio), memory: mib(memory), target: 'ratio <= 1.2, peak < 64 MiB', met: ratio <= 1.2 && memory < 64 }];
					const n8n = s[`ratioToN8nSftp${direction}`];
					if (n8n !== undefined) rows.push({ measured: `${sizeName(size)} ${direction.toLowerCase()} (with OpenPGP)`, against: "n8n's SFTP node (transfer only)", ratio: fixed(n8n), memory: `${mib(memory)} (n8n's node: ${mib(s.n8nSftpPeakRssOverIdleMiB)})`, target: '— (comparison)', met: undefined });
					return rows;
				});
			});
		case 'statementParse': {
			const mt = r.mt940 as Record<string, number>;
			const bai2 = r.bai2 as Record<string, number> | undefined;
			return [
				{ measured: `camt.053, ${Number(r.entries).toLocaleString('en')} entries`, against: 'fast-xml-parser / camt-parser', ratio: `${fixed(r.ratioToFastXmlParser)} / ${fixed(r.ratioToCamtParser)}`, memory: `+${fixed(r.peakRssOverIdleMb, 1)} MB for ${fixed(r.itemsMb, 1)} MB of items`, target: `ratios < 1, peak <= items + 64 MB`, met: Number(r.ratioToFastXmlParser) < 1 && Number(r.ratioToCamtParser) < 1 && r.memoryWithinTarget === true },
				...(mt ? [{ measured: `MT940, ${Number(mt.entries).toLocaleString('en')} entries`, against: 'mt940js', ratio: fixed(mt.ratioToMt940js), memory: `+${fixed(mt.peakRssOverIdleMb, 1)} MB for ${fixed(mt.itemsMb, 1)} MB of items`, target: 'ratio < 1, peak <= items + 64 MB', met: mt.ratioToMt940js < 1 && (mt as unknown as Result).memoryWithinTarget === true }] : []),
				...(bai2 ? [{ measured: `BAI2, ${Number(bai2.entries).toLocaleString('en')} details`, against: 'its lines split at the commas', ratio: fixed(bai2.ratioToLinesAndCommas), memory: `+${fixed(bai2.peakRssOverIdleMb, 1)} MB for ${fixed(bai2.itemsMb, 1)} MB of items`, target: 'peak <= items + 64 MB (no BAI2 parser on npm to compare with)', met: (bai2 as unknown as Result).memoryWithinTarget === true }] : []),
			];
		}
		default:
			return [];
	}
}

/** The summary of every benchmark in bench/results.json, as a Markdown table. */
export function summaryTable(results: Result): string {
	const rows: SummaryRow[] = [];
	for (const bench of BENCHES) {
		const r = results[bench.name] as Result | undefined;
		if (!r) continue;
		for (const row of rowsOf(bench.name, r)) rows.push({ benchmark: bench.name, date: `${String(r.measuredAt ?? '').slice(0, 10)}, Node ${String(r.processNode ?? r.node ?? '').replace(/^v(\d+).*/, '$1')}`, ...row });
	}
	const lines = [
		'| benchmark | measured | against | ratio | peak RSS over idle | target | met | measured on |',
		'|---|---|---|---|---|---|---|---|',
		...rows.map((row) => `| \`${row.benchmark}\` | ${row.measured} | ${row.against} | ${row.ratio} | ${row.memory} | ${row.target} | ${row.met === undefined ? '—' : row.met ? 'met' : '**not met**'} | ${row.date} |`),
	];
	return lines.join('\n');
}

async function main(): Promise<void> {
	const only = process.argv.slice(2);
	const resultsFile = path.join(__dirname, 'results.json');
	const results: Record<string, unknown> = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
	if (only.includes('--summary')) {
		console.log(summaryTable(results));
		return;
	}
	// The processes a benchmark starts run on the Node.js n8n itself needs (installed once, as for
	// the end-to-end tests), unless BENCH_NODE names another.
	if (!process.env.BENCH_NODE) {
		const { ensureNode24 } = await import('../test/e2e/lib/install');
		process.env.BENCH_NODE = ensureNode24().node;
	}
	const processNode = spawnSync(benchNode(), ['--version'], { encoding: 'utf8' }).stdout.trim();
	console.log(`benchmark processes on Node.js ${processNode} (${benchNode()})`);
	for (const bench of BENCHES) {
		if (only.length && !only.includes(bench.name)) continue;
		const modulePath = path.join(__dirname, `${bench.file}.ts`);
		if (!existsSync(modulePath)) continue;
		console.log(`running ${bench.name} ...`);
		const mod = (await import(modulePath)) as { run: () => Promise<Record<string, unknown>> };
		const result = await mod.run();
		results[bench.name] = { ...result, measuredAt: new Date().toISOString(), node: process.version, processNode };
		writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
	}
	// Every benchmark's last figures, the ones not run now with the date they were measured.
	console.log(`\n${summaryTable(results)}\n\nwritten to bench/results.json (\`npm run bench -- --summary\` prints this table again)`);
}

void main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
