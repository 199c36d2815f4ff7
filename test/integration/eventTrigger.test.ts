/**
 * Bank Event Trigger against the sandbox bank, over real mutual TLS, through n8n's polling engine.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { BankEventTrigger } from '../../nodes/BankEventTrigger/BankEventTrigger.node';
import { clearJwksCache } from '../../nodes/BankEventTrigger/events/keys';
import { runWorkflow } from '../harness/engine';
import { createPollHarness, type PollHarness } from '../harness/poll';
import { CREDENTIAL_IDS, MTLS, useSandbox } from '../helpers/bank';
import { bankSigned, setClaims } from '../helpers/events';
import { prepareExample } from '../helpers/examples';
import { packageCredentialTypes, packageNodeTypes } from '../helpers/nodes';
import { TRIGGER_TYPE, triggerHarness } from '../helpers/trigger';
import type { SandboxBank } from '../sandbox';
import { httpsCall } from '../sandbox/testing';

const NODE_NAME = 'Bank Event Trigger';
const OB = 'urn:uk:org:openbanking:events:';

const sandbox = useSandbox();

beforeEach(() => clearJwksCache());

function trigger(
	parameters: IDataObject = {},
	opts: { credential?: Record<string, unknown>; staticData?: IDataObject } = {},
): PollHarness {
	return triggerHarness(sandbox.bank(), { parameters, ...opts });
}

const jtis = (items: INodeExecutionData[] | undefined) => (items ?? []).map((item) => item.json.jti as string);
const emittedJtis = (h: PollHarness) => h.emitted.flatMap((run) => jtis(run[0]));
const iso = (seconds: unknown) => new Date((seconds as number) * 1000).toISOString();
const eventRequests = (bank: SandboxBank) => bank.stats.requests.filter((r) => r.area === 'events');
const jwksFetches = (bank: SandboxBank) => bank.stats.requests.filter((r) => r.area === 'jwks').length;

/** Everything secret a run could leak: the token the bank issued, the key, the client id. */
function secretsOf(h: PollHarness, bank: SandboxBank): string[] {
	const token = h.credentials.get(CREDENTIAL_IDS[MTLS])?.data.accessToken;
	const keyBody = bank.tls.clientKeyPem.split('\n')[1];
	return [typeof token === 'string' ? token : '', keyBody, bank.clients.mtlsClientId].filter((s) => s.length > 8);
}

function expectNoSecrets(text: string, secrets: string[]): void {
	for (const secret of secrets) expect(text).not.toContain(secret);
}

/** A small HTTPS server with the sandbox's server certificate, for stand-ins in front of the bank. */
async function startHttps(
	bank: SandboxBank,
	handler: (req: IncomingMessage, body: Buffer, res: ServerResponse) => Promise<void> | void,
): Promise<{ url: string; close: () => Promise<void> }> {
	const key = readFileSync(join(bank.tls.certDir, 'server.key'), 'utf8');
	const server = createHttpsServer({ key, cert: bank.tls.serverCertPem }, (req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			Promise.resolve(handler(req, Buffer.concat(chunks), res)).catch((error: Error) => {
				res.writeHead(599, { 'content-type': 'text/plain' });
				res.end(error.message);
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `https://127.0.0.1:${port}`,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

interface ProxiedRequest {
	headers: IncomingHttpHeaders;
	body: Record<string, unknown>;
}

/**
 * A relay in front of the bank's events endpoint that records what the trigger sends and can
 * change what passes: drop the acknowledgements (a bank that loses them), or add SETs to answers.
 */
async function startEventsRelay(
	bank: SandboxBank,
	opts: { dropAcks?: () => boolean; extraSets?: () => Record<string, string> } = {},
) {
	const seen: ProxiedRequest[] = [];
	const server = await startHttps(bank, async (req, raw, res) => {
		const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
		seen.push({ headers: req.headers, body });
		const forwarded = opts.dropAcks?.() ? { ...body, ack: [] } : body;
		const answer = await httpsCall(bank.urls.events, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				authorization: String(req.headers.authorization ?? ''),
				'x-fapi-interaction-id': String(req.headers['x-fapi-interaction-id'] ?? ''),
			},
			body: JSON.stringify(forwarded),
			ca: bank.tls.caPem,
			cert: bank.tls.clientCertPem,
			key: bank.tls.clientKeyPem,
		});
		let text = answer.text();
		const extra = opts.extraSets?.();
		if (answer.status === 200 && extra && Object.keys(extra).length) {
			const doc = JSON.parse(text) as { sets: Record<string, string> };
			doc.sets = { ...doc.sets, ...extra };
			text = JSON.stringify(doc);
		}
		res.writeHead(answer.status, { 'content-type': 'application/json' });
		res.end(text);
	});
	return { ...server, url: `${server.url}/events`, seen };
}

describe('events as items, acknowledged with the next request', () => {
	it('emits one item per SET with its claims, and acknowledges them with the next request only', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue([
			{ type: 'resource-update' },
			{ type: 'consent-authorization-revoked' },
			{ type: 'account-access-consent-linked-account-update' },
		]);
		const h = trigger();

		const result = await h.poll();
		expect(result).not.toBeNull();
		const [events, rejected] = result!;
		expect(rejected).toEqual([]);
		expect(jtis(events)).toEqual(queued);
		for (const item of events) {
			const claims = bank.events.get(item.json.jti as string)!.claims;
			const [eventType] = Object.keys(claims.events as object);
			expect(item.json).toEqual({
				jti: claims.jti,
				iss: claims.iss,
				aud: claims.aud,
				sub: claims.sub,
				txn: claims.txn,
				iat: iso(claims.iat),
				toe: iso(claims.toe),
				eventType,
				event: (claims.events as Record<string, unknown>)[eventType],
			});
		}
		expect(events[1].json.eventType).toBe(`${OB}consent-authorization-revoked`);
		expect((events[1].json.event as IDataObject).reason).toBe('CustomerRevokedConsent');

		// Emitted, not yet acknowledged: the acknowledgements wait in the saved static data.
		expect(bank.stats.eventsAcked).toEqual([]);
		expect(bank.events.pending()).toEqual(queued);
		expect(h.saves).toBe(1);
		expect(h.savedNodeStaticData().ack).toEqual(queued);
		expect(h.savedNodeStaticData().recent).toEqual(queued);

		expect(await h.poll()).toBeNull();
		expect(bank.stats.eventsAcked).toEqual(queued);
		expect(bank.events.pending()).toEqual([]);
		expect(h.liveNodeStaticData().ack).toEqual([]);
		expect(emittedJtis(h)).toEqual(queued);
		expect(Object.keys(bank.stats.setErrsReceived)).toEqual([]);

		const everything = JSON.stringify(h.emitted) + h.logs.join('\n');
		expectNoSecrets(everything, secretsOf(h, bank).filter((s) => s !== bank.clients.mtlsClientId));
		expectNoSecrets(h.logs.join('\n'), secretsOf(h, bank));
	});

	it('drains the queue page by page in one poll, each request acknowledging the page before', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(25);
		const h = trigger({ maxEvents: 10, options: { maxEventsPerPoll: 1000 } });

		const [events] = (await h.poll())!;
		expect(jtis(events)).toEqual(queued);
		expect(eventRequests(bank)).toHaveLength(3);
		// Pages 1 and 2 were acknowledged by the requests for pages 2 and 3; page 3 waits.
		expect(bank.stats.eventsAcked).toEqual(queued.slice(0, 20));
		expect(h.savedNodeStaticData().ack).toEqual(queued.slice(20));

		expect(await h.poll()).toBeNull();
		expect(bank.stats.eventsAcked).toEqual(queued);
		expect(new Set(bank.stats.eventsDelivered).size).toBe(25);
		expect(bank.stats.eventsDelivered).toHaveLength(25);
	});

	it('stops at Max Events per Poll and goes on with the next poll', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(23);
		const h = trigger({ maxEvents: 5, options: { maxEventsPerPoll: 12 } });

		const first = (await h.poll())![0];
		expect(jtis(first)).toEqual(queued.slice(0, 12));
		// Requests ask for no more than the poll may still take: 5, 5, 2.
		expect(eventRequests(bank)).toHaveLength(3);
		const second = (await h.poll())![0];
		expect(jtis(second)).toEqual(queued.slice(12, 23));
		expect(await h.poll()).toBeNull();
		expect(bank.stats.eventsAcked).toEqual(queued);
	});

	it('treats a missing moreAvailable as false: one page, the rest next time', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(8);
		bank.faults.add({ kind: 'eventOmitMoreAvailable' });
		const h = trigger({ maxEvents: 5 });

		expect(jtis((await h.poll())![0])).toEqual(queued.slice(0, 5));
		expect(eventRequests(bank)).toHaveLength(1);
		expect(jtis((await h.poll())![0])).toEqual(queued.slice(5));
		expect(emittedJtis(h)).toEqual(queued);
	});

	it('sends {maxEvents, returnImmediately, ack, setErrs} with a fresh x-fapi-interaction-id per request', async () => {
		const bank = sandbox.bank();
		const relay = await startEventsRelay(bank);
		try {
			const queued = bank.events.enqueue(3);
			const [bad] = bank.events.enqueue([{ defect: 'wrongIssuer' }]);
			const h = trigger({ eventsUrl: relay.url, maxEvents: 2, returnImmediately: false, options: { maxEventsPerPoll: 1000 } });
			await h.poll();
			await h.poll();
			expect(relay.seen.map((r) => r.body)).toEqual([
				{ maxEvents: 2, returnImmediately: false, ack: [], setErrs: {} },
				{ maxEvents: 2, returnImmediately: false, ack: queued.slice(0, 2), setErrs: {} },
				{
					maxEvents: 2,
					returnImmediately: false,
					ack: [queued[2]],
					setErrs: { [bad]: { err: 'invalid_issuer', description: expect.stringContaining('issuer') } },
				},
			]);
			const ids = relay.seen.map((r) => r.headers['x-fapi-interaction-id']);
			for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
			expect(new Set(ids).size).toBe(ids.length);
			expect(relay.seen.every((r) => /^Bearer \S+$/.test(String(r.headers.authorization)))).toBe(true);
		} finally {
			await relay.close();
		}
	});
});

describe('exactly once', () => {
	it('never emits an event twice when the bank delivers it again, and acknowledges the repeat', async () => {
		const bank = sandbox.bank();
		let losing = false;
		const relay = await startEventsRelay(bank, { dropAcks: () => losing });
		try {
			const queued = bank.events.enqueue(4);
			const h = trigger({ eventsUrl: relay.url });
			expect(jtis((await h.poll())![0])).toEqual(queued);

			// The bank loses the acknowledgements twice and delivers the same four SETs again.
			losing = true;
			expect(await h.poll()).toBeNull();
			expect(await h.poll()).toBeNull();
			expect(bank.stats.eventsDelivered.filter((jti) => jti === queued[0])).toHaveLength(3);
			expect(bank.stats.eventsAcked).toEqual([]);

			losing = false;
			const fresh = bank.events.enqueue(1);
			const third = await h.poll();
			expect(jtis(third![0])).toEqual(fresh);
			// The request that fetched the new event carried the repeats' acknowledgements.
			expect(bank.stats.eventsAcked).toEqual(queued);
			expect(await h.poll()).toBeNull();
			expect(bank.stats.eventsAcked).toEqual([...queued, ...fresh]);
			expect(emittedJtis(h)).toEqual([...queued, ...fresh]);
			expect(bank.events.pending()).toEqual([]);
		} finally {
			await relay.close();
		}
	});

	it('a restarted trigger sends the acknowledgements it saved, and emits nothing twice', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(3);
		const h = trigger();
		await h.poll();
		expect(bank.stats.eventsAcked).toEqual([]);

		clearJwksCache();
		const restarted = h.reload();
		const more = bank.events.enqueue(2);
		const [events] = (await restarted.poll())!;
		expect(jtis(events)).toEqual(more);
		expect(bank.stats.eventsAcked).toEqual(queued);
		expect([...emittedJtis(h), ...emittedJtis(restarted)]).toEqual([...queued, ...more]);
	});

	it('a failed page ends the poll: what came before is emitted, its acknowledgements kept, and the failure logged', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(15);
		const h = trigger({ maxEvents: 10, options: { maxEventsPerPoll: 1000 } });
		// The first request passes; the second fails three times, as many as the transport tries.
		bank.faults.add([
			{ kind: 'delay', delayMs: 0, area: 'events' },
			{ kind: 'status', status: 503, area: 'events', count: 3, message: 'Event store unavailable.' },
		]);

		const [events] = (await h.poll())!;
		expect(jtis(events)).toEqual(queued.slice(0, 10));
		expect(eventRequests(bank).map((r) => r.status)).toEqual([200, 503, 503, 503]);
		expect(bank.stats.eventsAcked).toEqual([]);
		expect(h.savedNodeStaticData().ack).toEqual(queued.slice(0, 10));
		const failure = h.logs.find((line) => line.startsWith('[error]'));
		expect(failure).toContain('Event store unavailable');
		expect(failure).toContain('UK.OBIE.UnexpectedError');

		const [rest] = (await h.poll())!;
		expect(jtis(rest)).toEqual(queued.slice(10));
		expect(bank.stats.eventsAcked).toEqual(queued.slice(0, 10));
		expect(await h.poll()).toBeNull();
		expect(bank.stats.eventsAcked).toEqual(queued);
	});

	it('a poll that fails outright returns nothing and loses no acknowledgement', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(2);
		const h = trigger();
		await h.poll();
		bank.faults.add({ kind: 'status', status: 403, area: 'events', message: 'The TPP may not poll events.' });

		expect(await h.poll()).toBeNull();
		expect(h.liveNodeStaticData().ack).toEqual(queued);
		expect(h.logs.some((l) => l.startsWith('[error]') && l.includes('The TPP may not poll events.') && l.includes('403'))).toBe(true);
		expect(await h.poll()).toBeNull();
		expect(bank.stats.eventsAcked).toEqual(queued);
	});

	it('skips a poll that starts while the previous one is still running', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(3);
		const h = trigger();
		// The first poll's request is held at the bank: that poll is still running while the second starts.
		bank.faults.add({ kind: 'hold', area: 'events' });
		const first = h.poll();
		const held = await bank.faults.held();
		expect(await h.poll()).toBeNull();
		held.release();
		await first;
		expect(h.emitted).toHaveLength(1);
		expect(emittedJtis(h)).toEqual(queued);
		expect(eventRequests(bank)).toHaveLength(1);
		expect(h.logs.some((l) => l.includes('previous poll is still running'))).toBe(true);
	});

	it('renews an expired token after the bank answers 401 and goes on', async () => {
		const bank = sandbox.bank();
		const h = trigger();
		const first = bank.events.enqueue(1);
		await h.poll();
		bank.tokens.expireAll();
		const second = bank.events.enqueue(1);
		const [events] = (await h.poll())!;
		expect(jtis(events)).toEqual(second);
		expect(eventRequests(bank).map((r) => r.status)).toEqual([200, 401, 200]);
		expect(bank.stats.mtlsTokensIssued).toBe(2);
		expect(bank.stats.eventsAcked).toEqual(first);
		expectNoSecrets(h.logs.join('\n'), secretsOf(h, bank));
	});
});

describe('Fetch Test Event (manual mode)', () => {
	it('shows one event, acknowledges nothing, reports nothing and leaves static data alone', async () => {
		const bank = sandbox.bank();
		const h = trigger();
		const before = bank.events.enqueue(2);
		await h.poll();
		const saved = h.savedNodeStaticData();
		const live = h.liveNodeStaticData();
		bank.events.enqueue(1);
		bank.events.enqueue([{ defect: 'badSignature' }]);
		bank.resetStats();

		const result = await h.pollManual();
		expect(result![0]).toHaveLength(1);
		expect(result![1]).toEqual([]);
		expect(before).toContain(result![0][0].json.jti);
		expect(eventRequests(bank)).toHaveLength(1);
		expect(bank.stats.eventsAcked).toEqual([]);
		expect(bank.stats.setErrsReceived).toEqual({});
		expect(bank.events.pending()).toHaveLength(4);
		expect(h.savedNodeStaticData()).toEqual(saved);
		expect(h.liveNodeStaticData()).toEqual(live);
	});

	it('says so as information, not as an error, when no event is waiting, and how to get one', async () => {
		const h = trigger();
		const result = await h.pollManual();
		expect(result![1]).toEqual([]);
		expect(result![0].map((i) => i.json)).toEqual([
			{
				noEventWaiting: true,
				message: expect.stringMatching(/^No events are waiting at the bank right now\. Nothing was acknowledged/),
				howToGetASample: expect.stringContaining('POST {"count": 1}'),
			},
		]);
		expect(sandbox.bank().stats.eventsAcked).toEqual([]);
	});

	it('shows a refused event on the Rejected output when no valid one is waiting, without reporting it', async () => {
		const bank = sandbox.bank();
		const [bad] = bank.events.enqueue([{ defect: 'wrongAudience' }]);
		const result = await trigger().pollManual();
		expect(result![0]).toEqual([]);
		expect(result![1].map((i) => i.json)).toEqual([{ jti: bad, err: 'invalid_audience', description: expect.stringContaining('audience') }]);
		expect(bank.stats.setErrsReceived).toEqual({});
		expect(bank.events.pending()).toEqual([bad]);
	});

	it("throws the bank's refusal as a NodeApiError with the bank's code", async () => {
		const bank = sandbox.bank();
		bank.events.enqueue(1);
		bank.faults.add({ kind: 'status', status: 403, area: 'events', message: 'The TPP may not poll events.' });
		const error = (await trigger()
			.pollManual()
			.catch((e: unknown) => e)) as Error & { httpCode?: string; description?: string };
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe('Fetch events: The TPP may not poll events.');
		expect(error.httpCode).toBe('403');
		expect(error.description).toContain('UK.OBIE.Resource.Forbidden');
	});
});

describe('mutual TLS', () => {
	it('the sandbox refuses TLS clients without a certificate or with one from another CA', async () => {
		const bank = sandbox.bank();
		const call = async (cert?: string, key?: string) =>
			await httpsCall(bank.urls.events, { method: 'POST', body: '{}', ca: bank.tls.caPem, cert, key, timeoutMs: 5000 }).then(
				(r) => `HTTP ${r.status}`,
				(e: NodeJS.ErrnoException) => `refused: ${e.code ?? e.message}`,
			);
		expect(await call()).toMatch(/^refused: /);
		expect(await call(bank.tls.otherCaClientCertPem, bank.tls.otherCaClientKeyPem)).toMatch(/^refused: /);
		// The registered certificate passes the TLS layer (and then needs a token).
		expect(await call(bank.tls.clientCertPem, bank.tls.clientKeyPem)).toBe('HTTP 401');
	});

	it('says clearly that the bank refused a certificate from another CA', async () => {
		const bank = sandbox.bank();
		bank.events.enqueue(1);
		const credential = { certificate: bank.tls.otherCaClientCertPem, privateKey: bank.tls.otherCaClientKeyPem };
		const h = trigger({}, { credential });
		const error = (await h.pollManual().catch((e: unknown) => e)) as Error;
		expect(error.message).toMatch(/Client Certificate/);
		expect(error.message).toMatch(/refused|closed the connection during the TLS handshake/);
		expect(bank.stats.mtlsTokensIssued).toBe(0);

		expect(await h.poll()).toBeNull();
		const logged = h.logs.find((l) => l.startsWith('[error]'));
		expect(logged).toMatch(/Client Certificate/);
		expect(bank.events.pending()).toHaveLength(1);
	});

	it('refuses to poll without a client certificate, before connecting', async () => {
		const h = trigger({}, { credential: { certificate: '', privateKey: '' } });
		await expect(h.pollManual()).rejects.toThrow('Client Certificate: required');
		await expect(h.poll()).rejects.toThrow('Client Certificate: required');
		expect(sandbox.bank().stats.requests).toEqual([]);
	});

	it('refuses an expired certificate before connecting, naming the field', async () => {
		const bank = sandbox.bank();
		const sockets: Socket[] = [];
		const listener = createTcpServer((socket) => sockets.push(socket));
		await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
		const url = `https://127.0.0.1:${(listener.address() as AddressInfo).port}`;
		try {
			const h = trigger(
				{ eventsUrl: `${url}/events`, jwksUrl: `${url}/jwks` },
				{ credential: { baseUrl: url, certificate: bank.tls.expiredClientCertPem, privateKey: bank.tls.expiredClientKeyPem } },
			);
			const manual = (await h.pollManual().catch((e: unknown) => e)) as Error & { description?: string };
			expect(manual.message).toMatch(/^Client Certificate: expired on \d{4}-\d{2}-\d{2}T/);
			expect(manual.description).toContain('Corporate Banking Mutual TLS API credential');
			// At activation the error stops the workflow from being activated.
			await expect(h.poll()).rejects.toThrow(/^Client Certificate: expired on/);
			expect(sockets).toHaveLength(0);
		} finally {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => listener.close(() => resolve()));
		}
	});
});

describe('signature and claims', () => {
	it('fetches the JWKS once and keeps it in memory between polls', async () => {
		const bank = sandbox.bank();
		const h = trigger();
		bank.events.enqueue(2);
		await h.poll();
		bank.events.enqueue(2);
		await h.poll();
		expect(emittedJtis(h)).toHaveLength(4);
		expect(jwksFetches(bank)).toBe(1);
	});

	it('fetches the JWKS again once for an unknown kid, then refuses its SETs with invalid_key', async () => {
		const bank = sandbox.bank();
		const h = trigger();
		bank.events.enqueue(1);
		await h.poll();
		expect(jwksFetches(bank)).toBe(1);

		const unknown = bank.events.enqueue(3);
		bank.faults.add({ kind: 'eventUnknownKid' });
		const [events, rejected] = (await h.poll())!;
		expect(events).toEqual([]);
		expect(rejected.map((i) => [i.json.jti, i.json.err])).toEqual(unknown.map((jti) => [jti, 'invalid_key']));
		expect(rejected[0].json.description).toMatch(/No key with kid "unknown-/);
		// One more fetch for the three SETs, not three.
		expect(jwksFetches(bank)).toBe(2);
		await h.poll();
		expect(Object.keys(bank.stats.setErrsReceived).sort()).toEqual([...unknown].sort());
		for (const jti of unknown) expect(bank.stats.setErrsReceived[jti].err).toBe('invalid_key');
	});

	it('picks up a rotated signing key by fetching the JWKS again', async () => {
		const bank = sandbox.bank();
		const retired = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
		let served = 0;
		const keystore = await startHttps(bank, (_req, _body, res) => {
			served++;
			const jwks = served === 1 ? { keys: [{ ...retired, kid: 'retired-key', alg: 'PS256', use: 'sig' }] } : bank.events.jwks();
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(jwks));
		});
		try {
			// Several SETs of one page are checked at the same time: all wait for the one fetch again.
			const queued = bank.events.enqueue(5);
			const h = trigger({ jwksUrl: `${keystore.url}/jwks.json` });
			const [events, rejected] = (await h.poll())!;
			expect(jtis(events)).toEqual(queued);
			expect(rejected).toEqual([]);
			expect(served).toBe(2);
		} finally {
			await keystore.close();
		}
	});

	it('neither refuses nor acknowledges events while the JWKS cannot be fetched', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(2);
		bank.faults.add({ kind: 'status', status: 503, area: 'jwks', count: 3 });
		const h = trigger();
		expect(await h.poll()).toBeNull();
		expect(h.logs.find((l) => l.startsWith('[error]'))).toContain("Could not fetch the bank's JWKS");
		expect(h.liveNodeStaticData()).toMatchObject({ ack: [], setErrs: {} });

		const [events] = (await h.poll())!;
		expect(jtis(events)).toEqual(queued);
		await h.poll();
		expect(bank.stats.eventsAcked).toEqual(queued);
		expect(bank.stats.setErrsReceived).toEqual({});

		// In the editor the same failure is thrown with what the key server said.
		clearJwksCache();
		bank.events.enqueue(1);
		bank.faults.add({ kind: 'status', status: 503, area: 'jwks', count: 3 });
		await expect(h.pollManual()).rejects.toThrow(/^Fetch the bank's JWKS: /);
	});

	it('refuses bad signatures, wrong audiences and wrong issuers with their RFC 8935 codes, on the Rejected output and in the log', async () => {
		const bank = sandbox.bank();
		const [good1] = bank.events.enqueue(1);
		const [badSig, wrongAud, wrongIss] = bank.events.enqueue([{ defect: 'badSignature' }, { defect: 'wrongAudience' }, { defect: 'wrongIssuer' }]);
		const [good2] = bank.events.enqueue(1);
		const h = trigger();

		const [events, rejected] = (await h.poll())!;
		expect(jtis(events)).toEqual([good1, good2]);
		expect(rejected.map((i) => i.json)).toEqual([
			{ jti: badSig, err: 'invalid_key', description: expect.stringContaining('signature') },
			{ jti: wrongAud, err: 'invalid_audience', description: expect.stringContaining('audience') },
			{ jti: wrongIss, err: 'invalid_issuer', description: expect.stringContaining('issuer') },
		]);
		for (const jti of [badSig, wrongAud, wrongIss]) {
			expect(h.logs.some((l) => l.startsWith('[warn]') && l.includes(jti))).toBe(true);
		}
		expect(bank.stats.setErrsReceived).toEqual({});

		expect(await h.poll()).toBeNull();
		expect(bank.stats.setErrsReceived).toEqual({
			[badSig]: { err: 'invalid_key', description: expect.any(String) },
			[wrongAud]: { err: 'invalid_audience', description: expect.any(String) },
			[wrongIss]: { err: 'invalid_issuer', description: expect.any(String) },
		});
		expect(bank.stats.eventsAcked).toEqual([good1, good2]);
		expect(bank.events.pending()).toEqual([]);
		expectNoSecrets(h.logs.join('\n') + JSON.stringify(rejected), secretsOf(h, bank));
	});

	it('refuses a response-wide bad signature the same way', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(2);
		bank.faults.add({ kind: 'eventBadSignature' });
		const h = trigger();
		const [events, rejected] = (await h.poll())!;
		expect(events).toEqual([]);
		expect(rejected.map((i) => i.json.err)).toEqual(['invalid_key', 'invalid_key']);
		await h.poll();
		expect(Object.keys(bank.stats.setErrsReceived).sort()).toEqual([...queued].sort());
	});

	it('refuses malformed SETs with invalid_request', async () => {
		const bank = sandbox.bank();
		const now = Math.floor(Date.now() / 1000);
		const crafted: Record<string, string> = {};
		const add = (claims: Record<string, unknown>, header: Record<string, unknown> = {}, jti = randomUUID()) => {
			crafted[jti] = bankSigned(bank, { ...setClaims(bank, jti), ...claims }, header);
			return jti;
		};
		const future = add({ iat: now + 3600 });
		const noEvents = add({ events: {} });
		const wrongTyp = add({}, { typ: 'JWT' });
		const otherJti = add({ jti: 'someone-else' });
		const notJws = randomUUID();
		crafted[notJws] = 'not-a-jws';
		const rs256 = randomUUID();
		crafted[rs256] = bankSigned(bank, setClaims(bank, rs256)).replace(/^[^.]+/, Buffer.from(JSON.stringify({ alg: 'RS256', kid: bank.tls.eventKid })).toString('base64url'));
		const valid = add({});
		let once = true;
		const relay = await startEventsRelay(bank, {
			extraSets: () => {
				if (!once) return {};
				once = false;
				return crafted;
			},
		});
		try {
			const h = trigger({ eventsUrl: relay.url });
			const [events, rejected] = (await h.poll())!;
			expect(jtis(events)).toEqual([valid]);
			const codes = Object.fromEntries(rejected.map((i) => [i.json.jti, i.json.err]));
			expect(codes).toEqual({
				[future]: 'invalid_request',
				[noEvents]: 'invalid_request',
				[wrongTyp]: 'invalid_request',
				[otherJti]: 'invalid_request',
				[notJws]: 'invalid_request',
				[rs256]: 'invalid_key',
			});
			await h.poll();
			expect(relay.seen[1].body.setErrs).toEqual(
				Object.fromEntries(Object.entries(codes).map(([jti, err]) => [jti, { err, description: expect.any(String) }])),
			);
			expect(relay.seen[1].body.ack).toEqual([valid]);
		} finally {
			await relay.close();
		}
	});

	it('verifies with a PEM public key instead of a JWKS', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(2);
		const [bad] = bank.events.enqueue([{ defect: 'badSignature' }]);
		const h = trigger({ keySource: 'pem', publicKey: bank.tls.eventSigningPublicKeyPem, jwksUrl: '' });
		const [events, rejected] = (await h.poll())!;
		expect(jtis(events)).toEqual(queued);
		expect(jtis(rejected)).toEqual([bad]);
		expect(jwksFetches(bank)).toBe(0);
	});

	it('adds the raw SET when asked', async () => {
		const bank = sandbox.bank();
		const [jti] = bank.events.enqueue(1);
		const [events] = (await trigger({ options: { includeRawSet: true } }).poll())!;
		expect(events[0].json.rawSet).toBe(bank.events.get(jti)!.jws);
	});
});

describe('event types', () => {
	it('emits only the chosen types and acknowledges the others without emitting them', async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue([
			{ type: 'resource-update' },
			{ type: 'consent-authorization-revoked' },
			{ type: 'urn:bank:events:payment-status' },
			{ type: 'account-access-consent-linked-account-update' },
			{ type: 'resource-update' },
		]);
		const h = trigger({ eventTypes: [`${OB}consent-authorization-revoked`], options: { otherEventTypes: 'urn:bank:events:payment-status' } });
		const [events, rejected] = (await h.poll())!;
		expect(jtis(events)).toEqual([queued[1], queued[2]]);
		expect(events.map((e) => e.json.eventType)).toEqual([`${OB}consent-authorization-revoked`, 'urn:bank:events:payment-status']);
		expect(rejected).toEqual([]);
		expect(await h.poll()).toBeNull();
		expect(bank.stats.eventsAcked).toEqual(queued);
		expect(bank.stats.setErrsReceived).toEqual({});
		// Filtered-out events take no room in the dedupe memory.
		expect(h.savedNodeStaticData().recent).toEqual([queued[1], queued[2]]);
	});

	it('keeps the events of one SET together in one item, led by the chosen type', async () => {
		const bank = sandbox.bank();
		const jti = randomUUID();
		const events = {
			[`${OB}resource-update`]: { subject: { subject_type: 'a' } },
			[`${OB}consent-authorization-revoked`]: { subject: { subject_type: 'b' }, reason: 'x' },
		};
		let once = true;
		const relay = await startEventsRelay(bank, {
			extraSets: () => {
				if (!once) return {};
				once = false;
				return { [jti]: bankSigned(bank, setClaims(bank, jti, { events })) };
			},
		});
		try {
			const h = trigger({ eventsUrl: relay.url, eventTypes: [`${OB}consent-authorization-revoked`] });
			const [items] = (await h.poll())!;
			expect(items).toHaveLength(1);
			expect(items[0].json).toMatchObject({
				jti,
				eventType: `${OB}consent-authorization-revoked`,
				event: events[`${OB}consent-authorization-revoked`],
				otherEvents: { [`${OB}resource-update`]: events[`${OB}resource-update`] },
			});
		} finally {
			await relay.close();
		}
	});
});

describe('configuration', () => {
	it("uses {Base URL}/events of the credential when Events URL is empty", async () => {
		const bank = sandbox.bank();
		const queued = bank.events.enqueue(1);
		const [events] = (await trigger({ eventsUrl: '' }).poll())!;
		expect(jtis(events)).toEqual(queued);
	});

	it("sends the token only to the credential's hosts: another Events URL host must be allowed in the credential", async () => {
		const bank = sandbox.bank();
		const elsewhere = `${bank.urls.foreign}/events`;
		const notAllowed = { credential: { otherAllowedUrls: '' } };
		await expect(trigger({ eventsUrl: elsewhere }, notAllowed).pollManual()).rejects.toThrow(
			/Refusing to send the bank credential to https:\/\/127\.0\.0\.1:\d+: .*Other Allowed URLs/,
		);
		const scheduled = trigger({ eventsUrl: elsewhere }, notAllowed);
		expect(await scheduled.poll()).toBeNull();
		expect(scheduled.logs.find((line) => line.startsWith('[error]'))).toContain('Other Allowed URLs');
		expect(bank.stats.foreignRequests).toEqual([]);

		// Allowed in the credential: the request goes there (the stand-in answers with no events).
		const allowed = trigger({ eventsUrl: elsewhere }, { credential: { otherAllowedUrls: ` https://example.invalid, ${bank.urls.foreign}/ ` } });
		await allowed.poll();
		expect(bank.stats.foreignRequests.map((r) => r.method)).toEqual(['POST']);
	});

	it('refuses an Events URL that is not https', async () => {
		await expect(trigger({ eventsUrl: 'http://127.0.0.1:1/events' }).pollManual()).rejects.toThrow('Events URL: must be an https:// URL');
	});

	it('runs the example workflow: a change at the bank refreshes the open FX trades once', async () => {
		const bank = sandbox.bank();
		const { workflow, store } = prepareExample('bank-event-trigger.json', bank);
		const node = workflow.nodes.find((n) => n.type === TRIGGER_TYPE)!;
		const s = bank.eventSettings();
		Object.assign(node.parameters, { jwksUrl: s.jwksUrl, issuer: s.issuer, audience: s.audience });
		const queued = bank.events.enqueue([{ type: 'account-access-consent-linked-account-update' }, { type: 'resource-update' }, { type: 'resource-update' }]);

		// Activated: the trigger polls on its own; only the chosen types are emitted.
		const active = createPollHarness({ node, nodeType: new BankEventTrigger(), credentialTypes: packageCredentialTypes(), credentials: store });
		bank.events.enqueue([{ defect: 'wrongAudience' }]);
		const [events, rejected] = (await active.poll())!;
		expect(jtis(events)).toEqual(queued.slice(1));
		expect(rejected).toHaveLength(1);

		// "Execute workflow" in the editor: the trigger fetches a sample and the rest runs on it.
		bank.events.enqueue(1);
		const result = await runWorkflow({
			workflow,
			nodeTypes: { ...packageNodeTypes(), [TRIGGER_TYPE]: new BankEventTrigger() },
			credentialTypes: packageCredentialTypes(),
			credentials: store,
		});
		expect(result.status).toBe('success');
		expect(result.output(NODE_NAME)).toHaveLength(1);
		const trades = result.output('Open FX Trades');
		expect(trades.length).toBeGreaterThan(0);
		expect(trades.map((t) => t.json.tradeId)).toEqual(bank.trades.all().filter((t) => t.maturityDate >= new Date().toISOString().slice(0, 10)).map((t) => t.tradeId));
	});
});
