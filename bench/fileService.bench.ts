/**
 * fileService: a round trip (upload, then download of the same file) of 100 MiB and of 1 GiB
 * through the Corporate File Service node, run by n8n's engine with binary data on the
 * filesystem, against the sandbox bank in its own process. In the same run, as baselines:
 *
 * - the streaming lower bound: plain node streams speaking the same protocol, nothing else;
 * - the naive string approach: the message built as one string, the answer given whole to
 *   fast-xml-parser (expected to fail at 1 GiB: V8 strings stop at about 512 MiB).
 *
 * Every client runs in its own child process (bench/fileServiceWorker.ts, compiled, under
 * /usr/bin/time -v), so its peak resident memory is its own, measured over the same process idle
 * after two warm-up round trips of 32 MiB. The comparison is unsigned and uncompressed (the lower bound neither signs nor
 * packs); the node is also measured signing its requests and verifying the bank's signatures.
 *
 * Per size: wallS (upload + download seconds, median), peakRssMb (peak RSS over the idle
 * process, MiB), ratioToLowerBound, signedRatio (the signed round trip over the unsigned one)
 * and signedUploadRatio (the signed upload over the unsigned one), naiveOk, and the details
 * behind them. `BENCH_FILESERVICE_SIZES=100` runs only the sizes given (MiB, comma-separated).
 */
import { spawn } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { benchNode, median, round } from './common';
import { compile, ROOT, startCompiledSandbox } from './compiled';
import type { BankTarget } from './fileServiceClients';
import type { SandboxProcess } from './sandboxProcess';
import type { TransferTiming } from './workerCommon';

const FILES = 'corporateBankingFileServiceApi';
const MIB = 1024 * 1024;
/** File sizes in MiB. */
const SIZES = [100, 1024] as const;
/** Repetitions per size (medians); the large size once. */
const REPS: Record<number, number> = { 100: 5, 1024: 1 };
/** Signed round trips per size (medians), alternating with the unsigned ones. */
const SIGNED_REPS: Record<number, number> = { 100: 3, 1024: 1 };
/** The warm-up file: each client process makes two round trips with it before the measured one. */
const WARMUP_MIB = 32;

type Client = 'node' | 'lowerBound' | 'naive';

export interface Measured {
	ok: boolean;
	error?: string;
	uploadS?: number;
	downloadS?: number;
	/** Seconds of upload plus download. */
	wallS?: number;
	/** Peak resident memory of the process over its idle level, MiB. */
	peakRssMb?: number;
	idleRssMb?: number;
	maxRssMb?: number;
	/** Peak resident memory over the idle level during the upload and during the download, MiB (when the worker reports them). */
	uploadPeakRssMb?: number;
	downloadPeakRssMb?: number;
	/** CPU seconds of the bank process during the upload and during the download (when reported). */
	uploadBankCpuS?: number;
	downloadBankCpuS?: number;
	uploadCpuS?: number;
	downloadCpuS?: number;
	/** Full collections of V8 on the worker's main thread during each direction, and their pauses in ms (when reported). */
	uploadFullGcs?: number;
	downloadFullGcs?: number;
	uploadFullGcMs?: number;
	downloadFullGcMs?: number;
}

export interface SizeResult {
	wallS: number;
	peakRssMb: number;
	ratioToLowerBound: number;
	naiveOk: boolean;
	uploadS: number;
	downloadS: number;
	lowerBoundWallS: number;
	lowerBoundUploadS: number;
	lowerBoundDownloadS: number;
	lowerBoundPeakRssMb: number;
	/** The signed round trip (requests signed, the bank's answers verified) over the unsigned one. */
	signedRatio: number;
	/** The signed upload over the unsigned upload (target <= 1.2). */
	signedUploadRatio: number;
	/**
	 * The same in CPU seconds of the node's process and the bank's during the upload, which the
	 * machine's load changes far less than wall time.
	 */
	signedUploadCpuRatio: number;
	uploadCpuS: number;
	uploadBankCpuS: number;
	signedUploadCpuS: number;
	signedUploadBankCpuS: number;
	/** The machine's 1-minute load average before and after the size's runs (2 cores). */
	loadAverage: [number, number];
	signedWallS: number;
	signedUploadS: number;
	signedDownloadS: number;
	signedPeakRssMb: number;
	signedRuns: number;
	naiveWallS?: number;
	naiveMaxRssMb?: number;
	naiveError?: string;
	idleRssMb: number;
	runs: number;
}

export interface FileServiceResult {
	sizes: number[];
	[size: string]: SizeResult | number[] | string;
}

/** Writes `mib` MiB of random bytes (gzip cannot shrink them) and returns their SHA-256. */
export function makeFile(file: string, mib: number): string {
	const hash = createHash('sha256');
	const block = Buffer.alloc(MIB);
	const fd = openSync(file, 'w');
	try {
		for (let i = 0; i < mib; i++) {
			randomFillSync(block);
			hash.update(block);
			writeSync(fd, block);
		}
	} finally {
		closeSync(fd);
	}
	return hash.digest('hex');
}

export async function runWorker(worker: string, settings: Record<string, unknown>, dir: string, options: { timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Measured> {
	const settingsFile = path.join(dir, `settings-${Date.now()}.json`);
	writeFileSync(settingsFile, JSON.stringify(settings));
	// time writes its report to a file of its own: the worker's stderr (shared with time) may be left
	// non-blocking by node, and a crash report can fill it.
	const timeFile = path.join(dir, `time-${Date.now()}.txt`);
	const child = spawn('/usr/bin/time', ['-v', '-o', timeFile, benchNode(), ...(process.env.BENCH_WORKER_FLAGS ?? '').split(' ').filter(Boolean), '--expose-gc', worker, settingsFile], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, ...options.env },
	});
	// A client that hangs is stopped (a benchmark of a client written by others may need it).
	let timedOut = false;
	const timer = options.timeoutMs
		? setTimeout(() => {
				timedOut = true;
				// The measured process first (a child of time), then time.
				spawn('pkill', ['-KILL', '-P', String(child.pid)]).once('exit', () => child.kill('SIGKILL'));
			}, options.timeoutMs)
		: undefined;
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
	child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
	const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
	if (timer) clearTimeout(timer);
	rmSync(settingsFile, { force: true });
	if (process.env.BENCH_WORKER_LOG) writeFileSync(`${process.env.BENCH_WORKER_LOG}-${child.pid}.log`, stdout);
	const report = existsSync(timeFile) ? readFileSync(timeFile, 'utf8') : '';
	rmSync(timeFile, { force: true });
	const maxKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(report)?.[1] ?? NaN);
	const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
	if (!line) {
		const reason = timedOut ? `no result within ${Math.round((options.timeoutMs ?? 0) / 1000)} s` : (/FATAL ERROR: ([^\n]+)/.exec(stderr)?.[1] ?? /Error: ([^\n]+)/.exec(stderr)?.[1] ?? `exit code ${code}`);
		return { ok: false, error: reason.trim(), maxRssMb: round(maxKb / 1024, 1) };
	}
	const reported = JSON.parse(line.slice(7)) as Partial<TransferTiming> & {
		ok: boolean;
		error?: string;
		idleRss: number;
		peakRss: number;
		maxRss: number;
	};
	const maxRss = Number.isFinite(maxKb) ? maxKb * 1024 : reported.maxRss;
	const measured: Measured = { ok: reported.ok, error: reported.error, maxRssMb: round(maxRss / MIB, 1) };
	if (reported.ok && reported.uploadS !== undefined && reported.downloadS !== undefined) {
		measured.uploadS = round(reported.uploadS);
		measured.downloadS = round(reported.downloadS);
		measured.wallS = round(reported.uploadS + reported.downloadS);
		measured.idleRssMb = round(reported.idleRss / MIB, 1);
		measured.peakRssMb = round((reported.peakRss - reported.idleRss) / MIB, 1);
		for (const side of ['upload', 'download'] as const) {
			const peak = reported[`${side}PeakRss`];
			if (peak !== undefined) measured[`${side}PeakRssMb`] = round((Math.max(peak, reported.idleRss) - reported.idleRss) / MIB, 1);
			const bank = reported[`${side}BankCpuS`];
			if (bank !== undefined && Number.isFinite(bank)) measured[`${side}BankCpuS`] = round(bank);
			const own = reported[`${side}CpuS`];
			if (own !== undefined && Number.isFinite(own)) measured[`${side}CpuS`] = round(own);
			const fullGcs = reported[`${side}FullGcs`];
			if (fullGcs !== undefined && Number.isFinite(fullGcs)) {
				measured[`${side}FullGcs`] = fullGcs;
				measured[`${side}FullGcMs`] = Math.round(reported[`${side}FullGcMs`] ?? NaN);
			}
		}
	}
	return measured;
}

/** The node and its lower bound measured alternately, `reps` times each (the lower bound first). */
export async function alternateRuns(reps: number, measure: (client: 'node' | 'lowerBound') => Promise<Measured>): Promise<{ nodeRuns: Measured[]; lowerRuns: Measured[] }> {
	const nodeRuns: Measured[] = [];
	const lowerRuns: Measured[] = [];
	for (let i = 0; i < reps; i++) {
		lowerRuns.push(await measure('lowerBound'));
		nodeRuns.push(await measure('node'));
	}
	return { nodeRuns, lowerRuns };
}

export function cleanHarnessFolders(): void {
	// Worker processes leave their n8n user folder (with binary data) behind: remove the ones of
	// processes that are gone.
	for (const entry of readdirSync(os.tmpdir())) {
		const match = /^n8n-harness-(\d+)$/.exec(entry);
		if (!match) continue;
		try {
			process.kill(Number(match[1]), 0);
		} catch {
			rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
		}
	}
}

async function resetBank(bank: SandboxProcess, signed: boolean): Promise<void> {
	await bank.admin('POST', '/reset', { all: true });
	await bank.admin('POST', '/switches', { signResponses: signed });
}

function chosenSizes(): number[] {
	const given = (process.env.BENCH_FILESERVICE_SIZES ?? '').split(',').filter(Boolean).map(Number);
	return given.length ? given : [...SIZES];
}

export async function run(sizes: readonly number[] = chosenSizes()): Promise<FileServiceResult> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-file-service-'));
	// Both the sandbox bank and the clients run as compiled JavaScript, as n8n runs the built package.
	const worker = await compile('bench/fileServiceWorker.ts', 'file-service-worker');
	const bank = await startCompiledSandbox(['--seed', '42']);
	const credentials = bank.state.credentials[FILES] as Record<string, unknown>;
	const target: BankTarget = {
		soap: String(credentials.url),
		soapLarge: String(credentials.largeFileUrl),
		ca: String(credentials.caCertificate),
		senderId: String(credentials.senderId),
		receiverId: String(credentials.receiverId),
		customerId: String(credentials.customerId),
		softwareId: String(credentials.softwareId),
	};
	const result: FileServiceResult = { sizes: [...sizes] };
	try {
		const warmupFile = path.join(dir, 'warmup.bin');
		const warmupSha256 = makeFile(warmupFile, WARMUP_MIB);
		// The bank is warmed up too (its JIT and memory), with a round trip nobody counts.
		await resetBank(bank, false);
		await runWorker(worker, { client: 'lowerBound', file: warmupFile, size: WARMUP_MIB * MIB, sha256: warmupSha256, warmupFile, warmupSha256, target, credentials, signed: false }, dir);
		for (const mib of sizes) {
			const loadBefore = os.loadavg()[0];
			const file = path.join(dir, `file-${mib}.bin`);
			const sha256 = makeFile(file, mib);
			const common = { file, size: mib * MIB, sha256, warmupFile, warmupSha256, target, credentials, bankPid: bank.pid };
			const measure = async (client: Client, signed = false): Promise<Measured> => {
				await resetBank(bank, signed);
				const measured = await runWorker(worker, { ...common, client, signed }, dir);
				cleanHarnessFolders();
				const label = `${client}${signed ? ' (signed)' : ''}`;
				console.log(`  fileService ${mib} MiB ${label.padEnd(18)} ${measured.ok ? `${measured.wallS} s (upload ${measured.uploadS} s, download ${measured.downloadS} s), peak RSS +${measured.peakRssMb} MiB, upload CPU ${measured.uploadCpuS} s + bank ${measured.uploadBankCpuS} s, load ${os.loadavg()[0].toFixed(1)}` : `failed: ${measured.error}`}`);
				return measured;
			};
			// The node unsigned, its lower bound and the node signed, alternating.
			const nodeRuns: Measured[] = [];
			const lowerRuns: Measured[] = [];
			const signedRuns: Measured[] = [];
			for (let i = 0; i < (REPS[mib] ?? 1); i++) {
				lowerRuns.push(await measure('lowerBound'));
				nodeRuns.push(await measure('node'));
				if (i < (SIGNED_REPS[mib] ?? 1)) signedRuns.push(await measure('node', true));
			}
			const naive = await measure('naive');
			rmSync(file, { force: true });
			for (const runs of [nodeRuns, lowerRuns, signedRuns]) {
				const failed = runs.find((r) => !r.ok);
				if (failed) throw new Error(`fileService ${mib} MiB: a round trip failed: ${failed.error}`);
			}
			const pick = (runs: Measured[], key: keyof Measured) => median(runs.map((r) => Number(r[key])));
			const wallS = round(pick(nodeRuns, 'wallS'));
			const uploadS = round(pick(nodeRuns, 'uploadS'));
			const signedWallS = round(pick(signedRuns, 'wallS'));
			const signedUploadS = round(pick(signedRuns, 'uploadS'));
			/** CPU seconds of the node's process and of the bank during an upload (medians of the sums). */
			const uploadWork = (runs: Measured[]) => median(runs.map((r) => Number(r.uploadCpuS) + Number(r.uploadBankCpuS)));
			const lowerBoundWallS = round(pick(lowerRuns, 'wallS'));
			result[String(mib)] = {
				wallS,
				peakRssMb: round(Math.max(...nodeRuns.map((r) => Number(r.peakRssMb))), 1),
				ratioToLowerBound: round(wallS / lowerBoundWallS),
				signedRatio: round(signedWallS / wallS),
				signedUploadRatio: round(signedUploadS / uploadS),
				signedUploadCpuRatio: round(uploadWork(signedRuns) / uploadWork(nodeRuns)),
				uploadCpuS: round(pick(nodeRuns, 'uploadCpuS')),
				uploadBankCpuS: round(pick(nodeRuns, 'uploadBankCpuS')),
				signedUploadCpuS: round(pick(signedRuns, 'uploadCpuS')),
				signedUploadBankCpuS: round(pick(signedRuns, 'uploadBankCpuS')),
				loadAverage: [round(loadBefore, 2), round(os.loadavg()[0], 2)],
				naiveOk: naive.ok,
				uploadS,
				downloadS: round(pick(nodeRuns, 'downloadS')),
				lowerBoundWallS,
				lowerBoundUploadS: round(pick(lowerRuns, 'uploadS')),
				lowerBoundDownloadS: round(pick(lowerRuns, 'downloadS')),
				lowerBoundPeakRssMb: round(Math.max(...lowerRuns.map((r) => Number(r.peakRssMb))), 1),
				signedWallS,
				signedUploadS,
				signedDownloadS: round(pick(signedRuns, 'downloadS')),
				signedPeakRssMb: round(Math.max(...signedRuns.map((r) => Number(r.peakRssMb))), 1),
				signedRuns: signedRuns.length,
				...(naive.ok ? { naiveWallS: naive.wallS } : { naiveError: naive.error }),
				naiveMaxRssMb: naive.maxRssMb,
				idleRssMb: round(pick(nodeRuns, 'idleRssMb'), 1),
				runs: nodeRuns.length,
			};
		}
		return result;
	} finally {
		await bank.stop();
		if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
		cleanHarnessFolders();
	}
}
