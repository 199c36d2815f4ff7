import type { JsonObject } from 'n8n-workflow';

import { BankFailure } from '../common/errors';

import { redactSecrets } from './redact';
import { describeTlsError } from './tls';

/**
 * An answer with an error status, for requests that did not go through n8n's helpers (pooled
 * connections) or that streamed their answer; shaped like the helpers' errors: `response.status`,
 * `response.headers` and `response.data` (the body, parsed when it is JSON, or its start).
 */
export class BankHttpStatusError extends Error {
	readonly httpCode: string;

	constructor(
		readonly response: { status: number; headers: Record<string, unknown>; data: unknown },
	) {
		super(`Request failed with status code ${response.status}`);
		this.name = 'BankHttpStatusError';
		this.httpCode = String(response.status);
	}
}

/** What a bank said when it refused a request, whatever shape its error body had. */
export interface BankErrorInfo {
	/** HTTP status, when there was a response. */
	status?: number;
	/** The bank's own error code or exception type. */
	code?: string;
	/** The bank's own message. */
	message?: string;
	/** Further details from the body (field errors, paths). */
	details?: string[];
	/** A transport-level error code (ECONNRESET, ETIMEDOUT, a TLS code). */
	networkCode?: string;
	/** Present when the failure happened before or while connecting. */
	networkMessage?: string;
	/** Response headers of the failed request, when there was a response. */
	headers?: Record<string, unknown>;
}

function str(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim()) return value.trim();
	if (typeof value === 'number') return String(value);
	return undefined;
}

function parseMaybeJson(body: unknown): unknown {
	if (Buffer.isBuffer(body)) body = body.toString('utf8');
	if (typeof body === 'string') {
		const text = body.trim();
		if (text.startsWith('{') || text.startsWith('[')) {
			try {
				return JSON.parse(text);
			} catch {
				return text;
			}
		}
		return text;
	}
	return body;
}

/**
 * Reads every error body shape the bank's APIs use:
 * `{error:{exception,message,timestamp}}` (trade report), `{timestamp,exception,message}`
 * (trade execution), `{status,exceptionType,details}` (mock service),
 * `{Code,Id,Message,Errors:[{ErrorCode,Message,Path,Url}]}` (Open Banking event polling),
 * OAuth `{error,error_description}`, and plain text or HTML pages.
 */
export function parseBankErrorBody(
	rawBody: unknown,
): Pick<BankErrorInfo, 'code' | 'message' | 'details'> {
	const body = parseMaybeJson(rawBody);
	if (body === undefined || body === null || body === '') return {};
	if (typeof body === 'string') {
		if (/^<(!doctype html|html)/i.test(body)) {
			const title = /<title>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
			return {
				message: title
					? `The bank answered with an HTML page: ${title}`
					: 'The bank answered with an HTML page instead of data',
			};
		}
		return { message: body.length > 300 ? `${body.slice(0, 300)}…` : body };
	}
	if (typeof body !== 'object') return { message: String(body) };
	const obj = body as Record<string, unknown>;

	const nested = obj.error;
	if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
		const e = nested as Record<string, unknown>;
		return { code: str(e.exception) ?? str(e.code), message: str(e.message) ?? str(e.description) };
	}
	if (typeof obj.error === 'string') {
		return { code: obj.error, message: str(obj.error_description) ?? obj.error };
	}
	if ('Code' in obj || 'Errors' in obj) {
		const errors = Array.isArray(obj.Errors) ? (obj.Errors as Array<Record<string, unknown>>) : [];
		const details = errors
			.map((e) =>
				[str(e.ErrorCode), str(e.Message), str(e.Path) && `at ${str(e.Path)}`]
					.filter(Boolean)
					.join(' '),
			)
			.filter(Boolean);
		return {
			code: str(errors[0]?.ErrorCode) ?? str(obj.Code),
			message: str(obj.Message) ?? str(errors[0]?.Message),
			details: details.length ? details : undefined,
		};
	}
	if ('exceptionType' in obj || ('details' in obj && 'status' in obj)) {
		const details = obj.details;
		const list = Array.isArray(details)
			? details.map((d) => (typeof d === 'string' ? d : JSON.stringify(d)))
			: undefined;
		return {
			code: str(obj.exceptionType),
			message: typeof details === 'string' ? details : (list?.[0] ?? str(obj.message)),
			details: list && list.length > 1 ? list : undefined,
		};
	}
	return {
		code: str(obj.exception) ?? str(obj.code) ?? str(obj.errorCode),
		message: str(obj.message) ?? str(obj.Message) ?? str(obj.detail) ?? str(obj.description),
	};
}

interface ErrorLike {
	message?: string;
	code?: string;
	httpCode?: string | null;
	status?: number;
	statusCode?: number;
	response?: {
		status?: number;
		statusCode?: number;
		data?: unknown;
		body?: unknown;
		headers?: Record<string, unknown>;
	};
	cause?: unknown;
	errorResponse?: unknown;
	context?: { data?: unknown };
}

/**
 * The error and what it wraps, outermost first: n8n's errors keep the original as `cause` or
 * `errorResponse`.
 */
function* errorChain(error: unknown): Generator<ErrorLike> {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const e = current as ErrorLike;
		yield e;
		current = e.cause ?? e.errorResponse;
	}
}

/**
 * What a failed request got back, as found in whatever n8n's request helpers threw: the first of
 * each along the chain.
 */
export interface ErrorResponse {
	status?: number;
	/** The answer's body as the helper gave it (parsed JSON, text or bytes). */
	body?: unknown;
	headers?: Record<string, unknown>;
	networkCode?: string;
	networkMessage?: string;
}

export function errorResponseOf(error: unknown): ErrorResponse {
	const found: ErrorResponse = {};
	for (const e of errorChain(error)) {
		const resp = e.response;
		if (resp && typeof resp === 'object') {
			found.status ??= resp.status ?? resp.statusCode;
			if (found.body === undefined) found.body = resp.data ?? resp.body;
			found.headers ??= resp.headers;
		}
		if (found.body === undefined && e.context?.data !== undefined) found.body = e.context.data;
		if (found.status === undefined && typeof e.statusCode === 'number') found.status = e.statusCode;
		if (found.status === undefined && typeof e.status === 'number') found.status = e.status;
		if (found.status === undefined && e.httpCode && /^\d{3}$/.test(e.httpCode))
			found.status = Number(e.httpCode);
		if (!found.networkCode && typeof e.code === 'string' && /^[A-Z_0-9]+$/.test(e.code)) {
			found.networkCode = e.code;
			found.networkMessage = e.message;
		}
	}
	return found;
}

/** Finds status, body and network code in whatever n8n's request helpers threw. */
export function extractErrorInfo(error: unknown): BankErrorInfo {
	const { status, body, headers, networkCode, networkMessage } = errorResponseOf(error);
	const parsed = parseBankErrorBody(body);
	return {
		status,
		...parsed,
		networkCode: status ? undefined : networkCode,
		networkMessage: status ? undefined : networkMessage,
		headers,
	};
}

/** The first error in the chain (the error and what it wraps) with the given name. */
export function findInChain(error: unknown, name: string): Error | undefined {
	for (const e of errorChain(error)) {
		if ((e as Error).name === name) return e as Error;
	}
	return undefined;
}

/** Whether an error or any error it wraps has the given name (e.g. 'TokenError'). */
export function errorChainHas(error: unknown, name: string): boolean {
	return findInChain(error, name) !== undefined;
}

const TIMEOUT_CODES = new Set([
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
]);
const DROPPED_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ERR_STREAM_PREMATURE_CLOSE',
	'UND_ERR_SOCKET',
	'ECONNREFUSED',
	'EAI_AGAIN',
	'ENOTFOUND',
	'EHOSTUNREACH',
]);

export function isTimeout(info: BankErrorInfo): boolean {
	return !!info.networkCode && TIMEOUT_CODES.has(info.networkCode);
}

export function isNetworkFailure(info: BankErrorInfo): boolean {
	return (
		!info.status &&
		!!info.networkCode &&
		(TIMEOUT_CODES.has(info.networkCode) || DROPPED_CODES.has(info.networkCode))
	);
}

export interface BankErrorOptions {
	/** What was being done, e.g. "Get open trades". */
	operation?: string;
	itemIndex?: number;
	/** Secrets that must not appear in the error. */
	secrets?: string[];
	/** Replaces the message for a given HTTP status. */
	statusMessages?: Record<number, string>;
	/** Extra text appended to the description. */
	hint?: string;
}

/**
 * Turns a failed bank call into a BankFailure carrying the bank's own code and message. The
 * error is built from the extracted facts only: request headers, tokens and bodies sent are
 * never copied into it.
 */
export function bankFailure(error: unknown, options: BankErrorOptions = {}): BankFailure {
	// Errors raised before the request went out (token, TLS material) speak for themselves.
	const early = findInChain(error, 'TokenError') ?? findInChain(error, 'TlsConfigError');
	const info: BankErrorInfo = early ? { message: early.message } : extractErrorInfo(error);
	const secrets = options.secrets ?? [];
	const clean = (s: string | undefined) =>
		s === undefined ? undefined : redactSecrets(s, secrets);
	let message: string;
	const descriptionParts: string[] = [];
	const tls =
		describeTlsError(error) ??
		(info.networkCode
			? describeTlsError({ code: info.networkCode, message: info.networkMessage })
			: undefined);
	if (early) {
		message = early.message;
	} else if (info.status) {
		message =
			options.statusMessages?.[info.status] ??
			info.message ??
			`The bank answered HTTP ${info.status}`;
		if (info.code) descriptionParts.push(`Bank code: ${info.code}`);
		if (options.statusMessages?.[info.status] && info.message)
			descriptionParts.push(`Bank message: ${info.message}`);
		descriptionParts.push(`HTTP status: ${info.status}`);
	} else if (tls) {
		message = tls;
	} else if (info.networkCode) {
		message = isTimeout(info)
			? `The bank did not answer in time (${info.networkCode})`
			: `The connection to the bank failed (${info.networkCode})`;
	} else {
		message = (error as Error)?.message ?? 'The request to the bank failed';
	}
	if (info.details?.length) descriptionParts.push(...info.details);
	if (options.hint) descriptionParts.push(options.hint);
	const body: JsonObject = {
		message: clean(message) ?? '',
		...(info.code ? { code: info.code } : {}),
		...(info.status ? { httpCode: String(info.status) } : {}),
		...(info.networkCode ? { networkCode: info.networkCode } : {}),
	};
	const finalMessage =
		clean(options.operation ? `${options.operation}: ${message}` : message) ?? message;
	return new BankFailure(finalMessage, {
		body,
		description: clean(descriptionParts.join('\n')) || undefined,
		httpCode: info.status ? String(info.status) : undefined,
		itemIndex: options.itemIndex,
	});
}

/**
 * Whether a failed request that changes something at the bank (an execution, an upload, a
 * delete) may still have reached it and taken effect: a 5xx, a timeout
 * or a connection dropped after sending. A 4xx is a refusal, and a failure to get a token or to
 * complete the TLS handshake happens before the request is sent.
 */
export function outcomeUnknown(error: unknown): boolean {
	if (
		errorChainHas(error, 'TokenError') ||
		errorChainHas(error, 'TlsConfigError') ||
		describeTlsError(error)
	)
		return false;
	const info = extractErrorInfo(error);
	if (info.status !== undefined) return info.status >= 500;
	if (
		info.networkCode &&
		describeTlsError({ code: info.networkCode, message: info.networkMessage })
	)
		return false;
	if (
		info.networkCode === 'ECONNREFUSED' ||
		info.networkCode === 'ENOTFOUND' ||
		info.networkCode === 'EAI_AGAIN'
	)
		return false;
	return true;
}

/**
 * Network failures in words. n8n replaces a message that names a common network code (ECONNREFUSED,
 * ENOTFOUND and the like, in any case) with a generic text of its own, so messages that must reach
 * the user as written (the credential test's) say what happened without the code.
 */
const CONNECTION_WORDS: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused: nothing accepts connections at that address and port',
	ENOTFOUND: 'its host name was not found',
	EAI_AGAIN: 'its host name could not be looked up (the name server did not answer)',
	EHOSTUNREACH: 'the host cannot be reached from this network',
	ENETUNREACH: 'the host cannot be reached from this network',
	EADDRNOTAVAIL: 'the address cannot be used from this host',
	ECONNRESET: 'the connection was closed before an answer came',
	EPIPE: 'the connection was closed while the request was being sent',
	ERR_STREAM_PREMATURE_CLOSE: 'the connection was closed before an answer came',
	UND_ERR_SOCKET: 'the connection was closed before an answer came',
	ETIMEDOUT: 'no answer came in time',
	ECONNABORTED: 'no answer came in time',
	ESOCKETTIMEDOUT: 'no answer came in time',
	UND_ERR_HEADERS_TIMEOUT: 'no answer came in time',
	UND_ERR_BODY_TIMEOUT: 'the answer stopped coming',
};

/**
 * What went wrong with a request that got no HTTP answer, in words n8n shows as they are: a TLS
 * problem as describeTlsError words it, a network code in words, otherwise the error's message.
 */
export function describeConnectionFailure(error: unknown): string {
	const info = extractErrorInfo(error);
	const tls =
		describeTlsError(error) ??
		(info.networkCode
			? describeTlsError({ code: info.networkCode, message: info.networkMessage })
			: undefined);
	if (tls) return tls.replace(/\.$/, '');
	if (info.networkCode)
		return CONNECTION_WORDS[info.networkCode] ?? `the connection failed (${info.networkCode})`;
	if (/socket hang up/i.test((error as Error)?.message ?? ''))
		return 'the connection was closed before an answer came';
	return (error as Error)?.message ?? 'the request failed';
}
