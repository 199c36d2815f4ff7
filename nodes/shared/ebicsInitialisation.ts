/**
 * The initialisation of an EBICS subscriber, run from the EBICS credential's preAuthentication
 * (see nodes/shared/keys/state.ts): the keys made inside n8n (A006, X002, E002 with self-signed
 * certificates) or the pasted ones; INI and HIA, each sent once; after the bank's activation HPB,
 * whose keys are kept only when they match the hashes pinned from the bank's letter. Every outcome
 * is written into the credential's state and status, so nothing the bank accepted is forgotten:
 * INI that went through stays sent when HIA fails, keys made stay made when nothing could be sent.
 * Only a field to fix throws (nothing stored).
 */
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { attempt, attemptAsync } from './attempt';
import { CredentialFieldError, tlsOptionsOf } from './credentialFields';
import {
	EbicsBankKeyError,
	EbicsClient,
	EbicsReturnCodeError,
	generateSubscriberKeys,
	type EbicsSend,
	type EbicsSubscriberKeys,
} from './ebics';
import type { EbicsCredentialView, EbicsProblem, EbicsState, SentOrder } from './ebicsCredential';
import {
	EBICS_KEY_FIELDS,
	initialised,
	keysFingerprint,
	readEbicsCredential,
	statusText,
	subscriberKeys,
} from './ebicsCredential';
import type { KeyServiceSender } from './keys';
import { KeyServiceUnreachable, storedKeys } from './keys';
import type { ClientTlsOptions } from './transport/tls';
import { redactSecrets } from './transport/redact';

/** The bank's EBICS URL answered with an HTTP status other than 200. */
export class EbicsHttpStatusError extends Error {
	constructor(
		readonly step: string,
		readonly status: number,
		body: string,
	) {
		const said = body
			.replace(/<[^>]+>/g, ' ')
			.replace(/\s+/g, ' ')
			.trim()
			.slice(0, 200);
		super(
			`${step}: the EBICS URL answered HTTP ${status}${said ? ` (${said})` : ''}: check the EBICS URL in the credential`,
		);
		this.name = 'EbicsHttpStatusError';
	}
}

/** A send() for the EBICS library over a key service sender (n8n's HTTP helper). */
export function ebicsKeySend(
	url: string,
	tls: ClientTlsOptions | undefined,
	send: KeyServiceSender,
): EbicsSend {
	return async (xml, step) => {
		const reply = await send({
			url,
			body: Buffer.from(xml, 'utf8'),
			headers: { 'Content-Type': 'text/xml; charset=UTF-8', Accept: 'text/xml' },
			tls,
		});
		const body = Buffer.isBuffer(reply.body) ? reply.body.toString('utf8') : reply.body;
		if (reply.status !== 200) throw new EbicsHttpStatusError(step, reply.status, body);
		return body;
	};
}

/** The failure of an initialisation step, as the credential keeps it. */
export function problemOf(error: unknown, step: string, now: Date): EbicsProblem {
	const at = now.toISOString();
	if (error instanceof EbicsReturnCodeError)
		return {
			at,
			step,
			message: `${error.message}${error.action ? `. What to do: ${error.action}` : ''}`,
			code: error.code,
			level: error.level,
			reportText: error.reportText,
		};
	if (error instanceof EbicsBankKeyError)
		return { at, step, message: error.message, bankHashes: error.bankHashes };
	if (error instanceof KeyServiceUnreachable)
		return {
			at,
			step,
			message:
				error.delivered === false
					? `${step} could not be sent: ${error.reason}. Nothing reached the bank: check the EBICS URL and the connection, then test the credential again`
					: `${step} was sent, but ${error.reason}, so whether the bank got it is unknown. Test the credential again: ${step} is sent once more, and a bank that has it already says so`,
		};
	const message = (error as Error)?.message ?? String(error);
	return { at, step, message: message.startsWith(step) ? message : `${step}: ${message}` };
}

/** Whether a state records anything the bank has (keys sent, its keys fetched). */
function sentAnything(state: EbicsState): boolean {
	return !!(state.sent?.ini || state.sent?.hia || state.bank);
}

/** The state of this credential's subscriber: the stored one, or a new one. */
function stateFor(view: EbicsCredentialView): EbicsState {
	const state = view.state;
	if (!state) return { v: 1, owner: view.owner, phase: 'new' };
	if (state.owner === view.owner) return structuredClone(state);
	if (sentAnything(state)) {
		const sentOn = state.sent?.ini?.at ?? state.sent?.hia?.at ?? state.bank?.at ?? '';
		throw new CredentialFieldError(
			`Host ID, Partner ID and User ID: this credential's keys belong to the subscriber ${state.owner}, which the bank already knows (since ${sentOn.slice(0, 10)}). Put those IDs back, or create a new EBICS credential for ${view.owner}: a new subscriber needs its own keys and letters`,
		);
	}
	// Nothing went to the bank yet: the keys made so far serve the corrected IDs.
	return { v: 1, owner: view.owner, generated: state.generated, phase: 'new' };
}

async function makeKeys(view: EbicsCredentialView): Promise<EbicsSubscriberKeys> {
	return await generateSubscriberKeys({
		subject: {
			commonName: (
				view.subscriberName ?? `${view.subscriber.partnerId} ${view.subscriber.userId}`
			).slice(0, 64),
			organization: view.subscriber.partnerId,
		},
		bits: view.keyBits,
	});
}

/** INI then HIA, each once; what the bank accepted is kept whatever comes after. */
async function sendKeys(
	client: EbicsClient,
	state: EbicsState,
	fingerprint: string,
	now: Date,
): Promise<void> {
	const sent = state.sent?.fingerprint === fingerprint ? state.sent : { fingerprint };
	state.sent = sent;
	for (const order of ['INI', 'HIA'] as const) {
		const key = order === 'INI' ? 'ini' : 'hia';
		const before = sent[key];
		if (before?.outcome === 'accepted') continue;
		const result = await attemptAsync(async () =>
			order === 'INI' ? await client.ini() : await client.hia(),
		);
		if (result.ok) {
			sent[key] = { at: now.toISOString(), orderId: result.value.orderId, outcome: 'accepted' };
			continue;
		}
		const error = result.error;
		// It went out before and the answer was lost: a bank that has it refuses it now (091002).
		if (
			before?.outcome === 'unknown' &&
			error instanceof EbicsReturnCodeError &&
			error.code === '091002'
		) {
			sent[key] = { ...before, outcome: 'accepted' } satisfies SentOrder;
			continue;
		}
		if (error instanceof KeyServiceUnreachable && error.delivered === 'unknown')
			sent[key] = { at: now.toISOString(), outcome: 'unknown' };
		const problem = problemOf(error, order, now);
		state.problem =
			error instanceof EbicsReturnCodeError && error.code === '091002'
				? {
						...problem,
						message: `${problem.message}. The bank does not take ${order} for this subscriber in its present state: it has keys for it already (sent by another client, or earlier). If another client initialised this subscriber, choose "Import Keys" and paste its keys; otherwise ask the bank to reset the subscriber`,
					}
				: problem;
		return;
	}
	state.phase = 'lettersSent';
	state.problem = undefined;
}

/** HPB: the bank's keys, kept when they match the pinned hashes; the phase from the answer. */
async function fetchBankKeys(
	client: EbicsClient,
	view: EbicsCredentialView,
	state: EbicsState,
	now: Date,
): Promise<void> {
	const result = await attemptAsync(async () => await client.hpb(view.pinned));
	if (result.ok) {
		state.bank = { keys: result.value.keys, hashes: result.value.hashes, at: now.toISOString() };
		state.phase = 'ready';
		state.checkedAt = now.toISOString();
		state.problem = undefined;
		return;
	}
	const error = result.error;
	if (error instanceof EbicsReturnCodeError && error.code === '091002') {
		// Not activated yet, or no longer: the phase says which; the answer stays for the node.
		state.phase = state.phase === 'ready' || state.phase === 'suspended' ? 'suspended' : 'waiting';
		state.checkedAt = now.toISOString();
		state.problem = problemOf(error, 'HPB', now);
		return;
	}
	if (error instanceof EbicsBankKeyError) {
		if (state.phase !== 'ready') state.phase = 'waiting';
		state.checkedAt = now.toISOString();
	}
	state.problem = problemOf(error, 'HPB', now);
}

/** One initialisation at a time per subscriber in this process: a second caller waits for it. */
const inflight = new Map<string, Promise<IDataObject>>();

/**
 * Runs what is due for the credential's subscriber and returns the credential fields to store:
 * the keys (made now when none), INI and HIA when not sent yet, otherwise HPB. A field to fix
 * throws CredentialFieldError and stores nothing.
 */
export async function runEbicsInitialisation(
	credentials: ICredentialDataDecryptedObject,
	send: KeyServiceSender,
	now = new Date(),
): Promise<IDataObject> {
	const view = readEbicsCredential(credentials);
	const tls = attempt(() => tlsOptionsOf(credentials, credentials.useClientCertificate === true));
	if (!tls.ok) throw new CredentialFieldError((tls.error as Error).message);
	const running = inflight.get(view.owner);
	if (running) return await running;
	const work = (async () => {
		const state = stateFor(view);
		if (view.keySource === 'generate' && !state.generated) state.generated = await makeKeys(view);
		const current: EbicsCredentialView = { ...view, state };
		const keys = subscriberKeys(current) as EbicsSubscriberKeys;
		const client = new EbicsClient({
			subscriber: view.subscriber,
			keys: { version: 1, subscriber: keys },
			send: ebicsKeySend(view.url, tls.value, send),
			bankKeyDigestForm: view.digestForm,
		});
		if (initialised(current)) await fetchBankKeys(client, current, state, now);
		else await sendKeys(client, state, keysFingerprint(keys), now);
		if (state.problem)
			state.problem = {
				...state.problem,
				message: redactSecrets(state.problem.message, view.secrets),
			};
		return storedKeys(EBICS_KEY_FIELDS, state, now.toISOString(), statusText(current, state));
	})();
	inflight.set(view.owner, work);
	try {
		return await work;
	} finally {
		inflight.delete(view.owner);
	}
}
