/** What the benchmark workers share: a Read File node, a file's SHA-256, the measured run and its report. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

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
