import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

import type { IHttpRequestOptions } from 'n8n-workflow';

import { BankHttpStatusError } from './errors';
import type { ClientTlsOptions } from './tls';

/**
 * Keep-alive connections to the bank, for requests that may be sent twice (reads, event polls).
 *
 * n8n's request helpers open a new connection, with a full TLS handshake, for every request. A
 * Return All over hundreds of pages or a trigger polling every few seconds then spends most of its
 * time connecting: over a network each handshake costs two round trips. Here each TLS identity (CA,
 * client certificate and key, verification switch) has one agent whose idle connections are reused,
 * so a client certificate is never presented on a connection opened for another one.
 */

export interface PooledRequestOptions {
	method: string;
	url: string;
	headers: Record<string, string>;
	/** Sent as it is; the caller serialises JSON and forms. */
	body?: string | Buffer;
	timeoutMs: number;
	tls?: ClientTlsOptions;
	/** 'buffer': the body as one Buffer; otherwise parsed as JSON when it is JSON, else text. */
	responseType?: 'buffer';
	signal?: AbortSignal;
	/**
	 * Whether a request that failed on a connection closed while idle is sent again at once on a
	 * new one (default true: for requests that may be sent twice). False hands that failure back.
	 */
	resendStale?: boolean;
}

export interface PooledResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/**
 * Idle connections are closed after this long, or sooner when the bank announces a shorter
 * keep-alive.
 */
const IDLE_MS = 30_000;
/** Agents kept at most; the least recently used one is closed beyond that. */
const MAX_AGENTS = 32;
/** How many closed idle connections one request may run into before it gives up. */
const STALE_RETRIES = 4;

const agents = new Map<string, http.Agent>();
const identities = new WeakMap<object, string>();

function identityOf(tls: ClientTlsOptions | undefined): string {
	if (!tls) return 'default';
	// A ready TLS context stands for its material; the verification switch is not part of it.
	const holder: object = tls.secureContext ?? tls;
	const verify = tls.rejectUnauthorized !== false ? 'verify' : 'no-verify';
	let id = identities.get(holder);
	if (!id) {
		id = createHash('sha256')
			.update(JSON.stringify([tls.ca ?? '', tls.cert ?? '', tls.key ?? '', tls.passphrase ?? '']))
			.digest('hex');
		identities.set(holder, id);
	}
	return `${id}:${verify}`;
}

function agentFor(protocol: string, tls: ClientTlsOptions | undefined): http.Agent {
	const key = `${protocol}${identityOf(tls)}`;
	const existing = agents.get(key);
	if (existing) {
		agents.delete(key);
		agents.set(key, existing);
		return existing;
	}
	const common = {
		keepAlive: true,
		keepAliveMsecs: 10_000,
		timeout: IDLE_MS,
		scheduling: 'lifo' as const,
	};
	const agent =
		protocol === 'https:'
			? new https.Agent({
					...common,
					...(tls?.secureContext
						? { secureContext: tls.secureContext }
						: { ca: tls?.ca, cert: tls?.cert, key: tls?.key, passphrase: tls?.passphrase }),
					rejectUnauthorized: tls?.rejectUnauthorized !== false,
				})
			: new http.Agent(common);
	agents.set(key, agent);
	if (agents.size > MAX_AGENTS) {
		const [oldestKey, oldest] = agents.entries().next().value as [string, http.Agent];
		agents.delete(oldestKey);
		oldest.destroy();
	}
	return agent;
}

/** Closes every pooled connection (tests, shutdown). */
export function closePooledConnections(): void {
	for (const agent of agents.values()) agent.destroy();
	agents.clear();
}

/**
 * Whether requests may use pooled connections here. When n8n is set to send requests through a
 * proxy, or to check them against its SSRF rules, requests go through n8n's helper instead, which
 * applies those settings.
 */
export function poolingAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
	const proxy = [
		'HTTPS_PROXY',
		'https_proxy',
		'HTTP_PROXY',
		'http_proxy',
		'ALL_PROXY',
		'all_proxy',
	].some((name) => !!env[name]?.trim());
	const ssrf = /^(true|1)$/i.test(env.N8N_SSRF_PROTECTION_ENABLED?.trim() ?? '');
	return !proxy && !ssrf;
}

function decoderFor(encoding: string | undefined): NodeJS.ReadWriteStream | undefined {
	switch ((encoding ?? '').trim().toLowerCase()) {
		case 'gzip':
		case 'x-gzip':
			return zlib.createGunzip();
		case 'deflate':
			return zlib.createInflate();
		case 'br':
			return zlib.createBrotliDecompress();
		default:
			return undefined;
	}
}

function parseBody(bytes: Buffer, responseType: PooledRequestOptions['responseType']): unknown {
	if (responseType === 'buffer') return bytes;
	const text = bytes.toString('utf8');
	if (!text) return text;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/**
 * Requests in flight per cancellation signal. The signal gets one listener for all of them: adding
 * and removing an event listener for each of hundreds of pages costs more than the page itself.
 */
const inFlight = new WeakMap<AbortSignal, Set<() => void>>();

function onCancel(signal: AbortSignal, cancel: () => void): () => void {
	let requests = inFlight.get(signal);
	if (!requests) {
		const created = new Set<() => void>();
		requests = created;
		inFlight.set(signal, created);
		signal.addEventListener(
			'abort',
			() => {
				for (const fn of [...created]) fn();
			},
			{ once: true },
		);
	}
	const set = requests;
	set.add(cancel);
	return () => set.delete(cancel);
}

function networkError(message: string, code: string): Error {
	return Object.assign(new Error(message), { code });
}

interface Attempt {
	response?: PooledResponse;
	error?: Error;
	/** The failure happened on a reused connection before any answer arrived. */
	stale: boolean;
}

function sendOnce(url: URL, options: PooledRequestOptions): Promise<Attempt> {
	return new Promise((resolve) => {
		const lib = url.protocol === 'https:' ? https : http;
		let settled = false;
		let answered = false;
		let forget: (() => void) | undefined;
		const finish = (attempt: Attempt) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			forget?.();
			resolve(attempt);
		};
		const req = lib.request(
			url,
			{
				method: options.method,
				headers: options.headers,
				agent: agentFor(url.protocol, options.tls),
			},
			(res) => {
				answered = true;
				const chunks: Buffer[] = [];
				const decoder = decoderFor(res.headers['content-encoding'] as string | undefined);
				const source: NodeJS.ReadableStream = decoder ? res.pipe(decoder) : res;
				const onError = (error: Error) =>
					finish({
						error: (error as { code?: string }).code
							? error
							: networkError(error.message, 'ECONNRESET'),
						stale: false,
					});
				res.on('error', onError);
				res.on('aborted', () =>
					onError(
						networkError('The connection closed before the whole answer arrived', 'ECONNRESET'),
					),
				);
				decoder?.on('error', onError);
				source.on('data', (chunk: Buffer) => chunks.push(chunk));
				source.on('end', () =>
					finish({
						response: {
							statusCode: res.statusCode ?? 0,
							headers: res.headers,
							body: parseBody(Buffer.concat(chunks), options.responseType),
						},
						stale: false,
					}),
				);
			},
		);
		const fail = (error: Error) => {
			finish({ error, stale: false });
			req.destroy(error);
		};
		// The whole exchange, answer included, must finish in time (as with n8n's helper).
		const timer = setTimeout(
			() => fail(networkError(`timeout of ${options.timeoutMs}ms exceeded`, 'ECONNABORTED')),
			options.timeoutMs,
		);
		const onAbort = () => fail(networkError('The request was cancelled', 'ERR_CANCELED'));
		req.on('error', (error) => finish({ error, stale: req.reusedSocket && !answered }));
		if (options.signal?.aborted) {
			onAbort();
			return;
		}
		if (options.signal) forget = onCancel(options.signal, onAbort);
		req.end(options.body);
	});
}

/**
 * The request n8n's helper would send for these options, for a pooled connection: query, headers
 * and body serialised.
 */
export function pooledOptionsFrom(
	options: IHttpRequestOptions,
	signal?: AbortSignal,
): PooledRequestOptions {
	let url = options.url;
	const query = Object.entries(options.qs ?? {}).filter(
		([, value]) => value !== undefined && value !== null,
	);
	if (options.baseURL || query.length) {
		const parsed = new URL(options.url, options.baseURL);
		for (const [name, value] of query) {
			for (const one of Array.isArray(value) ? value : [value])
				parsed.searchParams.append(name, String(one));
		}
		url = parsed.toString();
	}
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(options.headers ?? {})) {
		if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
	}
	headers['user-agent'] ??= 'n8n';
	headers['accept-encoding'] ??= 'gzip, deflate, br';
	let body: string | Buffer | undefined;
	const raw: unknown = options.body;
	if (typeof raw === 'string' || Buffer.isBuffer(raw)) {
		body = raw;
	} else if (raw instanceof URLSearchParams) {
		body = raw.toString();
		headers['content-type'] ??= 'application/x-www-form-urlencoded';
	} else if (
		raw !== undefined &&
		raw !== null &&
		!(typeof raw === 'object' && Object.keys(raw).length === 0 && options.method === 'GET')
	) {
		body = JSON.stringify(raw);
		headers['content-type'] ??= 'application/json';
	}
	return {
		method: options.method ?? 'GET',
		url,
		headers,
		body,
		timeoutMs: options.timeout ?? 60000,
		tls: options.agentOptions as ClientTlsOptions | undefined,
		responseType: options.encoding === 'arraybuffer' ? 'buffer' : undefined,
		signal,
	};
}

/**
 * Sends a request over a pooled connection. A connection the bank closed while it was idle fails
 * on first use; such a request is sent again at once on a new connection, which is why only
 * requests that may be sent twice come here, unless `resendStale` is false (then that failure is
 * thrown); `onResend` hears of each such re-send. Statuses of 300 or more are thrown.
 */
export async function pooledRequest(
	options: PooledRequestOptions,
	onResend?: (error: Error) => void,
): Promise<PooledResponse> {
	const url = new URL(options.url);
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		throw new Error(`Unsupported URL protocol ${url.protocol}`);
	let attempt = await sendOnce(url, options);
	// Several idle connections may have been closed at once; each is found out on first use.
	for (
		let i = 0;
		attempt.error && attempt.stale && options.resendStale !== false && i < STALE_RETRIES;
		i++
	) {
		onResend?.(attempt.error);
		attempt = await sendOnce(url, options);
	}
	if (attempt.error) throw attempt.error;
	const response = attempt.response!;
	if (response.statusCode < 200 || response.statusCode >= 300) {
		throw new BankHttpStatusError({
			status: response.statusCode,
			headers: response.headers,
			data: response.body,
		});
	}
	return response;
}
