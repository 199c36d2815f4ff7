/**
 * xmlsec1 (libxmlsec1 with OpenSSL), an XML-DSig implementation independent of ours, for the bxd
 * tests: it verifies what we sign and signs as a bank signs. Required: the tests fail without it
 * (Debian package `xmlsec1`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SOAP_ENV_NS, WSU_NS } from '../../nodes/shared/bxd';
import { testPki } from '../fixtures/bxd/keys';

export interface XmlsecRun {
	ok: boolean;
	output: string;
}

/** The Signature element of an ApplicationResponse template, for xmlsec1 to fill in (RSA-SHA256, enveloped, `c14n`). */
export function responseSignatureTemplate(c14n: string, uri = ''): string {
	return (
		'<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo>' +
		`<CanonicalizationMethod Algorithm="${c14n}"/><SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>` +
		`<Reference URI="${uri}"><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>` +
		`<Transform Algorithm="${c14n}"/></Transforms><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><DigestValue/></Reference>` +
		'</SignedInfo><SignatureValue/><KeyInfo><X509Data/></KeyInfo></Signature>'
	);
}

/** xmlsec1 for one test file: checks it is installed and keeps its files in a temp folder removed afterwards. */
export function useXmlsec(prefix: string) {
	let dir = '';
	beforeAll(() => {
		const version = spawnSync('xmlsec1', ['--version'], { encoding: 'utf8' });
		if (version.error || version.status !== 0) {
			throw new Error('xmlsec1 is required for the signature tests: install it (Debian/Ubuntu: apt-get install -y xmlsec1)');
		}
		dir = mkdtempSync(join(tmpdir(), prefix));
	});
	afterAll(() => {
		if (dir) rmSync(dir, { recursive: true, force: true });
	});

	const file = (name: string, content: string | Buffer): string => {
		const path = join(dir, name);
		writeFileSync(path, content);
		return path;
	};
	const run = (args: string[]): XmlsecRun => {
		const result = spawnSync('xmlsec1', args, { encoding: 'utf8' });
		if (result.error) throw result.error;
		return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
	};

	return {
		file,
		run,
		/** Verifies an enveloped ApplicationRequest signature, trusting only the bank CA (the KeyInfo certificate must chain to it). */
		verifyApplicationRequest: (xml: Buffer | string): XmlsecRun =>
			run(['--verify', '--trusted-pem', file('ca.pem', testPki().ca.certPem), file('request.xml', xml)]),
		/** Verifies the WS-Security signature: wsu:Id is declared an ID attribute on Timestamp and Body; the key is the signer's certificate. */
		verifyWsSecurity: (xml: Buffer | string): XmlsecRun =>
			run([
				'--verify',
				'--pubkey-cert-pem',
				file('signer.pem', testPki().signer.certPem),
				'--id-attr:Id',
				`${WSU_NS}:Timestamp`,
				'--id-attr:Id',
				`${SOAP_ENV_NS}:Body`,
				file('envelope.xml', xml),
			]),
		/** Signs a template (see responseSignatureTemplate) as a bank signs its ApplicationResponse. */
		signAsBank: (template: string, signer = testPki().signer): XmlsecRun & { signed: Buffer } => {
			const out = join(dir, 'signed-response.xml');
			rmSync(out, { force: true });
			const result = run(['--sign', '--privkey-pem', `${file('bank-key.pem', signer.keyPem)},${file('bank-cert.pem', signer.certPem)}`, '--output', out, file('template.xml', template)]);
			return { ...result, signed: result.ok ? readFileSync(out) : Buffer.alloc(0) };
		},
	};
}
