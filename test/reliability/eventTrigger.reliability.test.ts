/**
 * Bank Event Trigger under faults: many poll rounds against the sandbox bank with injected
 * failures and restarts, counting every event by jti. Deterministic: the schedule comes from a
 * seeded PRNG.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { clearJwksCache } from '../../nodes/BankEventTrigger/events/keys';
import { clearTokenMemo } from '../../nodes/shared/transport/token';
import type { PollHarness } from '../harness/poll';
import { useSandbox } from '../helpers/bank';
import { triggerHarness } from '../helpers/trigger';
import type { EventSpec, FaultSpec, SandboxBank } from '../sandbox';
import { Prng } from '../sandbox/prng';
import { httpsCall } from '../sandbox/testing';

const sandbox = useSandbox();

beforeEach(() => clearJwksCache());

function trigger(bank: SandboxBank, parameters: IDataObject = {}): PollHarness {
	return triggerHarness(bank, { parameters });
}

/** An n8n restart: nothing in memory survives, only what n8n saved. */
function restart(h: PollHarness, saved?: IDataObject): PollHarness {
	clearJwksCache();
	clearTokenMemo();
	return h.reload(saved);
}

const jtis = (items: INodeExecutionData[] | undefined) => (items ?? []).map((item) => item.json.jti as string);

type Defect = NonNullable<EventSpec['defect']>;
const EXPECTED_CODE: Record<Defect, string> = {
	badSignature: 'invalid_key',
	unknownKid: 'invalid_key',
	wrongAudience: 'invalid_audience',
	wrongIssuer: 'invalid_issuer',
};
const TYPES = ['resource-update', 'consent-authorization-revoked', 'account-access-consent-linked-account-update'];

type RoundFault =
	| 'none'
	| '5xx once'
	| '5xx twice'
	| '5xx exhausting'
	| 'drop before'
	| 'drop after'
	| 'drop after exhausting'
	| 'html 502'
	| 'nonJson200 after'
	| 'malformed'
	| 'eventBadSignature'
	| 'eventWrongAudience'
	| 'eventOmitMoreAvailable'
	| 'token expired'
	| 'ack lost'
	| 'replay'
	| '5xx on a later page'
	| 'drop after on a later page';

const SCHEDULE: Array<[RoundFault, number]> = [
	['none', 18],
	['5xx once', 5],
	['5xx twice', 3],
	['5xx exhausting', 3],
	['drop before', 4],
	['drop after', 4],
	['drop after exhausting', 2],
	['html 502', 2],
	['nonJson200 after', 2],
	['malformed', 3],
	['eventBadSignature', 3],
	['eventWrongAudience', 3],
	['eventOmitMoreAvailable', 5],
	['token expired', 3],
	['ack lost', 4],
	['replay', 4],
	['5xx on a later page', 3],
	['drop after on a later page', 3],
];

/**
 * A relay in front of the bank's events endpoint, passing everything through (a failed upstream
 * call drops the connection, as the bank would). Two bank misbehaviours the sandbox has no switch
 * for: 'ack lost' forgets the acknowledgements of a request (the bank delivers those SETs again),
 * 'replay' adds the SETs of the previous answer to the next one (a bank that delivers SETs again
 * after they were acknowledged).
 */
async function startRelay(bank: SandboxBank) {
	let mode: 'pass' | 'ack lost' | 'replay' = 'pass';
	let previous: Record<string, string> = {};
	const key = readFileSync(join(bank.tls.certDir, 'server.key'), 'utf8');
	const server = createServer({ key, cert: bank.tls.serverCertPem }, (req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
			if (mode === 'ack lost') body.ack = [];
			httpsCall(bank.urls.events, {
				method: 'POST',
				headers: { 'content-type': 'application/json', authorization: String(req.headers.authorization ?? '') },
				body: JSON.stringify(body),
				ca: bank.tls.caPem,
				cert: bank.tls.clientCertPem,
				key: bank.tls.clientKeyPem,
			}).then(
				(answer) => {
					let text = answer.text();
					if (answer.status === 200) {
						let doc: { sets?: Record<string, string> } | undefined;
						try {
							doc = JSON.parse(text) as { sets?: Record<string, string> };
						} catch {
							doc = undefined;
						}
						if (doc?.sets) {
							const current = doc.sets;
							if (mode === 'replay') {
								doc.sets = { ...previous, ...current };
								text = JSON.stringify(doc);
							}
							previous = current;
						}
					}
					res.writeHead(answer.status, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
					res.end(text);
				},
				() => res.socket?.destroy(),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
		setMode: (next: typeof mode) => {
			mode = next;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

function faultsFor(kind: RoundFault): FaultSpec[] {
	switch (kind) {
		case '5xx once':
			return [{ kind: 'status', status: 503, area: 'events' }];
		case '5xx twice':
			return [{ kind: 'status', status: 500, area: 'events', count: 2 }];
		case '5xx exhausting':
			return [{ kind: 'status', status: 502, area: 'events', count: 3 }];
		case 'drop before':
			return [{ kind: 'drop', area: 'events' }];
		case 'drop after':
			return [{ kind: 'drop', phase: 'after', area: 'events' }];
		case 'drop after exhausting':
			return [{ kind: 'drop', phase: 'after', area: 'events', count: 3 }];
		case 'html 502':
			return [{ kind: 'html', area: 'events', phase: 'after' }];
		case 'nonJson200 after':
			return [{ kind: 'nonJson200', area: 'events', phase: 'after' }];
		case 'malformed':
			return [{ kind: 'malformed', area: 'events' }];
		case '5xx on a later page':
			return [
				{ kind: 'delay', delayMs: 0, area: 'events' },
				{ kind: 'status', status: 503, area: 'events', count: 3 },
			];
		case 'drop after on a later page':
			return [
				{ kind: 'delay', delayMs: 0, area: 'events' },
				{ kind: 'drop', phase: 'after', area: 'events', count: 3 },
			];
		case 'eventBadSignature':
		case 'eventWrongAudience':
		case 'eventOmitMoreAvailable':
			return [{ kind }];
		default:
			return [];
	}
}

function shuffled<T>(prng: Prng, items: T[]): T[] {
	const out = [...items];
	for (let i = out.length - 1; i > 0; i--) {
		const j = prng.int(0, i);
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

describe('Bank Event Trigger under faults', () => {
	it('emits every valid event exactly once over 74 rounds of faults and restarts, and reports every invalid one', async () => {
		const bank = sandbox.bank();
		const prng = new Prng(8936);
		const schedule = shuffled(
			prng,
			SCHEDULE.flatMap(([kind, n]) => Array<RoundFault>(n).fill(kind)),
		);
		expect(schedule).toHaveLength(74);
		const relay = await startRelay(bank);

		const valid = new Set<string>();
		const defective = new Map<string, Defect>();
		const emitted = new Map<string, number>();
		const refused = new Map<string, { count: number; err: string; fault: RoundFault }>();
		/** Valid events the bank sent with a broken signature or audience: refusing them is right. */
		const spoiled = new Map<string, string>();
		let restarts = 0;
		let multiPagePolls = 0;
		let failedPolls = 0;

		let h = trigger(bank, { eventsUrl: relay.url, maxEvents: 3, options: { maxEventsPerPoll: 9 } });
		let repeatsAcknowledged = 0;
		let laterPageFailures = 0;
		const record = (result: INodeExecutionData[][] | null, fault: RoundFault) => {
			for (const jti of jtis(result?.[0])) emitted.set(jti, (emitted.get(jti) ?? 0) + 1);
			for (const item of result?.[1] ?? []) {
				const jti = item.json.jti as string;
				const prior = refused.get(jti);
				refused.set(jti, { count: (prior?.count ?? 0) + 1, err: item.json.err as string, fault });
				if (valid.has(jti)) {
					expect(['eventBadSignature', 'eventWrongAudience']).toContain(fault);
					spoiled.set(jti, fault === 'eventBadSignature' ? 'invalid_key' : 'invalid_audience');
				}
			}
		};

		for (let round = 0; round < schedule.length; round++) {
			const fault = schedule[round];
			for (const jti of bank.events.enqueue(Array.from({ length: prng.int(0, 5) }, () => ({ type: prng.pick(TYPES) })))) {
				valid.add(jti);
			}
			if (prng.chance(0.3)) {
				const defect = prng.pick<Defect>(['badSignature', 'unknownKid', 'wrongAudience', 'wrongIssuer']);
				const [jti] = bank.events.enqueue([{ defect, type: prng.pick(TYPES) }]);
				defective.set(jti, defect);
			}
			bank.faults.add(faultsFor(fault));
			if (fault === 'token expired') bank.tokens.expireAll();
			relay.setMode(fault === 'ack lost' || fault === 'replay' ? fault : 'pass');

			const requestsBefore = bank.stats.requests.filter((r) => r.area === 'events' && r.status === 200).length;
			const logStart = h.logs.length;
			const result = await h.poll();
			const logs = h.logs.slice(logStart);
			const pages = bank.stats.requests.filter((r) => r.area === 'events' && r.status === 200).length - requestsBefore;
			if (pages > 1) multiPagePolls++;
			if (logs.some((l) => l.startsWith('[error]'))) failedPolls++;
			record(result, fault);
			relay.setMode('pass');
			repeatsAcknowledged += logs
				.map((l) => /(\d+) repeats/.exec(l)?.[1])
				.filter(Boolean)
				.reduce((sum, n) => sum + Number(n), 0);
			// Every fault of the round was met by this round's poll, except a later-page fault in a
			// poll that needed one page only.
			if (fault.endsWith('on a later page')) {
				if (bank.faults.list().length) bank.faults.clear();
				else laterPageFailures++;
			}
			expect(bank.faults.list()).toEqual([]);

			if (prng.chance(0.25)) {
				h = restart(h);
				restarts++;
			}
		}

		// The bank is healthy again: the trigger catches up.
		for (let i = 0; i < 10 && (bank.events.pending().length || (h.liveNodeStaticData().ack as string[] | undefined)?.length); i++) {
			record(await h.poll(), 'none');
		}

		await relay.close();
		expect(bank.events.pending()).toEqual([]);
		expect(h.liveNodeStaticData().ack).toEqual([]);
		expect(h.liveNodeStaticData().setErrs).toEqual({});

		// Every valid event exactly once, unless the bank spoiled its one delivery.
		for (const jti of valid) {
			if (spoiled.has(jti)) {
				expect([jti, emitted.get(jti) ?? 0]).toEqual([jti, 0]);
				expect(refused.get(jti)).toMatchObject({ count: 1, err: spoiled.get(jti) });
			} else {
				expect([jti, emitted.get(jti)]).toEqual([jti, 1]);
			}
		}
		// Nothing else was emitted.
		for (const jti of emitted.keys()) expect(valid.has(jti)).toBe(true);
		// Every invalid event refused once, with its code, on the Rejected output and to the bank.
		// (A SET the bank delivered inside a response-wide fault is refused for that fault.)
		for (const [jti, defect] of defective) {
			const seen = refused.get(jti);
			const code = seen?.fault === 'eventBadSignature' ? 'invalid_key' : seen?.fault === 'eventWrongAudience' ? 'invalid_audience' : EXPECTED_CODE[defect];
			expect([jti, seen?.count, seen?.err]).toEqual([jti, 1, code]);
			expect([jti, bank.stats.setErrsReceived[jti]?.err]).toEqual([jti, code]);
		}
		for (const [jti, err] of spoiled) expect(bank.stats.setErrsReceived[jti]?.err).toBe(err);
		expect(Object.keys(bank.stats.setErrsReceived).sort()).toEqual([...defective.keys(), ...spoiled.keys()].sort());
		expect([...refused.keys()].sort()).toEqual([...defective.keys(), ...spoiled.keys()].sort());
		// Every emitted event was acknowledged to the bank.
		const acked = new Set(bank.stats.eventsAcked);
		for (const jti of emitted.keys()) expect(acked.has(jti)).toBe(true);

		// The run exercised what it claims to.
		const fired = new Set(bank.stats.faultsFired.map((f) => f.kind));
		for (const kind of ['status', 'drop', 'html', 'nonJson200', 'malformed', 'eventBadSignature', 'eventWrongAudience', 'eventOmitMoreAvailable']) {
			expect(fired).toContain(kind);
		}
		expect(valid.size).toBeGreaterThan(100);
		expect(defective.size).toBeGreaterThan(10);
		expect(restarts).toBeGreaterThan(8);
		expect(multiPagePolls).toBeGreaterThan(5);
		expect(failedPolls).toBeGreaterThan(3);
		expect(repeatsAcknowledged).toBeGreaterThan(10);
		expect(laterPageFailures).toBeGreaterThanOrEqual(2);
		expect(bank.stats.eventsDelivered.length).toBeGreaterThan(valid.size + defective.size);
	});

	it('a crash after emitting but before saving: nothing is lost, only that poll\'s last page comes again, once', async () => {
		const bank = sandbox.bank();
		let h = trigger(bank, { maxEvents: 2, options: { maxEventsPerPoll: 1000 } });
		const first = bank.events.enqueue(3);
		await h.poll();
		const savedBefore = h.staticData();

		// This poll drains three pages; the first two are acknowledged within it, the last is not.
		const second = bank.events.enqueue(5);
		expect(jtis((await h.poll())![0])).toEqual(second);
		expect(bank.stats.eventsAcked).toEqual([...first, ...second.slice(0, 4)]);

		// n8n dies before saving: the restart starts from the state saved before that poll.
		h = restart(h, savedBefore);
		const third = bank.events.enqueue(2);
		const again = await h.poll();
		// The bank still holds the unacknowledged last page and delivers it again: it is emitted a
		// second time (nothing in the saved state remembers it). Nothing else repeats.
		expect(jtis(again![0])).toEqual([second[4], ...third]);
		expect(await h.poll()).toBeNull();
		expect(bank.events.pending()).toEqual([]);

		// From then on, exactly once again.
		const fourth = bank.events.enqueue(3);
		h = restart(h);
		expect(jtis((await h.poll())![0])).toEqual(fourth);
		h = restart(h);
		expect(await h.poll()).toBeNull();
		expect(bank.stats.eventsAcked.filter((jti) => fourth.includes(jti))).toEqual(fourth);
	});

	it('with one page per poll, a crash after emitting loses nothing and repeats exactly that page', async () => {
		const bank = sandbox.bank();
		const prng = new Prng(8417);
		let h = trigger(bank, { maxEvents: 4, options: { maxEventsPerPoll: 4 } });
		const valid: string[] = [];
		const count = new Map<string, number>();
		/** How many lost saves each event was emitted in. */
		const lostWith = new Map<string, number>();
		let lostSaves = 0;
		for (let round = 0; round < 24; round++) {
			valid.push(...bank.events.enqueue(prng.int(0, 6)));
			const before = h.staticData();
			const result = await h.poll();
			const got = jtis(result?.[0]);
			expect(got.length).toBeLessThanOrEqual(4);
			for (const jti of got) count.set(jti, (count.get(jti) ?? 0) + 1);
			if (result && prng.chance(0.35)) {
				h = restart(h, before);
				lostSaves++;
				for (const jti of got) lostWith.set(jti, (lostWith.get(jti) ?? 0) + 1);
			} else if (prng.chance(0.3)) {
				h = restart(h);
			}
		}
		for (let i = 0; i < 20 && bank.events.pending().length; i++) {
			for (const jti of jtis((await h.poll())?.[0])) count.set(jti, (count.get(jti) ?? 0) + 1);
		}
		expect(bank.events.pending()).toEqual([]);
		expect(lostSaves).toBeGreaterThan(2);
		// Nothing lost; an event comes once more for each lost save it was part of, never otherwise.
		for (const jti of valid) expect([jti, count.get(jti)]).toEqual([jti, 1 + (lostWith.get(jti) ?? 0)]);
		expect([...count.keys()].every((jti) => valid.includes(jti))).toBe(true);
	});
});
