import {
	createHash,
	createPrivateKey,
	createPublicKey,
	randomUUID,
	sign as cryptoSign,
	constants,
	type KeyObject,
} from 'node:crypto';

import {
	bearerToken,
	isRecord,
	openBankingError,
	readBody,
	sendJson,
	type RequestContext,
} from './http';
import { describeTokenFailure, type TokenStore } from './tokens';
import type { EventSpec, EventTypeName, FaultKind, QueuedEvent, SandboxStats } from './types';

export const EVENT_TYPE_PREFIX = 'urn:uk:org:openbanking:events:';
const OB = 'http://openbanking.org.uk';

const b64url = (value: Buffer | string): string => Buffer.from(value).toString('base64url');

/** RFC 7638 thumbprint of an RSA public key, used as a stable kid. */
export function rsaThumbprint(publicKey: KeyObject): string {
	const jwk = publicKey.export({ format: 'jwk' });
	const canonical = JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n });
	return createHash('sha256').update(canonical).digest('base64url');
}

/** Compact JWS with PS256. */
export function signPs256(
	header: Record<string, unknown>,
	claims: Record<string, unknown>,
	key: KeyObject,
): string {
	const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
	const signature = cryptoSign('sha256', Buffer.from(input), {
		key,
		padding: constants.RSA_PKCS1_PSS_PADDING,
		saltLength: 32,
	});
	return `${input}.${b64url(signature)}`;
}

type Defect = NonNullable<EventSpec['defect']>;

const FAULT_DEFECTS: Partial<Record<FaultKind, Defect>> = {
	eventBadSignature: 'badSignature',
	eventUnknownKid: 'unknownKid',
	eventWrongAudience: 'wrongAudience',
	eventWrongIssuer: 'wrongIssuer',
};

export interface EventServiceOptions {
	signingKeyPem: string;
	rogueKeyPem: string;
	issuer: string;
	audience: string;
	/** Base URL used in resource links of event subjects. */
	resourceBase: string;
	stats: SandboxStats;
	tokens: TokenStore;
	now: () => Date;
}

/** Default and upper bound of maxEvents. */
const DEFAULT_MAX_EVENTS = 20;
const MAX_EVENTS_LIMIT = 100;

export class EventService {
	private readonly key: KeyObject;
	private readonly rogueKey: KeyObject;
	readonly kid: string;
	private queue = new Map<string, QueuedEvent>();
	private counter = 0;

	constructor(private readonly options: EventServiceOptions) {
		this.key = createPrivateKey(options.signingKeyPem);
		this.rogueKey = createPrivateKey(options.rogueKeyPem);
		this.kid = rsaThumbprint(createPublicKey(this.key));
	}

	jwks(): { keys: Array<Record<string, unknown>> } {
		const jwk = createPublicKey(this.key).export({ format: 'jwk' });
		return { keys: [{ kty: 'RSA', use: 'sig', alg: 'PS256', kid: this.kid, n: jwk.n, e: jwk.e }] };
	}

	private sign(claims: Record<string, unknown>, defect?: Defect): string {
		const effective = { ...claims };
		if (defect === 'wrongAudience') effective.aud = 'some-other-client';
		if (defect === 'wrongIssuer') effective.iss = 'https://issuer.invalid/';
		const kid = defect === 'unknownKid' ? `unknown-${this.kid.slice(0, 8)}` : this.kid;
		const key = defect === 'badSignature' ? this.rogueKey : this.key;
		return signPs256({ alg: 'PS256', kid, typ: 'secevent+jwt' }, effective, key);
	}

	private claimsFor(spec: Partial<EventSpec>): Record<string, unknown> {
		this.counter += 1;
		const nowSeconds = Math.floor(this.options.now().getTime() / 1000);
		const shortType = (spec.type ?? 'resource-update') as EventTypeName | string;
		const type = shortType.includes(':') ? shortType : `${EVENT_TYPE_PREFIX}${shortType}`;
		const consentId = `aac-sbx-${String(this.counter).padStart(4, '0')}`;
		const consentUrl = `${this.options.resourceBase}/open-banking/v4.0/aisp/account-access-consents/${consentId}`;
		let resourceType = spec.resourceType;
		let resourceId = spec.resourceId;
		if (!resourceType || !resourceId) {
			if (type.endsWith(':account-access-consent-linked-account-update')) {
				resourceType = resourceType ?? 'account';
				resourceId = resourceId ?? `acc-sbx-${String(this.counter).padStart(4, '0')}`;
			} else {
				resourceType = resourceType ?? 'account-access-consent';
				resourceId = resourceId ?? consentId;
			}
		}
		const link =
			resourceType === 'account'
				? `${this.options.resourceBase}/open-banking/v4.0/aisp/accounts/${resourceId}`
				: `${this.options.resourceBase}/open-banking/v4.0/aisp/${resourceType}s/${resourceId}`;
		const subject = {
			subject_type: `${OB}/rid_${OB}/rty`,
			[`${OB}/rid`]: resourceId,
			[`${OB}/rty`]: resourceType,
			[`${OB}/rlk`]: [{ version: 'v4.0', link }],
		};
		const eventBody: Record<string, unknown> = { subject, ...(spec.eventData ?? {}) };
		if (type.endsWith(':consent-authorization-revoked') && !spec.eventData?.reason) {
			eventBody.reason = 'CustomerRevokedConsent';
		}
		const jti = randomUUID();
		return {
			iss: this.options.issuer,
			iat: nowSeconds,
			jti,
			aud: this.options.audience,
			sub: spec.sub ?? consentUrl,
			txn: spec.txn ?? randomUUID(),
			toe: spec.toe ?? nowSeconds,
			events: { [type]: eventBody },
		};
	}

	/** Queues new SETs: a number (resource-update events) or a list of partial specs. */
	enqueue(events: number | Array<Partial<EventSpec>>): string[] {
		const specs: Array<Partial<EventSpec>> =
			typeof events === 'number' ? Array.from({ length: events }, () => ({})) : events;
		const jtis: string[] = [];
		for (const spec of specs) {
			const claims = this.claimsFor(spec);
			const jti = String(claims.jti);
			this.queue.set(jti, {
				jti,
				claims,
				jws: this.sign(claims, spec.defect),
				deliveries: 0,
				defect: spec.defect,
			});
			jtis.push(jti);
		}
		return jtis;
	}

	pending(): string[] {
		return [...this.queue.keys()];
	}

	get(jti: string): QueuedEvent | undefined {
		const item = this.queue.get(jti);
		return item ? { ...item } : undefined;
	}

	clear(): void {
		this.queue.clear();
	}

	/** POST /events on the mutual-TLS server. */
	async handle(ctx: RequestContext, certFingerprint: string | undefined): Promise<void> {
		const interactionId = String(ctx.req.headers['x-fapi-interaction-id'] ?? randomUUID());
		const headers = { 'x-fapi-interaction-id': interactionId };
		const fail = (status: number, message: string, path?: string, code?: string): void =>
			sendJson(ctx, status, openBankingError(status, message, path, code), headers);
		if (ctx.req.method !== 'POST') {
			fail(405, 'Only POST is supported.', undefined, 'UK.OBIE.NotSupported');
			return;
		}
		const check = this.options.tokens.check(bearerToken(ctx.req), 'mtls');
		if (!check.ok) {
			fail(401, describeTokenFailure(check.reason), undefined, 'UK.OBIE.Unauthorized');
			return;
		}
		if (check.token.certFingerprint && check.token.certFingerprint !== certFingerprint) {
			fail(
				401,
				'The access token is bound to another client certificate.',
				undefined,
				'UK.OBIE.Unauthorized',
			);
			return;
		}
		const raw = await readBody(ctx.req, 1024 * 1024);
		let body: unknown;
		try {
			body = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
		} catch {
			fail(400, 'Request body is not valid JSON.', undefined, 'UK.OBIE.Resource.InvalidFormat');
			return;
		}
		if (!isRecord(body)) {
			fail(400, 'Request body must be a JSON object.', undefined, 'UK.OBIE.Resource.InvalidFormat');
			return;
		}
		const { maxEvents, returnImmediately, ack, setErrs } = body;
		if (maxEvents !== undefined && (!Number.isInteger(maxEvents) || (maxEvents as number) < 0)) {
			fail(400, 'maxEvents must be a non-negative integer.', 'maxEvents');
			return;
		}
		if (returnImmediately !== undefined && typeof returnImmediately !== 'boolean') {
			fail(400, 'returnImmediately must be a boolean.', 'returnImmediately');
			return;
		}
		if (
			ack !== undefined &&
			(!Array.isArray(ack) || !ack.every((item) => typeof item === 'string' && item.length <= 128))
		) {
			fail(400, 'ack must be an array of jti strings.', 'ack');
			return;
		}
		if (setErrs !== undefined) {
			if (!isRecord(setErrs)) {
				fail(400, 'setErrs must be an object keyed by jti.', 'setErrs');
				return;
			}
			for (const [jti, value] of Object.entries(setErrs)) {
				if (!isRecord(value) || typeof value.err !== 'string') {
					fail(400, `setErrs.${jti} must be an object with an err string.`, `setErrs.${jti}`);
					return;
				}
			}
		}
		this.options.stats.eventPolls += 1;
		for (const jti of (ack as string[] | undefined) ?? []) {
			this.options.stats.eventsAcked.push(jti);
			this.queue.delete(jti);
		}
		for (const [jti, value] of Object.entries(
			(setErrs as Record<string, Record<string, unknown>> | undefined) ?? {},
		)) {
			this.options.stats.setErrsReceived[jti] = {
				err: String(value.err),
				...(typeof value.description === 'string' ? { description: value.description } : {}),
			};
			this.queue.delete(jti);
		}
		const limit = Math.min(
			(maxEvents as number | undefined) ?? DEFAULT_MAX_EVENTS,
			MAX_EVENTS_LIMIT,
		);
		const chosen = [...this.queue.values()].slice(0, limit);
		const defect = ctx.fault ? FAULT_DEFECTS[ctx.fault.kind] : undefined;
		const sets: Record<string, string> = {};
		for (const item of chosen) {
			item.deliveries += 1;
			this.options.stats.eventsDelivered.push(item.jti);
			sets[item.jti] = defect ? this.sign(item.claims, defect) : item.jws;
		}
		const response: Record<string, unknown> = { sets };
		if (ctx.fault?.kind !== 'eventOmitMoreAvailable')
			response.moreAvailable = this.queue.size > chosen.length;
		sendJson(ctx, 200, response, headers);
	}
}
