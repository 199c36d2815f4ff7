/**
 * The EBICS credential and node through the n8n engine against the sandbox EBICS bank: a store
 * holding one EBICS credential, n8n's credential test on it, runs of the node, what the
 * credential keeps, and the secrets that must never show.
 */
import { X509Certificate } from 'node:crypto';

import type { ICredentialDataDecryptedObject, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { formatHash, publicKeyDigest, type EbicsSubscriberKeys } from '../../nodes/shared/ebics';
import { readEbicsState, type EbicsState } from '../../nodes/shared/ebics/credential/ebicsCredential';
import { chainWorkflow, createCredentialStore, runWorkflow, type CredentialStore, type RunResult } from '../harness/engine';
import { testCredential, type CredentialTestAnswer } from '../harness/credentialTest';
import { SecretRegistry } from '../reliability/lib/secrets';
import type { SandboxBank } from '../sandbox';
import { INSPECT_FILE, streamedFileNodes } from './binaryNodes';
import { CREDENTIAL_IDS, EBICS, NODE_NAME, PACKAGE, packageCredentialTypes, packageNodeTypes, runNode } from './nodes';

export { EBICS };
export const EBICS_ID = CREDENTIAL_IDS[EBICS];

/** A sandbox subscriber's credential values (READY1: imported keys; others: keys made in n8n). */
export function ebicsValues(bank: SandboxBank, partnerId = 'PARTNER2', userId = 'READY1', overrides: Record<string, unknown> = {}): Record<string, unknown> {
	const ready = bank.credentialValues()[EBICS] as Record<string, unknown>;
	const settings = bank.ebicsClient(partnerId, userId);
	const own = partnerId === 'PARTNER2' && userId === 'READY1';
	const base = own
		? ready
		: {
				url: ready.url,
				hostId: ready.hostId,
				partnerId,
				userId,
				bankAuthenticationHash: settings.bankHashes.authentication,
				bankEncryptionHash: settings.bankHashes.encryption,
				subscriberName: 'Erika Mustermann, Sandbox Customer GmbH',
				bankName: 'Sandbox Bank',
				caCertificate: ready.caCertificate,
				keySource: 'generate',
			};
	return { ...base, ...overrides };
}

/** A key's hash as EBICS 2.5 letters print it: SHA-256 of exponent and modulus. */
export function h004KeyHash(certificatePem: string): string {
	return formatHash(publicKeyDigest(new X509Certificate(certificatePem).publicKey));
}

/** The bank's EBICS 2.5 letter as credential fields: the hashes of its bare keys. */
export function bankH004Hashes(bank: SandboxBank): { bankAuthenticationHash: string; bankEncryptionHash: string } {
	return { bankAuthenticationHash: h004KeyHash(bank.ebics.bankAuthentication.certificatePem), bankEncryptionHash: h004KeyHash(bank.ebics.bankEncryption.certificatePem) };
}

/** A credential store holding one EBICS credential under the tests' id. */
export function ebicsStore(values: Record<string, unknown>): CredentialStore {
	return createCredentialStore([{ id: EBICS_ID, name: 'EBICS (sandbox)', type: EBICS, data: values as ICredentialDataDecryptedObject }]);
}

/** n8n's credential test of the store's EBICS credential, as the editor runs it on "Save". */
export async function credentialTest(store: CredentialStore, values?: Record<string, unknown>): Promise<CredentialTestAnswer> {
	return await testCredential({ store, credentialTypes: packageCredentialTypes(), id: EBICS_ID, values });
}

/** Runs Manual Trigger -> EBICS with these parameters (binary data on the filesystem). */
export async function runEbics(store: CredentialStore, parameters: IDataObject, inputItems?: INodeExecutionData[], settings?: Partial<INode>): Promise<RunResult> {
	return await runNode({ type: 'ebics', parameters, credentials: { [EBICS]: EBICS_ID }, store, inputItems, settings, binaryDataMode: 'filesystem' });
}

/**
 * Manual Trigger -> EBICS ("Bank") -> Inspect File, which reads each item's binary "data" back
 * from n8n's filesystem storage (SHA-256, size, name, type, first bytes), as a next node would.
 */
export async function runEbicsThenInspect(store: CredentialStore, parameters: IDataObject): Promise<RunResult> {
	return await runWorkflow({
		workflow: chainWorkflow(
			[
				{ name: NODE_NAME, type: `${PACKAGE}.ebics`, parameters },
				{ name: 'Inspect', type: INSPECT_FILE, parameters: {} },
			],
			{ [`${PACKAGE}.ebics`]: { [EBICS]: { id: EBICS_ID, name: 'EBICS (sandbox)' } } },
		),
		nodeTypes: { ...packageNodeTypes(), ...streamedFileNodes() },
		credentialTypes: packageCredentialTypes(),
		credentials: store,
		binaryDataMode: 'filesystem',
	});
}

/** The execution hints the EBICS node gave its output (090005, receipts not confirmed, ...). */
export function hints(result: RunResult): string[] {
	return (result.runData[NODE_NAME]?.[0]?.hints ?? []).map((h) => h.message);
}

export function stored(store: CredentialStore): ICredentialDataDecryptedObject {
	return store.get(EBICS_ID)!.data;
}

export function storedState(store: CredentialStore): EbicsState | undefined {
	return readEbicsState(stored(store).ebicsState);
}

/**
 * After a key change `order` went through: the credential keeps no pending change, records the
 * change, and uses new keys exactly where the order replaces them. Returns the keys in use.
 */
export function expectKeysChanged(store: CredentialStore, order: string, before: EbicsSubscriberKeys): EbicsSubscriberKeys {
	const after = storedState(store)!;
	expect(after.keyChange).toBeUndefined();
	expect(after.keysChanged).toMatchObject({ order });
	const now = after.generated!;
	expect(now.signature.certificatePem === before.signature.certificatePem).toBe(order === 'HCA');
	expect(now.authentication.certificatePem === before.authentication.certificatePem).toBe(order === 'PUB');
	expect(now.encryption.certificatePem === before.encryption.certificatePem).toBe(order === 'PUB');
	return now;
}

/** The node's error as text (message and description), for assertions. */
export function errorText(result: RunResult): string {
	const error = result.nodeError(NODE_NAME) as (Error & { description?: string }) | undefined;
	return `${error?.message ?? ''}\n${error?.description ?? ''}`;
}

/** Output items of the EBICS node (throws with the node's error when the run failed). */
export function items(result: RunResult): INodeExecutionData[] {
	if (result.status !== 'success') throw new Error(`the run failed: ${errorText(result)}`);
	return result.output(NODE_NAME);
}

/**
 * Every private key an EBICS credential of the store held (generated ones in its state, before
 * and after each write; imported ones), and the sandbox's ready subscriber's keys.
 */
export function ebicsSecrets(bank: SandboxBank, store: CredentialStore): SecretRegistry {
	const secrets = new SecretRegistry();
	const ready = bank.ebicsClient('PARTNER2', 'READY1').subscriberKeys!;
	for (const [use, pair] of Object.entries(ready)) secrets.addPem(`ready subscriber ${use} key`, pair.privateKeyPem);
	for (const data of [...store.history.map((h) => h.data), stored(store)]) {
		const state = readEbicsState((data as IDataObject).ebicsState);
		for (const [use, pair] of Object.entries(state?.generated ?? {})) secrets.addPem(`generated ${use} key`, pair.privateKeyPem);
		for (const field of ['signaturePrivateKey', 'authenticationPrivateKey', 'encryptionPrivateKey'])
			if (typeof data[field] === 'string') secrets.addPem(`imported ${field}`, data[field] as string);
		if (typeof data.keyPassphrase === 'string') secrets.add('key passphrase', data.keyPassphrase);
	}
	return secrets;
}

/** The sandbox's EBICS requests of a subscriber, as [order type, phase, technical, business] rows. */
export function bankRecords(bank: SandboxBank, userId?: string): string[][] {
	return bank.ebics.records
		.filter((r) => !userId || r.userId === userId)
		.map((r) => [r.orderType ?? r.root, r.phase ?? '', r.technical, r.business]);
}

/** What Get Bank Parameters (HPD) gives for the sandbox bank; EBICS 2.5 adds the X.509 flags. */
export function sandboxBankParameters(version: 'H004' | 'H005'): IDataObject {
	return {
		hostId: 'SBXEBICS',
		institute: 'Sandbox Bank',
		urls: [{ url: 'https://sandbox.invalid/ebics', validFrom: '2020-01-01T00:00:00Z' }],
		protocolVersions: ['H004', 'H005'],
		authenticationVersions: ['X002'],
		encryptionVersions: ['E002'],
		signatureVersions: ['A006'],
		recoverySupported: false,
		preValidationSupported: false,
		// H005 has no X509Data: the bank does not say.
		x509DataSupported: version === 'H004' ? true : null,
		x509DataPersistent: version === 'H004' ? false : null,
		clientDataDownloadSupported: true,
		downloadableOrderDataSupported: true,
	};
}
