/**
 * Key changes (PUB, HCA, HCS) of an EBICS 2.5 (H004) subscriber through the EBICS node and the
 * credential's preAuthentication against the sandbox bank speaking H004: the new keys made in
 * n8n go as H004 order data (RSAKeyValue, with certificates or bare as the credential sends keys),
 * signed with the current A006 key; the bank then works with the new keys only. A change the bank
 * took whose result n8n never stored is finished by running it again.
 */
import { X509Certificate } from 'node:crypto';

import { generateSubscriberKeys, keyChangeOrderDataH004, keysAfterChange, loadSubscriberKeys, sendKeyChange, type EbicsSubscriberKeys } from '../../nodes/shared/ebics';
import { EBICS_STATUS_FIELD } from '../../nodes/shared/ebics/credential/ebicsCredential';
import { useSandbox } from '../helpers/bank';
import { painFile } from '../helpers/ebics';
import { sandboxClient } from '../helpers/ebicsSandbox';
import { bankH004Hashes, credentialTest, h004KeyHash, EBICS_ID, expectKeysChanged, ebicsStore, ebicsValues, items, runEbics, stored, storedState } from '../helpers/ebicsNode';
import type { CredentialStore } from '../harness/engine';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();

async function readyH004Store(h004KeyForm: 'certificate' | 'key'): Promise<CredentialStore> {
	const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { ebicsVersion: 'H004', h004KeyForm, ...bankH004Hashes(bank()) }));
	await credentialTest(store);
	bank().ebics.activate('PARTNER1', 'USER1');
	expect(await credentialTest(store)).toEqual({ status: 'OK' });
	expect(bank().ebics.subscriber('PARTNER1', 'USER1')).toMatchObject({ protocol: 'H004', state: 'ready' });
	return store;
}

/** Whether the bank holds exactly these keys for the subscriber (H004 keeps bare keys). */
function bankHolds(keys: EbicsSubscriberKeys): boolean {
	const held = bank().ebics.subscriber('PARTNER1', 'USER1')!.keys;
	const spki = (key: { export(o: { type: 'spki'; format: 'der' }): Buffer }) => key.export({ type: 'spki', format: 'der' }).toString('base64');
	const of = (pem: string) => spki(new X509Certificate(pem).publicKey);
	return spki(held.signature!.publicKey) === of(keys.signature.certificatePem) && spki(held.authentication!.publicKey) === of(keys.authentication.certificatePem) && spki(held.encryption!.publicKey) === of(keys.encryption.certificatePem);
}

function client(store: CredentialStore, keys: EbicsSubscriberKeys) {
	return sandboxClient(bank(), 'PARTNER1', 'USER1', keys, { bank: storedState(store)!.bank!.keys, version: 'H004' });
}

const cct = () => painFile(`MSG-H004-KEYS-${Math.random().toString(36).slice(2, 8)}`, { version: 'pain.001.001.03' });

test.each([
	['PUB', 'key'],
	['HCA', 'certificate'],
	['HCS', 'key'],
	['HCS', 'certificate'],
] as const)('%s (keys sent as %s): the new keys replace the current ones in H004; the bank takes them and refuses the old ones', async (order, form) => {
	const store = await readyH004Store(form);
	const before = storedState(store)!.generated!;
	const records = bank().ebics.records.length;
	const result = await runEbics(store, { operation: 'changeKeys', keyChangeOrder: order, confirmKeyChange: true });
	const [item] = items(result);
	expect(item.json).toMatchObject({ changed: true, order, subscriber: 'SBXEBICS/PARTNER1/USER1', recovered: false });
	// The order went as an H004 upload with the order type of the change.
	expect(bank().ebics.records.slice(records).filter((r) => r.phase === 'Initialisation').map((r) => [r.protocol, r.orderType, r.technical, r.business])).toEqual([['H004', order, '000000', '000000']]);
	const now = expectKeysChanged(store, order, before);
	expect(bankHolds(now)).toBe(true);
	// The item prints the new keys' hashes as an EBICS 2.5 letter does (exponent and modulus).
	const replaced = order === 'PUB' ? ['signature'] : order === 'HCA' ? ['authentication', 'encryption'] : ['signature', 'authentication', 'encryption'];
	expect(item.json.hashes).toEqual(Object.fromEntries(replaced.map((key) => [key, h004KeyHash(now[key as keyof EbicsSubscriberKeys].certificatePem)])));
	expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(new RegExp(`^Ready: .*; new keys in use since \\d{4}-\\d\\d-\\d\\d \\(${order}\\)`));
	// With the new keys: a download (C53) and a signed upload (CCT) through the node.
	const statements = items(await runEbics(store, { operation: 'download', downloadService: 'camt053' }));
	expect(statements.length).toBeGreaterThan(0);
	expect(statements[0].json).toMatchObject({ orderType: 'C53', receipt: 'positive' });
	const file = cct();
	const [sent] = items(await runEbics(store, { operation: 'upload', uploadService: 'sct' }, [{ json: {}, binary: { data: { data: file.toString('base64'), mimeType: 'application/xml', fileName: 'p.xml' } } }]));
	expect(sent.json).toMatchObject({ orderType: 'CCT', returnCodes: { technical: '000000', business: '000000' } });
	// The old keys are refused: an old signature key (091301), an old authentication key (061001).
	const stale = client(store, before);
	if (order === 'PUB') await expect(stale.upload('CCT', { kind: 'standard' }, cct())).rejects.toMatchObject({ code: '091301' });
	else await expect(stale.htd()).rejects.toMatchObject({ code: '061001' });
	if (order === 'HCS') await expect(client(store, { ...now, signature: before.signature }).upload('CCT', { kind: 'standard' }, cct())).rejects.toMatchObject({ code: '091301' });
	// The credential's test (HPB with the new authentication key) and the letters of the keys in use.
	expect(await credentialTest(store)).toEqual({ status: 'OK' });
	const [letter] = items(await runEbics(store, { operation: 'initialisationLetters' }));
	const oneLine = (hash: string) => hash.replace('\n', ' ');
	expect(letter.json).toMatchObject({ ebicsVersion: 'H004', signatureHash: oneLine(h004KeyHash(now.signature.certificatePem)), authenticationHash: oneLine(h004KeyHash(now.authentication.certificatePem)), encryptionHash: oneLine(h004KeyHash(now.encryption.certificatePem)) });
});

test('the bank refuses a key change signed with a key that is not the subscriber\'s, or with a transport signature (DZHNN); nothing changes', async () => {
	const store = await readyH004Store('key');
	const current = storedState(store)!.generated!;
	const stranger = await generateSubscriberKeys({ subject: { commonName: 'Stranger' } });
	const next = keysAfterChange('PUB', current, await generateSubscriberKeys({ subject: { commonName: 'Next' } }));
	const pub = keyChangeOrderDataH004('PUB', { partnerId: 'PARTNER1', userId: 'USER1' }, loadSubscriberKeys(next), 'key');
	await expect(client(store, current).upload('PUB', { kind: 'standard', signatureFlag: 'transport' }, Buffer.from(pub))).rejects.toMatchObject({ code: '091113' });
	await expect(client(store, { ...current, signature: stranger.signature }).upload('PUB', { kind: 'standard' }, Buffer.from('<x/>'))).rejects.toMatchObject({ code: '091301' });
	await expect(sendKeyChange(client(store, { ...current, signature: stranger.signature }), 'PUB', next, 'key')).rejects.toMatchObject({ code: '091301' });
	expect(bankHolds(current)).toBe(true);
});

test.each([
	// HCS: the old authentication key is refused at once (061001); PUB: the old signature once the order data is in (091301).
	['HCS', ['061001', '000000']],
	['PUB', ['000000', '000000']],
] as const)('the bank accepted an H004 %s whose result n8n never stored: running it again finds that out and keeps the new keys', async (order, initialisations) => {
	const store = await readyH004Store('key');
	const state = storedState(store)!;
	const current = state.generated!;
	// Between the bank accepting and n8n storing: the pending keys are in the credential, the
	// bank has them, the credential still uses the old ones.
	const next = keysAfterChange(order, current, await generateSubscriberKeys({ subject: { commonName: 'Next' } }));
	store.update(EBICS_ID, { ...stored(store), ebicsState: JSON.stringify({ ...state, keyChange: { order, next, preparedAt: new Date().toISOString(), sentAt: new Date().toISOString() } }) });
	await sendKeyChange(client(store, current), order, next, 'key');
	expect(bankHolds(next)).toBe(true);
	const records = bank().ebics.records.length;
	const done = items(await runEbics(store, { operation: 'changeKeys', keyChangeOrder: order, confirmKeyChange: true }))[0].json;
	expect(done).toMatchObject({ changed: true, order, recovered: true });
	// Sent with the old keys (refused), then with the pending ones (accepted).
	const sent = bank().ebics.records.slice(records);
	expect(sent.filter((r) => r.orderType === order && r.phase === 'Initialisation').map((r) => r.technical)).toEqual(initialisations);
	if (order === 'PUB') expect(sent.filter((r) => r.phase === 'Transfer').map((r) => r.business)).toEqual(['091301', '000000']);
	expect(storedState(store)!.generated).toEqual(next);
	expect(storedState(store)!.keyChange).toBeUndefined();
	expect(bankHolds(next)).toBe(true);
	expect(items(await runEbics(store, { operation: 'download', downloadService: 'camt053' })).length).toBeGreaterThan(0);
});
