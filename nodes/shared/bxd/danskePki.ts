/**
 * Danske Bank's PKIFactoryService (sepafm lib/sepa/wsdl/wsdl_danske_cert.xml, schema
 * xml_schemas/danske_pki.xsd): GetBankCertificate (the bank's encryption, signing and root
 * certificates), CreateCertificate from a one-time PIN (two key pairs, two PKCS#10 requests:
 * signing and encryption), RenewCertificate (signed with the current signing key),
 * CertificateStatus and GetOwnCertificateList. CreateCertificate and RenewCertificate requests
 * are encrypted to the bank's encryption certificate and sent as an EncryptedData element after
 * the RequestHeader; answers may come encrypted to the new encryption key. Every answer element
 * is signed by the bank and checked against the pinned root. Refusals come as
 * PKIFactoryServiceFault with ReturnCode, ReturnText and AdditionalReturnText.
 *
 * This module builds and reads the messages; it sends nothing.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';

import { assertSafeXml, escapeXml } from './xml';
import { attempt } from '../common/attempt';
import { bxdTimestamp } from './applicationRequest';
import { SOAP_ENV_NS } from './constants';
import type { DecryptionMaterial } from './encryption';
import { decryptDocument, encryptDocument, isEncryptedData, XMLENC_NS } from './encryption';
import { documentBytes } from './document';
import { BxdError, BxdFormatError } from './errors';
import type { BankTrust, SigningMaterial } from './signature';
import {
	pemCertificates,
	signApplicationRequest,
	signatureAlgorithmOf,
	verifyEnvelopedSignature,
} from './signature';

export const PKI_SERVICE_NS = 'http://danskebank.dk/PKI/PKIFactoryService';
export const PKI_ELEMENTS_NS = 'http://danskebank.dk/PKI/PKIFactoryService/elements';

export type PkiOperation =
	| 'GetBankCertificate'
	| 'CreateCertificate'
	| 'RenewCertificate'
	| 'CertificateStatus'
	| 'GetOwnCertificateList';

/** A PKIFactoryServiceFault, or an answer whose ReturnCode is not 00. */
export class PkiFaultError extends BxdError {
	constructor(
		readonly code: string,
		readonly text: string,
		readonly additional?: string,
	) {
		super(
			`the PKIFactoryService answered code ${code}: ${text}${additional ? ` (${additional})` : ''}`,
		);
		this.name = 'PkiFaultError';
	}
}

/**
 * An answer of the PKIFactoryService that cannot be used (unreadable, unsigned, not the bank's).
 */
export class PkiAnswerError extends BxdError {
	constructor(message: string) {
		super(message);
		this.name = 'PkiAnswerError';
	}
}

export interface PkiHeader {
	senderId: string;
	customerId: string;
	/** production or customertest. */
	environment: string;
}

/** 10 hexadecimal characters (danske_pki.xsd RequestIdType is string10). */
export function pkiRequestId(): string {
	return randomBytes(5).toString('hex');
}

const el = (name: string, value: string): string =>
	`<elem:${name}>${escapeXml(value)}</elem:${name}>`;

/** The SOAP message of one PKIFactoryService operation, `payload` after its RequestHeader. */
export function buildPkiEnvelope(
	operation: PkiOperation,
	header: PkiHeader,
	requestId: string,
	payload: string,
	now = new Date(),
): Buffer {
	const withEnvironment = operation !== 'GetBankCertificate';
	const xml =
		'<?xml version="1.0" encoding="UTF-8"?>' +
		`<soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}" xmlns:pkif="${PKI_SERVICE_NS}"><soapenv:Header/><soapenv:Body>` +
		`<pkif:${operation}In><pkif:RequestHeader>` +
		`<pkif:SenderId>${escapeXml(header.senderId)}</pkif:SenderId>` +
		`<pkif:CustomerId>${escapeXml(header.customerId)}</pkif:CustomerId>` +
		`<pkif:RequestId>${requestId}</pkif:RequestId>` +
		`<pkif:Timestamp>${bxdTimestamp(now)}</pkif:Timestamp>` +
		'<pkif:InterfaceVersion>1</pkif:InterfaceVersion>' +
		(withEnvironment
			? `<pkif:Environment>${escapeXml(header.environment)}</pkif:Environment>`
			: '') +
		`</pkif:RequestHeader>${payload}</pkif:${operation}In></soapenv:Body></soapenv:Envelope>`;
	return Buffer.from(xml, 'utf8');
}

/**
 * The SOAPAction header of an operation (sepafm wsdl_danske_cert.xml:
 * soapAction="CreateCertificate" and so on).
 */
export function pkiSoapAction(operation: PkiOperation): string {
	return `"${operation}"`;
}

/** GetBankCertificateRequest: not signed, not encrypted. */
export function getBankCertificateRequest(
	rootSerial: string,
	requestId: string,
	now = new Date(),
): string {
	return (
		`<elem:GetBankCertificateRequest xmlns:elem="${PKI_ELEMENTS_NS}">` +
		el('BankRootCertificateSerialNo', rootSerial) +
		`<elem:Timestamp>${bxdTimestamp(now)}</elem:Timestamp>` +
		el('RequestId', requestId) +
		'</elem:GetBankCertificateRequest>'
	);
}

export interface CertificateRequestFields {
	customerId: string;
	encryptionCsrDer: Buffer;
	signingCsrDer: Buffer;
	requestId: string;
	environment: string;
	/** CreateCertificate only. */
	pin?: string;
	/** RenewCertificate only: signed with the current signing certificate. */
	signing?: SigningMaterial;
	now?: Date;
}

/**
 * CreateCertificateRequest (with the PIN) or RenewCertificateRequest (signed with the current
 * key), encrypted to the bank's encryption certificate: the EncryptedData element to send.
 */
export function certificateRequest(
	operation: 'CreateCertificate' | 'RenewCertificate',
	fields: CertificateRequestFields,
	bankEncryptionPem: string,
): string {
	const name = `${operation}Request`;
	const xml =
		`<elem:${name} xmlns:elem="${PKI_ELEMENTS_NS}">` +
		el('CustomerId', fields.customerId) +
		el('KeyGeneratorType', 'software') +
		el('EncryptionCertPKCS10', fields.encryptionCsrDer.toString('base64')) +
		el('SigningCertPKCS10', fields.signingCsrDer.toString('base64')) +
		`<elem:Timestamp>${bxdTimestamp(fields.now ?? new Date())}</elem:Timestamp>` +
		el('RequestId', fields.requestId) +
		el('Environment', fields.environment) +
		(operation === 'CreateCertificate' ? el('PIN', fields.pin ?? '') : '') +
		`</elem:${name}>`;
	// Renewal: signed with exclusive C14N, the way the bank verifies it (REFERENCES: sepafm PR #48).
	const signed = fields.signing
		? signApplicationRequest({ head: xml, tail: '' }, fields.signing, {
				canonicalization: 'exclusive',
			})
		: { head: xml, tail: '' };
	const encrypted = encryptDocument(documentBytes(signed), { certificatePem: bankEncryptionPem });
	return documentBytes(encrypted).toString('utf8');
}

/**
 * CertificateStatusRequest or GetOwnCertificateListRequest, signed with the current signing key.
 */
export function signedQuery(
	operation: 'CertificateStatus' | 'GetOwnCertificateList',
	customerId: string,
	serials: string[],
	requestId: string,
	signing: SigningMaterial,
	now = new Date(),
): string {
	const name = `${operation}Request`;
	const xml =
		`<elem:${name} xmlns:elem="${PKI_ELEMENTS_NS}">` +
		el('KeyGeneratorType', 'software') +
		(operation === 'CertificateStatus'
			? serials.map((serial) => el('CertificateSerialNo', serial)).join('')
			: '') +
		el('CustomerId', customerId) +
		`<elem:Timestamp>${bxdTimestamp(now)}</elem:Timestamp>` +
		el('RequestId', requestId) +
		`</elem:${name}>`;
	return signApplicationRequest({ head: xml, tail: '' }, signing, { canonicalization: 'exclusive' })
		.head;
}

function elements(parent: Element): Element[] {
	const out: Element[] = [];
	for (let node = parent.firstChild; node; node = node.nextSibling)
		if (node.nodeType === 1) out.push(node as Element);
	return out;
}

function child(parent: Element | undefined, local: string): Element | undefined {
	return parent ? elements(parent).find((e) => e.localName === local) : undefined;
}

function textOf(parent: Element | undefined, local: string): string | undefined {
	return child(parent, local)?.textContent?.trim();
}

function parse(text: string, what: string): Document {
	const safe = attempt(() => assertSafeXml(text));
	if (!safe.ok) throw new PkiAnswerError(`${what} is refused: ${(safe.error as Error).message}`);
	const problems: string[] = [];
	const doc = new DOMParser({
		errorHandler: (level: string, message: unknown) => {
			if (level !== 'warning') problems.push(String(message));
		},
	}).parseFromString(text, 'text/xml') as unknown as Document;
	if (problems.length || !doc.documentElement)
		throw new PkiAnswerError(`${what} is not well-formed XML`);
	return doc;
}

/**
 * The text of an element as it appears in `source` (the bank signs it as a document of its own).
 */
function rawElement(source: string, element: Element): string {
	const name = element.tagName;
	const start = source.search(new RegExp(`<${name.replace(/[.]/g, '\\.')}[\\s>/]`));
	const close = `</${name}>`;
	const end = source.indexOf(close, start);
	if (start === -1 || end === -1)
		throw new PkiAnswerError(`The PKIFactoryService answer's ${element.localName} cannot be read`);
	return source.slice(start, end + close.length);
}

/** A readable PKIFactoryServiceFault in a body, if there is one. */
export function readPkiFault(body: Buffer | string): PkiFaultError | undefined {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (!/PKIFactoryServiceFault|Fault>/.test(text)) return undefined;
	const read = attempt(() => parse(text, 'The fault'));
	if (!read.ok) return undefined;
	const fault = read.value.getElementsByTagNameNS(PKI_SERVICE_NS, 'PKIFactoryServiceFault')[0];
	if (fault)
		return new PkiFaultError(
			textOf(fault, 'ReturnCode') ?? '?',
			textOf(fault, 'ReturnText') ?? 'no text',
			textOf(fault, 'AdditionalReturnText'),
		);
	const soapFault = read.value.getElementsByTagNameNS(SOAP_ENV_NS, 'Fault')[0];
	if (soapFault)
		return new PkiFaultError(
			textOf(soapFault, 'faultcode') ?? 'soap fault',
			textOf(soapFault, 'faultstring') ?? 'no text',
		);
	return undefined;
}

export interface PkiAnswer {
	/** The response element (decrypted when it came encrypted), signature checked. */
	response: Element;
}

/** An answer opened but not yet verified: its response element and that element's text. */
export interface OpenedPkiAnswer {
	response: Element;
	/** The response element as the bank signed it (decrypted when it came encrypted). */
	text: string;
}

/**
 * Opens an answer: the response element of `operation`, decrypted with `decryption` when it came
 * as an EncryptedData. A fault, or a ReturnCode other than 00, throws PkiFaultError. Its
 * signature is verifyPkiResponse's.
 */
export function openPkiAnswer(
	body: Buffer | string,
	operation: PkiOperation,
	decryption?: DecryptionMaterial,
): OpenedPkiAnswer {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	const fault = readPkiFault(text);
	if (fault) throw fault;
	const doc = parse(text, 'The PKIFactoryService answer');
	const out =
		doc.getElementsByTagNameNS(PKI_SERVICE_NS, `${operation}Out`)[0] ??
		Array.from(doc.getElementsByTagName('*')).find((e) => e.localName === `${operation}Out`);
	if (!out) throw new PkiAnswerError(`The PKIFactoryService answer has no ${operation}Out`);
	const payload = elements(out).find((e) => e.localName !== 'ResponseHeader');
	if (!payload)
		throw new PkiAnswerError(`The PKIFactoryService answer has no ${operation}Response`);
	let responseText = rawElement(text, payload);
	if (payload.namespaceURI === XMLENC_NS && payload.localName === 'EncryptedData') {
		if (!isEncryptedData(Buffer.from(responseText, 'utf8')))
			throw new PkiAnswerError('The encrypted PKIFactoryService answer cannot be read');
		responseText = decryptDocument(Buffer.from(responseText, 'utf8'), decryption).toString('utf8');
	}
	return { response: readPkiResponse(responseText, operation), text: responseText };
}

/**
 * Reads the response element of `operation` from its text (as openPkiAnswer gave it, or as kept):
 * its name, and a ReturnCode of 00 (else PkiFaultError).
 */
export function readPkiResponse(text: string, operation: PkiOperation): Element {
	const response = parse(text, `The ${operation}Response`).documentElement as unknown as Element;
	if (response.localName !== `${operation}Response` || response.namespaceURI !== PKI_ELEMENTS_NS) {
		throw new PkiAnswerError(
			`The PKIFactoryService answered ${response.localName} where ${operation}Response was expected`,
		);
	}
	const code = textOf(response, 'ReturnCode') ?? '';
	if (code !== '00')
		throw new PkiFaultError(
			code || '(none)',
			textOf(response, 'ReturnText') ?? 'no text',
			textOf(response, 'AdditionalReturnText'),
		);
	return response;
}

/**
 * Verifies the bank's enveloped signature on a response element's text with `trust` (the pinned
 * root, and the bank's signing certificate it issued): every answer must be signed. Returns how it
 * was signed ("RSA-SHA1", "RSA-SHA256"). The algorithm is the caller's policy (`trust`).
 */
export function verifyPkiResponse(text: string, operation: PkiOperation, trust: BankTrust): string {
	const signed = verifyEnvelopedSignature({ head: text, tail: '' }, trust);
	if (signed !== 'valid')
		throw new PkiAnswerError(
			`The ${operation}Response is not signed by the bank, so it is not trusted`,
		);
	return signatureAlgorithmOf(text);
}

/**
 * Reads an answer (openPkiAnswer) and verifies its signature with `trust` (verifyPkiResponse).
 */
export function readPkiAnswer(
	body: Buffer | string,
	operation: PkiOperation,
	trust: BankTrust,
	decryption?: DecryptionMaterial,
): PkiAnswer {
	const opened = openPkiAnswer(body, operation, decryption);
	verifyPkiResponse(opened.text, operation, trust);
	return { response: opened.response };
}

/** A certificate element (base64 DER) as PEM and X509Certificate. */
export function certificateElement(
	response: Element,
	name: string,
): { pem: string; x509: X509Certificate } {
	const value = (textOf(response, name) ?? '').replace(/\s+/g, '');
	const read = value ? attempt(() => new X509Certificate(Buffer.from(value, 'base64'))) : undefined;
	if (!read?.ok)
		throw new PkiAnswerError(
			`The PKIFactoryService answer's ${name} is not a readable certificate`,
		);
	const pem = `-----BEGIN CERTIFICATE-----\n${read.value.raw
		.toString('base64')
		.replace(/(.{64})/g, '$1\n')
		.replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
	return { pem, x509: read.value };
}

export interface CertificateStatusEntry {
	serialNumber: string;
	type: string;
	matchingSerialNumber: string;
	status: 'good' | 'expires_soon' | 'expired' | 'revoked' | string;
	expiryDate?: string;
	revocationDate?: string;
}

/**
 * The CertificateStatus entries of a CertificateStatusResponse or GetOwnCertificateListResponse.
 */
export function certificateStatuses(response: Element): CertificateStatusEntry[] {
	return elements(response)
		.filter((e) => e.localName === 'CertificateStatus')
		.map((entry) => {
			const status = child(entry, 'Status');
			const state = status ? elements(status)[0] : undefined;
			return {
				serialNumber: textOf(entry, 'CertificateSerialNo') ?? '',
				type: textOf(entry, 'CertificateType') ?? '',
				matchingSerialNumber: textOf(entry, 'MatchingCertificateSerialNo') ?? '',
				status: state?.localName ?? 'unknown',
				expiryDate: state?.getAttribute('expiryDate') || undefined,
				revocationDate: state?.getAttribute('revocationDate') || undefined,
			};
		});
}

/**
 * A certificate serial number as the PKI service writes it: the decimal integer. django-jbank
 * (jbank/wspki.py) sends `str(cert.serial_number)` and writes the integer in its
 * CertificateStatus template; sepafm's Danske example sends `bank_root_cert_serial: '1111110002'`;
 * DBGROOT's serial 0x423A3173 is 1111110003, the number in its own CRL address
 * (DBGROOT_1111110003.crl). Node's X509Certificate gives the serial in hexadecimal.
 */
export function decimalSerial(hex: string): string {
	return BigInt(`0x${hex.replace(/[^0-9a-f]/gi, '') || '0'}`).toString(10);
}

/** The decimal serial number (see decimalSerial) of a certificate. */
export function serialOf(pem: string | X509Certificate): string {
	if (pem instanceof X509Certificate) return decimalSerial(pem.serialNumber);
	const [first] = pemCertificates(pem);
	const read = attempt(() => new X509Certificate(first ?? pem));
	if (!read.ok) throw new BxdFormatError('The certificate cannot be read');
	return decimalSerial(read.value.serialNumber);
}

/**
 * Whether a serial number the bank reports is the certificate's: written in decimal as the
 * service does, or in hexadecimal as some answers may carry it.
 */
export function sameSerial(reported: string, certificate: X509Certificate | string): boolean {
	const decimal = serialOf(certificate);
	const text = reported.trim();
	if (/^\d+$/.test(text) && BigInt(text).toString(10) === decimal) return true;
	const hex = text.replace(/^0x/i, '').replace(/:/g, '');
	return /^[0-9a-f]+$/i.test(hex) && decimalSerial(hex) === decimal;
}
