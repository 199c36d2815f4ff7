/**
 * Enrolment from a one-time PIN in a real n8n, for every certificate service (Nordea, OP,
 * Samlink, Danske Bank's PKIFactoryService) whether it signs its answers with RSA-SHA1 (as the
 * banks' public samples do) or RSA-SHA256, with each profile's defaults and Accept SHA-1 off as
 * the docs tell a user. Each File Service credential holds only a PIN from the sandbox bank and
 * is saved through n8n's own REST API as the editor does (PATCH, then n8n's credential test,
 * which runs the credential's preAuthentication): the PIN goes to the bank once and the
 * certificate is stored. A wrong pinned root keeps the issued certificate pending, and the root
 * corrected, saving completes it without the PIN. Then the OP and Danske examples list and
 * download statements with the enrolled certificates, and nothing n8n shows or stores in clear
 * holds a key or a PIN.
 *
 * One stack and one `n8n start` for the whole file (each start costs tens of seconds); the
 * examples run with `n8n execute` once n8n is stopped, at the end.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { CREDENTIAL_EMPTY_VALUE } from 'n8n-workflow';

import { closedPortUrl } from '../helpers/net';
import { expectNotInDatabase, expectNotShown, FILES, runStatementExample, usePinStack, type PinCredential } from './lib/enrolment';
import { packageManifest } from './lib/workflows';

/** The OP credential of the enrolment example (file-service-enrol.json names it). */
const OP_EXAMPLE: PinCredential = { id: 'enrolled-from-pin-0001', name: 'Bank File Service (enrolled from a PIN)', bank: 'op' };
/** The Danske Bank credential of its example (file-service-danske.json names it). */
const DANSKE_EXAMPLE: PinCredential = { id: 'bank-files-danske', name: 'Danske Bank File Service (enrolled from a PIN)', bank: 'danske' };

type Algorithm = 'sha1' | 'sha256';
/** How an XML-DSig signature made with RSA and this hash is named. */
const SIGNED_WITH: Record<Algorithm, string> = { sha1: 'RSA-SHA1', sha256: 'RSA-SHA256' };
/** The sandbox certificate service of each bank profile. */
const SERVICE: Record<string, string> = { nordea: 'nordea', op: 'op', samlink: 'samlink', danske: 'danske' };
/** The profiles whose Signature Algorithm is RSA-SHA1 (docs/banks.md): their file service's answers need Accept SHA-1. */
const SHA1_PROFILES = new Set(['samlink', 'danske']);

const matrix: Array<{ credential: PinCredential; algorithm: Algorithm }> = [
	...(['nordea', 'op', 'samlink', 'danske'] as const).flatMap((bank) =>
		(['sha1', 'sha256'] as const).map((algorithm) => ({
			// The examples' credentials enrol from their service's default, RSA-SHA1.
			credential:
				algorithm === 'sha1' && bank === 'op'
					? OP_EXAMPLE
					: algorithm === 'sha1' && bank === 'danske'
						? DANSKE_EXAMPLE
						: { id: `pin-${bank}-${algorithm}`, name: `${bank} enrolled from a PIN (answers ${algorithm})`, bank },
			algorithm,
		})),
	),
];
const WRONG_ROOT: PinCredential = { id: 'pin-nordea-wrong-root', name: 'Nordea enrolled from a PIN (wrong root first)', bank: 'nordea' };
const DANSKE_STATUS: PinCredential = { id: 'pin-danske-status', name: 'Danske Bank enrolled from a PIN (status late)', bank: 'danske' };

/** As the docs tell a user: the profile's Signature Algorithm, Accept SHA-1 left off. */
const PROFILE_DEFAULTS = { signatureAlgorithm: 'profile' };

const skipReason = packageManifest().credentials.includes(FILES) ? undefined : `package.json does not list ${FILES}`;

(skipReason ? describe.skip : describe)(`enrolment from a PIN in real n8n${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
	const pins = usePinStack(
		[
			OP_EXAMPLE,
			...matrix.filter((m) => m.credential !== OP_EXAMPLE).map((m) => ({ ...m.credential, change: PROFILE_DEFAULTS })),
			WRONG_ROOT,
			DANSKE_STATUS,
		],
		['file-service-enrol.json', 'file-service-danske.json'],
	);

	/** The requests that carried a PIN, as the sandbox's certificate services recorded them. */
	async function pinRequests(): Promise<number> {
		const records = await pins().stack.bank.admin<{ records: Array<{ carriedPin: boolean }>; danske: Array<{ carriedPin: boolean }> }>('GET', '/enrolment');
		return [...records.records, ...records.danske].filter((r) => r.carriedPin).length;
	}

	test("saved with an unreachable certificate service: the editor gets the product's message, nothing reaches the bank and the PIN is kept (the next test enrols with it)", async () => {
		const { stack, editor, values } = pins();
		const refused = await editor.test(OP_EXAMPLE, { ...values[OP_EXAMPLE.id], certificateServiceUrl: await closedPortUrl() });
		expect(refused.status).toBe('Error');
		expect(refused.message).toMatch(
			/Enrolment failed: the certificate service at https:\/\/127\.0\.0\.1:\d+\/services\/CertificateService could not be reached: the connection was refused: nothing accepts connections at that address and port\. The Transfer Key was not sent and still works/,
		);
		expect(refused.message).not.toMatch(/perhaps it is offline/);
		expect(((await stack.bank.admin('GET', '/enrolment')) as { records: unknown[] }).records).toEqual([]);
	}, 120_000);

	test.each(matrix.map((m) => [m.credential.bank, m.algorithm, m] as const))(
		"%s, the certificate service signing with %s: saved once with the profile's defaults, enrolled, the PIN sent once",
		async (bank, algorithm, { credential }) => {
			const { stack, editor, values } = pins();
			await stack.bank.admin('POST', '/enrolment/signing', { [SERVICE[bank]]: algorithm });
			const before = await pinRequests();
			const answer = await editor.test(credential, values[credential.id]);
			if (SHA1_PROFILES.has(bank) && credential !== OP_EXAMPLE) {
				// Enrolled; the file service's answers will be signed with SHA-1: the test names the field.
				expect(answer.status).toBe('Error');
				expect(answer.message).toMatch(/^Accept SHA-1 Signatures From the Bank: required: the Signature Algorithm is RSA-SHA1 \(as the .+ profile says\), .*The certificate is enrolled and stored: no new (PIN|Transfer Key) is needed$/);
				expect(await editor.save(credential, { acceptSha1: true })).toMatchObject({ status: 'OK' });
			} else {
				expect(answer).toMatchObject({ status: 'OK' });
			}
			expect(await pinRequests()).toBe(before + 1);
			const shown = await editor.load(credential);
			expect(shown.pin).toBe(CREDENTIAL_EMPTY_VALUE);
			expect(String(shown.enrolmentStatus)).toMatch(/^(Certificate|Signing and encryption certificates) enrolled \d{4}-\d\d-\d\d; valid until /);
			expect(String(shown.enrolmentStatus)).toContain(`The certificate service signed its answer with ${SIGNED_WITH[algorithm]}; the certificate chains to the pinned Bank Certificate.`);
		},
		120_000,
	);

	test('a wrong pinned root: the issued certificate is kept pending and the test names the Bank Certificate; the root corrected, saving completes the enrolment without the PIN', async () => {
		const { stack, editor } = pins();
		await stack.bank.admin('POST', '/enrolment/signing', { nordea: 'sha1' });
		const before = await pinRequests();
		const otherRoot = readFileSync(path.join(stack.bank.state.certDir, 'other-ca.crt'), 'utf8');
		const pending = await editor.save(WRONG_ROOT, { bankCertificate: otherRoot });
		expect(pending.status).toBe('Error');
		expect(pending.message).toMatch(
			/^Enrolment not complete: the bank answered GetCertificate on \S+ with a certificate for the key made in n8n, but the certificate service's answer failed the signature check against the Bank Certificate: .*\. The certificate and its key are kept in the credential and the Activation Code \(PIN\) was used: correct the Bank Certificate and save the credential again, which completes the enrolment without a new Activation Code \(PIN\)$/,
		);
		expect(await pinRequests()).toBe(before + 1);
		const kept = await editor.load(WRONG_ROOT);
		expect(String(kept.enrolmentStatus)).toMatch(/^Enrolment not complete: /);
		expect(kept.pin).toBe(CREDENTIAL_EMPTY_VALUE);

		expect(await editor.save(WRONG_ROOT, { bankCertificate: stack.bank.caPem })).toMatchObject({ status: 'OK' });
		expect(await pinRequests()).toBe(before + 1);
		expect(String((await editor.load(WRONG_ROOT)).enrolmentStatus)).toMatch(/^Certificate enrolled \d{4}-\d\d-\d\d; valid until .* The certificate service signed its answer with RSA-SHA1; /);
	}, 120_000);

	test("Danske Bank's CertificateStatus failing after CreateCertificate: the certificates are kept pending; once the bank reports them good, saving again completes the enrolment without the PIN", async () => {
		const { stack, editor, values } = pins();
		const before = await pinRequests();
		await stack.bank.admin('POST', '/enrolment/danske', { status: 'revoked' });
		const pending = await editor.test(DANSKE_STATUS, values[DANSKE_STATUS.id]);
		expect(pending.message).toMatch(/^Enrolment not complete: the bank answered CreateCertificate on \S+ with certificates for the keys made in n8n, but CertificateStatus: the bank reports the new signing certificate \d+ as revoked/);
		await stack.bank.admin('POST', '/enrolment/danske', { status: null });
		expect(await editor.save(DANSKE_STATUS, { acceptSha1: true })).toMatchObject({ status: 'OK' });
		expect(await pinRequests()).toBe(before + 1);
		expect(String((await editor.load(DANSKE_STATUS)).enrolmentStatus)).toMatch(/^Signing and encryption certificates enrolled /);
	}, 120_000);

	interface State {
		certificatePem: string;
		privateKeyPem: string;
		answerSignature?: string;
		pending?: unknown;
		encryption?: { privateKeyPem: string };
	}
	/** The enrolments as n8n stores them once its server stopped (decrypted by `n8n export`). */
	const states = new Map<string, State>();

	test('what n8n stores: each certificate chains to the bank root and holds a key made in n8n, nothing is pending, the PINs are cleared; the database holds keys and PINs encrypted', async () => {
		const { stack, values } = pins();
		await stack.n8n.stop();
		const stored = new Map((await stack.n8n.decryptedCredentials()).map((c) => [c.id, c.data]));
		const ca = new X509Certificate(stack.bank.caPem);
		const signedWith = new Map(matrix.map((m) => [m.credential.id, SIGNED_WITH[m.algorithm]]));
		for (const credential of [...matrix.map((m) => m.credential), WRONG_ROOT, DANSKE_STATUS]) {
			const data = stored.get(credential.id)!;
			expect(data.pin).toBe('');
			const state = JSON.parse(String(data.enrolment)) as State;
			states.set(credential.id, state);
			expect(state.pending).toBeUndefined();
			if (signedWith.has(credential.id)) expect(state.answerSignature).toBe(signedWith.get(credential.id));
			expect(new X509Certificate(state.certificatePem).checkIssued(ca)).toBe(true);
			expect(state.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
			expectNotInDatabase(stack, [state.privateKeyPem, ...(state.encryption ? [state.encryption.privateKeyPem] : [])], String(values[credential.id].pin));
		}
	}, 300_000);

	test('the OP example lists and downloads a statement with the enrolled certificate; no key or PIN in the run', async () => {
		const { stack, values } = pins();
		const { result, shown } = await runStatementExample(stack, 'file-service-enrol.json');
		expectNotShown(shown, [states.get(OP_EXAMPLE.id)!.privateKeyPem], String(values[OP_EXAMPLE.id].pin));
		expect(result.exitCode).toBe(0);
	}, 300_000);

	test('the Danske example lists and downloads statements, encrypted both ways; no key or PIN in the run', async () => {
		const { stack, values } = pins();
		// The OP example downloaded the bank's statement: a new one arrives for this one.
		await stack.bank.admin('POST', '/files/arrive', { count: 1, fileType: 'XT' });
		const { result, shown } = await runStatementExample(stack, 'file-service-danske.json');
		const state = states.get(DANSKE_EXAMPLE.id)!;
		expectNotShown(shown, [state.privateKeyPem, state.encryption!.privateKeyPem], String(values[DANSKE_EXAMPLE.id].pin));
		expect(result.exitCode).toBe(0);
	}, 300_000);
});
