/**
 * Enrolment from a one-time PIN, per bank profile, through the real n8n engine against the
 * sandbox's certificate services: the credential makes its key pair and request, proves the PIN
 * as the bank wants, stores the certificate (encrypted, in the credential) and signs List Files
 * with it; renewal in the window (sandbox clock), on demand and refused; every bad input the
 * issue names, each with its message and a scan for the key and the PIN in everything the run shows.
 */
import { createHash, X509Certificate } from 'node:crypto';

import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CorporateBankingFileServiceApi } from '../../credentials/CorporateBankingFileServiceApi.credentials';
import { prepareRequest } from '../../nodes/shared/bxd';
import {
	CHECK_HEADER,
	CHECK_PASSED_URL,
	CHECK_PLACEHOLDER_URL,
	readEnrolmentState,
	readPendingEnrolment,
	serviceSettings,
} from '../../nodes/shared/bxd/credential/fileServiceCredential';
import { codeHash, forgetSpentCodes } from '../../nodes/shared/keys';
import { testCredential, type CredentialTestAnswer } from '../harness/credentialTest';
import type { CredentialStore, RunResult } from '../harness/engine';
import { CREDENTIAL_IDS, FILES, fileServiceStore, useSandbox } from '../helpers/bank';
import { NODE_NAME, runNode } from '../helpers/nodes';
import { useXmlsec } from '../helpers/xmlsec';
import { enrolmentSecrets, shownBy } from '../reliability/lib/secrets';
import type { SandboxBank } from '../sandbox';
import type { CertAnswerAlgorithm } from '../sandbox/certService';
import { closedPortUrl } from '../helpers/net';

const sandbox = useSandbox({ seed: 42 });
const xmlsec = useXmlsec('enrolment-');
const bank = (): SandboxBank => sandbox.bank();
const DAY = 24 * 60 * 60 * 1000;

type Profile = 'nordea' | 'op' | 'samlink' | 'aktia' | 'pop' | 'saastopankki' | 'handelsbanken';
const dialectOf = (profile: Profile) => (profile === 'nordea' ? 'nordea' : profile === 'op' ? 'op' : 'samlink');

beforeEach(() => forgetSpentCodes());

async function run(store: CredentialStore, parameters: IDataObject = { operation: 'downloadFileList' }): Promise<RunResult> {
	return await runNode({ type: 'corporateFileService', parameters, credentials: { [FILES]: CREDENTIAL_IDS[FILES] }, store });
}

function stored(store: CredentialStore): ICredentialDataDecryptedObject {
	return store.get(CREDENTIAL_IDS[FILES])!.data;
}

function fingerprint(pem: string): string {
	return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}

/** Asserts that neither the PIN nor any private key of the credential (before or after) shows anywhere. */
function expectNoSecrets(result: RunResult, store: CredentialStore, pin: string): void {
	const secrets = enrolmentSecrets(bank(), store, pin);
	expect(secrets.size).toBeGreaterThan(1);
	expect(secrets.scan(shownBy(result))).toEqual([]);
}

/** n8n's credential test of the store's File Service credential, as the editor runs it on "Save". */
async function credentialTest(store: CredentialStore, values?: Record<string, unknown>): Promise<CredentialTestAnswer> {
	return await testCredential({ store, credentialTypes: [new CorporateBankingFileServiceApi()], id: CREDENTIAL_IDS[FILES], values });
}

/** Replaces the stored credential's values, as the editor's "Save" does. */
function save(store: CredentialStore, values: Record<string, unknown>): void {
	store.set({ id: CREDENTIAL_IDS[FILES], name: 'files', type: FILES, data: values as Record<string, string> });
}

/** The requests that carried a one-time PIN, as the bank's certificate services recorded them. */
function pinRequests(): number {
	return bank().certService.records.filter((r) => r.carriedPin).length;
}

/** How an XML-DSig signature made with RSA and this hash is named (the signature method of the W3C URIs). */
const SIGNED_WITH: Record<CertAnswerAlgorithm, string> = { sha1: 'RSA-SHA1', sha256: 'RSA-SHA256', unsigned: 'unsigned' };

function errorText(result: RunResult): string {
	const error = result.nodeError(NODE_NAME) as (Error & { description?: string }) | undefined;
	return `${error?.message ?? ''} ${error?.description ?? ''}`;
}

describe('enrolment from a PIN, per bank profile', () => {
	test.each<Profile>(['nordea', 'op', 'samlink', 'aktia', 'handelsbanken'])(
		'%s: a credential with only a PIN enrols, stores key and certificate, clears the PIN and lists files signed with the new certificate',
		async (profile) => {
			const values = bank().enrolmentCredential(profile);
			const pin = String(values.pin);
			const store = fileServiceStore(values);
			const result = await run(store);
			if (result.status !== 'success') throw new Error(errorText(result));
			expect(result.output(NODE_NAME).length).toBeGreaterThan(0);

			const data = stored(store);
			const state = readEnrolmentState(data.enrolment)!;
			expect(state).toBeDefined();
			expect(data.pin).toBe('');
			expect(String(data.enrolmentStatus)).toMatch(/^Certificate enrolled \d{4}-\d\d-\d\d; valid until \d{4}-/);
			expect(new X509Certificate(state.certificatePem).checkIssued(new X509Certificate(bank().tls.caPem))).toBe(true);
			const records = bank().certService.records;
			expect(records.map((r) => [r.dialect, r.command, r.responseCode])).toEqual([[dialectOf(profile), 'GetCertificate', '00']]);
			expect(records[0].issued).toBe(fingerprint(state.certificatePem));
			// The sandbox verified the List Files signature with the certificate it issued.
			const list = bank().stats.soapCalls.filter((c) => c.operation === 'downloadFileList');
			expect(list.length).toBeGreaterThan(0);
			expect(list.every((c) => c.signature === 'valid' && c.signer === fingerprint(state.certificatePem))).toBe(true);
			expectNoSecrets(result, store, pin);

			// xmlsec1, trusting only the sandbox CA, verifies a List Files signed with the enrolled key.
			const service = serviceSettings(data);
			const prepared = prepareRequest(service.settings, 'downloadFileList', {});
			const inner = Buffer.from(/<mod:ApplicationRequest>([^<]+)</.exec(prepared.envelope.body.toString('utf8'))![1], 'base64');
			expect(xmlsec.run(['--verify', '--trusted-pem', xmlsec.file('ca.pem', bank().tls.caPem), xmlsec.file('list.xml', inner)]).ok).toBe(true);

			// A second run uses the stored certificate: nothing is sent to the certificate service again.
			const again = await run(store);
			expect(again.status).toBe('success');
			expect(bank().certService.records).toHaveLength(1);
		},
	);
});

describe('bad input: a clear error, nothing stored, no PIN or key shown', () => {
	test.each([
		['wrong PIN', () => '1234567890123456', /Enrolment failed: sent GetCertificate with the Transfer Key to https:\/\/.+; the bank answered code 30: Authentication failed: the PIN \(transfer key\) is not valid/],
		['reused PIN', () => bank().certService.usedPin('op'), /the bank answered code 30: Authentication failed: the PIN \(transfer key\) has already been used/],
		['expired PIN', () => bank().certService.newPin('op', { expired: true }), /the bank answered code 30: Authentication failed: the PIN \(transfer key\) has expired/],
	])('%s', async (_name, pinOf, message) => {
		const pin = pinOf();
		const store = fileServiceStore(bank().enrolmentCredential('op', pin));
		const result = await run(store);
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(message);
		expect(errorText(result)).toMatch(/^Credential: /);
		expect(stored(store).enrolment ?? '').toBe('');
		expect(store.updates).toBe(0);
		expect(bank().stats.soapCalls).toHaveLength(0);
		expectNoSecrets(result, store, pin);
	});

	test('a PIN is never sent twice: after a failure the same PIN is refused before anything is sent', async () => {
		const pin = '9999999999999999';
		const store = fileServiceStore(bank().enrolmentCredential('op', pin));
		expect((await run(store)).status).toBe('error');
		expect(bank().certService.records).toHaveLength(1);
		const again = await run(store);
		expect(errorText(again)).toMatch(/this code was already sent to the bank .*A code works once: ask the bank for a new one/);
		expect(bank().certService.records).toHaveLength(1);
		expectNoSecrets(again, store, pin);
	});

	test('a PIN pasted again after a successful enrolment is not sent again', async () => {
		const values = bank().enrolmentCredential('nordea');
		const store = fileServiceStore(values);
		expect((await run(store)).status).toBe('success');
		store.set({ id: CREDENTIAL_IDS[FILES], name: 'files', type: FILES, data: { ...stored(store), pin: values.pin } as Record<string, string> });
		expect((await run(store)).status).toBe('success');
		expect(bank().certService.records).toHaveLength(1);
	});

	test.each([
		['a certificate for another key', 'otherKey', /does not match the key pair generated for this request; it was not stored/],
		['a truncated certificate', 'truncated', /the bank answered, but certificate 1 in the bank's answer is truncated/],
		['a PKCS#7 bundle instead of a certificate', 'pkcs7', /the bank answered, but certificate 1 in the bank's answer is a PKCS#7 bundle, not an X\.509 certificate/],
	] as const)('the bank answers %s', async (_name, broken, message) => {
		bank().certService.switches.brokenCertificate = broken;
		const values = bank().enrolmentCredential('op');
		const store = fileServiceStore(values);
		const result = await run(store);
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(/^Credential: Enrolment failed: /);
		expect(errorText(result)).toMatch(message);
		expect(store.updates).toBe(0);
		expectNoSecrets(result, store, String(values.pin));
	});

	test("the bank rejects the certificate request: its code and text", async () => {
		bank().certService.switches.rejectCsr = { code: '12', text: 'Certificate request rejected: subject not allowed.' };
		const values = bank().enrolmentCredential('samlink');
		const store = fileServiceStore(values);
		const result = await run(store);
		expect(errorText(result)).toMatch(
			/the bank answered code 12: Certificate request rejected: subject not allowed \(The bank refused the content of the request \(its schema or content check\): check that the Customer ID is the web services user ID of the contract .*ask the bank which subject it expects\)\. Nothing was stored/,
		);
		expect(store.updates).toBe(0);
		expectNoSecrets(result, store, String(values.pin));
	});

	test("Samlink's code 30 in Finnish: the error says what it means and what to do", async () => {
		bank().certService.switches.rejectCsr = { code: '30', text: 'Asiakkaan palvelusopimuksen tarkistuksessa virhe:A00' };
		const values = bank().enrolmentCredential('pop');
		const store = fileServiceStore(values);
		const result = await run(store);
		expect(errorText(result)).toMatch(
			/the bank answered code 30: Asiakkaan palvelusopimuksen tarkistuksessa virhe:A00 \(Finnish for: the check of the customer's web services contract failed\. The bank did not accept the one-time code or the contract check: .*Check the Customer ID, then ask the bank for a new code\)\. Nothing was stored/,
		);
		expect(store.updates).toBe(0);
		expectNoSecrets(result, store, String(values.pin));
	});

	test('a PIN that breaks the profile rule is refused before anything is sent', async () => {
		const store = fileServiceStore({ ...bank().enrolmentCredential('op'), pin: '12345' });
		const result = await run(store);
		expect(errorText(result)).toMatch(/^Credential: Transfer Key: must be the 16 digits the bank gave/);
		expect(bank().certService.records).toHaveLength(0);
	});

	test('enrol without a PIN: the error names the field', async () => {
		const store = fileServiceStore({ ...bank().enrolmentCredential('nordea'), pin: '' });
		const result = await run(store);
		expect(errorText(result)).toMatch(/Activation Code \(PIN\): required/);
		expect(bank().certService.records).toHaveLength(0);
	});
});

/** n8n replaces a message naming one of these (in any case) with a generic text of its own. */
const N8N_REWORDED = /ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EADDRNOTAVAIL|ECONNABORTED|EHOSTUNREACH|EAI_AGAIN|GETADDRINFO/i;

describe('a PIN is spent only when the bank has received it', () => {
	test('certificate service unreachable: the PIN was not sent, the message says so, and after fixing the URL the same PIN enrols', async () => {
		const values = bank().enrolmentCredential('op');
		const store = fileServiceStore({ ...values, certificateServiceUrl: await closedPortUrl() });
		const refused = await run(store);
		expect(refused.status).toBe('error');
		expect(errorText(refused)).toMatch(
			/^Credential: Enrolment failed: the certificate service at https:\/\/127\.0\.0\.1:\d+\/services\/CertificateService could not be reached: the connection was refused: nothing accepts connections at that address and port\. The Transfer Key was not sent and still works: correct the address or the connection and save the credential again\. Nothing was stored/,
		);
		expect(errorText(refused)).not.toMatch(N8N_REWORDED);
		expect(bank().certService.records).toHaveLength(0);
		expect(store.updates).toBe(0);

		store.set({ id: CREDENTIAL_IDS[FILES], name: 'files', type: FILES, data: { ...stored(store), certificateServiceUrl: values.certificateServiceUrl } as Record<string, string> });
		const enrolled = await run(store);
		expect(enrolled.status).toBe('success');
		expect(bank().certService.records.map((r) => [r.command, r.responseCode])).toEqual([['GetCertificate', '00']]);
		expect(readEnrolmentState(stored(store).enrolment)).toBeDefined();
		expectNoSecrets(refused, store, String(values.pin));
	});

	test('the connection breaks after the request went out: the outcome is unknown, said so, and the PIN is not sent again', async () => {
		bank().certService.switches.dropAfterRequest = true;
		const values = bank().enrolmentCredential('samlink');
		const store = fileServiceStore(values);
		const broken = await run(store);
		expect(broken.status).toBe('error');
		expect(errorText(broken)).toMatch(
			/^Credential: Enrolment failed: GetCertificate with the Transfer Key was sent to https:\/\/\S+, but the connection was closed before an answer came, so whether the bank used the code is unknown\. Nothing was stored\. A code works once: ask the bank for a new one \(and whether this one was used\)/,
		);
		expect(errorText(broken)).not.toMatch(N8N_REWORDED);
		expect(bank().certService.records).toHaveLength(1);
		const again = await run(store);
		expect(errorText(again)).toMatch(
			/Transfer Key: this code was already sent to the bank \(\S+: the connection broke after it was sent, so whether the bank used it is unknown\)\. A code works once: ask the bank for a new one/,
		);
		expect(bank().certService.records).toHaveLength(1);
		expectNoSecrets(again, store, String(values.pin));
	});

	test('a bank refusal spends the PIN: pasted again, it is refused before anything is sent, naming what the bank answered', async () => {
		const values = bank().enrolmentCredential('op', '1234567890123456');
		const store = fileServiceStore(values);
		expect((await run(store)).status).toBe('error');
		const again = await run(store);
		expect(errorText(again)).toMatch(/this code was already sent to the bank \(\S+: the bank answered code 30: Authentication failed: the PIN \(transfer key\) is not valid/);
		expect(bank().certService.records).toHaveLength(1);
	});
});

/** A bxd profile of each dialect and family, with the Signature Algorithm its profile gives. */
const PROFILE_ALGORITHM: Partial<Record<Profile, 'sha1' | 'sha256'>> = { nordea: 'sha256', op: 'sha256', samlink: 'sha1', pop: 'sha1' };
const LABEL: Record<string, RegExp> = { nordea: /Activation Code \(PIN\)/, op: /Transfer Key/, samlink: /Transfer Key/, pop: /Transfer Key/ };

describe("one PIN enrols whatever algorithm the certificate service signs with (each profile's defaults, Accept SHA-1 off)", () => {
	const cases: Array<[Profile, CertAnswerAlgorithm]> = [
		['nordea', 'sha1'],
		['nordea', 'sha256'],
		['op', 'sha1'],
		['op', 'sha256'],
		['op', 'unsigned'],
		['samlink', 'sha1'],
		['samlink', 'sha256'],
		['pop', 'sha1'],
	];

	test.each(cases)('%s, the certificate service signing with %s: saved once, enrolled, the PIN sent once', async (profile, algorithm) => {
		bank().certService.answerAlgorithms[dialectOf(profile)] = algorithm;
		// As the docs tell a user: the profile's Signature Algorithm, Accept SHA-1 left off.
		const values: Record<string, unknown> = { ...bank().enrolmentCredential(profile), signatureAlgorithm: 'profile' };
		expect(values).not.toHaveProperty('acceptSha1');
		const pin = String(values.pin);
		const store = fileServiceStore(values);
		const answer = await credentialTest(store);

		const data = stored(store);
		const state = readEnrolmentState(data.enrolment)!;
		expect(state).toBeDefined();
		expect(readPendingEnrolment(data.enrolment)).toBeUndefined();
		expect(data.pin).toBe('');
		expect(new X509Certificate(state.certificatePem).checkIssued(new X509Certificate(bank().tls.caPem))).toBe(true);
		expect(state.answerSignature).toBe(SIGNED_WITH[algorithm]);
		const signed = algorithm === 'unsigned' ? 'The certificate service left its answer unsigned' : `The certificate service signed its answer with ${SIGNED_WITH[algorithm]}`;
		expect(String(data.enrolmentStatus)).toMatch(/^Certificate enrolled \d{4}-\d\d-\d\d; valid until \d{4}-\S+ \(renewed automatically when it comes within the renewal window\)\. /);
		expect(String(data.enrolmentStatus)).toContain(`${signed}; the certificate chains to the pinned Bank Certificate.`);
		expect(bank().certService.records.map((r) => [r.dialect, r.command, r.carriedPin, r.responseCode])).toEqual([[dialectOf(profile), 'GetCertificate', true, '00']]);
		expect(bank().certService.records[0].issued).toBe(fingerprint(state.certificatePem));

		if (PROFILE_ALGORITHM[profile] === 'sha1') {
			// The file service's answers will be signed with SHA-1: the status and the test say so, naming the field.
			expect(String(data.enrolmentStatus)).toMatch(/ Before it can be used: the Signature Algorithm is RSA-SHA1 \(as the .+ profile says\), so the bank's file service signs its answers with SHA-1, and they are refused until Accept SHA-1 Signatures From the Bank is on/);
			expect(answer.status).toBe('Error');
			expect(answer.message).toMatch(/^Accept SHA-1 Signatures From the Bank: required: the Signature Algorithm is RSA-SHA1 \(as the .+ profile says\), .*The certificate is enrolled and stored: no new Transfer Key is needed$/);
			expect(bank().stats.soapCalls).toHaveLength(0);
			// Switched on and saved: the test passes; no PIN goes to the bank again.
			save(store, { ...stored(store), acceptSha1: true });
			expect(await credentialTest(store)).toEqual({ status: 'OK' });
		} else {
			expect(String(data.enrolmentStatus)).not.toMatch(/Before it can be used/);
			expect(answer).toEqual({ status: 'OK' });
		}
		expect(pinRequests()).toBe(1);
		// The signed check went out with the certificate enrolled.
		expect(bank().stats.soapCalls.map((c) => [c.signature, c.signer])).toEqual([['valid', fingerprint(state.certificatePem)]]);

		// A run of the node uses it: nothing is sent to the certificate services again.
		const result = await run(store);
		expect(result.status).toBe('success');
		expect(bank().certService.records).toHaveLength(1);
		expectNoSecrets(result, store, pin);
	});
});

describe('a check that fails after the bank issued the certificate: kept pending, completed without a new PIN', () => {
	test.each<[Profile, 'again' | 'blank']>([
		['nordea', 'again'],
		['op', 'blank'],
		['samlink', 'again'],
	])('%s: a wrong pinned root keeps the certificate pending (nothing in use, the test names the field); the root corrected, saving completes it (PIN field: %s)', async (profile, pinField) => {
		const values: Record<string, unknown> = { ...bank().enrolmentCredential(profile), bankCertificate: bank().tls.otherCaPem };
		const pin = String(values.pin);
		const store = fileServiceStore(values);
		const first = await credentialTest(store);
		expect(first.status).toBe('Error');
		const pendingMessage = new RegExp(
			`^Enrolment not complete: the bank answered GetCertificate on \\d{4}-\\d\\d-\\d\\d with a certificate for the key made in n8n, but .*Bank Certificate.*\\. The certificate and its key are kept in the credential and the ${LABEL[profile].source} was used: correct the Bank Certificate and save the credential again, which completes the enrolment without a new ${LABEL[profile].source}$`,
		);
		expect(first.message).toMatch(pendingMessage);
		// What failed: the answer's signature (its signer does not chain to that root) or the certificate's chain.
		expect(first.message).toMatch(/the certificate service's answer failed the signature check against the Bank Certificate: The response signature is invalid: it was made with a certificate \(.*\) that is neither the Bank Certificate of the credential nor issued by it/);
		let data = stored(store);
		expect(readEnrolmentState(data.enrolment)).toBeUndefined();
		const pending = readPendingEnrolment(data.enrolment)!;
		expect(pending).toMatchObject({ kind: 'enrol', command: 'GetCertificate', field: 'Bank Certificate', pinHash: codeHash(String(values.customerId), pin) });
		expect(data.enrolmentCheck).toBe('');
		expect(data.pin).toBe('');
		expect(String(data.enrolmentStatus)).toMatch(pendingMessage);
		expect(pinRequests()).toBe(1);
		expect(bank().stats.soapCalls).toHaveLength(0);

		// A node run says the same and sends nothing to the bank.
		const refused = await run(store);
		expect(refused.status).toBe('error');
		expect(errorText(refused)).toMatch(/^Credential: Enrolment not complete: .* correct the Bank Certificate and save the credential again, which completes the enrolment without a new /);
		expect(pinRequests()).toBe(1);
		expectNoSecrets(refused, store, pin);

		// Saved again with the bank's root (and the PIN field as the editor holds it): completed from what was kept.
		save(store, { ...stored(store), bankCertificate: bank().tls.caPem, pin: pinField === 'again' ? pin : '' });
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		data = stored(store);
		const state = readEnrolmentState(data.enrolment)!;
		expect(readPendingEnrolment(data.enrolment)).toBeUndefined();
		expect(state.privateKeyPem).toBe(pending.privateKeyPem);
		expect(state.pinHash).toBe(pending.pinHash);
		expect(fingerprint(state.certificatePem)).toBe(bank().certService.records[0].issued);
		expect(String(data.enrolmentStatus)).toMatch(/^Certificate enrolled \d{4}-\d\d-\d\d; valid until /);
		expect(bank().certService.records.map((r) => [r.command, r.carriedPin])).toEqual([['GetCertificate', true]]);
		const result = await run(store);
		expect(result.status).toBe('success');
		expect(bank().stats.soapCalls.every((c) => c.signer === fingerprint(state.certificatePem))).toBe(true);
		expectNoSecrets(result, store, pin);
	});

	test('a pending enrolment with a Bank Certificate that cannot be read: the run names that field, and what was kept stays', async () => {
		const store = fileServiceStore({ ...bank().enrolmentCredential('op'), bankCertificate: bank().tls.otherCaPem });
		expect((await credentialTest(store)).message).toMatch(/^Enrolment not complete: /);
		const kept = stored(store).enrolment;
		save(store, { ...stored(store), bankCertificate: 'not a certificate' });
		const result = await run(store);
		expect(errorText(result)).toMatch(/^Credential: Bank Certificate: not a PEM certificate/);
		expect(stored(store).enrolment).toBe(kept);
		expect(pinRequests()).toBe(1);
	});

	test('OP, unsigned answers: a certificate that does not chain to the pinned root (a forgery) is kept pending, naming that check; it is never used', async () => {
		bank().certService.answerAlgorithms.op = 'unsigned';
		bank().certService.switches.forgedIssuer = true;
		const values = bank().enrolmentCredential('op');
		const store = fileServiceStore(values);
		const result = await run(store);
		expect(errorText(result)).toMatch(
			/^Credential: Enrolment not complete: the bank answered GetCertificate on \S+ with a certificate for the key made in n8n, but the certificate the bank issued: it does not match the pinned Bank Certificate \(.*CN=11111111 is not issued by .*Sandbox Corporate Bank Test CA.*\)\. Check that the Bank Certificate is the bank's root certificate\. The certificate and its key are kept in the credential and the Transfer Key was used: correct the Bank Certificate and save the credential again/,
		);
		expect(readEnrolmentState(stored(store).enrolment)).toBeUndefined();
		expect(readPendingEnrolment(stored(store).enrolment)).toBeDefined();
		expect(bank().stats.soapCalls).toHaveLength(0);
		// Running again checks it again, and again it is not used.
		expect(errorText(await run(store))).toMatch(/Enrolment not complete/);
		expect(pinRequests()).toBe(1);
		expectNoSecrets(result, store, String(values.pin));
	});

	test('Nordea: an answer whose signature does not verify is kept pending, naming that check; a new PIN then starts a new enrolment that replaces it', async () => {
		bank().certService.switches.answerSignature = 'tampered';
		const values = bank().enrolmentCredential('nordea');
		const store = fileServiceStore(values);
		const result = await run(store);
		expect(errorText(result)).toMatch(
			/^Credential: Enrolment not complete: the bank answered GetCertificate on \S+ with a certificate for the key made in n8n, but the certificate service's answer failed the signature check against the Bank Certificate: The response signature is invalid: the content does not match its digest/,
		);
		const kept = readPendingEnrolment(stored(store).enrolment)!;
		expect(kept.kind).toBe('enrol');
		expect(readEnrolmentState(stored(store).enrolment)).toBeUndefined();
		// The kept answer cannot pass: the bank's new PIN enrols anew and replaces what was kept.
		const second = bank().certService.newPin('nordea');
		save(store, { ...stored(store), pin: second });
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const state = readEnrolmentState(stored(store).enrolment)!;
		expect(readPendingEnrolment(stored(store).enrolment)).toBeUndefined();
		expect(state.privateKeyPem).not.toBe(kept.privateKeyPem);
		expect(state.pinHash).toBe(codeHash(String(values.customerId), second));
		expect(bank().certService.records.map((r) => [r.command, r.carriedPin, r.responseCode])).toEqual([
			['GetCertificate', true, '00'],
			['GetCertificate', true, '00'],
		]);
		expect(fingerprint(state.certificatePem)).toBe(bank().certService.records[1].issued);
		expectNoSecrets(result, store, String(values.pin));
	});

	test('without a Bank Certificate nothing is sent: the error names the field and the root to paste', async () => {
		const store = fileServiceStore({ ...bank().enrolmentCredential('op'), bankCertificate: '' });
		const result = await run(store);
		expect(errorText(result)).toMatch(/^Credential: Bank Certificate: required to enrol with OP Financial Group: paste the bank's root certificate \(/);
		expect(bank().certService.records).toHaveLength(0);
	});

	test('a PIN that never reached the bank, then corrected: enrolled from the same PIN, sent once', async () => {
		const values: Record<string, unknown> = { ...bank().enrolmentCredential('samlink'), signatureAlgorithm: 'profile', acceptSha1: true };
		const store = fileServiceStore({ ...values, certificateServiceUrl: await closedPortUrl(), bankCertificate: bank().tls.otherCaPem });
		const refused = await credentialTest(store);
		expect(refused.message).toMatch(/^Enrolment failed: the certificate service at \S+ could not be reached: .*The Transfer Key was not sent and still works/);
		expect(store.updates).toBe(0);
		// The address corrected, the root still wrong: the bank answers, the certificate is kept pending.
		save(store, { ...stored(store), certificateServiceUrl: values.certificateServiceUrl });
		expect((await credentialTest(store)).message).toMatch(/^Enrolment not complete: .*correct the Bank Certificate/);
		// The root corrected: complete, the PIN sent once in all.
		save(store, { ...stored(store), bankCertificate: bank().tls.caPem });
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(readEnrolmentState(stored(store).enrolment)).toBeDefined();
		expect(pinRequests()).toBe(1);
	});
});

describe('renewal', () => {
	async function enrolNearExpiry(profile: Profile, daysLeft: number): Promise<CredentialStore> {
		// The sandbox clock runs behind, so the certificate it issues ends `daysLeft` days from now.
		bank().certService.clockOffsetMs = -(bank().certService.validityDays - daysLeft) * DAY;
		const store = fileServiceStore(bank().enrolmentCredential(profile));
		const first = await run(store);
		expect(first.status).toBe('success');
		bank().certService.clockOffsetMs = 0;
		return store;
	}

	test('within the window (sandbox clock), the next run renews: the new certificate replaces the old, which stops being used', async () => {
		const store = await enrolNearExpiry('op', 10);
		const old = readEnrolmentState(stored(store).enrolment)!;
		bank().resetStats();
		const result = await run(store);
		expect(result.status).toBe('success');
		const renewed = readEnrolmentState(stored(store).enrolment)!;
		expect(renewed.certificatePem).not.toBe(old.certificatePem);
		expect(renewed.privateKeyPem).not.toBe(old.privateKeyPem);
		expect(new Date(renewed.notAfter).getTime()).toBeGreaterThan(Date.now() + 600 * DAY);
		expect(bank().certService.records.map((r) => [r.command, r.responseCode])).toEqual([
			['GetCertificate', '00'],
			['RenewCertificate', '00'],
		]);
		const signers = new Set(bank().stats.soapCalls.filter((c) => c.operation === 'downloadFileList').map((c) => c.signer));
		expect([...signers]).toEqual([fingerprint(renewed.certificatePem)]);
		expectNoSecrets(result, store, '');
	});

	test('outside the window nothing is renewed', async () => {
		const store = await enrolNearExpiry('nordea', 200);
		expect((await run(store)).status).toBe('success');
		expect(bank().certService.records.map((r) => r.command)).toEqual(['GetCertificate']);
	});

	test('a renewal the bank refuses keeps the old certificate working, and the run says so in a warning', async () => {
		const store = await enrolNearExpiry('samlink', 10);
		const old = stored(store).enrolment;
		bank().certService.switches.refuseRenewal = { code: '30', text: 'Renewal not allowed for this contract.' };
		const result = await run(store);
		expect(result.status).toBe('success');
		expect(stored(store).enrolment).toBe(old);
		const hints = JSON.stringify(result.runData[NODE_NAME][0].hints ?? []);
		expect(hints).toMatch(
			/Renewal failed: sent RenewCertificate to .+; the bank answered code 30: Renewal not allowed for this contract \(The bank refused the renewal: the contract may not allow renewal from this software, or the current certificate is no longer accepted\. Ask the bank; if it stays, enrol again with a new one-time code\)\. The current certificate \(valid until [^)]+\) keeps being used/,
		);
		expect(result.logs.join('\n')).toMatch(/Renewal failed/);
		expect(hints).toMatch(/expires in (9|10) days/);
		expectNoSecrets(result, store, '');
	});

	test('a renewal whose new certificate fails a check after the bank answered keeps the current certificate in use, and the new one pending', async () => {
		const store = await enrolNearExpiry('nordea', 10);
		const old = readEnrolmentState(stored(store).enrolment)!;
		bank().resetStats();
		// The bank issues the renewed certificate under the CA's name, signed with another key.
		bank().certService.switches.forgedIssuer = true;
		const result = await run(store);
		expect(result.status).toBe('success');
		const data = stored(store);
		const current = readEnrolmentState(data.enrolment)!;
		expect(current.certificatePem).toBe(old.certificatePem);
		expect(current.privateKeyPem).toBe(old.privateKeyPem);
		expect(readPendingEnrolment(data.enrolment)).toMatchObject({ kind: 'renew', command: 'RenewCertificate', field: 'Bank Certificate' });
		const warning =
			/Renewal not complete: the bank answered RenewCertificate on \S+ with a new certificate for the key made in n8n, but the certificate the bank issued: it does not match the pinned Bank Certificate .*The new certificate and its key are kept in the credential, and the current certificate \(valid until [^)]+\) keeps being used: correct the Bank Certificate and save the credential again, which completes the renewal/;
		expect(JSON.stringify(result.runData[NODE_NAME][0].hints ?? [])).toMatch(warning);
		expect(String(data.enrolmentStatus)).toMatch(warning);
		const signers = new Set(bank().stats.soapCalls.filter((c) => c.operation === 'downloadFileList').map((c) => c.signer));
		expect([...signers]).toEqual([fingerprint(old.certificatePem)]);
		// The credential test says so too (the certificate in use still works).
		expect((await credentialTest(store)).message).toMatch(warning);
		expect(bank().certService.records.filter((r) => r.command === 'RenewCertificate')).toHaveLength(1);
		expectNoSecrets(result, store, '');
	});

	test('Renew Certificate with a wrong pinned root: the renewed certificate is kept pending and the current one stays; the root corrected, the next run completes the renewal without asking the bank again', async () => {
		const store = await enrolNearExpiry('samlink', 300);
		const old = readEnrolmentState(stored(store).enrolment)!;
		save(store, { ...stored(store), bankCertificate: bank().tls.otherCaPem });
		const refused = await run(store, { operation: 'renewCertificate' });
		expect(refused.status).toBe('error');
		expect(errorText(refused)).toMatch(/Renew Certificate: Renewal not complete: .*failed the signature check against the Bank Certificate.* the current certificate \(valid until [^)]+\) keeps being used: correct the Bank Certificate/);
		expect(readEnrolmentState(stored(store).enrolment)!.certificatePem).toBe(old.certificatePem);
		const pending = readPendingEnrolment(stored(store).enrolment)!;
		expect(pending.kind).toBe('renew');

		save(store, { ...stored(store), bankCertificate: bank().tls.caPem });
		bank().resetStats();
		const result = await run(store);
		expect(result.status).toBe('success');
		const renewed = readEnrolmentState(stored(store).enrolment)!;
		expect(readPendingEnrolment(stored(store).enrolment)).toBeUndefined();
		expect(renewed.privateKeyPem).toBe(pending.privateKeyPem);
		expect(renewed.renewedAt).toBeDefined();
		expect(String(stored(store).enrolmentStatus)).toMatch(/^Certificate renewed /);
		expect(bank().certService.records.map((r) => r.command)).toEqual(['GetCertificate', 'RenewCertificate']);
		const signers = new Set(bank().stats.soapCalls.filter((c) => c.operation === 'downloadFileList').map((c) => c.signer));
		expect([...signers]).toEqual([fingerprint(renewed.certificatePem)]);
		expectNoSecrets(result, store, '');
	});

	test('Renew Certificate renews on demand, outside the window', async () => {
		const store = await enrolNearExpiry('op', 300);
		const old = readEnrolmentState(stored(store).enrolment)!;
		const result = await run(store, { operation: 'renewCertificate' });
		expect(result.status).toBe('success');
		const [item] = result.output(NODE_NAME) as INodeExecutionData[];
		expect(item.json).toMatchObject({ renewed: true, previousValidUntil: old.notAfter });
		expect(readEnrolmentState(stored(store).enrolment)!.certificatePem).not.toBe(old.certificatePem);
		expectNoSecrets(result, store, '');
	});

	test('an expired enrolled certificate gives an error naming the fix', async () => {
		const expired = {
			v: 1,
			bank: 'op',
			certificatePem: bank().tls.expiredClientCertPem,
			privateKeyPem: bank().tls.expiredClientKeyPem,
			notBefore: new Date(Date.now() - 700 * DAY).toISOString(),
			notAfter: new X509Certificate(bank().tls.expiredClientCertPem).validTo,
			enrolledAt: new Date(Date.now() - 700 * DAY).toISOString(),
		};
		expired.notAfter = new Date(expired.notAfter).toISOString();
		const store = fileServiceStore({ ...bank().enrolmentCredential('op'), pin: '', enrolment: JSON.stringify(expired), enrolmentCheck: expired.notAfter });
		const result = await run(store);
		expect(errorText(result)).toMatch(/^Credential: The signing certificate expired on \S+ and can no longer be renewed\. Ask the bank for a new Transfer Key, paste it into the credential and save: the credential enrols again/);
		expect(bank().stats.soapCalls).toHaveLength(0);
	});
});

describe('credential test', () => {
	const credentialType = new CorporateBankingFileServiceApi();
	const testRequest = () => ({ method: 'POST' as const, url: CHECK_PLACEHOLDER_URL, headers: { [CHECK_HEADER]: 'test' }, json: false });

	test('an enrolled credential: one signed getUserInfo the bank answers; what n8n sends after it stays local', async () => {
		const store = fileServiceStore(bank().enrolmentCredential('op'));
		expect((await run(store)).status).toBe('success');
		bank().resetStats();
		const options = await credentialType.authenticate(stored(store), testRequest());
		expect(options.url).toBe(CHECK_PASSED_URL);
		expect(options.body).toBeUndefined();
		expect(bank().stats.soapCalls.map((c) => [c.operation, c.signature])).toEqual([['getUserInfo', 'valid']]);
	});

	test('Samlink has no getUserInfo: the test lists files instead', async () => {
		const store = fileServiceStore(bank().enrolmentCredential('pop'));
		expect((await run(store)).status).toBe('success');
		bank().resetStats();
		await credentialType.authenticate(stored(store), testRequest());
		expect(bank().stats.soapCalls.map((c) => c.operation)).toEqual(['downloadFileList']);
	});

	test('a refusal says what was sent where and what the bank said', async () => {
		const store = fileServiceStore(bank().enrolmentCredential('op'));
		expect((await run(store)).status).toBe('success');
		const data = { ...stored(store), receiverId: 'NOBODY' };
		await expect(credentialType.authenticate(data, testRequest())).rejects.toThrow(
			/^Sent a signed getUserInfo request to https:\/\/\S+; the bank answered code 29: Invalid parameters: unknown ReceiverId NOBODY \(A parameter is not valid \(file reference, target ID or receiver ID\)\)$/,
		);
	});

	test('the pasted-certificate credential of the sandbox passes', async () => {
		const values = bank().credentialValues()[FILES] as ICredentialDataDecryptedObject;
		await expect(credentialType.authenticate(values, testRequest())).resolves.toMatchObject({ url: CHECK_PASSED_URL });
		expect(bank().stats.soapCalls.map((c) => c.operation)).toEqual(['getUserInfo']);
	});

	test('not enrolled yet: the test names what to do', async () => {
		const values = { ...bank().enrolmentCredential('op'), pin: '' } as ICredentialDataDecryptedObject;
		await expect(credentialType.authenticate(values, testRequest())).rejects.toThrow(/^Certificate: not enrolled yet\. Paste the Transfer Key/);
	});
});

describe('Get Bank Certificates (GetServiceCertificates)', () => {
	test("OP: the bank's certificates, one item each, public parts only", async () => {
		const store = fileServiceStore({ ...bank().enrolmentCredential('op'), pin: '' });
		const result = await run(store, { operation: 'getBankCertificates' });
		expect(result.status).toBe('success');
		const items = result.output(NODE_NAME).map((i) => i.json);
		expect(items.map((i) => i.name)).toEqual(['Sandbox Corporate Bank signing certificate', 'Sandbox Corporate Bank Test CA']);
		expect(items[0].fingerprint256).toBe(new X509Certificate(bank().tls.bankSigningCertPem).fingerprint256);
		expect(String(items[1].pem)).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
		expect(bank().certService.records.map((r) => [r.dialect, r.command, r.responseCode])).toEqual([['op', 'GetServiceCertificates', '00']]);
	});

	test('Samlink has no GetServiceCertificates: the error says so before anything is sent', async () => {
		const store = fileServiceStore({ ...bank().enrolmentCredential('samlink'), pin: '' });
		const result = await run(store, { operation: 'getBankCertificates' });
		expect(errorText(result)).toMatch(/^Get Bank Certificates: Samlink: the certificate service has no GetServiceCertificates/);
		expect(bank().certService.records).toHaveLength(0);
	});
});
