import { randomBytes } from 'node:crypto';

import { readBody, send, sendJson, type RequestContext } from './http';
import type { SandboxStats } from './types';

export type TokenKind = 'client' | 'mtls';

interface IssuedToken {
	kind: TokenKind;
	clientId: string;
	scope: string;
	expiresAt: number;
	/** Accepted uses so far (for `maxUses`). */
	uses: number;
	/** SHA-256 fingerprint of the client certificate the token is bound to (mTLS tokens). */
	certFingerprint?: string;
}

export type TokenCheck =
	| { ok: true; token: IssuedToken }
	| { ok: false; reason: 'missing' | 'unknown' | 'expired' | 'wrongKind' };

export class TokenStore {
	private tokens = new Map<string, IssuedToken>();
	/** When set, a token expires after this many accepted uses (a bank shortening sessions). */
	maxUses?: number;

	constructor(
		readonly ttlSeconds: number,
		private readonly now: () => Date,
	) {}

	issue(kind: TokenKind, clientId: string, scope: string, certFingerprint?: string): string {
		const token = randomBytes(32).toString('base64url');
		this.tokens.set(token, {
			kind,
			clientId,
			scope,
			certFingerprint,
			uses: 0,
			expiresAt: this.now().getTime() + this.ttlSeconds * 1000,
		});
		return token;
	}

	check(token: string | undefined, kind: TokenKind): TokenCheck {
		if (!token) return { ok: false, reason: 'missing' };
		const issued = this.tokens.get(token);
		if (!issued) return { ok: false, reason: 'unknown' };
		if (issued.expiresAt <= this.now().getTime()) return { ok: false, reason: 'expired' };
		if (issued.kind !== kind) return { ok: false, reason: 'wrongKind' };
		issued.uses += 1;
		if (this.maxUses && issued.uses >= this.maxUses) issued.expiresAt = 0;
		return { ok: true, token: issued };
	}

	/** Makes every issued token expired. */
	expireAll(): void {
		for (const token of this.tokens.values()) token.expiresAt = 0;
	}

	activeCount(): number {
		const now = this.now().getTime();
		return [...this.tokens.values()].filter((token) => token.expiresAt > now).length;
	}

	clear(): void {
		this.tokens.clear();
	}
}

export function describeTokenFailure(reason: Exclude<TokenCheck, { ok: true }>['reason']): string {
	switch (reason) {
		case 'missing':
			return 'Authorization header with a Bearer token is required.';
		case 'expired':
			return 'Token expired.';
		case 'wrongKind':
			return 'The token is not valid for this API.';
		default:
			return 'Session token validation failed: unknown token.';
	}
}

export interface TokenEndpointOptions {
	kind: TokenKind;
	clientId: string;
	store: TokenStore;
	stats: SandboxStats;
	/** Required for mTLS: fingerprint and common name of the presented client certificate. */
	certFingerprint?: string;
	certCommonName?: string;
	expectedCommonName?: string;
}

function parseForm(body: Buffer): Record<string, string> {
	const form: Record<string, string> = {};
	for (const [name, value] of new URLSearchParams(body.toString('utf8'))) form[name] = value;
	return form;
}

function oauthError(ctx: RequestContext, status: number, error: string, description: string): void {
	sendJson(ctx, status, { error, error_description: description }, { 'cache-control': 'no-store' });
}

/**
 * POST token endpoint (client credentials). B/C: token_type Bearer with metadata;
 * D (mTLS, tls_client_auth): token_type bearer, certificate-bound.
 */
export async function handleTokenRequest(
	ctx: RequestContext,
	options: TokenEndpointOptions,
): Promise<void> {
	if (options.kind === 'client') options.stats.tokenRequests += 1;
	else options.stats.mtlsTokenRequests += 1;
	if (ctx.req.method !== 'POST') {
		send(
			ctx,
			405,
			{ allow: 'POST', 'content-type': 'application/json' },
			JSON.stringify({ error: 'invalid_request', error_description: 'Use POST.' }),
		);
		return;
	}
	const contentType = String(ctx.req.headers['content-type'] ?? '').toLowerCase();
	const body = await readBody(ctx.req, 64 * 1024);
	if (!contentType.startsWith('application/x-www-form-urlencoded')) {
		oauthError(
			ctx,
			400,
			'invalid_request',
			'Content-Type must be application/x-www-form-urlencoded.',
		);
		return;
	}
	const form = parseForm(body);
	if (!form.grant_type) {
		oauthError(ctx, 400, 'invalid_request', 'grant_type is required.');
		return;
	}
	if (form.grant_type !== 'client_credentials') {
		oauthError(ctx, 400, 'unsupported_grant_type', 'Only client_credentials is supported.');
		return;
	}
	if (!form.client_id || form.client_id !== options.clientId) {
		oauthError(
			ctx,
			401,
			'invalid_client',
			form.client_id ? 'Unknown client_id.' : 'client_id is required.',
		);
		return;
	}
	if (
		options.kind === 'mtls' &&
		options.expectedCommonName &&
		options.certCommonName !== options.expectedCommonName
	) {
		oauthError(
			ctx,
			401,
			'invalid_client',
			'The client certificate is not registered for this client_id.',
		);
		return;
	}
	const scope = form.scope ?? '';
	if (!scope.split(/[\s,]+/).includes('accounts')) {
		oauthError(ctx, 401, 'invalid_scope', 'scope must contain accounts.');
		return;
	}
	const token = options.store.issue(options.kind, form.client_id, scope, options.certFingerprint);
	if (options.kind === 'client') options.stats.tokensIssued += 1;
	else options.stats.mtlsTokensIssued += 1;
	const issuedAt = Math.floor(ctx.now().getTime() / 1000);
	const response: Record<string, unknown> =
		options.kind === 'client'
			? {
					token_type: 'Bearer',
					access_token: token,
					metadata: `a:consentid:sandbox-${form.client_id}`,
					expires_in: options.store.ttlSeconds,
					consented_on: issuedAt,
					scope,
				}
			: {
					token_type: 'bearer',
					access_token: token,
					expires_in: options.store.ttlSeconds,
					consented_on: issuedAt,
					scope,
				};
	sendJson(ctx, 200, response, { 'cache-control': 'no-store', pragma: 'no-cache' });
}
