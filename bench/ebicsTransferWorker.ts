/**
 * One side of the ebicsTransfer benchmark, run in its own process so that its memory is measured
 * alone (the sandbox bank runs in another process): an upload, then a download, of `size` bytes
 * by one client. Prints `RESULT {json}` as its last line.
 *
 * - node: the EBICS node through n8n's engine with binary data on the filesystem: Read File (the
 *   file streamed into binary storage) -> EBICS upload (BTU, custom service, schema check off),
 *   then EBICS download (BTD) -> Hash (outside the timing). Upload and download seconds are the
 *   node's own execution times.
 * - lowerBound: the same bytes through the transfer's transforms alone, nothing else: upload =
 *   the file read, deflated, encrypted (AES-128-CBC) and base64-coded segment by segment; download
 *   = base64 segments (prepared before the timing) decoded, decrypted and inflated.
 *
 * The process's resident memory is sampled every 10 ms during the measured pair, over its idle
 * level after a warm-up pair of `warmupSize` bytes, a garbage collection and half a second of rest.
 */
import '../test/harness/env';

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, openSync, readFileSync, readSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as perfConstants, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflate, createInflate } from 'node:zlib';

import { chainWorkflow, createCredentialStore, runWorkflow, type ChainStep, type RunResult } from '../test/harness/engine';
import { InspectFile } from '../test/helpers/binaryNodes';
import { phasePeakRss, ReadFile, reportMeasured, runMain, sha256, type TransferTiming } from './workerCommon';
import { EBICS, PACKAGE, packageCredentialTypes, packageNodeTypes } from '../test/helpers/nodes';

interface Settings {
	client: 'node' | 'lowerBound';
	file: string;
	size: number;
	/** SHA-256 of the file the bank delivers for the measured download (seeded by the parent). */
	downloadSha256: string;
	warmupFile: string;
	warmupDownloadSha256: string;
	credentials: Record<string, unknown>;
	/** The sandbox bank's process ID: its CPU time during each transfer is reported. */
	bankPid?: number;
}

/** CPU seconds (user and system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid: number | undefined): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		// utime and stime (fields 14 and 15 of stat), in clock ticks of 1/100 s.
		return (Number(fields[11]) + Number(fields[12])) / 100;
	} catch {
		return NaN;
	}
}

/** V8's collections as Node reports them (`gc` performance entries, delivered after each). */
const collections: PerformanceEntry[] = [];
const collectionObserver = new PerformanceObserver((list) => collections.push(...list.getEntries()));
collectionObserver.observe({ entryTypes: ['gc'] });

/** What a direction used besides its time: CPU seconds, full collections and their pauses. */
interface Used {
	cpuS: number;
	fullGcs: number;
	fullGcMs: number;
}

/**
 * The peak resident memory while `work` runs (seen by the measuring sampler, every 10 ms); `used`
 * gets the process's CPU seconds and the full collections that started meanwhile.
 */
async function peakDuring(work: () => Promise<void>, used?: Used): Promise<number> {
	phasePeakRss.value = process.memoryUsage.rss();
	const before = process.cpuUsage();
	const start = performance.now();
	await work();
	const end = performance.now();
	const cpu = process.cpuUsage(before);
	// The entries of the last collections come after the current turn.
	await new Promise((resolve) => setImmediate(resolve));
	collections.push(...collectionObserver.takeRecords());
	if (used) {
		used.cpuS = (cpu.user + cpu.system) / 1e6;
		const full = collections.filter(
			(entry) =>
				entry.startTime >= start &&
				entry.startTime <= end &&
				(entry as unknown as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR,
		);
		used.fullGcs = full.length;
		used.fullGcMs = full.reduce((sum, entry) => sum + entry.duration, 0);
	}
	collections.length = 0;
	return Math.max(phasePeakRss.value, process.memoryUsage.rss());
}

/** The `TransferTiming` fields of what the upload and the download used. */
function usedFields(upload: Used, download: Used): Partial<TransferTiming> {
	return {
		uploadCpuS: upload.cpuS,
		downloadCpuS: download.cpuS,
		uploadFullGcs: upload.fullGcs,
		downloadFullGcs: download.fullGcs,
		uploadFullGcMs: upload.fullGcMs,
		downloadFullGcMs: download.fullGcMs,
	};
}

const unused = (): Used => ({ cpuS: NaN, fullGcs: NaN, fullGcMs: NaN });

const SEGMENT = 786_432;
const ZERO_IV = Buffer.alloc(16);


async function run(settings: Settings, steps: ChainStep[], what: string): Promise<RunResult> {
	const type = `${PACKAGE}.ebics`;
	const result = await runWorkflow({
		workflow: chainWorkflow(steps, { [type]: { [EBICS]: { id: 'ebics', name: 'EBICS' } } }),
		nodeTypes: { ...packageNodeTypes(), 'bench.readFile': new ReadFile(), 'bench.hashFile': new InspectFile() },
		credentialTypes: packageCredentialTypes(),
		credentials: createCredentialStore([{ id: 'ebics', name: 'EBICS', type: EBICS, data: settings.credentials as never }]),
		binaryDataMode: 'filesystem',
	});
	if (result.status !== 'success') throw new Error(`the ${what} failed: ${result.error?.message ?? 'unknown error'} ${(result.error as { description?: string })?.description ?? ''}`);
	return result;
}

async function nodePair(settings: Settings, file: string, downloadSha256: string): Promise<TransferTiming> {
	const type = `${PACKAGE}.ebics`;
	let up!: RunResult;
	let down!: RunResult;
	const bankBefore = cpuSeconds(settings.bankPid);
	const uploadUsed = unused();
	const downloadUsed = unused();
	const uploadPeakRss = await peakDuring(async () => {
		up = await run(
		settings,
		[
			{ name: 'Read', type: 'bench.readFile', parameters: { path: file } },
			{ name: 'Upload', type, parameters: { operation: 'upload', uploadService: 'custom', serviceName: 'SCT', msgName: 'pain.001', options: { checkSchema: false } } },
		],
		'upload',
	);
	}, uploadUsed);
	const bankBetween = cpuSeconds(settings.bankPid);
	const downloadPeakRss = await peakDuring(async () => {
		down = await run(
		settings,
		[
			{ name: 'Download', type, parameters: { operation: 'download', downloadService: 'mt942' } },
			{ name: 'Hash', type: 'bench.hashFile', parameters: {} },
		],
		'download',
	);
	}, downloadUsed);
	const bankAfter = cpuSeconds(settings.bankPid);
	const got = down.output('Hash')[0].json.sha256;
	if (got !== downloadSha256) throw new Error(`the downloaded file differs (${String(got)} instead of ${downloadSha256})`);
	const seconds = (result: RunResult, name: string) => (result.runData[name]?.[0]?.executionTime ?? NaN) / 1000;
	return {
		uploadS: seconds(up, 'Upload'),
		downloadS: seconds(down, 'Download'),
		uploadPeakRss,
		downloadPeakRss,
		uploadBankCpuS: bankBetween - bankBefore,
		downloadBankCpuS: bankAfter - bankBetween,
		...usedFields(uploadUsed, downloadUsed),
	};
}

/** Upload lower bound: read, deflate, AES-128-CBC, base64 per segment; nothing kept. */
async function lowerUpload(file: string): Promise<void> {
	const cipher = createCipheriv('aes-128-cbc', randomBytes(16), ZERO_IV);
	let pending: Buffer = Buffer.alloc(0);
	let base64Chars = 0;
	const encrypt = new Transform({
		transform(chunk: Buffer, _e, done) {
			done(null, cipher.update(chunk));
		},
		flush(done) {
			done(null, cipher.final());
		},
	});
	const segments = new Writable({
		write(chunk: Buffer, _e, done) {
			pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
			while (pending.length >= SEGMENT) {
				base64Chars += pending.toString('base64', 0, SEGMENT).length;
				pending = pending.subarray(SEGMENT);
			}
			done();
		},
		final(done) {
			base64Chars += pending.toString('base64').length;
			done();
		},
	});
	await pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), createDeflate({ chunkSize: 256 * 1024 }), encrypt, segments);
	if (!base64Chars) throw new Error('nothing was coded');
}

/** Prepares what the download lower bound decodes: the file deflated, encrypted and base64-coded. */
async function prepareDownload(file: string, out: string, key: Buffer): Promise<void> {
	const cipher = createCipheriv('aes-128-cbc', key, ZERO_IV);
	let pending: Buffer = Buffer.alloc(0);
	const sink = createWriteStream(out);
	const toBase64 = new Transform({
		transform(chunk: Buffer, _e, done) {
			pending = Buffer.concat([pending, cipher.update(chunk)]);
			const whole = pending.length - (pending.length % 3);
			const text = pending.toString('base64', 0, whole);
			pending = pending.subarray(whole);
			done(null, text);
		},
		flush(done) {
			done(null, Buffer.concat([pending, cipher.final()]).toString('base64'));
		},
	});
	await pipeline(createReadStream(file, { highWaterMark: 256 * 1024 }), createDeflate({ chunkSize: 256 * 1024 }), toBase64, sink);
}

/** Download lower bound: base64 segments decoded, decrypted and inflated; nothing kept. */
async function lowerDownload(base64File: string, key: Buffer, expected: string): Promise<void> {
	const decipher = createDecipheriv('aes-128-cbc', key, ZERO_IV);
	const fd = openSync(base64File, 'r');
	const hash = createHash('sha256');
	const piece = Buffer.allocUnsafe(SEGMENT / 3 * 4);
	async function* segments(): AsyncGenerator<Buffer> {
		for (;;) {
			const read = readSync(fd, piece, 0, piece.length, null);
			if (read === 0) break;
			yield decipher.update(Buffer.from(piece.toString('latin1', 0, read), 'base64'));
		}
		yield decipher.final();
	}
	try {
		await pipeline(segments(), createInflate({ chunkSize: 256 * 1024 }), new Writable({
			write(chunk: Buffer, _e, done) {
				hash.update(chunk);
				done();
			},
		}));
	} finally {
		closeSync(fd);
	}
	if (hash.digest('hex') !== expected) throw new Error('the lower bound decoded other bytes');
}


async function main(): Promise<void> {
	const settings = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Settings;
	const key = randomBytes(16);
	const base64File = join(tmpdir(), `bench-ebics-${process.pid}.b64`);
	const lowerPair = async (file: string): Promise<TransferTiming> => {
		// Untimed: what the download decodes (the same bytes the upload codes).
		await prepareDownload(file, base64File, key);
		const expected = await sha256(file);
		let uploadS = 0;
		let downloadS = 0;
		const uploadUsed = unused();
		const downloadUsed = unused();
		const uploadPeakRss = await peakDuring(async () => {
			const start = process.hrtime.bigint();
			await lowerUpload(file);
			uploadS = Number(process.hrtime.bigint() - start) / 1e9;
		}, uploadUsed);
		const downloadPeakRss = await peakDuring(async () => {
			const start = process.hrtime.bigint();
			await lowerDownload(base64File, key, expected);
			downloadS = Number(process.hrtime.bigint() - start) / 1e9;
		}, downloadUsed);
		rmSync(base64File, { force: true });
		return { uploadS, downloadS, uploadPeakRss, downloadPeakRss, ...usedFields(uploadUsed, downloadUsed) };
	};
	const pair = async (file: string, downloadSha256: string) =>
		settings.client === 'node' ? await nodePair(settings, file, downloadSha256) : await lowerPair(file);
	await reportMeasured(
		async () => void (await pair(settings.warmupFile, settings.warmupDownloadSha256)),
		async () => await pair(settings.file, settings.downloadSha256),
		() => rmSync(base64File, { force: true }),
	);
}

runMain(main);
