/**
 * eventTrigger: 10,000 PS256-signed events drained from the sandbox bank through the Bank Event
 * Trigger (n8n's polling engine, default per-poll ceilings, polls repeated until the bank's queue
 * is empty and acknowledged), against a plain loop in the same process: keep-alive mutual-TLS
 * requests, jose verification with a local JWKS, acknowledgements with the next request.
 * Reports events per second of the trigger and the ratio of medians.
 */
import https from 'node:https';

import { compactVerify, createLocalJWKSet } from 'jose';
import type { INode } from 'n8n-workflow';

import { BankEventTrigger } from '../nodes/BankEventTrigger/BankEventTrigger.node';
import { clearJwksCache } from '../nodes/BankEventTrigger/events/keys';
import { clearTokenMemo } from '../nodes/shared/transport/token';
import { createPollHarness } from '../test/harness/poll';
import { CREDENTIAL_IDS, MTLS, sandboxCredentials } from '../test/helpers/bank';
import { packageCredentialTypes } from '../test/helpers/nodes';
import type { SandboxBank } from '../test/sandbox';
import { startSandbox } from '../test/sandbox';
import { median, plainJson, round, timed } from './common';

const EVENTS = 10_000;
const PAGE = 100;

export interface EventTriggerResult {
	events: number;
	eventsPerSecond: number;
	ratio: number;
	triggerWallS: number;
	baselineWallS: number;
	baselineEventsPerSecond: number;
	/** The plain loop opening a new TLS connection per request, as n8n's request helper does. */
	freshConnectionsWallS: number;
	ratioToFreshConnections: number;
	polls: number;
	requests: number;
}

interface PollBody {
	sets: Record<string, string>;
	moreAvailable?: boolean;
}

async function baseline(bank: SandboxBank, keepAlive = true): Promise<number> {
	const s = bank.eventSettings();
	const tls = { ca: bank.tls.caPem, cert: bank.tls.clientCertPem, key: bank.tls.clientKeyPem };
	const shared = new https.Agent({ keepAlive: true, ...tls });
	const agentFor = () => (keepAlive ? shared : new https.Agent(tls));
	const plain = new https.Agent({ keepAlive: true, ca: bank.tls.caPem });
	try {
		const token = await plainJson<{ access_token: string }>(agentFor(), bank.urls.mtlsToken, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'accounts', client_id: bank.clients.mtlsClientId }).toString(),
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
			for (const [jti, jws] of Object.entries(answer.body.sets)) {
				const { payload } = await compactVerify(jws, keys, { algorithms: ['PS256'] });
				const claims = JSON.parse(decoder.decode(payload)) as { iss: string; aud: string; jti: string };
				if (claims.iss !== s.issuer || claims.aud !== s.audience || claims.jti !== jti) throw new Error(`bad SET ${jti}`);
				ack.push(jti);
				count++;
			}
			if (answer.body.moreAvailable !== true) break;
		}
		await plainJson(agentFor(), s.eventsUrl, { method: 'POST', headers, body: JSON.stringify({ maxEvents: 0, ack, setErrs: {} }) });
		return count;
	} finally {
		shared.destroy();
		plain.destroy();
	}
}

function triggerNode(bank: SandboxBank): INode {
	const s = bank.eventSettings();
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

async function trigger(bank: SandboxBank): Promise<number> {
	clearTokenMemo();
	clearJwksCache();
	const harness = createPollHarness({
		node: triggerNode(bank),
		nodeType: new BankEventTrigger(),
		credentialTypes: packageCredentialTypes(),
		credentials: sandboxCredentials(bank),
	});
	let count = 0;
	polls = 0;
	// Poll as n8n would, until everything is emitted and acknowledged.
	while (bank.events.pending().length) {
		const result = await harness.poll();
		polls++;
		count += result?.[0].length ?? 0;
		if (polls > 1000) throw new Error('the trigger does not drain the queue');
	}
	return count;
}

export async function run(reps = 3): Promise<EventTriggerResult> {
	const bank = await startSandbox({ seed: 42, trades: 10 });
	try {
		const measure = async (fn: (b: SandboxBank) => Promise<number>, events: number) => {
			bank.events.clear();
			bank.events.enqueue(events);
			bank.resetStats();
			const t = await timed(async () => await fn(bank));
			if (t.value !== events) throw new Error(`${fn.name} drained ${t.value} of ${events} events`);
			if (bank.events.pending().length) throw new Error(`${fn.name} left events unacknowledged`);
			return t.seconds;
		};
		// Warm both paths (JIT, TLS, engine modules), then alternate.
		await measure(baseline, 500);
		await measure(trigger, 500);
		const freshConnections = async (b: SandboxBank) => await baseline(b, false);
		const baseTimes: number[] = [];
		const freshTimes: number[] = [];
		const triggerTimes: number[] = [];
		let requests = 0;
		for (let i = 0; i < reps; i++) {
			baseTimes.push(await measure(baseline, EVENTS));
			triggerTimes.push(await measure(trigger, EVENTS));
			freshTimes.push(await measure(freshConnections, EVENTS));
			requests = bank.stats.requests.filter((r) => r.area === 'events').length;
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
			freshConnectionsWallS: round(median(freshTimes)),
			ratioToFreshConnections: round(triggerS / median(freshTimes)),
			polls,
			requests,
		};
	} finally {
		await bank.stop();
	}
}
