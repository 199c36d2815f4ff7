/**
 * One request/response exchange with a bxd file service, without the HTTP call: build and sign
 * the ApplicationRequest, wrap it in the SOAP envelope, then read the answer, verify it and judge
 * its response codes.
 */
import { assertSafeXml, UnsafeXmlError } from './xml';
import type { ApplicationRequestFields } from './applicationRequest';
import { buildApplicationRequest } from './applicationRequest';
import type { ApplicationResponse } from './applicationResponse';
import { attempt } from '../common/attempt';
import { readApplicationResponse, splitAtContent } from './applicationResponse';
import { isSuccessCode, NO_DATA_CODE, normalizeResponseCode } from './codes';
import type { BxdOperation } from './constants';
import { COMMANDS, DSIG_NS } from './constants';
import type { PayloadDocument } from './document';
import { documentBytes } from './document';
import type { EncryptionSettings } from './encryption';
import { decryptDocument, encryptDocument, isEncryptedData } from './encryption';
import {
	BxdFormatError,
	BxdResponseCodeError,
	BxdSignatureError,
	BxdValidationError,
} from './errors';
import type { BankTrust, Canonicalization, SigningMaterial } from './signature';
import { signApplicationRequest } from './signature';
import type { RequestEnvelope, RequestHeaderFields, ResponseHeaderFields } from './soap';
import { buildRequestEnvelope, parseResponseEnvelope } from './soap';

export interface FileServiceSettings {
	senderId: string;
	receiverId: string;
	customerId: string;
	softwareId: string;
	environment: string;
	language?: string;
	userAgent?: string;
	/** Sign the ApplicationRequest and the SOAP message. */
	signing?: SigningMaterial;
	/** Canonicalization of the ApplicationRequest signature (default inclusive). */
	canonicalization?: Canonicalization;
	/** Verify the bank's ApplicationResponse signatures. */
	trust?: BankTrust;
	/**
	 * Encrypt every ApplicationRequest to the bank's encryption certificate and decrypt encrypted
	 * answers with the customer's encryption key (Danske Bank).
	 */
	encryption?: EncryptionSettings;
}

/** The operation-specific fields; identity, environment and software come from the settings. */
export type RequestFields = Omit<
	ApplicationRequestFields,
	'customerId' | 'command' | 'environment' | 'softwareId'
>;

export interface PreparedRequest {
	operation: BxdOperation;
	envelope: RequestEnvelope;
	/** Size of the SOAP message in bytes. */
	size: number;
	signed: boolean;
}

/** Builds, signs and wraps the ApplicationRequest for an operation. */
export function prepareRequest(
	settings: FileServiceSettings,
	operation: BxdOperation,
	fields: RequestFields,
	now = new Date(),
): PreparedRequest {
	const document = buildApplicationRequest(
		applicationRequestFields(settings, operation, fields, now),
	);
	return wrap(settings, operation, document, now);
}

/**
 * Wraps an ApplicationRequest the user wrote (XML text) for banks with their own content. It is
 * signed like a built one unless it already carries a signature.
 */
export function prepareRawRequest(
	settings: FileServiceSettings,
	operation: BxdOperation,
	xml: Buffer,
	now = new Date(),
): PreparedRequest {
	const text = xml.subarray(0, 65536).toString('utf8');
	const safe = attempt(() => assertSafeXml(text));
	if (!safe.ok) {
		if (safe.error instanceof UnsafeXmlError)
			throw new BxdValidationError(
				'ApplicationRequest',
				`The ApplicationRequest is refused: ${safe.error.message}`,
			);
		throw safe.error;
	}
	if (!/^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?</.test(text)) {
		throw new BxdValidationError(
			'ApplicationRequest',
			'The ApplicationRequest is not XML (it must start with "<" or be base64 of XML)',
		);
	}
	const document = splitAtContent(xml);
	const signature = /<(?:[\w.-]+:)?Signature[\s>]/;
	const alreadySigned =
		(document.head.includes(DSIG_NS) || document.tail.includes(DSIG_NS)) &&
		(signature.test(document.head) || signature.test(document.tail));
	return wrap(settings, operation, document, now, alreadySigned);
}

/** An ApplicationRequest's fields: the operation's own, and those the service settings give. */
export function applicationRequestFields<F extends Omit<RequestFields, 'content'>>(
	settings: FileServiceSettings,
	operation: BxdOperation,
	fields: F,
	now: Date,
): F &
	Pick<
		ApplicationRequestFields,
		'customerId' | 'command' | 'environment' | 'softwareId' | 'timestamp'
	> {
	return {
		...fields,
		customerId: settings.customerId,
		command: COMMANDS[operation],
		environment: settings.environment,
		softwareId: settings.softwareId,
		timestamp: fields.timestamp ?? now,
	};
}

/** The RequestHeader of a SOAP request envelope, from the service settings. */
export function requestHeader(settings: FileServiceSettings, now: Date): RequestHeaderFields {
	return {
		senderId: settings.senderId,
		receiverId: settings.receiverId,
		language: settings.language,
		userAgent: settings.userAgent,
		timestamp: now,
	};
}

function wrap(
	settings: FileServiceSettings,
	operation: BxdOperation,
	document: PayloadDocument,
	now: Date,
	alreadySigned = false,
): PreparedRequest {
	const signed =
		settings.signing && !alreadySigned
			? signApplicationRequest(document, settings.signing, {
					canonicalization: settings.canonicalization,
				})
			: document;
	// Signed first, then encrypted: the bank decrypts, then verifies the signature.
	const applicationRequest = settings.encryption
		? encryptDocument(documentBytes(signed), settings.encryption.recipient)
		: signed;
	const envelope = buildRequestEnvelope({
		operation,
		header: requestHeader(settings, now),
		applicationRequest,
		signing: settings.signing,
		now,
	});
	return { operation, envelope, size: envelope.body.length, signed: !!settings.signing };
}

export interface FileServiceResult {
	header: ResponseHeaderFields;
	/** The ResponseHeader code, or the ApplicationResponse code when the header has none. */
	code: string;
	/** Code 24: nothing matched; the result carries no data. */
	noData: boolean;
	applicationResponse?: ApplicationResponse;
}

function peekApplicationResponse(bytes: Buffer | undefined): ApplicationResponse | undefined {
	if (!bytes) return undefined;
	const read = attempt(() => readApplicationResponse(bytes));
	return read.ok ? read.value : undefined;
}

/** The envelope with its ApplicationResponse decrypted when it came as an EncryptedData. */
function decryptedEnvelope<T extends { applicationResponse?: Buffer }>(
	settings: FileServiceSettings,
	envelope: T,
): T {
	const inner = envelope.applicationResponse;
	if (!inner || !isEncryptedData(inner)) return envelope;
	return {
		...envelope,
		applicationResponse: decryptDocument(inner, settings.encryption?.decryption),
	};
}

/**
 * Reads the bank's answer. Throws BxdFaultError for a SOAP fault, BxdFormatError for anything
 * unreadable, BxdResponseCodeError for codes other than 00 and 24, and BxdSignatureError for a
 * response whose signature fails, or a successful one (00/24) without a signature when the
 * bank's certificate is known. Error responses may come unsigned: banks do not always sign
 * them, and they carry no data to trust.
 */
export function readResponse(
	settings: FileServiceSettings,
	operation: BxdOperation,
	body: string | Buffer,
): FileServiceResult {
	const received = parseResponseEnvelope(body, operation);
	const headerCode = normalizeResponseCode(received.header.responseCode);
	if (headerCode && !isSuccessCode(headerCode)) {
		// The bank's code is what matters; its text inside an answer that cannot be decrypted is not.
		const opened = attempt(() => decryptedEnvelope(settings, received));
		const inner = peekApplicationResponse(opened.ok ? opened.value.applicationResponse : undefined);
		const envelope = received;
		throw new BxdResponseCodeError(
			headerCode,
			envelope.header.responseText ?? inner?.responseText,
			'ResponseHeader',
		);
	}
	const envelope = decryptedEnvelope(settings, received);
	const applicationResponse = envelope.applicationResponse
		? readApplicationResponse(envelope.applicationResponse, { trust: settings.trust })
		: undefined;
	const innerCode = applicationResponse?.responseCode;
	if (innerCode && !isSuccessCode(innerCode)) {
		throw new BxdResponseCodeError(
			innerCode,
			applicationResponse?.responseText,
			'ApplicationResponse',
		);
	}
	const code = headerCode ?? innerCode;
	if (!code) throw new BxdFormatError("The bank's answer has no response code");
	const noData = headerCode === NO_DATA_CODE || innerCode === NO_DATA_CODE;
	if (!applicationResponse && !noData) {
		throw new BxdFormatError(`The bank answered code ${code} without an ApplicationResponse`);
	}
	if (settings.trust && applicationResponse?.signature !== 'valid') {
		throw new BxdSignatureError(
			`The response signature is missing: the bank answered code ${code} without ${
				applicationResponse ? 'signing its ApplicationResponse' : 'an ApplicationResponse'
			}, and the credential has a Bank Certificate, so unsigned answers are not accepted`,
		);
	}
	return { header: envelope.header, code, noData, applicationResponse };
}
