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
 *
 * Imported keys change the same way. The change starts from the keys in use (the pasted ones),
 * keeps those it does not replace, and records the pasted keys' fingerprint (pending.from); once
 * accepted, the new set is kept in the state (generated) and used instead of the pasted keys for
 * as long as the pasted fields hold those keys (state.pastedReplaced, subscriberKeys): n8n cannot
 * rewrite the visible fields, so they stay as they were. Pasting other keys makes the credential
 * use them again. A pending change prepared from other pasted keys is dropped when it was never
 * sent, and refused by name when it may be at the bank. Certificates a bank or an authority
 * issued are not replaced by the self-signed ones n8n makes (issuedCertificates): their new keys
 * are pasted with their issued certificates (New Keys for Change Keys), and the change sends
 * those instead of making them; the same stale rule holds for them (pending.replacement).
 */
import { createHash, X509Certificate } from 'node:crypto';

import {
	EbicsClient,
	EbicsReturnCodeError,
	KEY_CHANGE_KEYS,
	keysAfterChange,
	sendKeyChange,
	type EbicsSend,
	type EbicsSubscriberKeys,
	type KeyChangeOrder,
} from '../index';
import type {
	DoneKeyChange,
	EbicsCredentialView,
	EbicsState,
	PendingKeyChange,
} from '../credential/ebicsCredential';
import {
	clientOptionsOf,
	keyFingerprintOf,
	keysFingerprint,
	makeSubscriberKeys,
	pastedFingerprint,
	REPLACEMENT_PAIRS,
	subscriberKeys,
	usableBankKeys,
} from '../credential/ebicsCredential';
import { attempt, attemptAsync } from '../../common/attempt';
import { CredentialFieldError } from '../../common/credentialFields';
import { KeyServiceUnreachable, MIN_RSA_BITS } from '../../keys';

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
	// Imported keys: the new set is used instead of the pasted keys the change started from.
	if (pending.from) state.pastedReplaced = { fingerprint: pending.from, at: done.at };
	state.keyChange = undefined;
	state.keysChanged = done;
	state.problem = undefined;
}

const CERTIFICATE_FIELDS: Record<keyof EbicsSubscriberKeys, string> = {
	signature: 'Signature Certificate (A006)',
	authentication: 'Authentication Certificate (X002)',
	encryption: 'Encryption Certificate (E002)',
};

/**
 * The keys the order replaces whose certificate a bank or certification authority issued (not
 * self-signed), when the order carries certificates (EBICS 3.0, or 2.5 with certificates): the
 * change would put a self-signed certificate made in n8n in their place.
 */
export function issuedCertificates(
	order: KeyChangeOrder,
	current: EbicsSubscriberKeys,
	view: Pick<EbicsCredentialView, 'version' | 'h004KeyForm'>,
): Array<{ key: keyof EbicsSubscriberKeys; field: string; issuer: string }> {
	if (view.version === 'H004' && view.h004KeyForm === 'key') return [];
	const issued: Array<{ key: keyof EbicsSubscriberKeys; field: string; issuer: string }> = [];
	for (const key of KEY_CHANGE_KEYS[order]) {
		const certificate = new X509Certificate(current[key].certificatePem);
		const selfSigned = attempt(
			() => certificate.subject === certificate.issuer && certificate.verify(certificate.publicKey),
		);
		if (!selfSigned.ok || !selfSigned.value)
			issued.push({
				key,
				field: CERTIFICATE_FIELDS[key],
				issuer: certificate.issuer.replace(/\n/g, ', '),
			});
	}
	return issued;
}

/**
 * The new keys pasted for the order (New Keys for Change Keys), each checked against the keys in
 * use, and their fingerprint (undefined when none is pasted).
 */
function pastedReplacement(
	order: KeyChangeOrder,
	current: EbicsSubscriberKeys,
	view: EbicsCredentialView,
): { keys: Partial<EbicsSubscriberKeys>; fingerprint?: string } {
	const keys: Partial<EbicsSubscriberKeys> = {};
	const hash = createHash('sha256');
	for (const key of KEY_CHANGE_KEYS[order]) {
		const given = view.replacement?.[key];
		if (!given) continue;
		const fingerprint = keyFingerprintOf(given.certificatePem);
		const inUse = (Object.keys(current) as Array<keyof EbicsSubscriberKeys>).find(
			(k) => keyFingerprintOf(current[k].certificatePem) === fingerprint,
		);
		if (inUse)
			throw new CredentialFieldError(
				`${REPLACEMENT_PAIRS[key].certificateLabel}: it is the ${inUse} key in use, not a new key. Paste the new key and its certificate. Nothing was sent to the bank`,
			);
		keys[key] = given;
		hash.update(`${key}:${fingerprint};`);
	}
	return Object.keys(keys).length ? { keys, fingerprint: hash.digest('hex') } : { keys };
}

/** The modulus length of the longest key the order replaces (MIN_RSA_BITS at least). */
export function replacedBits(order: KeyChangeOrder, current: EbicsSubscriberKeys): number {
	const bits = KEY_CHANGE_KEYS[order].map(
		(key) =>
			new X509Certificate(current[key].certificatePem).publicKey.asymmetricKeyDetails
				?.modulusLength ?? 0,
	);
	return Math.max(MIN_RSA_BITS, ...bits);
}

/**
 * Runs one step of a key change on the state (changed in place). A field to fix throws
 * CredentialFieldError; a failure of the bank or the connection is returned, for the caller to
 * record. The keys in use are those made in n8n, the pasted ones, or the set an earlier change
 * made in place of the pasted ones (subscriberKeys).
 */
export async function runKeyChange(
	view: EbicsCredentialView,
	state: EbicsState,
	request: KeyChangeRequest,
	send: EbicsSend,
	now: Date,
): Promise<unknown> {
	const current = subscriberKeys({ ...view, state });
	if (state.phase !== 'ready' || !current)
		throw new CredentialFieldError(
			'Change Keys needs a ready subscriber: test the credential until its status says Ready',
		);
	const from = pastedFingerprint(view);
	const stale = state.keyChange;
	if (stale && stale.from !== from) {
		// Other keys were pasted since the change was prepared from the pasted ones.
		if (stale.sentAt)
			throw new CredentialFieldError(
				`Subscriber Keys: a key change ${stale.order} was sent on ${stale.sentAt.slice(0, 10)} from the keys pasted then, and the pasted keys differ now. Paste those keys back and run Change Keys with ${stale.order} to finish it (the bank may have its new keys already)`,
			);
		// Never sent: nothing reached the bank, a new change is prepared from the pasted keys.
		state.keyChange = undefined;
	}
	const replacement =
		request.step === 'prepare' ? pastedReplacement(request.order, current, view) : undefined;
	if (
		replacement &&
		state.keyChange?.order === request.order &&
		state.keyChange.replacement !== replacement.fingerprint
	) {
		// Other new keys were pasted since the change was prepared.
		const prepared = state.keyChange;
		if (prepared.sentAt)
			throw new CredentialFieldError(
				`New Keys for Change Keys: a key change ${prepared.order} was sent on ${prepared.sentAt.slice(0, 10)} ${prepared.replacement ? 'with other new keys than those pasted now. Paste those new keys back' : 'with new keys made in n8n. Empty the new keys pasted since (or switch New Keys for Change Keys off)'} and run Change Keys with ${prepared.order} to finish it (the bank may have the new keys already)`,
			);
		state.keyChange = undefined;
	}
	const pending = state.keyChange;
	if (request.step === 'prepare') {
		// A change that may have reached the bank is finished first, never replaced.
		if (pending && pending.order === request.order) return undefined;
		if (pending?.sentAt)
			throw new CredentialFieldError(
				`A key change ${pending.order} was sent on ${pending.sentAt.slice(0, 10)} without a confirmed answer: run Change Keys with ${pending.order} to finish it first`,
			);
		const given = replacement!.keys;
		const issued = issuedCertificates(request.order, current, view).filter((c) => !given[c.key]);
		if (issued.length)
			throw new CredentialFieldError(
				`${issued.map((c) => c.field).join(', ')}: issued by ${issued[0].issuer}, not self-signed. Change Keys would make the new ${issued.length > 1 ? 'keys' : 'key'} in n8n with a self-signed certificate, which would take the place of the issued one at the bank. Get the new ${issued.length > 1 ? 'keys' : 'key'} and ${issued.length > 1 ? 'their certificates' : 'its certificate'} from the issuer and paste them under New Keys for Change Keys (${issued.map((c) => REPLACEMENT_PAIRS[c.key].certificateLabel).join(', ')} and the private ${issued.length > 1 ? 'keys' : 'key'}). Nothing was sent to the bank`,
			);
		// Keys not pasted as new keys are made in n8n, as long as the longest key replaced when imported.
		const made = KEY_CHANGE_KEYS[request.order].every((key) => given[key])
			? current
			: await makeSubscriberKeys(
					from ? { ...view, keyBits: replacedBits(request.order, current) } : view,
				);
		const next = keysAfterChange(request.order, current, { ...made, ...given });
		if (new Set(Object.values(next).map((k) => keyFingerprintOf(k.certificatePem))).size !== 3)
			throw new CredentialFieldError(
				'New Keys for Change Keys: EBICS needs three different keys, one for each of signature, authentication and encryption; a new key pasted is one of the others. Nothing was sent to the bank',
			);
		state.keyChange = {
			order: request.order,
			next,
			preparedAt: now.toISOString(),
			...(from ? { from } : {}),
			...(replacement!.fingerprint ? { replacement: replacement!.fingerprint } : {}),
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
