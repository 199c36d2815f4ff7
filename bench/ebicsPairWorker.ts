/**
 * The lower bound of the ebicsTransfer benchmark: a minimal EBICS client and a minimal bank, each
 * in its own process, over TLS on loopback, one segment at a time at the spec's segment size
 * (786,432 bytes of encrypted order data, 1,048,576 base64 characters), each doing only its
 * transforms. No XML, no X002 signatures, no storage, no n8n.
 *
 * - upload: the client reads the file, hashes it for A006 (SHA-256, and one RSA-PSS signature of
 *   the hash), deflates, encrypts (AES-128-CBC) and base64-codes it, and sends it segment by
 *   segment, each after the bank's answer to the one before; the bank decodes, decrypts and
 *   inflates each segment before it answers, hashes what it inflates, and at the last segment
 *   checks the hash and the A006 signature.
 * - download: the bank holds the file deflated (made before the timing, as the sandbox bank
 *   compresses a file when it is seeded), and encrypts and base64-codes it one segment ahead (the
 *   next segment is made as soon as one is answered, as the sandbox bank does); the client
 *   asks for each segment after it has the one before (the next request goes before it decodes
 *   the current one, as the node does), decodes, decrypts and inflates it, and hashes what it
 *   inflates (checked against the file's SHA-256 at the end).
 *
 *   node ebics-pair-worker.js bank <settings.json>   prints `PAIR_READY <port>`, serves until killed
 *   node ebics-pair-worker.js <settings.json>        the client: prints `RESULT {json}` (workerCommon.ts)
 */
import { createCipheriv, createDecipheriv, createHash, createPublicKey, sign, verify, constants as cryptoConstants, type KeyObject } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Writable, type Readable } from 'node:stream';
import { createDeflate, createInflate, type Inflate } from 'node:zlib';

import { cpuSeconds, peakDuring, reportMeasured, runMain, unused, usedFields, type TransferTiming } from './workerCommon';

/** Encrypted order data per segment: 1,048,576 base64 characters. */
export const PAIR_SEGMENT = 786_432;
const ZERO_IV = Buffer.alloc(16);
const CHUNK = 256 * 1024;

interface BankSettings {
	keyPem: string;
	certPem: string;
	/** The transaction key both sides use (a real pair wraps it with RSA: one operation per transfer). */
	key: string;
	/** The A006 public key of the client (SPKI PEM). */
	signaturePublicKeyPem: string;
}

interface ClientSettings {
	caPem: string;
	port: number;
	key: string;
	signaturePrivateKeyPem: string;
	file: string;
	sha256: string;
	warmupFile: string;
	warmupSha256: string;
	bankPid: number;
}

const PSS = { padding: cryptoConstants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };

/** A stream's bytes in segments of exactly `size` bytes (the last one shorter). */
async function* segmentsOf(source: Readable, size: number): AsyncGenerator<Buffer> {
	let parts: Buffer[] = [];
	let held = 0;
	for await (const chunk of source) {
		let bytes = chunk as Buffer;
		while (held + bytes.length >= size) {
			const take = size - held;
			parts.push(bytes.subarray(0, take));
			yield parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
			parts = [];
			held = 0;
			bytes = bytes.subarray(take);
		}
		if (bytes.length) {
			parts.push(bytes);
			held += bytes.length;
		}
	}
	if (held) yield Buffer.concat(parts, held);
}

/** A file deflated (held in memory, as a bank holds a download ready). */
async function deflated(file: string): Promise<Buffer> {
	const parts: Buffer[] = [];
	await pipeline(
		createReadStream(file, { highWaterMark: CHUNK }),
		createDeflate({ chunkSize: CHUNK }),
		new Writable({
			write(chunk: Buffer, _encoding, done) {
				parts.push(chunk);
				done();
			},
		}),
	);
	return Buffer.concat(parts);
}

/** Deflated bytes encrypted and base64-coded a segment at a time, as each is asked for. */
function* encodedSegments(compressed: Buffer, key: Buffer): Generator<Buffer> {
	const cipher = createCipheriv('aes-128-cbc', key, ZERO_IV);
	for (let at = 0; at < compressed.length; at += PAIR_SEGMENT) {
		const last = at + PAIR_SEGMENT >= compressed.length;
		const plain = compressed.subarray(at, at + PAIR_SEGMENT);
		// A segment is a whole number of AES blocks: encrypting it gives exactly its bytes.
		const encrypted = last ? Buffer.concat([cipher.update(plain), cipher.final()]) : cipher.update(plain);
		yield Buffer.from(encrypted.toString('base64'), 'latin1');
	}
}

/** The receiving side of either direction: base64 segments decoded, decrypted, inflated and hashed. */
class Receiver {
	private readonly decipher;
	private readonly inflate: Inflate;
	private readonly hash = createHash('sha256');
	private readonly ended: Promise<void>;

	constructor(key: Buffer) {
		this.decipher = createDecipheriv('aes-128-cbc', key, ZERO_IV);
		this.inflate = createInflate({ chunkSize: CHUNK });
		const hash = this.hash;
		this.ended = pipeline(
			this.inflate,
			new Writable({
				write(chunk: Buffer, _encoding, done) {
					hash.update(chunk);
					done();
				},
			}),
		);
	}

	/** Resolves once the segment has been inflated. */
	async push(base64: Buffer): Promise<void> {
		const plain = this.decipher.update(Buffer.from(base64.toString('latin1'), 'base64'));
		await new Promise<void>((resolve, reject) => this.inflate.write(plain, (error) => (error ? reject(error) : resolve())));
	}

	/** The SHA-256 of everything inflated. */
	async finish(): Promise<Buffer> {
		this.inflate.end(this.decipher.final());
		await this.ended;
		return this.hash.digest();
	}
}

async function bodyOf(message: IncomingMessage): Promise<Buffer> {
	const length = Number(message.headers['content-length']);
	if (Number.isFinite(length)) {
		const body = Buffer.allocUnsafe(length);
		let at = 0;
		for await (const chunk of message) at += (chunk as Buffer).copy(body, at);
		return body.subarray(0, at);
	}
	const parts: Buffer[] = [];
	for await (const chunk of message) parts.push(chunk as Buffer);
	return Buffer.concat(parts);
}

function bank(settings: BankSettings): void {
	const key = Buffer.from(settings.key, 'hex');
	const signatureKey: KeyObject = createPublicKey(settings.signaturePublicKeyPem);
	let upload: Receiver | undefined;
	let download: { segments: Generator<Buffer>; ready: Buffer; following: IteratorResult<Buffer> } | undefined;
	let prepared: Buffer | undefined;

	async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const body = await bodyOf(req);
		const url = req.url ?? '';
		if (url === '/upload/start') {
			upload = new Receiver(key);
			res.end('ok');
		} else if (url === '/upload/segment') {
			if (!upload) throw new Error('no upload');
			await upload.push(body);
			if (req.headers['x-last'] === '1') {
				const digest = await upload.finish();
				upload = undefined;
				const signature = Buffer.from(String(req.headers['x-a006']), 'base64');
				if (!verify('sha256', digest, { key: signatureKey, ...PSS }, signature)) throw new Error('the A006 signature does not verify');
			}
			res.end('ok');
		} else if (url === '/download/prepare') {
			// Not timed: the bank has the file compressed before the download starts.
			prepared = await deflated(JSON.parse(body.toString('utf8')).file as string);
			res.end('ok');
		} else if (url.startsWith('/download/')) {
			if (url === '/download/start') {
				if (!prepared) throw new Error('no download prepared');
				const segments = encodedSegments(prepared, key);
				prepared = undefined;
				const first = segments.next();
				if (first.done) throw new Error('an empty file');
				download = { segments, ready: first.value, following: segments.next() };
			}
			if (!download) throw new Error('no download');
			const current = download.ready;
			const after = download.following;
			const last = !!after.done;
			res.writeHead(200, { 'content-length': current.length, 'x-last': last ? '1' : '0' });
			res.end(current);
			// The segment after the next is made as soon as this one is answered.
			if (after.done) download = undefined;
			else {
				download.ready = after.value;
				const state = download;
				setImmediate(() => {
					state.following = state.segments.next();
				});
			}
		} else {
			res.statusCode = 404;
			res.end();
		}
	}

	const server = https.createServer({ key: settings.keyPem, cert: settings.certPem, keepAliveTimeout: 60_000 }, (req, res) => {
		handle(req, res).catch((error: unknown) => {
			process.stderr.write(`pair bank: ${(error as Error)?.message}\n`);
			if (!res.headersSent) res.statusCode = 500;
			res.end(String((error as Error)?.message));
		});
	});
	server.listen(0, '127.0.0.1', () => {
		const address = server.address();
		process.stdout.write(`PAIR_READY ${typeof address === 'object' && address ? address.port : 0}\n`);
	});
}

/** One request to the pair's bank; resolves with the answer's body and its `x-last` header. */
async function post(agent: https.Agent, settings: ClientSettings, path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<{ body: Buffer; last: boolean }> {
	return await new Promise((resolve, reject) => {
		const payload = typeof body === 'string' ? Buffer.from(body) : body;
		const req = https.request({ host: '127.0.0.1', port: settings.port, path, method: 'POST', agent, ca: settings.caPem, servername: 'localhost', headers: { 'content-length': payload.length, ...headers } }, (res) => {
			bodyOf(res).then((answer) => {
				if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode} ${answer.toString()}`));
				else resolve({ body: answer, last: res.headers['x-last'] === '1' });
			}, reject);
		});
		req.on('error', reject);
		req.end(payload);
	});
}

async function clientUpload(agent: https.Agent, settings: ClientSettings, file: string): Promise<void> {
	const key = Buffer.from(settings.key, 'hex');
	const a006 = createHash('sha256');
	const source = createReadStream(file, { highWaterMark: CHUNK });
	const deflate = createDeflate({ chunkSize: CHUNK });
	const cipher = createCipheriv('aes-128-cbc', key, ZERO_IV);
	source.on('data', (chunk) => a006.update(chunk as Buffer));
	source.pipe(deflate).pipe(cipher);
	await post(agent, settings, '/upload/start', '');
	let pending: Buffer | undefined;
	for await (const segment of segmentsOf(cipher, PAIR_SEGMENT)) {
		if (pending) await post(agent, settings, '/upload/segment', pending);
		pending = Buffer.from(segment.toString('base64'), 'latin1');
	}
	const signature = sign('sha256', a006.digest(), { key: settings.signaturePrivateKeyPem, ...PSS });
	await post(agent, settings, '/upload/segment', pending ?? Buffer.alloc(0), { 'x-last': '1', 'x-a006': signature.toString('base64') });
}

async function clientDownload(agent: https.Agent, settings: ClientSettings, expected: string): Promise<void> {
	const receiver = new Receiver(Buffer.from(settings.key, 'hex'));
	let answer = await post(agent, settings, '/download/start', '');
	for (;;) {
		// The next segment is asked for before this one is decoded.
		const next = answer.last ? undefined : post(agent, settings, '/download/segment', '');
		await receiver.push(answer.body);
		if (!next) break;
		answer = await next;
	}
	const digest = (await receiver.finish()).toString('hex');
	if (digest !== expected) throw new Error(`the pair's download differs (${digest} instead of ${expected})`);
}

async function client(settings: ClientSettings): Promise<void> {
	const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
	const pair = async (file: string, sha256: string): Promise<TransferTiming> => {
		const uploadUsed = unused();
		const downloadUsed = unused();
		let uploadS = 0;
		let downloadS = 0;
		const bankBefore = cpuSeconds(settings.bankPid);
		const uploadPeakRss = await peakDuring(async () => {
			const start = process.hrtime.bigint();
			await clientUpload(agent, settings, file);
			uploadS = Number(process.hrtime.bigint() - start) / 1e9;
		}, uploadUsed);
		const bankAfterUpload = cpuSeconds(settings.bankPid);
		// Not timed: the bank compresses the file it will deliver.
		await post(agent, settings, '/download/prepare', JSON.stringify({ file }));
		const bankBetween = cpuSeconds(settings.bankPid);
		const downloadPeakRss = await peakDuring(async () => {
			const start = process.hrtime.bigint();
			await clientDownload(agent, settings, sha256);
			downloadS = Number(process.hrtime.bigint() - start) / 1e9;
		}, downloadUsed);
		const bankAfter = cpuSeconds(settings.bankPid);
		return {
			uploadS,
			downloadS,
			uploadPeakRss,
			downloadPeakRss,
			uploadBankCpuS: bankAfterUpload - bankBefore,
			downloadBankCpuS: bankAfter - bankBetween,
			...usedFields(uploadUsed, downloadUsed),
		};
	};
	await reportMeasured(
		async () => void (await pair(settings.warmupFile, settings.warmupSha256)),
		async () => await pair(settings.file, settings.sha256),
		() => agent.destroy(),
	);
}

async function main(): Promise<void> {
	if (process.argv[2] === 'bank') bank(JSON.parse(readFileSync(process.argv[3], 'utf8')) as BankSettings);
	else await client(JSON.parse(readFileSync(process.argv[2], 'utf8')) as ClientSettings);
}

if (process.argv[2] === 'bank') void main();
else runMain(main);
