/**
 * The node's link between n8n and the bxd layer: reads the credential into settings, sends one
 * prepared message through the shared transport and turns every failure into an n8n error that
 * names the bank's code, the fault category or the credential field to fix.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INode,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { Readable } from 'node:stream';

import type {
	AnswerReading,
	BankProfile,
	BxdOperation,
	FileServiceResult,
	FileServiceSettings,
	PreparedRequest,
	StreamingRequest,
} from '../shared/bxd';
import {
	BxdError,
	BxdFaultError,
	BxdFormatError,
	BxdResponseCodeError,
	BxdSignatureError,
	BxdValidationError,
	parseSoapFault,
	readAtMost,
	readResponse,
	readResponseStream,
	responseCodeHint,
	Sha1SignatureError,
	STANDARD_MESSAGE_LIMIT,
} from '../shared/bxd';
import type { CertificateFacts } from '../shared/fileServiceCredential';
import {
	CHECK_HEADER,
	CHECK_PLACEHOLDER_URL,
	CredentialFieldError,
	enrolmentDue,
	EnrolmentError,
	ENROLMENT_CHECK_FIELD,
	ENROLMENT_FIELD,
	expiredMessage,
	expiringMessage,
	EXPIRY_WARNING_DAYS,
	readEnrolmentState,
	readFileServiceCredential,
	RENEW_NOW_FIELD,
	serviceSettings,
} from '../shared/fileServiceCredential';
import { errorResponseOf, outcomeUnknown, toBankApiError } from '../shared/transport/errors';
import { redactSecrets } from '../shared/transport/redact';
import type { BankContext, BankResponse } from '../shared/transport/request';
import { bankRequest, isRetryableError } from '../shared/transport/request';
import { DEFAULT_RETRY } from '../shared/transport/retry';

export const CREDENTIAL_TYPE = 'corporateBankingFileServiceApi';

export const USER_AGENT = 'n8n-nodes-corporate-banking';

export type Endpoint = 'auto' | 'standard' | 'large';

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

export const OPERATION_LABELS: Record<BxdOperation, string> = {
	uploadFile: 'Upload file',
	downloadFileList: 'List files',
	downloadFile: 'Download file',
	deleteFile: 'Delete file',
	getUserInfo: 'Get user info',
};

/** The n8n error for a credential field to fix. */
function credentialError(node: INode, message: string): NodeOperationError {
	return new NodeOperationError(node, `Credential: ${message}`, {
		description: 'Edit the Corporate Banking File Service API credential.',
	});
}

/**
 * Asks n8n to run the credential's enrolment now (first enrolment, renewal in its window, or a
 * renewal on demand): the expirable field is emptied in the copy handed over, so n8n runs the
 * credential's preAuthentication, stores what it returns in the credential and then sends the
 * credential's signed check. Returns the credential as stored afterwards and, when the enrolment
 * failed, its error.
 */
export async function refreshEnrolment(
	ctx: BankContext,
	credentials: ICredentialDataDecryptedObject,
	force: boolean,
): Promise<{ credentials: ICredentialDataDecryptedObject; error?: Error }> {
	const before = String(credentials[ENROLMENT_FIELD] ?? '');
	const details = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
	let failure: Error | undefined;
	try {
		await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			CREDENTIAL_TYPE,
			{
				method: 'POST',
				url: CHECK_PLACEHOLDER_URL,
				headers: { [CHECK_HEADER]: 'probe' },
				json: false,
				timeout: 60000,
			},
			{
				credentialsDecrypted: {
					id: details?.id ?? '',
					name: details?.name ?? CREDENTIAL_TYPE,
					type: CREDENTIAL_TYPE,
					data: {
						...credentials,
						[ENROLMENT_CHECK_FIELD]: '',
						...(force ? { [RENEW_NOW_FIELD]: true } : {}),
					},
				},
			},
		);
	} catch (error) {
		failure = error as Error;
	}
	const after = await ctx.getCredentials(CREDENTIAL_TYPE);
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
	const node = ctx.getNode();
	let credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const warnings: string[] = [];
	let view;
	try {
		view = readFileServiceCredential(credentials);
	} catch (error) {
		throw credentialError(node, (error as Error).message);
	}
	const due = enrolmentDue(view);
	if (due !== 'none') {
		const refreshed = await refreshEnrolment(ctx, credentials, false);
		credentials = refreshed.credentials;
		if (refreshed.error) {
			const usable = readEnrolmentState(credentials[ENROLMENT_FIELD]);
			if (!usable || new Date(usable.notAfter).getTime() <= Date.now()) {
				throw credentialError(node, redactSecrets(refreshed.error.message, view.secrets));
			}
			warnings.push(redactSecrets(refreshed.error.message, view.secrets));
		}
	}
	let read;
	try {
		read = serviceSettings(credentials);
	} catch (error) {
		throw credentialError(node, (error as Error).message);
	}
	const { settings, certificate } = read;
	view = read.view;
	if (view.signingMode === 'enrol' && !settings.signing) {
		throw credentialError(
			node,
			`Certificate: not enrolled. Paste the ${view.profile.pin?.label ?? 'PIN'} the bank gave you into the credential and save it`,
		);
	}
	if (certificate) {
		if (certificate.notAfter.getTime() <= Date.now())
			throw credentialError(node, expiredMessage(view, certificate.notAfter));
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

/** Picks the address: Auto sends messages over 20 MB to the large-file URL when there is one. */
export function chooseUrl(
	node: INode,
	service: ServiceContext,
	endpoint: Endpoint,
	size: number,
	itemIndex: number,
): string {
	if (endpoint === 'large') {
		if (!service.largeFileUrl) {
			throw new NodeOperationError(
				node,
				'Endpoint "Large" needs the Large File Service URL in the credential',
				{ itemIndex },
			);
		}
		return service.largeFileUrl;
	}
	if (endpoint === 'auto' && size > STANDARD_MESSAGE_LIMIT && service.largeFileUrl)
		return service.largeFileUrl;
	return service.url;
}

function megabytes(bytes: number): string {
	return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** The SOAP fault the bank answered a failed request with, if any. */
function soapFaultOf(error: unknown) {
	const { body } = errorResponseOf(error);
	return typeof body === 'string' || Buffer.isBuffer(body) ? parseSoapFault(body) : undefined;
}

/** A SOAP fault is the bank's considered answer: sending the request again would not change it. */
function retryable(error: unknown): boolean {
	if (soapFaultOf(error)) return false;
	return isRetryableError(error);
}

export interface ErrorContext {
	operation: BxdOperation;
	itemIndex: number;
	secrets: string[];
	/** Added to the description (for example the message size). */
	hint?: string;
	httpStatus?: number;
}

function apiError(
	node: INode,
	body: JsonObject,
	message: string,
	description: string | undefined,
	ctx: ErrorContext,
	extra: IDataObject,
): NodeApiError {
	const clean = (text: string) => redactSecrets(text, ctx.secrets);
	const error = new NodeApiError(node, body, {
		message: clean(message),
		description: description ? clean(description) : undefined,
		httpCode: ctx.httpStatus ? String(ctx.httpStatus) : undefined,
		itemIndex: ctx.itemIndex,
	});
	// NodeApiError replaces messages that mention common codes with generic texts: keep ours.
	error.message = clean(message);
	Object.assign(error.context, extra);
	return error;
}

/** Turns a bxd error into the n8n error a user can act on. */
export function toNodeError(node: INode, error: unknown, ctx: ErrorContext): Error {
	const label = OPERATION_LABELS[ctx.operation];
	const hints = ctx.hint ? [ctx.hint] : [];
	if (error instanceof BxdFaultError) {
		const details = [
			error.category !== undefined ? `Fault category: ${error.category}` : undefined,
			error.code !== undefined ? `Fault code: ${error.code}` : undefined,
			error.faultCode ? `SOAP fault code: ${error.faultCode}` : undefined,
			...hints,
		].filter(Boolean);
		return apiError(
			node,
			{
				message: error.faultString,
				category: error.category ?? null,
				faultCode: error.code ?? null,
			},
			`${label}: the file service refused the request: ${error.faultString}`,
			details.join('\n'),
			ctx,
			{
				category: error.category ?? null,
				code: error.code ?? null,
				faultCode: error.faultCode ?? null,
			},
		);
	}
	if (error instanceof BxdResponseCodeError) {
		const hint = responseCodeHint(error.code);
		const description = [`Response code ${error.code} in the ${error.where}.`, hint, ...hints]
			.filter(Boolean)
			.join('\n');
		return apiError(
			node,
			{ message: error.text ?? `Response code ${error.code}`, responseCode: error.code },
			`${label}: the bank answered with code ${error.code}${error.text ? ` (${error.text})` : ''}`,
			description,
			ctx,
			{ responseCode: error.code, responseText: error.text ?? null },
		);
	}
	if (error instanceof BxdSignatureError) {
		return apiError(
			node,
			{ message: error.message },
			`${label}: ${error.message}`,
			error instanceof Sha1SignatureError
				? 'The bank signed its answer with SHA-1. Switch on "Accept SHA-1 Signatures From the Bank" in the credential to accept it, or ask the bank for RSA-SHA256 signatures.'
				: 'The answer was not accepted because it cannot be shown to come unchanged from the bank. If the bank has renewed its certificate, update the Bank Certificate in the credential.',
			ctx,
			{ signature: 'invalid' },
		);
	}
	if (error instanceof BxdFormatError) {
		return apiError(
			node,
			{ message: error.message },
			`${label}: ${error.message}`,
			hints.join('\n') || undefined,
			ctx,
			{},
		);
	}
	if (error instanceof BxdValidationError) {
		return new NodeOperationError(node, redactSecrets(`${label}: ${error.message}`, ctx.secrets), {
			itemIndex: ctx.itemIndex,
		});
	}
	if (error instanceof BxdError) {
		return new NodeOperationError(node, redactSecrets(`${label}: ${error.message}`, ctx.secrets), {
			itemIndex: ctx.itemIndex,
		});
	}
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(
		node,
		redactSecrets(`${label}: ${(error as Error)?.message ?? String(error)}`, ctx.secrets),
		{
			itemIndex: ctx.itemIndex,
		},
	);
}

export interface SendOptions {
	itemIndex: number;
	endpoint: Endpoint;
	timeoutMs: number;
}

const IDEMPOTENT: Record<BxdOperation, boolean> = {
	uploadFile: false,
	deleteFile: false,
	downloadFileList: true,
	downloadFile: true,
	getUserInfo: true,
};

/** Files and answers above these sizes are streamed; smaller ones take the simpler in-memory path. */
export const streamingThresholds = {
	/** Upload: size of the stored file in bytes. */
	uploadBytes: 4 * 1024 * 1024,
	/** Download: Content-Length of the answer in bytes (an answer without one is always streamed). */
	downloadBytes: 4 * 1024 * 1024,
};

interface Outgoing {
	operation: BxdOperation;
	/** Size of the SOAP message in bytes. */
	size: number;
	body: Buffer | Readable;
}

/**
 * Sends one SOAP message: picks the address by size, sends it (retried only when the operation
 * is idempotent and the body is not a stream), and turns transport failures and SOAP faults into
 * n8n errors. Returns the answer's body and what errors about it should say.
 */
async function deliver(
	ctx: BankContext,
	service: ServiceContext,
	outgoing: Outgoing,
	options: SendOptions,
	responseType?: 'stream',
): Promise<{ response: BankResponse<unknown>; errorContext: ErrorContext }> {
	const node = ctx.getNode();
	const { operation, size } = outgoing;
	const url = chooseUrl(node, service, options.endpoint, size, options.itemIndex);
	const large = url === service.largeFileUrl && url !== service.url;
	const sizeHint =
		size > STANDARD_MESSAGE_LIMIT && !large
			? `The message is ${megabytes(size)}: messages over 20 MB must go to the large-file address. ${
					service.largeFileUrl
						? 'Set Options > Endpoint to Auto or Large.'
						: 'Set the Large File Service URL in the credential.'
				}`
			: undefined;
	const errorContext: ErrorContext = {
		operation,
		itemIndex: options.itemIndex,
		secrets: service.secrets,
		hint: sizeHint,
	};
	const idempotent = IDEMPOTENT[operation];
	const streamed = outgoing.body instanceof Readable;
	try {
		const response = await bankRequest<unknown>(ctx, CREDENTIAL_TYPE, {
			method: 'POST',
			url,
			body: outgoing.body,
			json: false,
			headers: {
				'Content-Type': 'text/xml; charset=utf-8',
				SOAPAction: service.soapAction ?? '""',
				Accept: 'text/xml',
				...(streamed ? { 'Content-Length': String(size) } : {}),
			},
			idempotent,
			retry: idempotent ? DEFAULT_RETRY : undefined,
			retryable,
			timeoutMs: options.timeoutMs,
			responseType,
		});
		return { response, errorContext };
	} catch (error) {
		const fault = soapFaultOf(error);
		if (fault)
			throw toNodeError(node, fault, {
				...errorContext,
				httpStatus: errorResponseOf(error).status,
			});
		// An upload or delete that may have reached the bank is not sent again: say so.
		const unknown = !idempotent && outcomeUnknown(error);
		throw toBankApiError(node, error, {
			operation: unknown
				? `${OPERATION_LABELS[operation]}: outcome unknown`
				: OPERATION_LABELS[operation],
			itemIndex: options.itemIndex,
			secrets: service.secrets,
			hint: unknown
				? [
						sizeHint,
						'The bank may have carried it out. Check List Files before sending it again; it was not sent again automatically.',
					]
						.filter(Boolean)
						.join('\n')
				: sizeHint,
			statusMessages: { 413: 'The bank refused the message as too large' },
		});
	}
}

function judge(
	service: ServiceContext,
	operation: BxdOperation,
	body: unknown,
	node: INode,
	errorContext: ErrorContext,
): FileServiceResult {
	try {
		if (typeof body !== 'string' && !Buffer.isBuffer(body)) {
			throw new BxdFormatError("The bank's answer is not XML");
		}
		return readResponse(service.settings, operation, body);
	} catch (error) {
		throw toNodeError(node, error, errorContext);
	}
}

/**
 * Sends a prepared message and reads the answer. Listing, downloading and user info are retried
 * after network failures and 5xx answers that are not SOAP faults; uploads and deletes are sent
 * once.
 */
export async function sendPrepared(
	ctx: BankContext,
	service: ServiceContext,
	prepared: PreparedRequest,
	options: SendOptions,
): Promise<FileServiceResult> {
	const { response, errorContext } = await deliver(
		ctx,
		service,
		{ operation: prepared.operation, size: prepared.size, body: prepared.envelope.body },
		options,
	);
	return judge(service, prepared.operation, response.body, ctx.getNode(), errorContext);
}

/**
 * Sends a message whose file is streamed from disk (never retried: the stream is read once) and
 * reads the bank's small answer.
 */
export async function sendStreamingRequest(
	ctx: IExecuteFunctions,
	service: ServiceContext,
	request: StreamingRequest,
	options: SendOptions,
): Promise<FileServiceResult> {
	const body = request.body();
	try {
		const { response, errorContext } = await deliver(
			ctx,
			service,
			{ operation: request.operation, size: request.size, body },
			options,
		);
		return judge(service, request.operation, response.body, ctx.getNode(), errorContext);
	} finally {
		// Whatever happened to the request, the file is closed.
		body.destroy();
	}
}

export interface DownloadReading {
	reading: AnswerReading;
	/** What errors raised while the file streams should say. */
	errorContext: ErrorContext;
}

/**
 * Sends a message whose answer may carry a large file and reads the answer as it arrives: a small
 * answer (up to streamingThresholds.downloadBytes) is read whole and judged as usual; a larger one
 * is judged up to its Content and the file comes as a stream (see readResponseStream).
 */
export async function sendForDownload(
	ctx: BankContext,
	service: ServiceContext,
	prepared: PreparedRequest,
	options: SendOptions,
): Promise<DownloadReading> {
	const node = ctx.getNode();
	const operation = prepared.operation;
	const { response, errorContext } = await deliver(
		ctx,
		service,
		{ operation, size: prepared.size, body: prepared.envelope.body },
		options,
		'stream',
	);
	const stream = response.body as Readable;
	const declared = Number(response.headers['content-length']);
	try {
		if (Number.isFinite(declared) && declared <= streamingThresholds.downloadBytes) {
			const body = await readAtMost(stream, streamingThresholds.downloadBytes, "The bank's answer");
			return {
				reading: { streamed: false, result: judge(service, operation, body, node, errorContext) },
				errorContext,
			};
		}
		return {
			reading: await readResponseStream(service.settings, operation, stream, { unpack: true }),
			errorContext,
		};
	} catch (error) {
		stream.destroy();
		throw toNodeError(node, error, errorContext);
	}
}
