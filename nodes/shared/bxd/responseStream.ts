/**
 * Reads a bank's SOAP answer as it arrives, for files of any size: the text before the
 * ApplicationResponse and the decoded ApplicationResponse up to its Content are parsed as soon
 * as they are complete; the Content is base64-decoded, unpacked and passed on as a stream; the
 * small rest is read at the end, when the signature is checked. The file is never held whole,
 * nor is its base64, nor the message.
 */
import { createHash } from 'node:crypto';
import { pipeline, type Readable, Transform, type TransformCallback } from 'node:stream';
import { createGunzip, createInflate, createInflateRaw } from 'node:zlib';

import type { ApplicationResponse } from './applicationResponse';
import { attempt } from '../common/attempt';
import {
	documentEncoding,
	readApplicationResponseHead,
	readStreamedApplicationResponse,
	stripBom,
} from './applicationResponse';
import { Base64DecodeStream, CanonicalText } from './base64';
import { isSuccessCode, NO_DATA_CODE, normalizeResponseCode } from './codes';
import type { CompressionMethod } from './compression';
import { compressionMethodOf } from './compression';
import type { BxdOperation } from './constants';
import { BxdFormatError, BxdResponseCodeError, BxdSignatureError } from './errors';
import type { FileServiceResult, FileServiceSettings } from './exchange';
import { readResponse } from './exchange';
import type { PrefixedHash } from './signature';
import { payloadPrefixes, streamedDigester } from './signature';
import type { ResponseHeaderFields } from './soap';
import { readEnvelopeSkeleton } from './soap';
import { MaybeDecrypt } from './encryption';
import { closingTags, Coalesce, ElementCut, openElements } from './streams';

/** The text before the ApplicationResponse, and after it, is kept up to this size. */
const SOAP_PART_LIMIT = 1024 * 1024;
/**
 * An ApplicationResponse without Content (or its part before the Content) is kept up to this size.
 */
const DOCUMENT_HEAD_LIMIT = 16 * 1024 * 1024;
/**
 * The part of the ApplicationResponse after the Content (its signature) is kept up to this size.
 */
const DOCUMENT_TAIL_LIMIT = 1024 * 1024;
/**
 * The file is passed on in pieces of about this size (fewer, larger writes to the binary store).
 */
const OUTPUT_CHUNK = 128 * 1024;

export interface StreamedAnswer {
	header: ResponseHeaderFields;
	/** The ResponseHeader code, or the ApplicationResponse code when the header has none. */
	code: string;
	/** Code 24: nothing matched. */
	noData: boolean;
	/** The fields read before the Content; the signature is checked at the end (see `done`). */
	applicationResponse: ApplicationResponse;
	/**
	 * The file: base64-decoded and, when the bank compressed it, unpacked (unless unpacking was
	 * not asked for or the content is encrypted). It ends only after the whole answer has been read
	 * and its signature verified; a cut-off answer, broken base64, a damaged archive or a signature
	 * that fails makes it fail instead, so it never passes as a shorter or unchecked file.
	 */
	content: Readable;
	/** Whether `content` was unpacked. */
	unpacked: boolean;
	/** Bytes `content` has given so far (all of them once it has ended). */
	contentBytes(): number;
	/**
	 * The whole ApplicationResponse, signature checked; settles once `content` has been read to the
	 * end.
	 */
	done: Promise<ApplicationResponse>;
	/** Stops reading the answer (when the file is not wanted after all). */
	abort(): void;
}

/** An answer read as a stream: small ones (no Content) are read whole and judged as usual. */
export type AnswerReading =
	| { streamed: false; result: FileServiceResult }
	| { streamed: true; answer: StreamedAnswer };

export interface StreamReadOptions {
	/** Unpack compressed content (GZIP, DEFLATE). */
	unpack: boolean;
}

function prefixOf(qname: string): string {
	const colon = qname.indexOf(':');
	return colon === -1 ? '' : qname.slice(0, colon);
}

/** Hashes the Content text in its canonical form while it passes, for the signature check. */
class DigestTap extends Transform {
	hashes: PrefixedHash[] = [];
	private readonly canonical = new CanonicalText();
	readonly flushed: Promise<void>;
	private markFlushed!: () => void;

	constructor() {
		super();
		this.flushed = new Promise((resolve) => (this.markFlushed = resolve));
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		if (this.hashes.length) {
			const text = this.canonical.write(chunk);
			for (const entry of this.hashes) entry.hash.update(text);
		}
		done(null, chunk);
	}

	_flush(done: TransformCallback): void {
		if (this.hashes.length) {
			const rest = this.canonical.end();
			for (const entry of this.hashes) entry.hash.update(rest);
		}
		this.markFlushed();
		done();
	}
}

/** Passes the file on in large pieces, counts it, and ends only when `check` has passed. */
class Gate extends Coalesce {
	bytes = 0;
	check: () => Promise<void> = async () => undefined;

	constructor() {
		super(OUTPUT_CHUNK);
	}

	_transform(chunk: Buffer, encoding: BufferEncoding, done: TransformCallback): void {
		this.bytes += chunk.length;
		super._transform(chunk, encoding, done);
	}

	_flush(done: TransformCallback): void {
		this.check().then(
			() => super._flush(done),
			(error: unknown) => done(error as Error),
		);
	}
}

/** Checks the first bytes of packed content and passes it through the matching inflater. */
class Unpack extends Transform {
	private inner?: Transform;
	private head: Buffer = Buffer.alloc(0);

	constructor(private readonly method: CompressionMethod) {
		super();
	}

	private start(first: Buffer): void {
		if (this.method === 'GZIP') {
			if (first.length < 2 || first[0] !== 0x1f || first[1] !== 0x8b) {
				throw new BxdFormatError(
					'The bank said the file is GZIP-compressed, but it is not a gzip archive',
				);
			}
			this.inner = createGunzip({ chunkSize: 128 * 1024 });
		} else {
			// zlib-wrapped when the header checks out, raw deflate otherwise (banks use both).
			const zlib =
				first.length >= 2 && (first[0] & 0x0f) === 8 && ((first[0] << 8) | first[1]) % 31 === 0;
			this.inner = zlib
				? createInflate({ chunkSize: 128 * 1024 })
				: createInflateRaw({ chunkSize: 128 * 1024 });
		}
		const label = this.method === 'GZIP' ? 'GZIP' : 'DEFLATE';
		this.inner.on('data', (data: Buffer) => {
			if (!this.push(data)) this.inner?.pause();
		});
		this.inner.on('error', (error: Error) => {
			this.destroy(
				new BxdFormatError(`The ${label}-compressed file is damaged or cut off: ${error.message}`),
			);
		});
	}

	_read(size: number): void {
		this.inner?.resume();
		super._read(size);
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		try {
			if (!this.inner) {
				this.head = Buffer.concat([this.head, chunk]);
				if (this.head.length < 2) {
					done();
					return;
				}
				chunk = this.head;
				this.start(chunk);
			}
			this.inner?.write(chunk, () => done());
		} catch (error) {
			done(error as Error);
		}
	}

	_flush(done: TransformCallback): void {
		try {
			if (!this.inner) this.start(this.head);
		} catch (error) {
			done(error as Error);
			return;
		}
		const inner = this.inner as Transform;
		inner.once('end', () => done());
		if (this.head.length < 2 && this.head.length > 0) inner.write(this.head);
		inner.end();
		inner.resume();
	}
}

/**
 * Reads an answer as a stream. Resolves once the text before the Content has been read (or the
 * whole answer, when it has no Content): with the judged result of a small answer, or with the
 * file as a stream. Rejects like readResponse: SOAP faults, codes other than 00 and 24, format
 * errors. The signature of a streamed answer is checked at the end of its content stream.
 */
export async function readResponseStream(
	settings: FileServiceSettings,
	operation: BxdOperation,
	body: Readable,
	options: StreamReadOptions,
): Promise<AnswerReading> {
	const soapCut = new ElementCut({
		localName: 'ApplicationResponse',
		what: "The bank's answer",
		maxHead: SOAP_PART_LIMIT,
		maxTail: SOAP_PART_LIMIT,
	});
	const decoder = new Base64DecodeStream('The ApplicationResponse in the SOAP answer');
	const tap = new DigestTap();
	const gate = new Gate();
	let answer: StreamedAnswer | undefined;
	let documentHead = '';
	let encoding: 'utf8' | 'latin1' = 'utf8';
	let resolveReady: (reading: AnswerReading) => void = () => undefined;
	let rejectReady: (error: unknown) => void = () => undefined;
	const ready = new Promise<AnswerReading>((resolve, reject) => {
		resolveReady = resolve;
		rejectReady = reject;
	});

	const documentCut: ElementCut = new ElementCut({
		localName: 'Content',
		what: 'The ApplicationResponse',
		maxHead: DOCUMENT_HEAD_LIMIT,
		maxTail: DOCUMENT_TAIL_LIMIT,
		// Only the Content that is a child of the root holds the file.
		accept: (before, qname) => {
			const open = openElements(before);
			return open.length === 1 && prefixOf(open[0]) === prefixOf(qname);
		},
		onHead: (found) => {
			answer = begin(found.head, found.qname);
			resolveReady({ streamed: true, answer });
		},
	});

	const front = new Promise<void>((resolve, reject) => {
		// An ApplicationResponse that came as an EncryptedData is decrypted as it arrives (Danske
		// Bank).
		const decrypt = settings.encryption ? [new MaybeDecrypt(settings.encryption.decryption)] : [];
		pipeline([body, soapCut, decoder, ...decrypt, documentCut], (error) =>
			error ? reject(error) : resolve(),
		);
	});

	/**
	 * The text before the Content is complete: judge the answer so far and start passing the file on.
	 */
	function begin(headBytes: Buffer, contentName: string): StreamedAnswer {
		const soapHead = (soapCut.found as { head: Buffer }).head.toString('utf8');
		const envelope = readEnvelopeSkeleton(
			soapHead + closingTags(openElements(soapHead)),
			operation,
		);
		const clean = stripBom(headBytes);
		encoding = documentEncoding(clean.subarray(0, 200).toString('latin1'));
		documentHead = clean.toString(encoding);
		const open = openElements(documentHead);
		const early = readApplicationResponseHead(documentHead, closingTags(open), encoding);
		const headerCode = normalizeResponseCode(envelope.header.responseCode);
		if (headerCode && !isSuccessCode(headerCode)) {
			throw new BxdResponseCodeError(
				headerCode,
				envelope.header.responseText ?? early.responseText,
				'ResponseHeader',
			);
		}
		const innerCode = early.responseCode;
		if (innerCode && !isSuccessCode(innerCode))
			throw new BxdResponseCodeError(innerCode, early.responseText, 'ApplicationResponse');
		const code = headerCode ?? innerCode;
		if (!code) throw new BxdFormatError("The bank's answer has no response code");
		if (settings.trust) {
			tap.hashes = payloadPrefixes(documentHead, `</${contentName}>`, `</${open[0]}>`).map(
				(prefix) => ({
					prefix,
					hash: createHash('sha256').update(prefix, 'utf8'),
				}),
			);
		}
		let method: CompressionMethod | undefined;
		if (options.unpack && early.compressed && !early.encrypted) {
			method = compressionMethodOf(early.compressionMethod);
			if (!method)
				throw new BxdFormatError(
					`The bank used a compression method this node cannot read: ${early.compressionMethod}`,
				);
		}
		const stages: Transform[] = [
			tap,
			new Base64DecodeStream('The file content (ApplicationResponse Content)'),
		];
		if (method) stages.push(new Unpack(method));
		const done = Promise.all([front, tap.flushed]).then(() => finish());
		done.catch(() => undefined);
		gate.check = async () => {
			await done;
		};
		pipeline([documentCut, ...stages, gate], (error) => {
			if (error) gate.destroy(error);
		});
		front.catch((error: unknown) => gate.destroy(error as Error));
		return {
			header: envelope.header,
			code,
			noData: headerCode === NO_DATA_CODE || innerCode === NO_DATA_CODE,
			applicationResponse: early,
			content: gate,
			unpacked: !!method,
			contentBytes: () => gate.bytes,
			done,
			abort: () => {
				body.destroy();
				gate.destroy();
			},
		};
	}

	/** The whole answer has been read: check what came after the Content and the signature. */
	function finish(): ApplicationResponse {
		const soapText = Buffer.concat([
			(soapCut.found as { head: Buffer }).head,
			soapCut.tail ?? Buffer.alloc(0),
		]).toString('utf8');
		readEnvelopeSkeleton(soapText, operation);
		const tail = (documentCut.tail ?? Buffer.alloc(0)).toString(encoding);
		const response = readStreamedApplicationResponse({ head: documentHead, tail }, encoding, {
			trust: settings.trust,
			digester: settings.trust ? streamedDigester(tap.hashes) : undefined,
		});
		if (settings.trust && response.signature !== 'valid') {
			throw new BxdSignatureError(
				`The response signature is missing: the bank answered code ${answer?.code ?? ''} without signing its ApplicationResponse, and the credential has a Bank Certificate, so unsigned answers are not accepted`,
			);
		}
		return response;
	}

	front.then(
		() => {
			if (answer) return;
			// No Content: the answer is small and was read whole; judge it as usual.
			const reading = attempt(() => {
				if (!soapCut.found)
					return readResponse(settings, operation, soapCut.whole ?? Buffer.alloc(0));
				const text = Buffer.from(
					(documentCut.whole ?? Buffer.alloc(0)).toString('base64'),
					'latin1',
				);
				return readResponse(
					settings,
					operation,
					Buffer.concat([soapCut.found.head, text, soapCut.tail ?? Buffer.alloc(0)]),
				);
			});
			if (reading.ok) resolveReady({ streamed: false, result: reading.value });
			else rejectReady(reading.error);
		},
		(error: unknown) => {
			if (!answer) rejectReady(error);
		},
	);
	return await ready;
}
