/**
 * The "Corporate Banking EBICS API" credential through n8n's credential test (as the editor runs
 * it on "Save") and the EBICS node's runs, against the sandbox EBICS bank: a new subscriber from
 * its keys to INI and HIA, the letters, activation and HPB against the pinned hashes; imported
 * keys; every bad input and bad bank answer of the initialisation, each a clear message naming
 * what is wrong with nothing sent twice and nothing lost; no key in anything a run shows.
 */
import { X509Certificate } from 'node:crypto';

import { CorporateBankingEbicsApi } from '../../credentials/CorporateBankingEbicsApi.credentials';
import { EBICS_CHECK_FIELD, EBICS_STATUS_FIELD } from '../../nodes/shared/ebics/credential/ebicsCredential';
import { useSandbox } from '../helpers/bank';
import { bankRecords, credentialTest, EBICS_ID, ebicsSecrets, ebicsStore, ebicsValues, errorText, items, runEbics, stored, storedState } from '../helpers/ebicsNode';
import { closedPortUrl } from '../helpers/net';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();

describe('a new subscriber, keys made in n8n', () => {
	test('saving the credential makes the keys and sends INI and HIA once; the status says to send the letters', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		const answer = await credentialTest(store);
		expect(answer.status).toBe('Error');
		expect(answer.message).toMatch(/^Letters sent: the keys went to the bank with INI and HIA on \d{4}-\d\d-\d\d\. Next: print the initialisation letters \(the EBICS node's Initialisation Letters operation\), sign them and send them to the bank/);
		expect(bank().ebics.subscriber('PARTNER1', 'USER1')?.state).toBe('initialised');
		expect(bankRecords(bank(), 'USER1')).toEqual([
			['INI', '', '000000', '000000'],
			['HIA', '', '000000', '000000'],
		]);
		const state = storedState(store)!;
		expect(state).toMatchObject({ owner: 'SBXEBICS/PARTNER1/USER1', phase: 'lettersSent', sent: { ini: { outcome: 'accepted' }, hia: { outcome: 'accepted' } } });
		for (const pair of Object.values(state.generated!)) {
			const certificate = new X509Certificate(pair.certificatePem);
			expect(certificate.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
			expect(certificate.subject).toMatch(/^CN=Erika Mustermann\\?, Sandbox Customer GmbH$/m);
		}
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toBe(answer.message);
		// Until the subscriber is ready the check field stays empty, so n8n runs the next step at every test.
		expect(stored(store)[EBICS_CHECK_FIELD]).toBe('');

		// Saved again before the bank activated it: HPB only, never INI or HIA again.
		const again = await credentialTest(store);
		expect(again.message).toMatch(/^Waiting for the bank: INI and HIA were sent on \d{4}-\d\d-\d\d, and the bank has not activated the subscriber yet/);
		expect(bankRecords(bank(), 'USER1').slice(2)).toEqual([['HPB', '', '091002', '000000']]);
		expect(storedState(store)!.sent).toEqual(state.sent);
	});

	test('the letters carry the hashes of the stored keys, as fields, PDF and HTML; printing them sends nothing', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		await credentialTest(store);
		const before = bank().ebics.records.length;
		const result = await runEbics(store, { operation: 'initialisationLetters' });
		const [letter] = items(result);
		const keys = storedState(store)!.generated!;
		// The SHA-256 of each certificate as upper-case byte pairs, on one line (no line break inside a JSON field).
		const hash = (pem: string) => new X509Certificate(pem).fingerprint256.replace(/:/g, ' ');
		expect(letter.json).toMatchObject({
			hostId: 'SBXEBICS',
			partnerId: 'PARTNER1',
			userId: 'USER1',
			signatureHash: hash(keys.signature.certificatePem),
			authenticationHash: hash(keys.authentication.certificatePem),
			encryptionHash: hash(keys.encryption.certificatePem),
			status: expect.stringMatching(/^Letters sent/),
		});
		expect(letter.binary?.data).toMatchObject({ mimeType: 'application/pdf', fileName: 'ebics-letters-PARTNER1-USER1.pdf' });
		expect(letter.binary?.html).toMatchObject({ mimeType: 'text/html', fileName: 'ebics-letters-PARTNER1-USER1.html' });
		expect(bank().ebics.records.length).toBe(before);
	});

	test('a node run on a brand-new credential sends INI and HIA itself, then says what to do next', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER2'));
		const result = await runEbics(store, { operation: 'initialisationLetters' });
		expect(items(result)[0].json.status).toMatch(/^Letters sent/);
		expect(bankRecords(bank(), 'USER2').map((r) => r[0])).toEqual(['INI', 'HIA']);
		// A download needs the bank's activation: the node asks the bank (HPB) and says it has not.
		const early = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
		expect(early.status).toBe('error');
		expect(errorText(early)).toMatch(/^Download: HPB: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE/);
		expect(errorText(early)).toMatch(/What to do: The bank has not activated the subscriber yet: send the signed initialisation letters and wait for the bank/);
		expect(early.nodeError('Bank')?.name).toBe('NodeApiError');
		expect(bankRecords(bank(), 'USER2').map((r) => r[0])).toEqual(['INI', 'HIA', 'HPB']);
	});

	test("a Save in the editor's dialog opened before the activation: the test after it writes the status anew (the dialog's copy from before is not kept)", async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		await credentialTest(store);
		await credentialTest(store);
		// The dialog opened now holds what n8n gives it: every field but the passwords (redacted).
		const properties = new CorporateBankingEbicsApi().properties;
		const secret = (name: string) => properties.find((p) => p.name === name)?.typeOptions?.password === true;
		const opened = structuredClone(stored(store));
		expect(String(opened[EBICS_STATUS_FIELD])).toMatch(/^Waiting for the bank/);
		// The bank activates the subscriber; the test n8n runs on opening the dialog finds it ready.
		bank().ebics.activate('PARTNER1', 'USER1');
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/^Ready/);
		// Save in the same dialog: n8n stores the dialog's fields, the passwords as stored, then tests.
		const now = stored(store);
		store.update(EBICS_ID, Object.fromEntries(Object.keys({ ...now, ...opened }).map((name) => [name, secret(name) ? now[name] : opened[name]])));
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/^Waiting for the bank/);
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/^Ready: the bank's keys were fetched on \d{4}-\d\d-\d\d and match the hashes of its letter\. Nothing to do$/);
		expect(stored(store)[EBICS_CHECK_FIELD]).not.toBe('');
		expect(storedState(store)!.phase).toBe('ready');
	});

	test('after activation the next test fetches the bank keys, checks them against the pinned hashes, and the subscriber is ready', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		await credentialTest(store);
		bank().ebics.activate('PARTNER1', 'USER1');
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const state = storedState(store)!;
		expect(state.phase).toBe('ready');
		expect(state.bank?.hashes).toEqual(bank().ebics.letterHashes());
		expect(String(stored(store)[EBICS_STATUS_FIELD])).toMatch(/^Ready: the bank's keys were fetched on \d{4}-\d\d-\d\d and match the hashes of its letter\. Nothing to do$/);
		expect(stored(store)[EBICS_CHECK_FIELD]).not.toBe('');
		// A ready credential's test asks the bank once more for its keys, and sends nothing else.
		const count = bank().ebics.records.length;
		const updates = store.updates;
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(bankRecords(bank()).slice(count)).toEqual([['HPB', '', '000000', '000000']]);
		expect(store.updates).toBe(updates);
		// Suspended at the bank: the test of the ready credential says so.
		bank().ebics.suspend('PARTNER1', 'USER1');
		expect((await credentialTest(store)).message).toMatch(/^The bank refuses the subscriber now \(HPB answered 091002 EBICS_INVALID_USER_OR_USER_STATE, the bank's text: "\[EBICS_INVALID_USER_OR_USER_STATE\] [^"]*[^."]"\): it has been suspended/);
	});
});

describe("the bank's key hashes", () => {
	async function activated(overrides: Record<string, unknown>) {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', overrides));
		await credentialTest(store);
		bank().ebics.activate('PARTNER1', 'USER1');
		return store;
	}

	test('are read as users paste them: lower case, colons, line breaks, without spaces', async () => {
		const hashes = bank().ebics.letterHashes();
		const store = await activated({
			bankAuthenticationHash: hashes.authentication.toLowerCase().replace(/ /g, ':'),
			bankEncryptionHash: `  ${hashes.encryption.replace(/\s/g, '')}\n`,
		});
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
	});

	test('none pinned: the test refuses the bank keys, shows their hashes and says what to compare them with', async () => {
		const store = await activated({ bankAuthenticationHash: '', bankEncryptionHash: '' });
		const answer = await credentialTest(store);
		const hashes = bank().ebics.letterHashes();
		expect(answer.status).toBe('Error');
		expect(answer.message).toContain(hashes.authentication);
		expect(answer.message).toContain(hashes.encryption);
		expect(answer.message).toMatch(/^Waiting for you: the bank has activated the subscriber, but its keys are not confirmed\. No hashes of the bank's keys are pinned: .*Compare them with the hashes printed in the bank's letter/s);
		expect(storedState(store)!.bank).toBeUndefined();
	});

	test('a key that does not match the letter is refused, and the node refuses to run with it', async () => {
		const hashes = bank().ebics.letterHashes();
		const store = await activated({ bankAuthenticationHash: hashes.encryption });
		const answer = await credentialTest(store);
		expect(answer.message).toMatch(/The bank's authentication \(X002\) key does not match the hash pinned from the bank's letter/);
		expect(storedState(store)!.bank).toBeUndefined();
		const before = bank().ebics.records.length;
		const run = await runEbics(store, { operation: 'subscriberPermissions' });
		expect(errorText(run)).toMatch(/The bank's authentication \(X002\) key does not match the hash pinned from the bank's letter/);
		// The node asked the bank for its keys again (HPB), and sent nothing that needs them.
		expect(bankRecords(bank()).slice(before).map((r) => r[0])).toEqual(['HPB']);
	});

	test('a ready credential whose pinned hash is changed afterwards is refused before anything is sent', async () => {
		const store = await activated({});
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const data = stored(store);
		store.update('ebics-1', { ...data, bankEncryptionHash: bank().ebics.letterHashes().authentication });
		const before = bank().ebics.records.length;
		const run = await runEbics(store, { operation: 'subscriberPermissions' });
		expect(errorText(run)).toMatch(/^Credential: The bank's encryption \(E002\) key does not match the hash pinned from the bank's letter/);
		expect(bank().ebics.records.length).toBe(before);
	});

	test.each([
		['G0'.repeat(32), /^Bank Authentication Key Hash \(X002\) must be the SHA-256 hash the bank's letter prints: 32 bytes as 64 hexadecimal digits/],
		['AB CD EF', /^Bank Authentication Key Hash \(X002\) must be the SHA-256 hash .*; got 3 bytes$/],
	])('a hash field with %j is refused naming the field; nothing is sent', async (value, message) => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { bankAuthenticationHash: value }));
		const answer = await credentialTest(store);
		expect(answer.message).toMatch(message);
		expect(bank().ebics.records).toEqual([]);
		expect(storedState(store)).toBeUndefined();
	});
});

describe('wrong IDs and a wrong bank', () => {
	test.each([
		['an unknown user', { userId: 'NOBODY' }, /^New: not initialised yet\. INI: the bank answered 091003 EBICS_USER_UNKNOWN/],
		['an unknown host', { hostId: 'OTHERBANK' }, /^New: not initialised yet\. INI: the bank answered 091011 EBICS_INVALID_HOST_ID/],
	])('%s: the bank refuses INI; the status names the code and what to do; the keys made stay', async (_name, overrides, message) => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', overrides));
		const answer = await credentialTest(store);
		expect(answer.message).toMatch(message);
		expect(answer.message).toMatch(/What to do: /);
		expect(bank().ebics.subscriber('PARTNER1', 'USER1')?.state).toBe('new');
		const state = storedState(store)!;
		expect(state.phase).toBe('new');
		expect(state.generated).toBeDefined();
		// Corrected IDs: the same keys go to the right subscriber.
		const fixed = { ...stored(store), userId: 'USER1', hostId: 'SBXEBICS' };
		store.update('ebics-1', fixed);
		expect((await credentialTest(store)).message).toMatch(/^Letters sent/);
		expect(storedState(store)!.generated).toEqual(state.generated);
	});

	test.each([
		['User ID', { userId: 'USER 1' }, /^User ID: "USER 1" is not valid: 1 to 35 letters, digits, "," or "="/],
		['Host ID', { hostId: '' }, /^Host ID is required/],
		['EBICS URL', { url: 'ebics.bank.example' }, /^EBICS URL: must be a web address starting with https:\/\//],
	])('a malformed %s is refused naming the field before anything is sent', async (_field, overrides, message) => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', overrides));
		expect((await credentialTest(store)).message).toMatch(message);
		expect(bank().ebics.records).toEqual([]);
	});

	test('IDs changed after the bank got the keys: refused, nothing stored, nothing sent', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		await credentialTest(store);
		const before = stored(store);
		const records = bank().ebics.records.length;
		const answer = await credentialTest(store, { ...before, userId: 'USER2' });
		expect(answer.message).toMatch(/^Host ID, Partner ID and User ID: this credential's keys belong to the subscriber SBXEBICS\/PARTNER1\/USER1, which the bank already knows .*create a new EBICS credential for SBXEBICS\/PARTNER1\/USER2/);
		expect(stored(store)).toEqual(before);
		expect(bank().ebics.records.length).toBe(records);
	});

	test('an EBICS URL where nothing listens: nothing reached the bank, the keys stay, and the next save sends INI', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { url: await closedPortUrl() }));
		const answer = await credentialTest(store);
		expect(answer.message).toMatch(/^New: not initialised yet\. INI could not be sent: the connection was refused.*Nothing reached the bank/);
		const keys = storedState(store)!.generated;
		store.update('ebics-1', { ...stored(store), url: String(ebicsValues(bank()).url) });
		expect((await credentialTest(store)).message).toMatch(/^Letters sent/);
		expect(storedState(store)!.generated).toEqual(keys);
	});

	test('a subscriber another client initialised: INI is refused (091002) with what to do', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		await credentialTest(store);
		const other = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		const answer = await credentialTest(other);
		expect(answer.message).toMatch(/INI: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE.*it has keys for it already .*choose "Import Keys"/s);
	});
});

describe('imported keys', () => {
	test('the subscriber the sandbox initialised: the test fetches the bank keys and passes', async () => {
		const store = ebicsStore(ebicsValues(bank()));
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(bankRecords(bank(), 'READY1')).toEqual([['HPB', '', '000000', '000000']]);
		expect(storedState(store)!.generated).toBeUndefined();
	});

	test.each([
		['a private key that is not PEM', { signaturePrivateKey: 'not a key' }, /^Signature Private Key \(A006\): it is not a PEM private key/],
		['a certificate of another key', { authenticationCertificate: '__signature__' }, /^Authentication Certificate \(X002\): it does not belong to the Authentication Private Key \(X002\)/],
		['a missing certificate', { encryptionCertificate: '' }, /^Encryption Certificate \(E002\): required when the keys are imported/],
		['an encrypted key without its passphrase', { signaturePrivateKey: '__encrypted__' }, /^Signature Private Key \(A006\): the key is encrypted: give its passphrase/],
	])('%s is refused naming the field; nothing is sent', async (_name, overrides, message) => {
		const ready = ebicsValues(bank());
		const { createPrivateKey } = await import('node:crypto');
		const values = Object.fromEntries(
			Object.entries(overrides).map(([key, value]) => [
				key,
				value === '__signature__'
					? ready.signatureCertificate
					: value === '__encrypted__'
						? createPrivateKey(String(ready.signaturePrivateKey)).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' })
						: value,
			]),
		);
		const store = ebicsStore({ ...ready, ...values });
		expect((await credentialTest(store)).message).toMatch(message);
		expect(bank().ebics.records).toEqual([]);
	});

	test('an encrypted key with its passphrase works; the passphrase shows nowhere', async () => {
		const ready = ebicsValues(bank());
		const { createPrivateKey } = await import('node:crypto');
		const encrypted = createPrivateKey(String(ready.signaturePrivateKey)).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' });
		const store = ebicsStore({ ...ready, signaturePrivateKey: encrypted, keyPassphrase: 'correct horse' });
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const result = await runEbics(store, { operation: 'bankVersions' });
		expect(items(result).length).toBe(2);
		expect(ebicsSecrets(bank(), store).scan(shownBy(result))).toEqual([]);
	});
});

describe('secrets', () => {
	test('no private key of the credential shows in any run, error or log of the initialisation', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		const runs = [await runEbics(store, { operation: 'initialisationLetters' }), await runEbics(store, { operation: 'download', downloadService: 'camt053' })];
		const answers = [await credentialTest(store)];
		const secrets = ebicsSecrets(bank(), store);
		expect(secrets.count('generated')).toBeGreaterThan(10);
		for (const run of runs) expect(secrets.scan(shownBy(run))).toEqual([]);
		expect(secrets.scan(answers.map((a) => ({ where: 'credential test', text: a.message ?? '' })))).toEqual([]);
		expect(secrets.scan([{ where: 'status', text: String(stored(store)[EBICS_STATUS_FIELD]) }])).toEqual([]);
	});
});
