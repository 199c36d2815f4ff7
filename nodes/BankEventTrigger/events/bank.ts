import { randomUUID } from 'node:crypto';
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { MTLS_AUTH } from '../../shared/common/credentialFields';
import type { BankFailure } from '../../shared/common/errors';
import { bankFailure } from '../../shared/transport/errors';
import { redactSecrets } from '../../shared/transport/redact';
import { bankRequest } from '../../shared/transport/request';
import { DEFAULT_RETRY } from '../../shared/transport/retry';
import type { KeyResolver } from './keys';
import {
	JwksKeyResolver,
	JwksUnavailableError,
	NOT_JSON,
	parseJson,
	StaticKeyResolver,
} from './keys';
import type { TriggerSettings } from './settings';
import type { SetError } from './verify';

/** The body of one polling request (RFC 8936 section 2.4). */
export interface PollRequestBody {
	maxEvents: number;
	returnImmediately: boolean;
	ack: string[];
	setErrs: Record<string, SetError>;
}

/** The bank's answer: SETs by jti, and whether more are waiting (missing counts as false). */
export interface PollAnswer {
	sets: Array<[string, unknown]>;
	moreAvailable: boolean;
}

export class MalformedAnswerError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'MalformedAnswerError';
	}
}

function parseAnswer(body: unknown): PollAnswer {
	const doc = parseJson(body);
	if (doc === NOT_JSON)
		throw new MalformedAnswerError(
			'The bank answered the event poll with something that is not JSON',
		);
	if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
		throw new MalformedAnswerError(
			'The bank answered the event poll with something that is not a JSON object',
		);
	}
	const { sets, moreAvailable } = doc as IDataObject;
	if (!sets || typeof sets !== 'object' || Array.isArray(sets)) {
		throw new MalformedAnswerError('The bank\'s answer to the event poll has no "sets" object');
	}
	return {
		sets: Object.entries(sets as Record<string, unknown>),
		moreAvailable: moreAvailable === true,
	};
}

/**
 * One POST to the events endpoint through the shared transport: the credential adds the client
 * certificate and the bearer token, n8n renews the token after a 401. Sending a poll twice is
 * harmless (acknowledgements are idempotent, SETs delivered twice are recognised), so failures are
 * retried. Every attempt carries its own x-fapi-interaction-id.
 */
export async function requestEvents(
	ctx: IPollFunctions,
	settings: TriggerSettings,
	body: PollRequestBody,
): Promise<PollAnswer> {
	const headers: IDataObject = {
		'Content-Type': 'application/json',
		'x-fapi-interaction-id': randomUUID(),
	};
	const response = await bankRequest<unknown>(ctx, MTLS_AUTH, {
		method: 'POST',
		url: settings.eventsUrl,
		headers,
		body: body as unknown as IDataObject,
		json: true,
		idempotent: true,
		retry: DEFAULT_RETRY,
		timeoutMs: settings.requestTimeoutMs,
		onRetry: (error, attempt, delayMs) => {
			headers['x-fapi-interaction-id'] = randomUUID();
			ctx.logger.debug(
				redactSecrets(
					`Bank Event Trigger: event poll attempt ${attempt} failed (${describeError(error, settings)}); retrying in ${delayMs} ms`,
					settings.secrets,
				),
			);
		},
	});
	return parseAnswer(response.body);
}

/**
 * The resolver for SET signing keys: the JWKS (fetched through the transport with the bank's CA) or
 * the PEM key.
 */
export function keyResolver(ctx: IPollFunctions, settings: TriggerSettings): KeyResolver {
	const source = settings.keySource;
	if (source.kind === 'pem') return new StaticKeyResolver(source.key);
	return new JwksKeyResolver(source.url, source.ttlMs, async (url) => {
		const outcome = await bankRequest<unknown>(ctx, undefined, {
			method: 'GET',
			url,
			idempotent: true,
			retry: DEFAULT_RETRY,
			tls: settings.publicTls,
			timeoutMs: settings.requestTimeoutMs,
		}).then(
			(response) => ({ ok: true as const, body: response.body }),
			(error: unknown) => ({ ok: false as const, error }),
		);
		if (!outcome.ok)
			throw new JwksUnavailableError(
				`Could not fetch the bank's JWKS: ${describeError(outcome.error, settings)}`,
				outcome.error,
			);
		return outcome.body;
	});
}

/**
 * A failure in words for the log, without secrets: the bank's message, code and status when it sent
 * them.
 */
export function describeError(error: unknown, settings: TriggerSettings): string {
	if (error instanceof MalformedAnswerError || error instanceof JwksUnavailableError)
		return redactSecrets(error.message, settings.secrets);
	const failure = bankFailure(error, { secrets: settings.secrets });
	const description =
		failure.description && !failure.message.includes(failure.description)
			? failure.description
			: '';
	const details = description ? ` (${description.split('\n').join('; ')})` : '';
	return redactSecrets(`${failure.message}${details}`, settings.secrets);
}

/**
 * The failure shown in the editor, with the bank's message and code: a JWKS that could not be
 * fetched is reported as that request's failure.
 */
export function editorFailure(
	error: unknown,
	settings: TriggerSettings,
	operation: string,
): BankFailure {
	const cause = error instanceof JwksUnavailableError ? error.cause : undefined;
	if (cause)
		return bankFailure(cause, { operation: "Fetch the bank's JWKS", secrets: settings.secrets });
	return bankFailure(error, { operation, secrets: settings.secrets });
}
