import { compactVerify, errors } from 'jose';
import type { IDataObject } from 'n8n-workflow';

import type { KeyResolver } from './keys';
import { KeyProblem } from './keys';

/** The RFC 8935 error codes a receiver reports back for a SET it refuses. */
export type SetErrCode = 'invalid_request' | 'invalid_key' | 'invalid_issuer' | 'invalid_audience';

export interface SetError {
	err: SetErrCode;
	description: string;
}

/** The claims of a SET whose signature and claims were checked. */
export interface VerifiedSet {
	jti: string;
	iss: string;
	aud: string | string[];
	sub?: string;
	txn?: string;
	/** Seconds since the epoch. */
	iat: number;
	toe?: number;
	/** Event type URI -> event payload, in the order of the SET. */
	events: Record<string, IDataObject>;
}

export type Verdict = { ok: true; set: VerifiedSet } | { ok: false; error: SetError };

export interface VerifyOptions {
	issuer: string;
	audience: string;
	algorithms: string[];
	clockToleranceSeconds: number;
	keys: KeyResolver;
	/** Current time in seconds (tests). */
	now?: () => number;
}

const SECEVENT_TYPES = new Set(['secevent+jwt', 'application/secevent+jwt']);
const decoder = new TextDecoder();

const refuse = (err: SetErrCode, description: string): Verdict => ({
	ok: false,
	error: { err, description },
});

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Seconds since the epoch that a date can hold (JavaScript dates reach ±8.64e15 ms). */
function isTime(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= 8.64e12;
}

function quote(value: unknown): string {
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return `"${text.length > 120 ? `${text.slice(0, 120)}…` : text}"`;
}

/**
 * Maps a failure of the signature check to its RFC 8935 code; rethrows what is not about this SET.
 */
function signatureVerdict(error: unknown): Verdict {
	if (error instanceof KeyProblem) return refuse('invalid_key', error.message);
	if (error instanceof errors.JWSSignatureVerificationFailed) {
		return refuse('invalid_key', "The signature does not verify with the bank's key");
	}
	if (error instanceof errors.JOSEAlgNotAllowed)
		return refuse('invalid_key', 'The SET is signed with an algorithm that is not allowed');
	if (error instanceof errors.JOSENotSupported)
		return refuse('invalid_key', `The SET's signature cannot be checked: ${error.message}`);
	if (error instanceof errors.JWSInvalid)
		return refuse('invalid_request', `The SET is not a valid compact JWS: ${error.message}`);
	if (error instanceof errors.JOSEError) return refuse('invalid_key', error.message);
	// jose reports a key of the wrong type or size for the algorithm as a TypeError.
	if (error instanceof TypeError)
		return refuse('invalid_key', `The bank's key cannot verify this SET: ${error.message}`);
	throw error;
}

/**
 * Checks one SET: its signature (key chosen by kid), `typ`, and the claims `jti` (must match the
 * key it was delivered under), `iss`, `aud`, `iat` (not in the future beyond the tolerance),
 * `exp` if present, `events`, and the types of `sub`, `txn` and `toe`. Returns the claims, or the
 * RFC 8935 error to report to the bank. Errors that are not about the SET itself (the JWKS cannot
 * be fetched) are thrown, so that the SET is neither acknowledged nor refused.
 */
export async function verifySet(
	jws: unknown,
	jti: string,
	options: VerifyOptions,
): Promise<Verdict> {
	if (typeof jws !== 'string' || !jws) return refuse('invalid_request', 'The SET is not a string');
	let header: Record<string, unknown> = {};
	let payload: Uint8Array;
	try {
		const result = await compactVerify(
			jws,
			async (protectedHeader) => {
				header = protectedHeader as Record<string, unknown>;
				return await options.keys.resolve(protectedHeader.kid, String(protectedHeader.alg));
			},
			{ algorithms: options.algorithms },
		);
		payload = result.payload;
		header = result.protectedHeader as Record<string, unknown>;
	} catch (error) {
		return signatureVerdict(error);
	}
	if (
		header.typ !== undefined &&
		!(typeof header.typ === 'string' && SECEVENT_TYPES.has(header.typ.toLowerCase()))
	) {
		return refuse(
			'invalid_request',
			`The SET header has typ ${quote(header.typ)}, expected "secevent+jwt"`,
		);
	}

	let claims: unknown;
	try {
		claims = JSON.parse(decoder.decode(payload));
	} catch {
		return refuse('invalid_request', 'The SET payload is not JSON');
	}
	if (!isObject(claims)) return refuse('invalid_request', 'The SET payload is not a JSON object');

	if (typeof claims.jti !== 'string' || !claims.jti)
		return refuse('invalid_request', 'The SET has no jti claim');
	if (claims.jti !== jti)
		return refuse(
			'invalid_request',
			`The SET's jti claim ${quote(claims.jti)} differs from the jti it was delivered under`,
		);

	if (typeof claims.iss !== 'string' || !claims.iss)
		return refuse('invalid_request', 'The SET has no iss claim');
	if (claims.iss !== options.issuer)
		return refuse(
			'invalid_issuer',
			`The SET's issuer ${quote(claims.iss)} is not the expected issuer`,
		);

	const aud = claims.aud;
	const audiences =
		typeof aud === 'string'
			? [aud]
			: Array.isArray(aud) && aud.every((a) => typeof a === 'string')
				? (aud as string[])
				: undefined;
	if (!audiences || !audiences.length)
		return refuse('invalid_request', 'The SET has no valid aud claim');
	if (!audiences.includes(options.audience))
		return refuse(
			'invalid_audience',
			`The SET's audience ${quote(aud)} does not include the expected audience`,
		);

	const now = options.now ? options.now() : Date.now() / 1000;
	if (!isTime(claims.iat))
		return refuse('invalid_request', 'The SET has no valid numeric iat claim');
	if (claims.iat > now + options.clockToleranceSeconds) {
		return refuse(
			'invalid_request',
			`The SET was issued in the future (iat ${new Date(claims.iat * 1000).toISOString()})`,
		);
	}
	if (claims.exp !== undefined) {
		if (!isTime(claims.exp))
			return refuse('invalid_request', 'The SET has an exp claim that is not a valid time');
		if (claims.exp < now - options.clockToleranceSeconds)
			return refuse('invalid_request', 'The SET has expired');
	}
	if (claims.toe !== undefined && !isTime(claims.toe))
		return refuse('invalid_request', 'The SET has a toe claim that is not a valid time');
	if (claims.sub !== undefined && typeof claims.sub !== 'string')
		return refuse('invalid_request', 'The SET has a sub claim that is not a string');
	if (claims.txn !== undefined && typeof claims.txn !== 'string')
		return refuse('invalid_request', 'The SET has a txn claim that is not a string');

	const events = claims.events;
	if (!isObject(events) || !Object.keys(events).length)
		return refuse('invalid_request', 'The SET has no events claim');
	for (const [type, payloadOfType] of Object.entries(events)) {
		if (!isObject(payloadOfType))
			return refuse('invalid_request', `The event ${quote(type)} of the SET is not a JSON object`);
	}

	return {
		ok: true,
		set: {
			jti,
			iss: claims.iss,
			aud: aud as string | string[],
			sub: claims.sub as string | undefined,
			txn: claims.txn as string | undefined,
			iat: claims.iat,
			toe: claims.toe as number | undefined,
			events: events as Record<string, IDataObject>,
		},
	};
}
