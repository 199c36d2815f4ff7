/**
 * sftpTransfer: 100 MiB and 1 GiB of random bytes up (signed and encrypted, then uploaded) and
 * down (downloaded, decrypted and the signature verified) through the Bank SFTP node, run by n8n's
 * engine with binary data on the filesystem, against a local OpenSSH sshd (the tests' helper:
 * chrooted internal-sftp). In the same run:
 *
 * - the lower bound: OpenSSH's own `sftp` client (batch mode, key login) and `gpg` doing the same
 *   work on the same files: upload = `gpg --sign --encrypt` to a file, then `sftp` puts it under a
 *   temporary name and renames it; download = `sftp` gets the file, then `gpg --decrypt` (which
 *   verifies the signature). Both steps of a direction are timed together; CPU seconds and peak
 *   RSS from `/usr/bin/time` (the largest of the two processes, whole, not over an idle level).
 * - n8n's own SFTP node (n8n-nodes-base's FTP node, protocol SFTP, from the installed n8n) in the
 *   same engine: the same plain file up, the same encrypted file down, transfer only.
 *
 * gpg and the node use the same algorithms: AES-256, SHA-256, no compression, the integrity
 * protected packet of RFC 4880 (SEIPD v1, what gpg 2.2 writes for these keys). The file the bank
 * holds for the downloads is made by gpg (signed by the bank's key, encrypted to the customer's).
 *
 * Every Node.js client runs in its own process (bench/sftpTransferWorker.ts, compiled), its peak
 * RSS measured over the same process idle after a warm-up pair of 16 MiB. Per size:
 * ratioToLowerBoundUpload/Download (target <= 1.2), ratioToN8nSftpUpload/Download,
 * peakRssOverIdleMiB (target < 64), seconds, CPU seconds, and the load average before and after.
 * `BENCH_SFTP_SIZES=100` runs only the sizes given (MiB, comma-separated); `BENCH_SFTP_REPS`
 * the repetitions at 100 MiB (default 3; 1 GiB once); `BENCH_SFTP_CLIENTS=node` measures only
 * the clients named (lowerBound, node, n8nSftp: for a profile; no ratios without both);
 * `BENCH_SFTP_N8N_SIZES=100` measures n8n's SFTP node only at the sizes given (it needs about ten
 * times the node's time: 1 GiB would take it some 20 minutes here).
 */
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Gpg } from '../test/helpers/gpg';
import { startSshd, type Sshd } from '../test/helpers/sshd';
import { median, round } from './common';
import { compile } from './compiled';
import { cleanHarnessFolders, makeFile, runWorker, type Measured } from './fileService.bench';
import type { SftpWorkerSettings } from './sftpTransferWorker';
import { sha256 } from './workerCommon';

const MIB = 1024 * 1024;
const SIZES = [100, 1024];
const REPS: Record<number, number> = { 100: Number(process.env.BENCH_SFTP_REPS) || 3, 1024: 1 };
const WARMUP_MIB = 16;
const GPG_ALGORITHMS = ['--cipher-algo', 'AES256', '--digest-algo', 'SHA256', '--compress-algo', 'none'];

export interface SftpSizeResult {
	/** The node's seconds over the lower bound's (sftp + gpg), per direction: target <= 1.2. */
	ratioToLowerBoundUpload: number;
	ratioToLowerBoundDownload: number;
	/** The node's seconds (with OpenPGP) over n8n's own SFTP node's (transfer only), per direction. */
	ratioToN8nSftpUpload?: number;
	ratioToN8nSftpDownload?: number;
	/** Seconds (medians). */
	uploadS: number;
	downloadS: number;
	lowerBoundUploadS: number;
	lowerBoundDownloadS: number;
	n8nSftpUploadS?: number;
	n8nSftpDownloadS?: number;
	/** CPU seconds (medians) of each client's processes (sshd's not counted). */
	uploadCpuS: number;
	downloadCpuS: number;
	lowerBoundUploadCpuS: number;
	lowerBoundDownloadCpuS: number;
	n8nSftpUploadCpuS?: number;
	n8nSftpDownloadCpuS?: number;
	/** The node's peak RSS over its idle process, MiB: whole, upload, download (target < 64). */
	peakRssOverIdleMiB: number;
	uploadPeakRssOverIdleMiB: number;
	downloadPeakRssOverIdleMiB: number;
	n8nSftpPeakRssOverIdleMiB?: number;
	idleRssMiB: number;
	/** The largest peak RSS of the lower bound's processes (gpg, sftp), whole. */
	lowerBoundMaxRssMiB: number;
	/** Why n8n's SFTP node could not be measured, if it could not. */
	n8nSftpError?: string;
	/** The machine's 1-minute load average before and after the size's runs (2 cores). */
	loadAverage: [number, number];
	runs: number;
	targets: { ratioToLowerBound: string; peakRssOverIdleMiB: string };
}

export interface SftpTransferResult {
	sizes: number[];
	[size: string]: SftpSizeResult | number[] | string;
}

function chosenSizes(): number[] {
	const given = (process.env.BENCH_SFTP_SIZES ?? '').split(',').filter(Boolean).map(Number);
	return given.length ? given : SIZES;
}

/** One command under /usr/bin/time: wall seconds, CPU seconds, peak RSS (bytes). */
async function timedCommand(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; dir: string }): Promise<{ seconds: number; cpuS: number; maxRss: number }> {
	const timeFile = path.join(options.dir, `time-${process.hrtime.bigint()}.txt`);
	const start = process.hrtime.bigint();
	const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, command, ...args], { env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
	let stderr = '';
	child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
	const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
	const seconds = Number(process.hrtime.bigint() - start) / 1e9;
	if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${code}): ${stderr.trim()}`);
	const [user, system, kb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
	rmSync(timeFile, { force: true });
	return { seconds, cpuS: user + system, maxRss: kb * 1024 };
}

/** OpenSSH's sftp in batch mode with the client key; `commands` one a line. */
function sftpArgs(sshd: Sshd, keyFile: string, batchFile: string): string[] {
	return ['-q', '-b', batchFile, '-i', keyFile, '-P', String(sshd.port), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes', '-o', 'LogLevel=ERROR', `${sshd.username}@${sshd.host}`];
}

interface LowerBoundFiles {
	file: string;
	sha256: string;
	downloadName: string;
}

/** The lower bound once: gpg + sftp up, sftp + gpg down, each direction's steps timed together. */
async function lowerBound(sshd: Sshd, gpg: Gpg, keys: { bankFp: string; customerFp: string }, keyFile: string, files: LowerBoundFiles, dir: string, tag: string): Promise<Measured> {
	const env = { ...process.env, GNUPGHOME: gpg.home };
	const gpgBase = ['--batch', '--yes', '--no-tty', '--pinentry-mode', 'loopback', '--passphrase', '', '--trust-model', 'always'];
	const sealed = path.join(dir, `lb-${tag}.pgp`);
	const fetched = path.join(dir, `lb-${tag}-down.pgp`);
	const opened = path.join(dir, `lb-${tag}-down.bin`);
	const statusFile = path.join(dir, `lb-${tag}-status.txt`);
	const upBatch = path.join(dir, `lb-${tag}-up.batch`);
	const downBatch = path.join(dir, `lb-${tag}-down.batch`);
	const name = `lb-${tag}.pgp`;
	writeFileSync(upBatch, `put ${sealed} ${sshd.folders.outgoing}/.${name}.part\nrename ${sshd.folders.outgoing}/.${name}.part ${sshd.folders.outgoing}/${name}\n`);
	writeFileSync(downBatch, `get ${sshd.folders.incoming}/${files.downloadName} ${fetched}\n`);
	try {
		const sign = await timedCommand('gpg', [...gpgBase, ...GPG_ALGORITHMS, '--sign', '--local-user', keys.customerFp, '--encrypt', '--recipient', keys.bankFp, '--output', sealed, files.file], { env, dir });
		const put = await timedCommand('sftp', sftpArgs(sshd, keyFile, upBatch), { dir });
		rmSync(sealed, { force: true });
		rmSync(sshd.bankPath(sshd.folders.outgoing, name), { force: true });
		const get = await timedCommand('sftp', sftpArgs(sshd, keyFile, downBatch), { dir });
		const decrypt = await timedCommand('gpg', [...gpgBase, '--status-file', statusFile, '--output', opened, '--decrypt', fetched], { env, dir });
		const status = readFileSync(statusFile, 'utf8');
		if (!/VALIDSIG/.test(status) || !/DECRYPTION_OKAY/.test(status)) throw new Error(`gpg did not verify the download: ${status}`);
		const got = await sha256(opened);
		if (got !== files.sha256) throw new Error(`the lower bound's download differs (${got})`);
		return {
			ok: true,
			uploadS: round(sign.seconds + put.seconds),
			downloadS: round(get.seconds + decrypt.seconds),
			wallS: round(sign.seconds + put.seconds + get.seconds + decrypt.seconds),
			uploadCpuS: round(sign.cpuS + put.cpuS),
			downloadCpuS: round(get.cpuS + decrypt.cpuS),
			maxRssMb: round(Math.max(sign.maxRss, put.maxRss, get.maxRss, decrypt.maxRss) / MIB, 1),
		};
	} catch (error) {
		return { ok: false, error: (error as Error).message };
	} finally {
		for (const f of [sealed, fetched, opened, statusFile, upBatch, downBatch]) rmSync(f, { force: true });
	}
}

/** Encrypts `file` to the customer, signed by the bank (what the bank puts in the incoming folder), as `name` there. */
function bankFile(gpg: Gpg, sshd: Sshd, keys: { bankFp: string; customerFp: string }, file: string, name: string): string {
	const target = sshd.bankPath(sshd.folders.incoming, name);
	gpg.ok([...GPG_ALGORITHMS, '--passphrase', '', '--sign', '--local-user', keys.bankFp, '--encrypt', '--recipient', keys.customerFp, '--output', target, file]);
	if (sshd.chrooted) chownSync(target, 65534, 65534);
	return target;
}

export async function run(sizes: readonly number[] = chosenSizes()): Promise<SftpTransferResult> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-sftp-'));
	const worker = await compile('bench/sftpTransferWorker.ts', 'sftp-transfer-worker');
	const sshd = await startSshd();
	const gpg = new Gpg();
	const result: SftpTransferResult = { sizes: [...sizes] };
	try {
		const bankFp = gpg.generate('Bank <h2h@bank.example>');
		const customerFp = gpg.generate('Customer <treasury@customer.example>');
		const keys = { bankFp, customerFp };
		const keyFile = path.join(dir, 'client_key');
		writeFileSync(keyFile, sshd.clientKey, { mode: 0o600 });
		const server = { host: sshd.host, port: sshd.port, username: sshd.username, clientKey: sshd.clientKey, fingerprint: sshd.fingerprint, outgoing: sshd.folders.outgoing, incoming: sshd.folders.incoming };
		const pgpPrivateKey = gpg.exportSecret(customerFp);
		const bankPublicKeys = gpg.exportPublic(bankFp);
		const warmupFile = path.join(dir, 'warmup.bin');
		const warmupSha256 = makeFile(warmupFile, WARMUP_MIB);
		const warmupDown = bankFile(gpg, sshd, keys, warmupFile, 'warmup.bin.pgp');
		const warmupDownSha256 = await sha256(warmupDown);
		// gpg's agent started and sftp's first login made before anything is timed.
		await lowerBound(sshd, gpg, keys, keyFile, { file: warmupFile, sha256: warmupSha256, downloadName: 'warmup.bin.pgp' }, dir, 'warmup');
		let run = 0;
		for (const mib of sizes) {
			const loadBefore = os.loadavg()[0];
			const file = path.join(dir, `file-${mib}.bin`);
			const fileSha256 = makeFile(file, mib);
			const downloadName = `statement-${mib}.bin.pgp`;
			const encrypted = bankFile(gpg, sshd, keys, file, downloadName);
			const encryptedSha256 = await sha256(encrypted);
			const n8nSizes = (process.env.BENCH_SFTP_N8N_SIZES ?? '').split(',').filter(Boolean).map(Number);
			const clients = (['lowerBound', 'node', 'n8nSftp'] as const)
				.filter((c) => !process.env.BENCH_SFTP_CLIENTS || process.env.BENCH_SFTP_CLIENTS.split(',').includes(c))
				.filter((c) => c !== 'n8nSftp' || !n8nSizes.length || n8nSizes.includes(mib));
			const runs: Record<'lowerBound' | 'node' | 'n8nSftp', Measured[]> = { lowerBound: [], node: [], n8nSftp: [] };
			for (let rep = 0; rep < (REPS[mib] ?? 1); rep++) {
				for (const client of clients) {
					const tag = `${mib}-${rep}-${client}`;
					let measured: Measured;
					if (client === 'lowerBound') {
						measured = await lowerBound(sshd, gpg, keys, keyFile, { file, sha256: fileSha256, downloadName }, dir, tag);
					} else {
						const plainDownload = client === 'n8nSftp';
						const settings: SftpWorkerSettings = {
							client,
							file,
							uploadName: `up-${tag}.pgp`,
							downloadName,
							downloadSha256: plainDownload ? encryptedSha256 : fileSha256,
							warmup: { file: warmupFile, uploadName: `warmup-${run++}.pgp`, downloadName: 'warmup.bin.pgp', downloadSha256: plainDownload ? warmupDownSha256 : warmupSha256 },
							server,
							pgpPrivateKey,
							bankPublicKeys,
						};
						measured = await runWorker(worker, settings as unknown as Record<string, unknown>, dir, { timeoutMs: 30 * 60_000 });
						cleanHarnessFolders();
						for (const name of readdirSync(sshd.bankPath(sshd.folders.outgoing))) rmSync(sshd.bankPath(sshd.folders.outgoing, name), { force: true });
					}
					runs[client].push(measured);
					console.log(
						`  sftpTransfer ${mib} MiB ${client.padEnd(10)} ${measured.ok ? `upload ${measured.uploadS} s (CPU ${measured.uploadCpuS} s), download ${measured.downloadS} s (CPU ${measured.downloadCpuS} s), ${client === 'lowerBound' ? `max RSS ${measured.maxRssMb} MiB` : `peak RSS +${measured.peakRssMb} MiB (upload +${measured.uploadPeakRssMb}, download +${measured.downloadPeakRssMb})`}, load ${os.loadavg()[0].toFixed(2)}` : `failed: ${measured.error}`}`,
					);
				}
			}
			rmSync(file, { force: true });
			rmSync(encrypted, { force: true });
			for (const client of ['lowerBound', 'node'] as const) {
				const failed = runs[client].find((r) => !r.ok);
				if (failed) throw new Error(`sftpTransfer ${mib} MiB: the ${client} failed: ${failed.error}`);
			}
			const pick = (list: Measured[], key: keyof Measured) => round(median(list.map((r) => Number(r[key]))));
			const peak = (list: Measured[], key: keyof Measured) => round(Math.max(...list.map((r) => Number(r[key]))), 1);
			const n8nOk = runs.n8nSftp.length > 0 && runs.n8nSftp.every((r) => r.ok);
			const s: SftpSizeResult = {
				ratioToLowerBoundUpload: round(pick(runs.node, 'uploadS') / pick(runs.lowerBound, 'uploadS')),
				ratioToLowerBoundDownload: round(pick(runs.node, 'downloadS') / pick(runs.lowerBound, 'downloadS')),
				uploadS: pick(runs.node, 'uploadS'),
				downloadS: pick(runs.node, 'downloadS'),
				lowerBoundUploadS: pick(runs.lowerBound, 'uploadS'),
				lowerBoundDownloadS: pick(runs.lowerBound, 'downloadS'),
				uploadCpuS: pick(runs.node, 'uploadCpuS'),
				downloadCpuS: pick(runs.node, 'downloadCpuS'),
				lowerBoundUploadCpuS: pick(runs.lowerBound, 'uploadCpuS'),
				lowerBoundDownloadCpuS: pick(runs.lowerBound, 'downloadCpuS'),
				peakRssOverIdleMiB: peak(runs.node, 'peakRssMb'),
				uploadPeakRssOverIdleMiB: peak(runs.node, 'uploadPeakRssMb'),
				downloadPeakRssOverIdleMiB: peak(runs.node, 'downloadPeakRssMb'),
				idleRssMiB: round(pick(runs.node, 'idleRssMb'), 1),
				lowerBoundMaxRssMiB: peak(runs.lowerBound, 'maxRssMb'),
				loadAverage: [round(loadBefore, 2), round(os.loadavg()[0], 2)],
				runs: runs.node.length,
				targets: { ratioToLowerBound: '<= 1.2', peakRssOverIdleMiB: '< 64' },
			};
			if (n8nOk) {
				Object.assign(s, {
					ratioToN8nSftpUpload: round(s.uploadS / pick(runs.n8nSftp, 'uploadS')),
					ratioToN8nSftpDownload: round(s.downloadS / pick(runs.n8nSftp, 'downloadS')),
					n8nSftpUploadS: pick(runs.n8nSftp, 'uploadS'),
					n8nSftpDownloadS: pick(runs.n8nSftp, 'downloadS'),
					n8nSftpUploadCpuS: pick(runs.n8nSftp, 'uploadCpuS'),
					n8nSftpDownloadCpuS: pick(runs.n8nSftp, 'downloadCpuS'),
					n8nSftpPeakRssOverIdleMiB: peak(runs.n8nSftp, 'peakRssMb'),
				});
			} else s.n8nSftpError = runs.n8nSftp.find((r) => !r.ok)?.error ?? 'not measured in this run (BENCH_SFTP_N8N_SIZES, BENCH_SFTP_CLIENTS)';
			result[String(mib)] = s;
		}
		return result;
	} finally {
		await sshd.stop();
		gpg.remove();
		rmSync(dir, { recursive: true, force: true });
		cleanHarnessFolders();
	}
}
