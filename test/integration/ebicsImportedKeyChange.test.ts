/**
 * Key changes (PUB, HCA, HCS) of a subscriber whose keys were imported (pasted in the credential),
 * through the EBICS node and the credential's preAuthentication against the sandbox bank, in
 * EBICS 3.0 (H005) and 2.5 (H004): the new keys are made in n8n, the keys not replaced stay the
 * pasted ones, and once the bank has accepted the change the credential uses the new set it keeps
 * instead of the pasted keys, whose fields stay as they were. Pasting other keys makes it use
 * those again. A change the bank refuses leaves the pasted keys in use; a change the bank took
 * whose answer was lost is finished by running it again. Certificates issued by an authority are
 * not replaced by self-signed ones.
 */
import { createPublicKey, X509Certificate } from 'node:crypto';

import { formatHash, generateSubscriberKeys, keyDigest, keysAfterChange, loadSubscriberKeys, sendKeyChange, type EbicsSubscriberKeys } from '../../nodes/shared/ebics';
import { EBICS_STATUS_FIELD, keysFingerprint } from '../../nodes/shared/ebics/credential/ebicsCredential';
import { loadOrCreatePki, issueCustomerCertificate } from '../sandbox/certs';
import { useSandbox } from '../helpers/bank';
import { pastedKeyFields } from '../helpers/ebics';
import { sandboxClient } from '../helpers/ebicsSandbox';
import { bankH004Hashes, credentialTest, EBICS_ID, ebicsSecrets, ebicsStore, ebicsValues, errorText, expectKeysChanged, items, runEbics, stored, storedState } from '../helpers/ebicsNode';
import type { CredentialStore, RunResult } from '../harness/engine';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const runs: RunResult[] = [];

const PASTED_FIELDS = ['signaturePrivateKey', 'signatureCertificate', 'authenticationPrivateKey', 'authenticationCertificate', 'encryptionPrivateKey', 'encryptionCertificate'];

function pastedOf(store: CredentialStore): Record<string, string> {
	return Object.fromEntries(PASTED_FIELDS.map((field) => [field, String(stored(store)[field])]));
}

/** The sandbox's ready subscriber PARTNER2/READY1, initialised by another client: its keys pasted. */
async function importedStore(): Promise<{ store: CredentialStore; imported: EbicsSubscriberKeys }> {
	const store = ebicsStore(ebicsValues(bank()));
	expect(await credentialTest(store)).toEqual({ status: 'OK' });
	expect(storedState(store)!.generated).toBeUndefined();
	return { store, imported: bank().ebicsClient('PARTNER2', 'READY1').subscriberKeys! };
}

async function change(store: CredentialStore, order: string): Promise<RunResult> {
	const result = await runEbics(store, { operation: 'changeKeys', keyChangeOrder: order, confirmKeyChange: true });
	runs.push(result);
	return result;
}

function spki(pem: string): string {
	return new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** Whether the bank holds exactly these keys (their public keys) for the subscriber. */
function bankHolds(partnerId: string, userId: string, keys: EbicsSubscriberKeys): boolean {
	const held = bank().ebics.subscriber(partnerId, userId)!.keys;
	const of = (key?: { publicKey: ReturnType<typeof createPublicKey> }) => key?.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
	return of(held.signature) === spki(keys.signature.certificatePem) && of(held.authentication) === spki(keys.authentication.certificatePem) && of(held.encryption) === spki(keys.encryption.certificatePem);
}

function stale(store: CredentialStore, keys: EbicsSubscriberKeys, partnerId = 'PARTNER2', userId = 'READY1', version: 'H004' | 'H005' = 'H005') {
	return sandboxClient(bank(), partnerId, userId, keys, { bank: storedState(store)!.bank!.keys, version });
}

async function download(store: CredentialStore): Promise<RunResult> {
	const result = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
	runs.push(result);
	return result;
}

describe('EBICS 3.0 (H005), keys pasted from the client that initialised the subscriber', () => {
	test.each(['PUB', 'HCA', 'HCS'])('%s: the new keys are made in n8n, the others stay the pasted ones; the credential uses the new set, the pasted fields stay; the bank refuses the old keys', async (order) => {
		const { store, imported } = await importedStore();
		const fields = pastedOf(store);
		const [item] = items(await change(store, order));
		const state = storedState(store)!;
		const now = expectKeysChanged(store, order, imported);
		expect(item.json).toMatchObject({ changed: true, order, subscriber: 'SBXEBICS/PARTNER2/READY1', recovered: false, pastedKeysSuperseded: true });
		expect(String(item.json.notice)).toMatch(/^The keys pasted in the credential are superseded by this change \(\d{4}-\d\d-\d\d\): the credential uses the new keys, kept encrypted in its hidden fields, and the pasted fields stay as they were\..*Pasting keys other than those makes the credential use the pasted ones again/);
		expect(bankHolds('PARTNER2', 'READY1', now)).toBe(true);
		// The pasted fields are as they were; the state says which pasted keys the new set replaces.
		expect(pastedOf(store)).toEqual(fields);
		expect(state.pastedReplaced).toEqual({ fingerprint: keysFingerprint(imported), at: state.keysChanged!.at, statusFor: keysFingerprint(imported) });
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(new RegExp(`^Ready: .*; new keys in use since \\d{4}-\\d\\d-\\d\\d \\(${order}\\)\\. Nothing to do\\. The pasted keys are superseded by the key change made on \\d{4}-\\d\\d-\\d\\d: the credential uses the new keys it keeps`));
		// The item's hashes are the new keys'.
		const replaced = order === 'PUB' ? ['signature'] : order === 'HCA' ? ['authentication', 'encryption'] : ['signature', 'authentication', 'encryption'];
		const keys = loadSubscriberKeys(now);
		expect(item.json.hashes).toEqual(Object.fromEntries(replaced.map((key) => [key, formatHash(keyDigest(keys[key as keyof typeof keys], 'certificate'))])));
		// With the new keys: a download, the credential's test (HPB), the letters of the keys in use.
		const statements = items(await download(store));
		expect(statements.length).toBeGreaterThan(0);
		expect(statements[0].json).toMatchObject({ receipt: 'positive' });
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const [letter] = items(await runEbics(store, { operation: 'initialisationLetters' }));
		for (const key of ['signature', 'authentication', 'encryption'] as const) expect(letter.json[`${key}Hash`]).toBe(formatHash(keyDigest(keys[key], 'certificate')).replace('\n', ' '));
		// The bank refuses the keys replaced.
		const old = stale(store, imported);
		await expect(order === 'PUB' ? old.btu({ serviceName: 'SCT', msgName: 'pain.001' }, Buffer.from('<x/>')) : old.htd()).rejects.toMatchObject({ code: order === 'PUB' ? '091301' : '061001' });
	});

	test('a second change starts from the set the first one made; pasting other keys makes the credential use them, pasting the replaced ones back the new set again', async () => {
		const { store, imported } = await importedStore();
		items(await change(store, 'HCA'));
		const first = storedState(store)!.generated!;
		items(await change(store, 'PUB'));
		const second = expectKeysChanged(store, 'PUB', first);
		expect(second.authentication).toEqual(first.authentication);
		expect(bankHolds('PARTNER2', 'READY1', second)).toBe(true);
		expect(storedState(store)!.pastedReplaced!.fingerprint).toBe(keysFingerprint(imported));
		const fields = pastedOf(store);

		// Other keys pasted (keys the bank does not know): the credential uses them, as pasted.
		const other = await generateSubscriberKeys({ subject: { commonName: 'Other' } });
		store.update(EBICS_ID, { ...stored(store), ...pastedKeyFields(other) });
		// The credential's test (as saving it in the editor runs it) says which keys it tried.
		expect((await credentialTest(store)).message).toMatch(/061001.*\. The pasted keys differ from those the key change of \d{4}-\d\d-\d\d replaced: the credential uses the pasted keys$/s);
		// The next run checks the keys pasted now once (HPB) and rewrites the status; the bank refuses them.
		const records = bank().ebics.records.length;
		const refused = await download(store);
		expect(refused.status).toBe('error');
		expect(errorText(refused)).toMatch(/061001/);
		expect(bank().ebics.records.slice(records).map((r) => r.orderType ?? r.root)[0]).toBe('HPB');
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/^Ready: .*, but the last check failed \(.*061001.*\)\. Test the credential again\. The pasted keys differ from those the key change of \d{4}-\d\d-\d\d replaced: the credential uses the pasted keys$/);

		// The replaced keys pasted back: the new set is used again, and the status says so.
		store.update(EBICS_ID, { ...stored(store), ...fields });
		expect(items(await download(store)).length).toBeGreaterThan(0);
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/Nothing to do\. The pasted keys are superseded by the key change made on \d{4}-\d\d-\d\d/);
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		// Written for these keys: the next run does not check again.
		const before = bank().ebics.records.length;
		items(await runEbics(store, { operation: 'subscriberPermissions' }));
		expect(bank().ebics.records.slice(before).map((r) => r.orderType ?? r.root)).not.toContain('HPB');
	});

	test('a change the bank refuses leaves the pasted keys in use; run again, it goes through', async () => {
		const { store, imported } = await importedStore();
		bank().ebics.suspend('PARTNER2', 'READY1');
		const refused = await change(store, 'HCS');
		expect(refused.status).toBe('error');
		expect(errorText(refused)).toMatch(/^Key change HCS: .*091002/);
		const state = storedState(store)!;
		expect(state.generated).toBeUndefined();
		expect(state.pastedReplaced).toBeUndefined();
		expect(state.keyChange).toMatchObject({ order: 'HCS', from: keysFingerprint(imported), sentAt: expect.any(String) });
		expect(bankHolds('PARTNER2', 'READY1', imported)).toBe(true);

		bank().ebics.activate('PARTNER2', 'READY1');
		// The pasted keys still work.
		expect(items(await download(store)).length).toBeGreaterThan(0);
		const done = items(await change(store, 'HCS'))[0].json;
		expect(done).toMatchObject({ changed: true, order: 'HCS', recovered: false, pastedKeysSuperseded: true });
		expect(storedState(store)!.generated).toEqual(state.keyChange!.next);
		expect(bankHolds('PARTNER2', 'READY1', state.keyChange!.next)).toBe(true);
		expect(items(await runEbics(store, { operation: 'subscriberPermissions' })).length).toBeGreaterThan(0);
	});

	test('the bank accepted a change whose answer was lost: running it again finds that out and uses the new keys', async () => {
		const { store, imported } = await importedStore();
		const state = storedState(store)!;
		// As the prepare step left it (pending keys stored, from the pasted keys), then sent and taken by the bank.
		const next = keysAfterChange('HCS', imported, await generateSubscriberKeys({ subject: { commonName: 'Next' } }));
		store.update(EBICS_ID, { ...stored(store), ebicsState: JSON.stringify({ ...state, keyChange: { order: 'HCS', next, preparedAt: new Date().toISOString(), sentAt: new Date().toISOString(), from: keysFingerprint(imported) } }) });
		await sendKeyChange(stale(store, imported), 'HCS', next);
		expect(bankHolds('PARTNER2', 'READY1', next)).toBe(true);
		// Until then nothing works with the pasted keys; the status says the change is to finish.
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/^Ready/);
		const done = items(await change(store, 'HCS'))[0].json;
		expect(done).toMatchObject({ changed: true, order: 'HCS', recovered: true, pastedKeysSuperseded: true });
		expect(storedState(store)!.generated).toEqual(next);
		expect(storedState(store)!.keyChange).toBeUndefined();
		expect(items(await download(store)).length).toBeGreaterThan(0);
	});

	test('a change prepared from other pasted keys: never sent, it is made again from the keys pasted now; sent, it is refused by name', async () => {
		const { store, imported } = await importedStore();
		const state = storedState(store)!;
		const earlier = await generateSubscriberKeys({ subject: { commonName: 'Earlier' } });
		const staleChange = { order: 'HCA', next: earlier, preparedAt: new Date().toISOString(), from: keysFingerprint(earlier) };
		store.update(EBICS_ID, { ...stored(store), ebicsState: JSON.stringify({ ...state, keyChange: { ...staleChange, sentAt: new Date().toISOString() } }) });
		const records = bank().ebics.records.length;
		const refused = await change(store, 'HCA');
		expect(errorText(refused)).toMatch(/^Credential: Subscriber Keys: a key change HCA was sent on \d{4}-\d\d-\d\d from the keys pasted then, and the pasted keys differ now\. Paste those keys back/);
		expect(bank().ebics.records.length).toBe(records);

		store.update(EBICS_ID, { ...stored(store), ebicsState: JSON.stringify({ ...state, keyChange: staleChange }) });
		items(await change(store, 'HCA'));
		const now = expectKeysChanged(store, 'HCA', imported);
		expect(now.authentication).not.toEqual(earlier.authentication);
		expect(bankHolds('PARTNER2', 'READY1', now)).toBe(true);
	});

	test('a certificate an authority issued is not replaced by a self-signed one: refused before anything is sent; the keys with self-signed certificates change', async () => {
		const imported = bank().ebicsClient('PARTNER2', 'READY1').subscriberKeys!;
		const pki = await loadOrCreatePki();
		const issued = issueCustomerCertificate(pki, { commonName: 'Sandbox Ready Subscriber' }, new X509Certificate(imported.signature.certificatePem).publicKey, new Date(Date.now() - 86_400_000), new Date(Date.now() + 365 * 86_400_000));
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER2', 'READY1', { signatureCertificate: issued }));
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const records = bank().ebics.records.length;
		for (const order of ['PUB', 'HCS']) {
			const refused = await change(store, order);
			expect(errorText(refused)).toMatch(/^Credential: Signature Certificate \(A006\): issued by .*, not self-signed\. Change Keys would make the new key in n8n with a self-signed certificate.*paste them under New Keys for Change Keys \(New Signature Certificate \(A006\) and the private key\)\. Nothing was sent to the bank/);
		}
		expect(bank().ebics.records.length).toBe(records);
		expect(storedState(store)!.keyChange).toBeUndefined();
		// HCA replaces only the authentication and encryption keys: their certificates are self-signed.
		expect(items(await change(store, 'HCA'))[0].json).toMatchObject({ changed: true, order: 'HCA' });
		expect(storedState(store)!.generated!.signature.certificatePem).toBe(issued);
		expect(items(await download(store)).length).toBeGreaterThan(0);
	});
});

describe('new keys pasted for Change Keys (certificates a bank or an authority issues)', () => {
	const DAY = 86_400_000;

	/** The ready subscriber with an issued signature certificate, and a new signature key with its issued certificate. */
	async function issuedSubscriber() {
		const imported = bank().ebicsClient('PARTNER2', 'READY1').subscriberKeys!;
		const pki = await loadOrCreatePki();
		const issue = (certificatePem: string) => issueCustomerCertificate(pki, { commonName: 'Sandbox Ready Subscriber', country: 'FR' }, new X509Certificate(certificatePem).publicKey, new Date(Date.now() - DAY), new Date(Date.now() + 365 * DAY));
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER2', 'READY1', { signatureCertificate: issue(imported.signature.certificatePem) }));
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const fresh = await generateSubscriberKeys({ subject: { commonName: 'Renewed' } });
		return { store, imported, fresh, issue };
	}

	const newSignature = (privateKeyPem: string, certificatePem: string) => ({ replacementKeys: true, newSignaturePrivateKey: privateKeyPem, newSignatureCertificate: certificatePem });

	test('PUB sends the new signature key with its issued certificate; the bank holds it and refuses the old one; the other keys stay', async () => {
		const { store, imported, fresh, issue } = await issuedSubscriber();
		const renewed = issue(fresh.signature.certificatePem);
		store.update(EBICS_ID, { ...stored(store), ...newSignature(fresh.signature.privateKeyPem, renewed) });
		const [item] = items(await change(store, 'PUB'));
		expect(item.json).toMatchObject({ changed: true, order: 'PUB', recovered: false, pastedKeysSuperseded: true });
		const now = expectKeysChanged(store, 'PUB', { ...imported, signature: { ...imported.signature, certificatePem: String(stored(store).signatureCertificate) } });
		// The key sent is the one pasted, with its issued certificate, not one made in n8n.
		expect(now.signature).toEqual({ privateKeyPem: expect.any(String), certificatePem: renewed });
		expect(spki(now.signature.certificatePem)).toBe(spki(fresh.signature.certificatePem));
		expect(now.authentication).toEqual(imported.authentication);
		expect(bankHolds('PARTNER2', 'READY1', now)).toBe(true);
		expect(item.json.hashes).toEqual({ signature: formatHash(keyDigest(loadSubscriberKeys(now).signature, 'certificate')) });
		// Orders are signed with the new key: an upload goes through; the old signature key is refused.
		expect(items(await download(store)).length).toBeGreaterThan(0);
		await expect(stale(store, imported).btu({ serviceName: 'SCT', msgName: 'pain.001' }, Buffer.from('<x/>'))).rejects.toMatchObject({ code: '091301' });
		// Change Keys again with the same new keys pasted: they are the keys in use now.
		const again = await change(store, 'PUB');
		expect(errorText(again)).toMatch(/^Credential: New Signature Certificate \(A006\): it is the signature key in use, not a new key\..*Nothing was sent to the bank/);
	});

	test('what is pasted wrong is refused naming the field before anything is sent; HCS with only the signature pasted makes the other two in n8n', async () => {
		const { store, fresh, issue } = await issuedSubscriber();
		const renewed = issue(fresh.signature.certificatePem);
		const records = bank().ebics.records.length;
		const attempt = async (fields: Record<string, unknown>, order = 'PUB') => {
			store.update(EBICS_ID, { ...stored(store), replacementKeys: true, newSignaturePrivateKey: '', newSignatureCertificate: '', newAuthenticationPrivateKey: '', newAuthenticationCertificate: '', ...fields });
			return errorText(await change(store, order));
		};
		// Switched on, nothing pasted for an issued key: the issued certificate is not replaced.
		expect(await attempt({})).toMatch(/^Credential: Signature Certificate \(A006\): issued by .*paste them under New Keys for Change Keys/);
		// The certificate without its key.
		expect(await attempt({ newSignatureCertificate: renewed })).toMatch(/^Credential: New Signature Private Key \(A006\): required with the New Signature Certificate \(A006\) \(paste both, or neither to have n8n make the key\)/);
		// A certificate of another key.
		expect(await attempt({ newSignaturePrivateKey: fresh.authentication.privateKeyPem, newSignatureCertificate: renewed })).toMatch(/^Credential: New Signature Certificate \(A006\): it does not belong to the New Signature Private Key \(A006\)/);
		// The new signature key is the authentication key in use.
		const inUse = bank().ebicsClient('PARTNER2', 'READY1').subscriberKeys!.authentication;
		expect(await attempt(newSignature(inUse.privateKeyPem, inUse.certificatePem))).toMatch(/^Credential: New Signature Certificate \(A006\): it is the authentication key in use, not a new key/);
		// One new key for two: the same key pasted as the new authentication and encryption key.
		expect(await attempt({ newAuthenticationPrivateKey: fresh.signature.privateKeyPem, newAuthenticationCertificate: renewed, ...newSignature(fresh.signature.privateKeyPem, renewed) }, 'HCS')).toMatch(/^Credential: New Keys for Change Keys: EBICS needs three different keys/);
		expect(bank().ebics.records.length).toBe(records);
		expect(storedState(store)!.keyChange).toBeUndefined();
		// HCS with the signature pasted: authentication and encryption are made in n8n (their certificates are self-signed).
		await attempt(newSignature(fresh.signature.privateKeyPem, renewed), 'HCS');
		const now = storedState(store)!.generated!;
		expect(now.signature.certificatePem).toBe(renewed);
		expect(spki(now.authentication.certificatePem)).not.toBe(spki(fresh.authentication.certificatePem));
		expect(bankHolds('PARTNER2', 'READY1', now)).toBe(true);
		expect(items(await download(store)).length).toBeGreaterThan(0);
	});

	test('new keys pasted after a change went out: refused by name until those it carries are pasted back; after one never sent, the keys pasted now go', async () => {
		const { store, fresh, issue } = await issuedSubscriber();
		const first = issue(fresh.signature.certificatePem);
		const other = await generateSubscriberKeys({ subject: { commonName: 'Renewed again' } });
		const second = issue(other.signature.certificatePem);
		store.update(EBICS_ID, { ...stored(store), ...newSignature(fresh.signature.privateKeyPem, first) });
		// Sent while the bank refuses the subscriber: it may be at the bank, so it is finished, never replaced.
		bank().ebics.suspend('PARTNER2', 'READY1');
		expect(errorText(await change(store, 'PUB'))).toMatch(/091002/);
		expect(storedState(store)!.keyChange).toMatchObject({ order: 'PUB', sentAt: expect.any(String) });
		bank().ebics.activate('PARTNER2', 'READY1');
		store.update(EBICS_ID, { ...stored(store), ...newSignature(other.signature.privateKeyPem, second) });
		const records = bank().ebics.records.length;
		expect(errorText(await change(store, 'PUB'))).toMatch(/^Credential: New Keys for Change Keys: a key change PUB was sent on \d{4}-\d\d-\d\d with other new keys than those pasted now\. Paste those new keys back and run Change Keys with PUB to finish it/);
		expect(bank().ebics.records.length).toBe(records);
		// Those pasted back: the change is finished with them.
		store.update(EBICS_ID, { ...stored(store), ...newSignature(fresh.signature.privateKeyPem, first) });
		expect(items(await change(store, 'PUB'))[0].json).toMatchObject({ changed: true, order: 'PUB' });
		expect(storedState(store)!.generated!.signature.certificatePem).toBe(first);
		expect(bankHolds('PARTNER2', 'READY1', storedState(store)!.generated!)).toBe(true);

		// A change prepared and never sent (as when n8n stopped between the two steps), then other new keys pasted: those go.
		const third = await generateSubscriberKeys({ subject: { commonName: 'Third' } });
		store.update(EBICS_ID, { ...stored(store), ...newSignature(third.signature.privateKeyPem, issue(third.signature.certificatePem)) });
		bank().ebics.suspend('PARTNER2', 'READY1');
		await change(store, 'PUB');
		const prepared = storedState(store)!;
		store.update(EBICS_ID, { ...stored(store), ebicsState: JSON.stringify({ ...prepared, keyChange: { ...prepared.keyChange!, sentAt: undefined } }) });
		bank().ebics.activate('PARTNER2', 'READY1');
		store.update(EBICS_ID, { ...stored(store), ...newSignature(other.signature.privateKeyPem, second) });
		expect(items(await change(store, 'PUB'))[0].json).toMatchObject({ changed: true, order: 'PUB' });
		expect(storedState(store)!.generated!.signature.certificatePem).toBe(second);
		expect(bankHolds('PARTNER2', 'READY1', storedState(store)!.generated!)).toBe(true);
	});
});

describe('EBICS 2.5 (H004), keys pasted and sent with INI and HIA from n8n', () => {
	test.each([
		['HCS', 'certificate'],
		['PUB', 'key'],
	] as const)('%s (keys sent as %s): the credential uses the new keys; the bank refuses the old ones', async (order, h004KeyForm) => {
		const imported = await generateSubscriberKeys({ subject: { commonName: 'Pasted H004' } });
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { ebicsVersion: 'H004', h004KeyForm, ...bankH004Hashes(bank()), keySource: 'import', alreadyInitialised: false, ...pastedKeyFields(imported) }));
		await credentialTest(store);
		bank().ebics.activate('PARTNER1', 'USER1');
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(bank().ebics.subscriber('PARTNER1', 'USER1')).toMatchObject({ protocol: 'H004', state: 'ready' });
		const fields = pastedOf(store);
		const [item] = items(await change(store, order));
		expect(item.json).toMatchObject({ changed: true, order, recovered: false, pastedKeysSuperseded: true });
		const now = expectKeysChanged(store, order, imported);
		expect(bankHolds('PARTNER1', 'USER1', now)).toBe(true);
		expect(pastedOf(store)).toEqual(fields);
		expect(items(await download(store)).length).toBeGreaterThan(0);
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const old = stale(store, imported, 'PARTNER1', 'USER1', 'H004');
		if (order === 'PUB') await expect(old.upload('CCT', { kind: 'standard' }, Buffer.from('<x/>'))).rejects.toMatchObject({ code: '091301' });
		else await expect(old.htd()).rejects.toMatchObject({ code: '061001' });
	});
});

test('no key shows in anything a run shows', async () => {
	const { store } = await importedStore();
	runs.push(await change(store, 'HCS'));
	const secrets = ebicsSecrets(bank(), store);
	for (const result of runs) {
		expect(JSON.stringify(result.runData)).not.toMatch(/PRIVATE KEY/);
		expect(secrets.scan(shownBy(result))).toEqual([]);
	}
});
