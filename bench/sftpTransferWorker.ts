/**
 * One client of the sftpTransfer benchmark, run in its own process so that its memory is measured
 * alone (sshd runs in its own processes): an upload, then a download, by one client. Prints
 * `RESULT {json}` as its last line.
 *
 * - node: the Bank SFTP node through n8n's engine with binary data on the filesystem: Read File
 *   (the file streamed into binary storage) -> Bank SFTP Upload (signed and encrypted), then Bank
 *   SFTP Download (decrypted, the bank's signature verified) -> Hash (outside the timing).
 * - n8nSftp: n8n's own FTP node (n8n-nodes-base, protocol SFTP) from the installed n8n, loaded
 *   into the same engine: Read File -> FTP Upload, then FTP Download -> Hash. Transfer only, no
 *   OpenPGP (that node has none).
 *
 * Seconds are the measured node's own execution time in the run data.
 */
import '../test/harness/env';

import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { ICredentialType, INodeType } from 'n8n-workflow';

import { chainWorkflow, createCredentialStore, runWorkflow, type ChainStep, type CredentialStore, type RunResult } from '../test/harness/engine';
import { InspectFile } from '../test/helpers/binaryNodes';
import { PACKAGE, packageCredentialTypes, packageNodeTypes, SFTP } from '../test/helpers/nodes';
import { peakDuring, ReadFile, reportMeasured, runMain, unused, usedFields, type TransferTiming } from './workerCommon';

export interface SftpWorkerSettings {
	client: 'node' | 'n8nSftp';
	/** The plain file to upload and the name it gets at the bank. */
	file: string;
	uploadName: string;
	/** The file at the bank to download (in the incoming folder) and the SHA-256 of what the client must end with. */
	downloadName: string;
	downloadSha256: string;
	warmup: { file: string; uploadName: string; downloadName: string; downloadSha256: string };
	server: { host: string; port: number; username: string; clientKey: string; fingerprint: string; outgoing: string; incoming: string };
	/** The customer's private key and the bank's public key (armoured), for the node. */
	pgpPrivateKey: string;
	bankPublicKeys: string;
}

/** n8n's installed n8n-nodes-base (the one real n8n runs), when it is there. */
export function n8nNodesBase(): string | undefined {
	const root = process.env.N8N_INSTALL_DIR ?? path.join(os.homedir(), '.cache', 'n8n-nodes-corporate-banking');
	const found = existsSync(root)
		? require('node:fs')
				.readdirSync(root)
				.filter((name: string) => /^n8n-\d/.test(name))
				.sort()
				.reverse()
				.map((name: string) => path.join(root, name, 'node_modules', 'n8n-nodes-base'))
				.find((dir: string) => existsSync(path.join(dir, 'dist', 'nodes', 'Ftp', 'Ftp.node.js')))
		: undefined;
	return found as string | undefined;
}

const FTP_TYPE = 'n8n-nodes-base.ftp';

let store: CredentialStore | undefined;

function setUp(settings: SftpWorkerSettings): { nodeTypes: Record<string, INodeType>; credentialTypes: ICredentialType[] } {
	const common = { 'bench.readFile': new ReadFile(), 'bench.hashFile': new InspectFile() };
	if (settings.client === 'node') {
		store ??= createCredentialStore([
			{
				id: 'sftp',
				name: 'Bank SFTP',
				type: SFTP,
				data: {
					host: settings.server.host,
					port: settings.server.port,
					username: settings.server.username,
					authentication: 'privateKey',
					privateKey: settings.server.clientKey,
					passphrase: '',
					hostKeyFingerprint: settings.server.fingerprint,
					outgoingFolder: settings.server.outgoing,
					incomingFolder: settings.server.incoming,
					archiveFolder: 'archive',
					pgpKeySource: 'imported',
					pgpPrivateKey: settings.pgpPrivateKey,
					pgpPassphrase: '',
					bankPublicKeys: settings.bankPublicKeys,
				},
			},
		]);
		return { nodeTypes: { ...(packageNodeTypes() as Record<string, INodeType>), ...common }, credentialTypes: packageCredentialTypes() };
	}
	const base = n8nNodesBase();
	if (!base) throw new Error('n8n-nodes-base is not installed (real n8n under ~/.cache/n8n-nodes-corporate-banking)');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Ftp } = require(path.join(base, 'dist', 'nodes', 'Ftp', 'Ftp.node.js')) as { Ftp: new () => INodeType };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Sftp } = require(path.join(base, 'dist', 'credentials', 'Sftp.credentials.js')) as { Sftp: new () => ICredentialType };
	store ??= createCredentialStore([
		{
			id: 'sftp',
			name: 'SFTP',
			type: 'sftp',
			data: { host: settings.server.host, port: settings.server.port, username: settings.server.username, password: '', privateKey: settings.server.clientKey, passphrase: '' },
		},
	]);
	return { nodeTypes: { [FTP_TYPE]: new Ftp(), ...common }, credentialTypes: [new Sftp()] };
}

async function run(settings: SftpWorkerSettings, steps: ChainStep[], what: string): Promise<RunResult> {
	const types = setUp(settings);
	const credentials = settings.client === 'node' ? { [`${PACKAGE}.bankSftp`]: { [SFTP]: { id: 'sftp', name: 'Bank SFTP' } } } : { [FTP_TYPE]: { sftp: { id: 'sftp', name: 'SFTP' } } };
	const result = await runWorkflow({
		workflow: chainWorkflow(steps, credentials),
		nodeTypes: types.nodeTypes,
		credentialTypes: types.credentialTypes,
		credentials: store!,
		binaryDataMode: 'filesystem',
	});
	if (result.status !== 'success') throw new Error(`the ${what} failed: ${result.error?.message ?? 'unknown error'} ${(result.error as { description?: string })?.description ?? ''}`);
	return result;
}

async function pair(settings: SftpWorkerSettings, files: SftpWorkerSettings['warmup']): Promise<TransferTiming> {
	const node = settings.client === 'node';
	const type = node ? `${PACKAGE}.bankSftp` : FTP_TYPE;
	let up: RunResult | undefined;
	let down: RunResult | undefined;
	const uploadUsed = unused();
	const downloadUsed = unused();
	const uploadPeakRss = await peakDuring(async () => {
		up = await run(
			settings,
			[
				{ name: 'Read', type: 'bench.readFile', parameters: { path: files.file } },
				{
					name: 'Upload',
					type,
					parameters: node
						? { resource: 'file', operation: 'upload', fileName: files.uploadName, sign: true, encrypt: true, options: { sendAgain: true } }
						: { protocol: 'sftp', operation: 'upload', path: `${settings.server.outgoing}/${files.uploadName}`, binaryData: true, binaryPropertyName: 'data' },
				},
			],
			'upload',
		);
	}, uploadUsed);
	const downloadPeakRss = await peakDuring(async () => {
		down = await run(
			settings,
			[
				{
					name: 'Download',
					type,
					parameters: node
						? { resource: 'file', operation: 'download', path: files.downloadName, decrypt: true }
						: { protocol: 'sftp', operation: 'download', path: `${settings.server.incoming}/${files.downloadName}`, binaryPropertyName: 'data' },
				},
				{ name: 'Hash', type: 'bench.hashFile', parameters: {} },
			],
			'download',
		);
	}, downloadUsed);
	const got = down?.output('Hash')[0].json.sha256;
	if (got !== files.downloadSha256) throw new Error(`the downloaded file differs (${String(got)} instead of ${files.downloadSha256})`);
	const seconds = (result: RunResult | undefined, name: string) => (result?.runData[name]?.[0]?.executionTime ?? NaN) / 1000;
	return {
		uploadS: seconds(up, 'Upload'),
		downloadS: seconds(down, 'Download'),
		uploadPeakRss,
		downloadPeakRss,
		...usedFields(uploadUsed, downloadUsed),
	};
}

async function main(): Promise<void> {
	const settings = JSON.parse(readFileSync(process.argv[2], 'utf8')) as SftpWorkerSettings;
	await reportMeasured(
		async () => {
			await pair(settings, settings.warmup);
		},
		async () => await pair(settings, { file: settings.file, uploadName: settings.uploadName, downloadName: settings.downloadName, downloadSha256: settings.downloadSha256 }),
	);
}

if (require.main === module) runMain(main);
