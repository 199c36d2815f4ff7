/**
 * The EBICS credential read into what the EBICS library needs: the bank's URL, the subscriber's
 * IDs, the bank's key hashes pinned from its letter, the subscriber's keys (made inside n8n, or
 * pasted) and the state of the subscriber at the bank, kept encrypted in the credential.
 *
 * The state lives in the hidden fields EBICS_KEY_FIELDS names, written through the credential's
 * preAuthentication (keys/state.ts explains why; ebicsInitialisation.ts does the writing). n8n runs
 * preAuthentication while the expirable check field is empty, for the credential test too (saving
 * it in the editor tests it); the field stays empty until the subscriber is ready, and the node
 * hands the credential over with it emptied when it needs a step done. What the user reads is the
 * status field: where the subscriber stands and what to do next.
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { attempt } from '../../common/attempt';
import { CredentialFieldError, withCredentialAuth } from '../../common/credentialFields';
import { clause } from '../../common/errors';
import type {
	BankKeyDigestForm,
	EbicsBankKeys,
	EbicsClientOptions,
	EbicsSubscriber,
	EbicsSubscriberKeys,
	EbicsVersion,
	H004KeyForm,
	KeyChangeOrder,
	PinnedBankHashes,
} from '../index';
import {
	checkPinnedBankKeys,
	checkSubscriber,
	EbicsValidationError,
	generateSubscriberKeys,
	loadBankKeys,
	parseHash,
} from '../index';
import type { KeyFields } from '../../keys';
import { importPrivateKey, ImportedKeyError, MIN_RSA_BITS, readStoredKeys } from '../../keys';
import { webAddressProblem } from '../../transport/origin';
import type { BankCredential } from '../../transport/request';
import { normalizePem } from '../../transport/tls';

export const EBICS_CREDENTIAL = 'corporateBankingEbicsApi';
/** Hidden, encrypted: the state of the subscriber (keys, what was sent, the bank's keys), JSON. */
export const EBICS_STATE_FIELD = 'ebicsState';
/** Hidden, expirable: n8n runs preAuthentication while it is empty. */
export const EBICS_CHECK_FIELD = 'ebicsCheck';
/** Shown: where the subscriber stands and what to do next. */
export const EBICS_STATUS_FIELD = 'ebicsStatus';
export const EBICS_KEY_FIELDS: KeyFields = {
	state: EBICS_STATE_FIELD,
	check: EBICS_CHECK_FIELD,
	status: EBICS_STATUS_FIELD,
};
/** Header naming a request the credential answers itself ('test': the credential test; 'probe'). */
export const EBICS_CHECK_HEADER = 'x-ebics-credential-check';
/** Address the check requests name until the credential answers them. */
export const EBICS_CHECK_URL = 'https://ebics-bank-address-from-credential.invalid/';
/**
 * What n8n sends once the credential has judged the check: a data: address, answered by n8n's
 * HTTP client itself (HTTP 200, no network), so that nothing reaches the bank twice.
 */
export const EBICS_CHECK_PASSED_URL = 'data:text/plain,the%20EBICS%20subscriber%20is%20ready';

/** The client product EBICS requests name (Product element). */
export const EBICS_PRODUCT = { name: 'n8n-nodes-corporate-banking', language: 'en' };

/**
 * Where the subscriber stands at the bank:
 * - new: nothing sent yet (or INI and HIA failed);
 * - lettersSent: INI and HIA arrived at the bank: print, sign and send the letters;
 * - waiting: the bank has not activated the subscriber yet (HPB answered 091002), or its keys are
 *   not confirmed by the pinned hashes;
 * - ready: the bank's keys are fetched (HPB) and match the pinned hashes;
 * - suspended: the bank refuses the subscriber that was ready (SPR, or the bank suspended it).
 */
export type EbicsPhase = 'new' | 'lettersSent' | 'waiting' | 'ready' | 'suspended';

/** An order sent to the bank during initialisation. */
export interface SentOrder {
	at: string;
	orderId?: string;
	/** accepted: the bank answered OK; unknown: the connection broke after sending. */
	outcome: 'accepted' | 'unknown';
}

/** The last failure of the initialisation, kept for the node and the credential test. */
export interface EbicsProblem {
	at: string;
	/** The request that failed (INI, HIA, HPB), or what was checked. */
	step: string;
	message: string;
	/** The EBICS return code, its level and the bank's text, when the bank answered one. */
	code?: string;
	level?: 'technical' | 'business';
	reportText?: string;
	/** The bank's key hashes, when its keys did not match the pinned ones. */
	bankHashes?: { authentication: string; encryption: string };
}

/** A key change prepared and not yet known to be accepted (EbicsState.keyChange). */
export interface PendingKeyChange {
	order: KeyChangeOrder;
	/** The keys in use after the change (the new ones for what the order replaces). */
	next: EbicsSubscriberKeys;
	preparedAt: string;
	/** Sent, and the answer was lost or n8n stopped before storing it. */
	sentAt?: string;
	/**
	 * Import key source: the fingerprint of the pasted keys the change started from (keysFingerprint).
	 * Pasted keys that differ from them make the change stale (ebicsKeyChange.ts).
	 */
	from?: string;
	/**
	 * The fingerprint of the new keys pasted for the change (New Keys for Change Keys) that it
	 * sends; other new keys pasted since make the change stale (ebicsKeyChange.ts).
	 */
	replacement?: string;
}

/** The last key change the bank accepted (EbicsState.keysChanged). */
export interface DoneKeyChange {
	order: KeyChangeOrder;
	at: string;
	orderId?: string;
	/** Accepted on a second sending with the pending keys (the first answer was lost). */
	recovered?: boolean;
}

/** What the credential keeps (JSON in EBICS_STATE_FIELD, encrypted by n8n). */
export interface EbicsState {
	v: 1;
	/** Whose keys and progress these are: "HOSTID/PARTNERID/USERID". */
	owner: string;
	/**
	 * Keys made inside n8n: the Generate key source's, or (Import) the set a key change made in
	 * place of the pasted keys (pastedReplaced).
	 */
	generated?: EbicsSubscriberKeys;
	/** INI and HIA of the keys with this fingerprint. */
	sent?: { fingerprint: string; ini?: SentOrder; hia?: SentOrder };
	/** The bank's keys from HPB, as they matched the pinned hashes. */
	bank?: {
		keys: EbicsBankKeys;
		hashes: { authentication: string; encryption: string };
		at: string;
	};
	phase: EbicsPhase;
	/** The last time the bank's answer set the phase (HPB). */
	checkedAt?: string;
	problem?: EbicsProblem;
	/** A key change prepared, not yet known to be accepted (ebicsKeyChange.ts). */
	keyChange?: PendingKeyChange;
	/** The last key change the bank accepted. */
	keysChanged?: DoneKeyChange;
	/**
	 * Import key source: the pasted keys that key changes replaced (their fingerprint) and the day of
	 * the last change. While the pasted keys are these, the keys in use are `generated` (the new set);
	 * pasted keys that differ from them are used as pasted.
	 */
	pastedReplaced?: {
		fingerprint: string;
		at: string;
		/** The pasted keys the status was last written for (the fingerprint when unset). */
		statusFor?: string;
	};
}

export type KeySource = 'generate' | 'import';

/** The credential as read and checked. */
export interface EbicsCredentialView {
	url: string;
	subscriber: EbicsSubscriber;
	owner: string;
	pinned: PinnedBankHashes;
	keySource: KeySource;
	/** Import: the subscriber is initialised at the bank already (no INI and HIA from here). */
	alreadyInitialised: boolean;
	keyBits: number;
	subscriberName?: string;
	bankName?: string;
	/** The pasted keys (Import), read and unencrypted. */
	imported?: EbicsSubscriberKeys;
	/** The new keys pasted for Change Keys (Import, New Keys for Change Keys on), read and unencrypted. */
	replacement?: Partial<EbicsSubscriberKeys>;
	digestForm: BankKeyDigestForm;
	/** The protocol version the bank is spoken to in (EBICS Version field). */
	version: EbicsVersion;
	/** EBICS 2.5: how INI and HIA carry the keys. */
	h004KeyForm: H004KeyForm;
	state?: EbicsState;
	/** Values never to show (the key passphrase). */
	secrets: string[];
}

function textOf(value: unknown): string {
	return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

const ID_FIELDS: Record<string, string> = {
	hostId: 'Host ID',
	partnerId: 'Partner ID',
	userId: 'User ID',
	systemId: 'System ID',
};

/** Reads the state JSON; a value that cannot be read counts as none. */
export function readEbicsState(value: unknown): EbicsState | undefined {
	return readStoredKeys<EbicsState>(
		value,
		(parsed) => parsed.v === 1 && typeof parsed.owner === 'string' && !!parsed.phase,
	);
}

/** A pasted key pair's fields and how messages name them. */
interface PairFields {
	key: string;
	keyLabel: string;
	certificate: string;
	certificateLabel: string;
}

const PASTED_PAIRS: Record<keyof EbicsSubscriberKeys, PairFields> = {
	signature: {
		key: 'signaturePrivateKey',
		keyLabel: 'Signature Private Key (A006)',
		certificate: 'signatureCertificate',
		certificateLabel: 'Signature Certificate (A006)',
	},
	authentication: {
		key: 'authenticationPrivateKey',
		keyLabel: 'Authentication Private Key (X002)',
		certificate: 'authenticationCertificate',
		certificateLabel: 'Authentication Certificate (X002)',
	},
	encryption: {
		key: 'encryptionPrivateKey',
		keyLabel: 'Encryption Private Key (E002)',
		certificate: 'encryptionCertificate',
		certificateLabel: 'Encryption Certificate (E002)',
	},
};

/** The fields of the new keys Change Keys sends instead of making them (New Keys for Change Keys). */
export const REPLACEMENT_PAIRS: Record<keyof EbicsSubscriberKeys, PairFields> = {
	signature: {
		key: 'newSignaturePrivateKey',
		keyLabel: 'New Signature Private Key (A006)',
		certificate: 'newSignatureCertificate',
		certificateLabel: 'New Signature Certificate (A006)',
	},
	authentication: {
		key: 'newAuthenticationPrivateKey',
		keyLabel: 'New Authentication Private Key (X002)',
		certificate: 'newAuthenticationCertificate',
		certificateLabel: 'New Authentication Certificate (X002)',
	},
	encryption: {
		key: 'newEncryptionPrivateKey',
		keyLabel: 'New Encryption Private Key (E002)',
		certificate: 'newEncryptionCertificate',
		certificateLabel: 'New Encryption Certificate (E002)',
	},
};

/** A pasted key pair read and checked: the key, its certificate, RSA of MIN_RSA_BITS at least. */
function readKeyPair(
	credentials: ICredentialDataDecryptedObject,
	passphrase: string,
	fields: PairFields,
	missing: string,
): { privateKeyPem: string; certificatePem: string } {
	const read = attempt(() => importPrivateKey(credentials[fields.key], passphrase));
	if (!read.ok) {
		const reason =
			read.error instanceof ImportedKeyError ? read.error.message : 'it cannot be read';
		throw new CredentialFieldError(
			`${fields.keyLabel}: ${read.error instanceof ImportedKeyError && read.error.reason === 'missing' ? missing : reason}`,
		);
	}
	const certificatePem = normalizePem(credentials[fields.certificate]);
	if (!/-----BEGIN CERTIFICATE-----/.test(certificatePem))
		throw new CredentialFieldError(
			`${fields.certificateLabel}: ${certificatePem ? 'it is not a PEM certificate (-----BEGIN CERTIFICATE-----)' : missing}`,
		);
	const certificate = attempt(() => new X509Certificate(certificatePem));
	if (!certificate.ok)
		throw new CredentialFieldError(
			`${fields.certificateLabel}: the PEM certificate cannot be read (it may be cut off)`,
		);
	const own = attempt(() => certificate.value.checkPrivateKey(createPrivateKey(read.value)));
	if (!own.ok || !own.value)
		throw new CredentialFieldError(
			`${fields.certificateLabel}: it does not belong to the ${fields.keyLabel} (the certificate holds another public key)`,
		);
	const bits = certificate.value.publicKey.asymmetricKeyDetails?.modulusLength ?? 0;
	if (certificate.value.publicKey.asymmetricKeyType !== 'rsa' || bits < MIN_RSA_BITS)
		throw new CredentialFieldError(
			`${fields.keyLabel}: EBICS 3.0 needs RSA keys of at least ${MIN_RSA_BITS} bits (this one is ${certificate.value.publicKey.asymmetricKeyType === 'rsa' ? `${bits} bits` : `not RSA`})`,
		);
	return { privateKeyPem: read.value, certificatePem };
}

/** The pasted key pairs of the Import key source, each read and checked. */
function importedKeys(credentials: ICredentialDataDecryptedObject): EbicsSubscriberKeys {
	const passphrase = typeof credentials.keyPassphrase === 'string' ? credentials.keyPassphrase : '';
	const pair = (key: keyof EbicsSubscriberKeys) =>
		readKeyPair(credentials, passphrase, PASTED_PAIRS[key], 'required when the keys are imported');
	const keys = {
		signature: pair('signature'),
		authentication: pair('authentication'),
		encryption: pair('encryption'),
	};
	if (new Set(Object.values(keys).map((k) => keyFingerprintOf(k.certificatePem))).size !== 3)
		throw new CredentialFieldError(
			'Signature, Authentication and Encryption Certificate: EBICS needs three different keys, one for each',
		);
	return keys;
}

/**
 * The new keys pasted for Change Keys (New Keys for Change Keys on): each pair whose two fields
 * are empty is left out (n8n makes that key); a pair with one field only is refused by name.
 */
function replacementKeys(
	credentials: ICredentialDataDecryptedObject,
): Partial<EbicsSubscriberKeys> | undefined {
	if (credentials.replacementKeys !== true) return undefined;
	const passphrase =
		typeof credentials.newKeyPassphrase === 'string' ? credentials.newKeyPassphrase : '';
	const keys: Partial<EbicsSubscriberKeys> = {};
	for (const key of ['signature', 'authentication', 'encryption'] as const) {
		const fields = REPLACEMENT_PAIRS[key];
		const given = [fields.key, fields.certificate].filter((f) => textOf(credentials[f]) !== '');
		if (!given.length) continue;
		keys[key] = readKeyPair(
			credentials,
			passphrase,
			fields,
			`required with the ${given[0] === fields.key ? fields.keyLabel : fields.certificateLabel} (paste both, or neither to have n8n make the key)`,
		);
	}
	return keys;
}

export function keyFingerprintOf(certificatePem: string): string {
	return new X509Certificate(certificatePem).publicKey
		.export({ type: 'spki', format: 'der' })
		.toString('base64');
}

/** The fingerprint of a subscriber's three keys: INI and HIA sent are tied to it. */
export function keysFingerprint(keys: EbicsSubscriberKeys): string {
	const hash = createHash('sha256');
	for (const pair of [keys.signature, keys.authentication, keys.encryption])
		hash.update(new X509Certificate(pair.certificatePem).raw);
	return hash.digest('hex');
}

/** A pinned hash field: empty, or 32 bytes as the bank's letter prints them. */
function pinnedHash(value: unknown, field: string): string | undefined {
	const raw = textOf(value);
	if (!raw) return undefined;
	const read = attempt(() => parseHash(raw, field));
	if (!read.ok) {
		const message = read.error instanceof EbicsValidationError ? read.error.message : '';
		throw new CredentialFieldError(
			message.startsWith(field) ? message : `${field}: ${message || 'it is not a hash'}`,
		);
	}
	return raw;
}

/**
 * Reads and checks the credential fields; throws CredentialFieldError naming the field and the
 * rule. The pasted keys are read only when `withKeys` (the key check costs a little time).
 */
export function readEbicsCredential(
	credentials: ICredentialDataDecryptedObject,
	withKeys = true,
): EbicsCredentialView {
	const url = textOf(credentials.url);
	if (!url) throw new CredentialFieldError("EBICS URL: required (the bank's EBICS address)");
	const urlProblem = webAddressProblem('EBICS URL', url);
	if (urlProblem) throw new CredentialFieldError(urlProblem);
	const checked = attempt(() =>
		checkSubscriber({
			hostId: textOf(credentials.hostId),
			partnerId: textOf(credentials.partnerId),
			userId: textOf(credentials.userId),
			systemId: textOf(credentials.systemId) || undefined,
			product: EBICS_PRODUCT,
		}),
	);
	if (!checked.ok) {
		const error = checked.error as EbicsValidationError;
		const field = ID_FIELDS[error.field] ?? error.field;
		const rest = error.message.startsWith(field) ? error.message.slice(field.length) : undefined;
		throw new CredentialFieldError(
			rest === undefined
				? `${field}: ${error.message}`
				: rest.startsWith(' "')
					? `${field}:${rest}`
					: error.message,
		);
	}
	const subscriber = checked.value;
	const pinned: PinnedBankHashes = {
		authentication: pinnedHash(
			credentials.bankAuthenticationHash,
			'Bank Authentication Key Hash (X002)',
		),
		encryption: pinnedHash(credentials.bankEncryptionHash, 'Bank Encryption Key Hash (E002)'),
	};
	const keySource: KeySource = credentials.keySource === 'import' ? 'import' : 'generate';
	const keyBits = Number(credentials.keyBits ?? 2048);
	if (![2048, 3072, 4096].includes(keyBits))
		throw new CredentialFieldError('Key Length: 2048, 3072 or 4096 bits');
	const passphrase = textOf(credentials.keyPassphrase);
	const newPassphrase = textOf(credentials.newKeyPassphrase);
	return {
		url,
		subscriber,
		owner: `${subscriber.hostId}/${subscriber.partnerId}/${subscriber.userId}`,
		pinned,
		keySource,
		alreadyInitialised: keySource === 'import' && credentials.alreadyInitialised !== false,
		keyBits,
		subscriberName: textOf(credentials.subscriberName) || undefined,
		bankName: textOf(credentials.bankName) || undefined,
		imported: keySource === 'import' && withKeys ? importedKeys(credentials) : undefined,
		replacement: keySource === 'import' && withKeys ? replacementKeys(credentials) : undefined,
		digestForm: credentials.bankKeyDigestForm === 'publicKey' ? 'publicKey' : 'certificate',
		version: ebicsVersionOf(credentials.ebicsVersion),
		h004KeyForm: credentials.h004KeyForm === 'key' ? 'key' : 'certificate',
		state: readEbicsState(credentials[EBICS_STATE_FIELD]),
		secrets: [passphrase, newPassphrase].filter((p) => p.length >= 4),
	};
}

/** The EBICS Version field: H005 (default) or H004; anything else is refused by name. */
function ebicsVersionOf(value: unknown): EbicsVersion {
	if (value === undefined || value === '' || value === 'H005') return 'H005';
	if (value === 'H004') return 'H004';
	throw new CredentialFieldError(
		`EBICS Version: "${textOf(value) || String(value)}" is not one of H005 (EBICS 3.0) or H004 (EBICS 2.5)`,
	);
}

/** What an EbicsClient of this credential is made with besides keys and send. */
export function clientOptionsOf(
	view: EbicsCredentialView,
): Pick<EbicsClientOptions, 'subscriber' | 'bankKeyDigestForm' | 'version' | 'h004KeyForm'> {
	return {
		subscriber: view.subscriber,
		bankKeyDigestForm: view.digestForm,
		version: view.version,
		h004KeyForm: view.h004KeyForm,
	};
}

/** New keys for the credential's subscriber (named as the letters name it), made in n8n. */
export async function makeSubscriberKeys(view: EbicsCredentialView): Promise<EbicsSubscriberKeys> {
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

/** The fingerprint of the pasted keys (Import key source, keys read), else undefined. */
export function pastedFingerprint(view: EbicsCredentialView): string | undefined {
	return view.keySource === 'import' && view.imported ? keysFingerprint(view.imported) : undefined;
}

/**
 * Whether the pasted keys are the ones a key change made from n8n replaced: the credential then
 * uses the new set kept in its state instead of them.
 */
export function pastedSuperseded(view: EbicsCredentialView): boolean {
	const state = view.state;
	const replaced = state?.owner === view.owner ? state.pastedReplaced : undefined;
	return !!replaced && !!state?.generated && pastedFingerprint(view) === replaced.fingerprint;
}

/**
 * Whether the status was written for other pasted keys than the credential holds now (pasted
 * after a key change replaced the pasted ones, or pasted back): the node has the credential run
 * its check once, which writes the status for the keys pasted now (notePastedStatus).
 */
export function pastedStatusStale(view: EbicsCredentialView): boolean {
	const replaced = view.state?.owner === view.owner ? view.state.pastedReplaced : undefined;
	if (!replaced || view.keySource !== 'import' || !view.imported) return false;
	return (replaced.statusFor ?? replaced.fingerprint) !== pastedFingerprint(view);
}

/** Records in the state (changed in place) that its status is written for the keys pasted now. */
export function notePastedStatus(view: EbicsCredentialView, state: EbicsState): void {
	const from = pastedFingerprint(view);
	if (state.pastedReplaced && from)
		state.pastedReplaced = { ...state.pastedReplaced, statusFor: from };
}

/**
 * The subscriber's keys in use: those made in n8n; for imported keys the pasted ones, or the set a
 * key change made in their place while the pasted ones are still those it replaced (none yet:
 * undefined).
 */
export function subscriberKeys(view: EbicsCredentialView): EbicsSubscriberKeys | undefined {
	if (view.keySource !== 'import') return view.state?.generated;
	return pastedSuperseded(view) ? view.state?.generated : view.imported;
}

/** Whether INI and HIA of the keys in use reached the bank (or the keys were initialised elsewhere). */
export function initialised(view: EbicsCredentialView): boolean {
	if (view.alreadyInitialised) return true;
	const keys = subscriberKeys(view);
	const sent = view.state?.owner === view.owner ? view.state.sent : undefined;
	return (
		!!keys &&
		!!sent &&
		sent.fingerprint === keysFingerprint(keys) &&
		sent.ini?.outcome === 'accepted' &&
		sent.hia?.outcome === 'accepted'
	);
}

/**
 * The bank's keys kept in the credential, checked against the hashes pinned now (the user may
 * have changed them). Undefined when there are none for this subscriber; EbicsBankKeyError when
 * they do not match.
 */
export function usableBankKeys(view: EbicsCredentialView): EbicsBankKeys | undefined {
	const state = view.state;
	if (!state?.bank || state.owner !== view.owner) return undefined;
	checkPinnedBankKeys(
		loadBankKeys(state.bank.keys),
		view.pinned,
		view.version === 'H004' ? 'publicKey' : 'certificate',
	);
	return state.bank.keys;
}

/** Whether a state records anything the bank has (keys sent, its keys fetched). */
export function sentAnything(state: EbicsState): boolean {
	return !!(state.sent?.ini || state.sent?.hia || state.bank);
}

/**
 * The state when the credential's IDs name another subscriber than the one whose keys the bank
 * got: CredentialFieldError, as those keys are the other subscriber's. Undefined when there is no
 * such conflict.
 */
export function checkOwner(view: EbicsCredentialView): void {
	const state = view.state;
	if (!state || state.owner === view.owner || !sentAnything(state)) return;
	const sentOn = state.sent?.ini?.at ?? state.sent?.hia?.at ?? state.bank?.at ?? '';
	throw new CredentialFieldError(
		`Host ID, Partner ID and User ID: this credential's keys belong to the subscriber ${state.owner}, which the bank already knows (since ${sentOn.slice(0, 10)}). Put those IDs back, or create a new EBICS credential for ${view.owner}: a new subscriber needs its own keys and letters`,
	);
}

function day(iso: string | undefined): string {
	return iso ? iso.slice(0, 10) : '';
}

/** The status of a subscriber nothing was done for (keys made in n8n): also the field's default. */
export const EBICS_NEW_STATUS =
	'New: test (save) the credential to make the keys and send them to the bank (INI and HIA)';

const LETTERS_STEP =
	"print the initialisation letters (the EBICS node's Initialisation Letters operation), sign them and send them to the bank";

/** What a key change did to the pasted keys (Import key source), for the status; '' when nothing. */
export function pastedKeysText(view: EbicsCredentialView, state: EbicsState | undefined): string {
	const replaced = state?.owner === view.owner ? state.pastedReplaced : undefined;
	if (view.keySource !== 'import' || !replaced || !view.imported) return '';
	return pastedSuperseded({ ...view, state })
		? `. The pasted keys are superseded by the key change made on ${day(replaced.at)}: the credential uses the new keys it keeps (encrypted, hidden) and the pasted fields stay as they were. Pasting keys other than those makes the credential use the pasted ones again`
		: `. The pasted keys differ from those the key change of ${day(replaced.at)} replaced: the credential uses the pasted keys`;
}

/** Where the subscriber stands and what to do next, in words a treasurer reads. */
export function statusText(view: EbicsCredentialView, state: EbicsState | undefined): string {
	const problem = state?.problem;
	const sent = state?.sent;
	const sentOn = sent?.hia?.at ?? sent?.ini?.at;
	switch (state?.phase ?? 'new') {
		case 'ready': {
			const change = state?.keyChange;
			if (change)
				return `Ready, with a key change ${change.order} ${change.sentAt ? `sent on ${day(change.sentAt)} and not confirmed` : `prepared on ${day(change.preparedAt)} and not sent`}${problem ? ` (${clause(problem.message)})` : ''}. Run the EBICS node's Change Keys with ${change.order} again to finish it: the keys the bank knows are kept until it confirms`;
			const changed = state?.keysChanged;
			const base = `Ready: the bank's keys were fetched on ${day(state?.bank?.at)} and match the hashes of its letter${changed ? `; new keys in use since ${day(changed.at)} (${changed.order})` : ''}`;
			const pasted = pastedKeysText(view, state);
			return problem
				? `${base}, but the last check failed (${clause(problem.message)}). ${problem.bankHashes ? "Compare the hashes with the bank's letter" : 'Test the credential again'}${pasted}`
				: `${base}. Nothing to do${pasted}`;
		}
		case 'suspended':
			return `Suspended: the bank refuses this subscriber since ${day(state?.checkedAt)} (EBICS 091002 EBICS_INVALID_USER_OR_USER_STATE${problem?.reportText ? `, the bank's text: "${clause(problem.reportText)}"` : ''}: suspended with SPR, or by the bank). Ask the bank to activate it again, then test the credential`;
		case 'waiting':
			if (problem?.bankHashes)
				return `Waiting for you: the bank has activated the subscriber, but its keys are not confirmed. ${problem.message}`;
			return `Waiting for the bank: INI and HIA were sent${sentOn ? ` on ${day(sentOn)}` : ''}, and the bank has not activated the subscriber yet (checked ${day(state?.checkedAt)}). If not done yet, ${LETTERS_STEP}. Once the bank confirms the activation, test this credential again: it fetches the bank's keys (HPB)`;
		case 'lettersSent':
			return `Letters sent: the keys went to the bank with INI and HIA${sentOn ? ` on ${day(sentOn)}` : ''}. Next: ${LETTERS_STEP}. Once the bank confirms the activation, test this credential again: it fetches the bank's keys (HPB)`;
		default:
			if (problem) return `New: not initialised yet. ${problem.message}`;
			return view.keySource === 'import' && view.alreadyInitialised
				? "New: test the credential to fetch the bank's keys (HPB)"
				: EBICS_NEW_STATUS;
	}
}

/** The EBICS credential for the transport: its TLS settings, only to its own URL. */
export const EBICS_AUTH: BankCredential = {
	type: EBICS_CREDENTIAL,
	authenticate(credentials, requestOptions) {
		return withCredentialAuth(credentials, requestOptions, {
			bearer: false,
			allowedUrls: [textOf(credentials.url)],
			what: 'EBICS credential',
		});
	},
};
