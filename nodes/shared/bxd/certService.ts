/**
 * The certificate service of the bxd family (Nordea, OP, Samlink and the banks on Samlink's
 * platform): CertApplicationRequest / CertApplicationResponse inside the getCertificate and
 * getServiceCertificates SOAP operations. Builds the requests (GetCertificate with a PKCS#10
 * request made here and the PIN proven as each bank wants it, RenewCertificate signed with the
 * current certificate, OP's GetServiceCertificates) and reads the answers in every shape the
 * banks' public samples show. Nothing here sends anything.
 *
 * Sources: sepafm (devlab-oy/sepa) lib/sepa/xml_schemas/cert_application_request.xsd,
 * op/CertApplication*_200812.xsd, samlink/CertApplication*.xsd, lib/sepa/wsdl/wsdl_*_cert*.xml and
 * test/sepa/banks/{nordea,samlink}/responses/{gc,rc,gc_error_30}.xml.
 */
import { createHmac, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';

import type { XmlObject } from './xml';
import { asArray, escapeXml, xmlObject, xmlValue } from './xml';
import { bxdTimestamp } from './applicationRequest';
import { attempt } from '../common/attempt';
import { decodePayload } from './base64';
import type { CertDialect } from './bankProfiles';
import { isSuccessCode, normalizeResponseCode } from './codes';
import { SOAP_ENV_NS } from './constants';
import { parseBankXml } from './document';
import {
	BxdError,
	BxdFaultError,
	BxdFormatError,
	BxdResponseCodeError,
	BxdValidationError,
} from './errors';
import type { SignatureCheck } from './applicationResponse';
import type { BankTrust, SigningMaterial } from './signature';
import {
	pemBase64,
	signApplicationRequest,
	signatureAlgorithmOf,
	verifyEnvelopedSignature,
} from './signature';

/** Namespaces of each dialect: the SOAP service and the CertApplicationRequest document. */
export const CERT_NAMESPACES: Record<CertDialect, { service: string; data: string }> = {
	// sepafm lib/sepa/xml_templates/soap/nordea/get_certificate.xml,
	// application_request/nordea/get_certificate.xml
	nordea: {
		service: 'http://bxd.fi/CertificateService',
		data: 'http://filetransfer.nordea.com/xmldata/',
	},
	// sepafm lib/sepa/xml_templates/soap/op/*.xml, application_request/op/*.xml
	op: { service: 'http://mlp.op.fi/OPCertificateService', data: 'http://op.fi/mlp/xmldata/' },
	// sepafm lib/sepa/xml_templates/soap/samlink/*.xml, application_request/samlink/*.xml
	samlink: { service: 'http://mlp.op.fi/OPCertificateService', data: 'http://op.fi/mlp/xmldata/' },
};

export type CertCommand = 'GetCertificate' | 'RenewCertificate' | 'GetServiceCertificates';

/** The SOAP operation each command goes through (RenewCertificate too uses getCertificate). */
export const CERT_OPERATIONS: Record<CertCommand, 'getCertificate' | 'getServiceCertificates'> = {
	GetCertificate: 'getCertificate',
	RenewCertificate: 'getCertificate',
	GetServiceCertificates: 'getServiceCertificates',
};

/** The certificate service refused or could not do what was asked. */
export class CertificateServiceError extends BxdError {
	constructor(
		message: string,
		readonly code?: string,
		readonly bankText?: string,
	) {
		super(message);
		this.name = 'CertificateServiceError';
	}
}

/**
 * What the certificate services' codes mean and what to do about them: they share the file
 * service's numbering (bxd), but a refusal here concerns the one-time code, the contract or the
 * certificate being renewed. OP's generic code 26 hides most refusals (REFERENCES: bank quirks).
 */
const CERT_SERVICE_HINTS: Record<string, string> = {
	'05': 'The certificate service does not know this command: check the Certificate Service URL and, for a Custom bank, the Certificate Service Dialect',
	'06': 'The certificate service does not allow this command for this contract: ask the bank whether certificates can be enrolled for it',
	'07': 'The Sender ID is not known to the certificate service: check Sender ID and Customer ID against the web services contract',
	'12': 'The bank refused the content of the request (its schema or content check): check that the Customer ID is the web services user ID of the contract and that the Environment (Test or Production) matches it; if the text names the certificate request, ask the bank which subject it expects',
	'13': 'The Customer ID is not known to the certificate service: use the web services user ID the contract gives',
	'16': 'The certificate that signed the renewal is not valid for this bank or was revoked: enrol again with a new one-time code from the bank',
	'18': "The bank could not verify the renewal's signature with the current certificate: enrol again with a new one-time code from the bank",
	'19': 'The certificate that signed the renewal is not valid: enrol again with a new one-time code from the bank',
	'26': "A technical error at the bank, or (OP) a refusal it does not explain: try again later; if it stays, ask the bank's support about the attempt and whether the one-time code is still valid",
	'29': 'A value in the request is not valid: check the Customer ID and the Environment (Test or Production) against the contract',
	'30': 'The bank did not accept the one-time code or the contract check: the code may be mistyped, already used or expired, or the Customer ID may not match the web services contract. Check the Customer ID, then ask the bank for a new code',
};

/** Texts the certificate services answer in Finnish, in English (Samlink answers in Finnish). */
const FINNISH_TEXTS: Array<[RegExp, string]> = [
	[
		/palvelusopimuksen tarkistuksessa virhe/i,
		"Finnish for: the check of the customer's web services contract failed",
	],
];

/** A refusal of RenewCertificate means something else than one of the one-time code. */
const RENEWAL_HINTS: Record<string, string> = {
	'30': 'The bank refused the renewal: the contract may not allow renewal from this software, or the current certificate is no longer accepted. Ask the bank; if it stays, enrol again with a new one-time code',
};

/**
 * What a certificate-service refusal means and what to do: the text in English where the bank
 * answered in Finnish, then the code's meaning for the command that was refused.
 */
export function certServiceHint(
	code: string,
	text?: string,
	command: CertCommand = 'GetCertificate',
): string | undefined {
	const parts: string[] = [];
	const translated = text ? FINNISH_TEXTS.find(([pattern]) => pattern.test(text)) : undefined;
	if (translated) parts.push(translated[1]);
	const normalized = normalizeResponseCode(code) ?? code;
	const meaning =
		(command === 'RenewCertificate' ? RENEWAL_HINTS[normalized] : undefined) ??
		CERT_SERVICE_HINTS[normalized];
	if (meaning) parts.push(meaning);
	return parts.length ? parts.join('. ') : undefined;
}

/**
 * Nordea's proof of the activation code: base64 HMAC-SHA1 of the DER request keyed with the code
 * (sepafm utilities.rb#hmac).
 */
export function nordeaHmac(pin: string, csrDer: Buffer): string {
	return createHmac('sha1', Buffer.from(pin, 'utf8')).update(csrDer).digest('base64');
}

/** A PIN or transfer key as typed: spaces and dashes people copy from letters are dropped. */
export function cleanPin(pin: string): string {
	return pin.replace(/[\s-]+/g, '');
}

export interface CertRequestFields {
	dialect: CertDialect;
	command: CertCommand;
	customerId: string;
	environment: string;
	softwareId: string;
	timestamp?: Date;
	/** The PKCS#10 request (GetCertificate, RenewCertificate). */
	csrDer?: Buffer;
	/** The one-time PIN / transfer key (GetCertificate only). */
	pin?: string;
	/** The current certificate and key (RenewCertificate only): the request is signed with them. */
	signing?: SigningMaterial;
}

function element(name: string, value: string | undefined): string {
	return value === undefined ? '' : `<${name}>${escapeXml(value)}</${name}>`;
}

/**
 * Builds the CertApplicationRequest with its children in each dialect's schema order:
 * Nordea CustomerId, Timestamp, Environment, SoftwareId, Command, Service, Content, HMAC;
 * OP and Samlink CustomerId, Timestamp, Environment, SoftwareId, Command, Compression, Service,
 * Content, TransferKey. RenewCertificate carries no PIN and is signed (enveloped) instead.
 */
export function buildCertApplicationRequest(fields: CertRequestFields): string {
	const customerId = fields.customerId.trim();
	if (!customerId || customerId.length > 16) {
		throw new BxdValidationError(
			'CustomerId',
			`Customer ID must be 1 to 16 characters long (got ${customerId.length})`,
		);
	}
	if (!/^(PRODUCTION|TEST)$/.test(fields.environment)) {
		throw new BxdValidationError(
			'Environment',
			`Environment must be PRODUCTION or TEST (got "${fields.environment}")`,
		);
	}
	const ns = CERT_NAMESPACES[fields.dialect].data;
	const content = fields.csrDer ? fields.csrDer.toString('base64') : undefined;
	if (fields.command !== 'GetServiceCertificates' && !content) {
		throw new BxdValidationError('Content', `${fields.command} needs a certificate request`);
	}
	const pin = fields.command === 'GetCertificate' ? cleanPin(fields.pin ?? '') : undefined;
	if (fields.command === 'GetCertificate' && !pin)
		throw new BxdValidationError('PIN', 'GetCertificate needs the one-time PIN or transfer key');
	if (fields.command === 'RenewCertificate' && !fields.signing) {
		throw new BxdValidationError(
			'Signature',
			'RenewCertificate is signed with the current certificate, and there is none',
		);
	}
	const head = [
		`<CertApplicationRequest xmlns="${ns}">`,
		element('CustomerId', customerId),
		`<Timestamp>${bxdTimestamp(fields.timestamp ?? new Date())}</Timestamp>`,
		element('Environment', fields.environment),
		element('SoftwareId', fields.softwareId.trim().slice(0, 80) || 'n8n-nodes-corporate-banking'),
		element('Command', fields.command),
	];
	let body: string[];
	if (fields.dialect === 'nordea') {
		body = [
			element('Content', content),
			pin && fields.csrDer ? element('HMAC', nordeaHmac(pin, fields.csrDer)) : '',
		];
	} else {
		// Service MATU names the payment-service certificate (sepafm application_request.rb; the
		// schemas' default).
		body = [
			'<Compression>false</Compression>',
			element('Service', 'MATU'),
			element('Content', content),
			pin ? element('TransferKey', pin) : '',
		];
	}
	const xml = `${head.join('')}${body.join('')}</CertApplicationRequest>`;
	if (fields.command !== 'RenewCertificate' || !fields.signing) return xml;
	const signed = signApplicationRequest({ head: xml, tail: '' }, fields.signing);
	return signed.head + signed.tail;
}

export interface CertSoapRequest {
	operation: 'getCertificate' | 'getServiceCertificates';
	requestId: string;
	body: Buffer;
}

/**
 * Wraps a CertApplicationRequest in the service's SOAP envelope (the envelope itself is not
 * signed).
 */
export function buildCertEnvelope(
	dialect: CertDialect,
	command: CertCommand,
	senderId: string,
	applicationRequest: string,
	now = new Date(),
): CertSoapRequest {
	const operation = CERT_OPERATIONS[command];
	const requestId = randomBytes(17).toString('hex');
	const ns = CERT_NAMESPACES[dialect].service;
	const xml =
		'<?xml version="1.0" encoding="UTF-8"?>' +
		`<soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}" xmlns:cer="${ns}"><soapenv:Header/><soapenv:Body>` +
		`<cer:${operation}in><cer:RequestHeader>${element('cer:SenderId', senderId)}<cer:RequestId>${requestId}</cer:RequestId>` +
		`<cer:Timestamp>${bxdTimestamp(now)}</cer:Timestamp></cer:RequestHeader>` +
		`<cer:ApplicationRequest>${Buffer.from(applicationRequest, 'utf8').toString('base64')}</cer:ApplicationRequest>` +
		`</cer:${operation}in></soapenv:Body></soapenv:Envelope>`;
	return { operation, requestId, body: Buffer.from(xml, 'utf8') };
}

/** One certificate from a CertApplicationResponse. */
export interface IssuedCertificate {
	name?: string;
	format?: string;
	/** Danske Bank's own-certificate list: good, expires_soon, expired or revoked. */
	status?: string;
	pem: string;
	x509: X509Certificate;
}

export interface CertApplicationResponse {
	customerId?: string;
	timestamp?: string;
	responseCode?: string;
	responseText?: string;
	certificates: IssuedCertificate[];
	signature: SignatureCheck;
	/** The namespace of the document (tells the dialect apart). */
	namespace?: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----/;

/** The namespace of the root element, read from its opening tag (the parser drops prefixes). */
function rootNamespace(xml: string): string | undefined {
	const open = /<(?:([A-Za-z_][\w.-]*):)?CertApplicationResponse\b([^>]*)>/.exec(xml);
	if (!open) return undefined;
	const attribute = open[1] ? `xmlns:${open[1]}` : 'xmlns';
	return new RegExp(`\\s${attribute}\\s*=\\s*["']([^"']*)["']`).exec(open[2])?.[1];
}

/**
 * Reads the text of a Certificate element: base64 of the DER certificate (Nordea, OP), base64 of
 * the PEM text (Samlink's answers carry it encoded twice), or PEM text as is. Anything else is
 * named in the error: a truncated certificate, a PKCS#7 bundle, a request.
 */
export function readIssuedCertificate(
	text: string,
	index: number,
): { pem: string; x509: X509Certificate } {
	const where = `Certificate ${index + 1} in the bank's answer`;
	let raw = text.trim();
	if (!PEM_BLOCK.test(raw)) {
		const decoded = attempt(() => decodePayload(raw, where));
		if (!decoded.ok || decoded.value.length === 0)
			throw new CertificateServiceError(`${where} is not base64 (it may be truncated)`);
		const bytes = decoded.value;
		// Base64 text of a PEM file, or base64 encoded twice.
		const asText = bytes.toString('latin1');
		if (PEM_BLOCK.test(asText.slice(0, 64))) raw = asText;
		else if (/^[A-Za-z0-9+/=\s]+$/.test(asText) && bytes[0] !== 0x30)
			raw = decodePayload(asText, where).toString('latin1');
		else
			raw = `-----BEGIN CERTIFICATE-----\n${bytes.toString('base64')}\n-----END CERTIFICATE-----`;
		if (!PEM_BLOCK.test(raw))
			raw = `-----BEGIN CERTIFICATE-----\n${Buffer.from(raw, 'latin1').toString('base64')}\n-----END CERTIFICATE-----`;
	}
	const label = PEM_BLOCK.exec(raw)?.[1];
	if (label && label !== 'CERTIFICATE') {
		throw new CertificateServiceError(
			`${where} is a ${label === 'PKCS7' ? 'PKCS#7 bundle' : label.toLowerCase()}, not an X.509 certificate`,
		);
	}
	if (!/-----END CERTIFICATE-----/.test(raw))
		throw new CertificateServiceError(`${where} is truncated: it has no END CERTIFICATE line`);
	const body = pemBase64(raw);
	const read = attempt(() => new X509Certificate(Buffer.from(body, 'base64')));
	if (!read.ok)
		throw new CertificateServiceError(
			`${where} cannot be read as an X.509 certificate (it may be truncated or corrupted)`,
		);
	const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
	return { pem, x509: read.value };
}

/**
 * Reads a decoded CertApplicationResponse (any of the three namespaces, prefixed or not). Its
 * signature is checked by verifyCertAnswer.
 */
export function readCertApplicationResponse(bytes: Buffer): CertApplicationResponse {
	const xml = bytes.toString('utf8').replace(/^\uFEFF/, '');
	const parsed = parseBankXml(xml, 'The CertApplicationResponse');
	const rootName = Object.keys(parsed).find((key) => !key.startsWith('@_') && key !== '#text');
	const root = rootName === 'CertApplicationResponse' ? xmlObject(parsed[rootName]) : undefined;
	if (!root) {
		throw new BxdFormatError(
			`The certificate service answered with ${rootName ? `a ${rootName}` : 'no document'} instead of a CertApplicationResponse`,
		);
	}
	const namespace = rootNamespace(xml);
	const signature: SignatureCheck = 'notChecked';
	const entries = asArray(xmlObject(root.Certificates)?.Certificate as unknown[] | undefined);
	const certificates = entries.map((entry, index) => {
		const e = xmlObject(entry) ?? {};
		const text = xmlValue(e.Certificate);
		if (!text)
			throw new CertificateServiceError(`Certificate ${index + 1} in the bank's answer is empty`);
		const read = readIssuedCertificate(text, index);
		return { name: xmlValue(e.Name), format: xmlValue(e.CertificateFormat), ...read };
	});
	return {
		customerId: xmlValue(root.CustomerId),
		timestamp: xmlValue(root.Timestamp),
		responseCode: normalizeResponseCode(xmlValue(root.ResponseCode)),
		responseText: xmlValue(root.ResponseText),
		certificates,
		signature,
		namespace,
	};
}

/** The certificate service's answer is signed, but its signature does not pass the check. */
export class CertAnswerSignatureError extends CertificateServiceError {
	constructor(detail: string) {
		super(
			`The certificate service's answer failed the signature check against the Bank Certificate: ${detail.replace(/\.$/, '')}`,
		);
		this.name = 'CertAnswerSignatureError';
	}
}

/** What the signature check of a certificate service's answer found. */
export interface CertAnswerSignature {
	/** 'valid', or 'unsigned' (the certificate it carries is then checked against the pinned root only). */
	status: Exclude<SignatureCheck, 'notChecked'>;
	/** How the service signed: "RSA-SHA1", "RSA-SHA256" (see signatureAlgorithmOf), or "unsigned". */
	algorithm: string;
}

/**
 * Verifies the enveloped signature of a decoded CertApplicationResponse against the pinned Bank
 * Certificate. The certificate services sign as their public samples show, RSA-SHA1 (sepafm
 * test/sepa/banks/nordea/responses/gc.xml, samlink/responses/rc.xml; pankkiyhteys
 * test/data/CertApplicationResponse.xml, OP's): the signature is checked cryptographically with
 * either algorithm, and its algorithm is reported, never a reason to refuse. What makes an
 * enrolment trusted is the issued certificate, which must chain to the pinned root in every case
 * (the credential's SHA-1 choice governs the file service's data answers only). Banks leave some
 * certificate answers unsigned (sepafm lib/sepa/banks/op/op_response.rb): those are 'unsigned'.
 */
export function verifyCertAnswer(bytes: Buffer, trust: BankTrust): CertAnswerSignature {
	const xml = bytes.toString('utf8').replace(/^\uFEFF/, '');
	const checked = attempt(() =>
		verifyEnvelopedSignature({ head: xml, tail: '' }, { ...trust, acceptSha1: true }),
	);
	if (!checked.ok) throw new CertAnswerSignatureError((checked.error as Error).message);
	return { status: checked.value, algorithm: signatureAlgorithmOf(xml) };
}

export interface CertServiceAnswer {
	operation: string;
	header: { responseCode?: string; responseText?: string; requestId?: string };
	response?: CertApplicationResponse;
	/** The decoded CertApplicationResponse as the bank sent it (what its signature covers). */
	document?: Buffer;
}

/** Finds a SOAP fault in a tree, returning the error for it. */
function faultOf(body: XmlObject): BxdFaultError | undefined {
	const fault = xmlObject(body.Fault);
	if (!fault) return undefined;
	const detail = xmlObject(xmlObject(fault.detail ?? fault.Detail) ?? {});
	const inner = detail
		? xmlObject(Object.values(detail).find((v) => xmlObject(v)) ?? {})
		: undefined;
	return new BxdFaultError(
		xmlValue(fault.faultstring) ?? 'The certificate service answered with a SOAP fault',
		xmlValue(fault.faultcode),
		xmlValue(inner?.category ?? detail?.category),
		xmlValue(inner?.code ?? detail?.code),
	);
}

/**
 * Reads the certificate service's SOAP answer: a fault throws BxdFaultError, a code other than
 * 00 in the ResponseHeader or the CertApplicationResponse throws BxdResponseCodeError with the
 * bank's own code and text, anything unreadable throws BxdFormatError.
 */
export function readCertServiceAnswer(
	body: Buffer | string,
	expected: 'getCertificate' | 'getServiceCertificates',
	trust?: BankTrust,
): CertServiceAnswer {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (!text.trim()) throw new BxdFormatError("The certificate service's answer is empty");
	const parsed = parseBankXml(text, "The certificate service's answer");
	const soapBody = xmlObject(xmlObject(parsed.Envelope)?.Body);
	if (!soapBody)
		throw new BxdFormatError("The certificate service's answer is not a SOAP envelope");
	const fault = faultOf(soapBody);
	if (fault) throw fault;
	const name = Object.keys(soapBody).find((key) => !key.startsWith('@_') && key !== '#text');
	if (!name) throw new BxdFormatError("The certificate service's answer has an empty SOAP Body");
	if (name !== `${expected}out`)
		throw new BxdFormatError(
			`The certificate service answered with ${name} instead of ${expected}out`,
		);
	const out = xmlObject(soapBody[name]) ?? {};
	const headerXml = xmlObject(out.ResponseHeader) ?? {};
	const header = {
		responseCode: normalizeResponseCode(xmlValue(headerXml.ResponseCode)),
		responseText: xmlValue(headerXml.ResponseText),
		requestId: xmlValue(headerXml.RequestId),
	};
	const encoded = xmlValue(out.ApplicationResponse);
	const decoded = encoded
		? decodePayload(encoded, 'The ApplicationResponse in the answer')
		: undefined;
	if (header.responseCode && !isSuccessCode(header.responseCode)) {
		const inner = attempt(() => (decoded ? readCertApplicationResponse(decoded) : undefined));
		throw new BxdResponseCodeError(
			header.responseCode,
			header.responseText ?? (inner.ok ? inner.value?.responseText : undefined),
			'ResponseHeader',
		);
	}
	// The bank's code first (a refusal is reported as the bank worded it), then its signature.
	const response = decoded ? readCertApplicationResponse(decoded) : undefined;
	if (response?.responseCode && !isSuccessCode(response.responseCode)) {
		throw new BxdResponseCodeError(
			response.responseCode,
			response.responseText,
			'ApplicationResponse',
		);
	}
	if (response && decoded && trust) response.signature = verifyCertAnswer(decoded, trust).status;
	if (!header.responseCode && !response?.responseCode)
		throw new BxdFormatError("The certificate service's answer has no response code");
	return { operation: name, header, response, document: decoded };
}

/**
 * The certificate issued for our key: the one whose public key is the generated key. A bank
 * answer without it (a certificate for another key, none at all) is refused. Whether it is valid
 * now is checkCertificateDates' question (a check of what the bank issued, like its chain).
 */
export function certificateForKey(
	response: CertApplicationResponse | undefined,
	publicKey: KeyObject,
): IssuedCertificate {
	const certificates = response?.certificates ?? [];
	if (certificates.length === 0)
		throw new CertificateServiceError('The bank answered without a certificate');
	const ours = publicKey.export({ type: 'spki', format: 'der' });
	const match = certificates.find(
		(cert) =>
			Buffer.compare(cert.x509.publicKey.export({ type: 'spki', format: 'der' }), ours) === 0,
	);
	if (!match) {
		throw new CertificateServiceError(
			`The certificate the bank returned (${certificates[0].x509.subject.replace(/\n/g, ', ')}) does not match the key pair generated for this request; it was not stored`,
		);
	}
	return match;
}

/**
 * Throws when the certificate the bank issued has expired at `now`. Its start is not checked: a
 * bank's clock may run a little ahead of n8n's, and a certificate issued now starts now.
 */
export function checkCertificateDates(issued: { x509: X509Certificate }, now = new Date()): void {
	const notAfter = new Date(issued.x509.validTo);
	if (notAfter.getTime() <= now.getTime())
		throw new CertificateServiceError(
			`The certificate the bank issued expired on ${notAfter.toISOString()}`,
		);
}
