import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';

import type { ActiveFault, Area, RequestRecord } from './types';

export interface RequestContext {
	server: 'main' | 'mtls';
	req: IncomingMessage;
	res: ServerResponse;
	url: URL;
	area: Area;
	record: RequestRecord;
	/** Fault consumed by this request, if any. */
	fault?: ActiveFault;
	now: () => Date;
	/**
	 * Waits as a 'delay' or 'hold' fault says; false when the client gave up meanwhile and the
	 * request is no longer to be answered.
	 */
	pause: (fault: ActiveFault) => Promise<boolean>;
}

/** Faults that wait before processing (phase 'before') or before answering (phase 'after'). */
export const isPause = (fault: ActiveFault | undefined): fault is ActiveFault => fault?.kind === 'delay' || fault?.kind === 'hold';

export class BodyTooLargeError extends Error {
	constructor(readonly limit: number) {
		super(`Request body larger than ${limit} bytes`);
	}
}

/** Reads the request body, refusing (without buffering further) past `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = 1024 * 1024): Promise<Buffer> {
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
	return await new Promise<Buffer>((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let failed = false;
		const onData = (chunk: Buffer): void => {
			if (failed) return;
			size += chunk.length;
			if (size > limit) {
				failed = true;
				chunks.length = 0;
				req.off('data', onData);
				reject(new BodyTooLargeError(limit));
				return;
			}
			chunks.push(chunk);
		};
		req.on('data', onData);
		req.on('end', () => {
			if (!failed) resolve(Buffer.concat(chunks, size));
		});
		req.on('error', (error) => {
			if (!failed) reject(error);
		});
	});
}

/** Query parameters with case-insensitive names: lower-cased name -> values. */
export function queryParams(url: URL): Map<string, string[]> {
	const params = new Map<string, string[]>();
	for (const [name, value] of url.searchParams) {
		const key = name.toLowerCase();
		params.set(key, [...(params.get(key) ?? []), value]);
	}
	return params;
}

export function bearerToken(req: IncomingMessage): string | undefined {
	const header = req.headers.authorization;
	if (!header) return undefined;
	const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
	return match ? match[1] : undefined;
}

export const isoNow = (now: () => Date): string => now().toISOString();

/** The error body each area uses, for faults and generic failures. */
export function areaError(
	area: Area,
	status: number,
	message: string,
	now: () => Date,
): { contentType: string; body: string } {
	const timestamp = isoNow(now);
	const exception = exceptionName(status);
	switch (area) {
		case 'report':
			return json({ error: { exception, message, timestamp } });
		case 'execution':
			return json({ timestamp, exception, message });
		case 'mock':
			return json({ status: statusLabel(status), exceptionType: exception, details: message });
		case 'events':
			return json(openBankingError(status, message));
		case 'token':
		case 'mtlsToken':
			return json({
				error: status >= 500 ? 'server_error' : 'invalid_request',
				error_description: message,
			});
		case 'soap':
		case 'soapLarge':
			return {
				contentType: 'text/xml; charset=utf-8',
				body: soapFaultXml(
					status >= 500 ? 'soapenv:Server' : 'soapenv:Client',
					message,
					'technical',
					String(status),
				),
			};
		default:
			return json({ error: exception, message });
	}
}

function json(value: unknown): { contentType: string; body: string } {
	return { contentType: 'application/json', body: JSON.stringify(value) };
}

export function exceptionName(status: number): string {
	switch (status) {
		case 400:
			return 'BadRequest';
		case 401:
			return 'AuthenticationException';
		case 403:
			return 'Forbidden';
		case 404:
			return 'NotFound';
		case 413:
			return 'PayloadTooLarge';
		case 429:
			return 'TooManyRequests';
		case 502:
			return 'BadGateway';
		case 503:
			return 'ServiceUnavailable';
		case 504:
			return 'GatewayTimeout';
		default:
			return status >= 500 ? 'ServerError' : 'ClientError';
	}
}

const STATUS_LABELS: Record<number, string> = {
	400: 'BAD_REQUEST',
	401: 'UNAUTHORIZED',
	403: 'FORBIDDEN',
	404: 'NOT_FOUND',
	405: 'METHOD_NOT_ALLOWED',
	413: 'PAYLOAD_TOO_LARGE',
	429: 'TOO_MANY_REQUESTS',
	500: 'INTERNAL_SERVER_ERROR',
	502: 'BAD_GATEWAY',
	503: 'SERVICE_UNAVAILABLE',
	504: 'GATEWAY_TIMEOUT',
};

/** "503 SERVICE_UNAVAILABLE" style label used by the mock error bodies. */
export function statusLabel(status: number): string {
	return `${status} ${STATUS_LABELS[status] ?? 'ERROR'}`;
}

const OB_ERROR_CODES: Record<number, string> = {
	400: 'UK.OBIE.Field.Invalid',
	401: 'UK.OBIE.Unauthorized',
	403: 'UK.OBIE.Resource.Forbidden',
	404: 'UK.OBIE.Resource.NotFound',
	500: 'UK.OBIE.UnexpectedError',
};

/** Open Banking error body {Code, Id, Message, Errors[]}. */
export function openBankingError(
	status: number,
	message: string,
	path?: string,
	errorCode?: string,
): Record<string, unknown> {
	return {
		Code: statusLabel(status).replace('_', ' '),
		Id: randomUUID(),
		Message: message,
		Errors: [
			{
				ErrorCode: errorCode ?? OB_ERROR_CODES[status] ?? 'UK.OBIE.UnexpectedError',
				Message: message,
				...(path ? { Path: path } : {}),
				Url: 'https://openbankinguk.github.io/read-write-api-site3/v4.0/profiles/aggregated-polling-api-profile.html',
			},
		],
	};
}

export function xmlEscape(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;');
}

export const SOAP_ENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SERVICE_NS = 'http://bxd.fi/CorporateFileService';
export const MODEL_NS = 'http://model.bxd.fi';

/** SOAP 1.1 fault with a FileServiceFaultElement detail. */
export function soapFaultXml(
	faultCode: string,
	faultString: string,
	category?: string,
	code?: string,
): string {
	const detail =
		category !== undefined || code !== undefined
			? `<detail><cor:FileServiceFaultElement xmlns:cor="${SERVICE_NS}" xmlns:mod="${MODEL_NS}">` +
				(category !== undefined ? `<mod:category>${xmlEscape(category)}</mod:category>` : '') +
				(code !== undefined ? `<mod:code>${xmlEscape(code)}</mod:code>` : '') +
				'</cor:FileServiceFaultElement></detail>'
			: '';
	return (
		'<?xml version="1.0" encoding="UTF-8"?>' +
		`<soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}"><soapenv:Body><soapenv:Fault>` +
		`<faultcode>${faultCode}</faultcode><faultstring>${xmlEscape(faultString)}</faultstring>` +
		detail +
		'</soapenv:Fault></soapenv:Body></soapenv:Envelope>'
	);
}

export const HTML_ERROR_PAGE =
	'<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>sandbox-gateway</center></body></html>\n';

export const MAINTENANCE_PAGE =
	'<html><head><title>Service maintenance</title></head><body><p>The service is under maintenance. Please try again later.</p></body></html>\n';

function dropConnection(ctx: RequestContext): void {
	ctx.record.status = 0;
	ctx.req.socket.destroy();
}

export function isClosed(ctx: RequestContext): boolean {
	return ctx.res.writableEnded || ctx.res.destroyed || ctx.req.socket.destroyed;
}

/** Answers a fault that replaces the response (status, html, nonJson200, drop). */
export function sendFaultReplacement(ctx: RequestContext, fault: ActiveFault): void {
	switch (fault.kind) {
		case 'drop':
			dropConnection(ctx);
			return;
		case 'html':
			writeRaw(
				ctx,
				fault.status ?? 502,
				{ 'content-type': 'text/html; charset=utf-8' },
				HTML_ERROR_PAGE,
			);
			return;
		case 'nonJson200':
			writeRaw(ctx, 200, { 'content-type': 'text/html; charset=utf-8' }, MAINTENANCE_PAGE);
			return;
		default: {
			const status = fault.status ?? 500;
			const { contentType, body } = areaError(
				ctx.area,
				status,
				fault.message ?? `Injected fault: HTTP ${status}`,
				ctx.now,
			);
			writeRaw(ctx, status, { 'content-type': contentType }, body);
		}
	}
}

function writeRaw(
	ctx: RequestContext,
	status: number,
	headers: OutgoingHttpHeaders,
	body: string | Buffer,
): void {
	if (isClosed(ctx)) return;
	const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
	ctx.record.status = status;
	ctx.res.writeHead(status, { ...headers, 'content-length': payload.length });
	ctx.res.end(payload);
}

/**
 * Sends a response, applying the request's "after" and "malformed" faults.
 * Every handler answers through this function.
 */
export function send(
	ctx: RequestContext,
	status: number,
	headers: OutgoingHttpHeaders,
	body: string | Buffer,
): void {
	const fault = ctx.fault;
	if (
		fault &&
		fault.phase === 'after' &&
		(fault.kind === 'status' ||
			fault.kind === 'drop' ||
			fault.kind === 'html' ||
			fault.kind === 'nonJson200')
	) {
		sendFaultReplacement(ctx, fault);
		return;
	}
	let payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
	if (fault?.kind === 'malformed') payload = garble(payload);
	if (isPause(fault) && fault.phase === 'after') {
		void ctx.pause(fault).then((answer) => {
			if (answer) writeRaw(ctx, status, headers, payload);
		});
		return;
	}
	writeRaw(ctx, status, headers, payload);
}

export function sendJson(
	ctx: RequestContext,
	status: number,
	value: unknown,
	headers: OutgoingHttpHeaders = {},
): void {
	send(ctx, status, { 'content-type': 'application/json', ...headers }, JSON.stringify(value));
}

/** Truncates a body so that it no longer parses (JSON or XML). */
export function garble(payload: Buffer): Buffer {
	if (payload.length <= 2) return Buffer.from('{"');
	const cut = Math.max(1, Math.floor(payload.length / 2));
	return Buffer.concat([payload.subarray(0, cut), Buffer.from('\u0000<"', 'utf8')]);
}

export async function sleep(ms: number): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
}

/** True when `value` is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
