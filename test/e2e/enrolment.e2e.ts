/**
 * Enrolment in a real n8n: a File Service credential holding only a PIN (OP profile, the
 * sandbox's addresses) is tested through n8n's own REST API, as the editor does when the user
 * saves it. n8n runs the credential's preAuthentication, which enrols against the sandbox's
 * certificate service, and stores key and certificate encrypted in the credential. The
 * enrolment example then lists and downloads a statement with the new certificate, and nothing
 * in the run shows the key or the PIN.
 */
import { X509Certificate } from 'node:crypto';

import { credentialTestInN8n, expectNotInDatabase, expectNotShown, FILES, runStatementExample, usePinCredential, withCredentialTests, type PinCredential } from './lib/enrolment';
import { packageManifest } from './lib/workflows';
import { closedPortUrl } from '../helpers/net';

const CREDENTIAL: PinCredential = { id: 'enrolled-from-pin-0001', name: 'Bank File Service (enrolled from a PIN)', bank: 'op' };
const EXAMPLE = 'file-service-enrol.json';
const skipReason = packageManifest().credentials.includes(FILES) ? undefined : `package.json does not list ${FILES}`;

(skipReason ? describe.skip : describe)(`enrolment from a PIN in real n8n${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
	const enrolled = usePinCredential(CREDENTIAL);

	test('saved with an unreachable certificate service: the editor gets the product\'s message, nothing reaches the bank and the PIN is kept (the next test enrols with it)', async () => {
		const { stack, data } = enrolled();
		const closed = await closedPortUrl();
		await withCredentialTests(stack, CREDENTIAL, 'e2e-enrolment-refused', async (test) => {
			const refused = await test({ ...data, certificateServiceUrl: closed });
			expect(refused.status).toBe('Error');
			expect(refused.message).toMatch(
				/Enrolment failed: the certificate service at https:\/\/127\.0\.0\.1:\d+\/services\/CertificateService could not be reached: the connection was refused: nothing accepts connections at that address and port\. The Transfer Key was not sent and still works/,
			);
			expect(refused.message).not.toMatch(/perhaps it is offline/);
			expect(((await stack.bank.admin('GET', '/enrolment')) as { records: unknown[] }).records).toEqual([]);
		});
	}, 300_000);

	test('the credential test in n8n enrols: key and certificate stored in the credential, PIN cleared; the bank gets the signed check once', async () => {
		const { stack, pin } = enrolled();
		await stack.bank.admin('POST', '/reset', {});
		const data = await credentialTestInN8n(enrolled(), CREDENTIAL, 'e2e-enrolment', async () => {
			const records = (await stack.bank.admin('GET', '/enrolment')) as { records: Array<{ command: string; responseCode: string }> };
			expect(records.records.map((r) => [r.command, r.responseCode])).toEqual([['GetCertificate', '00']]);
			const stats = (await stack.bank.admin('GET', '/stats')) as { soapCalls: Array<{ operation: string; signature: string }> };
			expect(stats.soapCalls.map((c) => [c.operation, c.signature])).toEqual([['getUserInfo', 'valid']]);
		});
		expect(data.pin).toBe('');
		expect(String(data.enrolmentStatus)).toMatch(/^Certificate enrolled \d{4}-\d\d-\d\d; valid until /);
		const state = JSON.parse(String(data.enrolment)) as { certificatePem: string; privateKeyPem: string };
		expect(new X509Certificate(state.certificatePem).checkIssued(new X509Certificate(stack.bank.caPem))).toBe(true);
		expect(state.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
		// The database holds it encrypted: neither the key nor the PIN is readable in the file.
		expectNotInDatabase(stack, [state.privateKeyPem], pin);
	}, 300_000);

	test('the example lists and downloads a statement with the enrolled certificate; no key or PIN in the run', async () => {
		const { result, shown, stored } = await runStatementExample(enrolled().stack, CREDENTIAL, EXAMPLE, 'cbenrolmentexample1');
		const state = JSON.parse(String(stored.enrolment)) as { privateKeyPem: string };
		expectNotShown(shown, [state.privateKeyPem], enrolled().pin);
		expect(result.exitCode).toBe(0);
	}, 300_000);
});
