/**
 * The initialisation of an EBICS subscriber, run from the EBICS credential's preAuthentication
 * (see nodes/shared/keys/state.ts): the keys made inside n8n (A006, X002, E002 with self-signed
 * certificates) or the pasted ones; INI and HIA, each sent once; after the bank's activation HPB,
 * whose keys are kept only when they match the hashes pinned from the bank's letter. Every outcome
 * is written into the credential's state and status, so nothing the bank accepted is forgotten:
 * INI that went through stays sent when HIA fails, keys made stay made when nothing could be sent.
 * Only a field to fix throws (nothing stored).
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { attempt, attemptAsync } from '../../common/attempt';
import { CredentialFieldError, tlsOptionsOf } from '../../common/credentialFields';
import { clause } from '../../common/errors';
import {
	EbicsBankKeyError,
	EbicsClient,
	EbicsReturnCodeError,
	type EbicsSend,
	type EbicsSubscriberKeys,
} from '../index';
import type {
	EbicsCredentialView,
	EbicsProblem,
	EbicsState,
	SentOrder,
} from '../credential/ebicsCredential';
import {
	checkOwner,
	clientOptionsOf,
	EBICS_CHECK_HEADER,
	EBICS_CHECK_PASSED_URL,
	EBICS_KEY_FIELDS,
	EBICS_AUTH,
	initialised,
	keysFingerprint,
	makeSubscriberKeys,
	notePastedStatus,
	pastedKeysText,
	pastedSuperseded,
	readEbicsCredential,
	statusText,
	subscriberKeys,
	usableBankKeys,
} from '../credential/ebicsCredential';
import {
	EBICS_KEY_CHANGE_FIELD,
	readKeyChangeRequest,
	runKeyChange,
	type KeyChangeRequest,
} from './ebicsKeyChange';
import type { KeyServiceSender } from '../../keys';
import { KeyServiceUnreachable, storedKeys } from '../../keys';
import { describeConnectionFailure, errorResponseOf, outcomeUnknown } from '../../transport/errors';
import { pooledOptionsFrom, pooledRequest, poolingAllowed } from '../../transport/pool';
import type { ClientTlsOptions } from '../../transport/tls';
import { redactSecrets } from '../../transport/redact';

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
			message: error.action
				? `${clause(error.message)}. What to do: ${error.action}`
				: error.message,
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

/** The state of this credential's subscriber: the stored one, or a new one. */
function stateFor(view: EbicsCredentialView): EbicsState {
	checkOwner(view);
	const state = view.state;
	if (!state) return { v: 1, owner: view.owner, phase: 'new' };
	if (state.owner === view.owner) return structuredClone(state);
	// Nothing went to the bank yet: the keys made so far serve the corrected IDs.
	return { v: 1, owner: view.owner, generated: state.generated, phase: 'new' };
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
						message: `${clause(problem.message)}. The bank does not take ${order} for this subscriber in its present state: it has keys for it already (sent by another client, or earlier). If another client initialised this subscriber, choose "Import Keys" and paste its keys; otherwise ask the bank to reset the subscriber`,
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

/**
 * The credential objects preAuthentication has just worked on: n8n hands the same object, with
 * what preAuthentication returned assigned to it, to authenticate, whose test verdict then needs
 * no second request to the bank.
 */
const justChecked = new WeakSet<object>();

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
	const keyChange = readKeyChangeRequest(credentials[EBICS_KEY_CHANGE_FIELD]);
	if (keyChange)
		return await changeKeys(view, keyChange, ebicsKeySend(view.url, tls.value, send), now);
	const running = inflight.get(view.owner);
	if (running) return await running;
	const work = (async () => {
		const state = stateFor(view);
		if (view.keySource === 'generate' && !state.generated)
			state.generated = await makeSubscriberKeys(view);
		const current: EbicsCredentialView = { ...view, state };
		const keys = subscriberKeys(current) as EbicsSubscriberKeys;
		const client = new EbicsClient({
			...clientOptionsOf(view),
			keys: { version: 1, subscriber: keys },
			send: ebicsKeySend(view.url, tls.value, send),
		});
		if (initialised(current)) await fetchBankKeys(client, current, state, now);
		else await sendKeys(client, state, keysFingerprint(keys), now);
		if (state.problem)
			state.problem = {
				...state.problem,
				message: redactSecrets(state.problem.message, view.secrets),
			};
		notePastedStatus(current, state);
		// n8n runs preAuthentication only while the check field is empty, also for the credential
		// test: it stays empty until the subscriber is ready, so every test does the next step.
		const check = state.phase === 'ready' && !state.problem ? now.toISOString() : '';
		return storedKeys(EBICS_KEY_FIELDS, state, check, statusText(current, state));
	})();
	inflight.set(view.owner, work);
	try {
		const stored = await work;
		justChecked.add(credentials);
		return stored;
	} finally {
		inflight.delete(view.owner);
	}
}

/**
 * One step of a key change (ebicsKeyChange.ts) and the credential fields to store; what the bank
 * answered is kept in the state's problem, a field to fix throws (nothing stored).
 */
async function changeKeys(
	view: EbicsCredentialView,
	request: KeyChangeRequest,
	send: EbicsSend,
	now: Date,
): Promise<IDataObject> {
	const state = stateFor(view);
	const failure = await runKeyChange(view, state, request, send, now);
	if (failure !== undefined) {
		const problem = problemOf(failure, `Key change ${request.order}`, now);
		state.problem = { ...problem, message: redactSecrets(problem.message, view.secrets) };
	}
	notePastedStatus(view, state);
	// A failed change leaves the subscriber ready with the keys the bank knows.
	const check = state.phase === 'ready' ? now.toISOString() : '';
	return {
		...storedKeys(EBICS_KEY_FIELDS, state, check, statusText({ ...view, state }, state)),
		[EBICS_KEY_CHANGE_FIELD]: '',
	};
}

/** A send() over a pooled connection (the credential test of a ready subscriber). */
function pooledSend(url: string, tls: ClientTlsOptions | undefined): EbicsSend {
	return async (xml, step) => {
		const answer = await attemptAsync(
			async () =>
				await pooledRequest(
					pooledOptionsFrom({
						method: 'POST',
						url,
						body: xml,
						headers: { 'Content-Type': 'text/xml; charset=UTF-8', Accept: 'text/xml' },
						encoding: 'arraybuffer',
						timeout: 60_000,
						agentOptions: tls,
					}),
				),
		);
		if (answer.ok) return Buffer.from(answer.value.body as Buffer).toString('utf8');
		const { status, body } = errorResponseOf(answer.error);
		if (status) throw new EbicsHttpStatusError(step, status, String(body ?? ''));
		throw new KeyServiceUnreachable(
			describeConnectionFailure(answer.error),
			outcomeUnknown(answer.error) ? 'unknown' : false,
		);
	};
}

/**
 * The credential test's verdict. n8n runs preAuthentication before it while the subscriber is not
 * ready (the check field is empty then), so the state says what that step did: the verdict is
 * where the subscriber stands and what to do next. For a ready subscriber (preAuthentication does
 * not run) the test asks the bank for its keys once (HPB) and checks them against the pinned
 * hashes: it passes only when the bank still takes the subscriber's keys and its own match the
 * letter. When preAuthentication ran in the same test, or behind a proxy or SSRF rules (no
 * pooled connections), the stored state decides.
 */
async function judgeEbicsCredential(credentials: ICredentialDataDecryptedObject): Promise<void> {
	const view = readEbicsCredential(credentials);
	checkOwner(view);
	const state = view.state?.owner === view.owner ? view.state : undefined;
	if (state?.phase !== 'ready' || state.problem) throw new Error(statusText(view, state));
	const local = attempt(() => usableBankKeys(view));
	if (!local.ok) throw new Error((local.error as Error).message);
	// What preAuthentication just found in this test stands; otherwise ask the bank.
	if (justChecked.has(credentials) || !poolingAllowed()) return;
	const tls = attempt(() => tlsOptionsOf(credentials, credentials.useClientCertificate === true));
	if (!tls.ok) throw new CredentialFieldError((tls.error as Error).message);
	const client = new EbicsClient({
		...clientOptionsOf(view),
		keys: { version: 1, subscriber: subscriberKeys(view) as EbicsSubscriberKeys },
		send: pooledSend(view.url, tls.value),
	});
	const checked = await attemptAsync(async () => await client.hpb(view.pinned));
	if (checked.ok) return;
	const error = checked.error;
	if (error instanceof EbicsReturnCodeError && error.code === '091002')
		throw new Error(
			`The bank refuses the subscriber now (HPB answered 091002 EBICS_INVALID_USER_OR_USER_STATE${error.reportText ? `, the bank's text: "${clause(error.reportText)}"` : ''}): it has been suspended (SPR, or by the bank). Ask the bank to activate it again; the next run of an EBICS node records it`,
		);
	// Keys pasted after a key change replaced the pasted ones: say which keys were tried.
	throw new Error(
		redactSecrets(problemOf(error, 'HPB', new Date()).message, view.secrets) +
			(pastedSuperseded(view) ? '' : pastedKeysText(view, state)),
	);
}

function checkMarker(requestOptions: IHttpRequestOptions): string | undefined {
	for (const [name, value] of Object.entries(requestOptions.headers ?? {})) {
		if (name.toLowerCase() === EBICS_CHECK_HEADER) return String(value);
	}
	return undefined;
}

/**
 * What the credential adds to a request: its TLS settings. A request marked as its check is
 * answered here (the test with its verdict; a node's probe only made n8n run preAuthentication):
 * n8n's request after it goes to a data: address and never reaches the bank.
 */
export async function authenticateEbics(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const marker = checkMarker(requestOptions);
	if (!marker) return EBICS_AUTH.authenticate(credentials, requestOptions);
	if (marker === 'test') await judgeEbicsCredential(credentials);
	const headers = { ...(requestOptions.headers ?? {}) } as IDataObject;
	for (const name of Object.keys(headers))
		if (name.toLowerCase() === EBICS_CHECK_HEADER) delete headers[name];
	return { url: EBICS_CHECK_PASSED_URL, method: 'GET', json: false, headers };
}
