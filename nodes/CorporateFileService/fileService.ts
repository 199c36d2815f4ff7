/**
 * The node's link between n8n and the bxd layer: reads the credential into settings, sends one
 * prepared message through the shared transport and turns every failure into an n8n error that
 * names the bank's code, the fault category or the credential field to fix.
 */
import type { IDataObject, IExecuteFunctions, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { Readable } from 'node:stream';

import type { AnswerReading, BxdOperation, FileServiceResult, FileServiceSettings, PreparedRequest, StreamingRequest } from '../shared/bxd';
import {
	BankCertificateError,
	BxdError,
	BxdFaultError,
	BxdFormatError,
	BxdResponseCodeError,
	BxdSignatureError,
	BxdValidationError,
	parseSoapFault,
	readAtMost,
	readBankCertificate,
	readResponse,
	readResponseStream,
	responseCodeHint,
	signingMaterial,
	STANDARD_MESSAGE_LIMIT,
} from '../shared/bxd';
import { trimUrl } from '../shared/credentialFields';
import { errorResponseOf, outcomeUnknown, toBankApiError } from '../shared/transport/errors';
import { redactSecrets } from '../shared/transport/redact';
import type { BankContext, BankResponse } from '../shared/transport/request';
import { bankRequest, isRetryableError } from '../shared/transport/request';
import { DEFAULT_RETRY } from '../shared/transport/retry';
import { buildTlsOptions, normalizePem, TlsConfigError } from '../shared/transport/tls';

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
}

export const OPERATION_LABELS: Record<BxdOperation, string> = {
	uploadFile: 'Upload file',
	downloadFileList: 'List files',
	downloadFile: 'Download file',
	deleteFile: 'Delete file',
	getUserInfo: 'Get user info',
};

function field(value: unknown): string {
	return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/** Reads and checks the credential: required ids, URLs, the signing key and the bank certificate. */
export async function loadServiceContext(ctx: BankContext): Promise<ServiceContext> {
	const node = ctx.getNode();
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const fail = (message: string): never => {
		throw new NodeOperationError(node, `Credential: ${message}`, {
			description: 'Edit the Corporate Banking File Service API credential.',
		});
	};
	const url = trimUrl(credentials.url);
	if (!url) fail('the Service URL is empty');
	const largeFileUrl = trimUrl(credentials.largeFileUrl) || undefined;
	for (const [name, value] of [
		['Service URL', url],
		['Large File Service URL', largeFileUrl],
	] as const) {
		if (value && !/^https?:\/\//i.test(value)) fail(`the ${name} must start with https://`);
	}
	const senderId = field(credentials.senderId);
	const customerId = field(credentials.customerId);
	const receiverId = field(credentials.receiverId);
	if (!senderId) fail('the Sender ID is empty');
	if (!customerId) fail('the Customer ID is empty');
	if (!receiverId) fail('the Receiver ID is empty');
	const passphrase = typeof credentials.signingKeyPassphrase === 'string' ? credentials.signingKeyPassphrase : '';
	const secrets = [passphrase, field(credentials.passphrase)].filter((s) => s.length >= 4);
	const settings: FileServiceSettings = {
		senderId,
		customerId,
		receiverId,
		softwareId: field(credentials.softwareId) || USER_AGENT,
		environment: field(credentials.environment) || 'PRODUCTION',
		language: field(credentials.language) || 'EN',
		userAgent: USER_AGENT,
	};
	const certificate = normalizePem(credentials.signingCertificate);
	const key = normalizePem(credentials.signingPrivateKey);
	if (certificate || key) {
		try {
			const checked = buildTlsOptions(
				{ certificate, privateKey: key, passphrase },
				{ ca: 'Bank Certificate', cert: 'Signing Certificate', key: 'Signing Private Key', passphrase: 'Signing Key Passphrase' },
			);
			settings.signing = signingMaterial(checked?.cert ?? certificate, checked?.key ?? key, passphrase);
		} catch (error) {
			const message = error instanceof TlsConfigError ? error.message : `Signing Private Key: ${(error as Error).message}`;
			fail(redactSecrets(message, secrets));
		}
	}
	// The text as given (not repaired) is checked: repairing drops a block cut off before its end line.
	if (normalizePem(credentials.bankCertificate)) {
		try {
			settings.trust = readBankCertificate(credentials.bankCertificate as string);
		} catch (error) {
			// Only the rule is shown, never the text: OpenSSL's own messages are not passed on.
			fail(`Bank Certificate: ${error instanceof BankCertificateError ? error.message : 'the PEM certificate cannot be read (it may be truncated or corrupted)'}`);
		}
	}
	return { settings, url, largeFileUrl, secrets };
}

/** Picks the address: Auto sends messages over 20 MB to the large-file URL when there is one. */
export function chooseUrl(node: INode, service: ServiceContext, endpoint: Endpoint, size: number, itemIndex: number): string {
	if (endpoint === 'large') {
		if (!service.largeFileUrl) {
			throw new NodeOperationError(node, 'Endpoint "Large" needs the Large File Service URL in the credential', { itemIndex });
		}
		return service.largeFileUrl;
	}
	if (endpoint === 'auto' && size > STANDARD_MESSAGE_LIMIT && service.largeFileUrl) return service.largeFileUrl;
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

function apiError(node: INode, body: JsonObject, message: string, description: string | undefined, ctx: ErrorContext, extra: IDataObject): NodeApiError {
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
			{ message: error.faultString, category: error.category ?? null, faultCode: error.code ?? null },
			`${label}: the file service refused the request: ${error.faultString}`,
			details.join('\n'),
			ctx,
			{ category: error.category ?? null, code: error.code ?? null, faultCode: error.faultCode ?? null },
		);
	}
	if (error instanceof BxdResponseCodeError) {
		const hint = responseCodeHint(error.code);
		const description = [`Response code ${error.code} in the ${error.where}.`, hint, ...hints].filter(Boolean).join('\n');
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
			'The answer was not accepted because it cannot be shown to come unchanged from the bank. If the bank has renewed its certificate, update the Bank Certificate in the credential.',
			ctx,
			{ signature: 'invalid' },
		);
	}
	if (error instanceof BxdFormatError) {
		return apiError(node, { message: error.message }, `${label}: ${error.message}`, hints.join('\n') || undefined, ctx, {});
	}
	if (error instanceof BxdValidationError) {
		return new NodeOperationError(node, redactSecrets(`${label}: ${error.message}`, ctx.secrets), { itemIndex: ctx.itemIndex });
	}
	if (error instanceof BxdError) {
		return new NodeOperationError(node, redactSecrets(`${label}: ${error.message}`, ctx.secrets), { itemIndex: ctx.itemIndex });
	}
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, redactSecrets(`${label}: ${(error as Error)?.message ?? String(error)}`, ctx.secrets), {
		itemIndex: ctx.itemIndex,
	});
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
					service.largeFileUrl ? 'Set Options > Endpoint to Auto or Large.' : 'Set the Large File Service URL in the credential.'
				}`
			: undefined;
	const errorContext: ErrorContext = { operation, itemIndex: options.itemIndex, secrets: service.secrets, hint: sizeHint };
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
				SOAPAction: '""',
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
		if (fault) throw toNodeError(node, fault, { ...errorContext, httpStatus: errorResponseOf(error).status });
		// An upload or delete that may have reached the bank is not sent again: say so.
		const unknown = !idempotent && outcomeUnknown(error);
		throw toBankApiError(node, error, {
			operation: unknown ? `${OPERATION_LABELS[operation]}: outcome unknown` : OPERATION_LABELS[operation],
			itemIndex: options.itemIndex,
			secrets: service.secrets,
			hint: unknown
				? [sizeHint, 'The bank may have carried it out. Check List Files before sending it again; it was not sent again automatically.'].filter(Boolean).join('\n')
				: sizeHint,
			statusMessages: { 413: 'The bank refused the message as too large' },
		});
	}
}

function judge(service: ServiceContext, operation: BxdOperation, body: unknown, node: INode, errorContext: ErrorContext): FileServiceResult {
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
	const { response, errorContext } = await deliver(ctx, service, { operation: prepared.operation, size: prepared.size, body: prepared.envelope.body }, options);
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
		const { response, errorContext } = await deliver(ctx, service, { operation: request.operation, size: request.size, body }, options);
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
	const { response, errorContext } = await deliver(ctx, service, { operation, size: prepared.size, body: prepared.envelope.body }, options, 'stream');
	const stream = response.body as Readable;
	const declared = Number(response.headers['content-length']);
	try {
		if (Number.isFinite(declared) && declared <= streamingThresholds.downloadBytes) {
			const body = await readAtMost(stream, streamingThresholds.downloadBytes, "The bank's answer");
			return { reading: { streamed: false, result: judge(service, operation, body, node, errorContext) }, errorContext };
		}
		return { reading: await readResponseStream(service.settings, operation, stream, { unpack: true }), errorContext };
	} catch (error) {
		stream.destroy();
		throw toNodeError(node, error, errorContext);
	}
}
