/**
 * ebicsTransfer: an upload (BTU) and a download (BTD) of 100 MiB and of 1 GiB through the EBICS
 * node, run by n8n's engine with binary data on the filesystem, against the sandbox EBICS bank in
 * its own process, at the spec's segment size (1,048,576 base64 characters). In the same run, as
 * the lower bound: the same number of bytes through the transfer's transforms alone (deflate or
 * inflate, AES-128-CBC and base64), nothing else. The files are random bytes (deflate cannot
 * shrink them: every byte goes through every step).
 *
 * Every client runs in its own child process (bench/ebicsTransferWorker.ts, compiled), so its
 * peak resident memory is its own, measured over the same process idle after a warm-up pair of
 * 16 MiB. The bank does not validate requests against the H005 schema here (its xmllint is the
 * bank's time, not the client's); everything else (X002 signatures both ways, A006, E002,
 * segment checks) runs.
 *
 * Per size: wallS (upload + download seconds, median), peakRssMb (peak RSS over the idle process,
 * MiB; uploadPeakRssMb and downloadPeakRssMb while each ran), ratioToLowerBound, each direction's
 * seconds and ratio, and uploadBankCpuS / downloadBankCpuS: the CPU seconds of the bank process
 * during each direction of the node's pair (from /proc; the bank answers each segment before the
 * next goes, so its work is inside the node's time, as with a real bank, but on the same cores).
 * `BENCH_EBICS_SIZES=100` runs only the sizes given (MiB, comma-separated).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { median, round } from './common';
import { compile, startCompiledSandbox } from './compiled';
import { alternateRuns, cleanHarnessFolders, makeFile, runWorker, type Measured } from './fileService.bench';
import type { SandboxProcess } from './sandboxProcess';

const EBICS = 'corporateBankingEbicsApi';
const MIB = 1024 * 1024;
const SIZES = [100, 1024];
/** Repetitions per size (medians; `BENCH_EBICS_REPS` for 100 MiB); the large size once. */
const REPS: Record<number, number> = { 100: Number(process.env.BENCH_EBICS_REPS) || 3, 1024: 1 };
const WARMUP_MIB = 16;

export interface TransferSizeResult {
	wallS: number;
	peakRssMb: number;
	/** The peak over idle while the upload ran, and while the download ran (MiB). */
	uploadPeakRssMb: number;
	downloadPeakRssMb: number;
	/**
	 * CPU seconds the sandbox bank spent during the node's upload and download (medians): the
	 * bank answers each segment before the next goes, so its time is inside the node's.
	 */
	uploadBankCpuS: number;
	downloadBankCpuS: number;
	/** CPU seconds of the node's process (all its threads) during its upload and download, and the lower bound's (medians). */
	uploadCpuS: number;
	downloadCpuS: number;
	lowerBoundUploadCpuS: number;
	lowerBoundDownloadCpuS: number;
	ratioToLowerBound: number;
	uploadS: number;
	downloadS: number;
	uploadRatio: number;
	downloadRatio: number;
	lowerBoundWallS: number;
	lowerBoundUploadS: number;
	lowerBoundDownloadS: number;
	lowerBoundPeakRssMb: number;
	idleRssMb: number;
	/**
	 * Each run's full collections of V8 (mark-compact) during the upload and the download, as
	 * "upload + download" with their pauses: many during a download is the collector's expensive
	 * state (docs/performance.md, EBICS).
	 */
	fullGcsPerRun: { node: string[]; lowerBound: string[] };
	segments: number;
	runs: number;
	targets: { peakRssMb: string; ratio: string };
}

export interface TransferResult {
	sizes: number[];
	[size: string]: TransferSizeResult | number[];
}

/** A run's full collections during its upload and download, with their pauses. */
function fullGcs(run: Measured): string {
	return `${run.uploadFullGcs} + ${run.downloadFullGcs} (${run.uploadFullGcMs} ms + ${run.downloadFullGcMs} ms)`;
}

async function seed(bank: SandboxProcess, bytes: number): Promise<string> {
	const answer = await bank.admin<{ sha256: string }>('POST', '/ebics/files/generate', {
		partnerId: 'PARTNER2',
		userId: 'READY1',
		serviceName: 'STM',
		msgName: 'mt942',
		name: 'mt942.txt',
		bytes,
	});
	return answer.sha256;
}

function chosenSizes(): number[] {
	const given = (process.env.BENCH_EBICS_SIZES ?? '').split(',').filter(Boolean).map(Number);
	return given.length ? given : SIZES;
}

export async function run(sizes: readonly number[] = chosenSizes()): Promise<TransferResult> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-ebics-'));
	const worker = await compile('bench/ebicsTransferWorker.ts', 'ebics-transfer-worker');
	const bank = await startCompiledSandbox(['--seed', '42']);
	const credentials = bank.state.credentials[EBICS] as Record<string, unknown>;
	const result: TransferResult = { sizes: [...sizes] };
	try {
		const warmupFile = path.join(dir, 'warmup.bin');
		makeFile(warmupFile, WARMUP_MIB);
		for (const mib of sizes) {
			const file = path.join(dir, `file-${mib}.bin`);
			makeFile(file, mib);
			const measure = async (client: 'node' | 'lowerBound'): Promise<Measured> => {
				await bank.admin('POST', '/ebics/reset');
				await bank.admin('POST', '/ebics/switches', { validateSchema: false });
				// Delivered oldest first: the warm-up's download, then the measured one.
				const warmupDownloadSha256 = await seed(bank, WARMUP_MIB * MIB);
				const downloadSha256 = await seed(bank, mib * MIB);
				const measured = await runWorker(worker, { client, file, size: mib * MIB, downloadSha256, warmupFile, warmupDownloadSha256, credentials, bankPid: bank.pid }, dir);
				cleanHarnessFolders();
				console.log(`  ebicsTransfer ${mib} MiB ${client.padEnd(12)} ${measured.ok ? `upload ${measured.uploadS} s, download ${measured.downloadS} s, peak RSS +${measured.peakRssMb} MiB (upload +${measured.uploadPeakRssMb}, download +${measured.downloadPeakRssMb})${measured.uploadCpuS !== undefined ? `, CPU ${measured.uploadCpuS} s + ${measured.downloadCpuS} s` : ''}${measured.uploadBankCpuS !== undefined ? `, bank CPU ${measured.uploadBankCpuS} s + ${measured.downloadBankCpuS} s` : ''}, full GCs ${fullGcs(measured)}` : `failed: ${measured.error}`}`);
				return measured;
			};
			const { nodeRuns, lowerRuns } = await alternateRuns(REPS[mib] ?? 1, measure);
			rmSync(file, { force: true });
			for (const runs of [nodeRuns, lowerRuns]) {
				const failed = runs.find((r) => !r.ok);
				if (failed) throw new Error(`ebicsTransfer ${mib} MiB: a transfer failed: ${failed.error}`);
			}
			const pick = (runs: Measured[], key: keyof Measured) => median(runs.map((r) => Number(r[key])));
			const wallS = round(pick(nodeRuns, 'wallS'));
			const lowerBoundWallS = round(pick(lowerRuns, 'wallS'));
			const uploadS = round(pick(nodeRuns, 'uploadS'));
			const downloadS = round(pick(nodeRuns, 'downloadS'));
			const lowerBoundUploadS = round(pick(lowerRuns, 'uploadS'));
			const lowerBoundDownloadS = round(pick(lowerRuns, 'downloadS'));
			result[String(mib)] = {
				wallS,
				peakRssMb: round(Math.max(...nodeRuns.map((r) => Number(r.peakRssMb))), 1),
				uploadPeakRssMb: round(Math.max(...nodeRuns.map((r) => Number(r.uploadPeakRssMb))), 1),
				downloadPeakRssMb: round(Math.max(...nodeRuns.map((r) => Number(r.downloadPeakRssMb))), 1),
				uploadBankCpuS: round(pick(nodeRuns, 'uploadBankCpuS')),
				downloadBankCpuS: round(pick(nodeRuns, 'downloadBankCpuS')),
				uploadCpuS: round(pick(nodeRuns, 'uploadCpuS')),
				downloadCpuS: round(pick(nodeRuns, 'downloadCpuS')),
				lowerBoundUploadCpuS: round(pick(lowerRuns, 'uploadCpuS')),
				lowerBoundDownloadCpuS: round(pick(lowerRuns, 'downloadCpuS')),
				ratioToLowerBound: round(wallS / lowerBoundWallS),
				uploadS,
				downloadS,
				uploadRatio: round(uploadS / lowerBoundUploadS),
				downloadRatio: round(downloadS / lowerBoundDownloadS),
				lowerBoundWallS,
				lowerBoundUploadS,
				lowerBoundDownloadS,
				lowerBoundPeakRssMb: round(Math.max(...lowerRuns.map((r) => Number(r.peakRssMb))), 1),
				idleRssMb: round(pick(nodeRuns, 'idleRssMb'), 1),
				fullGcsPerRun: { node: nodeRuns.map(fullGcs), lowerBound: lowerRuns.map(fullGcs) },
				segments: Math.ceil((mib * MIB + 16) / 786_432),
				runs: nodeRuns.length,
				targets: { peakRssMb: '< 64', ratio: '<= 1.3' },
			};
		}
		return result;
	} finally {
		await bank.stop();
		if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
		cleanHarnessFolders();
	}
}
