/**
 * eventTrigger: 10,000 PS256-signed events drained from the sandbox bank through the Bank Event
 * Trigger (n8n's polling engine, default per-poll ceilings, polls repeated until the bank's queue
 * is empty and acknowledged), against a plain loop in the same run, with the sandbox bank in its
 * own process: keep-alive mutual-TLS
 * requests, jose verification with a local JWKS, acknowledgements with the next request.
 * Reports events per second of the trigger and the ratio of medians; for comparison, also the same
 * loop checking the signatures of a page at the same time, as the trigger does.
 */
import https from 'node:https';

import { compactVerify, createLocalJWKSet } from 'jose';
import type { INode } from 'n8n-workflow';

import { BankEventTrigger } from '../nodes/BankEventTrigger/BankEventTrigger.node';
import { clearJwksCache } from '../nodes/BankEventTrigger/events/keys';
import { clearTokenMemo } from '../nodes/shared/transport/token';
import { createPollHarness } from '../test/harness/poll';
import { CREDENTIAL_IDS, MTLS } from '../test/helpers/bank';
import { packageCredentialTypes } from '../test/helpers/nodes';
import { createCredentialStore } from '../test/harness/engine';
import { collectGarbage, median, plainJson, round, timed } from './common';
import type { SandboxProcess } from './sandboxProcess';
import { startSandboxProcess } from './sandboxProcess';

type Bank = SandboxProcess;

function mtlsValues(bank: Bank): Record<string, string> {
	return bank.state.credentials[MTLS] as Record<string, string>;
}

async function pendingCount(bank: Bank): Promise<number> {
	return (await bank.admin<{ pending: string[] }>('GET', '/events')).pending.length;
}

const EVENTS = 10_000;
const PAGE = 100;

export interface EventTriggerResult {
	events: number;
	eventsPerSecond: number;
	ratio: number;
	triggerWallS: number;
	baselineWallS: number;
	baselineEventsPerSecond: number;
	/** The plain loop checking the signatures of a page at the same time, as the trigger does. */
	concurrentVerifyWallS: number;
	ratioToConcurrentVerify: number;
	polls: number;
	requests: number;
}

interface PollBody {
	sets: Record<string, string>;
	moreAvailable?: boolean;
}

async function baseline(bank: Bank, concurrent = false): Promise<number> {
	const s = bank.state.events;
	const v = mtlsValues(bank);
	const tls = { ca: bank.caPem, cert: v.certificate, key: v.privateKey };
	const shared = new https.Agent({ keepAlive: true, ...tls });
	const agentFor = () => shared;
	const plain = new https.Agent({ keepAlive: true, ca: bank.caPem });
	try {
		const token = await plainJson<{ access_token: string }>(agentFor(), bank.state.urls.mtlsToken, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'accounts', client_id: bank.state.clients.mtlsClientId }).toString(),
		});
		const jwks = await plainJson<Parameters<typeof createLocalJWKSet>[0]>(plain, s.jwksUrl);
		const keys = createLocalJWKSet(jwks.body);
		const headers = { authorization: `Bearer ${token.body.access_token}`, 'content-type': 'application/json', accept: 'application/json' };
		const decoder = new TextDecoder();
		let ack: string[] = [];
		let count = 0;
		while (true) {
			const answer = await plainJson<PollBody>(agentFor(), s.eventsUrl, {
				method: 'POST',
				headers,
				body: JSON.stringify({ maxEvents: PAGE, returnImmediately: true, ack, setErrs: {} }),
			});
			ack = [];
			const check = async ([jti, jws]: [string, string]) => {
				const { payload } = await compactVerify(jws, keys, { algorithms: ['PS256'] });
				const claims = JSON.parse(decoder.decode(payload)) as { iss: string; aud: string; jti: string };
				if (claims.iss !== s.issuer || claims.aud !== s.audience || claims.jti !== jti) throw new Error(`bad SET ${jti}`);
				ack.push(jti);
				count++;
			};
			const sets = Object.entries(answer.body.sets);
			if (concurrent) await Promise.all(sets.map(check));
			else for (const set of sets) await check(set);
			if (answer.body.moreAvailable !== true) break;
		}
		await plainJson(agentFor(), s.eventsUrl, { method: 'POST', headers, body: JSON.stringify({ maxEvents: 0, ack, setErrs: {} }) });
		return count;
	} finally {
		shared.destroy();
		plain.destroy();
	}
}

function triggerNode(bank: Bank): INode {
	const s = bank.state.events;
	return {
		id: 'bench-trigger',
		name: 'Bank Event Trigger',
		type: 'n8n-nodes-corporate-banking.bankEventTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: { eventsUrl: s.eventsUrl, jwksUrl: s.jwksUrl, issuer: s.issuer, audience: s.audience, maxEvents: PAGE },
		credentials: { [MTLS]: { id: CREDENTIAL_IDS[MTLS], name: 'Sandbox mTLS' } },
	};
}

let polls = 0;

async function trigger(bank: Bank, expected = EVENTS): Promise<number> {
	clearTokenMemo();
	clearJwksCache();
	const harness = createPollHarness({
		node: triggerNode(bank),
		nodeType: new BankEventTrigger(),
		credentialTypes: packageCredentialTypes(),
		credentials: createCredentialStore([{ id: CREDENTIAL_IDS[MTLS], name: 'mtls', type: MTLS, data: mtlsValues(bank) }]),
	});
	let count = 0;
	polls = 0;
	// Poll as n8n would until every event is emitted, then once more: that poll carries the last
	// acknowledgements (the caller checks that the bank's queue is empty).
	while (count < expected) {
		const result = await harness.poll();
		polls++;
		count += result?.[0].length ?? 0;
		if (polls > 1000) throw new Error('the trigger does not drain the queue');
	}
	await harness.poll();
	polls++;
	return count;
}

export async function run(reps = 5): Promise<EventTriggerResult> {
	const bank = await startSandboxProcess(['--seed', '42', '--trades', '10']);
	try {
		const measure = async (fn: (b: Bank, expected: number) => Promise<number>, events: number) => {
			await bank.admin('POST', '/reset', { all: true });
			await bank.admin('POST', '/events', { count: events });
			collectGarbage();
			const t = await timed(async () => await fn(bank, events));
			if (t.value !== events) throw new Error(`${fn.name} drained ${t.value} of ${events} events`);
			if (await pendingCount(bank)) throw new Error(`${fn.name} left events unacknowledged`);
			return t.seconds;
		};
		const keepAlive = async (b: Bank) => await baseline(b, false);
		// Warm both paths (JIT, TLS, engine modules), then alternate.
		await measure(keepAlive, 500);
		await measure(trigger, 500);
		const concurrentVerify = async (b: Bank) => await baseline(b, true);
		const baseTimes: number[] = [];
		const concurrentTimes: number[] = [];
		const triggerTimes: number[] = [];
		let requests = 0;
		for (let i = 0; i < reps; i++) {
			baseTimes.push(await measure(keepAlive, EVENTS));
			triggerTimes.push(await measure(trigger, EVENTS));
			requests = (await bank.admin<{ requests: Array<{ area: string }> }>('GET', '/stats')).requests.filter((r) => r.area === 'events').length;
			concurrentTimes.push(await measure(concurrentVerify, EVENTS));
		}
		const triggerS = median(triggerTimes);
		const baseS = median(baseTimes);
		return {
			events: EVENTS,
			eventsPerSecond: Math.round(EVENTS / triggerS),
			ratio: round(triggerS / baseS),
			triggerWallS: round(triggerS),
			baselineWallS: round(baseS),
			baselineEventsPerSecond: Math.round(EVENTS / baseS),
			concurrentVerifyWallS: round(median(concurrentTimes)),
			ratioToConcurrentVerify: round(triggerS / median(concurrentTimes)),
			polls,
			requests,
		};
	} finally {
		await bank.stop();
	}
}
