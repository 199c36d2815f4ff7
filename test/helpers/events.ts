import { createPrivateKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { SandboxBank } from '../sandbox';
import { signPs256 } from '../sandbox/events';

/** Signs a SET with the sandbox bank's event key under its kid, for SETs the sandbox would never build. */
export function bankSigned(
	bank: SandboxBank,
	claims: Record<string, unknown>,
	header: Record<string, unknown> = {},
): string {
	const key = createPrivateKey(readFileSync(join(bank.tls.certDir, 'event-signing.key'), 'utf8'));
	return signPs256(
		{ alg: 'PS256', kid: bank.tls.eventKid, typ: 'secevent+jwt', ...header },
		claims,
		key,
	);
}

/** The claims of a resource-update SET from the sandbox bank, issued now under `jti`; `extra` added last. */
export function setClaims(
	bank: SandboxBank,
	jti: string,
	extra: Record<string, unknown> = {},
): Record<string, unknown> {
	const now = Math.floor(Date.now() / 1000);
	return {
		iss: bank.clients.eventsIssuer,
		aud: bank.clients.eventsAudience,
		iat: now,
		jti,
		sub: 'https://sandbox-bank.localhost/open-banking/v4.0/aisp/account-access-consents/x',
		txn: randomUUID(),
		toe: now,
		events: {
			'urn:uk:org:openbanking:events:resource-update': { subject: { subject_type: 'test' } },
		},
		...extra,
	};
}
