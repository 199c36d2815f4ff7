/**
 * The package in n8n's queue mode, for real: PostgreSQL and Redis started by the test on free
 * local ports (throwaway, in a temporary folder), one `n8n start` (main) and two `n8n worker`
 * processes of n8n (N8N_VERSION), the packed package installed into each one's user folder as n8n's
 * installer does. Workers run one execution at a time; a test workflow can wait at a "gate" (an
 * HTTP Request to a collector the test answers), which keeps its worker busy, so the next job
 * must go to the other worker: which worker ran what is known, never left to chance.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';

import { clusterUnavailable, startCluster, type Cluster, type Report } from './lib/cluster';
import { until } from './lib/ebicsSandbox';
import { N8N_VERSION } from './lib/install';
import { httpStatus } from './lib/n8n';
import { requireContext, skipAll } from './lib/stack';
import { credentialId, credentialName, packageManifest, packageNode, PACKAGE_NAME, prepareForImport, TEST_POLL_SECONDS, type WorkflowJson, type WorkflowNode } from './lib/workflows';

const unavailable = clusterUnavailable();
const manifest = packageManifest();
const FX = 'corporateBankingClientCredentialsApi';
const FILES = 'corporateBankingFileServiceApi';
const EBICS = 'corporateBankingEbicsApi';
/** n8n's database binary storage limit for this cluster, MiB (n8n's default is 512). */
const DB_LIMIT_MIB = 128;
const FILE_MIB = 100;
const OVER_LIMIT_MIB = 160;

let cluster: Cluster;
const figures: Record<string, unknown> = {};
const say = (line: string): void => {
	process.stderr.write(`[cluster] ${line}\n`);
};

const cred = (type: string): Record<string, { id: string; name: string }> => ({ [type]: { id: credentialId(type), name: credentialName(type) } });

function webhook(pathName: string, responseData: string, extra: Record<string, unknown> = {}): WorkflowNode {
	return {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: `cb-${pathName}`,
		parameters: { httpMethod: 'POST', path: pathName, responseMode: 'lastNode', responseData, options: {}, ...extra },
	} as WorkflowNode;
}

/** An HTTP Request to the collector with the process name; `gate` waits until the test opens it. */
function collectorCall(name: string, route: string, body: string, x: number): WorkflowNode {
	return {
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [x, 0],
		executeOnce: true,
		parameters: {
			method: 'POST',
			url: `${cluster.collector.url}/${route}`,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ worker: $env.CLUSTER_PROCESS, execution: $execution.id${body} }) }}`,
			options: { timeout: 900_000 },
		},
	} as WorkflowNode;
}

function chain(id: string, nodes: WorkflowNode[]): WorkflowJson {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < nodes.length; i++) connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { id, name: id, nodes, connections, active: false, settings: { executionOrder: 'v1' } } as unknown as WorkflowJson;
}

function workflows(): WorkflowJson[] {
	const fxOpen = chain('cbclusterfxopen0', [
		webhook('fx-open', 'allEntries'),
		collectorCall('Gate', 'gate/fx', '', 200),
		{ name: 'Open FX Trades', type: `${PACKAGE_NAME}.fxTradeReport`, typeVersion: 1, position: [400, 0], credentials: cred(FX), parameters: { operation: 'getOpen', returnAll: true } } as unknown as WorkflowNode,
	]);
	const fxPages = chain('cbclusterfxpage0', [
		webhook('fx-pages', 'allEntries'),
		{
			name: 'Trades Last Year',
			type: `${PACKAGE_NAME}.fxTradeReport`,
			typeVersion: 1,
			position: [200, 0],
			credentials: cred(FX),
			parameters: {
				operation: 'getMany',
				startDate: "={{ $today.minus({ days: 365 }).toFormat('yyyy-MM-dd') }}",
				endDate: "={{ $today.toFormat('yyyy-MM-dd') }}",
				counterparts: '',
				returnAll: true,
				options: { pageSize: 50 },
			},
		} as unknown as WorkflowNode,
	]);
	const download = (id: string, pathName: string, responseData: string, onError?: string): WorkflowJson =>
		chain(id, [
			webhook(pathName, responseData, responseData === 'firstEntryBinary' ? { responseBinaryPropertyName: 'data' } : {}),
			collectorCall('Gate', `gate/${pathName}`, '', 200),
			{
				name: 'Download File',
				type: `${PACKAGE_NAME}.corporateFileService`,
				typeVersion: 1,
				position: [400, 0],
				credentials: cred(FILES),
				...(onError ? { onError } : {}),
				parameters: {
					operation: 'downloadFile',
					fileReference: "={{ $('Webhook').item.json.body.fileReference }}",
					fileType: { __rl: true, mode: 'id', value: "={{ $('Webhook').item.json.body.fileType }}" },
					binaryPropertyName: 'data',
					options: {},
				},
			} as unknown as WorkflowNode,
		]);
	// The trigger example, its events reported (with the process that ran them) after a gate.
	const example = prepareForImport('bank-event-trigger.json', cluster.bank.state, cluster.bank.caPem, undefined, { pollEverySeconds: TEST_POLL_SECONDS });
	const trigger = packageNode(example, 'bankEventTrigger')!;
	const events = chain('cbclusterevents0', [
		trigger,
		collectorCall('Gate', 'gate/event', '', 200),
		collectorCall('Report', 'report/event', `, jtis: $('${trigger.name}').all().map((i) => i.json.jti)`, 400),
	]);
	// EBICS (the sandbox's ready subscriber, its keys imported): each run waits at its gate first.
	const ebics = (id: string, pathName: string, steps: WorkflowNode[]): WorkflowJson =>
		chain(id, [webhook(pathName, 'allEntries'), collectorCall('Gate', `gate/${pathName}`, '', 200), ...steps]);
	const ebicsNode = (name: string, parameters: Record<string, unknown>, x = 400): WorkflowNode =>
		({ name, type: `${PACKAGE_NAME}.ebics`, typeVersion: 1, position: [x, 0], credentials: cred(EBICS), parameters }) as unknown as WorkflowNode;
	const ebicsStatements = ebics('cbclusterebicsdn', 'ebics-statements', [ebicsNode('Statements', { operation: 'download', downloadService: 'camt053' })]);
	const ebicsPermissions = ebics('cbclusterebicsht', 'ebics-permissions', [ebicsNode('Permissions', { operation: 'subscriberPermissions' })]);
	const ebicsUpload = ebics('cbclusterebicsup', 'ebics-upload', [
		// The gate's answer is the item now: the batch comes from the webhook's body.
		{
			name: 'Batch Text',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [400, 0],
			parameters: { mode: 'manual', assignments: { assignments: [{ id: 'batch', name: 'batch', value: "={{ $('Webhook').item.json.body.batch }}", type: 'string' }] }, options: {} },
		} as unknown as WorkflowNode,
		{ name: 'Batch', type: 'n8n-nodes-base.convertToFile', typeVersion: 1.1, position: [600, 0], parameters: { operation: 'toText', sourceProperty: 'batch', binaryPropertyName: 'data', options: { fileName: 'batch.xml' } } } as unknown as WorkflowNode,
		// A failure comes back as the item's error (Continue On Fail), for the test to show.
		{ ...ebicsNode('Upload', { operation: 'upload', uploadService: 'custom', serviceName: 'SCT', msgName: 'pain.001', options: { checkSchema: false } }, 800), onError: 'continueRegularOutput' } as WorkflowNode,
	]);
	return [fxOpen, fxPages, download('cbclusterfile000', 'file', 'firstEntryBinary'), download('cbclusterfilebig', 'file-big', 'firstEntryJson', 'continueRegularOutput'), events, ebicsStatements, ebicsPermissions, ebicsUpload];
}

/** POSTs JSON to the main's webhook and resolves with the status and raw body. */
function callWebhook(pathName: string, body: unknown, sink?: (chunk: Buffer) => void): Promise<{ status: number; body: Buffer }> {
	return new Promise((resolve, reject) => {
		const data = JSON.stringify(body);
		const req = request(
			`${cluster.main.baseUrl}/webhook/${pathName}`,
			{ method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => (sink ? sink(c) : chunks.push(c)));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
				res.on('error', reject);
			},
		);
		req.on('error', reject);
		req.end(data);
	});
}

interface BankStats {
	tokenRequests: number;
	tokensIssued: number;
	eventsDelivered: string[];
	requests: Array<{ area: string; status?: number; path: string }>;
}
const stats = (): Promise<BankStats> => cluster.bank.admin<BankStats>('GET', '/stats');
const refused = (s: BankStats): number => s.requests.filter((r) => r.area === 'report' && r.status === 401).length;

/** Peak and current resident memory of a process, MiB (/proc/<pid>/status). */
function memory(pid: number): { hwm: number; rss: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
	return { hwm: kib('VmHWM') / 1024, rss: kib('VmRSS') / 1024 };
}
/** Resets a process's peak resident memory to its current level (Linux: clear_refs 5). */
function resetPeak(pid: number): void {
	try {
		createWriteStream(`/proc/${pid}/clear_refs`).end('5');
	} catch {
		/* not allowed: the peak then counts from the process start */
	}
}

const workerOf = (r: Report): string => String(r.body.worker);

/** Runs `work` with a fresh temporary folder, removed afterwards. */
async function inTempDir(work: (dir: string) => Promise<void>): Promise<void> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'cluster-file-'));
	try {
		await work(dir);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Writes `mib` MiB of random bytes to `file`, a MiB at a time; returns their SHA-256. */
async function writeRandomFile(file: string, mib: number): Promise<string> {
	const hash = createHash('sha256');
	const out = createWriteStream(file);
	for (let i = 0; i < mib; i++) {
		const chunk = randomBytes(1024 * 1024);
		hash.update(chunk);
		if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
	}
	await new Promise<void>((r) => out.end(r));
	return hash.digest('hex');
}

/**
 * Waits for the download at its gate, then opens the gate and reads the memory of the worker
 * holding it before (its peak reset) and after the webhook answers.
 */
async function measureAtGate(gate: string, answer: Promise<{ status: number; body: Buffer }>) {
	await cluster.collector.until(() => cluster.collector.waiting(`gate/${gate}`).length === 1, 'the download at its gate');
	const worker = cluster.workers.get(workerOf(cluster.collector.waiting(`gate/${gate}`)[0]))!;
	const pid = worker.pid!;
	resetPeak(pid);
	const before = memory(pid);
	cluster.collector.open(gate);
	const res = await answer;
	const after = memory(pid);
	return { worker, pid, res, before, after };
}

if (unavailable) {
	// scripts/setup.js (npm test, and the e2e global set-up) installs them: their absence is a failure.
	describe('queue mode', () => {
		it('PostgreSQL and Redis are installed', () => {
			throw new Error(`queue mode cannot run: ${unavailable}`);
		});
	});
} else if (!manifest.nodes.includes('bankEventTrigger') || !manifest.nodes.includes('fxTradeReport') || !manifest.nodes.includes('corporateFileService')) {
	skipAll('queue mode', 'package.json does not list the FX Trade Report, File Service and Bank Event Trigger nodes');
} else {
	beforeAll(async () => {
		const { install, pkg } = requireContext();
		cluster = await startCluster({ install, pkg, workers: 2, concurrency: 1, env: { N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: String(DB_LIMIT_MIB) }, log: say });
		await cluster.main.importWorkflows(workflows());
		for (const wf of workflows()) await cluster.main.publish(String(wf.id));
		await Promise.all([...cluster.workers.keys()].map((name) => cluster.startWorker(name)));
		await cluster.main.start(180_000);
		await cluster.webhooksRegistered(['fx-open', 'fx-pages', 'file', 'file-big', 'ebics-statements', 'ebics-permissions', 'ebics-upload']);
		say(`main ready (pid ${cluster.main.pid})`);
	}, 600_000);

	afterAll(async () => {
		if (!cluster) return;
		say(`figures: ${JSON.stringify(figures)}`);
		await cluster.stop();
	}, 180_000);

	describe(`n8n ${N8N_VERSION} in queue mode: PostgreSQL + Redis, one main, two workers (one execution each at a time)`, () => {
		it('FX Trade Report Return All runs on the workers; the whole cluster asks the bank for one token', async () => {
			await cluster.bank.admin('POST', '/reset', { all: true });
			const first = callWebhook('fx-open', {});
			const second = callWebhook('fx-open', {});
			await cluster.collector.until(() => cluster.collector.waiting('gate/fx').length === 2, 'two FX executions at the gate');
			const [a, b] = cluster.collector.waiting('gate/fx');
			expect(new Set([workerOf(a), workerOf(b)])).toEqual(new Set(['worker-1', 'worker-2']));
			// One worker first (it gets the token and n8n stores it in the credential), then the other.
			cluster.collector.open('fx', (r) => r === a);
			const answers = [await Promise.race([first, second])];
			cluster.collector.open('fx', (r) => r === b);
			answers.push(...(await Promise.all([first, second])));
			const trades = answers.slice(1).map((res) => {
				expect(res.status).toBe(200);
				return (JSON.parse(res.body.toString('utf8')) as Array<{ tradeId: string }>).map((t) => t.tradeId);
			});
			expect(trades[0].length).toBeGreaterThan(0);
			expect(new Set(trades[0]).size).toBe(trades[0].length);
			expect(trades[1]).toEqual(trades[0]);
			const s = await stats();
			expect(s.tokenRequests).toBe(1);
			expect(refused(s)).toBe(0);
			figures.fxOpenTrades = trades[0].length;
		});

		it('a token renewed by one worker after the bank expired it is used by the other: one 401 and one token request in all', async () => {
			await cluster.bank.admin('POST', '/tokens/expire');
			await cluster.bank.admin('POST', '/reset');
			const first = callWebhook('fx-open', {});
			const second = callWebhook('fx-open', {});
			await cluster.collector.until(() => cluster.collector.waiting('gate/fx').length === 2, 'two FX executions at the gate');
			const [a, b] = cluster.collector.waiting('gate/fx');
			expect(workerOf(a)).not.toBe(workerOf(b));
			cluster.collector.open('fx', (r) => r === a);
			await Promise.race([first, second]);
			const afterFirst = await stats();
			expect(afterFirst.tokenRequests).toBe(1);
			expect(refused(afterFirst)).toBe(1);
			cluster.collector.open('fx', (r) => r === b);
			const answers = await Promise.all([first, second]);
			for (const res of answers) expect(res.status).toBe(200);
			const s = await stats();
			expect(s.tokenRequests).toBe(1);
			expect(refused(s)).toBe(1);
		});

		it('a bank that ends every token after 5 requests: each expiry costs exactly one 401 over a paged Return All (50 trades a page), every trade once', async () => {
			await cluster.bank.admin('POST', '/tokens', { maxUses: 5 });
			try {
				await cluster.bank.admin('POST', '/reset');
				const res = await callWebhook('fx-pages', {});
				expect(res.status).toBe(200);
				const ids = (JSON.parse(res.body.toString('utf8')) as Array<{ tradeId: string }>).map((t) => t.tradeId);
				expect(new Set(ids).size).toBe(ids.length);
				const s = await stats();
				const pages = s.requests.filter((r) => r.area === 'report' && r.status === 200).length;
				const expiries = refused(s);
				figures.expiry = { trades: ids.length, pages, refused: expiries, tokenRequests: s.tokenRequests };
				expect(pages).toBeGreaterThanOrEqual(20);
				expect(expiries).toBeGreaterThanOrEqual(3);
				// Every 401 is followed by exactly one renewal and the refused page once more, never a
				// second 401 for the same expiry (one token memo per process, shared by node and credential).
				expect(expiries).toBe(s.tokenRequests);
			} finally {
				await cluster.bank.admin('POST', '/tokens', { maxUses: 0 });
			}
		});

		it(`File Service download of ${FILE_MIB} MiB in a worker with n8n's queue-mode binary storage (database): identical bytes, peak memory measured`, async () => {
			await inTempDir(async (dir) => {
				const file = path.join(dir, 'big.bin');
				const expected = await writeRandomFile(file, FILE_MIB);
				const put = await cluster.bank.admin<{ fileReference: string; fileType: string }>('POST', '/files', { fileType: 'XT', contentPath: file, userFilename: 'big.bin' });
				const got = createHash('sha256');
				let bytes = 0;
				const answer = callWebhook('file', { fileReference: put.fileReference, fileType: 'XT' }, (c) => {
					got.update(c);
					bytes += c.length;
				});
				const { res, before, after } = await measureAtGate('file', answer);
				expect(res.status).toBe(200);
				expect(bytes).toBe(FILE_MIB * 1024 * 1024);
				expect(got.digest('hex')).toBe(expected);
				figures.download = { mib: FILE_MIB, worker: workerOf(cluster.collector.of('gate/file')[0]), rssBeforeMiB: Math.round(before.rss), peakRssMiB: Math.round(after.hwm), peakOverBeforeMiB: Math.round(after.hwm - before.rss) };
				say(`download ${FILE_MIB} MiB: ${JSON.stringify(figures.download)}`);
				expect(after.hwm).toBeGreaterThan(0);
			});
		});

		it(`a file larger than the database storage takes (${OVER_LIMIT_MIB} MiB over ${DB_LIMIT_MIB} MiB) is refused with a clear message; the worker stays up`, async () => {
			await inTempDir(async (dir) => {
				const file = path.join(dir, 'over.bin');
				await writeRandomFile(file, OVER_LIMIT_MIB);
				const put = await cluster.bank.admin<{ fileReference: string }>('POST', '/files', { fileType: 'XT', contentPath: file, userFilename: 'over.bin' });
				const answer = callWebhook('file-big', { fileReference: put.fileReference, fileType: 'XT' });
				const { worker, pid, res, before, after } = await measureAtGate('file-big', answer);
				expect(res.status).toBe(200);
				const json = JSON.parse(res.body.toString('utf8')) as { error?: string };
				expect(json.error).toMatch(/Download refused: The file is larger than n8n's binary data storage in database mode takes \(128 MiB, N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE\)/);
				expect(worker.pid).toBe(pid);
				expect(await httpStatus(`http://127.0.0.1:${worker.port}/healthz/readiness`)).toBe(200);
				figures.refused = { mib: OVER_LIMIT_MIB, limitMiB: DB_LIMIT_MIB, peakOverBeforeMiB: Math.round(after.hwm - before.rss) };
				say(`refused ${OVER_LIMIT_MIB} MiB: ${JSON.stringify(figures.refused)}`);
			});
		});

		it("EBICS on the workers: the bank's keys fetched by one worker are used by the other; an upload's journal written and cleared from a worker; one order", async () => {
			const c = cluster.collector;
			const records = async () => await cluster.bank.admin<Array<{ userId?: string; orderType?: string; phase?: string }>>('GET', '/ebics/records');
			const subscriber = async () =>
				(await cluster.bank.admin<{ subscribers: Array<{ userId: string; files: Array<{ name: string; msgName: string; delivered: boolean }>; uploads: Array<{ orderId: string; sha256: string | null }> }> }>('GET', '/ebics/subscribers')).subscribers.find((x) => x.userId === 'READY1')!;
			const orderTypes = async (from: number) => (await records()).slice(from).filter((r) => r.userId === 'READY1').map((r) => r.orderType);
			const start = (await records()).length;
			const waiting = (await subscriber()).files.filter((f) => f.msgName === 'camt.053' && !f.delivered).map((f) => f.name);
			expect(waiting.length).toBeGreaterThan(0);
			// Both at their gates, one on each worker; the credential has never fetched the bank's keys.
			const statements = callWebhook('ebics-statements', {});
			const permissions = callWebhook('ebics-permissions', {});
			await c.until(() => c.waiting('gate/ebics-statements').length === 1 && c.waiting('gate/ebics-permissions').length === 1, 'both EBICS runs at their gates');
			const [downloader, other] = [workerOf(c.waiting('gate/ebics-statements')[0]), workerOf(c.waiting('gate/ebics-permissions')[0])];
			expect(downloader).not.toBe(other);
			c.open('ebics-statements');
			const got = await statements;
			expect(got.status).toBe(200);
			const files = (JSON.parse(got.body.toString('utf8')) as Array<{ fileName: string; receipt: string }>);
			expect(files.map((f) => f.fileName).sort()).toEqual([...waiting].sort());
			expect(files.every((f) => f.receipt === 'positive')).toBe(true);
			// The first worker's run fetched the bank's keys (HPB) and n8n stored them in the credential.
			const first = await orderTypes(start);
			expect(first[0]).toBe('HPB');
			expect(first).toContain('BTD');
			c.open('ebics-permissions');
			const htd = await permissions;
			expect(htd.status).toBe(200);
			expect((JSON.parse(htd.body.toString('utf8')) as Array<{ userId?: string }>).length).toBeGreaterThan(0);
			// The other worker read them from the credential: no second HPB.
			expect((await orderTypes(start)).filter((t) => t === 'HPB')).toEqual(['HPB']);
			expect((await subscriber()).files.filter((f) => waiting.includes(f.name)).every((f) => f.delivered)).toBe(true);

			// An upload from a worker: the journal entry goes into the credential before the last segment and out after the answer.
			// The bank holds the last segment, unread, so the journal can be looked at in the database meanwhile.
			const batch = `<?xml version="1.0"?><Document>cluster batch ${randomBytes(8).toString('hex')}</Document>`;
			const sha256 = createHash('sha256').update(batch).digest('hex');
			const journal = async () => String((await cluster.main.decryptedCredentials()).find((x) => x.type === EBICS)!.data.ebicsUploadJournal ?? '');
			await cluster.bank.admin('POST', '/ebics/holds', { step: 'lastSegment' });
			const upload = callWebhook('ebics-upload', { batch });
			await c.until(() => c.waiting('gate/ebics-upload').length === 1, 'the EBICS upload at its gate');
			c.open('ebics-upload');
			const early = await Promise.race([
				upload.then((res) => res),
				until('the last segment held at the bank', async () => await cluster.bank.admin<{ waiting: string[] }>('GET', '/ebics/holds'), (h) => h.waiting.includes('lastSegment')).then(() => undefined),
			]);
			if (early) throw new Error(`the upload ended before its last segment reached the bank: ${early.status} ${early.body.toString('utf8').slice(0, 2000)}`);
			expect(await journal()).toContain(sha256);
			await cluster.bank.admin('POST', '/ebics/holds/release', { process: true });
			const sent = await upload;
			expect(sent.status).toBe(200);
			const [item] = JSON.parse(sent.body.toString('utf8')) as Array<{ orderId: string; sha256: string }>;
			expect(item).toMatchObject({ orderId: expect.stringMatching(/^[A-Z][A-Z0-9]{3}$/), sha256 });
			expect((await subscriber()).uploads.filter((u) => u.sha256 === sha256).map((u) => u.orderId)).toEqual([item.orderId]);
			expect(await journal()).not.toContain(sha256);
			figures.ebics = { downloader, other, statements: files.length, orderId: item.orderId, uploader: workerOf(c.of('gate/ebics-upload')[0]) };
		});

		it('Bank Event Trigger: polled by the main only, every event emitted exactly once, executions spread over both workers, across a restart of the main and of a worker', async () => {
			const c = cluster.collector;
			const selected = (n: number): Array<{ type: string }> => Array.from({ length: n }, () => ({ type: 'urn:uk:org:openbanking:events:resource-update' }));
			const queued: string[] = [];
			// First batch: picked up by the poll the main makes when it activates the workflow again.
			await cluster.main.stop();
			queued.push(...(await cluster.bank.admin<{ jtis: string[] }>('POST', '/events', { events: selected(2) })).jtis);
			await cluster.main.start(180_000);
			await c.until(() => c.waiting('gate/event').length === 1, 'the first trigger execution at its gate');
			const firstWorker = workerOf(c.waiting('gate/event')[0]);
			// Second batch, after a restart of the main, while the first execution still holds its worker.
			await cluster.main.stop();
			queued.push(...(await cluster.bank.admin<{ jtis: string[] }>('POST', '/events', { events: selected(2) })).jtis);
			await cluster.main.start(180_000);
			await c.until(() => c.waiting('gate/event').length === 2, 'the second trigger execution at its gate');
			const workers = c.waiting('gate/event').map(workerOf);
			expect(new Set(workers)).toEqual(new Set(['worker-1', 'worker-2']));
			c.open('event');
			await c.until(() => c.of('report/event').flatMap((r) => r.body.jtis as string[]).length >= 4, 'the first four events reported');
			// A worker restarted: the next poll (the main's schedule, every minute) goes on.
			const restarted = firstWorker;
			await cluster.workers.get(restarted)!.stop();
			await cluster.startWorker(restarted);
			queued.push(...(await cluster.bank.admin<{ jtis: string[] }>('POST', '/events', { events: selected(1) })).jtis);
			await c.until(() => {
				c.open('event');
				return c.of('report/event').flatMap((r) => r.body.jtis as string[]).includes(queued[4]);
			}, 'the fifth event reported after the worker restart');
			const reported = c.of('report/event').flatMap((r) => r.body.jtis as string[]);
			expect([...reported].sort()).toEqual([...queued].sort());
			expect(new Set(reported).size).toBe(reported.length);
			for (const r of c.of('report/event')) expect(String(r.body.worker)).toMatch(/^worker-\d$/);
			// The trigger's executions start where the poll ran: the main enqueues every one of them
			// and a worker runs it; no worker ever enqueues an execution (it runs no trigger).
			const mainLog = readFileSync(cluster.main.logFile, 'utf8');
			const workerLogs = [...cluster.workers.values()].map((w) => readFileSync(w.logFile, 'utf8'));
			for (const r of c.of('report/event')) {
				const id = String(r.body.execution);
				expect(mainLog).toContain(`Enqueued execution ${id} `);
				expect(workerLogs.filter((log) => log.includes(`Worker started execution ${id} `))).toHaveLength(1);
			}
			for (const log of workerLogs) expect(log).not.toMatch(/Enqueued execution/);
			const s = await stats();
			figures.trigger = { events: queued.length, executions: c.of('report/event').length, byWorker: c.of('report/event').map((r) => r.body.worker), delivered: s.eventsDelivered.length };
		}, 600_000);
	});
}
