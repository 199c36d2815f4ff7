/**
 * ebicsTransfer: an upload (BTU) and a download (BTD) of 100 MiB and of 1 GiB through the EBICS
 * node, run by n8n's engine with binary data on the filesystem, against the sandbox EBICS bank in
 * its own process, at the spec's segment size (1,048,576 base64 characters). In the same run, as
 * the lower bound, a pair: a minimal client and a minimal bank, each in its own process, over TLS
 * on loopback, one segment at a time at the same size, each doing only its transforms (client:
 * A006 hash, deflate or inflate, AES-128-CBC, base64; bank: the inverse), no XML, no signatures
 * but A006, no storage (bench/ebicsPairWorker.ts). The files are random bytes (deflate cannot
 * shrink them: every byte goes through every step).
 *
 * Every client runs in its own child process (bench/ebicsTransferWorker.ts, compiled), so its
 * peak resident memory is its own, measured over the same process idle after a warm-up pair of
 * 16 MiB. The bank does not validate requests against the H005 schema here (its xmllint is the
 * bank's time, not the client's); everything else (X002 signatures both ways, A006, E002,
 * segment checks) runs.
 *
 * Per size: ratioToPair, ratioToPairUpload and ratioToPairDownload (the node's seconds over the
 * pair's: target <= 1.3), each side's seconds (medians), the node's peak RSS over its idle
 * process (target < 64 MiB), CPU seconds of each process during each direction, and V8's full
 * collections of each run (the collector's state). `BENCH_EBICS_SIZES=100` runs only the sizes
 * given (MiB, comma-separated).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { loadOrCreatePki } from '../test/sandbox/certs';
import { benchNode, median, round } from './common';
import { compile, ROOT, startCompiledSandbox } from './compiled';
import { alternateRuns, cleanHarnessFolders, makeFile, runWorker, type Measured } from './fileService.bench';
import type { SandboxProcess } from './sandboxProcess';

const EBICS = 'corporateBankingEbicsApi';
const MIB = 1024 * 1024;
const SIZES = [100, 1024];
/** Repetitions per size (medians; `BENCH_EBICS_REPS` for 100 MiB); the large size once. */
const REPS: Record<number, number> = { 100: Number(process.env.BENCH_EBICS_REPS) || 3, 1024: 1 };
const WARMUP_MIB = 16;

export interface TransferSizeResult {
	/** The node's time over the pair lower bound's: upload + download, upload, download (target <= 1.3 each). */
	ratioToPair: number;
	ratioToPairUpload: number;
	ratioToPairDownload: number;
	/** The node's seconds (medians): upload + download, and each. */
	wallS: number;
	uploadS: number;
	downloadS: number;
	/** The pair lower bound's seconds (medians). */
	pairWallS: number;
	pairUploadS: number;
	pairDownloadS: number;
	/** The node's peak RSS over its idle level, MiB: whole, while the upload ran, while the download ran (target < 64). */
	peakRssMb: number;
	uploadPeakRssMb: number;
	downloadPeakRssMb: number;
	/** The pair's client: peak RSS over its idle level, MiB. */
	pairPeakRssMb: number;
	idleRssMb: number;
	/**
	 * CPU seconds (medians) of the node's process (all its threads) and of the sandbox bank during
	 * the node's upload and download; of the pair's client and bank during the pair's.
	 */
	uploadCpuS: number;
	downloadCpuS: number;
	uploadBankCpuS: number;
	downloadBankCpuS: number;
	pairUploadCpuS: number;
	pairDownloadCpuS: number;
	pairUploadBankCpuS: number;
	pairDownloadBankCpuS: number;
	/**
	 * Each run's full collections of V8 (mark-compact) during the upload and the download, as
	 * "upload + download" with their pauses: none during a download is the collector's cheap
	 * state, 15 or more its expensive one (bench/README.md).
	 */
	fullGcsPerRun: { node: string[]; pair: string[] };
	/** The machine's 1-minute load average before and after the size's runs (2 cores). */
	loadAverage: [number, number];
	segments: number;
	runs: number;
	targets: { ratioToPair: string; peakRssMb: string };
}

export interface TransferResult {
	sizes: number[];
	peer?: PeerResult;
	/** Why the comparison with the peer could not be made, if it could not. */
	peerError?: string;
	[size: string]: TransferSizeResult | number[] | PeerResult | string | undefined;
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

/** The keys a run of the pair uses: made by the parent, given to both sides. */
export function pairKeys(): { key: string; signaturePublicKeyPem: string; signaturePrivateKeyPem: string } {
	const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
	return {
		key: randomBytes(16).toString('hex'),
		signaturePublicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
		signaturePrivateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
	};
}

/** The pair lower bound's bank in its own process (bench/ebicsPairWorker.ts); resolves once it listens. */
async function startPairBank(worker: string, dir: string, keys: ReturnType<typeof pairKeys>): Promise<{ port: number; pid: number; caPem: string; stop: () => Promise<void> }> {
	const pki = await loadOrCreatePki();
	const settingsFile = path.join(dir, 'pair-bank.json');
	writeFileSync(settingsFile, JSON.stringify({ keyPem: pki.serverKeyPem, certPem: pki.serverCertPem, key: keys.key, signaturePublicKeyPem: keys.signaturePublicKeyPem }));
	const child: ChildProcess = spawn(benchNode(), [worker, 'bank', settingsFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
	const port = await new Promise<number>((resolve, reject) => {
		let out = '';
		child.stdout!.on('data', (c: Buffer) => {
			out += c.toString();
			const match = /PAIR_READY (\d+)/.exec(out);
			if (match) resolve(Number(match[1]));
		});
		child.once('exit', (code) => reject(new Error(`the pair's bank exited with ${code}`)));
	});
	return {
		port,
		pid: child.pid ?? 0,
		caPem: pki.caCertPem,
		async stop() {
			child.kill('SIGTERM');
			await new Promise((r) => child.once('exit', r));
		},
	};
}

export async function run(sizes: readonly number[] = chosenSizes()): Promise<TransferResult> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-ebics-'));
	const worker = await compile('bench/ebicsTransferWorker.ts', 'ebics-transfer-worker');
	const pairWorker = await compile('bench/ebicsPairWorker.ts', 'ebics-pair-worker');
	const bank = await startCompiledSandbox(['--seed', '42']);
	const keys = pairKeys();
	const pairBank = await startPairBank(pairWorker, dir, keys);
	const credentials = bank.state.credentials[EBICS] as Record<string, unknown>;
	const result: TransferResult = { sizes: [...sizes] };
	try {
		const warmupFile = path.join(dir, 'warmup.bin');
		const warmupSha256 = makeFile(warmupFile, WARMUP_MIB);
		for (const mib of sizes) {
			const loadBefore = os.loadavg()[0];
			const file = path.join(dir, `file-${mib}.bin`);
			const sha256 = makeFile(file, mib);
			const measure = async (client: 'node' | 'lowerBound'): Promise<Measured> => {
				let measured: Measured;
				if (client === 'node') {
					await bank.admin('POST', '/ebics/reset');
					await bank.admin('POST', '/ebics/switches', { validateSchema: false });
					// Delivered oldest first: the warm-up's download, then the measured one.
					const warmupDownloadSha256 = await seed(bank, WARMUP_MIB * MIB);
					const downloadSha256 = await seed(bank, mib * MIB);
					measured = await runWorker(worker, { client, file, size: mib * MIB, downloadSha256, warmupFile, warmupDownloadSha256, credentials, bankPid: bank.pid }, dir);
					cleanHarnessFolders();
				} else {
					measured = await runWorker(pairWorker, { caPem: pairBank.caPem, port: pairBank.port, key: keys.key, signaturePrivateKeyPem: keys.signaturePrivateKeyPem, file, sha256, warmupFile, warmupSha256, bankPid: pairBank.pid }, dir);
				}
				const label = client === 'node' ? 'node' : 'pair';
				console.log(`  ebicsTransfer ${mib} MiB ${label.padEnd(5)} ${measured.ok ? `upload ${measured.uploadS} s, download ${measured.downloadS} s, peak RSS +${measured.peakRssMb} MiB (upload +${measured.uploadPeakRssMb}, download +${measured.downloadPeakRssMb}), CPU ${measured.uploadCpuS} s + ${measured.downloadCpuS} s, bank CPU ${measured.uploadBankCpuS} s + ${measured.downloadBankCpuS} s, full GCs ${fullGcs(measured)}` : `failed: ${measured.error}`}`);
				return measured;
			};
			const { nodeRuns, lowerRuns: pairRuns } = await alternateRuns(REPS[mib] ?? 1, measure);
			rmSync(file, { force: true });
			for (const runs of [nodeRuns, pairRuns]) {
				const failed = runs.find((r) => !r.ok);
				if (failed) throw new Error(`ebicsTransfer ${mib} MiB: a transfer failed: ${failed.error}`);
			}
			const pick = (runs: Measured[], key: keyof Measured) => median(runs.map((r) => Number(r[key])));
			const peak = (runs: Measured[], key: keyof Measured) => round(Math.max(...runs.map((r) => Number(r[key]))), 1);
			const wallS = round(pick(nodeRuns, 'wallS'));
			const uploadS = round(pick(nodeRuns, 'uploadS'));
			const downloadS = round(pick(nodeRuns, 'downloadS'));
			const pairWallS = round(pick(pairRuns, 'wallS'));
			const pairUploadS = round(pick(pairRuns, 'uploadS'));
			const pairDownloadS = round(pick(pairRuns, 'downloadS'));
			result[String(mib)] = {
				ratioToPair: round(wallS / pairWallS),
				ratioToPairUpload: round(uploadS / pairUploadS),
				ratioToPairDownload: round(downloadS / pairDownloadS),
				wallS,
				uploadS,
				downloadS,
				pairWallS,
				pairUploadS,
				pairDownloadS,
				peakRssMb: peak(nodeRuns, 'peakRssMb'),
				uploadPeakRssMb: peak(nodeRuns, 'uploadPeakRssMb'),
				downloadPeakRssMb: peak(nodeRuns, 'downloadPeakRssMb'),
				pairPeakRssMb: peak(pairRuns, 'peakRssMb'),
				idleRssMb: round(pick(nodeRuns, 'idleRssMb'), 1),
				uploadCpuS: round(pick(nodeRuns, 'uploadCpuS')),
				downloadCpuS: round(pick(nodeRuns, 'downloadCpuS')),
				uploadBankCpuS: round(pick(nodeRuns, 'uploadBankCpuS')),
				downloadBankCpuS: round(pick(nodeRuns, 'downloadBankCpuS')),
				pairUploadCpuS: round(pick(pairRuns, 'uploadCpuS')),
				pairDownloadCpuS: round(pick(pairRuns, 'downloadCpuS')),
				pairUploadBankCpuS: round(pick(pairRuns, 'uploadBankCpuS')),
				pairDownloadBankCpuS: round(pick(pairRuns, 'downloadBankCpuS')),
				fullGcsPerRun: { node: nodeRuns.map(fullGcs), pair: pairRuns.map(fullGcs) },
				loadAverage: [round(loadBefore, 2), round(os.loadavg()[0], 2)],
				segments: Math.ceil((mib * MIB + 16) / 786_432),
				runs: nodeRuns.length,
				targets: { ratioToPair: '<= 1.3', peakRssMb: '< 64' },
			};
		}
		if (process.env.BENCH_EBICS_PEER !== '0') {
			// The pair's figures are kept when the peer's comparison fails.
			try {
				result.peer = await runPeer(bank, dir);
			} catch (error) {
				result.peerError = (error as Error)?.message ?? String(error);
				console.log(`  ebicsTransfer peer: ${result.peerError}`);
			}
		}
		return result;
	} finally {
		await pairBank.stop();
		await bank.stop();
		if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
		cleanHarnessFolders();
	}
}

/** The size the peer is asked to carry (MiB). */
const PEER_MIB = Number(process.env.BENCH_EBICS_PEER_MIB) || 100;
/** Sizes tried when the peer cannot carry PEER_MIB (MiB): downloads from the smallest up, uploads from the largest down. */
const PEER_STEPS = [0.5, 0.7, 1, 4, 16];
const PEER_TIMEOUT_MS = 300_000;
const PEER_WARMUP_BYTES = 1024;

/** `mib` MiB of text without line breaks (base64 of random bytes): ebics-client takes an upload as a string and drops line breaks. */
function makeTextFile(file: string, mib: number): void {
	const bytes = Math.round(mib * MIB);
	const fd = openSync(file, 'w');
	try {
		for (let at = 0; at < bytes; at += 4 * MIB) {
			const length = Math.min(4 * MIB, bytes - at);
			writeSync(fd, Buffer.from(randomBytes(Math.ceil((length * 3) / 4)).toString('base64').slice(0, length), 'latin1'));
		}
	} finally {
		closeSync(fd);
	}
}

export interface PeerResult {
	sizeMib: number;
	peerVersion: string;
	/** The size each direction is compared at (MiB): sizeMib, or the largest the peer carried. */
	peerUploadMib: number;
	peerDownloadMib: number;
	uploadLargestMib: number;
	downloadLargestMib: number;
	/** Why the peer failed at the sizes it did not carry. */
	peerFailures: string[];
	/** The node's seconds over the peer's, and its peak RSS over idle over the peer's, at the compared size. */
	ratioToPeerUpload: number;
	ratioToPeerDownload: number;
	rssRatioToPeerUpload: number;
	rssRatioToPeerDownload: number;
	nodeUploadS: number;
	nodeDownloadS: number;
	peerUploadS: number;
	peerDownloadS: number;
	nodeUploadPeakRssMb: number;
	nodeDownloadPeakRssMb: number;
	peerUploadPeakRssMb: number;
	peerDownloadPeakRssMb: number;
	/** The node in EBICS 2.5 at sizeMib, both ways (whatever the peer carried). */
	nodeAtSize: { uploadS: number; downloadS: number; uploadPeakRssMb: number; downloadPeakRssMb: number };
}

/**
 * The peer: ebics-client (EBICS 2.5) uploads (CCT) and downloads (VMK) PEER_MIB through the
 * sandbox bank, each in a process of its own, and the node does the same in EBICS 2.5 with the
 * same bytes; when the peer fails, the largest size it carries is found and both are compared there.
 */
export async function runPeer(bank: SandboxProcess, dir: string): Promise<PeerResult> {
	const peerWorker = await compile('bench/ebicsPeerWorker.ts', 'ebics-peer-worker');
	const nodeWorker = await compile('bench/ebicsTransferWorker.ts', 'ebics-transfer-worker');
	const caFile = path.join(dir, 'ca.pem');
	writeFileSync(caFile, bank.caPem);
	const env = { NODE_EXTRA_CA_CERTS: caFile, NODE_NO_WARNINGS: '1' };
	await bank.admin('POST', '/ebics/reset');
	await bank.admin('POST', '/ebics/switches', { validateSchema: false });
	const info = await bank.admin<{ hostId: string; bankHashesH004: { authentication: string; encryption: string } }>('GET', '/ebics');
	const h005 = bank.state.credentials[EBICS] as Record<string, unknown>;
	const peerSettings = (userId: string) => ({ url: String(h005.url), hostId: info.hostId, partnerId: 'PEER', userId, keysDir: path.join(dir, `peer-${userId}`), adminUrl: bank.state.urls.admin, caPem: bank.caPem });
	const peerVersion = String((JSON.parse(readFileSync(path.join(ROOT, 'node_modules/ebics-client/package.json'), 'utf8')) as { version: string }).version);
	const failures: string[] = [];

	/** A peer subscriber with its keys at the bank (INI, HIA, activation, HPB in its own process). */
	const peerSubscriber = async (userId: string) => {
		await bank.admin('POST', '/ebics/subscribers', { partnerId: 'PEER', userId, name: 'ebics-client' });
		const settings = peerSettings(userId);
		mkdirSync(settings.keysDir, { recursive: true });
		const settingsFile = path.join(dir, `peer-keys-${userId}.json`);
		writeFileSync(settingsFile, JSON.stringify(settings));
		const child = spawn(benchNode(), [peerWorker, 'keys', settingsFile], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		child.stdout.on('data', (c: Buffer) => (out += c.toString()));
		child.stderr.on('data', (c: Buffer) => (out += c.toString()));
		const code = await new Promise((r) => child.once('close', r));
		if (code !== 0) throw new Error(`ebics-client's keys: ${out.trim()}`);
		return settings;
	};
	const seedFor = async (partnerId: string, userId: string, bytes: number) =>
		(await bank.admin<{ sha256: string }>('POST', '/ebics/files/generate', { partnerId, userId, serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', bytes })).sha256;
	const log = (what: string, m: Measured, seconds?: number) =>
		console.log(`  ebicsTransfer peer ${what.padEnd(34)} ${m.ok ? `${seconds} s, peak RSS +${m.peakRssMb} MiB` : `failed: ${m.error}`}`);

	// Uploads: from PEER_MIB down until the peer carries one.
	const uploader = await peerSubscriber('UP');
	let peerUpload: { mib: number; measured: Measured } | undefined;
	for (const mib of [PEER_MIB, ...[...PEER_STEPS].reverse().filter((s) => s < PEER_MIB)]) {
		const file = path.join(dir, `peer-${mib}.txt`);
		makeTextFile(file, mib);
		const measured = await runWorker(peerWorker, { ...uploader, direction: 'upload', file }, dir, { env, timeoutMs: PEER_TIMEOUT_MS });
		rmSync(file, { force: true });
		log(`ebics-client upload ${mib} MiB`, measured, measured.uploadS);
		if (measured.ok) {
			peerUpload = { mib, measured };
			break;
		}
		failures.push(`upload ${mib} MiB: ${measured.error}`);
	}
	// Downloads: from the smallest up to PEER_MIB, until the peer fails (a failed download leaves its file undelivered).
	const downloader = await peerSubscriber('DOWN');
	let peerDownload: { mib: number; measured: Measured } | undefined;
	for (const mib of [...PEER_STEPS.filter((s) => s < PEER_MIB), PEER_MIB]) {
		const warmupSha256 = await seedFor('PEER', 'DOWN', PEER_WARMUP_BYTES);
		const sha256 = await seedFor('PEER', 'DOWN', Math.round(mib * MIB));
		const measured = await runWorker(peerWorker, { ...downloader, direction: 'download', sha256, warmupSha256 }, dir, { env, timeoutMs: PEER_TIMEOUT_MS });
		log(`ebics-client download ${mib} MiB`, measured, measured.downloadS);
		if (!measured.ok) {
			failures.push(`download ${mib} MiB: ${measured.error}`);
			break;
		}
		peerDownload = { mib, measured };
	}

	// The node in EBICS 2.5, the same bytes: at PEER_MIB, and at the sizes the peer carried.
	const nodeValues = { url: h005.url, hostId: info.hostId, partnerId: 'NODEH4', userId: 'USER1', bankAuthenticationHash: info.bankHashesH004.authentication, bankEncryptionHash: info.bankHashesH004.encryption, subscriberName: 'Sandbox Customer GmbH', bankName: 'Sandbox Bank', caCertificate: h005.caCertificate, keySource: 'generate', ebicsVersion: 'H004' };
	const nodeAt = async (uploadMib: number | undefined, downloadMib: number | undefined, userId: string): Promise<Measured> => {
		await bank.admin('POST', '/ebics/subscribers', { partnerId: 'NODEH4', userId, name: 'n8n' });
		const warmupFile = path.join(dir, 'node-h004-warmup.txt');
		makeTextFile(warmupFile, 1);
		const file = path.join(dir, 'node-h004.txt');
		makeTextFile(file, uploadMib ?? 1);
		const warmupDownloadSha256 = await seedFor('NODEH4', userId, MIB);
		const downloadSha256 = await seedFor('NODEH4', userId, Math.round((downloadMib ?? 1) * MIB));
		const measured = await runWorker(nodeWorker, { client: 'node', file, downloadSha256, warmupFile, warmupDownloadSha256, credentials: { ...nodeValues, userId }, bankPid: bank.pid, h004: { adminUrl: bank.state.urls.admin, caPem: bank.caPem }, only: uploadMib === undefined ? 'download' : downloadMib === undefined ? 'upload' : undefined }, dir);
		rmSync(file, { force: true });
		rmSync(warmupFile, { force: true });
		cleanHarnessFolders();
		console.log(`  ebicsTransfer node H004 ${uploadMib ?? '-'} MiB up, ${downloadMib ?? '-'} MiB down: ${measured.ok ? `upload ${measured.uploadS} s (+${measured.uploadPeakRssMb} MiB), download ${measured.downloadS} s (+${measured.downloadPeakRssMb} MiB)` : `failed: ${measured.error}`}`);
		if (!measured.ok) throw new Error(`the node in EBICS 2.5: ${measured.error}`);
		return measured;
	};
	const atSize = await nodeAt(PEER_MIB, PEER_MIB, 'FULL');
	const upMib = peerUpload?.mib ?? 0;
	const downMib = peerDownload?.mib ?? 0;
	const compared = upMib === PEER_MIB && downMib === PEER_MIB ? atSize : await nodeAt(upMib && upMib < PEER_MIB ? upMib : undefined, downMib && downMib < PEER_MIB ? downMib : undefined, 'SMALL');
	const nodeUp = upMib === PEER_MIB ? atSize : compared;
	const nodeDown = downMib === PEER_MIB ? atSize : compared;
	const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? round(a / b) : NaN);
	return {
		sizeMib: PEER_MIB,
		peerVersion,
		peerUploadMib: upMib,
		peerDownloadMib: downMib,
		uploadLargestMib: upMib,
		downloadLargestMib: downMib,
		peerFailures: failures,
		ratioToPeerUpload: ratio(nodeUp.uploadS, peerUpload?.measured.uploadS),
		ratioToPeerDownload: ratio(nodeDown.downloadS, peerDownload?.measured.downloadS),
		rssRatioToPeerUpload: ratio(nodeUp.uploadPeakRssMb, peerUpload?.measured.peakRssMb),
		rssRatioToPeerDownload: ratio(nodeDown.downloadPeakRssMb, peerDownload?.measured.peakRssMb),
		nodeUploadS: Number(nodeUp.uploadS),
		nodeDownloadS: Number(nodeDown.downloadS),
		peerUploadS: Number(peerUpload?.measured.uploadS ?? NaN),
		peerDownloadS: Number(peerDownload?.measured.downloadS ?? NaN),
		nodeUploadPeakRssMb: Number(nodeUp.uploadPeakRssMb),
		nodeDownloadPeakRssMb: Number(nodeDown.downloadPeakRssMb),
		peerUploadPeakRssMb: Number(peerUpload?.measured.peakRssMb ?? NaN),
		peerDownloadPeakRssMb: Number(peerDownload?.measured.peakRssMb ?? NaN),
		nodeAtSize: { uploadS: Number(atSize.uploadS), downloadS: Number(atSize.downloadS), uploadPeakRssMb: Number(atSize.uploadPeakRssMb), downloadPeakRssMb: Number(atSize.downloadPeakRssMb) },
	};
}
