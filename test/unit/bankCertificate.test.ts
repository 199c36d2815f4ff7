/**
 * Reading the Bank Certificate of the file service credential: what is accepted (a certificate,
 * its CA, a chain, PEM that lost its line breaks) and what is refused before any request, each
 * with a message that states the rule and never quotes the text.
 */
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';

import { BankCertificateError, bankTrust, readBankCertificate } from '../../nodes/shared/bxd';
import { testPki } from '../fixtures/bxd/keys';
import { certificateRequest, changedCharacter, pemBlock as pem, pemBody as body } from '../helpers/pem';

const BEGIN = '-----BEGIN CERTIFICATE-----';
const END = '-----END CERTIFICATE-----';

/** The message of the error thrown, checked to quote none of the text given. */
function refusal(text: string, now?: Date): string {
	let error: unknown;
	try {
		readBankCertificate(text, now);
	} catch (e) {
		error = e;
	}
	expect(error).toBeInstanceOf(BankCertificateError);
	const message = (error as Error).message;
	const pieces = text
		.split(/[\r\n]+|\\n/)
		.map((line) => line.trim())
		.filter((line) => line.length >= 8 && !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(line));
	for (const piece of pieces) expect(message).not.toContain(piece);
	expect(message).not.toMatch(/routines|asn1|error:0|ERR_OSSL/i);
	return message;
}

describe('Bank Certificate: accepted', () => {
	test('the bank certificate, its CA, and a chain of both, in order', () => {
		const { signer, ca } = testPki();
		expect(readBankCertificate(signer.certPem).certificates.map((c) => c.fingerprint256)).toEqual([new X509Certificate(signer.certPem).fingerprint256]);
		expect(readBankCertificate(ca.certPem).certificates).toHaveLength(1);
		const chain = readBankCertificate(`${signer.certPem}\n${ca.certPem}`).certificates;
		expect(chain.map((c) => c.fingerprint256)).toEqual([signer.certPem, ca.certPem].map((p) => new X509Certificate(p).fingerprint256));
	});

	test('PEM that lost its line breaks, with literal \\n, with CRLF, or with an export header before it', () => {
		const { signer } = testPki();
		for (const text of [
			signer.certPem.replace(/\n/g, ' '),
			signer.certPem.replace(/\n/g, '\\n'),
			signer.certPem.replace(/\n/g, '\r\n'),
			`Bag Attributes\n    friendlyName: bank\nsubject=/CN=Fixture Bank File Service\n${signer.certPem}`,
		]) {
			expect(readBankCertificate(text).certificates).toHaveLength(1);
		}
	});
});

describe('Bank Certificate: refused with the rule, never the text', () => {
	const cases: Array<[string, () => string, string | RegExp]> = [
		['base64 that is not a certificate', () => pem(Buffer.from('This is not a certificate at all').toString('base64')), 'the PEM certificate cannot be read (it may be truncated or corrupted)'],
		['an empty PEM block', () => `${BEGIN}\n${END}\n`, 'the PEM certificate cannot be read (it may be truncated or corrupted)'],
		['a character deleted from the body', () => { const b = body(testPki().signer.certPem); return pem(b.slice(0, 300) + b.slice(301)); }, 'the PEM certificate cannot be read (it may be truncated or corrupted)'],
		['the body cut short, END line kept', () => { const lines = testPki().signer.certPem.trim().split('\n'); return [...lines.slice(0, 6), END].join('\n'); }, 'the PEM certificate cannot be read (it may be truncated or corrupted)'],
		['the text cut before the END line', () => testPki().signer.certPem.slice(0, 500), 'the PEM certificate is incomplete: each -----BEGIN CERTIFICATE----- line needs its -----END CERTIFICATE----- line (it may be truncated)'],
		['a chain whose second certificate is cut before its END line', () => `${testPki().signer.certPem}${testPki().ca.certPem.slice(0, 400)}`, /^the PEM certificate is incomplete: /],
		['an END line without its BEGIN line', () => testPki().signer.certPem.slice(40), /^the PEM certificate is incomplete: /],
		['a changed character in a self-signed CA', () => changedCharacter(testPki().ca.certPem), "the PEM certificate is corrupted: its signature does not match its content (paste it again from the bank's original file)"],
		['a private key (PKCS#8)', () => testPki().signer.keyPem, "a private key was given; paste the bank's certificate (-----BEGIN CERTIFICATE-----)"],
		['a private key (traditional RSA)', () => createPrivateKey(testPki().signer.keyPem).export({ format: 'pem', type: 'pkcs1' }).toString(), "a private key was given; paste the bank's certificate (-----BEGIN CERTIFICATE-----)"],
		['an encrypted private key', () => createPrivateKey(testPki().signer.keyPem).export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'secret words' }).toString(), "a private key was given; paste the bank's certificate (-----BEGIN CERTIFICATE-----)"],
		['a certificate followed by its private key', () => `${testPki().signer.certPem}${testPki().signer.keyPem}`, "a private key was given; paste the bank's certificate (-----BEGIN CERTIFICATE-----)"],
		['a certificate request', () => certificateRequest(testPki().signer.keyPem, 'Fixture Customer'), 'a certificate request (CSR) was given; paste the certificate the bank issued (-----BEGIN CERTIFICATE-----)'],
		['a public key', () => createPublicKey(testPki().signer.keyPem).export({ format: 'pem', type: 'spki' }).toString(), "a public key was given; paste the bank's certificate (-----BEGIN CERTIFICATE-----), which holds it"],
		['another kind of PEM block', () => pem(body(testPki().signer.certPem), 'X509 CRL'), "a PEM block that is not a certificate was given; paste the bank's certificate (-----BEGIN CERTIFICATE-----)"],
		['DER bytes pasted as text', () => new X509Certificate(testPki().signer.certPem).raw.toString('latin1'), /^binary \(DER\) data was given; convert it to PEM/],
		['DER bytes read as UTF-8', () => new X509Certificate(testPki().signer.certPem).raw.toString('utf8'), /^binary \(DER\) data was given; convert it to PEM/],
		['DER bytes between PEM lines', () => `${BEGIN}\n${new X509Certificate(testPki().signer.certPem).raw.toString('latin1')}\n${END}\n`, /^the PEM certificate holds binary \(DER\) data instead of base64 text/],
		['base64 without the PEM lines', () => body(testPki().signer.certPem), 'not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")'],
		['an expired certificate', () => testPki().expired.certPem, /^expired on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z; ask the bank for its current certificate$/],
		['a chain whose second certificate cannot be read', () => `${testPki().signer.certPem}${pem(Buffer.from('This is not a certificate at all').toString('base64'))}`, 'PEM certificate 2 of 2 cannot be read (it may be truncated or corrupted)'],
		['a bundle with an expired certificate', () => `${testPki().signer.certPem}${testPki().expired.certPem}`, /^PEM certificate 2 of 2 expired on \d{4}-\d\d-\d\dT[\d:.]+Z; remove it, or ask the bank for its current certificate$/],
	];

	test.each(cases)('%s', (_name, text, expected) => {
		const message = refusal(text());
		if (typeof expected === 'string') expect(message).toBe(expected);
		else expect(message).toMatch(expected);
	});

	test('the expiry is the certificate\'s own end date', () => {
		const { expired } = testPki();
		const notAfter = new Date(new X509Certificate(expired.certPem).validTo);
		expect(refusal(expired.certPem)).toBe(`expired on ${notAfter.toISOString()}; ask the bank for its current certificate`);
		// Checked against the time given: the same certificate was fine before it expired.
		expect(readBankCertificate(expired.certPem, new Date(notAfter.getTime() - 1000)).certificates).toHaveLength(1);
	});

	test('bankTrust reads the same way but leaves validity to the signature check', () => {
		expect(bankTrust(testPki().expired.certPem).certificates).toHaveLength(1);
		expect(() => bankTrust(testPki().signer.keyPem)).toThrow(BankCertificateError);
	});
});
