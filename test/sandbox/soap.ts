import { createCipheriv, createHash, X509Certificate } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import {
	createGunzip,
	createGzip,
	createInflate,
	createInflateRaw,
	gunzipSync,
	gzipSync,
	inflateRawSync,
	inflateSync,
} from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';

import { Base64Encoder } from './base64';
import type { AnswerEncryption, SandboxDanske } from './danske';
import { encryptedLength, PkiError } from './danske';

import {
	FILE_TYPE_ALIASES,
	camt054FromPain001,
	pain001Summary,
	pain002,
	readHead,
	sameFileType,
	USER_FILE_TYPES,
	type FileStore,
} from './bankfiles';
import {
	BodyTooLargeError,
	isClosed,
	readBody,
	MODEL_NS,
	send,
	SERVICE_NS,
	soapFaultXml,
	SOAP_ENV_NS,
	xmlEscape,
	type RequestContext,
} from './http';
import type {
	BankFileDescriptor,
	SandboxClients,
	SandboxStats,
	SandboxSwitches,
	SoapCallRecord,
} from './types';
import {
	readSoapRequestStream,
	SoapStreamError,
	verifyStreamedSignature,
	type StreamedSoapRequest,
} from './soapStream';
import {
	buildSignature,
	c14nText,
	CanonicalDigest,
	DSIG_NS,
	verifyEnvelopedSignature,
} from './xmldsig';

export const XMLDATA_NS = 'http://bxd.fi/xmldata/';

/** The standard address refuses HTTP bodies larger than this (20 MiB). */
export const STANDARD_LIMIT = 20 * 1024 * 1024;
/**
 * Upper bound accepted on the large-file address. Messages there are read as a stream (the file
 * goes to disk as it arrives), so this only guards the disk.
 */
export const LARGE_LIMIT = 16 * 1024 * 1024 * 1024;

const OPERATIONS: Record<string, string> = {
	uploadFile: 'UploadFile',
	downloadFileList: 'DownloadFileList',
	downloadFile: 'DownloadFile',
	deleteFile: 'DeleteFile',
	getUserInfo: 'GetUserInfo',
};

/** Response codes of the bxd file service (two digits). */
export const RESPONSE_TEXTS: Record<string, string> = {
	'00': 'OK.',
	'05': 'Operation unknown.',
	'06': 'Operation is not accepted.',
	'07': 'SenderId not found.',
	'12': 'Schema validation failed.',
	'13': 'CustomerId not found.',
	'18': 'Content digital signature not valid.',
	'20': 'Content type not valid.',
	'21': 'Deflate error.',
	'22': 'Decrypt error.',
	'23': 'Content processing error.',
	'24': 'Content not found.',
	'26': 'Technical error.',
	'27': 'Cannot be deleted.',
	'29': 'Invalid parameters.',
	'30': 'Authentication failed.',
};

export interface FileServiceDeps {
	store: FileStore;
	stats: SandboxStats;
	switches: SandboxSwitches;
	clients: SandboxClients;
	customerSigningCertPem: string;
	/** The customer certificate a signed document names in its KeyInfo, among those the bank trusts. */
	customerCertFor?: (documentText: string) => string;
	bankSigningCertPem: string;
	bankSigningKeyPem: string;
	/** Encrypt the ApplicationResponse (Danske Bank): the EncryptedData parts and the key. */
	answerEncryption?: AnswerEncryption;
}

class SoapClientError extends Error {
	constructor(
		message: string,
		readonly category = 'validation',
		readonly code = '12',
	) {
		super(message);
	}
}

class ApplicationError extends Error {
	constructor(
		readonly code: string,
		message?: string,
	) {
		super(message ?? RESPONSE_TEXTS[code] ?? 'Error.');
	}
}

interface RequestHeader {
	senderId: string;
	requestId: string;
	timestamp: string;
	language?: string;
	userAgent?: string;
	receiverId: string;
}

export interface ParsedSoapRequest {
	operation: string;
	header: RequestHeader;
	/** Decoded ApplicationRequest document. */
	applicationRequest: Buffer;
}

interface ApplicationRequestFields {
	customerId?: string;
	command?: string;
	timestamp?: string;
	startDate?: string;
	endDate?: string;
	status?: string;
	serviceId?: string;
	environment?: string;
	fileReferences: string[];
	userFilename?: string;
	targetId?: string;
	executionSerial?: string;
	encryption?: string;
	compression?: string;
	compressionMethod?: string;
	softwareId?: string;
	fileType?: string;
	/** The Content decoded: in memory, or in a file on disk (large messages, still packed when compressed). */
	content?: Buffer | { path: string; size: number };
	signature: SoapCallRecord['signature'];
}

// ---------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------

const parser = (): DOMParser =>
	new DOMParser({
		errorHandler: (level: string, message: unknown) => {
			if (level !== 'warning') throw new SoapClientError(`XML not well-formed: ${String(message)}`);
		},
	});

function childElements(element: Element): Element[] {
	const children: Element[] = [];
	for (let node = element.firstChild; node; node = node.nextSibling) {
		if (node.nodeType === 1) children.push(node as Element);
	}
	return children;
}

function child(element: Element, localName: string): Element | undefined {
	return childElements(element).find((item) => item.localName === localName);
}

function text(element: Element, localName: string): string | undefined {
	const found = child(element, localName);
	if (!found) return undefined;
	const nil = found.getAttributeNS('http://www.w3.org/2001/XMLSchema-instance', 'nil');
	if (nil === 'true') return undefined;
	return found.textContent?.trim() ?? '';
}

function assertNoDoctype(head: string): void {
	if (/<!DOCTYPE/i.test(head) || /<!ENTITY/i.test(head))
		throw new SoapClientError('DOCTYPE and entity declarations are not allowed.');
}

/**
 * Cuts the text of one element out of a large document (by local name), so that the rest
 * can be parsed as a small skeleton. Returns the skeleton and the raw element text.
 */
function cutElement(
	document: Buffer,
	localName: string,
): { skeleton: string; inner: Buffer } | undefined {
	const headLength = Math.min(document.length, 256 * 1024);
	let head = document.subarray(0, headLength).toString('utf8');
	const open = new RegExp(`<([A-Za-z_][\\w.-]*:)?${localName}(\\s[^>]*)?(/?)>`).exec(head);
	if (!open) {
		if (headLength === document.length) return undefined;
		head = document.toString('utf8');
		return cutElementInString(head, localName);
	}
	const openEnd = Buffer.byteLength(head.slice(0, open.index + open[0].length), 'utf8');
	const openTag = open[0];
	if (open[3] === '/') return { skeleton: document.toString('utf8'), inner: Buffer.alloc(0) };
	const closeTag = `</${open[1] ?? ''}${localName}>`;
	const closeStart = document.lastIndexOf(closeTag);
	if (closeStart < openEnd) throw new SoapClientError(`Element ${localName} is not closed.`);
	const skeleton =
		document.subarray(0, openEnd - openTag.length).toString('utf8') +
		openTag +
		closeTag +
		document.subarray(closeStart + closeTag.length).toString('utf8');
	return { skeleton, inner: document.subarray(openEnd, closeStart) };
}

function cutElementInString(
	document: string,
	localName: string,
): { skeleton: string; inner: Buffer } | undefined {
	const open = new RegExp(`<([A-Za-z_][\\w.-]*:)?${localName}(\\s[^>]*)?(/?)>`).exec(document);
	if (!open) return undefined;
	if (open[3] === '/') return { skeleton: document, inner: Buffer.alloc(0) };
	const closeTag = `</${open[1] ?? ''}${localName}>`;
	const start = open.index + open[0].length;
	const end = document.lastIndexOf(closeTag);
	if (end < start) throw new SoapClientError(`Element ${localName} is not closed.`);
	return {
		skeleton: document.slice(0, start) + closeTag + document.slice(end + closeTag.length),
		inner: Buffer.from(document.slice(start, end), 'utf8'),
	};
}

function decodeBase64(raw: Buffer): Buffer {
	let textValue = raw.toString('latin1');
	if (textValue.includes('&')) textValue = textValue.replace(/&#(13|10|x[dDaA]);/g, '');
	if (/[^A-Za-z0-9+/=\s]/.test(textValue))
		throw new SoapClientError('Base64 content is not valid.');
	return Buffer.from(textValue, 'base64');
}

/**
 * Parses a SOAP request of the file service. The base64 payload is cut out before the
 * envelope is parsed, so only the small skeleton goes through the XML parser. This is the
 * one place to replace with a streaming parser.
 */
export function parseSoapRequest(body: Buffer): ParsedSoapRequest {
	assertNoDoctype(body.subarray(0, 4096).toString('utf8'));
	const cut = cutElement(body, 'ApplicationRequest');
	const skeleton = cut ? cut.skeleton : body.toString('utf8');
	const parsed = parseSoapSkeleton(skeleton);
	if (!cut) throw new SoapClientError('ApplicationRequest is required.');
	return { ...parsed, applicationRequest: decodeBase64(cut.inner) };
}

/** Parses the SOAP request without its ApplicationRequest text: the operation and the RequestHeader. */
function parseSoapSkeleton(skeleton: string): Omit<ParsedSoapRequest, 'applicationRequest'> {
	assertNoDoctype(skeleton.slice(0, 4096));
	const doc = parser().parseFromString(skeleton, 'text/xml') as unknown as Document;
	const envelope = doc.documentElement;
	if (!envelope || envelope.localName !== 'Envelope' || envelope.namespaceURI !== SOAP_ENV_NS) {
		throw new SoapClientError('Not a SOAP 1.1 envelope.');
	}
	const soapBody = childElements(envelope).find(
		(item) => item.localName === 'Body' && item.namespaceURI === SOAP_ENV_NS,
	);
	const request = soapBody ? childElements(soapBody)[0] : undefined;
	if (!request) throw new SoapClientError('SOAP Body is empty.');
	if (request.namespaceURI !== SERVICE_NS || !request.localName?.endsWith('in')) {
		throw new SoapClientError(
			`Unknown operation element {${request.namespaceURI ?? ''}}${request.localName ?? ''}.`,
			'validation',
			'05',
		);
	}
	const operation = request.localName.slice(0, -2);
	if (!OPERATIONS[operation])
		throw new SoapClientError(`Unknown operation ${operation}.`, 'validation', '05');
	const headerElement = child(request, 'RequestHeader');
	if (!headerElement) throw new SoapClientError('RequestHeader is required.');
	const header: RequestHeader = {
		senderId: text(headerElement, 'SenderId') ?? '',
		requestId: text(headerElement, 'RequestId') ?? '',
		timestamp: text(headerElement, 'Timestamp') ?? '',
		language: text(headerElement, 'Language'),
		userAgent: text(headerElement, 'UserAgent'),
		receiverId: text(headerElement, 'ReceiverId') ?? '',
	};
	for (const [name, value] of Object.entries({
		SenderId: header.senderId,
		RequestId: header.requestId,
		Timestamp: header.timestamp,
		ReceiverId: header.receiverId,
	})) {
		if (!value) throw new SoapClientError(`RequestHeader/${name} is required.`);
	}
	if (!child(request, 'ApplicationRequest')) throw new SoapClientError('ApplicationRequest is required.');
	return { operation, header };
}

/**
 * Parses the XML text `read` gives and checks that its root is an ApplicationRequest; anything
 * unreadable is refused with bxd code 12.
 */
function applicationRequestRoot(read: () => string): { doc: Document; root: Element } {
	let doc: Document;
	try {
		doc = parser().parseFromString(read(), 'text/xml') as unknown as Document;
	} catch (error) {
		throw new ApplicationError('12', `ApplicationRequest is not well-formed XML: ${(error as Error).message}`);
	}
	const root = doc.documentElement;
	if (!root || root.localName !== 'ApplicationRequest' || root.namespaceURI !== XMLDATA_NS) {
		throw new ApplicationError('12', `ApplicationRequest root must be {${XMLDATA_NS}}ApplicationRequest.`);
	}
	return { doc, root };
}

/** Parses the decoded ApplicationRequest (http://bxd.fi/xmldata/) and checks its signature. */
export function parseApplicationRequest(
	xml: Buffer,
	customerCertPem: string,
): ApplicationRequestFields {
	try {
		assertNoDoctype(xml.subarray(0, 4096).toString('utf8'));
	} catch (error) {
		throw new ApplicationError('12', (error as Error).message);
	}
	let cut: { skeleton: string; inner: Buffer } | undefined;
	const { doc, root } = applicationRequestRoot(() => {
		cut = cutElement(xml, 'Content');
		return cut ? cut.skeleton : xml.toString('utf8');
	});
	const hasSignature = doc.getElementsByTagNameNS(DSIG_NS, 'Signature').length > 0;
	const signature: SoapCallRecord['signature'] = hasSignature
		? verifyEnvelopedSignature(xml.toString('utf8'), customerCertPem)
		: 'none';
	return fieldsOf(root, cut && child(root, 'Content') ? decodeBase64(cut.inner) : undefined, signature);
}

/**
 * Parses an ApplicationRequest whose Content streamed into a file (see soapStream.ts): the
 * document without the Content text, the file, and the signature checked from the hashes
 * taken while the Content passed.
 */
function parseStreamedApplicationRequest(
	streamed: Extract<StreamedSoapRequest, { kind: 'content' }>,
	customerCertPem: string,
): ApplicationRequestFields {
	const { root } = applicationRequestRoot(() => {
		assertNoDoctype(streamed.documentSkeleton.slice(0, 4096));
		return streamed.documentSkeleton;
	});
	const signature = verifyStreamedSignature(
		streamed.documentSkeleton,
		streamed.contentAt,
		streamed.digests,
		customerCertPem,
	);
	return fieldsOf(root, { path: streamed.contentFile, size: streamed.contentSize }, signature);
}

function fieldsOf(
	root: Element,
	content: ApplicationRequestFields['content'],
	signature: SoapCallRecord['signature'],
): ApplicationRequestFields {
	const references = child(root, 'FileReferences');
	return {
		customerId: text(root, 'CustomerId'),
		command: text(root, 'Command'),
		timestamp: text(root, 'Timestamp'),
		startDate: text(root, 'StartDate'),
		endDate: text(root, 'EndDate'),
		status: text(root, 'Status'),
		serviceId: text(root, 'ServiceId'),
		environment: text(root, 'Environment'),
		fileReferences: references
			? childElements(references)
					.filter((item) => item.localName === 'FileReference')
					.map((item) => item.textContent?.trim() ?? '')
			: [],
		userFilename: text(root, 'UserFilename'),
		targetId: text(root, 'TargetId'),
		executionSerial: text(root, 'ExecutionSerial'),
		encryption: text(root, 'Encryption'),
		compression: text(root, 'Compression'),
		compressionMethod: text(root, 'CompressionMethod'),
		softwareId: text(root, 'SoftwareId'),
		fileType: text(root, 'FileType'),
		content,
		signature,
	};
}

// ---------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------

type ContentSource = Buffer | { path: string };

interface ResponsePlan {
	operation: string;
	header: RequestHeader;
	code: string;
	text?: string;
	customerId: string;
	executionSerial?: string;
	descriptors?: BankFileDescriptor[];
	userFileTypes?: boolean;
	fileType?: string;
	amountTotal?: number;
	transactionCount?: number;
	content?: ContentSource;
	/** A file made for this response only (a compressed copy), removed once it is sent. */
	temporary?: string;
	compressed?: boolean;
}

const el = (name: string, value: string | number | boolean | undefined): string =>
	value === undefined ? '' : `<c2b:${name}>${c14nText(String(value))}</c2b:${name}>`;

/** The elements of a FileDescriptor in the schema's order: the descriptor's fields, capitalised. */
const DESCRIPTOR_FIELDS = (
	'fileReference targetId serviceId userFilename parentFileReference fileType fileTimestamp status ' +
	'amountTotal transactionCount lastDownloadTimestamp deletable'
).split(' ') as Array<Exclude<keyof BankFileDescriptor, 'direction' | 'size'>>;

function descriptorXml(descriptor: BankFileDescriptor): string {
	const elements = DESCRIPTOR_FIELDS.map((field) => el(field[0].toUpperCase() + field.slice(1), descriptor[field]));
	return `<c2b:FileDescriptor>${elements.join('')}</c2b:FileDescriptor>`;
}

function userFileTypesXml(clients: SandboxClients): string {
	return (
		'<c2b:UserFileTypes>' +
		USER_FILE_TYPES.map(
			(type) =>
				'<c2b:UserFileType>' +
				el('TargetId', clients.fileService.targetId) +
				el('FileType', type.fileType) +
				el('FileTypeName', type.name) +
				el('Country', 'FI') +
				el('Direction', type.direction) +
				'<c2b:FileTypeServices><c2b:FileTypeService>' +
				el('ServiceId', `SBXBFIHH-FI-EUR-${clients.fileService.customerId}`) +
				el('ServiceIdOwnerName', 'Sandbox Customer Oy') +
				el('ServiceIdType', 'A') +
				el('ServiceIdText', 'Main account') +
				'</c2b:FileTypeService></c2b:FileTypeServices></c2b:UserFileType>',
		).join('') +
		'</c2b:UserFileTypes>'
	);
}

const CHUNK = 3 * 256 * 1024;

async function* rawChunks(source: ContentSource): AsyncGenerator<Buffer> {
	if (Buffer.isBuffer(source)) {
		for (let offset = 0; offset < source.length; offset += CHUNK)
			yield source.subarray(offset, offset + CHUNK);
		return;
	}
	for await (const chunk of createReadStream(source.path, { highWaterMark: CHUNK }))
		yield chunk as Buffer;
}

async function* base64Chunks(source: ContentSource): AsyncGenerator<Buffer> {
	const encoder = new Base64Encoder();
	for await (const chunk of rawChunks(source)) {
		const encoded = encoder.push(chunk);
		if (encoded.length > 0) yield encoded;
	}
	const rest = encoder.end();
	if (rest.length > 0) yield rest;
}

function sourceSize(source: ContentSource): number {
	return Buffer.isBuffer(source) ? source.length : statSync(source.path).size;
}

interface RenderedResponse {
	/** Envelope parts around the base64 ApplicationResponse. */
	envelopeHead: string;
	envelopeTail: string;
	encryption?: AnswerEncryption;
	inner: {
		head: string;
		content?: ContentSource;
		contentSize: number;
		afterContent: string;
		signature: string;
		tail: string;
	};
}

export interface RenderFlags {
	sign: boolean;
	tamper: boolean;
	doctype: boolean;
}

async function renderResponse(
	plan: ResponsePlan,
	deps: FileServiceDeps,
	flags: RenderFlags,
	now: Date,
): Promise<RenderedResponse> {
	const code = plan.code;
	const responseText = plan.text ?? RESPONSE_TEXTS[code] ?? 'Error.';
	const timestamp = now.toISOString();
	const head =
		`<c2b:ApplicationResponse xmlns:c2b="${XMLDATA_NS}">` +
		el('CustomerId', plan.customerId) +
		el('Timestamp', timestamp) +
		el('ResponseCode', code) +
		el('ResponseText', responseText) +
		el('ExecutionSerial', plan.executionSerial) +
		el('Encrypted', false) +
		el('Compressed', plan.compressed === true) +
		(plan.compressed ? el('CompressionMethod', 'GZIP') : '') +
		el('AmountTotal', plan.amountTotal) +
		el('TransactionCount', plan.transactionCount) +
		(plan.descriptors && plan.descriptors.length > 0
			? `<c2b:FileDescriptors>${plan.descriptors.map(descriptorXml).join('')}</c2b:FileDescriptors>`
			: '') +
		el('FileType', plan.fileType) +
		(plan.userFileTypes ? userFileTypesXml(deps.clients) : '') +
		(plan.content ? '<c2b:Content>' : '');
	const afterContent = plan.content ? '</c2b:Content>' : '';
	const tail = '</c2b:ApplicationResponse>';
	const contentSize = plan.content ? sourceSize(plan.content) : 0;
	let signature = '';
	if (flags.sign) {
		const digest = new CanonicalDigest();
		digest.update(head);
		if (plan.content) for await (const chunk of base64Chunks(plan.content)) digest.update(chunk);
		digest.update(afterContent);
		digest.update(tail);
		signature = buildSignature(
			digest.digestBase64(),
			deps.bankSigningKeyPem,
			deps.bankSigningCertPem,
		);
	}
	const signedHead = flags.tamper
		? head.replace(
				`<c2b:ResponseText>${c14nText(responseText)}</c2b:ResponseText>`,
				`<c2b:ResponseText>${c14nText(responseText)} </c2b:ResponseText>`,
			)
		: head;
	const headerText = flags.doctype ? `${xmlEscape(responseText)}&xxe;` : xmlEscape(responseText);
	const envelopeHead =
		'<?xml version="1.0" encoding="UTF-8"?>' +
		(flags.doctype
			? '<!DOCTYPE soapenv:Envelope [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
			: '') +
		`<soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}" xmlns:cor="${SERVICE_NS}" xmlns:mod="${MODEL_NS}">` +
		`<soapenv:Body><cor:${plan.operation}out><mod:ResponseHeader>` +
		`<mod:SenderId>${xmlEscape(plan.header.senderId)}</mod:SenderId>` +
		`<mod:RequestId>${xmlEscape(plan.header.requestId)}</mod:RequestId>` +
		`<mod:Timestamp>${timestamp}</mod:Timestamp>` +
		`<mod:ResponseCode>${code}</mod:ResponseCode>` +
		`<mod:ResponseText>${headerText}</mod:ResponseText>` +
		`<mod:ReceiverId>${xmlEscape(plan.header.receiverId)}</mod:ReceiverId>` +
		'</mod:ResponseHeader><mod:ApplicationResponse>';
	const envelopeTail = `</mod:ApplicationResponse></cor:${plan.operation}out></soapenv:Body></soapenv:Envelope>`;
	return {
		envelopeHead,
		envelopeTail,
		encryption: deps.answerEncryption,
		inner: { head: signedHead, content: plan.content, contentSize, afterContent, signature, tail },
	};
}

async function* innerBytes(rendered: RenderedResponse): AsyncGenerator<Buffer> {
	yield Buffer.from(rendered.inner.head, 'utf8');
	if (rendered.inner.content) yield* base64Chunks(rendered.inner.content);
	yield Buffer.from(
		rendered.inner.afterContent + rendered.inner.signature + rendered.inner.tail,
		'utf8',
	);
}

/** The ApplicationResponse encrypted into an EncryptedData (IV first, 3DES-CBC), as it is sent. */
async function* encryptedInnerBytes(rendered: RenderedResponse, enc: AnswerEncryption): AsyncGenerator<Buffer> {
	yield Buffer.from(enc.head, 'utf8');
	const cipher = createCipheriv('des-ede3-cbc', enc.key, enc.iv);
	const encoder = new Base64Encoder();
	yield encoder.push(enc.iv);
	for await (const chunk of innerBytes(rendered)) {
		const text = encoder.push(cipher.update(chunk));
		if (text.length > 0) yield text;
	}
	const last = cipher.final();
	yield encoder.push(last.subarray(0, last.length - enc.truncate));
	yield encoder.end();
	yield Buffer.from(enc.tail, 'utf8');
}

async function* responseBytes(rendered: RenderedResponse): AsyncGenerator<Buffer> {
	yield Buffer.from(rendered.envelopeHead, 'utf8');
	const encoder = new Base64Encoder();
	const document = rendered.encryption ? encryptedInnerBytes(rendered, rendered.encryption) : innerBytes(rendered);
	for await (const chunk of document) {
		const encoded = encoder.push(chunk);
		if (encoded.length > 0) yield encoded;
	}
	yield encoder.end();
	yield Buffer.from(rendered.envelopeTail, 'utf8');
}

function responseLength(rendered: RenderedResponse): number {
	const b64 = (n: number): number => 4 * Math.ceil(n / 3);
	const inner =
		Buffer.byteLength(rendered.inner.head) +
		(rendered.inner.content ? b64(rendered.inner.contentSize) : 0) +
		Buffer.byteLength(rendered.inner.afterContent + rendered.inner.signature + rendered.inner.tail);
	const document = rendered.encryption ? encryptedLength(rendered.encryption, inner) : inner;
	return (
		Buffer.byteLength(rendered.envelopeHead) + b64(document) + Buffer.byteLength(rendered.envelopeTail)
	);
}

async function drainOrClose(ctx: RequestContext): Promise<void> {
	await new Promise<void>((resolve) => {
		const done = (): void => {
			ctx.res.off('drain', done);
			ctx.res.off('close', done);
			resolve();
		};
		ctx.res.on('drain', done);
		ctx.res.on('close', done);
	});
}

/** Responses up to this size are assembled in memory; larger ones are streamed. */
const STREAM_THRESHOLD = 4 * 1024 * 1024;

async function writeResponse(ctx: RequestContext, rendered: RenderedResponse): Promise<void> {
	const headers = { 'content-type': 'text/xml; charset=utf-8' };
	const length = responseLength(rendered);
	if (length <= STREAM_THRESHOLD || ctx.fault || rendered.encryption?.truncate) {
		const chunks: Buffer[] = [];
		for await (const chunk of responseBytes(rendered)) chunks.push(chunk);
		send(ctx, 200, headers, Buffer.concat(chunks));
		return;
	}
	if (isClosed(ctx)) return;
	ctx.record.status = 200;
	ctx.res.writeHead(200, { ...headers, 'content-length': length });
	for await (const chunk of responseBytes(rendered)) {
		if (isClosed(ctx)) return;
		if (!ctx.res.write(chunk)) await drainOrClose(ctx);
	}
	ctx.res.end();
}

function sendSoapFault(
	ctx: RequestContext,
	status: number,
	faultString: string,
	category?: string,
	code?: string,
): void {
	const faultCode = status >= 500 && category === 'technical' ? 'soapenv:Server' : 'soapenv:Client';
	send(
		ctx,
		status,
		{ 'content-type': 'text/xml; charset=utf-8' },
		soapFaultXml(faultCode, faultString, category, code),
	);
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

function normaliseCode(code: string): string {
	return /^\d$/.test(code) ? `0${code}` : code;
}

function isTrue(value: string | undefined): boolean {
	return value !== undefined && /^(true|1)$/i.test(value.trim());
}

function decompress(content: Buffer, method: string | undefined): Buffer {
	const name = (method ?? 'GZIP').toUpperCase();
	try {
		if (name === 'GZIP') return gunzipSync(content);
		if (name === 'DEFLATE') {
			try {
				return inflateSync(content);
			} catch {
				return inflateRawSync(content);
			}
		}
	} catch (error) {
		throw new ApplicationError('21', `Deflate error: ${(error as Error).message}`);
	}
	throw new ApplicationError('21', `Compression method ${name} is not supported.`);
}

function filterList(fields: ApplicationRequestFields, store: FileStore): BankFileDescriptor[] {
	const status = (fields.status ?? 'ALL').toUpperCase();
	return store.list().filter((descriptor) => {
		if (status !== 'ALL' && descriptor.status.toUpperCase() !== status) return false;
		const fileDay = descriptor.fileTimestamp.slice(0, 10);
		if (fields.startDate && fileDay < fields.startDate.slice(0, 10)) return false;
		if (fields.endDate && fileDay > fields.endDate.slice(0, 10)) return false;
		if (fields.fileType && !sameFileType(fields.fileType, descriptor.fileType)) return false;
		if (fields.targetId && fields.targetId !== descriptor.targetId) return false;
		if (fields.serviceId && descriptor.serviceId && fields.serviceId !== descriptor.serviceId)
			return false;
		return true;
	});
}

/** Unpacks a compressed file into another file as a stream (GZIP, or DEFLATE as zlib or raw). */
async function decompressFile(from: string, to: string, method: string | undefined): Promise<void> {
	const name = (method ?? 'GZIP').toUpperCase();
	if (name !== 'GZIP' && name !== 'DEFLATE') {
		throw new ApplicationError('21', `Compression method ${name} is not supported.`);
	}
	const head = readHead(from, 2);
	const zlibHeader = head.length === 2 && (head[0] & 0x0f) === 8 && ((head[0] << 8) | head[1]) % 31 === 0;
	const unpack = name === 'GZIP' ? createGunzip() : zlibHeader ? createInflate() : createInflateRaw();
	try {
		await pipeline(createReadStream(from, { highWaterMark: 1024 * 1024 }), unpack, createWriteStream(to));
	} catch (error) {
		rmSync(to, { force: true });
		throw new ApplicationError('21', `Deflate error: ${(error as Error).message}`);
	}
}

/** Gzips a stored file into a new file of the store (a compressed download of a large file). */
async function gzipFile(from: string, to: string): Promise<void> {
	await pipeline(createReadStream(from, { highWaterMark: 1024 * 1024 }), createGzip(), createWriteStream(to));
}

async function runOperation(
	parsed: Omit<ParsedSoapRequest, 'applicationRequest'>,
	fields: ApplicationRequestFields,
	deps: FileServiceDeps,
	now: Date,
	forceCompression: boolean,
): Promise<Omit<ResponsePlan, 'operation' | 'header' | 'customerId'>> {
	const { store } = deps;
	switch (parsed.operation) {
		case 'getUserInfo':
			return { code: '00', userFileTypes: true };
		case 'downloadFileList': {
			const status = (fields.status ?? 'ALL').toUpperCase();
			if (!/^[A-Z]{2,10}$/.test(status))
				throw new ApplicationError('12', 'Status must be NEW, DLD or ALL.');
			for (const [name, value] of [
				['StartDate', fields.startDate],
				['EndDate', fields.endDate],
			] as const) {
				if (value !== undefined && !/^\d{4}-\d{2}-\d{2}/.test(value))
					throw new ApplicationError('12', `${name} must be a date.`);
			}
			const descriptors = filterList(fields, store);
			if (descriptors.length === 0) return { code: '24' };
			return { code: '00', descriptors };
		}
		case 'downloadFile': {
			if (fields.fileReferences.length === 0)
				throw new ApplicationError('12', 'FileReference is required.');
			if (fields.fileReferences.length > 1)
				throw new ApplicationError('29', 'Invalid parameters: one FileReference per request.');
			const source = store.source(fields.fileReferences[0]);
			if (!source) return { code: '24' };
			store.markDownloaded(source.descriptor.fileReference, now);
			const descriptor = { ...source.descriptor };
			const wantsCompression = forceCompression || isTrue(fields.compression);
			if (
				wantsCompression &&
				(fields.compressionMethod ?? 'GZIP').toUpperCase() !== 'GZIP' &&
				!forceCompression
			) {
				throw new ApplicationError(
					'21',
					`Compression method ${fields.compressionMethod ?? ''} is not supported.`,
				);
			}
			let content: ContentSource = source.content;
			let temporary: string | undefined;
			if (wantsCompression) {
				if (Buffer.isBuffer(content)) {
					content = gzipSync(content);
				} else {
					temporary = store.spillFile();
					await gzipFile(content.path, temporary);
					content = { path: temporary };
				}
			}
			return {
				code: '00',
				descriptors: [descriptor],
				fileType: descriptor.fileType,
				content,
				temporary,
				compressed: wantsCompression,
				amountTotal: descriptor.amountTotal,
				transactionCount: descriptor.transactionCount,
			};
		}
		case 'deleteFile': {
			if (fields.fileReferences.length === 0)
				throw new ApplicationError('12', 'FileReference is required.');
			const deleted: BankFileDescriptor[] = [];
			for (const reference of fields.fileReferences) {
				const source = store.source(reference);
				if (!source) return { code: '24' };
				if (!source.descriptor.deletable) throw new ApplicationError('27');
			}
			for (const reference of fields.fileReferences) {
				const source = store.source(reference);
				if (source) deleted.push({ ...source.descriptor, status: 'DEL' });
				store.delete(reference);
			}
			return { code: '00', descriptors: deleted };
		}
		case 'uploadFile': {
			if (!fields.fileType) throw new ApplicationError('12', 'FileType is required.');
			const received = fields.content;
			const size = Buffer.isBuffer(received) ? received.length : received?.size;
			if (!received || !size) throw new ApplicationError('12', 'Content is required.');
			if (isTrue(fields.encryption))
				throw new ApplicationError('22', 'Decrypt error: encrypted content is not supported.');
			let content: Buffer | { path: string };
			if (Buffer.isBuffer(received)) {
				content = isTrue(fields.compression) ? decompress(received, fields.compressionMethod) : received;
			} else if (isTrue(fields.compression)) {
				const unpacked = store.spillFile();
				await decompressFile(received.path, unpacked, fields.compressionMethod);
				rmSync(received.path, { force: true });
				content = { path: unpacked };
			} else {
				content = { path: received.path };
			}
			const summary = pain001Summary(Buffer.isBuffer(content) ? content : readHead(content.path, 64 * 1024));
			const controlSum = summary?.controlSum !== undefined ? Number(summary.controlSum) : undefined;
			const descriptor = store.put({
				fileType: fields.fileType,
				content,
				userFilename: fields.userFilename,
				status: 'WFP',
				direction: 'upload',
				fileTimestamp: now,
				transactionCount: summary?.transactions,
				amountTotal:
					controlSum !== undefined && Number.isFinite(controlSum) ? controlSum : undefined,
			});
			if (
				summary &&
				FILE_TYPE_ALIASES[0].some((alias) => sameFileType(alias, fields.fileType ?? ''))
			) {
				store.put({
					fileType: 'XP',
					content: pain002({
						messageId: `STS-${descriptor.fileReference}`,
						created: now,
						originalMessageId: summary.messageId,
						transactions: summary.transactions,
						controlSum: summary.controlSum,
						accepted: true,
					}),
					userFilename: `pain002_${descriptor.fileReference}.xml`,
					status: 'NEW',
					fileTimestamp: new Date(now.getTime() + 1),
					parentFileReference: descriptor.fileReference,
					transactionCount: summary.transactions,
				});
				// The payments are booked: a debit notification of them, as banks send it (for files held in memory).
				if (Buffer.isBuffer(content)) {
					try {
						store.put({
							fileType: 'XF',
							content: camt054FromPain001(content.toString('utf8'), { notificationId: `NTF-${descriptor.fileReference}`, created: now }),
							userFilename: `camt054_${descriptor.fileReference}.xml`,
							status: 'NEW',
							fileTimestamp: new Date(now.getTime() + 2),
							parentFileReference: descriptor.fileReference,
							transactionCount: summary.transactions,
							amountTotal: controlSum !== undefined && Number.isFinite(controlSum) ? controlSum : undefined,
						});
					} catch {
						// a file the bank cannot read as payments gets its status report only
					}
				}
			}
			return {
				code: '00',
				descriptors: [descriptor],
				amountTotal: descriptor.amountTotal,
				transactionCount: descriptor.transactionCount,
			};
		}
		default:
			throw new ApplicationError('05');
	}
}

// ---------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------

export function wsdl(address: string): string {
	const ops = Object.keys(OPERATIONS);
	const messages = ops
		.map(
			(op) =>
				`<wsdl:message name="${op}Request"><wsdl:part name="${op}in" element="tns:${op}in"/></wsdl:message>` +
				`<wsdl:message name="${op}Response"><wsdl:part name="${op}out" element="tns:${op}out"/></wsdl:message>`,
		)
		.join('');
	const portOps = ops
		.map(
			(op) =>
				`<wsdl:operation name="${op}"><wsdl:input message="tns:${op}Request"/><wsdl:output message="tns:${op}Response"/>` +
				'<wsdl:fault name="FileServiceFault" message="tns:FileServiceFault"/></wsdl:operation>',
		)
		.join('');
	const bindingOps = ops
		.map(
			(op) =>
				`<wsdl:operation name="${op}"><soap:operation soapAction=""/><wsdl:input><soap:body use="literal"/></wsdl:input>` +
				'<wsdl:output><soap:body use="literal"/></wsdl:output><wsdl:fault name="FileServiceFault"><soap:fault name="FileServiceFault" use="literal"/></wsdl:fault></wsdl:operation>',
		)
		.join('');
	const header = (name: string, fields: string[]): string =>
		`<xsd:complexType name="${name}"><xsd:sequence>${fields.join('')}</xsd:sequence></xsd:complexType>`;
	const string = (name: string, nillable = false): string =>
		`<xsd:element name="${name}" type="xsd:string" nillable="${nillable}"/>`;
	const types = ops
		.map((op) => {
			const name = op.charAt(0).toUpperCase() + op.slice(1);
			return (
				`<xsd:complexType name="${name}Request"><xsd:sequence><xsd:element name="RequestHeader" type="ns1:RequestHeader"/>` +
				'<xsd:element name="ApplicationRequest" type="xsd:base64Binary"/></xsd:sequence></xsd:complexType>' +
				`<xsd:complexType name="${name}Response"><xsd:sequence><xsd:element name="ResponseHeader" type="ns1:ResponseHeader"/>` +
				'<xsd:element name="ApplicationResponse" type="xsd:base64Binary"/></xsd:sequence></xsd:complexType>'
			);
		})
		.join('');
	const elements = ops
		.map((op) => {
			const name = op.charAt(0).toUpperCase() + op.slice(1);
			return `<xsd:element name="${op}in" type="ns1:${name}Request"/><xsd:element name="${op}out" type="ns1:${name}Response"/>`;
		})
		.join('');
	return (
		'<?xml version="1.0" encoding="UTF-8"?>' +
		`<wsdl:definitions targetNamespace="${SERVICE_NS}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="${SERVICE_NS}" xmlns:ns1="${MODEL_NS}">` +
		'<wsdl:types>' +
		`<xsd:schema targetNamespace="${MODEL_NS}" elementFormDefault="qualified">` +
		header('RequestHeader', [
			string('SenderId'),
			string('RequestId'),
			'<xsd:element name="Timestamp" type="xsd:dateTime"/>',
			string('Language', true),
			string('UserAgent', true),
			string('ReceiverId'),
		]) +
		header('ResponseHeader', [
			string('SenderId'),
			string('RequestId'),
			'<xsd:element name="Timestamp" type="xsd:dateTime"/>',
			string('ResponseCode', true),
			string('ResponseText', true),
			string('ReceiverId'),
		]) +
		types +
		'<xsd:complexType name="FileServiceFaultDetail"><xsd:sequence><xsd:element minOccurs="0" name="category" type="xsd:string"/><xsd:element minOccurs="0" name="code" type="xsd:string"/></xsd:sequence></xsd:complexType>' +
		'</xsd:schema>' +
		`<xsd:schema targetNamespace="${SERVICE_NS}" elementFormDefault="qualified">${elements}<xsd:element name="FileServiceFaultElement" type="ns1:FileServiceFaultDetail"/></xsd:schema>` +
		'</wsdl:types>' +
		'<wsdl:message name="FileServiceFault"><wsdl:part name="FileServiceFault" element="tns:FileServiceFaultElement"/></wsdl:message>' +
		messages +
		`<wsdl:portType name="CorporateFileServicePortType">${portOps}</wsdl:portType>` +
		'<wsdl:binding name="CorporateFileServiceHttpBinding" type="tns:CorporateFileServicePortType"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>' +
		bindingOps +
		'</wsdl:binding>' +
		`<wsdl:service name="CorporateFileService"><wsdl:port name="CorporateFileServiceHttpPort" binding="tns:CorporateFileServiceHttpBinding"><soap:address location="${xmlEscape(address)}"/></wsdl:port></wsdl:service>` +
		'</wsdl:definitions>'
	);
}

/** Reads the body whole; refuses past `limit` (the caller answers 413 and discards the rest). */
async function readSoapBody(ctx: RequestContext, limit: number): Promise<Buffer> {
	return await readBody(ctx.req, limit);
}

/** Discards the rest of a refused body; gives up (closing the connection) after `cap` bytes. */
function discardRest(ctx: RequestContext, cap: number): void {
	let discarded = 0;
	ctx.req.on('data', (chunk: Buffer) => {
		discarded += chunk.length;
		if (discarded > cap) ctx.req.socket.destroy();
	});
	ctx.req.resume();
}

export async function handleSoap(
	ctx: RequestContext,
	deps: FileServiceDeps,
	which: 'standard' | 'large',
	address: string,
): Promise<void> {
	if (ctx.req.method === 'GET' && /^wsdl$/i.test(ctx.url.search.slice(1))) {
		send(ctx, 200, { 'content-type': 'text/xml; charset=utf-8' }, wsdl(address));
		return;
	}
	if (ctx.req.method !== 'POST') {
		sendSoapFault(ctx, 405, 'Use POST (SOAP 1.1).', 'validation', '12');
		return;
	}
	const limit = which === 'standard' ? STANDARD_LIMIT : LARGE_LIMIT;
	// Refused as too large: the rest of the body is read and dropped first (up to twice the limit,
	// then the connection is closed), so a client still sending gets the answer, not a broken pipe.
	const tooLarge = (): void => {
		deps.stats.soapRefusedTooLarge += 1;
		const answer = (): void =>
			sendSoapFault(
				ctx,
				413,
				which === 'standard'
					? 'Message larger than 20 MB: use the large-file address.'
					: `Message larger than ${LARGE_LIMIT} bytes.`,
				'size',
				'413',
			);
		if (ctx.req.readableEnded) answer();
		else ctx.req.once('end', answer);
		discardRest(ctx, 2 * limit);
	};
	// The standard address reads the (small) message whole; the large-file address reads it as a
	// stream, the file going to disk as it arrives.
	let body: Buffer | undefined;
	let streamed: StreamedSoapRequest | undefined;
	try {
		if (which === 'large') {
			streamed = await readSoapRequestStream(ctx.req, () => deps.store.spillFile(), limit);
			if (streamed.kind === 'whole') body = streamed.body;
		} else {
			body = await readSoapBody(ctx, limit);
		}
	} catch (error) {
		if (error instanceof BodyTooLargeError || (error instanceof SoapStreamError && error.tooLarge)) {
			tooLarge();
			return;
		}
		if (error instanceof SoapStreamError) {
			deps.stats.soapCalls.push({ url: which, operation: 'unknown', signature: 'none', bytes: 0 });
			discardRest(ctx, 2 * limit);
			sendSoapFault(ctx, 500, error.message, 'validation', '12');
			return;
		}
		throw error;
	}
	const received = streamed?.kind === 'content' ? streamed.contentFile : undefined;
	let temporary: string | undefined;
	try {
		temporary = await answerSoap(ctx, deps, which, { body, streamed });
	} finally {
		if (received && !deps.store.owns(received)) rmSync(received, { force: true });
		if (temporary) rmSync(temporary, { force: true });
	}
}

/** Answers a request that has been read; returns a file made for the answer only, to remove. */
async function answerSoap(
	ctx: RequestContext,
	deps: FileServiceDeps,
	which: 'standard' | 'large',
	request: { body?: Buffer; streamed?: StreamedSoapRequest },
): Promise<string | undefined> {
	const { body, streamed } = request;
	const record: SoapCallRecord = {
		url: which,
		operation: 'unknown',
		signature: 'none',
		bytes: streamed?.bytes ?? body?.length ?? 0,
	};
	deps.stats.soapCalls.push(record);
	const fault = ctx.fault;
	if (fault?.kind === 'soapFault') {
		sendSoapFault(
			ctx,
			fault.status ?? 500,
			fault.message ?? 'File service fault.',
			fault.category ?? 'technical',
			fault.code ?? '26',
		);
		return undefined;
	}
	let parsed: Omit<ParsedSoapRequest, 'applicationRequest'>;
	let readFields: () => ApplicationRequestFields;
	// The signature is checked with the certificate its KeyInfo names, when the bank issued it.
	const signerOf = (documentText: string): string => {
		const pem = deps.customerCertFor ? deps.customerCertFor(documentText) : deps.customerSigningCertPem;
		record.signer = createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
		return pem;
	};
	const tailText = (document: Buffer): string => document.subarray(Math.max(0, document.length - 65536)).toString('latin1');
	try {
		if (streamed && streamed.kind !== 'whole') {
			parsed = parseSoapSkeleton(streamed.soapSkeleton);
			readFields =
				streamed.kind === 'content'
					? () => parseStreamedApplicationRequest(streamed, signerOf(streamed.documentSkeleton))
					: () => parseApplicationRequest(streamed.applicationRequest, signerOf(tailText(streamed.applicationRequest)));
		} else {
			const whole = parseSoapRequest(body ?? Buffer.alloc(0));
			parsed = whole;
			readFields = () => parseApplicationRequest(whole.applicationRequest, signerOf(tailText(whole.applicationRequest)));
		}
	} catch (error) {
		if (error instanceof SoapClientError) {
			sendSoapFault(ctx, 500, error.message, error.category, error.code);
			return undefined;
		}
		throw error;
	}
	record.operation = parsed.operation;
	const fileService = deps.clients.fileService;
	if (parsed.header.senderId !== fileService.senderId) {
		sendSoapFault(ctx, 500, 'SenderId not found.', 'authentication', '07');
		return undefined;
	}
	const now = ctx.now();
	const plan: ResponsePlan = {
		operation: parsed.operation,
		header: parsed.header,
		code: '00',
		customerId: fileService.customerId,
	};
	try {
		if (parsed.header.receiverId !== fileService.receiverId) {
			throw new ApplicationError(
				'29',
				`Invalid parameters: unknown ReceiverId ${parsed.header.receiverId}.`,
			);
		}
		const fields = readFields();
		record.command = fields.command;
		record.signature = fields.signature;
		if (fields.signature !== 'valid') delete record.signer;
		if (fields.customerId && fields.customerId !== fileService.customerId) {
			sendSoapFault(ctx, 500, 'CustomerId not found.', 'authorization', '13');
			return undefined;
		}
		if (!fields.customerId) throw new ApplicationError('12', 'CustomerId is required.');
		plan.executionSerial = fields.executionSerial;
		if (fields.signature === 'invalid') throw new ApplicationError('18');
		if (fields.signature === 'none' && deps.switches.requireSignedRequests) {
			throw new ApplicationError('18', 'Content digital signature missing.');
		}
		if (
			fields.command &&
			fields.command.toLowerCase() !== OPERATIONS[parsed.operation].toLowerCase()
		) {
			throw new ApplicationError(
				'12',
				`Command ${fields.command} does not match operation ${parsed.operation}.`,
			);
		}
		if (!fields.timestamp) throw new ApplicationError('12', 'Timestamp is required.');
		if (!fields.softwareId) throw new ApplicationError('12', 'SoftwareId is required.');
		if (!fields.environment || !/^(PRODUCTION|TEST)$/.test(fields.environment)) {
			throw new ApplicationError('12', 'Environment must be PRODUCTION or TEST.');
		}
		if (fault?.kind === 'soapResponseCode') {
			plan.code = normaliseCode(fault.responseCode ?? '26');
			plan.text = fault.responseText ?? RESPONSE_TEXTS[plan.code];
		} else {
			Object.assign(plan, await runOperation(parsed, fields, deps, now, deps.switches.compressDownloads));
		}
	} catch (error) {
		if (error instanceof ApplicationError) {
			plan.code = error.code;
			plan.text = error.message;
		} else if (error instanceof SoapClientError) {
			plan.code = error.code;
			plan.text = error.message;
		} else {
			throw error;
		}
	}
	record.responseCode = plan.code;
	const rendered = await renderResponse(
		plan,
		deps,
		{
			sign:
				(deps.switches.signResponses || fault?.kind === 'soapTamperedSignature') &&
				fault?.kind !== 'soapUnsigned',
			tamper: fault?.kind === 'soapTamperedSignature',
			doctype: fault?.kind === 'soapDoctype',
		},
		now,
	);
	await writeResponse(ctx, rendered);
	return plan.temporary;
}

/**
 * Danske Bank's file service: the ApplicationRequest must come encrypted to the bank's encryption
 * certificate. It is decrypted as it arrives into a plain request on disk, which the common file
 * service answers; the answer is encrypted to the encryption certificate paired with the
 * certificate that signed the request.
 */
export async function handleDanskeSoap(ctx: RequestContext, danske: SandboxDanske, deps: FileServiceDeps, address: string): Promise<void> {
	if (ctx.req.method !== 'POST') {
		await handleSoap(ctx, deps, 'large', address);
		return;
	}
	const path = deps.store.spillFile();
	try {
		let decrypted;
		try {
			decrypted = await danske.decryptRequest(ctx.req, path);
		} catch (error) {
			if (!(error instanceof PkiError)) throw error;
			deps.stats.soapCalls.push({ url: 'large', operation: 'unknown', signature: 'none', bytes: 0 });
			discardRest(ctx, LARGE_LIMIT);
			sendSoapFault(ctx, 500, error.message, 'security', error.code);
			return;
		}
		const req = Object.assign(createReadStream(path, { highWaterMark: 1024 * 1024 }), {
			headers: { 'content-length': String(decrypted.size) },
			method: 'POST',
		});
		// The connection is the client's: closing checks look at it.
		const original = ctx.req;
		Object.defineProperty(req, 'socket', { get: () => original.socket ?? ctx.res.socket ?? { destroyed: ctx.res.destroyed, destroy: () => ctx.res.destroy() } });
		await handleSoap({ ...ctx, req: req as unknown as IncomingMessage }, { ...deps, answerEncryption: danske.answerEncryption(decrypted.signerCertificate) }, 'large', address);
	} finally {
		rmSync(path, { force: true });
	}
}
