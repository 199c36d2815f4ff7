/** Small HTTPS client and SOAP builders for tests against the sandbox bank. */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { Readable } from 'node:stream';

import { signApplicationRequest } from './xmldsig';

export interface HttpResult {
	status: number;
	headers: IncomingHttpHeaders;
	body: Buffer;
	text(): string;
	json<T = unknown>(): T;
}

export interface HttpOptions {
	method?: string;
	headers?: Record<string, string | number>;
	body?: string | Buffer | Readable;
	ca?: string;
	cert?: string;
	key?: string;
	passphrase?: string;
	timeoutMs?: number;
}

/** One HTTPS request with a fresh connection (no agent reuse). */
export async function httpsCall(url: string, options: HttpOptions = {}): Promise<HttpResult> {
	const target = new URL(url);
	const requestOptions: RequestOptions = {
		method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
		hostname: target.hostname.replace(/^\[|\]$/g, ''),
		port: target.port,
		path: target.pathname + target.search,
		headers: options.headers,
		ca: options.ca,
		cert: options.cert,
		key: options.key,
		passphrase: options.passphrase,
		agent: false,
	};
	return await new Promise<HttpResult>((resolve, reject) => {
		const req = httpsRequest(requestOptions, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('error', reject);
			res.on('end', () => {
				const body = Buffer.concat(chunks);
				resolve({
					status: res.statusCode ?? 0,
					headers: res.headers,
					body,
					text: () => body.toString('utf8'),
					json: <T>() => JSON.parse(body.toString('utf8')) as T,
				});
			});
		});
		req.on('error', reject);
		if (options.timeoutMs) {
			req.setTimeout(options.timeoutMs, () =>
				req.destroy(new Error(`timeout after ${options.timeoutMs} ms`)),
			);
		}
		const body = options.body;
		if (body === undefined) req.end();
		else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
		else body.pipe(req);
	});
}

export function formBody(fields: Record<string, string>): string {
	return new URLSearchParams(fields).toString();
}

export interface ApplicationRequestInput {
	customerId: string;
	command: string;
	softwareId: string;
	environment?: string;
	status?: string;
	startDate?: string;
	endDate?: string;
	fileType?: string;
	fileReferences?: string[];
	userFilename?: string;
	targetId?: string;
	compression?: boolean;
	content?: Buffer;
}

const esc = (text: string): string =>
	text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** ApplicationRequest XML (http://bxd.fi/xmldata/), elements in schema order. */
export function applicationRequestXml(input: ApplicationRequestInput): string {
	const el = (name: string, value: string | undefined): string =>
		value === undefined ? '' : `<${name}>${esc(value)}</${name}>`;
	return (
		'<ApplicationRequest xmlns="http://bxd.fi/xmldata/">' +
		el('CustomerId', input.customerId) +
		el('Command', input.command) +
		el('Timestamp', new Date().toISOString()) +
		el('StartDate', input.startDate) +
		el('EndDate', input.endDate) +
		el('Status', input.status) +
		el('Environment', input.environment ?? 'TEST') +
		(input.fileReferences
			? `<FileReferences>${input.fileReferences.map((ref) => el('FileReference', ref)).join('')}</FileReferences>`
			: '') +
		el('UserFilename', input.userFilename) +
		el('TargetId', input.targetId) +
		(input.compression
			? '<Compression>true</Compression><CompressionMethod>GZIP</CompressionMethod>'
			: '') +
		el('SoftwareId', input.softwareId) +
		el('FileType', input.fileType) +
		(input.content ? `<Content>${input.content.toString('base64')}</Content>` : '') +
		'</ApplicationRequest>'
	);
}

export interface EnvelopeInput {
	operation: string;
	senderId: string;
	receiverId: string;
	applicationRequest: string | Buffer;
	requestId?: string;
}

export function soapEnvelopeParts(input: Omit<EnvelopeInput, 'applicationRequest'>): {
	head: string;
	tail: string;
} {
	return {
		head:
			'<?xml version="1.0" encoding="UTF-8"?>' +
			'<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:cor="http://bxd.fi/CorporateFileService" xmlns:mod="http://model.bxd.fi">' +
			`<soapenv:Header/><soapenv:Body><cor:${input.operation}in><mod:RequestHeader>` +
			`<mod:SenderId>${esc(input.senderId)}</mod:SenderId><mod:RequestId>${input.requestId ?? randomUUID().replace(/-/g, '')}</mod:RequestId>` +
			`<mod:Timestamp>${new Date().toISOString()}</mod:Timestamp><mod:Language>EN</mod:Language><mod:UserAgent>sandbox-tests</mod:UserAgent>` +
			`<mod:ReceiverId>${esc(input.receiverId)}</mod:ReceiverId></mod:RequestHeader><mod:ApplicationRequest>`,
		tail: `</mod:ApplicationRequest></cor:${input.operation}in></soapenv:Body></soapenv:Envelope>`,
	};
}

export function soapEnvelope(input: EnvelopeInput): string {
	const { head, tail } = soapEnvelopeParts(input);
	return head + Buffer.from(input.applicationRequest).toString('base64') + tail;
}

/** Signs an ApplicationRequest with the customer key (enveloped XML-DSig). */
export function signedApplicationRequest(xml: string, keyPem: string, certPem: string): string {
	return signApplicationRequest(xml, keyPem, certPem);
}

/** Extracts and decodes the ApplicationResponse of a SOAP response. */
export function applicationResponseOf(soap: string): string {
	const match =
		/<(?:[\w.-]+:)?ApplicationResponse>([^<]*)<\/(?:[\w.-]+:)?ApplicationResponse>/.exec(soap);
	if (!match) throw new Error('No ApplicationResponse in SOAP response');
	return Buffer.from(match[1], 'base64').toString('utf8');
}

/** Text of the first element with this local name. */
export function xmlText(xml: string, localName: string): string | undefined {
	const match = new RegExp(
		`<(?:[\\w.-]+:)?${localName}(?:\\s[^>]*)?>([^<]*)</(?:[\\w.-]+:)?${localName}>`,
	).exec(xml);
	return match?.[1];
}

export function xmlTexts(xml: string, localName: string): string[] {
	const re = new RegExp(
		`<(?:[\\w.-]+:)?${localName}(?:\\s[^>]*)?>([^<]*)</(?:[\\w.-]+:)?${localName}>`,
		'g',
	);
	return [...xml.matchAll(re)].map((match) => match[1]);
}
