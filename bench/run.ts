/**
 * `npm run bench`: runs every benchmark (each with its baseline in the same run), merges the
 * results into bench/results.json and prints one table.
 */
import '../test/harness/env';

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

type Bench = { name: string; file: string; targets: (r: Record<string, unknown>) => string };

const BENCHES: Bench[] = [
	{
		name: 'fxReportReturnAll',
		file: './fxReport.bench',
		targets: (r) => `ratio ${r.ratio} (target <= 1.2), tokenRequests ${r.tokenRequests} (target 1)`,
	},
	{
		name: 'eventTrigger',
		file: './eventTrigger.bench',
		targets: (r) => `${r.eventsPerSecond} events/s (target >= 5000), ratio ${r.ratio} (target <= 1.3)`,
	},
	{
		name: 'fileService',
		file: './fileService.bench',
		targets: (r) => JSON.stringify(r),
	},
	{
		name: 'danskeDownload',
		file: './danske.bench',
		targets: (r) =>
			(r.sizes as number[])
				.map((size) => {
					const row = r[String(size)] as Record<string, number>;
					return `${size} MiB encrypted: ${row.encryptedDownloadS} s, ratio ${row.ratio} to unencrypted (target <= 1.5), peak RSS over idle ${row.encryptedPeakRssMb} MiB (target < 64)`;
				})
				.join('; '),
	},
	{
		name: 'ebicsTransfer',
		file: './ebicsTransfer.bench',
		targets: (r) =>
			(r.sizes as number[])
				.map((size) => {
					const row = r[String(size)] as Record<string, number>;
					return `${size} MiB: upload ${row.uploadS} s + download ${row.downloadS} s, ratio ${row.ratioToLowerBound} to the lower bound (target <= 1.3), peak RSS over idle ${row.peakRssMb} MiB (target < 64)`;
				})
				.join('; '),
	},
	{
		name: 'statementParse',
		file: './statementParse.bench',
		targets: (r) =>
			`${r.entriesPerSecond} entries/s, ratio ${r.ratioToFastXmlParser} to fast-xml-parser and ${r.ratioToCamtParser} to camt-parser (target < 1), ` +
			`peak RSS over idle ${r.peakRssOverIdleMb} MB for ${r.itemsMb} MB of items (target <= ${r.memoryTargetMb}); ` +
			`MT940: ${(r.mt940 as Record<string, unknown>).entriesPerSecond} entries/s, ratio ${(r.mt940 as Record<string, unknown>).ratioToMt940js} to mt940js (target < 1), ` +
			`peak RSS over idle ${(r.mt940 as Record<string, unknown>).peakRssOverIdleMb} MB for ${(r.mt940 as Record<string, unknown>).itemsMb} MB of items (target <= ${(r.mt940 as Record<string, unknown>).memoryTargetMb}); ` +
			`BAI2: ${(r.bai2 as Record<string, unknown>).entriesPerSecond} entries/s, ratio ${(r.bai2 as Record<string, unknown>).ratioToLinesAndCommas} to splitting its lines at the commas, ` +
			`peak RSS over idle ${(r.bai2 as Record<string, unknown>).peakRssOverIdleMb} MB for ${(r.bai2 as Record<string, unknown>).itemsMb} MB of items (target <= ${(r.bai2 as Record<string, unknown>).memoryTargetMb})`,
	},
];

async function main(): Promise<void> {
	const only = process.argv.slice(2);
	const resultsFile = path.join(__dirname, 'results.json');
	const results: Record<string, unknown> = existsSync(resultsFile) ? JSON.parse(readFileSync(resultsFile, 'utf8')) : {};
	const rows: string[] = [];
	for (const bench of BENCHES) {
		if (only.length && !only.includes(bench.name)) continue;
		const modulePath = path.join(__dirname, `${bench.file}.ts`);
		if (!existsSync(modulePath)) {
			rows.push(`${bench.name.padEnd(20)} not available`);
			continue;
		}
		console.log(`running ${bench.name} ...`);
		const mod = (await import(modulePath)) as { run: () => Promise<Record<string, unknown>> };
		const result = await mod.run();
		results[bench.name] = { ...result, measuredAt: new Date().toISOString(), node: process.version };
		writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
		rows.push(`${bench.name.padEnd(20)} ${bench.targets(result)}`);
	}
	console.log(`\nbenchmark            result\n${rows.join('\n')}\n\nwritten to bench/results.json`);
}

void main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
