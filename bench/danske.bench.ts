/**
 * danskeDownload: the download of an encrypted 100 MiB and 1 GiB file from the sandbox's Danske
 * Bank (signed, and encrypted both ways: 3DES-CBC with the key wrapped by RSA-1.5) through the
 * Corporate File Service node, run by n8n's engine with binary data on the filesystem; in the same
 * run, as the baseline, the same download unencrypted (signed) from the sandbox's ordinary file
 * service. Each download runs in its own worker process (bench/fileServiceWorker.ts, compiled),
 * the file uploaded before the measurement, so the peak RSS over idle is the download's own.
 *
 * Per size: encryptedDownloadS, plainDownloadS, ratio (encrypted / plain, target <= 1.5),
 * encryptedPeakRssMb and plainPeakRssMb (peak RSS over the idle process, MiB; target < 64 at 1 GiB).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { round } from './common';
import { compile, startCompiledSandbox } from './compiled';
import type { Measured } from './fileService.bench';
import { cleanHarnessFolders, makeFile, runWorker } from './fileService.bench';
import type { BankTarget } from './fileServiceClients';

const FILES = 'corporateBankingFileServiceApi';
const MIB = 1024 * 1024;
const SIZES = [100, 1024] as const;
const WARMUP_MIB = 32;

export interface DanskeSizeResult {
	encryptedDownloadS: number;
	plainDownloadS: number;
	ratio: number;
	encryptedPeakRssMb: number;
	plainPeakRssMb: number;
	encryptedIdleRssMb: number;
}

export async function run(sizes: readonly number[] = SIZES): Promise<Record<string, unknown>> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-danske-'));
	const worker = await compile('bench/fileServiceWorker.ts', 'file-service-worker');
	const bank = await startCompiledSandbox(['--seed', '42']);
	const plain = bank.state.credentials[FILES] as Record<string, unknown>;
	const danske = (bank.state as unknown as { danske: { paste: Record<string, unknown> } }).danske.paste;
	const target = { soap: String(plain.url), soapLarge: String(plain.largeFileUrl), ca: String(plain.caCertificate) } as BankTarget;
	const result: Record<string, unknown> = { sizes: [...sizes] };
	try {
		const warmupFile = path.join(dir, 'warmup.bin');
		const warmupSha256 = makeFile(warmupFile, WARMUP_MIB);
		for (const mib of sizes) {
			const file = path.join(dir, `file-${mib}.bin`);
			const sha256 = makeFile(file, mib);
			const measure = async (label: string, credentials: Record<string, unknown>): Promise<Measured> => {
				await bank.admin('POST', '/reset', { all: true });
				const measured = await runWorker(
					worker,
					{ client: 'node', file, size: mib * MIB, sha256, warmupFile, warmupSha256, target, credentials, signed: true, downloadOnly: true },
					dir,
				);
				cleanHarnessFolders();
				console.log(`  danskeDownload ${mib} MiB ${label.padEnd(10)} ${measured.ok ? `${measured.downloadS} s, peak RSS +${measured.peakRssMb} MiB` : `failed: ${measured.error}`}`);
				if (!measured.ok) throw new Error(`danskeDownload ${mib} MiB ${label}: ${measured.error}`);
				return measured;
			};
			const unencrypted = await measure('plain', plain);
			const encrypted = await measure('encrypted', danske);
			rmSync(file, { force: true });
			const row: DanskeSizeResult = {
				encryptedDownloadS: Number(encrypted.downloadS),
				plainDownloadS: Number(unencrypted.downloadS),
				ratio: round(Number(encrypted.downloadS) / Number(unencrypted.downloadS)),
				encryptedPeakRssMb: Number(encrypted.peakRssMb),
				plainPeakRssMb: Number(unencrypted.peakRssMb),
				encryptedIdleRssMb: Number(encrypted.idleRssMb),
			};
			result[String(mib)] = row;
		}
		return result;
	} finally {
		await bank.stop();
		if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
		cleanHarnessFolders();
	}
}
