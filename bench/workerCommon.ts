/** What the benchmark workers share: a Read File node, a file's SHA-256, the measured run and its report. */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { constants as perfConstants, performance, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { nodeDescription } from '../test/harness/node-types';

/** Reads a file from disk into binary storage as a stream, as n8n's Read/Write Files node does. */
export class ReadFile implements INodeType {
	description = nodeDescription('readFile', 'Read File', {
		group: ['input'],
		description: 'Reads a file from disk',
		properties: [{ displayName: 'Path', name: 'path', type: 'string', default: '' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const path = this.getNodeParameter('path', 0) as string;
		const binary = await this.helpers.prepareBinaryData(createReadStream(path), 'archive.bin', 'application/octet-stream');
		return [[{ json: {}, binary: { data: binary } }]];
	}
}

export async function sha256(path: string): Promise<string> {
	const hash = createHash('sha256');
	for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
	return hash.digest('hex');
}

/**
 * What a transfer worker measures of its pair (printed in `RESULT`, read by runWorker): seconds
 * of each direction, and, when the worker reports them, each direction's peak resident memory
 * (bytes), the bank process's CPU seconds and the worker's own (all its threads).
 */
export interface TransferTiming {
	uploadS: number;
	downloadS: number;
	uploadPeakRss?: number;
	downloadPeakRss?: number;
	uploadBankCpuS?: number;
	downloadBankCpuS?: number;
	uploadCpuS?: number;
	downloadCpuS?: number;
	/**
	 * V8's full collections (mark-compact) on the worker's main thread during each direction, and
	 * their pauses in milliseconds: the state of the collector a run was in.
	 */
	uploadFullGcs?: number;
	downloadFullGcs?: number;
	uploadFullGcMs?: number;
	downloadFullGcMs?: number;
}

/**
 * The highest resident memory the sampler of `reportMeasured` saw since `value` was last set (a
 * worker sets it at the start of a phase to learn that phase's peak without a second sampler).
 */
export const phasePeakRss = { value: 0 };

/**
 * The measured part of a benchmark worker: `warmUp`, a garbage collection and half a second of
 * rest (the idle level), then `measure` with the process's resident memory sampled every 10 ms;
 * prints `RESULT {json}` with the timing, the idle and peak RSS and the process's lifetime maximum.
 */
export async function reportMeasured<T extends object>(warmUp: () => Promise<void>, measure: () => Promise<T>, cleanup?: () => void): Promise<void> {
	const gc = (globalThis as { gc?: () => void }).gc;
	let idleRss = 0;
	let peakRss = 0;
	let timing: T | undefined;
	let error: string | undefined;
	try {
		await warmUp();
		gc?.();
		await new Promise((resolve) => setTimeout(resolve, 500));
		idleRss = process.memoryUsage.rss();
		peakRss = idleRss;
		const sampler = setInterval(() => {
			const rss = process.memoryUsage.rss();
			peakRss = Math.max(peakRss, rss);
			phasePeakRss.value = Math.max(phasePeakRss.value, rss);
		}, 10);
		try {
			timing = await measure();
		} finally {
			clearInterval(sampler);
			peakRss = Math.max(peakRss, process.memoryUsage.rss());
		}
	} catch (caught) {
		error = (caught as Error)?.message ?? String(caught);
	} finally {
		cleanup?.();
	}
	const maxRss = process.resourceUsage().maxRSS * 1024;
	process.stdout.write(`RESULT ${JSON.stringify({ ok: !error, error, ...timing, idleRss, peakRss, maxRss })}\n`);
}

/** Runs a worker's main and exits with its outcome. */
export function runMain(main: () => Promise<void>): void {
	void main().then(
		() => process.exit(0),
		(error: unknown) => {
			process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
			process.exit(1);
		},
	);
}

/** CPU seconds (user and system) a process has used so far, from /proc (Linux); NaN elsewhere. */
export function cpuSeconds(pid: number | undefined): number {
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
export interface Used {
	cpuS: number;
	fullGcs: number;
	fullGcMs: number;
}

/**
 * The peak resident memory while `work` runs (seen by the measuring sampler, every 10 ms); `used`
 * gets the process's CPU seconds and the full collections that started meanwhile.
 */
export async function peakDuring(work: () => Promise<void>, used?: Used): Promise<number> {
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
export function usedFields(upload: Used, download: Used): Partial<TransferTiming> {
	return {
		uploadCpuS: upload.cpuS,
		downloadCpuS: download.cpuS,
		uploadFullGcs: upload.fullGcs,
		downloadFullGcs: download.fullGcs,
		uploadFullGcMs: upload.fullGcMs,
		downloadFullGcMs: download.fullGcMs,
	};
}

export const unused = (): Used => ({ cpuS: NaN, fullGcs: NaN, fullGcMs: NaN });

