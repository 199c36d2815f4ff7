/**
 * The two baselines of the fileService benchmark, each a whole bxd round trip (upload a file,
 * download it again) against the sandbox bank, unsigned and uncompressed:
 *
 * - lower bound: plain node streams and nothing else: file -> base64 -> ApplicationRequest ->
 *   base64 -> socket, and socket -> cut -> base64 decode -> cut -> base64 decode -> file; no
 *   checks, no engine. What any client must at least do.
 * - naive: the message as one string: readFile -> base64 -> envelope string -> https, and the
 *   answer read whole and given to fast-xml-parser, as string-based SOAP clients do.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { XMLParser } from 'fast-xml-parser';

export interface BankTarget {
	soap: string;
	soapLarge: string;
	ca: string;
	senderId: string;
	receiverId: string;
	customerId: string;
	softwareId: string;
}

const SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const SERVICE = 'http://bxd.fi/CorporateFileService';
const MODEL = 'http://model.bxd.fi';
const XMLDATA = 'http://bxd.fi/xmldata/';

function envelope(target: BankTarget, operation: string): { head: string; tail: string } {
	const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
	const requestId = Math.random().toString(16).slice(2).padEnd(16, '0');
	return {
		head:
			`<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_ENV}" xmlns:cor="${SERVICE}" xmlns:mod="${MODEL}">` +
			`<soapenv:Header/><soapenv:Body><cor:${operation}in><mod:RequestHeader><mod:SenderId>${target.senderId}</mod:SenderId>` +
			`<mod:RequestId>${requestId}</mod:RequestId><mod:Timestamp>${now}</mod:Timestamp><mod:ReceiverId>${target.receiverId}</mod:ReceiverId>` +
			'</mod:RequestHeader><mod:ApplicationRequest>',
		tail: `</mod:ApplicationRequest></cor:${operation}in></soapenv:Body></soapenv:Envelope>`,
	};
}

function applicationRequest(target: BankTarget, command: string, fields: string): string {
	const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
	return (
		`<ApplicationRequest xmlns="${XMLDATA}"><CustomerId>${target.customerId}</CustomerId><Command>${command}</Command>` +
		`<Timestamp>${now}</Timestamp><Environment>TEST</Environment>${fields}<SoftwareId>${target.softwareId}</SoftwareId>`
	);
}

const b64 = (n: number): number => 4 * Math.ceil(n / 3);

async function post(url: string, ca: string, body: Readable | Buffer | string, length: number): Promise<import('node:http').IncomingMessage> {
	return await new Promise((resolve, reject) => {
		const req = https.request(url, {
			method: 'POST',
			ca,
			agent: false,
			headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""', 'content-length': length },
		});
		req.on('response', resolve);
		req.on('error', reject);
		if (body instanceof Readable) body.pipe(req);
		else req.end(body);
	});
}

async function text(res: import('node:http').IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of res) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

function reference(answer: string): string {
	const inner = /<(?:\w+:)?ApplicationResponse>([^<]*)</.exec(answer)?.[1] ?? '';
	const document = Buffer.from(inner, 'base64').toString('utf8');
	const found = /<(?:\w+:)?FileReference>([^<]+)</.exec(document)?.[1];
	if (!found) throw new Error(`upload failed: ${document.slice(0, 300) || answer.slice(0, 300)}`);
	return found;
}

// ---------------------------------------------------------------------------
// Lower bound: plain streams
// ---------------------------------------------------------------------------

class Base64Encode extends Transform {
	private carry: Buffer = Buffer.alloc(0);

	_transform(chunk: Buffer, _e: BufferEncoding, done: TransformCallback): void {
		const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
		const usable = data.length - (data.length % 3);
		this.carry = data.subarray(usable);
		done(null, Buffer.from(data.toString('base64', 0, usable), 'latin1'));
	}

	_flush(done: TransformCallback): void {
		done(null, Buffer.from(this.carry.toString('base64'), 'latin1'));
	}
}

class Base64Decode extends Transform {
	private carry = '';

	_transform(chunk: Buffer, _e: BufferEncoding, done: TransformCallback): void {
		const all = this.carry + chunk.toString('latin1');
		const usable = all.length - (all.length % 4);
		this.carry = all.slice(usable);
		done(null, Buffer.from(all.slice(0, usable), 'base64'));
	}

	_flush(done: TransformCallback): void {
		done(null, Buffer.from(this.carry, 'base64'));
	}
}

/** Wraps a stream between two texts. */
class Wrap extends Transform {
	private started = false;

	constructor(
		private readonly head: Buffer,
		private readonly tail: Buffer,
	) {
		super();
	}

	_transform(chunk: Buffer, _e: BufferEncoding, done: TransformCallback): void {
		if (!this.started) {
			this.started = true;
			this.push(this.head);
		}
		done(null, chunk);
	}

	_flush(done: TransformCallback): void {
		if (!this.started) this.push(this.head);
		done(null, this.tail);
	}
}

/** Passes chunks on in pieces of at least 128 KiB (fewer, larger writes to the file). */
class Batch extends Transform {
	private parts: Buffer[] = [];
	private size = 0;

	_transform(chunk: Buffer, _e: BufferEncoding, done: TransformCallback): void {
		this.parts.push(chunk);
		this.size += chunk.length;
		if (this.size < 128 * 1024) return done();
		const out = Buffer.concat(this.parts, this.size);
		this.parts = [];
		this.size = 0;
		done(null, out);
	}

	_flush(done: TransformCallback): void {
		done(null, Buffer.concat(this.parts, this.size));
	}
}

/** Passes on the text between the end of `<...name...>` and the next `<`. */
class Cut extends Transform {
	private state: 'head' | 'content' | 'tail' = 'head';
	private head = '';

	constructor(private readonly name: string) {
		super();
	}

	_transform(chunk: Buffer, _e: BufferEncoding, done: TransformCallback): void {
		if (this.state === 'tail') return done();
		if (this.state === 'head') {
			this.head += chunk.toString('latin1');
			const at = this.head.indexOf(`${this.name}>`);
			if (at === -1) return done();
			this.state = 'content';
			chunk = Buffer.from(this.head.slice(at + this.name.length + 1), 'latin1');
			this.head = '';
		}
		const lt = chunk.indexOf(0x3c);
		if (lt === -1) return done(null, chunk);
		this.state = 'tail';
		done(null, chunk.subarray(0, lt));
	}
}

export async function lowerBoundUpload(target: BankTarget, file: string, size: number): Promise<string> {
	const env = envelope(target, 'uploadFile');
	const arHead = Buffer.from(`${applicationRequest(target, 'UploadFile', '')}<FileType>XT</FileType><Content>`, 'utf8');
	const arTail = Buffer.from('</Content></ApplicationRequest>', 'utf8');
	const envHead = Buffer.from(env.head, 'utf8');
	const envTail = Buffer.from(env.tail, 'utf8');
	const length = envHead.length + b64(arHead.length + b64(size) + arTail.length) + envTail.length;
	const body = new Wrap(envHead, envTail);
	const sending = pipeline(
		createReadStream(file, { highWaterMark: 3 * 16 * 1024 }),
		new Base64Encode(),
		new Wrap(arHead, arTail),
		new Base64Encode(),
		body,
	);
	const res = await post(target.soapLarge, target.ca, body, length);
	await sending;
	return reference(await text(res));
}

export async function lowerBoundDownload(target: BankTarget, fileReference: string, out: string): Promise<void> {
	const env = envelope(target, 'downloadFile');
	const ar = `${applicationRequest(target, 'DownloadFile', `<FileReferences><FileReference>${fileReference}</FileReference></FileReferences>`)}</ApplicationRequest>`;
	const body = Buffer.from(env.head + Buffer.from(ar, 'utf8').toString('base64') + env.tail, 'utf8');
	const res = await post(target.soap, target.ca, body, body.length);
	await pipeline(res, new Cut('ApplicationResponse'), new Base64Decode(), new Cut('Content'), new Base64Decode(), new Batch(), createWriteStream(out));
}

// ---------------------------------------------------------------------------
// Naive: one string
// ---------------------------------------------------------------------------

export async function naiveUpload(target: BankTarget, file: string): Promise<string> {
	const content = await readFile(file);
	const ar = `${applicationRequest(target, 'UploadFile', '')}<FileType>XT</FileType><Content>${content.toString('base64')}</Content></ApplicationRequest>`;
	const env = envelope(target, 'uploadFile');
	const message = env.head + Buffer.from(ar, 'utf8').toString('base64') + env.tail;
	const res = await post(target.soapLarge, target.ca, message, Buffer.byteLength(message));
	const answer = new XMLParser({ removeNSPrefix: true }).parse(await text(res)) as Record<string, Record<string, Record<string, Record<string, string>>>>;
	const document = Buffer.from(String(answer.Envelope.Body.uploadFileout.ApplicationResponse), 'base64').toString('utf8');
	const parsed = new XMLParser({ removeNSPrefix: true }).parse(document) as Record<string, Record<string, Record<string, Record<string, string>>>>;
	return String(parsed.ApplicationResponse.FileDescriptors.FileDescriptor.FileReference);
}

export async function naiveDownload(target: BankTarget, fileReference: string, out: string): Promise<void> {
	const env = envelope(target, 'downloadFile');
	const ar = `${applicationRequest(target, 'DownloadFile', `<FileReferences><FileReference>${fileReference}</FileReference></FileReferences>`)}</ApplicationRequest>`;
	const message = env.head + Buffer.from(ar, 'utf8').toString('base64') + env.tail;
	const res = await post(target.soap, target.ca, message, Buffer.byteLength(message));
	const answer = new XMLParser({ removeNSPrefix: true }).parse(await text(res)) as Record<string, Record<string, Record<string, Record<string, string>>>>;
	const document = Buffer.from(String(answer.Envelope.Body.downloadFileout.ApplicationResponse), 'base64').toString('utf8');
	const parsed = new XMLParser({ removeNSPrefix: true }).parse(document) as Record<string, Record<string, string>>;
	await writeFile(out, Buffer.from(String(parsed.ApplicationResponse.Content), 'base64'));
}
