/**
 * The credential of a file service run: read and checked once, the signing certificate enrolled
 * or renewed first when that is due. A field to fix is an InputError naming it.
 */
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';

import type { BankProfile, FileServiceSettings } from '../index';
import type { CertificateFacts } from '../credential/fileServiceCredential';
import { CredentialFieldError } from '../../common/credentialFields';
import {
	CHECK_HEADER,
	CHECK_PLACEHOLDER_URL,
	ENROLMENT_CHECK_FIELD,
	ENROLMENT_FIELD,
	expiredMessage,
	pendingMessage,
	expiringMessage,
	EXPIRY_WARNING_DAYS,
	FILE_SERVICE_CREDENTIAL,
	readEnrolmentState,
	readFileServiceCredential,
	readPendingEnrolment,
	RENEW_NOW_FIELD,
	serviceSettings,
} from '../credential/fileServiceCredential';
import { enrolmentDue } from '../enrolment/fileServiceEnrolment';
import { EnrolmentError, runPreAuthenticationNow } from '../../keys';
import { redactSecrets } from '../../transport/redact';
import type { BankContext } from '../../transport/request';
import { credentialError } from './failures';

/** Everything read from the credential, checked once per run. */
export interface ServiceContext {
	settings: FileServiceSettings;
	url: string;
	largeFileUrl?: string;
	/** Values that must never appear in output or errors. */
	secrets: string[];
	/** The SOAPAction header the bank expects. */
	soapAction?: string;
	profile?: BankProfile;
	/** The signing certificate in use, when there is one. */
	certificate?: CertificateFacts;
	/** Certificate warnings for the node's output hints (already logged). */
	warnings?: string[];
}

/** An operation of the certificate service, run for one item: it reads the credential itself. */
export type CredentialOperation = (
	ctx: IExecuteFunctions,
	itemIndex: number,
) => Promise<INodeExecutionData[]>;

/** A file service operation, run for one item with the credential read once per run. */
export type FileServiceOperation = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: ServiceContext,
) => Promise<INodeExecutionData[]>;

/**
 * Asks n8n to run the credential's enrolment now (first enrolment, renewal in its window, or a
 * renewal on demand): the expirable field is emptied in the copy handed over, so n8n runs the
 * credential's preAuthentication, stores what it returns in the credential and then sends the
 * credential's signed check. Returns the credential as stored afterwards and, when the enrolment
 * failed or is kept pending (the bank issued a certificate whose checks failed), its error.
 */
export async function refreshEnrolment(
	ctx: BankContext,
	credentials: ICredentialDataDecryptedObject,
	force: boolean,
): Promise<{ credentials: ICredentialDataDecryptedObject; error?: Error }> {
	const before = String(credentials[ENROLMENT_FIELD] ?? '');
	const run = await runPreAuthenticationNow(
		ctx,
		FILE_SERVICE_CREDENTIAL,
		credentials,
		{ [ENROLMENT_CHECK_FIELD]: '', ...(force ? { [RENEW_NOW_FIELD]: true } : {}) },
		{
			method: 'POST',
			url: CHECK_PLACEHOLDER_URL,
			headers: { [CHECK_HEADER]: 'probe' },
			json: false,
			timeout: 60000,
		},
	);
	const after = run.credentials;
	const failure = run.error as Error | undefined;
	// An enrolment or renewal kept pending (its checks failed after the bank issued the
	// certificate): what stopped this run, else what is still to correct.
	const pending = readPendingEnrolment(after[ENROLMENT_FIELD]);
	if (pending) {
		const message = failure
			? enrolmentMessage(failure)
			: pendingMessage(readFileServiceCredential(after), pending);
		return { credentials: after, error: new Error(message) };
	}
	// The enrolment was stored: whatever the check after it said, the credential has its certificate.
	if (String(after[ENROLMENT_FIELD] ?? '') !== before && readEnrolmentState(after[ENROLMENT_FIELD]))
		return { credentials: after };
	return { credentials: after, error: failure ? new Error(enrolmentMessage(failure)) : undefined };
}

/** The message of an enrolment failure, however n8n wrapped it. */
function enrolmentMessage(error: unknown): string {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		if (current instanceof EnrolmentError || current instanceof CredentialFieldError)
			return current.message;
		current = (current as { cause?: unknown }).cause;
	}
	const message = (error as Error)?.message ?? String(error);
	return /^(Enrolment|Renewal) failed|: required|already sent/.test(message)
		? message
		: `The certificate service could not be reached: ${message}`;
}

/**
 * Reads and checks the credential: the profile, ids, URLs, the signing certificate (enrolling or
 * renewing it first when that is due) and the bank certificate. Certificates near their end add a
 * warning to the output and the log; an expired one is an error naming the fix.
 */
export async function loadServiceContext(ctx: BankContext): Promise<ServiceContext> {
	let credentials = await ctx.getCredentials(FILE_SERVICE_CREDENTIAL);
	const warnings: string[] = [];
	let view;
	try {
		view = readFileServiceCredential(credentials);
	} catch (error) {
		throw credentialError((error as Error).message);
	}
	const due = enrolmentDue(view);
	if (due !== 'none') {
		const refreshed = await refreshEnrolment(ctx, credentials, false);
		credentials = refreshed.credentials;
		if (refreshed.error) {
			const usable = readEnrolmentState(credentials[ENROLMENT_FIELD]);
			if (!usable || new Date(usable.notAfter).getTime() <= Date.now()) {
				throw credentialError(redactSecrets(refreshed.error.message, view.secrets));
			}
			warnings.push(redactSecrets(refreshed.error.message, view.secrets));
		}
	}
	let read;
	try {
		read = serviceSettings(credentials);
	} catch (error) {
		throw credentialError((error as Error).message);
	}
	const { settings, certificate } = read;
	view = read.view;
	if (view.signingMode === 'enrol' && !settings.signing) {
		throw credentialError(
			`Certificate: not enrolled. Paste the ${view.profile.pin?.label ?? 'PIN'} the bank gave you into the credential and save it`,
		);
	}
	if (certificate) {
		if (certificate.notAfter.getTime() <= Date.now())
			throw credentialError(expiredMessage(view, certificate.notAfter));
		if (certificate.daysLeft <= EXPIRY_WARNING_DAYS)
			warnings.push(expiringMessage(view, certificate));
	}
	for (const warning of warnings) ctx.logger?.warn(`Corporate File Service: ${warning}`);
	return {
		settings,
		url: view.url,
		largeFileUrl: view.largeFileUrl,
		secrets: view.secrets,
		soapAction: view.profile.soapAction,
		profile: view.profile,
		certificate,
		warnings,
	};
}
