import { clearTokenMemo } from '../../nodes/shared/transport/token';
import type { CredentialStore } from '../harness/engine';
import { createCredentialStore } from '../harness/engine';
import type { SandboxBank, SandboxOptions } from '../sandbox';
import { startSandbox } from '../sandbox';

export const CC = 'corporateBankingClientCredentialsApi';
export const MTLS = 'corporateBankingMtlsApi';
export const FILES = 'corporateBankingFileServiceApi';

/** Credential ids used in tests: one credential of each type, pointing at the sandbox. */
export const CREDENTIAL_IDS = { [CC]: 'cc-1', [MTLS]: 'mtls-1', [FILES]: 'files-1' } as const;

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
