import { createPublicKey, type KeyObject } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IDataObject, IPollFunctions } from 'n8n-workflow';
import { MTLS_AUTH, tlsFromCredentials, trimUrl } from '../../shared/common/credentialFields';
import { InputError } from '../../shared/common/errors';
import type { ClientTlsOptions } from '../../shared/transport/tls';
import { normalizePem } from '../../shared/transport/tls';
import { DEFAULTS } from '../description';

export const CREDENTIAL_TYPE = MTLS_AUTH.type;

const CREDENTIAL_HINT =
	'Fix this field in the Corporate Banking Mutual TLS API credential of the node.';

export type KeySource =
	| { kind: 'jwks'; url: string; ttlMs: number }
	| { kind: 'pem'; key: KeyObject };

/** Everything one poll needs, read from the node's parameters and checked once. */
export interface TriggerSettings {
	eventsUrl: string;
	maxEvents: number;
	returnImmediately: boolean;
	keySource: KeySource;
	issuer: string;
	audience: string;
	algorithms: string[];
	/** Event types to emit (full URIs or their last segment); empty: all. */
	eventTypes: string[];
	includeRawSet: boolean;
	maxEventsPerPoll: number;
	maxSecondsPerPoll: number;
	dedupeWindow: number;
	clockToleranceSeconds: number;
	requestTimeoutMs: number;
	/** TLS for requests made without the credential (the JWKS): the bank's CA only. */
	publicTls?: ClientTlsOptions;
	/** Values that must never appear in output, errors or logs. */
	secrets: string[];
}

function httpsUrl(field: string, value: string): string {
	const url = URL.canParse(value) ? new URL(value) : undefined;
	if (!url) throw new InputError(`${field}: "${value}" is not an absolute URL`);
	if (url.protocol !== 'https:')
		throw new InputError(`${field}: must be an https:// URL (got ${url.protocol}//)`);
	return url.toString();
}

function wholeNumber(field: string, value: unknown, min: number): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n) || Math.floor(n) !== n || n < min)
		throw new InputError(
			`${field}: must be a whole number of at least ${min}, got ${JSON.stringify(value)}`,
		);
	return n;
}

function readPublicKey(value: unknown): KeyObject {
	const pem = normalizePem(value);
	if (!pem) throw new InputError('Public Key: required when the Key Source is a PEM public key');
	const key = attemptPublicKey(pem);
	if (!key)
		throw new InputError(
			'Public Key: not a PEM public key or certificate ("-----BEGIN PUBLIC KEY-----")',
		);
	return key;
}

function attemptPublicKey(pem: string): KeyObject | undefined {
	try {
		return createPublicKey(pem);
	} catch {
		return undefined;
	}
}

/** A credential field that cannot be used, with where to fix it. */
function credentialFieldError(message: string): InputError {
	return new InputError(message, { description: CREDENTIAL_HINT });
}

/** The credential's TLS material, checked; a field that cannot be read is named. */
function credentialTls(credentials: ICredentialDataDecryptedObject): ClientTlsOptions | undefined {
	try {
		return tlsFromCredentials(credentials);
	} catch (error) {
		throw credentialFieldError((error as Error).message);
	}
}

/** The TLS settings for a public endpoint of the bank: its CA, never the client certificate. */
function publicTls(tls: ClientTlsOptions): ClientTlsOptions | undefined {
	const out: ClientTlsOptions = {};
	if (tls.ca) out.ca = tls.ca;
	if (tls.rejectUnauthorized === false) out.rejectUnauthorized = false;
	return Object.keys(out).length ? out : undefined;
}

function list(value: unknown): string[] {
	if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter(Boolean);
	if (typeof value === 'string')
		return value
			.split(',')
			.map((v) => v.trim())
			.filter(Boolean);
	return [];
}

/**
 * Reads and checks the node's parameters and the credential's TLS material. The credential is
 * checked here, before any connection, so an expired or unreadable certificate is reported with
 * the name of its field.
 */
export async function readSettings(ctx: IPollFunctions): Promise<TriggerSettings> {
	const credentials = (await ctx.getCredentials(CREDENTIAL_TYPE)) as ICredentialDataDecryptedObject;
	const secrets = [credentials.clientId, credentials.accessToken, credentials.passphrase].filter(
		(s): s is string => typeof s === 'string' && s.length > 0,
	);
	const tls = credentialTls(credentials);
	if (!tls?.cert)
		throw credentialFieldError(
			'Client Certificate: required. The bank accepts event polling only over mutual TLS.',
		);

	const rawEventsUrl = String(ctx.getNodeParameter('eventsUrl', '') ?? '').trim();
	const eventsUrl = httpsUrl(
		'Events URL',
		rawEventsUrl || `${trimUrl(credentials.baseUrl)}/events`,
	);
	const options = ctx.getNodeParameter('options', {}) as IDataObject;

	const sourceKind = ctx.getNodeParameter('keySource', 'jwks') as string;
	let keySource: KeySource;
	if (sourceKind === 'pem') {
		keySource = { kind: 'pem', key: readPublicKey(ctx.getNodeParameter('publicKey', '')) };
	} else {
		const jwksUrl = String(ctx.getNodeParameter('jwksUrl', '') ?? '').trim();
		if (!jwksUrl) throw new InputError('JWKS URL: required when the Key Source is a JWKS URL');
		const minutes = wholeNumber(
			'JWKS Cache (Minutes)',
			options.jwksCacheMinutes ?? DEFAULTS.jwksCacheMinutes,
			0,
		);
		keySource = { kind: 'jwks', url: httpsUrl('JWKS URL', jwksUrl), ttlMs: minutes * 60000 };
	}

	const issuer = String(ctx.getNodeParameter('issuer', '') ?? '').trim();
	if (!issuer)
		throw new InputError("Expected Issuer: required (the iss claim of the bank's events)");
	const audience = String(ctx.getNodeParameter('audience', '') ?? '').trim();
	if (!audience)
		throw new InputError("Expected Audience: required (the aud claim of the bank's events)");
	const algorithms = list(ctx.getNodeParameter('algorithms', ['PS256']));
	if (!algorithms.length) throw new InputError('Allowed Algorithms: choose at least one');
	if (algorithms.some((a) => a.toLowerCase() === 'none')) {
		throw new InputError('Allowed Algorithms: "none" is never accepted');
	}

	const eventTypes = [
		...list(ctx.getNodeParameter('eventTypes', [])),
		...list(options.otherEventTypes),
	];
	const maxEvents = wholeNumber(
		'Max Events per Request',
		ctx.getNodeParameter('maxEvents', DEFAULTS.maxEvents),
		1,
	);

	return {
		eventsUrl,
		maxEvents,
		returnImmediately: ctx.getNodeParameter('returnImmediately', true) !== false,
		keySource,
		issuer,
		audience,
		algorithms,
		eventTypes,
		includeRawSet: options.includeRawSet === true,
		maxEventsPerPoll:
			wholeNumber(
				'Max Events per Poll',
				options.maxEventsPerPoll ?? DEFAULTS.maxEventsPerPoll,
				0,
			) || maxEvents,
		maxSecondsPerPoll: wholeNumber(
			'Max Seconds per Poll',
			options.maxSecondsPerPoll ?? DEFAULTS.maxSecondsPerPoll,
			1,
		),
		dedupeWindow: wholeNumber('Dedupe Window', options.dedupeWindow ?? DEFAULTS.dedupeWindow, 100),
		clockToleranceSeconds: wholeNumber(
			'Clock Tolerance',
			options.clockToleranceSeconds ?? DEFAULTS.clockToleranceSeconds,
			0,
		),
		requestTimeoutMs:
			wholeNumber(
				'Request Timeout',
				options.requestTimeoutSeconds ?? DEFAULTS.requestTimeoutSeconds,
				1,
			) * 1000,
		publicTls: publicTls(tls),
		secrets,
	};
}
