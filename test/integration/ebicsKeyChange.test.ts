/**
 * Key changes (PUB, HCA, HCS) of a ready subscriber whose keys were made in n8n, through the EBICS
 * node and the credential's preAuthentication against the sandbox EBICS bank: new keys made in
 * n8n, sent signed with the current keys, kept in the credential once the bank has accepted them;
 * the old keys are refused by the bank after. A change the bank refuses leaves the keys the bank
 * knows in use; a change the bank took whose result was never stored is finished by running it
 * again.
 */
import { X509Certificate } from 'node:crypto';

import { generateSubscriberKeys, keysAfterChange, sendKeyChange, type EbicsSubscriberKeys } from '../../nodes/shared/ebics';
import { EBICS_STATUS_FIELD } from '../../nodes/shared/ebics/credential/ebicsCredential';
import { useSandbox } from '../helpers/bank';
import { sandboxClient } from '../helpers/ebicsSandbox';
import { credentialTest, EBICS_ID, expectKeysChanged, ebicsSecrets, ebicsStore, ebicsValues, errorText, items, runEbics, stored, storedState } from '../helpers/ebicsNode';
import type { CredentialStore, RunResult } from '../harness/engine';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const runs: RunResult[] = [];

async function readyStore(): Promise<CredentialStore> {
	const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
	await credentialTest(store);
	bank().ebics.activate('PARTNER1', 'USER1');
	expect(await credentialTest(store)).toEqual({ status: 'OK' });
	return store;
}

async function change(store: CredentialStore, order: string, confirm = true): Promise<RunResult> {
	const result = await runEbics(store, { operation: 'changeKeys', keyChangeOrder: order, confirmKeyChange: confirm });
	runs.push(result);
	return result;
}

function bankHolds(keys: EbicsSubscriberKeys): boolean {
	const held = bank().ebics.subscriber('PARTNER1', 'USER1')!.keys;
	const der = (pem: string) => new X509Certificate(pem).raw;
	return held.signature!.certificateDer!.equals(der(keys.signature.certificatePem)) && held.authentication!.certificateDer!.equals(der(keys.authentication.certificatePem)) && held.encryption!.certificateDer!.equals(der(keys.encryption.certificatePem));
}

test.each(['PUB', 'HCA', 'HCS'])('%s: new keys made in n8n replace the current ones once the bank accepts them; the old ones are refused', async (order) => {
	const store = await readyStore();
	const before = storedState(store)!.generated!;
	const result = await change(store, order);
	const [item] = items(result);
	expect(item.json).toMatchObject({ changed: true, order, subscriber: 'SBXEBICS/PARTNER1/USER1', recovered: false });
	const now = expectKeysChanged(store, order, before);
	const after = storedState(store)!;
	expect(bankHolds(now)).toBe(true);
	expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(new RegExp(`^Ready: .*; new keys in use since \\d{4}-\\d\\d-\\d\\d \\(${order}\\)`));
	expect(stored(store).ebicsKeyChange ?? '').toBe('');
	// Requests with the new keys work: the permissions (X002) and an upload (A006).
	expect(items(await runEbics(store, { operation: 'subscriberPermissions' })).length).toBeGreaterThan(0);
	const bankKeys = after.bank!.keys;
	const fresh = sandboxClient(bank(), 'PARTNER1', 'USER1', now, { bank: bankKeys });
	expect((await fresh.btu({ serviceName: 'SCT', msgName: 'pain.001' }, Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"/>'))).orderId).toBeDefined();
	// The old keys are refused by the bank.
	const stale = sandboxClient(bank(), 'PARTNER1', 'USER1', before, { bank: bankKeys });
	await expect(order === 'PUB' ? stale.btu({ serviceName: 'SCT', msgName: 'pain.001' }, Buffer.from('<x/>')) : stale.htd()).rejects.toMatchObject({ code: order === 'PUB' ? '091301' : '061001' });
});

test('without the confirmation nothing is made or sent', async () => {
	const store = await readyStore();
	const records = bank().ebics.records.length;
	const result = await change(store, 'HCS', false);
	expect(errorText(result)).toMatch(/^Confirm Key Change: switch it on to replace the keys at the bank\. Nothing was sent to the bank/);
	expect(bank().ebics.records.length).toBe(records);
	expect(storedState(store)!.keyChange).toBeUndefined();
});

test('a change the bank refuses leaves the keys it knows in use; run again, it goes through', async () => {
	const store = await readyStore();
	const before = storedState(store)!.generated!;
	bank().ebics.suspend('PARTNER1', 'USER1');
	const refused = await change(store, 'HCA');
	expect(refused.status).toBe('error');
	expect(errorText(refused)).toMatch(/^Key change HCA: .*091002/);
	expect(errorText(refused)).toMatch(/The new keys are kept as pending: run Change Keys with HCA again to finish the change/);
	const state = storedState(store)!;
	expect(state.generated).toEqual(before);
	expect(state.keyChange).toMatchObject({ order: 'HCA', sentAt: expect.any(String) });
	expect(bankHolds(before)).toBe(true);
	expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/^Ready, with a key change HCA sent on \d{4}-\d\d-\d\d and not confirmed .*Run the EBICS node's Change Keys with HCA again to finish it/);

	bank().ebics.activate('PARTNER1', 'USER1');
	// Another change cannot start while this one may be at the bank.
	expect(errorText(await change(store, 'PUB'))).toMatch(/A key change HCA was sent on .* without a confirmed answer: run Change Keys with HCA to finish it first/);
	const done = items(await change(store, 'HCA'))[0].json;
	expect(done).toMatchObject({ changed: true, order: 'HCA', recovered: false });
	expect(storedState(store)!.generated).toEqual(state.keyChange!.next);
	expect(bankHolds(storedState(store)!.generated!)).toBe(true);
});

test('the bank accepted a change whose result n8n never stored: running it again finds that out and keeps the new keys', async () => {
	const store = await readyStore();
	const state = storedState(store)!;
	const current = state.generated!;
	// The moment between the bank accepting and n8n storing: the pending keys are in the
	// credential (stored by the prepare step), the bank has taken them, the credential still
	// uses the old ones.
	const next = keysAfterChange('HCA', current, await generateSubscriberKeys({ subject: { commonName: 'Next' } }));
	store.update(EBICS_ID, { ...stored(store), ebicsState: JSON.stringify({ ...state, keyChange: { order: 'HCA', next, preparedAt: new Date().toISOString(), sentAt: new Date().toISOString() } }) });
	await sendKeyChange(sandboxClient(bank(), 'PARTNER1', 'USER1', current, { bank: state.bank!.keys }), 'HCA', next);
	expect(bankHolds(next)).toBe(true);
	const done = items(await change(store, 'HCA'))[0].json;
	expect(done).toMatchObject({ changed: true, order: 'HCA', recovered: true });
	expect(storedState(store)!.generated).toEqual(next);
	expect(items(await runEbics(store, { operation: 'subscriberPermissions' })).length).toBeGreaterThan(0);
});

test('no key shows in anything a run shows', async () => {
	const store = await readyStore();
	runs.push(await change(store, 'HCS'));
	const secrets = ebicsSecrets(bank(), store);
	for (const result of runs) {
		for (const data of [JSON.stringify(result.runData)]) expect(data).not.toMatch(/PRIVATE KEY/);
		expect(secrets.scan(shownBy(result))).toEqual([]);
	}
});
