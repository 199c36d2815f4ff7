/**
 * Danske Bank in a real n8n: a File Service credential holding only a PIN (Danske Bank profile,
 * the sandbox's Danske addresses, the sandbox CA pinned as the bank's root) is tested through
 * n8n's own REST API, as the editor does when the user saves it. n8n runs the credential's
 * preAuthentication, which enrols through the sandbox's PKIFactoryService (GetBankCertificate,
 * CreateCertificate with the PIN, CertificateStatus) and stores both key pairs encrypted in the
 * credential. The Danske example then lists and downloads statements, every request encrypted and
 * every answer decrypted, and nothing in the run shows a key or the PIN.
 */
import { credentialTestInN8n, expectNotInDatabase, expectNotShown, FILES, runStatementExample, usePinCredential, type PinCredential } from './lib/enrolment';
import { packageManifest } from './lib/workflows';

const CREDENTIAL: PinCredential = { id: 'bank-files-danske', name: 'Danske Bank File Service (enrolled from a PIN)', bank: 'danske' };
const EXAMPLE = 'file-service-danske.json';
const skipReason = packageManifest().credentials.includes(FILES) ? undefined : `package.json does not list ${FILES}`;

interface State {
	certificatePem: string;
	privateKeyPem: string;
	encryption: { certificatePem: string; privateKeyPem: string };
}

(skipReason ? describe.skip : describe)(`Danske Bank in real n8n${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
	const enrolled = usePinCredential(CREDENTIAL);

	test('the credential test in n8n enrols through the PKIFactoryService: two key pairs stored, PIN cleared', async () => {
		const data = await credentialTestInN8n(enrolled(), CREDENTIAL, 'e2e-danske');
		expect(data.pin).toBe('');
		expect(String(data.enrolmentStatus)).toMatch(/^Signing and encryption certificates enrolled /);
		const state = JSON.parse(String(data.enrolment)) as State;
		expect(state.encryption.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
		expectNotInDatabase(enrolled().stack, [state.privateKeyPem, state.encryption.privateKeyPem], enrolled().pin);
	}, 300_000);

	test('the Danske example lists and downloads statements, encrypted both ways; no key or PIN in the run', async () => {
		const { result, shown, stored } = await runStatementExample(enrolled().stack, CREDENTIAL, EXAMPLE, 'cbdanskeexample001');
		const state = JSON.parse(String(stored.enrolment)) as State;
		expectNotShown(shown, [state.privateKeyPem, state.encryption.privateKeyPem], enrolled().pin);
		expect(result.exitCode).toBe(0);
	}, 300_000);
});
