/**
 * Test helpers for EBICS: subscriber and bank keys made once per process, XSD validation against
 * the official H005 schemas (test/fixtures/ebics/xsd) and an independent X002 check with xmlsec1.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { buildPaymentFile } from '../../nodes/shared/bankfiles/pain001';
import { generateKeyWithCertificate } from '../../nodes/shared/keys/generate';
import { generateSubscriberKeys, type EbicsBankKeys, type EbicsSubscriberKeys } from '../../nodes/shared/ebics';

export const EBICS_XSD_DIR = path.resolve(__dirname, '../fixtures/ebics/xsd');

let subscriberKeys: Promise<EbicsSubscriberKeys> | undefined;
let otherKeys: Promise<EbicsSubscriberKeys> | undefined;
let bankKeys: Promise<EbicsBankKeys & { authenticationKeyPem: string; encryptionKeyPem: string }> | undefined;

/** The Import key source's credential fields holding these keys, as a user pastes them. */
export function pastedKeyFields(keys: EbicsSubscriberKeys): Record<string, string> {
	return {
		signaturePrivateKey: keys.signature.privateKeyPem,
		signatureCertificate: keys.signature.certificatePem,
		authenticationPrivateKey: keys.authentication.privateKeyPem,
		authenticationCertificate: keys.authentication.certificatePem,
		encryptionPrivateKey: keys.encryption.privateKeyPem,
		encryptionCertificate: keys.encryption.certificatePem,
	};
}

/** A subscriber's three key pairs (2048 bits, self-signed), the same for the whole test file. */
export function testSubscriberKeys(): Promise<EbicsSubscriberKeys> {
	subscriberKeys ??= generateSubscriberKeys({ subject: { commonName: 'Test Subscriber', organization: 'Sandbox Customer GmbH', country: 'DE' } });
	return subscriberKeys;
}

/** A second, unrelated set of subscriber keys. */
export function otherSubscriberKeys(): Promise<EbicsSubscriberKeys> {
	otherKeys ??= generateSubscriberKeys({ subject: { commonName: 'Someone Else' } });
	return otherKeys;
}

/** A bank's X002 and E002 keys with certificates. */
export function testBankKeys(): Promise<EbicsBankKeys & { authenticationKeyPem: string; encryptionKeyPem: string }> {
	bankKeys ??= (async () => {
		const [auth, enc] = await Promise.all([
			generateKeyWithCertificate({ subject: { commonName: 'Test Bank X002' }, use: 'authentication' }),
			generateKeyWithCertificate({ subject: { commonName: 'Test Bank E002' }, use: 'encryption' }),
		]);
		return {
			authenticationCertificatePem: auth.certificatePem,
			encryptionCertificatePem: enc.certificatePem,
			authenticationKeyPem: auth.privateKeyPem,
			encryptionKeyPem: enc.privateKeyPem,
		};
	})();
	return bankKeys;
}

function tempRun<T>(prefix: string, files: Record<string, string | Buffer>, run: (dir: string) => T): T {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	try {
		for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
		return run(dir);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Validates XML with xmllint against one of the H005 schemas (default ebics_H005.xsd). */
export function validateEbics(xml: string | Buffer, schema = 'ebics_H005.xsd'): { valid: boolean; output: string } {
	return tempRun('ebics-xsd-', { 'document.xml': xml }, (dir) => {
		const result = spawnSync('xmllint', ['--noout', '--schema', path.join(EBICS_XSD_DIR, schema), path.join(dir, 'document.xml')], { encoding: 'utf8' });
		if (result.error) throw result.error;
		return { valid: result.status === 0, output: `${result.stdout}${result.stderr}` };
	});
}

/**
 * Verifies an X002 AuthSignature with xmlsec1, an XML-DSig implementation independent of ours
 * (libxmlsec1, OpenSSL, libxml2's XPointer). xmlsec1 starts from a ds:Signature element, so the
 * AuthSignature element is renamed to ds:Signature first: it is not among the authenticated
 * elements and declares no namespace, so neither the digest nor SignedInfo's canonical form change.
 */
export function xmlsecVerifyX002(xml: string, publicKeyPem: string): { ok: boolean; output: string } {
	const renamed = xml.replace(/<AuthSignature>/, '<ds:Signature>').replace(/<\/AuthSignature>/, '</ds:Signature>');
	return tempRun('ebics-xmlsec-', { 'message.xml': renamed, 'key.pem': publicKeyPem }, (dir) => {
		const result = spawnSync('xmlsec1', ['--verify', '--pubkey-pem', path.join(dir, 'key.pem'), path.join(dir, 'message.xml')], { encoding: 'utf8' });
		if (result.error) throw new Error('xmlsec1 is required for the EBICS signature tests (Debian package xmlsec1)');
		return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
	});
}

/**
 * Signs an X002 template (AuthSignature with empty DigestValue and SignatureValue) with xmlsec1,
 * as a bank's own XML-DSig stack would, and gives the document back with its AuthSignature.
 */
export function xmlsecSignX002(template: string, privateKeyPem: string): string {
	const renamed = template.replace(/<AuthSignature>/, '<ds:Signature>').replace(/<\/AuthSignature>/, '</ds:Signature>');
	return tempRun('ebics-xmlsec-', { 'template.xml': renamed, 'key.pem': privateKeyPem }, (dir) => {
		const out = path.join(dir, 'signed.xml');
		const result = spawnSync('xmlsec1', ['--sign', '--privkey-pem', path.join(dir, 'key.pem'), '--output', out, path.join(dir, 'template.xml')], { encoding: 'utf8' });
		if (result.error || result.status !== 0) throw new Error(`xmlsec1 could not sign: ${result.stderr}`);
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const signed = (require('node:fs') as typeof import('node:fs')).readFileSync(out, 'utf8');
		return signed.replace(/<ds:Signature>/, '<AuthSignature>').replace(/<\/ds:Signature>/, '</AuthSignature>');
	});
}

/**
 * A pain.001 of `payments` credit transfers from a German to a French account, due tomorrow, as
 * the Bank File node builds it (default pain.001.001.03, EUR, 2 payments).
 */
export function painFile(messageId: string, options: { version?: 'pain.001.001.03' | 'pain.001.001.09'; currency?: string; payments?: number } = {}): Buffer {
	const built = buildPaymentFile(
		Array.from({ length: options.payments ?? 2 }, (_, i) => ({
			debtorName: 'Sandbox Customer GmbH',
			debtorIban: 'DE89370400440532013000',
			creditorName: `Supplier ${i + 1}`,
			creditorIban: 'FR1420041010050500013M02606',
			creditorBic: 'BNPAFRPP',
			amount: `${100 + i}.25`,
			currency: options.currency ?? 'EUR',
			requestedExecutionDate: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
			remittanceText: `Invoice ${i + 1}`,
		})),
		{ version: options.version ?? 'pain.001.001.03', messageId, initiatingPartyName: 'Sandbox Customer GmbH' },
	);
	return Buffer.from(built.xml);
}
