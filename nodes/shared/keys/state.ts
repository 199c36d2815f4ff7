/**
 * Keys kept in a credential. A credential can write into itself only from its
 * `preAuthentication` hook: n8n runs it whenever the credential's hidden expirable "check" field is
 * empty, stores (encrypted) what it returns, and every worker reads the same record. So a protocol
 * keeps its key material as JSON in a hidden password field, the date it must act again (renewal,
 * or "now" while it waits for the bank) in the expirable field, and a status line the user reads.
 * A failed enrolment or renewal returns nothing: what the credential had stays. Once the bank
 * issued a certificate for a key made in n8n (the one-time code is then used), a check that fails
 * after it does not throw: the protocol returns its keys and the bank's answer as pending, with
 * the expirable field empty, so that the next run completes it without the code.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import type { BankContext } from '../transport/request';

/** The credential fields a protocol's key material lives in. */
export interface KeyFields {
	/** Hidden, encrypted: the key material as JSON. */
	state: string;
	/** Hidden, expirable: n8n runs preAuthentication while it is empty. */
	check: string;
	/** Shown: what the last enrolment, initialisation or renewal did, and what comes next. */
	status: string;
	/** The one-time code field, blanked once the code is used. */
	code?: string;
}

/**
 * Enrolment, initialisation or renewal failed; `keptCertificate` says whether the credential still
 * has a working certificate.
 */
export class EnrolmentError extends Error {
	constructor(
		message: string,
		readonly keptCertificate = false,
	) {
		super(message);
		this.name = 'EnrolmentError';
	}
}

/**
 * The credential fields that store key material: the state, the moment n8n should run
 * preAuthentication again (the check field), and the status shown in the credential; `clearCode`
 * blanks the one-time code field (its hash stays in the state, so pasting it again sends nothing).
 */
export function storedKeys(
	fields: KeyFields,
	state: object,
	checkAgainAt: string,
	status: string,
	clearCode = false,
): IDataObject {
	return {
		[fields.state]: JSON.stringify(state),
		[fields.check]: checkAgainAt,
		[fields.status]: status,
		...(clearCode && fields.code ? { [fields.code]: '' } : {}),
	};
}

/** Reads stored key material; a value that cannot be read, or fails `valid`, counts as none. */
export function readStoredKeys<T>(value: unknown, valid: (parsed: T) => boolean): T | undefined {
	if (typeof value !== 'string' || !value.trim().startsWith('{')) return undefined;
	try {
		const parsed = JSON.parse(value) as T;
		return parsed && valid(parsed) ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/** The day (YYYY-MM-DD) of an enrolment, or of the last renewal when there was one. */
export function actionDay(
	times: { enrolledAt: string; renewedAt?: string },
	action: 'enrolled' | 'renewed',
): string {
	const when = action === 'enrolled' ? times.enrolledAt : (times.renewedAt ?? times.enrolledAt);
	return when.slice(0, 10);
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * Whether a certificate valid until `notAfter` is due for renewal now: within `windowDays` of its
 * end (or `force`), and not yet expired (an expired certificate cannot sign its own renewal).
 */
export function renewalDue(
	notAfter: string,
	windowDays: number,
	now: Date,
	force = false,
): boolean {
	const end = new Date(notAfter).getTime();
	if (end <= now.getTime()) return false;
	return force || end - windowDays * DAY <= now.getTime();
}

/**
 * Has n8n run a credential's preAuthentication now, from a node: the credential is handed to
 * n8n's authenticated request helper with its expirable check field emptied (in this copy only,
 * never in storage), so n8n runs preAuthentication and stores what it returns; `probe` is a
 * request the credential's authenticate answers itself, so nothing else reaches the bank.
 * Returns the credential as stored afterwards, and what n8n threw when something failed.
 */
export async function runPreAuthenticationNow(
	ctx: BankContext,
	type: string,
	credentials: ICredentialDataDecryptedObject,
	change: ICredentialDataDecryptedObject,
	probe: IHttpRequestOptions,
): Promise<{ credentials: ICredentialDataDecryptedObject; error?: unknown }> {
	const details = ctx.getNode().credentials?.[type];
	let error: unknown;
	try {
		await ctx.helpers.httpRequestWithAuthentication.call(ctx, type, probe, {
			credentialsDecrypted: {
				id: details?.id ?? '',
				name: details?.name ?? type,
				type,
				data: { ...credentials, ...change },
			},
		});
	} catch (failure) {
		error = failure ?? new Error('preAuthentication failed');
	}
	return { credentials: await ctx.getCredentials(type), error };
}

/**
 * A check of what the bank issued failed after the bank answered the request that carried a
 * one-time code (or a renewal): the key material is kept pending in the credential, and `field`
 * names the credential field whose value failed the check, when correcting it can make it pass.
 */
export class IssuedCheckError extends Error {
	constructor(
		message: string,
		readonly field?: string,
	) {
		super(message);
		this.name = 'IssuedCheckError';
	}
}
