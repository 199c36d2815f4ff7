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
	CHECK_PLACEHOLDER_URL,
	forgetSentPins,
	readEnrolmentState,
	serviceSettings,
} from '../../nodes/shared/fileServiceCredential';
import type { CredentialStore, RunResult } from '../harness/engine';
import { CREDENTIAL_IDS, FILES, fileServiceStore, useSandbox } from '../helpers/bank';
import { NODE_NAME, runNode } from '../helpers/nodes';
import { useXmlsec } from '../helpers/xmlsec';
import { enrolmentSecrets, shownBy } from '../reliability/lib/secrets';
import type { SandboxBank } from '../sandbox';

const sandbox = useSandbox({ seed: 42 });
const xmlsec = useXmlsec('enrolment-');
const bank = (): SandboxBank => sandbox.bank();
const DAY = 24 * 60 * 60 * 1000;

type Profile = 'nordea' | 'op' | 'samlink' | 'aktia' | 'pop' | 'saastopankki' | 'handelsbanken';
const dialectOf = (profile: Profile) => (profile === 'nordea' ? 'nordea' : profile === 'op' ? 'op' : 'samlink');

beforeEach(() => forgetSentPins());

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
		['a truncated certificate', 'truncated', /Certificate 1 in the bank's answer is truncated/],
		['a PKCS#7 bundle instead of a certificate', 'pkcs7', /Certificate 1 in the bank's answer is a PKCS#7 bundle, not an X\.509 certificate/],
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
		expect(errorText(result)).toMatch(/the bank answered code 12: Certificate request rejected: subject not allowed\./);
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
		expect(hints).toMatch(/Renewal failed: sent RenewCertificate to .+; the bank answered code 30: Renewal not allowed for this contract\. The current certificate \(valid until [^)]+\) keeps being used/);
		expect(result.logs.join('\n')).toMatch(/Renewal failed/);
		expect(hints).toMatch(/expires in (9|10) days/);
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

	test('an enrolled credential: a signed getUserInfo the bank answers', async () => {
		const store = fileServiceStore(bank().enrolmentCredential('op'));
		expect((await run(store)).status).toBe('success');
		bank().resetStats();
		const options = await credentialType.authenticate(stored(store), testRequest());
		expect(options.url).toBe(bank().urls.soap);
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
			/^Sent a signed getUserInfo request to https:\/\/\S+; the bank answered code 29: Invalid parameters: unknown ReceiverId NOBODY\./,
		);
	});

	test('the pasted-certificate credential of the sandbox passes', async () => {
		const values = bank().credentialValues()[FILES] as ICredentialDataDecryptedObject;
		await expect(credentialType.authenticate(values, testRequest())).resolves.toMatchObject({ url: bank().urls.soap });
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
