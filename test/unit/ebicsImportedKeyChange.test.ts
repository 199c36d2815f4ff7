/**
 * Which keys an EBICS credential uses after key changes of imported keys, without a bank: the
 * pasted keys, or the set a change made in their place while the pasted fields still hold the
 * keys it replaced; the status saying so; a pending change prepared from other pasted keys; and
 * the certificates a change would replace that an authority issued.
 */
import { X509Certificate } from 'node:crypto';

import { generateSubscriberKeys, keysAfterChange, type EbicsSubscriberKeys } from '../../nodes/shared/ebics';
import { keysFingerprint, notePastedStatus, pastedStatusStale, pastedSuperseded, readEbicsCredential, statusText, subscriberKeys, type EbicsState } from '../../nodes/shared/ebics/credential/ebicsCredential';
import { issuedCertificates, replacedBits, runKeyChange } from '../../nodes/shared/ebics/initialisation/ebicsKeyChange';
import { generateKeyWithCertificate } from '../../nodes/shared/keys/generate';
import { pastedKeyFields } from '../helpers/ebics';
import { issueCustomerCertificate, loadOrCreatePki } from '../sandbox/certs';

let pastedKeys: EbicsSubscriberKeys;
let changed: EbicsSubscriberKeys;
let other: EbicsSubscriberKeys;
beforeAll(async () => {
	[pastedKeys, other] = await Promise.all([generateSubscriberKeys({ subject: { commonName: 'Pasted' } }), generateSubscriberKeys({ subject: { commonName: 'Other' } })]);
	changed = keysAfterChange('HCA', pastedKeys, other);
});

function readyState(extra: Partial<EbicsState> = {}): EbicsState {
	return { v: 1, owner: 'HOST/PARTNER1/USER1', phase: 'ready', bank: { keys: {} as never, hashes: { authentication: '', encryption: '' }, at: '2026-11-01T00:00:00.000Z' }, ...extra };
}

function view(keys: EbicsSubscriberKeys, state?: EbicsState, overrides: Record<string, unknown> = {}) {
	return readEbicsCredential({ url: 'https://bank.example/ebics', hostId: 'HOST', partnerId: 'PARTNER1', userId: 'USER1', keySource: 'import', ...pastedKeyFields(keys), ebicsState: state ? JSON.stringify(state) : '', ...overrides });
}

describe('the keys in use with imported keys', () => {
	test('no change: the pasted keys', () => {
		expect(subscriberKeys(view(pastedKeys))).toEqual(pastedKeys);
		expect(subscriberKeys(view(pastedKeys, readyState()))).toEqual(pastedKeys);
	});

	test('after a change, while the pasted fields hold the keys it replaced: the new set', () => {
		const state = readyState({ generated: changed, pastedReplaced: { fingerprint: keysFingerprint(pastedKeys), at: '2026-11-20T10:00:00.000Z' } });
		const current = view(pastedKeys, state);
		expect(pastedSuperseded(current)).toBe(true);
		expect(subscriberKeys(current)).toEqual(changed);
		expect(statusText(current, current.state)).toMatch(/Nothing to do\. The pasted keys are superseded by the key change made on 2026-11-20: the credential uses the new keys it keeps \(encrypted, hidden\) and the pasted fields stay as they were\. Pasting keys other than those makes the credential use the pasted ones again$/);
	});

	test('other keys pasted after a change: the pasted ones, and the status says so', () => {
		const state = readyState({ generated: changed, pastedReplaced: { fingerprint: keysFingerprint(pastedKeys), at: '2026-11-20T10:00:00.000Z' } });
		const current = view(other, state);
		expect(pastedSuperseded(current)).toBe(false);
		expect(subscriberKeys(current)).toEqual(other);
		expect(statusText(current, current.state)).toMatch(/\. The pasted keys differ from those the key change of 2026-11-20 replaced: the credential uses the pasted keys$/);
		// Only one certificate pasted anew is other keys too.
		expect(subscriberKeys(view({ ...pastedKeys, signature: other.signature }, state))).toEqual({ ...pastedKeys, signature: other.signature });
	});

	test('the status is stale once other keys are pasted, until it is written for them', () => {
		const state = readyState({ generated: changed, pastedReplaced: { fingerprint: keysFingerprint(pastedKeys), at: '2026-11-20T10:00:00.000Z' } });
		expect(pastedStatusStale(view(pastedKeys, state))).toBe(false);
		const otherView = view(other, state);
		expect(pastedStatusStale(otherView)).toBe(true);
		notePastedStatus(otherView, state);
		expect(pastedStatusStale(view(other, state))).toBe(false);
		// Pasted back: stale again until written.
		expect(pastedStatusStale(view(pastedKeys, state))).toBe(true);
		// Without a change of pasted keys, or with keys made in n8n: never.
		expect(pastedStatusStale(view(other, readyState()))).toBe(false);
		expect(pastedStatusStale(view(other, state, { keySource: 'generate' }))).toBe(false);
	});

	test('a state of another subscriber, or without the new set, never replaces the pasted keys', () => {
		const replaced = { fingerprint: keysFingerprint(pastedKeys), at: '2026-11-20T10:00:00.000Z' };
		expect(subscriberKeys(view(pastedKeys, readyState({ owner: 'HOST/PARTNER1/OTHER', generated: changed, pastedReplaced: replaced })))).toEqual(pastedKeys);
		expect(subscriberKeys(view(pastedKeys, readyState({ pastedReplaced: replaced })))).toEqual(pastedKeys);
	});

	test('keys made in n8n: the state keys, whatever is recorded about pasted ones', () => {
		const state = readyState({ generated: changed });
		expect(subscriberKeys(readEbicsCredential({ url: 'https://bank.example/ebics', hostId: 'HOST', partnerId: 'PARTNER1', userId: 'USER1', keySource: 'generate', ebicsState: JSON.stringify(state) }))).toEqual(changed);
	});
});

test('the new keys of imported ones are as long as the longest key the order replaces', async () => {
	const long = await generateKeyWithCertificate({ use: 'signature', subject: { commonName: 'Long' }, bits: 3072 });
	const keys = { ...pastedKeys, signature: { privateKeyPem: long.privateKeyPem, certificatePem: long.certificatePem } };
	expect(replacedBits('PUB', keys)).toBe(3072);
	expect(replacedBits('HCS', keys)).toBe(3072);
	expect(replacedBits('HCA', keys)).toBe(2048);
});

describe('a pending change prepared from other pasted keys', () => {
	const refuseSending = async (): Promise<string> => {
		throw new Error('nothing may be sent');
	};

	test('sent: refused by name, nothing sent, the pending change kept', async () => {
		const pending = { order: 'HCA' as const, next: changed, preparedAt: '2026-11-20T10:00:00.000Z', sentAt: '2026-11-20T10:00:01.000Z', from: keysFingerprint(other) };
		const state = readyState({ keyChange: pending });
		for (const step of ['prepare', 'send'] as const)
			await expect(runKeyChange(view(pastedKeys, state), state, { order: 'HCA', step }, refuseSending, new Date())).rejects.toThrow(/^Subscriber Keys: a key change HCA was sent on 2026-11-20 from the keys pasted then, and the pasted keys differ now\. Paste those keys back and run Change Keys with HCA to finish it/);
		expect(state.keyChange).toEqual(pending);
	});

	test('never sent: made again from the keys pasted now, keeping the pasted signature key', async () => {
		const state = readyState({ keyChange: { order: 'HCA', next: changed, preparedAt: '2026-11-20T10:00:00.000Z', from: keysFingerprint(other) } });
		expect(await runKeyChange(view(pastedKeys, state), state, { order: 'HCA', step: 'prepare' }, refuseSending, new Date())).toBeUndefined();
		expect(state.keyChange).toMatchObject({ order: 'HCA', from: keysFingerprint(pastedKeys) });
		expect(state.keyChange!.next.signature).toEqual(pastedKeys.signature);
		expect(state.keyChange!.next.authentication).not.toEqual(changed.authentication);
	});
});

describe('certificates a change would replace', () => {
	let issued: EbicsSubscriberKeys;
	beforeAll(async () => {
		const pki = await loadOrCreatePki();
		const certificate = issueCustomerCertificate(pki, { commonName: 'Pasted' }, new X509Certificate(pastedKeys.signature.certificatePem).publicKey, new Date(Date.now() - 86_400_000), new Date(Date.now() + 86_400_000));
		issued = { ...pastedKeys, signature: { ...pastedKeys.signature, certificatePem: certificate } };
	});

	test('self-signed ones (made in n8n, or by most EBICS clients): none', () => {
		for (const order of ['PUB', 'HCA', 'HCS'] as const) expect(issuedCertificates(order, pastedKeys, { version: 'H005', h004KeyForm: 'certificate' })).toEqual([]);
	});

	test('one an authority issued: named when the order replaces it and carries certificates', () => {
		expect(issuedCertificates('PUB', issued, { version: 'H005', h004KeyForm: 'certificate' })).toEqual([{ key: 'signature', field: 'Signature Certificate (A006)', issuer: expect.stringMatching(/Sandbox Corporate Bank Test CA/) }]);
		expect(issuedCertificates('HCS', issued, { version: 'H004', h004KeyForm: 'certificate' })).toHaveLength(1);
		expect(issuedCertificates('HCA', issued, { version: 'H005', h004KeyForm: 'certificate' })).toEqual([]);
		// EBICS 2.5 with bare keys: no certificate goes to the bank.
		expect(issuedCertificates('PUB', issued, { version: 'H004', h004KeyForm: 'key' })).toEqual([]);
	});

	test('Change Keys refuses it before making or sending anything', async () => {
		const state = readyState();
		await expect(runKeyChange(view(issued, state), state, { order: 'PUB', step: 'prepare' }, async () => await Promise.reject(new Error('nothing may be sent')), new Date())).rejects.toThrow(/^Signature Certificate \(A006\): issued by .*Sandbox Corporate Bank Test CA.*, not self-signed\./);
		expect(state.keyChange).toBeUndefined();
	});
});
