/**
 * Enrolment in a real n8n: a File Service credential holding only a PIN (OP profile, the
 * sandbox's addresses) is tested through n8n's own REST API, as the editor does when the user
 * saves it. n8n runs the credential's preAuthentication, which enrols against the sandbox's
 * certificate service, and stores key and certificate encrypted in the credential. The
 * enrolment example then lists and downloads a statement with the new certificate, and nothing
 * in the run shows the key or the PIN.
 */
import { X509Certificate } from 'node:crypto';

import { credentialTestInN8n, expectNotInDatabase, expectNotShown, FILES, runStatementExample, usePinCredential, type PinCredential } from './lib/enrolment';
import { packageManifest } from './lib/workflows';

const CREDENTIAL: PinCredential = { id: 'enrolled-from-pin-0001', name: 'Bank File Service (enrolled from a PIN)', bank: 'op' };
const EXAMPLE = 'file-service-enrol.json';
const skipReason = packageManifest().credentials.includes(FILES) ? undefined : `package.json does not list ${FILES}`;

(skipReason ? describe.skip : describe)(`enrolment from a PIN in real n8n${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
	const enrolled = usePinCredential(CREDENTIAL);

	test('the credential test in n8n enrols: key and certificate stored in the credential, PIN cleared', async () => {
		const { stack, pin } = enrolled();
		const data = await credentialTestInN8n(enrolled(), CREDENTIAL, 'e2e-enrolment', async () => {
			const records = (await stack.bank.admin('GET', '/enrolment')) as { records: Array<{ command: string; responseCode: string }> };
			expect(records.records.map((r) => [r.command, r.responseCode])).toEqual([['GetCertificate', '00']]);
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
