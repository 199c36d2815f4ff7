/**
 * The peer of the ebicsTransfer benchmark: the npm package ebics-client (5.x, EBICS 2.5 / H004,
 * written by others), in its own process, against the sandbox bank, driven through its own API
 * as a user would drive it (test/helpers/ebicsClientH004.js does the same in the tests).
 *
 *   node ebics-peer-worker.js keys <settings.json>   INI, HIA, activation at the sandbox, HPB
 *   node ebics-peer-worker.js <settings.json>        one upload (CCT) or one download (VMK),
 *                                                    measured: prints `RESULT {json}`
 *
 * The upload is checked by the bank's return codes of each request (ebics-client's own upload
 * does not look at them), the download by the SHA-256 of the order data. Needs
 * NODE_EXTRA_CA_CERTS set to the sandbox CA (ebics-client uses Node's default agent).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';

import { peakDuring, reportMeasured, runMain, unused, usedFields, type TransferTiming } from './workerCommon';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client, Orders, fsKeysStorage } = require('ebics-client') as {
	Client: new (options: Record<string, unknown>) => PeerClient;
	Orders: Record<string, (...args: unknown[]) => PeerOrder> & { INI: PeerOrder; HIA: PeerOrder; HPB: PeerOrder };
	fsKeysStorage: (file: string) => unknown;
};

interface PeerOrder {
	transactionId?: string;
	[key: string]: unknown;
}
interface PeerResponse {
	technicalCode(): string;
	businessCode(): string;
	transactionId(): string;
}
interface PeerClient {
	send(order: PeerOrder): Promise<Record<string, unknown> & { bankKeys?: Record<string, unknown>; orderData?: Buffer; technicalCode?: string; businessCode?: string }>;
	ebicsRequest(order: PeerOrder): Promise<PeerResponse>;
	setBankKeys(keys: Record<string, unknown>): Promise<void>;
}

interface Settings {
	url: string;
	hostId: string;
	partnerId: string;
	userId: string;
	keysDir: string;
	adminUrl: string;
	caPem: string;
	direction?: 'upload' | 'download';
	/** Upload: the text file sent as a CCT. */
	file?: string;
	/** Download: the SHA-256 of the file the bank delivers (seeded by the parent, after a warm-up file of 1 KiB). */
	sha256?: string;
	warmupSha256?: string;
}

function client(settings: Settings): PeerClient {
	return new Client({
		url: settings.url,
		hostId: settings.hostId,
		partnerId: settings.partnerId,
		userId: settings.userId,
		passphrase: 'sandbox test passphrase',
		keyStorage: fsKeysStorage(path.join(settings.keysDir, 'keys')),
		bankName: 'Sandbox Bank',
	});
}

async function admin(settings: Settings, subPath: string): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const req = https.request(`${settings.adminUrl}${subPath}`, { method: 'POST', ca: settings.caPem, headers: { 'content-type': 'application/json' } }, (res) => {
			res.resume();
			res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`admin ${subPath}: ${res.statusCode}`))));
		});
		req.on('error', reject);
		req.end('{}');
	});
}

const OK = (code: string | undefined) => code === '000000';

async function keys(settings: Settings): Promise<void> {
	const peer = client(settings);
	const ini = await peer.send(Orders.INI);
	const hia = await peer.send(Orders.HIA);
	if (!OK(ini.technicalCode) || !OK(hia.technicalCode)) throw new Error(`INI ${ini.technicalCode}, HIA ${hia.technicalCode}`);
	await admin(settings, `/ebics/subscribers/${settings.partnerId}/${settings.userId}/activate`);
	const hpb = await peer.send(Orders.HPB);
	if (!OK(hpb.technicalCode) || !hpb.bankKeys) throw new Error(`HPB ${hpb.technicalCode}`);
	await peer.setBankKeys(hpb.bankKeys);
	process.stdout.write('RESULT {"ok":true}\n');
}

/** ebics-client's upload (initialisation, then its one transfer request), with the bank's codes checked. */
async function upload(peer: PeerClient, document: string): Promise<void> {
	const order = Orders.CCT(document);
	const init = await peer.ebicsRequest(order);
	if (!OK(init.technicalCode()) || !OK(init.businessCode())) throw new Error(`the bank refused the upload's initialisation: ${init.technicalCode()} ${init.businessCode()}`);
	order.transactionId = init.transactionId();
	const transfer = await peer.ebicsRequest(order);
	if (!OK(transfer.technicalCode()) || !OK(transfer.businessCode())) throw new Error(`the bank refused the upload's data: ${transfer.technicalCode()} ${transfer.businessCode()}`);
}

async function download(peer: PeerClient, expected: string | undefined): Promise<void> {
	const answer = await peer.send(Orders.VMK());
	if (!OK(answer.technicalCode) || !OK(answer.businessCode)) throw new Error(`the bank answered ${answer.technicalCode} ${answer.businessCode}`);
	const data = answer.orderData;
	if (!Buffer.isBuffer(data)) throw new Error('no order data');
	const got = createHash('sha256').update(data).digest('hex');
	if (got !== expected) throw new Error(`the downloaded file differs (${data.length} bytes, ${got} instead of ${expected})`);
}

async function measure(settings: Settings): Promise<void> {
	const peer = client(settings);
	await reportMeasured(
		async () => {
			// Warm-up: a small transfer the same way (loads the modules, compiles the hot paths).
			if (settings.direction === 'upload') await upload(peer, 'warm-up '.repeat(128));
			else await download(peer, settings.warmupSha256);
		},
		async (): Promise<TransferTiming> => {
			const used = unused();
			let seconds = 0;
			const peak = await peakDuring(async () => {
				const start = process.hrtime.bigint();
				if (settings.direction === 'upload') await upload(peer, readFileSync(settings.file as string, 'utf8'));
				else await download(peer, settings.sha256);
				seconds = Number(process.hrtime.bigint() - start) / 1e9;
			}, used);
			const upload_ = settings.direction === 'upload';
			return {
				uploadS: upload_ ? seconds : 0,
				downloadS: upload_ ? 0 : seconds,
				uploadPeakRss: upload_ ? peak : 0,
				downloadPeakRss: upload_ ? 0 : peak,
				...usedFields(upload_ ? used : unused(), upload_ ? unused() : used),
			};
		},
	);
}

async function main(): Promise<void> {
	if (process.argv[2] === 'keys') await keys(JSON.parse(readFileSync(process.argv[3], 'utf8')) as Settings);
	else await measure(JSON.parse(readFileSync(process.argv[2], 'utf8')) as Settings);
}

runMain(main);
