import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';
import { Readable } from 'node:stream';

import { extractErrorInfo, isNetworkFailure } from './errors';
import type { RetryPolicy } from './retry';
import { NO_RETRY, withRetry } from './retry';
import type { ClientTlsOptions } from './tls';
import { tokenNeedsRefresh } from './token';

export type BankContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface BankRequestOptions {
	method: IHttpRequestMethods;
	url: string;
	qs?: IDataObject;
	headers?: IDataObject;
	/**
	 * A JSON body (objects) or a raw body (string/Buffer) sent as is, or a stream (Readable) sent
	 * as it is read. A stream can be sent only once: such a request is never retried, and after a
	 * 401 it is not sent again either. Give its Content-Length in `headers` when it is known.
	 */
	body?: IHttpRequestOptions['body'] | Readable;
	/** Parse the response as JSON (default true). */
	json?: boolean;
	/**
	 * How the response body comes back. Default: parsed (JSON or text). 'buffer': one Buffer.
	 * 'stream': a Readable the caller must read or destroy; a status of 400 or more is still an
	 * error, with up to 1 MiB of the body read into it (`response.data`), and a 401 does not
	 * renew the token (for credentials without one).
	 */
	responseType?: 'stream' | 'buffer';
	timeoutMs?: number;
	/**
	 * Whether sending the request twice is harmless. Only idempotent requests are retried after
	 * a 5xx, a timeout or a dropped connection. A request that is not idempotent is sent once;
	 * after a 401 it is sent once more with a fresh token, because the bank refused it unread.
	 */
	idempotent: boolean;
	retry?: RetryPolicy;
	/** TLS settings for requests without a credential (the credential adds its own). */
	tls?: ClientTlsOptions;
	/** Which failures may be retried (default: 5xx, 408, 429 and network failures). */
	retryable?: (error: unknown) => boolean;
	/** Called before each retry, for logging and counting. */
	onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
	random?: () => number;
}

export interface BankResponse<T = unknown> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	/** How many times the request was sent (1 when it succeeded at once). */
	attempts: number;
}

/** Statuses worth another try for an idempotent request. */
export const RETRYABLE_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

export function isRetryableError(error: unknown): boolean {
	const info = extractErrorInfo(error);
	if (info.status) return RETRYABLE_STATUSES.has(info.status);
	return isNetworkFailure(info);
}

/** Names of the hidden credential fields that hold the cached token and its expiry. */
export const TOKEN_FIELD = 'accessToken';
export const TOKEN_EXPIRY_FIELD = 'tokenExpiresAt';

/**
 * Reads the credential once and hands it to n8n's authenticated helper, so it is not decrypted a
 * second time. A token that is due for renewal is blanked: n8n renews an expirable credential
 * field only when it is empty or after a 401, and then runs the credential's preAuthentication and
 * stores the new token in the credential, where every worker reading it sees it.
 */
async function credentialsFor(ctx: BankContext, credentialType: string): Promise<IAdditionalCredentialOptions> {
	const data = (await ctx.getCredentials(credentialType)) as ICredentialDataDecryptedObject;
	const renew = (TOKEN_FIELD in data || TOKEN_EXPIRY_FIELD in data) && tokenNeedsRefresh(data[TOKEN_FIELD], data[TOKEN_EXPIRY_FIELD]);
	const details = ctx.getNode().credentials?.[credentialType];
	return {
		credentialsDecrypted: {
			id: details?.id ?? '',
			name: details?.name ?? credentialType,
			type: credentialType,
			data: renew ? { ...data, [TOKEN_FIELD]: '' } : data,
		},
	};
}

function toHttpOptions(req: BankRequestOptions): IHttpRequestOptions {
	const options: IHttpRequestOptions = {
		method: req.method,
		url: req.url,
		qs: req.qs,
		headers: { Accept: 'application/json', ...(req.headers ?? {}) },
		// n8n's helpers hand a stream body to the HTTP client as it is (the type does not list it).
		body: req.body as IHttpRequestOptions['body'],
		json: req.json ?? true,
		timeout: req.timeoutMs ?? 60000,
		returnFullResponse: true,
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
	};
	if (req.tls) options.agentOptions = { ...req.tls };
	if (req.responseType === 'buffer') {
		options.encoding = 'arraybuffer';
		options.json = false;
	} else if (req.responseType === 'stream') {
		options.encoding = 'stream';
		options.json = false;
		options.ignoreHttpStatusErrors = true;
	}
	return options;
}

/** Most of an error body read from a streamed response. */
const STREAMED_ERROR_BODY_LIMIT = 1024 * 1024;

/** A status of 400 or more on a streamed response, with the start of its body. */
export class BankHttpStatusError extends Error {
	readonly httpCode: string;

	constructor(readonly response: { status: number; headers: Record<string, unknown>; data: Buffer }) {
		super(`Request failed with status code ${response.status}`);
		this.name = 'BankHttpStatusError';
		this.httpCode = String(response.status);
	}
}

async function readErrorBody(body: unknown): Promise<Buffer> {
	if (Buffer.isBuffer(body)) return body;
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	if (!(body instanceof Readable)) return Buffer.alloc(0);
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of body) {
		const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
		chunks.push(bytes.subarray(0, STREAMED_ERROR_BODY_LIMIT - size));
		size += Math.min(bytes.length, STREAMED_ERROR_BODY_LIMIT - size);
		if (size >= STREAMED_ERROR_BODY_LIMIT) {
			body.destroy();
			break;
		}
	}
	return Buffer.concat(chunks);
}

/** For a streamed response: throws on an error status, as the request helpers do otherwise. */
async function checkStreamedStatus<T>(response: BankResponse<T>, req: BankRequestOptions): Promise<BankResponse<T>> {
	if (req.responseType !== 'stream' || response.statusCode < 400) return response;
	const data = await readErrorBody(response.body);
	throw new BankHttpStatusError({ status: response.statusCode, headers: response.headers, data });
}

function toResponse<T>(raw: unknown, attempts: number): BankResponse<T> {
	const full = raw as IN8nHttpFullResponse;
	return {
		statusCode: full.statusCode,
		headers: (full.headers ?? {}) as BankResponse['headers'],
		body: full.body as T,
		attempts,
	};
}

/**
 * The one way every node talks to the bank. With a credential type, the request goes through
 * n8n's authenticated helper: the credential adds the bearer token and client TLS, n8n renews the
 * token after a 401 and sends the request once more. Idempotent requests are retried with backoff
 * after 5xx and network failures; others never are.
 */
export async function bankRequest<T = unknown>(
	ctx: BankContext,
	credentialType: string | undefined,
	req: BankRequestOptions,
): Promise<BankResponse<T>> {
	// A stream body is consumed by the first attempt: it is never sent twice.
	const policy = req.idempotent && !(req.body instanceof Readable) ? (req.retry ?? NO_RETRY) : NO_RETRY;
	return await withRetry(
		policy,
		{ retryable: req.retryable ?? isRetryableError, onRetry: req.onRetry, random: req.random },
		async (attempt) => {
			const options = toHttpOptions(req);
			if (credentialType) {
				const additional = await credentialsFor(ctx, credentialType);
				const raw: unknown = await ctx.helpers.httpRequestWithAuthentication.call(ctx, credentialType, options, additional);
				return await checkStreamedStatus(toResponse<T>(raw, attempt), req);
			}
			const raw: unknown = await ctx.helpers.httpRequest(options);
			return await checkStreamedStatus(toResponse<T>(raw, attempt), req);
		},
	);
}
