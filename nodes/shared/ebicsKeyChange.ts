/**
 * Key changes of a ready EBICS subscriber (PUB: signature key; HCA: authentication and encryption
 * keys; HCS: all three), run from the credential's preAuthentication like INI and HIA, since
 * only that path writes the credential. The EBICS node's Change Keys operation has n8n run it
 * twice, each run stored by n8n before the next starts:
 *
 * 1. prepare: new keys are made in n8n and kept in the state as the pending change
 *    (state.keyChange). Nothing is sent; the keys in use stay the ones the bank knows.
 * 2. send: the order goes out with the keys in use (authenticated with X002, signed with A006)
 *    carrying the pending keys. Accepted: the pending keys become the keys in use.
 *
 * The moment between the bank accepting and n8n storing the result: if n8n stops there (or the
 * answer is lost), the credential still holds the old keys in use and the new ones as pending,
 * while the bank knows only the new ones. Running Change Keys again with the same order finishes
 * it: the order is sent again; when the bank refuses the old keys (061001 authentication,
 * 091301 signature, 091002 state), the same order is sent once more with the pending keys in use,
 * which a bank that took the change accepts, and the pending keys become the keys in use. The
 * credential therefore never drops the keys the bank knows: they are either in use or pending.
 */
import {
	EbicsClient,
	EbicsReturnCodeError,
	keysAfterChange,
	sendKeyChange,
	type EbicsSend,
	type EbicsSubscriberKeys,
	type KeyChangeOrder,
} from './ebics';
import type {
	DoneKeyChange,
	EbicsCredentialView,
	EbicsState,
	PendingKeyChange,
} from './ebicsCredential';
import {
	clientOptionsOf,
	keysFingerprint,
	makeSubscriberKeys,
	subscriberKeys,
	usableBankKeys,
} from './ebicsCredential';
import { attemptAsync } from './attempt';
import { CredentialFieldError } from './credentialFields';
import { KeyServiceUnreachable } from './keys';

/** Hidden credential field the node sets for one preAuthentication run: the step asked for. */
export const EBICS_KEY_CHANGE_FIELD = 'ebicsKeyChange';

export type KeyChangeStep = 'prepare' | 'send';

export interface KeyChangeRequest {
	order: KeyChangeOrder;
	step: KeyChangeStep;
}

const ORDERS: KeyChangeOrder[] = ['PUB', 'HCA', 'HCS'];

/** The request a preAuthentication run carries, or undefined for an ordinary run. */
export function readKeyChangeRequest(value: unknown): KeyChangeRequest | undefined {
	if (typeof value !== 'string' || !value) return undefined;
	let parsed: Partial<KeyChangeRequest>;
	try {
		parsed = JSON.parse(value) as Partial<KeyChangeRequest>;
	} catch {
		return undefined;
	}
	if (!ORDERS.includes(parsed.order as KeyChangeOrder)) return undefined;
	if (parsed.step !== 'prepare' && parsed.step !== 'send') return undefined;
	return { order: parsed.order as KeyChangeOrder, step: parsed.step };
}

/** Whether the bank's answer says the keys in use are not (or no longer) its keys. */
function oldKeysRefused(error: unknown): boolean {
	return (
		error instanceof EbicsReturnCodeError && ['061001', '091301', '091002'].includes(error.code)
	);
}

/** The pending keys become the keys in use; INI and HIA stay recorded for them. */
function promote(state: EbicsState, pending: PendingKeyChange, done: DoneKeyChange): void {
	state.generated = pending.next;
	if (state.sent) state.sent = { ...state.sent, fingerprint: keysFingerprint(pending.next) };
	state.keyChange = undefined;
	state.keysChanged = done;
	state.problem = undefined;
}

/**
 * Runs one step of a key change on the state (changed in place). A field to fix throws
 * CredentialFieldError; a failure of the bank or the connection is returned, for the caller to
 * record.
 */
export async function runKeyChange(
	view: EbicsCredentialView,
	state: EbicsState,
	request: KeyChangeRequest,
	send: EbicsSend,
	now: Date,
): Promise<unknown> {
	if (view.keySource !== 'generate')
		throw new CredentialFieldError(
			'Subscriber Keys: Change Keys replaces keys made in n8n. Imported keys are changed in the client that made them; paste the new ones here once the bank has them',
		);
	if (state.phase !== 'ready' || !state.generated)
		throw new CredentialFieldError(
			'Change Keys needs a ready subscriber: test the credential until its status says Ready',
		);
	const pending = state.keyChange;
	if (request.step === 'prepare') {
		// A change that may have reached the bank is finished first, never replaced.
		if (pending && pending.order === request.order) return undefined;
		if (pending?.sentAt)
			throw new CredentialFieldError(
				`A key change ${pending.order} was sent on ${pending.sentAt.slice(0, 10)} without a confirmed answer: run Change Keys with ${pending.order} to finish it first`,
			);
		const fresh = await makeSubscriberKeys(view);
		state.keyChange = {
			order: request.order,
			next: keysAfterChange(request.order, state.generated, fresh),
			preparedAt: now.toISOString(),
		};
		state.problem = undefined;
		return undefined;
	}
	if (!pending || pending.order !== request.order)
		throw new CredentialFieldError(
			`No prepared key change ${request.order}${pending ? ` (the prepared one is ${pending.order})` : ''}: run Change Keys to prepare and send it`,
		);
	const bank = usableBankKeys(view);
	if (!bank)
		throw new CredentialFieldError("Change Keys needs the bank's keys: test the credential");
	const client = (keys: EbicsSubscriberKeys): EbicsClient =>
		new EbicsClient({
			...clientOptionsOf(view),
			keys: { version: 1, subscriber: keys, bank },
			send,
		});
	const current = subscriberKeys({ ...view, state }) as EbicsSubscriberKeys;
	pending.sentAt = now.toISOString();
	const sent = await attemptAsync(
		async () => await sendKeyChange(client(current), pending.order, pending.next, view.h004KeyForm),
	);
	if (sent.ok) {
		promote(state, pending, {
			order: pending.order,
			at: now.toISOString(),
			orderId: sent.value.orderId,
		});
		return undefined;
	}
	const error = sent.error;
	if (!oldKeysRefused(error)) {
		// Refused, or never sent: the bank has not taken the new keys.
		if (!(error instanceof KeyServiceUnreachable) || error.delivered === false)
			pending.sentAt = undefined;
		return error;
	}
	// The bank may have taken this change already (its answer or n8n's saving was lost).
	const again = await attemptAsync(
		async () =>
			await sendKeyChange(client(pending.next), pending.order, pending.next, view.h004KeyForm),
	);
	if (!again.ok) return error;
	promote(state, pending, {
		order: pending.order,
		at: now.toISOString(),
		orderId: again.value.orderId,
		recovered: true,
	});
	return undefined;
}
