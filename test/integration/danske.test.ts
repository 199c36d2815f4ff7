/**
 * Danske Bank end to end through the real n8n engine against the sandbox's Danske endpoints:
 * every file operation with encryption both ways (the sandbox refuses anything not encrypted to
 * the bank's encryption certificate and answers encrypted to the customer's), byte-identical
 * round trips at 1 KB and 50 MB (the 50 MB one streamed, never held in memory), enrolment from a
 * PIN through the PKIFactoryService, and every bad case the issue names, each with its message and
 * a scan for keys and the PIN in everything the run shows.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CorporateBankingFileServiceApi } from '../../credentials/CorporateBankingFileServiceApi.credentials';
import { CHECK_HEADER, CHECK_PASSED_URL, CHECK_PLACEHOLDER_URL, readEnrolmentState, readPendingEnrolment } from '../../nodes/shared/bxd/credential/fileServiceCredential';
import { forgetSpentCodes } from '../../nodes/shared/keys';
import { testCredential, type CredentialTestAnswer } from '../harness/credentialTest';
import type { ChainStep, CredentialStore, RunResult } from '../harness/engine';
import { CREDENTIAL_IDS, FILES, fileServiceStore, useSandbox } from '../helpers/bank';
import { INSPECT_FILE, MAKE_STREAMED_FILE, streamedFileNodes } from '../helpers/binaryNodes';
import { allocationWatch } from '../helpers/memory';
import { FILE_SERVICE_TYPE as TYPE, runFileServiceChain } from '../helpers/nodes';
import { enrolmentSecrets, shownBy } from '../reliability/lib/secrets';
import type { SandboxBank } from '../sandbox';

const sandbox = useSandbox({ seed: 42 });
const bank = (): SandboxBank => sandbox.bank();
const MB = 1_000_000;

beforeEach(() => forgetSpentCodes());

async function chain(steps: ChainStep[], store: CredentialStore, inputItems?: INodeExecutionData[]): Promise<RunResult> {
	return await runFileServiceChain(steps, { store, nodeTypes: streamedFileNodes(), inputItems });
}

const make = (size: number): ChainStep => ({ name: 'Make', type: MAKE_STREAMED_FILE, parameters: { size, fileName: 'payments.xml' } });
const upload: ChainStep = { name: 'Upload', type: TYPE, parameters: { operation: 'uploadFile', fileType: { __rl: true, mode: 'id', value: 'pain.001.001.03' } } };
const list: ChainStep = { name: 'List', type: TYPE, parameters: { operation: 'downloadFileList', status: 'ALL', fileType: 'pain.001.001.03' } };
const download: ChainStep = { name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: "={{ $('Upload').item.json.fileReference }}" } };
const remove: ChainStep = { name: 'Delete', type: TYPE, parameters: { operation: 'deleteFile', fileReference: "={{ $('Upload').item.json.fileReference }}" } };
const inspect: ChainStep = { name: 'Inspect', type: INSPECT_FILE, parameters: {} };

/** Neither the PIN nor any private key (pasted, enrolled before or after) shows anywhere in the run. */
function expectNoSecrets(result: RunResult, store: CredentialStore, pin?: string): void {
	const secrets = enrolmentSecrets(bank(), store, pin);
	secrets.addPem('encryption key', bank().danske.customerEncryptionKeyPem);
	expect(secrets.scan(shownBy(result))).toEqual([]);
}

/** n8n's credential test of the store's File Service credential, as the editor runs it on "Save". */
async function credentialTest(store: CredentialStore): Promise<CredentialTestAnswer> {
	return await testCredential({ store, credentialTypes: [new CorporateBankingFileServiceApi()], id: CREDENTIAL_IDS[FILES] });
}

function nodeErrorText(result: RunResult, name: string): string {
	const error = result.nodeError(name) as (Error & { description?: string }) | undefined;
	return `${error?.message ?? ''} ${error?.description ?? ''}`;
}

describe('Danske Bank: every operation encrypted both ways (pasted certificates)', () => {
	test('upload, list, download and delete a 1 KB file: byte-identical, each request encrypted and signed, each answer decrypted and verified', async () => {
		const store = fileServiceStore(bank().danskeCredential());
		const made = await chain([make(1024)], store);
		const [original] = made.output('Make');
		const result = await chain([upload, list, download, inspect, remove], store, [original]);
		expect(result.error?.message).toBeUndefined();
		const [uploaded] = result.output('Upload');
		expect(uploaded.json).toMatchObject({ responseCode: '00', fileSize: 1024 });
		expect(result.output('List').map((i) => i.json.fileReference)).toContain(uploaded.json.fileReference);
		expect(result.output('Download')[0].json).toMatchObject({ fileReference: uploaded.json.fileReference, fileSize: 1024, responseCode: '00' });
		expect(result.output('Inspect')[0].json).toMatchObject({ sha256: original.json.sha256, size: 1024 });
		expect(result.output('Delete')[0].json).toMatchObject({ responseCode: '00' });
		expect(bank().files.get(String(uploaded.json.fileReference))).toBeUndefined();
		// The sandbox takes only requests encrypted to the bank's certificate, and checked every signature.
		const calls = bank().stats.soapCalls;
		expect(calls.map((c) => c.operation)).toEqual(['uploadFile', 'downloadFileList', 'downloadFile', 'deleteFile']);
		expect(calls.every((c) => c.signature === 'valid' && c.responseCode === '00')).toBe(true);
		expectNoSecrets(result, store);
	});

	test('50 MB round trip: byte-identical, streamed both ways through the encryption, never held in memory', async () => {
		const store = fileServiceStore(bank().danskeCredential());
		const made = await chain([make(50 * MB)], store);
		const [original] = made.output('Make');
		const watch = allocationWatch();
		const result = await chain([upload, download, inspect], store, [original]);
		const largest = watch.stop();
		expect(result.error?.message).toBeUndefined();
		expect(result.output('Upload')[0].json).toMatchObject({ responseCode: '00', fileSize: 50 * MB });
		expect(result.output('Inspect')[0].json).toMatchObject({ sha256: original.json.sha256, size: 50 * MB });
		expect(bank().stats.soapCalls.find((c) => c.operation === 'uploadFile')).toMatchObject({ signature: 'valid', responseCode: '00' });
		// Its base64 alone would be 67 MB, the encrypted message about 120 MB.
		expect(largest).toBeLessThan(4 * 1024 * 1024);
	}, 600_000);

	test('a request that is not encrypted is refused by the bank with its code', async () => {
		// The ordinary sandbox credential (no encryption) pointed at the Danske address, with a Custom profile.
		const values = bank().danskeCredential();
		const store = fileServiceStore({ ...values, bank: 'custom' });
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		expect(nodeErrorText(result, 'List')).toMatch(/must be encrypted/);
		expect(nodeErrorText(result, 'List')).toMatch(/12/);
	});
});

describe('Danske Bank: bad answers and bad certificates', () => {
	test.each([
		['otherKey', /encrypted to another key/],
		['corrupt', /EncryptedData is damaged/],
		['algorithm', /does not support: http:\/\/www\.w3\.org\/2001\/04\/xmlenc#aes256-cbc/],
	] as const)('an answer flawed as %s fails with a clear message, leaking no key', async (flaw, message) => {
		const store = fileServiceStore(bank().danskeCredential());
		bank().danske.switches.answerFlaw = flaw;
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		expect(nodeErrorText(result, 'List')).toMatch(message);
		expectNoSecrets(result, store);
	});

	test('a bank encryption certificate that does not match the pinned root is refused before anything is sent', async () => {
		const store = fileServiceStore({ ...bank().danskeCredential(), bankEncryptionCertificate: bank().danske.foreignCertPem });
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		expect(nodeErrorText(result, 'List')).toMatch(/Bank Encryption Certificate: it does not match the pinned Bank Certificate/);
		expect(bank().stats.soapCalls).toHaveLength(0);
		expectNoSecrets(result, store);
	});

	test('an encryption key that does not belong to the encryption certificate is named', async () => {
		const store = fileServiceStore({ ...bank().danskeCredential(), encryptionPrivateKey: bank().tls.customerSigningKeyPem });
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		expect(nodeErrorText(result, 'List')).toMatch(/Encryption Certificate: it does not hold the public key of the Encryption Private Key/);
		expectNoSecrets(result, store);
	});
});

describe('Danske Bank: enrolment from a PIN through the PKIFactoryService', () => {
	function stored(store: CredentialStore): IDataObject {
		return store.get(CREDENTIAL_IDS[FILES])!.data as IDataObject;
	}

	test('a credential with only a PIN fetches and checks the bank certificates, enrols two key pairs, clears the PIN and works encrypted', async () => {
		const values = bank().danskeCredential({ pin: 'new' });
		const pin = String(values.pin);
		const store = fileServiceStore(values);
		const result = await chain([list], store);
		expect(result.error?.message).toBeUndefined();
		const data = stored(store);
		expect(data.pin).toBe('');
		expect(String(data.enrolmentStatus)).toMatch(/^Signing and encryption certificates enrolled \d{4}-\d\d-\d\d; valid until /);
		const state = readEnrolmentState(data.enrolment)!;
		expect(state.encryption?.certificatePem).toMatch(/BEGIN CERTIFICATE/);
		expect(state.bankCertificates?.encryptionPem).toMatch(/BEGIN CERTIFICATE/);
		expect(state.certificatePem).not.toBe(state.encryption?.certificatePem);
		expect(bank().danske.records.map((r) => [r.operation, r.returnCode])).toEqual([
			['GetBankCertificate', '00'],
			['CreateCertificate', '00'],
			['CertificateStatus', '00'],
		]);
		// List Files went out signed with the new signing key; its answer came encrypted to the new encryption key.
		const calls = bank().stats.soapCalls;
		expect(calls.length).toBeGreaterThan(0);
		expect(calls.every((c) => c.operation === 'downloadFileList' && c.signature === 'valid' && ['00', '24'].includes(c.responseCode ?? ''))).toBe(true);
		expectNoSecrets(result, store, pin);

		// Upload and download with the enrolled certificates.
		const made = await chain([make(1024)], store);
		const round = await chain([upload, download, inspect], store, [made.output('Make')[0]]);
		expect(round.error?.message).toBeUndefined();
		expect(round.output('Inspect')[0].json).toMatchObject({ sha256: made.output('Make')[0].json.sha256, size: 1024 });

		// Get Bank Certificates lists the bank's and the own certificates with their status.
		const certs = await chain([{ name: 'Certs', type: TYPE, parameters: { operation: 'getBankCertificates' } }], store);
		expect(certs.error?.message).toBeUndefined();
		const items = certs.output('Certs').map((i) => i.json);
		expect(items.map((i) => i.name)).toEqual(['BankEncryptionCert', 'BankSigningCert', 'BankRootCert', 'OwnSigningCert', 'OwnEncryptionCert']);
		expect(items.slice(3).map((i) => i.status)).toEqual(['good', 'good']);
		expectNoSecrets(certs, store, pin);
	});

	test('renewal makes new key pairs signed with the current key; a refused renewal keeps the current certificates', async () => {
		const store = fileServiceStore(bank().danskeCredential({ pin: 'new' }));
		expect((await chain([list], store)).error?.message).toBeUndefined();
		const before = readEnrolmentState(stored(store).enrolment)!;

		bank().danske.switches.refuseRenewal = { code: '40', text: 'Renewal not allowed.' };
		const refused = await chain([{ name: 'Renew', type: TYPE, parameters: { operation: 'renewCertificate' } }], store);
		expect(refused.status).toBe('error');
		expect(nodeErrorText(refused, 'Renew')).toMatch(/code 40: Renewal not allowed/);
		expect(nodeErrorText(refused, 'Renew')).toMatch(/current certificate/);
		expect(readEnrolmentState(stored(store).enrolment)!.certificatePem).toBe(before.certificatePem);
		expect((await chain([list], store)).error?.message).toBeUndefined();

		const renewed = await chain([{ name: 'Renew', type: TYPE, parameters: { operation: 'renewCertificate' } }], store);
		expect(renewed.error?.message).toBeUndefined();
		const after = readEnrolmentState(stored(store).enrolment)!;
		expect(after.certificatePem).not.toBe(before.certificatePem);
		expect(after.encryption!.privateKeyPem).not.toBe(before.encryption!.privateKeyPem);
		expect(after.renewedAt).toBeDefined();
		expect((await chain([list], store)).error?.message).toBeUndefined();
		expectNoSecrets(renewed, store);
	});

	test('a wrong PIN fails with the bank code, stores nothing and never shows the PIN', async () => {
		const store = fileServiceStore(bank().danskeCredential({ pin: '1234509876' }));
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		expect(nodeErrorText(result, 'List')).toMatch(/code 31: Invalid PIN/);
		expect(nodeErrorText(result, 'List')).toMatch(/Nothing was stored/);
		expect(readEnrolmentState(stored(store).enrolment)).toBeUndefined();
		expectNoSecrets(result, store, '1234509876');
		// The same PIN is not sent again.
		const again = await chain([list], store);
		expect(nodeErrorText(again, 'List')).toMatch(/already sent to the bank/);
		expect(bank().danske.records.filter((r) => r.operation === 'CreateCertificate')).toHaveLength(1);
	});

	test.each(['sha1', 'sha256'] as const)(
		"the PKI service signing with %s, the profile's defaults and Accept SHA-1 off: saved once, enrolled, the PIN sent once; the test then names Accept SHA-1 for the file service's answers",
		async (algorithm) => {
			bank().danske.answerAlgorithm = algorithm;
			// As the docs tell a user: Danske Bank's Signature Algorithm (RSA-SHA1), Accept SHA-1 left off.
			const values: Record<string, unknown> = { ...bank().danskeCredential({ pin: 'new' }), signatureAlgorithm: 'profile' };
			expect(values).not.toHaveProperty('acceptSha1');
			const store = fileServiceStore(values);
			const answer = await credentialTest(store);
			const data = stored(store);
			const state = readEnrolmentState(data.enrolment)!;
			expect(state.encryption?.certificatePem).toMatch(/BEGIN CERTIFICATE/);
			expect(readPendingEnrolment(data.enrolment)).toBeUndefined();
			// How an XML-DSig signature made with RSA and this hash is named.
			expect(state.answerSignature).toBe({ sha1: 'RSA-SHA1', sha256: 'RSA-SHA256' }[algorithm]);
			expect(String(data.enrolmentStatus)).toMatch(
				new RegExp(`^Signing and encryption certificates enrolled \\S+; valid until \\S+ \\(renewed automatically when they come within the renewal window\\)\\. The certificate service signed its answer with ${state.answerSignature}; the certificate chains to the pinned Bank Certificate\\. Before it can be used: the Signature Algorithm is RSA-SHA1 \\(as the Danske Bank profile says\\)`),
			);
			expect(answer.status).toBe('Error');
			expect(answer.message).toMatch(/^Accept SHA-1 Signatures From the Bank: required: the Signature Algorithm is RSA-SHA1 \(as the Danske Bank profile says\), .*no new PIN is needed$/);
			expect(bank().danske.records.map((r) => [r.operation, r.carriedPin, r.returnCode])).toEqual([
				['GetBankCertificate', false, '00'],
				['CreateCertificate', true, '00'],
				['CertificateStatus', false, '00'],
			]);
			// Switched on and saved: the test passes, nothing goes to the PKI service again.
			store.set({ id: CREDENTIAL_IDS[FILES], name: 'files', type: FILES, data: { ...stored(store), acceptSha1: true } as unknown as Record<string, string> });
			expect(await credentialTest(store)).toEqual({ status: 'OK' });
			expect(bank().danske.records).toHaveLength(3);
			const listed = await chain([list], store);
			expect(listed.error?.message).toBeUndefined();
			expectNoSecrets(listed, store, String(values.pin));
		},
	);

	test('a wrong pinned root stops the enrolment before the PIN is sent (GetBankCertificate); corrected, the same PIN enrols, sent once', async () => {
		const values = bank().danskeCredential({ pin: 'new' });
		const store = fileServiceStore({ ...values, bankCertificate: bank().tls.otherCaPem });
		const refused = await credentialTest(store);
		expect(refused.message).toMatch(/^Enrolment stopped before the PIN was sent: the PKIFactoryService answered code 09: Bank root certificate not found\..*The PIN was not sent and still works: correct this and save the credential again\. Nothing was stored$/);
		expect(store.updates).toBe(0);
		store.set({ id: CREDENTIAL_IDS[FILES], name: 'files', type: FILES, data: { ...stored(store), bankCertificate: bank().tls.caPem } as unknown as Record<string, string> });
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(readEnrolmentState(stored(store).enrolment)).toBeDefined();
		expect(bank().danske.records.filter((r) => r.carriedPin)).toHaveLength(1);
	});

	test('a bank encryption certificate from another root is refused before the PIN is sent', async () => {
		bank().danske.switches.foreignBankCertificate = true;
		const values = bank().danskeCredential({ pin: 'new' });
		const store = fileServiceStore(values);
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		expect(nodeErrorText(result, 'List')).toMatch(/encryption certificate: it does not match the pinned Bank Certificate/);
		expect(bank().danske.records.map((r) => r.operation)).toEqual(['GetBankCertificate']);
		expectNoSecrets(result, store, String(values.pin));
	});

	test('renews by itself within the renewal window, signed with the current key', async () => {
		bank().danske.lifetimeDays = 20;
		const store = fileServiceStore({ ...bank().danskeCredential({ pin: 'new' }), renewalWindowDays: 30 });
		expect((await chain([list], store)).error?.message).toBeUndefined();
		const first = bank().danske.records.filter((r) => r.operation === 'CreateCertificate');
		expect(first).toHaveLength(1);
		const again = await chain([list], store);
		expect(again.error?.message).toBeUndefined();
		expect(bank().danske.records.some((r) => r.operation === 'RenewCertificate' && r.returnCode === '00')).toBe(true);
		const state = readEnrolmentState(stored(store).enrolment)!;
		expect(state.renewedAt).toBeDefined();
		expect(String(stored(store).enrolmentStatus)).toMatch(/renewed/);
		expectNoSecrets(again, store);
	});

	test('CertificateStatus failing after CreateCertificate: the certificates are kept pending, nothing is in use; once the bank reports them good, saving again completes the enrolment without the PIN', async () => {
		bank().danske.switches.status = 'revoked';
		const values = bank().danskeCredential({ pin: 'new' });
		const store = fileServiceStore(values);
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		const pendingMessage =
			/Enrolment not complete: the bank answered CreateCertificate on \S+ with certificates for the keys made in n8n, but CertificateStatus: the bank reports the new signing certificate \d+ as revoked \(.*\), not valid\. The certificates and their keys are kept in the credential and the PIN was used: save the credential again \(or run a node with it\) once the bank answers, which completes the enrolment without a new PIN; if it keeps failing, ask the bank/;
		expect(nodeErrorText(result, 'List')).toMatch(pendingMessage);
		expect(readEnrolmentState(stored(store).enrolment)).toBeUndefined();
		const pending = readPendingEnrolment(stored(store).enrolment)!;
		expect(pending).toMatchObject({ kind: 'enrol', command: 'CreateCertificate' });
		expect(pending.field).toBeUndefined();
		expect(stored(store).pin).toBe('');
		expect(bank().stats.soapCalls).toHaveLength(0);
		expect((await credentialTest(store)).message).toMatch(pendingMessage);
		expectNoSecrets(result, store, String(values.pin));

		delete bank().danske.switches.status;
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const state = readEnrolmentState(stored(store).enrolment)!;
		expect(readPendingEnrolment(stored(store).enrolment)).toBeUndefined();
		expect(state.privateKeyPem).toBe(pending.privateKeyPem);
		expect(state.encryption?.privateKeyPem).toBe(pending.encryptionKeyPem);
		// The completion asked for the bank's certificates and the status again; the PIN went once.
		expect(bank().danske.records.map((r) => [r.operation, r.carriedPin])).toEqual([
			['GetBankCertificate', false],
			['CreateCertificate', true],
			['CertificateStatus', false],
			['GetBankCertificate', false],
			['CertificateStatus', false],
			['GetBankCertificate', false],
			['CertificateStatus', false],
		]);
		const listed = await chain([list], store);
		expect(listed.error?.message).toBeUndefined();
		expectNoSecrets(listed, store, String(values.pin));
	});

	test('a renewal whose CertificateStatus fails keeps the current certificates in use and the new ones pending; the next run completes it', async () => {
		const store = fileServiceStore(bank().danskeCredential({ pin: 'new' }));
		expect((await chain([list], store)).error?.message).toBeUndefined();
		const before = readEnrolmentState(stored(store).enrolment)!;
		bank().danske.switches.status = 'revoked';
		const refused = await chain([{ name: 'Renew', type: TYPE, parameters: { operation: 'renewCertificate' } }], store);
		expect(nodeErrorText(refused, 'Renew')).toMatch(
			/Renewal not complete: the bank answered RenewCertificate on \S+ with new certificates for the keys made in n8n, but CertificateStatus: .* as revoked .*The new certificates and their keys are kept in the credential, and the current certificates \(valid until [^)]+\) keep being used/,
		);
		expect(readEnrolmentState(stored(store).enrolment)!.certificatePem).toBe(before.certificatePem);
		const pending = readPendingEnrolment(stored(store).enrolment)!;
		expect(pending.kind).toBe('renew');

		delete bank().danske.switches.status;
		expect((await chain([list], store)).error?.message).toBeUndefined();
		const after = readEnrolmentState(stored(store).enrolment)!;
		expect(after.privateKeyPem).toBe(pending.privateKeyPem);
		expect(after.renewedAt).toBeDefined();
		expect(readPendingEnrolment(stored(store).enrolment)).toBeUndefined();
		expect(bank().danske.records.filter((r) => r.operation === 'RenewCertificate')).toHaveLength(1);
	});

	test('a PKI fault names its code and text', async () => {
		const values: Record<string, unknown> = { ...bank().danskeCredential({ pin: 'new' }), customerId: '99999999', senderId: '99999999' };
		const store = fileServiceStore(values);
		const result = await chain([list], store);
		expect(result.status).toBe('error');
		expect(nodeErrorText(result, 'List')).toMatch(/PKIFactoryService answered code 10: Unknown customer/);
		expectNoSecrets(result, store, String(values.pin));
	});
});

describe('Danske Bank: the credential test', () => {
	const credentialType = new CorporateBankingFileServiceApi();
	const testRequest = () => ({ method: 'POST' as const, url: CHECK_PLACEHOLDER_URL, headers: { [CHECK_HEADER]: 'test' }, json: false });

	test('pasted certificates: an encrypted, signed List Files (Danske has no getUserInfo) whose encrypted answer is judged', async () => {
		const options = await credentialType.authenticate(bank().danskeCredential() as ICredentialDataDecryptedObject, testRequest());
		expect(options.url).toBe(CHECK_PASSED_URL);
		expect(bank().stats.soapCalls.map((c) => [c.operation, c.signature])).toEqual([['downloadFileList', 'valid']]);
	});

	test('an answer encrypted to another key makes the test fail with that message', async () => {
		bank().danske.switches.answerFlaw = 'otherKey';
		await expect(credentialType.authenticate(bank().danskeCredential() as ICredentialDataDecryptedObject, testRequest())).rejects.toThrow(
			/^Sent a signed downloadFileList \(List Files\) request to https:\/\/\S+; the bank answered The bank's answer is encrypted to another key/,
		);
	});
});
