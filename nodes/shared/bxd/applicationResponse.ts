import { DateTime } from 'luxon';

import type { XmlObject } from './xml';
import { asArray, xmlObject, xmlValue } from './xml';
import { decodePayload } from './base64';
import { normalizeResponseCode } from './codes';
import type { PayloadDocument } from './document';
import { cutLastElement, parseBankXml, rootPrefix } from './document';
import { BxdFormatError, BxdSignatureError } from './errors';
import type { BankTrust, PayloadDigester } from './signature';
import { verifyEnvelopedSignature } from './signature';

/** One file the bank lists (FileDescriptor), with typed values. */
export interface FileDescriptor {
	fileReference?: string;
	targetId?: string;
	serviceId?: string;
	serviceIdOwnerName?: string;
	userFilename?: string;
	parentFileReference?: string;
	fileType?: string;
	/** ISO 8601, UTC. */
	fileTimestamp?: string;
	status?: string;
	amountTotal?: number;
	transactionCount?: number;
	lastDownloadTimestamp?: string;
	forwardedTimestamp?: string;
	confirmable?: boolean;
	deletable?: boolean;
	subStatus?: string;
	subStatusText?: string;
	missingTransactions?: boolean;
	subType?: string;
	feedbackFileAttributes?: FeedbackFileAttributes;
}

export interface FeedbackFileAttributes {
	feedbackFileReference?: string;
	feedbackFileType?: string;
	feedbackFileTypeName?: string;
	feedbackFileStatus?: string;
	feedbackFileDate?: string;
	feedbackFileTimestamp?: string;
	feedbackServiceId?: string;
	fileActionHistory?: string;
}

export interface FileTypeService {
	serviceId?: string;
	serviceIdOwnerName?: string;
	serviceIdType?: string;
	serviceIdText?: string;
}

/** One file type the user may send or fetch (getUserInfo). */
export interface UserFileType {
	targetId?: string;
	fileType?: string;
	fileTypeName?: string;
	country?: string;
	direction?: string;
	fileTypeServices: FileTypeService[];
}

export type SignatureCheck = 'valid' | 'unsigned' | 'notChecked';

export interface ApplicationResponse {
	customerId?: string;
	timestamp?: string;
	/** Two digits ("5" becomes "05"). */
	responseCode?: string;
	responseText?: string;
	executionSerial?: string;
	encrypted?: boolean;
	encryptionMethod?: string;
	compressed?: boolean;
	compressionMethod?: string;
	amountTotal?: number;
	transactionCount?: number;
	fileType?: string;
	fileDescriptors: FileDescriptor[];
	userFileTypes: UserFileType[];
	/** The file from Content, base64-decoded (still compressed when `compressed`). */
	content?: Buffer;
	/** 'notChecked' when no bank certificate was given. */
	signature: SignatureCheck;
	/** The document as XML text with the Content text left out. */
	xmlWithoutContent: string;
	/** The decoded document exactly as the bank sent it (absent when its Content was streamed). */
	bytes?: Buffer;
	/** The character encoding its XML declaration names. */
	encoding: 'utf8' | 'latin1';
	/** The document parsed (namespace prefixes removed, Content and Signature left out). */
	tree: Record<string, unknown>;
}

/** xs:dateTime as ISO 8601 in UTC; values that are not dates stay as the bank wrote them. */
export function isoTimestamp(value: unknown): string | undefined {
	const raw = xmlValue(value);
	if (!raw) return undefined;
	const parsed = DateTime.fromISO(raw, { zone: 'utc' });
	return parsed.isValid ? (parsed.toUTC().toISO() ?? raw) : raw;
}

function isoDate(value: unknown): string | undefined {
	const raw = xmlValue(value);
	if (!raw) return undefined;
	const parsed = DateTime.fromISO(raw, { setZone: true });
	return parsed.isValid ? (parsed.toISODate() ?? raw) : raw;
}

function num(value: unknown): number | undefined {
	const raw = xmlValue(value);
	if (raw === undefined) return undefined;
	const n = Number(raw);
	return Number.isFinite(n) ? n : undefined;
}

function int(value: unknown): number | undefined {
	const raw = xmlValue(value);
	if (raw === undefined || !/^[+-]?\d+$/.test(raw)) return undefined;
	const n = Number(raw);
	return Number.isSafeInteger(n) ? n : undefined;
}

function bool(value: unknown): boolean | undefined {
	const raw = xmlValue(value)?.toLowerCase();
	if (raw === 'true' || raw === '1') return true;
	if (raw === 'false' || raw === '0') return false;
	return undefined;
}

function compact<T extends object>(value: T): T {
	for (const key of Object.keys(value) as Array<keyof T>)
		if (value[key] === undefined) delete value[key];
	return value;
}

function feedback(value: unknown): FeedbackFileAttributes | undefined {
	const f = xmlObject(value);
	if (!f) return undefined;
	return compact({
		feedbackFileReference: xmlValue(f.FeedbackFileReference),
		feedbackFileType: xmlValue(f.FeedbackFileType),
		feedbackFileTypeName: xmlValue(f.FeedbackFileTypeName),
		feedbackFileStatus: xmlValue(f.FeedbackFileStatus),
		feedbackFileDate: isoDate(f.FeedbackFileDate),
		feedbackFileTimestamp: isoTimestamp(f.FeedbackFilestamp ?? f.FeedbackFileTimestamp),
		feedbackServiceId: xmlValue(f.FeedbackServiceId),
		fileActionHistory: xmlValue(f.FileActionHistory),
	});
}

export function toFileDescriptor(value: unknown): FileDescriptor {
	const d = xmlObject(value) ?? {};
	return compact({
		fileReference: xmlValue(d.FileReference),
		targetId: xmlValue(d.TargetId),
		serviceId: xmlValue(d.ServiceId),
		serviceIdOwnerName: xmlValue(d.ServiceIdOwnerName),
		userFilename: xmlValue(d.UserFilename),
		parentFileReference: xmlValue(d.ParentFileReference),
		fileType: xmlValue(d.FileType),
		fileTimestamp: isoTimestamp(d.FileTimestamp),
		status: xmlValue(d.Status),
		amountTotal: num(d.AmountTotal),
		transactionCount: int(d.TransactionCount),
		lastDownloadTimestamp: isoTimestamp(d.LastDownloadTimestamp),
		forwardedTimestamp: isoTimestamp(d.ForwardedTimestamp),
		confirmable: bool(d.Confirmable),
		deletable: bool(d.Deletable),
		subStatus: xmlValue(d.SubStatus),
		subStatusText: xmlValue(d.SubStatusText),
		missingTransactions: bool(d.MissingTransactions),
		subType: xmlValue(d.SubType),
		feedbackFileAttributes: feedback(d.FeedbackFileAttributes),
	});
}

export function toUserFileType(value: unknown): UserFileType {
	const t = xmlObject(value) ?? {};
	const services = asArray(xmlObject(t.FileTypeServices)?.FileTypeService as unknown[] | undefined);
	return compact({
		targetId: xmlValue(t.TargetId),
		fileType: xmlValue(t.FileType),
		fileTypeName: xmlValue(t.FileTypeName),
		country: xmlValue(t.Country),
		direction: xmlValue(t.Direction),
		fileTypeServices: services.map((service) => {
			const s = xmlObject(service) ?? {};
			return compact({
				serviceId: xmlValue(s.ServiceId),
				serviceIdOwnerName: xmlValue(s.ServiceIdOwnerName),
				serviceIdType: xmlValue(s.ServiceIdType),
				serviceIdText: xmlValue(s.ServiceIdText),
			});
		}),
	});
}

export function stripBom(bytes: Buffer): Buffer {
	return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
		? bytes.subarray(3)
		: bytes;
}

/**
 * Splits an ApplicationResponse (or ApplicationRequest) into the document without its Content and
 * the Content's base64 text, found from the end of the document with indexOf (a file of any size
 * never goes through the XML parser).
 */
export function splitAtContent(bytes: Buffer): PayloadDocument {
	const clean = stripBom(bytes);
	const start = clean.subarray(0, 8192).toString('latin1');
	const encoding = documentEncoding(start);
	const prefix = rootPrefix(start);
	const cut = cutLastElement(clean, 'Content', prefix);
	if (!cut) return { head: clean.toString(encoding), tail: '' };
	return {
		head: cut.head.toString(encoding),
		payload: cut.content,
		tail: cut.tail.toString(encoding),
	};
}

/** The encoding an XML declaration names: Latin-1 family or UTF-8 (the default). */
export function documentEncoding(start: string): 'utf8' | 'latin1' {
	const declared = /^\s*<\?xml[^>]*\sencoding\s*=\s*["']([^"']+)["']/i
		.exec(start)?.[1]
		?.toLowerCase();
	return declared && /^(iso-?8859-1|latin-?1|windows-1252|cp1252|us-ascii)$/.test(declared)
		? 'latin1'
		: 'utf8';
}

export interface ReadOptions {
	/** Verify the enveloped signature against the bank's certificate(s). */
	trust?: BankTrust;
}

/** Parses the document text without its Content, refusing DOCTYPE/ENTITY declarations. */
function parseDocument(xmlWithoutContent: string): XmlObject {
	const parsed = parseBankXml(xmlWithoutContent, 'The ApplicationResponse', {
		explainRefusal: true,
	});
	const root = xmlObject(parsed.ApplicationResponse);
	if (!root) {
		const name = Object.keys(parsed).find((key) => !key.startsWith('@_') && key !== '#text');
		throw new BxdFormatError(
			`The bank's answer holds ${name ? `a ${name}` : 'no document'} instead of an ApplicationResponse`,
		);
	}
	return root;
}

/** The typed fields of a parsed ApplicationResponse (without Content, bytes and signature). */
function responseFields(
	root: XmlObject,
	xmlWithoutContent: string,
	encoding: 'utf8' | 'latin1',
	signature: SignatureCheck,
): ApplicationResponse {
	const tree: XmlObject = { ...root };
	delete tree.Signature;
	delete tree.Content;
	const descriptors = asArray(
		xmlObject(root.FileDescriptors)?.FileDescriptor as unknown[] | undefined,
	);
	const fileTypes = asArray(xmlObject(root.UserFileTypes)?.UserFileType as unknown[] | undefined);
	return {
		customerId: xmlValue(root.CustomerId),
		timestamp: isoTimestamp(root.Timestamp),
		responseCode: normalizeResponseCode(xmlValue(root.ResponseCode)),
		responseText: xmlValue(root.ResponseText),
		executionSerial: xmlValue(root.ExecutionSerial),
		encrypted: bool(root.Encrypted),
		encryptionMethod: xmlValue(root.EncryptionMethod),
		compressed: bool(root.Compressed),
		compressionMethod: xmlValue(root.CompressionMethod),
		amountTotal: num(root.AmountTotal),
		transactionCount: int(root.TransactionCount),
		fileType: xmlValue(root.FileType),
		fileDescriptors: descriptors.map(toFileDescriptor),
		userFileTypes: fileTypes.map(toUserFileType),
		signature,
		xmlWithoutContent,
		encoding,
		tree,
	};
}

/**
 * Reads a decoded ApplicationResponse: refuses DOCTYPE/ENTITY declarations, verifies the
 * signature when a bank certificate is given, and returns typed values. Response codes are not
 * judged here.
 */
export function readApplicationResponse(
	bytes: Buffer,
	options: ReadOptions = {},
): ApplicationResponse {
	const doc = splitAtContent(bytes);
	const xmlWithoutContent = doc.head + doc.tail;
	const root = parseDocument(xmlWithoutContent);
	const signature: SignatureCheck = options.trust
		? verifyEnvelopedSignature(doc, options.trust)
		: 'notChecked';
	const encoding = documentEncoding(stripBom(bytes).subarray(0, 200).toString('latin1'));
	const response: ApplicationResponse = {
		...responseFields(root, xmlWithoutContent, encoding, signature),
		bytes,
	};
	if (doc.payload)
		response.content = decodePayload(doc.payload, 'The file content (ApplicationResponse Content)');
	return compact(response);
}

/**
 * Reads the fields of an ApplicationResponse whose Content is still arriving: `head` is the
 * document up to the Content's opening tag and `closing` closes what it leaves open. The
 * signature is not checked yet ('notChecked').
 */
export function readApplicationResponseHead(
	head: string,
	closing: string,
	encoding: 'utf8' | 'latin1',
): ApplicationResponse {
	const xml = head + closing;
	return compact(responseFields(parseDocument(xml), xml, encoding, 'notChecked'));
}

/**
 * Reads an ApplicationResponse whose Content streamed past: `head` and `tail` are the text
 * around it. With a bank certificate, the signature is verified with `digester`, which gives
 * the digest over the Content as it was hashed in passing.
 */
export function readStreamedApplicationResponse(
	doc: { head: string; tail: string },
	encoding: 'utf8' | 'latin1',
	options: ReadOptions & { digester?: PayloadDigester },
): ApplicationResponse {
	const xmlWithoutContent = doc.head + doc.tail;
	const root = parseDocument(xmlWithoutContent);
	let signature: SignatureCheck = 'notChecked';
	if (options.trust) {
		if (!options.digester)
			throw new BxdSignatureError(
				'Internal error: the streamed Content was not hashed for the signature check',
			);
		signature = verifyEnvelopedSignature(
			{ head: doc.head, tail: doc.tail },
			options.trust,
			options.digester,
		);
	}
	return compact(responseFields(root, xmlWithoutContent, encoding, signature));
}
