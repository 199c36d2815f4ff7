import { clearTokenMemo } from '../../nodes/shared/transport/token';
import type { CredentialStore } from '../harness/engine';
import { createCredentialStore } from '../harness/engine';
import type { SandboxBank, SandboxOptions } from '../sandbox';
import { startSandbox } from '../sandbox';
import { CC, CREDENTIAL_IDS, FILES, MTLS } from './nodes';

export { CC, CREDENTIAL_IDS, FILES, MTLS };

/** A trade as the bank's execution API takes it: DKK bought against 1,000,000 EUR sold, in a month. */
export const TRADE_BODY = { counterpart: 'DEMOCP1', buyCurrency: 'DKK', sellCurrency: 'EUR', amount: 1000000, amountSide: 'SELL', baseSide: 'SELL', tenor: '1M' };

/** The same trade as the FX Trade Execution node's parameters. */
export const TRADE = { operation: 'executeTrade', ...TRADE_BODY, maturityType: 'tenor' };

/** A credential store holding the sandbox's ready-to-paste values, with optional overrides. */
export function sandboxCredentials(bank: SandboxBank, overrides: Partial<Record<string, Record<string, unknown>>> = {}): CredentialStore {
	const values = bank.credentialValues();
	return createCredentialStore(
		Object.entries(CREDENTIAL_IDS).map(([type, id]) => ({
			id,
			name: `${type} (sandbox)`,
			type,
			data: { ...values[type], ...(overrides[type] ?? {}) } as Record<string, string>,
		})),
	);
}

/** A credential store holding one File Service credential with these values, under the tests' id. */
export function fileServiceStore(data: Record<string, unknown>): CredentialStore {
	return createCredentialStore([{ id: CREDENTIAL_IDS[FILES], name: 'files', type: FILES, data: data as Record<string, string> }]);
}

/**
 * The Mutual TLS credential fields that let its token go to a trigger's Events URL on another host
 * (a stand-in relaying the bank's events), as a user would set them for such an endpoint.
 */
export function allowEventsUrl(parameters: Record<string, unknown> | undefined): Record<string, unknown> {
	const url = parameters?.eventsUrl;
	return typeof url === 'string' && url.startsWith('https://') ? { otherAllowedUrls: url } : {};
}

/** Starts a sandbox bank for one test file and stops it afterwards. */
export function useSandbox(options: SandboxOptions = {}): { bank: () => SandboxBank } {
	let bank: SandboxBank | undefined;
	beforeAll(async () => {
		bank = await startSandbox({ seed: 42, ...options });
	});
	afterAll(async () => {
		await bank?.stop();
	});
	beforeEach(() => {
		bank?.resetAll();
		clearTokenMemo();
	});
	return {
		bank: () => {
			if (!bank) throw new Error('sandbox not started');
			return bank;
		},
	};
}
