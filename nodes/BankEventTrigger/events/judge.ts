import { redactSecrets } from '../../shared/transport/redact';
import type { Outcome } from './items';
import { chooseEventType, eventItem, rejectedItem } from './items';
import type { KeyResolver } from './keys';
import type { TriggerSettings } from './settings';
import { verifySet } from './verify';

/**
 * Verifies one SET and decides what becomes of it: an item, a refusal (with its RFC 8935 code and
 * an item for the Rejected output), or a skip when its type is not one the user asked for.
 * Throws only when the SET cannot be judged at all (the JWKS is unreachable).
 */
export async function judgeSet(
	jti: string,
	jws: unknown,
	settings: TriggerSettings,
	keys: KeyResolver,
): Promise<Outcome> {
	const verdict = await verifySet(jws, jti, {
		issuer: settings.issuer,
		audience: settings.audience,
		algorithms: settings.algorithms,
		clockToleranceSeconds: settings.clockToleranceSeconds,
		keys,
	});
	const raw = settings.includeRawSet ? jws : undefined;
	if (!verdict.ok) {
		const error = {
			err: verdict.error.err,
			description: redactSecrets(verdict.error.description, settings.secrets),
		};
		return { kind: 'rejected', error, item: rejectedItem(jti, error, raw) };
	}
	const eventType = chooseEventType(verdict.set, settings.eventTypes);
	if (eventType === undefined)
		return { kind: 'skipped', eventTypes: Object.keys(verdict.set.events) };
	return { kind: 'event', item: eventItem(verdict.set, eventType, raw as string | undefined) };
}
