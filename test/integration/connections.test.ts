/**
 * Connection reuse: reads and event polls go over pooled keep-alive connections, one pool per TLS
 * identity; a connection the bank closed while idle costs a counted re-send, never a failure; with
 * a proxy or n8n's SSRF protection configured, requests go through n8n's helper instead.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';

import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { clearJwksCache } from '../../nodes/BankEventTrigger/events/keys';
import { extractErrorInfo, isNetworkFailure } from '../../nodes/shared/transport/errors';
import { closePooledConnections, pooledRequest, poolingAllowed } from '../../nodes/shared/transport/pool';
import { bankRequest, type BankContext } from '../../nodes/shared/transport/request';
import { DEFAULT_RETRY } from '../../nodes/shared/transport/retry';
import { buildTlsOptions } from '../../nodes/shared/transport/tls';
import { loadOrCreatePki } from '../sandbox/certs';
import { CC, CREDENTIAL_IDS, sandboxCredentials, useSandbox } from '../helpers/bank';
import { NODE_NAME, runNode } from '../helpers/nodes';
import { triggerHarness } from '../helpers/trigger';

const sandbox = useSandbox({ trades: 3000 });

beforeEach(() => {
	closePooledConnections();
	clearJwksCache();
});
afterAll(() => closePooledConnections());

async function listen(server: Server, protocol: 'http' | 'https'): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `${protocol}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
}

/** A plain HTTP server counting connections and requests. */
async function startServer(handler: (req: IncomingMessage, res: ServerResponse, n: { connection: number; request: number }) => void) {
	let connections = 0;
	let requests = 0;
	const perSocket = new WeakMap<Socket, number>();
	const server = createHttpServer((req, res) => {
		requests++;
		handler(req, res, { connection: perSocket.get(req.socket) ?? 0, request: requests });
	});
	server.on('connection', (socket: Socket) => perSocket.set(socket, ++connections));
	const url = await listen(server, 'http');
	return { url, server, counts: () => ({ connections, requests }) };
}

/** A server answering its requests' numbers as JSON, whose request `dropped` finds its connection closed. */
async function startServerClosingRequest(dropped: number) {
	return await startServer((req, res, n) => {
		if (n.request === dropped) {
			req.socket.destroy();
			return;
		}
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ request: n.request, connection: n.connection }));
	});
}

/** The smallest context bankRequest needs for a request without a credential. */
const bareContext = (helpers: Partial<BankContext['helpers']> = {}) => ({ helpers }) as unknown as BankContext;

describe('connections to the sandbox bank', () => {
	it('FX Trade Report, Return All: every page after the first on one reused connection', async () => {
		const bank = sandbox.bank();
		const startDate = DateTime.utc().minus({ days: 400 }).toISODate()!;
		const result = await runNode({
			type: 'fxTradeReport',
			parameters: { operation: 'getMany', startDate, returnAll: true, options: { pageSize: 100 } },
			credentials: { [CC]: CREDENTIAL_IDS[CC] },
			store: sandboxCredentials(bank),
		});
		const items = result.output(NODE_NAME);
		const pages = bank.stats.requests.filter((r) => r.area === 'report');
		expect(pages.length).toBeGreaterThan(10);
		expect(items).toHaveLength(new Set(items.map((i) => i.json.tradeId)).size);
		// The token and the pages share one pooled connection; the first page goes through n8n's
		// helper, which stores the new token, on a connection of its own.
		expect(bank.stats.tokenRequests).toBe(1);
		expect(bank.stats.connections.main).toBe(2);
	});

	it('Bank Event Trigger: polls after the first reuse one mutual-TLS connection', async () => {
		const bank = sandbox.bank();
		const h = triggerHarness(bank);
		const queued = new Set<string>();
		for (let round = 0; round < 6; round++) {
			for (const jti of bank.events.enqueue(5)) queued.add(jti);
			const emitted = await h.poll();
			expect(emitted?.[0]).toHaveLength(5);
		}
		expect(await h.poll()).toBeNull();
		expect(h.emitted.flatMap((run) => run[0].map((item) => item.json.jti))).toEqual([...queued]);
		expect(bank.stats.eventPolls).toBe(7);
		expect(bank.stats.connections.mtls).toBeLessThanOrEqual(2);
	});
});

describe('pooled connections', () => {
	it('sends a read again at once, counted as an attempt, when the bank closed the idle connection', async () => {
		// The second request on a connection finds it closed, as after the bank's keep-alive timeout.
		const srv = await startServerClosingRequest(2);
		try {
			const retries: number[] = [];
			const first = await bankRequest<IDataObject>(bareContext(), undefined, { method: 'GET', url: `${srv.url}/a`, idempotent: true, retry: DEFAULT_RETRY });
			expect(first.body).toEqual({ request: 1, connection: 1 });
			const second = await bankRequest<IDataObject>(bareContext(), undefined, {
				method: 'GET',
				url: `${srv.url}/b`,
				idempotent: true,
				retry: DEFAULT_RETRY,
				onRetry: (_error, attempt, delayMs) => retries.push(attempt, delayMs),
			});
			expect(second.body).toEqual({ request: 3, connection: 2 });
			expect(second.attempts).toBe(2);
			expect(retries).toEqual([1, 0]);
			expect(srv.counts()).toEqual({ connections: 2, requests: 3 });
		} finally {
			await close(srv.server);
		}
	});

	it('does not hide a connection dropped on a new connection: the retry policy decides', async () => {
		const srv = await startServer((req) => req.socket.destroy());
		try {
			const error = await bankRequest(bareContext(), undefined, { method: 'GET', url: `${srv.url}/x`, idempotent: true }).catch((e: unknown) => e);
			expect(isNetworkFailure(extractErrorInfo(error))).toBe(true);
			expect(srv.counts()).toEqual({ connections: 1, requests: 1 });
		} finally {
			await close(srv.server);
		}
	});

	it('never pools a request that may not be sent twice', async () => {
		const httpRequest = jest.fn(async () => ({ statusCode: 200, headers: {}, body: { done: true } }));
		const response = await bankRequest(bareContext({ httpRequest } as never), undefined, {
			method: 'POST',
			url: 'https://bank.invalid/executions',
			body: { amount: 1 },
			idempotent: false,
		});
		expect(response.body).toEqual({ done: true });
		expect(httpRequest).toHaveBeenCalledTimes(1);
	});

	it('sends a request that reuses a connection but may not be sent twice once: a closed idle connection is its caller\'s to handle', async () => {
		const srv = await startServerClosingRequest(3);
		try {
			const segment = async (name: string) =>
				await bankRequest<IDataObject>(bareContext(), undefined, { method: 'POST', url: `${srv.url}/${name}`, body: name, idempotent: false, reuseConnection: true, retry: DEFAULT_RETRY });
			expect((await segment('one')).body).toEqual({ request: 1, connection: 1 });
			expect((await segment('two')).body).toEqual({ request: 2, connection: 1 });
			const error = await segment('three').catch((e: unknown) => e);
			expect(isNetworkFailure(extractErrorInfo(error))).toBe(true);
			// Sent once: neither the pool nor the retry policy sent it again.
			expect(srv.counts()).toEqual({ connections: 1, requests: 3 });
		} finally {
			await close(srv.server);
		}
	});

	it("goes through n8n's helper when a proxy or SSRF protection is configured", async () => {
		expect(poolingAllowed({})).toBe(true);
		expect(poolingAllowed({ HTTPS_PROXY: 'http://proxy:3128' })).toBe(false);
		expect(poolingAllowed({ http_proxy: 'http://proxy:3128' })).toBe(false);
		expect(poolingAllowed({ ALL_PROXY: 'socks5://proxy:1080' })).toBe(false);
		expect(poolingAllowed({ N8N_SSRF_PROTECTION_ENABLED: 'true' })).toBe(false);
		expect(poolingAllowed({ N8N_SSRF_PROTECTION_ENABLED: 'false', HTTPS_PROXY: ' ' })).toBe(true);

		const srv = await startServer((_req, res) => res.end('{}'));
		const httpRequest = jest.fn(async () => ({ statusCode: 200, headers: {}, body: { via: 'helper' } }));
		const saved = process.env.HTTPS_PROXY;
		process.env.HTTPS_PROXY = 'http://proxy.invalid:3128';
		try {
			const response = await bankRequest(bareContext({ httpRequest } as never), undefined, { method: 'GET', url: `${srv.url}/r`, idempotent: true });
			expect(response.body).toEqual({ via: 'helper' });
			expect(httpRequest).toHaveBeenCalledTimes(1);
			expect(srv.counts().requests).toBe(0);
		} finally {
			if (saved === undefined) delete process.env.HTTPS_PROXY;
			else process.env.HTTPS_PROXY = saved;
			await close(srv.server);
		}
	});

	it('reads gzip answers, gives error statuses with the parsed body, and times out as a network failure', async () => {
		const srv = await startServer((req, res) => {
			if (req.url === '/gzip') {
				res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
				res.end(gzipSync(JSON.stringify({ items: [1, 2, 3] })));
			} else if (req.url === '/error') {
				res.writeHead(400, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { exception: 'InvalidParameterException', message: 'bad date' } }));
			} else {
				// Never answered: the client must give up on its own; the server sees it leave.
				res.once('close', () => gaveUp());
			}
		});
		let gaveUp: () => void = () => undefined;
		const clientLeft = new Promise<void>((resolve) => (gaveUp = resolve));
		try {
			const gz = await pooledRequest({ method: 'GET', url: `${srv.url}/gzip`, headers: { 'accept-encoding': 'gzip' }, timeoutMs: 5000 });
			expect(gz.body).toEqual({ items: [1, 2, 3] });
			const refused = await pooledRequest({ method: 'GET', url: `${srv.url}/error`, headers: {}, timeoutMs: 5000 }).catch((e: unknown) => e);
			expect(extractErrorInfo(refused)).toMatchObject({ status: 400, code: 'InvalidParameterException', message: 'bad date' });
			const slow = await pooledRequest({ method: 'GET', url: `${srv.url}/slow`, headers: {}, timeoutMs: 100 }).catch((e: unknown) => e);
			expect(extractErrorInfo(slow).networkCode).toBe('ECONNABORTED');
			expect(isNetworkFailure(extractErrorInfo(slow))).toBe(true);
			await clientLeft;
		} finally {
			await close(srv.server);
		}
	});

	it('stops every request of an execution when the execution is cancelled', async () => {
		// The server never answers: only the cancellation can end the requests. It says when both
		// requests have arrived and when their connections close.
		let arrived: () => void = () => undefined;
		const bothArrived = new Promise<void>((resolve) => (arrived = resolve));
		const closed: Array<Promise<void>> = [];
		const srv = await startServer((_req, res, n) => {
			closed.push(new Promise<void>((resolve) => res.once('close', () => resolve())));
			if (n.request === 2) arrived();
		});
		try {
			const controller = new AbortController();
			const ctx = { helpers: {}, getExecutionCancelSignal: () => controller.signal } as unknown as BankContext;
			const requests = [1, 2].map(async (n) => await bankRequest(ctx, undefined, { method: 'GET', url: `${srv.url}/${n}`, idempotent: true }).catch((e: unknown) => e));
			await bothArrived;
			controller.abort();
			const errors = await Promise.all(requests);
			expect(errors.map((e) => extractErrorInfo(e).networkCode)).toEqual(['ERR_CANCELED', 'ERR_CANCELED']);
			// Cancelled, not left running: the bank sees both connections closed.
			await Promise.all(closed);
			// A request after the cancellation does not start at all.
			const late = await bankRequest(ctx, undefined, { method: 'GET', url: `${srv.url}/3`, idempotent: true }).catch((e: unknown) => e);
			expect(extractErrorInfo(late).networkCode).toBe('ERR_CANCELED');
			expect(srv.counts().requests).toBe(2);
		} finally {
			await close(srv.server);
		}
	});

	it('keeps one pool per TLS identity: each client certificate only on its own connections', async () => {
		const pki = await loadOrCreatePki(sandbox.bank().tls.certDir, ['127.0.0.1']);
		const seen: Array<{ path: string; cert: string; connection: number }> = [];
		let connections = 0;
		const perSocket = new WeakMap<object, number>();
		const server = createHttpsServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
			const peer = (req.socket as TLSSocket).getPeerCertificate();
			seen.push({ path: req.url ?? '', cert: String(peer?.fingerprint256 ?? ''), connection: perSocket.get(req.socket) ?? 0 });
			res.end('{}');
		});
		server.on('secureConnection', (socket: TLSSocket) => perSocket.set(socket, ++connections));
		const url = await listen(server as unknown as Server, 'https');
		try {
			const a = buildTlsOptions({ caCertificate: pki.caCertPem, certificate: pki.clientCertPem, privateKey: pki.clientKeyPem });
			const b = buildTlsOptions({ caCertificate: pki.caCertPem, certificate: pki.otherCaClientCertPem, privateKey: pki.otherCaClientKeyPem });
			for (let i = 0; i < 3; i++) {
				await pooledRequest({ method: 'GET', url: `${url}/a${i}`, headers: {}, timeoutMs: 5000, tls: a });
				await pooledRequest({ method: 'GET', url: `${url}/b${i}`, headers: {}, timeoutMs: 5000, tls: b });
			}
			const certA = new Set(seen.filter((r) => r.path.startsWith('/a')).map((r) => r.cert));
			const certB = new Set(seen.filter((r) => r.path.startsWith('/b')).map((r) => r.cert));
			expect(certA.size).toBe(1);
			expect(certB.size).toBe(1);
			expect([...certA][0]).not.toBe([...certB][0]);
			expect(new Set(seen.filter((r) => r.path.startsWith('/a')).map((r) => r.connection)).size).toBe(1);
			expect(new Set(seen.filter((r) => r.path.startsWith('/b')).map((r) => r.connection)).size).toBe(1);
			expect(connections).toBe(2);
		} finally {
			closePooledConnections();
			await close(server as unknown as Server);
		}
	});
});
