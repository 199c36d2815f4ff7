/**
 * The EBICS credential of a node run, read once, and the client its operations use: requests go
 * through the project's transport (the credential's TLS settings, pooled connections for what may
 * be sent twice, timeouts). When the subscriber is not where an operation needs it (no keys sent
 * yet, the bank's keys not fetched), the credential's preAuthentication runs first: the node hands
 * n8n the credential with its expirable check field emptied, n8n runs preAuthentication and
 * stores what it returns, and the node reads the stored credential again.
 */
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';

import { attempt, attemptAsync } from '../../common/attempt';
import { CredentialFieldError } from '../../common/credentialFields';
import type { EbicsRequestKind, EbicsSend, EbicsSubscriberKeys } from '../index';
import { EbicsBankKeyError, EbicsClient, EbicsVeu } from '../index';
import type { EbicsCredentialView } from '../credential/ebicsCredential';
import {
	clientOptionsOf,
	EBICS_AUTH,
	EBICS_CHECK_FIELD,
	EBICS_CHECK_HEADER,
	EBICS_CHECK_URL,
	EBICS_CREDENTIAL,
	EBICS_STATE_FIELD,
	initialised,
	pastedStatusStale,
	readEbicsCredential,
	subscriberKeys,
	usableBankKeys,
} from '../credential/ebicsCredential';
import { EbicsHttpStatusError } from '../initialisation/ebicsInitialisation';
import { runPreAuthenticationNow } from '../../keys';
import { bankRequest } from '../../transport/request';
import { changesTheBank, credentialError, EbicsRequestFailed, notReadyFailure } from './failures';

/** What an operation needs of the subscriber: nothing (HEV), its keys sent (letters), or ready. */
export type Need = 'none' | 'keys' | 'bank';

/** A node run or a trigger's poll: both read the credential and talk to the bank alike. */
export type EbicsContext = IExecuteFunctions | IPollFunctions;

/** The credential and the client of one node run. */
export interface EbicsRun {
	view: EbicsCredentialView;
	send: EbicsSend;
	/** The subscriber's keys (need 'keys' and 'bank'). */
	keys?: EbicsSubscriberKeys;
	/** The client with the bank's keys (need 'bank'). */
	client?: EbicsClient;
	/** The distributed signature orders (HVU, HVZ, HVD, HVE, HVS) of the same client. */
	veu?: EbicsVeu;
}

/** An EBICS operation, run for one item with the credential read once per run. */
export type EbicsOperation = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: EbicsRun,
) => Promise<INodeExecutionData[]>;

/**
 * Reads and checks an item's fields for the credential's EBICS version as the operation will use
 * them, sending nothing (throws the failure naming the field). The router runs it for every item
 * before anything goes to the bank, the credential's initialisation included.
 */
export type EbicsInputCheck = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	view: EbicsCredentialView,
) => void;

/** Posts one EBICS request through the transport and gives the answer (bytes, or text). */
export function transportSend(
	ctx: EbicsContext,
	url: string,
): (xml: string | Buffer, step: string, kind?: EbicsRequestKind) => Promise<string | Buffer> {
	return async (xml, step, kind) => {
		// The library says what an upload's requests do; other requests are known by their step.
		const changes = kind?.changesTheBank ?? changesTheBank(step);
		const sent = await attemptAsync(
			async () =>
				await bankRequest<Buffer>(ctx, EBICS_AUTH, {
					method: 'POST',
					url,
					body: xml,
					headers: { 'Content-Type': 'text/xml; charset=UTF-8', Accept: 'text/xml' },
					json: false,
					responseType: 'buffer',
					idempotent: !changes,
					reuseConnection: kind?.reuseConnection,
					timeoutMs: 120_000,
				}),
		);
		if (!sent.ok) throw new EbicsRequestFailed(step, sent.error, changes);
		const response = sent.value;
		// The answer goes on as the bytes that came: a segment in it is never turned into text whole.
		if (response.statusCode === 200 && Buffer.isBuffer(response.body)) return response.body;
		const body = Buffer.isBuffer(response.body)
			? response.body.toString('utf8')
			: String(response.body ?? '');
		if (response.statusCode !== 200)
			throw new EbicsHttpStatusError(step, response.statusCode, body);
		return body;
	};
}

function read(credentials: ICredentialDataDecryptedObject): EbicsCredentialView {
	const view = attempt(() => readEbicsCredential(credentials));
	if (!view.ok) {
		if (view.error instanceof CredentialFieldError) throw credentialError(view.error.message);
		throw view.error;
	}
	return view.value;
}

/** The message of a failure of preAuthentication, however n8n wrapped it. */
function initialisationMessage(error: unknown): string {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		if (current instanceof CredentialFieldError) return current.message;
		current = (current as { cause?: unknown }).cause;
	}
	return (error as Error)?.message ?? String(error);
}

/** The request that makes n8n run preAuthentication: the credential answers it itself. */
export function preAuthenticationProbe(): IHttpRequestOptions {
	return {
		method: 'POST',
		url: EBICS_CHECK_URL,
		headers: { [EBICS_CHECK_HEADER]: 'probe' },
		json: false,
		timeout: 120_000,
	};
}

/**
 * Has n8n run the credential's preAuthentication now (the initialisation step that is due) and
 * store its result; returns the credential as stored afterwards.
 */
export async function refreshInitialisation(
	ctx: EbicsContext,
	credentials: ICredentialDataDecryptedObject,
	/** More fields for this run (the key change step). */
	extra: ICredentialDataDecryptedObject = {},
): Promise<ICredentialDataDecryptedObject> {
	const before = String(credentials[EBICS_STATE_FIELD] ?? '');
	const run = await runPreAuthenticationNow(
		ctx,
		EBICS_CREDENTIAL,
		credentials,
		{ ...extra, [EBICS_CHECK_FIELD]: '' },
		preAuthenticationProbe(),
	);
	// The state was stored: what came after it does not matter here.
	if (run.error !== undefined && String(run.credentials[EBICS_STATE_FIELD] ?? '') === before)
		throw credentialError(initialisationMessage(run.error));
	return run.credentials;
}

/** Whether the credential's preAuthentication has to run before an operation with this need. */
function due(view: EbicsCredentialView, need: Need): boolean {
	if (need === 'none') return false;
	// Keys pasted since a key change replaced the pasted ones: checked once, the status rewritten.
	if (!initialised(view) || pastedStatusStale(view)) return true;
	if (need === 'keys') return false;
	const state = view.state;
	return !state || state.owner !== view.owner || state.phase !== 'ready' || !state.bank;
}

/**
 * Reads the credential for a run and prepares what the operation needs, running the
 * initialisation first when it is due. A subscriber that is still not where the operation needs
 * it is an error saying where it stands and what to do next.
 */
export async function loadEbicsRun(
	ctx: EbicsContext,
	need: Need,
	operation: string,
	options: {
		/**
		 * Runs on the credential as read, before anything is sent (its initialisation included):
		 * throws to refuse the run; false when nothing is left to send, and the run then gets only
		 * the credential's view and transport.
		 */
		check?: (view: EbicsCredentialView) => boolean | void;
	} = {},
): Promise<EbicsRun> {
	let credentials = await ctx.getCredentials(EBICS_CREDENTIAL);
	let view = read(credentials);
	if (options.check?.(view) === false) return { view, send: transportSend(ctx, view.url) };
	if (due(view, need)) {
		credentials = await refreshInitialisation(ctx, credentials);
		view = read(credentials);
	}
	const send = transportSend(ctx, view.url);
	if (need === 'none') return { view, send };
	const keys = subscriberKeys(view);
	if (!keys || !initialised(view)) throw notReadyFailure(view, operation);
	if (need === 'keys') return { view, send, keys };
	if (due(view, need)) throw notReadyFailure(view, operation);
	const bank = attempt(() => usableBankKeys(view));
	if (!bank.ok) {
		if (bank.error instanceof EbicsBankKeyError) throw credentialError(bank.error.message);
		throw bank.error;
	}
	if (!bank.value) throw notReadyFailure(view, operation);
	const clientOptions = {
		...clientOptionsOf(view),
		keys: { version: 1 as const, subscriber: keys, bank: bank.value },
		send,
		sendBytes: send,
	};
	const client = new EbicsClient(clientOptions);
	return { view, send, keys, client, veu: new EbicsVeu(client, clientOptions) };
}
