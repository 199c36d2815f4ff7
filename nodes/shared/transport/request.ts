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

import { BankHttpStatusError, extractErrorInfo, isNetworkFailure } from './errors';
import type { RetryPolicy } from './retry';
import { NO_RETRY, withRetry } from './retry';
import { pooledOptionsFrom, pooledRequest, poolingAllowed } from './pool';
import type { ClientTlsOptions } from './tls';
import { forgetToken, tokenNeedsRefresh } from './token';

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
	/**
	 * A request that is not idempotent may still go over a kept-alive connection when the
	 * protocol above recognises a repetition and its caller decides what to send again (an
	 * EBICS upload segment before the last: the bank knows it by transaction and number). It is
	 * sent once, even when the connection turns out to have been closed while idle: that failure
	 * goes to the caller.
	 */
	reuseConnection?: boolean;
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

/**
 * A credential as the transport sends with it: its type, for n8n's authenticated helper, and what
 * it adds to a request (the credential's `authenticate`), which the transport applies itself to the
 * requests it sends over pooled connections.
 */
export interface BankCredential {
	type: string;
	authenticate: (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	) => IHttpRequestOptions;
}

/** Names of the hidden credential fields that hold the cached token and its expiry. */
export const TOKEN_FIELD = 'accessToken';
export const TOKEN_EXPIRY_FIELD = 'tokenExpiresAt';

/** Whether the credential keeps a token (the FX and mutual-TLS credentials do). */
function holdsToken(data: ICredentialDataDecryptedObject): boolean {
	return TOKEN_FIELD in data || TOKEN_EXPIRY_FIELD in data;
}

/** Whether a token credential's token is due: n8n renews it when the field is empty. */
function tokenDue(data: ICredentialDataDecryptedObject): boolean {
	return holdsToken(data) && tokenNeedsRefresh(data[TOKEN_FIELD], data[TOKEN_EXPIRY_FIELD]);
}

/**
 * Hands the credential, read once, to n8n's authenticated helper, so it is not decrypted a second
 * time. With `renew`, the token is blanked: n8n renews an expirable credential field only when it
 * is empty or after a 401, and then runs the credential's preAuthentication and stores the new
 * token
 * in the credential, where every worker reading it sees it.
 */
function credentialsFor(
	ctx: BankContext,
	credentialType: string,
	data: ICredentialDataDecryptedObject,
	renew: boolean,
): IAdditionalCredentialOptions {
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
async function checkStreamedStatus<T>(
	response: BankResponse<T>,
	req: BankRequestOptions,
): Promise<BankResponse<T>> {
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
 * Credentials read during one node run (one `execute` or `poll` call), by type. Paging through
 * hundreds of pages reads and decrypts the credential once instead of once per page. After n8n
 * renews the token the entry is dropped, so the next request reads the stored new token.
 */
const credentialsByRun = new WeakMap<object, Map<string, ICredentialDataDecryptedObject>>();

async function readCredentials(
	ctx: BankContext,
	credentialType: string,
): Promise<ICredentialDataDecryptedObject> {
	let byType = credentialsByRun.get(ctx);
	if (!byType) {
		byType = new Map();
		credentialsByRun.set(ctx, byType);
	}
	let data = byType.get(credentialType);
	if (!data) {
		data = (await ctx.getCredentials(credentialType)) as ICredentialDataDecryptedObject;
		byType.set(credentialType, data);
	}
	return data;
}

function forgetCredentials(ctx: BankContext, credentialType: string): void {
	credentialsByRun.get(ctx)?.delete(credentialType);
}

/** Whether a request may go over a pooled keep-alive connection (see pool.ts). */
function poolable(req: BankRequestOptions): boolean {
	return (
		(req.idempotent || req.reuseConnection === true) &&
		!(req.body instanceof Readable) &&
		req.responseType !== 'stream' &&
		poolingAllowed()
	);
}

function cancelSignal(ctx: BankContext): AbortSignal | undefined {
	const withSignal = ctx as { getExecutionCancelSignal?: () => AbortSignal | undefined };
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

/**
 * The one way every node talks to the bank. Requests that may be sent twice go over pooled
 * keep-alive connections (pool.ts), with the credential's authentication applied by the same
 * function its `authenticate` uses. Everything else, and any request whose token is due or was
 * refused with a 401, goes through n8n's authenticated helper: the credential adds the bearer token
 * and client TLS, n8n renews and stores the token and sends the request once more after a 401.
 * Idempotent requests are retried with backoff after 5xx and network failures; others never are.
 *
 * Without a credential (a public key set, the mock service) nothing is added to the request.
 */
export async function bankRequest<T = unknown>(
	ctx: BankContext,
	credential: BankCredential | undefined,
	req: BankRequestOptions,
): Promise<BankResponse<T>> {
	// A stream body is consumed by the first attempt: it is never sent twice.
	const policy =
		req.idempotent && !(req.body instanceof Readable) ? (req.retry ?? NO_RETRY) : NO_RETRY;
	// Requests sent again at once because a pooled connection had been closed while idle count as
	// attempts too, so that what callers report matches what the bank received.
	let resent = 0;
	const pooled = async (options: IHttpRequestOptions, attempt: number) =>
		await pooledRequest(
			{ ...pooledOptionsFrom(options, cancelSignal(ctx)), resendStale: req.idempotent },
			(error) => {
				req.onRetry?.(error, attempt + resent, 0);
				resent++;
			},
		);
	return await withRetry(
		policy,
		{
			retryable: req.retryable ?? isRetryableError,
			onRetry: (error, attempt, delayMs) => req.onRetry?.(error, attempt + resent, delayMs),
			random: req.random,
		},
		async (attempt) => {
			const options = toHttpOptions(req);
			if (!credential) {
				if (poolable(req)) {
					const response = await pooled(options, attempt);
					return toResponse<T>(response, attempt + resent);
				}
				const raw: unknown = await ctx.helpers.httpRequest(options);
				return await checkStreamedStatus(toResponse<T>(raw, attempt + resent), req);
			}
			const credentialType = credential.type;
			const data = await readCredentials(ctx, credentialType);
			let renew = tokenDue(data);
			if (!renew && poolable(req)) {
				const authenticated = credential.authenticate(data, options);
				const outcome = await pooled(authenticated, attempt).then(
					(response) => ({ ok: true as const, response }),
					(error: unknown) => ({ ok: false as const, error }),
				);
				if (outcome.ok) return toResponse<T>(outcome.response, attempt + resent);
				// A refused token is renewed by n8n, which then sends the request again.
				if (!holdsToken(data) || extractErrorInfo(outcome.error).status !== 401)
					throw outcome.error;
				forgetToken(String(data[TOKEN_FIELD] ?? ''));
				renew = true;
			}
			const additional = credentialsFor(ctx, credentialType, data, renew);
			// n8n may renew and store the token on this request (when due, or after a 401).
			if (holdsToken(data)) forgetCredentials(ctx, credentialType);
			const raw: unknown = await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				credentialType,
				options,
				additional,
			);
			return await checkStreamedStatus(toResponse<T>(raw, attempt + resent), req);
		},
	);
}
