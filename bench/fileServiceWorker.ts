/**
 * One side of the fileService benchmark, run in its own process so that its memory is measured
 * alone (the sandbox bank runs in another process): a round trip (upload, then download of the
 * same file) of `file` by one client. Prints `RESULT {json}` as its last line.
 *
 *   node --expose-gc ts-node/dist/bin.js bench/fileServiceWorker.ts <settings.json>
 *
 * Settings: { client: 'node' | 'lowerBound' | 'naive', file, size, sha256, warmupFile, target,
 * credentials, signed }. The node client runs the Corporate File Service node through n8n's
 * engine with binary data on the filesystem, as n8n 2.x stores it: Read File (the file streamed
 * into binary storage) -> Upload -> Download -> Hash (outside the timing). Reports upload and
 * download seconds, the process's resident memory when idle (after two warm-up round trips, a
 * garbage collection and half a second of rest) and at its peak during the measured round trip
 * (sampled every 10 ms), and the process's lifetime maximum.
 */
import '../test/harness/env';

import { readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeExecutionData } from 'n8n-workflow';

import { createCredentialStore, type ChainStep, type RunResult } from '../test/harness/engine';
import { InspectFile } from '../test/helpers/binaryNodes';
import { cpuSeconds, peakDuring, ReadFile, reportMeasured, runMain, sha256, unused, usedFields, type TransferTiming } from './workerCommon';
import { FILE_SERVICE_TYPE as TYPE, FILES, runFileServiceChain } from '../test/helpers/nodes';
import type { BankTarget } from './fileServiceClients';
import { lowerBoundDownload, lowerBoundUpload, naiveDownload, naiveUpload } from './fileServiceClients';

interface Settings {
	client: 'node' | 'lowerBound' | 'naive';
	file: string;
	size: number;
	sha256: string;
	warmupFile: string;
	warmupSha256: string;
	target: BankTarget;
	credentials: Record<string, unknown>;
	/** Node only: sign requests and verify the bank's signatures. */
	signed: boolean;
	/** Node only: the file is uploaded before the measurement; only its download is measured. */
	downloadOnly?: boolean;
	/** The sandbox bank's process ID: its CPU seconds during each direction are reported. */
	bankPid?: number;
}

interface Timing {
	uploadS: number;
	downloadS: number;
}



function nodeStore(settings: Settings) {
	const data = { ...settings.credentials } as Record<string, string>;
	if (!settings.signed) Object.assign(data, { signingCertificate: '', signingPrivateKey: '', bankCertificate: '' });
	return createCredentialStore([{ id: 'files', name: 'files', type: FILES, data }]);
}

/** Runs the steps through n8n's engine with the bench's credential; `what` names a failure. */
async function runChain(settings: Settings, steps: ChainStep[], what: string, inputItems?: INodeExecutionData[]): Promise<RunResult> {
	const result = await runFileServiceChain(steps, {
		inputItems,
		store: nodeStore(settings),
		credentialId: 'files',
		nodeTypes: { 'bench.readFile': new ReadFile(), 'bench.hashFile': new InspectFile() },
	});
	if (result.status !== 'success') throw new Error(`the ${what} failed: ${result.error?.message ?? 'unknown error'}`);
	return result;
}

function checkHash(result: RunResult, expected: string): void {
	const got = result.output('Hash')[0].json.sha256;
	if (got !== expected) throw new Error(`the downloaded file differs (${String(got)} instead of ${expected})`);
}

/**
 * The node's round trip as three workflow runs: Read File (the file into binary storage), Upload
 * (timed, with the CPU seconds of this process and of the bank during it), Download -> Hash.
 */
async function nodeRoundTrip(settings: Settings, file: string, expected: string): Promise<TransferTiming> {
	const read = await runChain(settings, [{ name: 'Read', type: 'bench.readFile', parameters: { path: file } }], 'read');
	const uploadUsed = unused();
	const downloadUsed = unused();
	let up!: RunResult;
	let down!: RunResult;
	const bankBefore = cpuSeconds(settings.bankPid);
	const uploadPeakRss = await peakDuring(async () => {
		up = await runChain(settings, [{ name: 'Upload', type: TYPE, parameters: { operation: 'uploadFile', fileType: 'XT', options: { compress: false } } }], 'upload', read.output('Read'));
	}, uploadUsed);
	const bankBetween = cpuSeconds(settings.bankPid);
	const reference = String(up.output('Upload')[0].json.fileReference);
	const downloadPeakRss = await peakDuring(async () => {
		down = await runChain(
			settings,
			[
				{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: reference } },
				{ name: 'Hash', type: 'bench.hashFile', parameters: {} },
			],
			'download',
		);
	}, downloadUsed);
	const bankAfter = cpuSeconds(settings.bankPid);
	checkHash(down, expected);
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

/** Uploads a file through the node (not measured); returns its file reference. */
async function nodeUpload(settings: Settings, file: string): Promise<string> {
	const steps: ChainStep[] = [
		{ name: 'Read', type: 'bench.readFile', parameters: { path: file } },
		// Not measured, and slow for an encrypted 1 GiB (three passes through 3DES, the bank's included): no time limit to speak of.
		{ name: 'Upload', type: TYPE, parameters: { operation: 'uploadFile', fileType: 'XT', options: { compress: false, timeout: 3600 } } },
	];
	const result = await runChain(settings, steps, 'upload');
	return String(result.output('Upload')[0].json.fileReference);
}

/** Downloads a file through the node (measured) and checks it. */
async function nodeDownload(settings: Settings, reference: string, expected: string): Promise<Timing> {
	const steps: ChainStep[] = [
		{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: reference, options: { timeout: 3600 } } },
		{ name: 'Hash', type: 'bench.hashFile', parameters: {} },
	];
	const result = await runChain(settings, steps, 'download');
	checkHash(result, expected);
	return { uploadS: 0, downloadS: (result.runData.Download?.[0]?.executionTime ?? NaN) / 1000 };
}

async function clientRoundTrip(settings: Settings, file: string, size: number, expected: string): Promise<Timing> {
	const out = join(tmpdir(), `bench-download-${process.pid}-${Date.now()}.bin`);
	try {
		const upload = settings.client === 'naive' ? naiveUpload : (target: BankTarget, path: string) => lowerBoundUpload(target, path, size);
		const download = settings.client === 'naive' ? naiveDownload : lowerBoundDownload;
		let start = process.hrtime.bigint();
		const reference = await upload(settings.target, file);
		const uploadS = Number(process.hrtime.bigint() - start) / 1e9;
		start = process.hrtime.bigint();
		await download(settings.target, reference, out);
		const downloadS = Number(process.hrtime.bigint() - start) / 1e9;
		const got = await sha256(out);
		if (got !== expected) throw new Error(`the downloaded file differs (${got} instead of ${expected})`);
		return { uploadS, downloadS };
	} finally {
		rmSync(out, { force: true });
	}
}

async function main(): Promise<void> {
	const settings = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Settings;
	const roundTrip = async (file: string, size: number, expected: string) =>
		settings.client === 'node' ? await nodeRoundTrip(settings, file, expected) : await clientRoundTrip(settings, file, size, expected);
	let reference: string | undefined;
	await reportMeasured(
		async () => {
			// Warm-up: loads every module the round trip uses and lets the JIT compile the hot paths.
			if (settings.client !== 'naive') {
				for (let i = 0; i < 2; i++) await roundTrip(settings.warmupFile, statSync(settings.warmupFile).size, settings.warmupSha256);
			}
			reference = settings.downloadOnly ? await nodeUpload(settings, settings.file) : undefined;
		},
		async () => (reference ? await nodeDownload(settings, reference, settings.sha256) : await roundTrip(settings.file, settings.size, settings.sha256)),
	);
}

runMain(main);
