import { createHash } from 'node:crypto';
import type { IDataObject, IHttpRequestHelper, IHttpRequestOptions } from 'n8n-workflow';

import { extractErrorInfo } from './errors';
import { pooledOptionsFrom, pooledRequest, poolingAllowed } from './pool';
import { redactSecrets } from './redact';
import type { ClientTlsOptions } from './tls';
import { describeTlsError } from './tls';

/** The longest a token is trusted, whatever the bank says (SPEC: valid one hour). */
export const MAX_TOKEN_LIFETIME_S = 3600;
/** Tokens are renewed this long before they expire (half the lifetime for short-lived ones). */
export const TOKEN_REFRESH_MARGIN_S = 60;

/** The moment to stop using a token of the given lifetime: a margin before it really expires. */
export function renewalTime(issuedAt: number, lifetimeSeconds: number): number {
	const margin = Math.min(TOKEN_REFRESH_MARGIN_S, lifetimeSeconds / 2);
	return issuedAt + (lifetimeSeconds - margin) * 1000;
}

export interface TokenRequest {
	tokenUrl: string;
	clientId: string;
	scope: string;
	tls?: ClientTlsOptions;
	timeoutMs?: number;
}

export interface IssuedToken {
	accessToken: string;
	/**
	 * Epoch milliseconds after which the token is renewed instead of used (before it really expires).
	 */
	expiresAt: number;
}

/**
 * A token's lifetime in seconds. The bank documents `expires_in` once as seconds (3600 in the
 * examples) and once as milliseconds; a value above one hour is read as milliseconds, and no
 * token is trusted for more than one hour.
 */
export function tokenLifetimeSeconds(expiresIn: unknown): number {
	const n = typeof expiresIn === 'string' ? Number(expiresIn) : (expiresIn as number);
	if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return MAX_TOKEN_LIFETIME_S;
	const seconds = n > MAX_TOKEN_LIFETIME_S ? n / 1000 : n;
	return Math.min(seconds, MAX_TOKEN_LIFETIME_S);
}

/** True when a stored token is missing or due for renewal. */
export function tokenNeedsRefresh(
	accessToken: unknown,
	renewAt: unknown,
	now = Date.now(),
): boolean {
	if (typeof accessToken !== 'string' || accessToken === '') return true;
	const at = typeof renewAt === 'number' ? renewAt : Number(renewAt);
	if (!Number.isFinite(at) || at <= 0) return true;
	return at <= now;
}

export class TokenError extends Error {
	constructor(
		message: string,
		readonly httpStatus?: number,
		readonly bankCode?: string,
	) {
		super(message);
		this.name = 'TokenError';
	}
}

interface MemoEntry {
	token?: IssuedToken;
	inflight?: Promise<IssuedToken>;
}

const memo = new Map<string, MemoEntry>();

function memoKey(req: TokenRequest): string {
	return createHash('sha256')
		.update([req.tokenUrl, req.clientId, req.scope, req.tls?.cert ?? ''].join('\u0000'))
		.digest('hex');
}

/** Forgets every token held in this process (tests; a credential edited in place). */
export function clearTokenMemo(): void {
	memo.clear();
}

/**
 * Forgets a token the bank has refused, so the next renewal asks the bank instead of reusing it.
 */
export function forgetToken(accessToken: string): void {
	for (const entry of memo.values()) {
		if (entry.token?.accessToken === accessToken) entry.token = undefined;
	}
}

function parseJsonBody(raw: unknown): IDataObject | undefined {
	if (raw && typeof raw === 'object' && !Buffer.isBuffer(raw)) return raw as IDataObject;
	const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : '';
	try {
		const parsed: unknown = JSON.parse(text);
		return parsed && typeof parsed === 'object' ? (parsed as IDataObject) : undefined;
	} catch {
		return undefined;
	}
}

async function requestToken(
	helpers: IHttpRequestHelper['helpers'],
	req: TokenRequest,
): Promise<IssuedToken> {
	const form = new URLSearchParams({
		grant_type: 'client_credentials',
		scope: req.scope,
		client_id: req.clientId,
	}).toString();
	const options: IHttpRequestOptions = {
		method: 'POST',
		url: req.tokenUrl,
		headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
		body: form,
		json: false,
		timeout: req.timeoutMs ?? 30000,
	};
	if (req.tls) options.agentOptions = req.tls;
	// Asking for a token twice is harmless, so it may use a pooled connection, which the requests
	// made with the token then reuse.
	const send = poolingAllowed()
		? async () => (await pooledRequest(pooledOptionsFrom(options))).body
		: async () => await helpers.httpRequest(options);
	const outcome = await send().then(
		(value: unknown) => ({ ok: true as const, value }),
		(error: unknown) => ({ ok: false as const, error }),
	);
	if (!outcome.ok) {
		const error = outcome.error;
		const info = extractErrorInfo(error);
		const tls =
			describeTlsError(error) ??
			describeTlsError({ code: info.networkCode, message: info.networkMessage });
		const resetWithCertificate =
			!tls &&
			!!req.tls?.cert &&
			(info.networkCode === 'ECONNRESET' || info.networkCode === 'EPIPE');
		const reason = info.status
			? `the bank answered HTTP ${info.status}${info.code ? ` (${info.code})` : ''}${info.message ? `: ${info.message}` : ''}`
			: (tls ??
				(resetWithCertificate
					? `the bank closed the connection during the TLS handshake (${info.networkCode}). It may have refused the client certificate: check that the credential's Client Certificate is the one registered with the bank and is signed by a CA the bank trusts.`
					: info.networkCode
						? `the connection failed (${info.networkCode})`
						: (error as Error).message));
		throw new TokenError(
			redactSecrets(`Could not get an access token: ${reason}`, [req.clientId]),
			info.status,
			info.code,
		);
	}
	const body = parseJsonBody(outcome.value);
	if (!body)
		throw new TokenError(
			'Could not get an access token: the token endpoint did not answer with JSON',
		);
	const accessToken = body?.access_token;
	if (typeof accessToken !== 'string' || !accessToken) {
		throw new TokenError('Could not get an access token: the answer has no access_token');
	}
	const tokenType = typeof body.token_type === 'string' ? body.token_type : 'Bearer';
	if (tokenType.toLowerCase() !== 'bearer') {
		throw new TokenError(`Could not get an access token: unsupported token_type "${tokenType}"`);
	}
	return { accessToken, expiresAt: renewalTime(Date.now(), tokenLifetimeSeconds(body.expires_in)) };
}

/**
 * Gets a client-credentials token. Concurrent callers in one process share one request; a token
 * another caller of this process already renewed is reused instead of asking again, unless it is
 * the very token the caller holds (which the bank has just refused).
 */
export async function getClientCredentialsToken(
	helpers: IHttpRequestHelper['helpers'],
	req: TokenRequest,
	staleToken?: string,
): Promise<IssuedToken> {
	const key = memoKey(req);
	let entry = memo.get(key);
	if (!entry) {
		entry = {};
		memo.set(key, entry);
	}
	const held = entry.token;
	if (
		held &&
		held.accessToken !== staleToken &&
		!tokenNeedsRefresh(held.accessToken, held.expiresAt)
	) {
		return held;
	}
	let inflight = entry.inflight;
	if (!inflight) {
		const current = entry;
		inflight = requestToken(helpers, req)
			.then((token) => {
				current.token = token;
				return token;
			})
			.finally(() => {
				current.inflight = undefined;
			});
		current.inflight = inflight;
	}
	return await inflight;
}
