/**
 * SOAP 1.1 messages of the bxd file service: building the request envelope around the base64
 * ApplicationRequest (with an optional WS-Security header) and cutting the response envelope
 * apart. The base64 payload is joined and cut as bytes, never parsed: only the small rest of a
 * message goes through the XML parser. The envelope is drafted around a placeholder, so the
 * streaming path (requestStream.ts, responseStream.ts) uses the same text around a file that
 * never is in memory.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import type { XmlObject } from './xml';
import { escapeXml, xmlObject, xmlValue } from './xml';
import { bxdTimestamp } from './applicationRequest';
import { attempt } from '../common/attempt';
import { decodePayload } from './base64';
import type { BxdOperation } from './constants';
import {
	MODEL_NS,
	SERVICE_NS,
	SOAP_ENV_NS,
	WS_SECURITY_TTL_MS,
	WSS_BASE64_ENCODING,
	WSS_X509_TOKEN,
	WSSE_NS,
	WSU_NS,
} from './constants';
import type { PayloadDocument } from './document';
import {
	cutFirstElement,
	documentBytes,
	newPlaceholder,
	parseBankXml,
	splitAtPlaceholder,
} from './document';
import { BxdFaultError, BxdFormatError } from './errors';
import type { PayloadDigester, SigningMaterial } from './signature';
import { bufferDigester, signWsSecurity } from './signature';

export interface RequestHeaderFields {
	senderId: string;
	receiverId: string;
	/** Defaults to a fresh random id. */
	requestId?: string;
	/** Defaults to now. */
	timestamp?: Date;
	language?: string;
	userAgent?: string;
}

export interface EnvelopeOptions {
	operation: BxdOperation;
	header: RequestHeaderFields;
	/** The ApplicationRequest document (signed already, when signing is used). */
	applicationRequest: PayloadDocument;
	/** When given, the message carries a WS-Security header signed with this key. */
	signing?: SigningMaterial;
	now?: Date;
}

export interface RequestEnvelope {
	/** The message as bytes, ready to send. */
	body: Buffer;
	requestId: string;
	/** The same message as parts: text, base64 ApplicationRequest, text. */
	document: PayloadDocument;
}

/** A RequestId: 34 hex characters, unique per request. */
export function newRequestId(): string {
	return randomBytes(17).toString('hex');
}

function headerXml(header: RequestHeaderFields, requestId: string, now: Date): string {
	const field = (name: string, value: string | undefined): string =>
		value === undefined || value === ''
			? `<mod:${name} xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>`
			: `<mod:${name}>${escapeXml(value)}</mod:${name}>`;
	return (
		'<mod:RequestHeader>' +
		field('SenderId', header.senderId) +
		field('RequestId', requestId) +
		field('Timestamp', bxdTimestamp(header.timestamp ?? now)) +
		field('Language', header.language) +
		field('UserAgent', header.userAgent) +
		field('ReceiverId', header.receiverId) +
		'</mod:RequestHeader>'
	);
}

/**
 * A SOAP request before its payload (the base64 ApplicationRequest) is known: the text around
 * it and, when signed, the WS-Security signature still to be computed over the Body.
 */
export interface EnvelopeDraft {
	requestId: string;
	/** The message with `placeholder` where the payload goes (unsigned: final already). */
	skeleton: string;
	placeholder: string;
	/**
	 * The final text around the payload. Signed messages take the digest over the Body from
	 * `digester` (the payload may be a stream that was hashed beforehand).
	 */
	finish(digester?: PayloadDigester): { head: string; tail: string };
}

/**
 * Drafts the SOAP request: RequestHeader plus the ApplicationRequest as base64. With signing
 * material the envelope gets a WS-Security header: the certificate as BinarySecurityToken, a
 * Timestamp valid five minutes, and a signature over the Timestamp and the Body (exclusive
 * C14N, RSA-SHA256), both referenced by wsu:Id.
 */
export function draftRequestEnvelope(
	options: Omit<EnvelopeOptions, 'applicationRequest'>,
): EnvelopeDraft {
	const now = options.now ?? new Date();
	const requestId = options.header.requestId ?? newRequestId();
	const operationElement = `cor:${options.operation}in`;
	const bodyOpen = `<${operationElement}>${headerXml(options.header, requestId, now)}<mod:ApplicationRequest>`;
	const bodyClose = `</mod:ApplicationRequest></${operationElement}>`;
	const envelopeOpen = `<soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}" xmlns:cor="${SERVICE_NS}" xmlns:mod="${MODEL_NS}">`;
	const declaration = '<?xml version="1.0" encoding="UTF-8"?>';
	const placeholder = newPlaceholder();
	const signing = options.signing;

	if (!signing) {
		const head = `${declaration}${envelopeOpen}<soapenv:Header/><soapenv:Body>${bodyOpen}`;
		const tail = `${bodyClose}</soapenv:Body></soapenv:Envelope>`;
		return {
			requestId,
			skeleton: head + placeholder + tail,
			placeholder,
			finish: () => ({ head, tail }),
		};
	}

	const suffix = randomUUID();
	const tokenId = `X509-${suffix}`;
	const timestampId = `TS-${suffix}`;
	const bodyId = `Body-${suffix}`;
	const skeleton =
		`${declaration}${envelopeOpen}` +
		'<soapenv:Header>' +
		`<wsse:Security xmlns:wsse="${WSSE_NS}" xmlns:wsu="${WSU_NS}" soapenv:mustUnderstand="1">` +
		`<wsse:BinarySecurityToken EncodingType="${WSS_BASE64_ENCODING}" ValueType="${WSS_X509_TOKEN}" wsu:Id="${tokenId}">${signing.certificateBase64}</wsse:BinarySecurityToken>` +
		`<wsu:Timestamp wsu:Id="${timestampId}"><wsu:Created>${bxdTimestamp(now)}</wsu:Created>` +
		`<wsu:Expires>${bxdTimestamp(new Date(now.getTime() + WS_SECURITY_TTL_MS))}</wsu:Expires></wsu:Timestamp>` +
		'</wsse:Security>' +
		'</soapenv:Header>' +
		`<soapenv:Body xmlns:wsu="${WSU_NS}" wsu:Id="${bodyId}">${bodyOpen}${placeholder}${bodyClose}</soapenv:Body>` +
		'</soapenv:Envelope>';
	return {
		requestId,
		skeleton,
		placeholder,
		finish: (digester) => {
			if (!digester)
				throw new BxdFormatError(
					'Internal error: a signed message needs the digest over its payload',
				);
			const signed = signWsSecurity(
				skeleton,
				placeholder,
				digester,
				signing,
				[{ xpath: `//*[@wsu:Id='${timestampId}']` }, { xpath: `//*[@wsu:Id='${bodyId}']` }],
				tokenId,
				{ wsse: WSSE_NS, wsu: WSU_NS, soapenv: SOAP_ENV_NS },
			);
			return splitAtPlaceholder(signed, placeholder);
		},
	};
}

/**
 * Builds the SOAP request around an ApplicationRequest held in memory (see draftRequestEnvelope).
 */
export function buildRequestEnvelope(options: EnvelopeOptions): RequestEnvelope {
	const draft = draftRequestEnvelope(options);
	const payload = Buffer.from(
		documentBytes(options.applicationRequest).toString('base64'),
		'latin1',
	);
	const { head, tail } = draft.finish(options.signing ? bufferDigester(payload) : undefined);
	const document: PayloadDocument = { head, payload, tail };
	return { body: documentBytes(document), requestId: draft.requestId, document };
}

export interface ResponseHeaderFields {
	senderId?: string;
	requestId?: string;
	timestamp?: string;
	responseCode?: string;
	responseText?: string;
	receiverId?: string;
}

export interface ResponseEnvelope {
	/** Local name of the response element, e.g. downloadFileListout. */
	element: string;
	header: ResponseHeaderFields;
	/** The decoded ApplicationResponse document (bytes), when the response has one. */
	applicationResponse?: Buffer;
}

function firstElement(obj: XmlObject): [string, XmlObject] | undefined {
	for (const [key, value] of Object.entries(obj)) {
		if (key.startsWith('@_') || key === '#text') continue;
		return [key, xmlObject(value) ?? {}];
	}
	return undefined;
}

/** Finds the first object in a tree that has one of the keys (the fault detail may be nested). */
function findWithKeys(node: unknown, keys: string[], depth = 0): XmlObject | undefined {
	const obj = xmlObject(node);
	if (!obj || depth > 6) return undefined;
	if (keys.some((key) => key in obj)) return obj;
	for (const [key, value] of Object.entries(obj)) {
		if (key.startsWith('@_')) continue;
		const found = findWithKeys(value, keys, depth + 1);
		if (found) return found;
	}
	return undefined;
}

function parseSkeleton(skeleton: string): XmlObject {
	if (!skeleton.trim()) throw new BxdFormatError("The bank's answer is empty");
	return parseBankXml(skeleton, "The bank's answer", { explainRefusal: true });
}

function faultFrom(fault: XmlObject): BxdFaultError {
	const detail = findWithKeys(fault.detail ?? fault.Detail, ['category', 'code']);
	const reason = xmlObject(fault.Reason);
	const faultString =
		xmlValue(fault.faultstring) ??
		xmlValue(reason?.Text) ??
		'The file service answered with a SOAP fault';
	const faultCode = xmlValue(fault.faultcode) ?? xmlValue(xmlObject(fault.Code)?.Value);
	return new BxdFaultError(
		faultString,
		faultCode,
		xmlValue(detail?.category),
		xmlValue(detail?.code),
	);
}

/**
 * Reads a SOAP fault from a response body (an HTTP 500 answer), or returns undefined when the
 * body is not one.
 */
export function parseSoapFault(body: string | Buffer | undefined): BxdFaultError | undefined {
	if (body === undefined || body === null) return undefined;
	const source = Buffer.isBuffer(body) ? body.toString('utf8') : String(body);
	if (!/<(?:[\w.-]+:)?Fault[\s>]/.test(source)) return undefined;
	const parsed = attempt(() => parseSkeleton(source));
	if (!parsed.ok) return undefined;
	const fault = xmlObject(xmlObject(xmlObject(parsed.value.Envelope)?.Body)?.Fault);
	return fault ? faultFrom(fault) : undefined;
}

/**
 * Cuts a SOAP response apart: the base64 ApplicationResponse is taken out with indexOf and
 * decoded strictly; only the rest (headers, a fault) is parsed. A SOAP fault throws a
 * BxdFaultError; anything that is not a well-formed SOAP answer throws a BxdFormatError.
 */
export function parseResponseEnvelope(
	body: string | Buffer,
	expected?: BxdOperation,
): ResponseEnvelope {
	const isBytes = Buffer.isBuffer(body);
	// latin1 keeps one character per byte, so offsets found in the text are byte offsets.
	const source = isBytes ? body.toString('latin1') : body;
	const cut = cutFirstElement(source, 'ApplicationResponse');
	const rest = cut ? cut.head + cut.tail : source;
	const skeleton = isBytes ? Buffer.from(rest, 'latin1').toString('utf8') : rest;
	const result = readEnvelopeSkeleton(skeleton, expected);
	if (cut && cut.end > cut.start) {
		result.applicationResponse = decodePayload(
			source.slice(cut.start, cut.end),
			'The ApplicationResponse in the SOAP answer',
		);
		if (result.applicationResponse.length === 0) result.applicationResponse = undefined;
	}
	return result;
}

/**
 * Reads a SOAP response without its ApplicationResponse text (cut out, or still arriving and
 * closed artificially): the operation element and the ResponseHeader. A SOAP fault throws a
 * BxdFaultError; anything that is not a well-formed SOAP answer throws a BxdFormatError.
 */
export function readEnvelopeSkeleton(skeleton: string, expected?: BxdOperation): ResponseEnvelope {
	const parsed = parseSkeleton(skeleton);
	const envelope = xmlObject(parsed.Envelope);
	if (!envelope) throw new BxdFormatError("The bank's answer is not a SOAP envelope");
	const soapBody = xmlObject(envelope.Body);
	if (!soapBody) throw new BxdFormatError("The bank's answer has no SOAP Body");
	const fault = xmlObject(soapBody.Fault);
	if (fault) throw faultFrom(fault);
	const first = firstElement(soapBody);
	if (!first) throw new BxdFormatError("The bank's answer has an empty SOAP Body");
	const [element, out] = first;
	if (expected && element !== `${expected}out`) {
		throw new BxdFormatError(`The bank answered with ${element} instead of ${expected}out`);
	}
	const header = xmlObject(out.ResponseHeader);
	if (!header) throw new BxdFormatError(`The bank's ${element} has no ResponseHeader`);
	return {
		element,
		header: {
			senderId: xmlValue(header.SenderId),
			requestId: xmlValue(header.RequestId),
			timestamp: xmlValue(header.Timestamp),
			responseCode: xmlValue(header.ResponseCode),
			responseText: xmlValue(header.ResponseText),
			receiverId: xmlValue(header.ReceiverId),
		},
	};
}
