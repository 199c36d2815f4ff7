/**
 * The order data pipeline of a transfer (chapter 7 of the spec, "Segmentation of the order
 * data"): compress (zlib/deflate), encrypt (E002), base64, cut into segments of at most 1,048,576
 * base64 characters, each base64 on its own (so every segment decodes alone).
 *
 * Both directions work one chunk at a time, so a transfer of any size holds about one segment:
 * - upload: `spoolUpload` reads the order data once (the A006 hash, deflate on several threads
 *   and E002 on the way) into a temporary file of ciphertext, whose size gives NumSegments before
 *   the initialisation is sent; `fileSegments` then reads it back one segment at a time. Spooling (rather than
 *   compressing twice, once to count) costs one write and one read of the compressed size.
 * - download: `DownloadDecoder` takes one segment's OrderData at a time and gives back the
 *   compressed bytes it held, keeping only a base64 remainder (< 4 characters) and the last AES
 *   block between segments; `inflateStream` inflates what it gives as it comes. Banks cut the
 *   base64 in two ways, and both are read: one base64 text of the whole ciphertext cut into
 *   segments (at group boundaries, or anywhere), or each segment's bytes encoded on their own, so
 *   each OrderData is a complete base64Binary value (as the H004 and H005 schemas type it) that
 *   ends in its own padding (`=` or `==`) when its bytes are not a multiple of 3.
 *
 * `prepareUpload` and `decodeDownload` run the same parts over buffers (key management, the
 * sandbox bank, small administrative orders).
 */
import { type KeyObject } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants as zlibConstants, createInflate, deflateSync, inflateSync } from 'node:zlib';

import { ParallelDeflate } from '../common/parallelDeflate';

import { OrderDataHasher, signA006, userSignatureData, type SignerIdentity } from './a006';
import { SEGMENT_MAX_BYTES } from './constants';
import {
	E002Decryptor,
	E002Encryptor,
	encryptE002,
	newTransactionKey,
	wrapTransactionKey,
} from './e002';
import { EbicsDataError, EbicsError, rethrowAs } from './errors';

/** Collects ciphertext and gives out base64 segments of at most SEGMENT_MAX_BYTES bytes each. */
export class UploadSegmenter {
	private pending: Buffer[] = [];
	private pendingBytes = 0;
	count = 0;

	constructor(private readonly segmentBytes = SEGMENT_MAX_BYTES) {
		if (segmentBytes % 3 !== 0)
			throw new RangeError('A segment must hold a multiple of 3 bytes to stay base64-conformant');
	}

	/** Adds ciphertext; returns the segments that are full now. */
	push(chunk: Buffer): string[] {
		this.pending.push(chunk);
		this.pendingBytes += chunk.length;
		const out: string[] = [];
		while (this.pendingBytes >= this.segmentBytes) {
			const all = Buffer.concat(this.pending, this.pendingBytes);
			out.push(all.subarray(0, this.segmentBytes).toString('base64'));
			const rest = all.subarray(this.segmentBytes);
			this.pending = rest.length ? [rest] : [];
			this.pendingBytes = rest.length;
		}
		this.count += out.length;
		return out;
	}

	/** The last segment (what is left), if any. */
	end(): string[] {
		if (this.pendingBytes === 0) return this.count === 0 ? [''] : [];
		const last = Buffer.concat(this.pending, this.pendingBytes).toString('base64');
		this.pending = [];
		this.pendingBytes = 0;
		this.count++;
		return [last];
	}
}

/** Everything an upload transaction sends, prepared from the order data. */
export interface PreparedUpload {
	/** The transaction key wrapped for the bank's E002 key (DataEncryptionInfo/TransactionKey). */
	wrappedTransactionKey: Buffer;
	/** UserSignatureData with the A006 signature, compressed and encrypted (SignatureData). */
	encryptedSignatureData: Buffer;
	/** The A006 hash of the order data (DataDigest). */
	dataDigest: Buffer;
	/** The order data compressed, encrypted, base64 and cut into segments. */
	segments: string[];
}

export interface UploadSigning {
	signatureKey: KeyObject;
	signer: SignerIdentity;
	/** The bank's E002 public key. */
	bankEncryptionKey: KeyObject;
	/** Bytes per segment before base64 (tests use small ones to make many segments). */
	segmentBytes?: number;
	/** The namespace of UserSignatureData (default S002; S001 in EBICS 2.5). */
	signatureNamespace?: string;
}

/** What the initialisation of an upload carries besides the segments. */
export type UploadEnvelope = Omit<PreparedUpload, 'segments'>;

/**
 * The signature and key of an upload from the A006 hash of its order data: UserSignatureData
 * signed, compressed and encrypted with the transaction key, and the transaction key wrapped for
 * the bank.
 */
export function uploadEnvelope(
	dataDigest: Buffer,
	transactionKey: Buffer,
	signing: UploadSigning,
): UploadEnvelope {
	const signature = signA006(dataDigest, signing.signatureKey);
	const signatureXml = userSignatureData(signature, signing.signer, signing.signatureNamespace);
	return {
		wrappedTransactionKey: wrapTransactionKey(transactionKey, signing.bankEncryptionKey),
		encryptedSignatureData: encryptE002(
			deflateSync(Buffer.from(signatureXml, 'utf8')),
			transactionKey,
		),
		dataDigest,
	};
}

/** Signs, compresses, encrypts and segments order data held in memory. */
export function prepareUpload(orderData: Buffer, signing: UploadSigning): PreparedUpload {
	const transactionKey = newTransactionKey();
	const dataDigest = new OrderDataHasher().update(orderData).digest();
	const encryptor = new E002Encryptor(transactionKey);
	const segmenter = new UploadSegmenter(signing.segmentBytes);
	const segments = [
		...segmenter.push(
			encryptor.update(deflateSync(orderData, { level: zlibConstants.Z_DEFAULT_COMPRESSION })),
		),
		...segmenter.push(encryptor.final()),
		...segmenter.end(),
	];
	return { ...uploadEnvelope(dataDigest, transactionKey, signing), segments };
}

/** Chunk size of the streaming inflate (zlib's default is 16 KiB). */
const ZLIB_CHUNK = 256 * 1024;

/** The order data of an upload spooled to a file: compressed and encrypted, ready to be cut. */
export interface SpooledUpload {
	/** The A006 hash of the order data. */
	dataDigest: Buffer;
	/** Bytes of order data read. */
	orderDataBytes: number;
	/** Bytes of ciphertext in the file. */
	encryptedBytes: number;
}

/**
 * Reads order data once from `source`: the A006 hash of it, deflate, then E002 with the
 * transaction key into `file`. The deflate runs on several threads (ParallelDeflate: one zlib
 * stream, blocks compressed at the same time); a few blocks are held at a time.
 */
export async function spoolUpload(
	source: Readable | AsyncIterable<Buffer>,
	transactionKey: Buffer,
	file: string,
): Promise<SpooledUpload> {
	const hasher = new OrderDataHasher();
	let orderDataBytes = 0;
	let encryptedBytes = 0;
	const hash = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			orderDataBytes += chunk.length;
			hasher.update(chunk);
			done(null, chunk);
		},
	});
	const encryptor = new E002Encryptor(transactionKey);
	const encrypt = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			const out = encryptor.update(chunk);
			encryptedBytes += out.length;
			done(null, out);
		},
		flush(done) {
			const out = encryptor.final();
			encryptedBytes += out.length;
			done(null, out);
		},
	});
	await pipeline(
		source,
		hash,
		new ParallelDeflate({ level: zlibConstants.Z_DEFAULT_COMPRESSION }),
		encrypt,
		createWriteStream(file),
	);
	return { dataDigest: hasher.digest(), orderDataBytes, encryptedBytes };
}

/** How many segments `encryptedBytes` of ciphertext make (at least one). */
export function segmentCount(encryptedBytes: number, segmentBytes = SEGMENT_MAX_BYTES): number {
	return Math.max(1, Math.ceil(encryptedBytes / segmentBytes));
}

/** A reader of the segments of a spooled upload, each by its number (1 to count), as base64. */
export interface SegmentFile {
	count: number;
	segment(number: number): Promise<string>;
	/**
	 * Hands a segment's ciphertext to `use` (the buffer is read into again after `use` returns:
	 * `use` must not keep it) and resolves with what `use` returns.
	 */
	withSegment<T>(number: number, use: (ciphertext: Buffer) => T): Promise<T>;
	close(): Promise<void>;
}

/** Bytes coded to base64 at a time: 65,536 characters, a small string each (see DECODE_PART). */
const ENCODE_PART = 49_152;

/**
 * The bytes of an upload's transfer request: `head`, the ciphertext in base64, `tail`, written
 * into `into` when it is large enough (a buffer kept for the transfer's requests), else into a
 * new buffer (`buffer`, to keep for the next request). The base64 is made a small part at a time, so no text as large as the segment is
 * ever made.
 */
export function segmentRequestBytes(
	head: string,
	ciphertext: Buffer,
	tail: string,
	into?: Buffer,
): { request: Buffer; buffer: Buffer } {
	const size =
		Buffer.byteLength(head) + Math.ceil(ciphertext.length / 3) * 4 + Buffer.byteLength(tail);
	// Its own memory (never a slice of node's shared pool): it is written into again.
	const out = into && into.length >= size ? into : Buffer.from(new ArrayBuffer(size));
	let at = out.write(head, 0, 'utf8');
	for (let from = 0; from < ciphertext.length; from += ENCODE_PART)
		at += out.write(
			ciphertext.toString('base64', from, Math.min(ciphertext.length, from + ENCODE_PART)),
			at,
			'latin1',
		);
	at += out.write(tail, at, 'utf8');
	return { request: out.subarray(0, at), buffer: out };
}

/** Opens a spooled upload to read its segments (any segment again, for a recovery). */
export async function fileSegments(
	file: string,
	encryptedBytes: number,
	segmentBytes = SEGMENT_MAX_BYTES,
): Promise<SegmentFile> {
	if (segmentBytes % 3 !== 0)
		throw new RangeError('A segment must hold a multiple of 3 bytes to stay base64-conformant');
	const handle = await open(file, 'r');
	const count = segmentCount(encryptedBytes, segmentBytes);
	const buffer = Buffer.allocUnsafe(Math.min(segmentBytes, Math.max(encryptedBytes, 1)));
	const readSegment = async (number: number): Promise<Buffer> => {
		if (!Number.isInteger(number) || number < 1 || number > count)
			throw new RangeError(`Segment ${number} is not one of 1 to ${count}`);
		const position = (number - 1) * segmentBytes;
		const length = Math.min(segmentBytes, encryptedBytes - position);
		let read = 0;
		while (read < length) {
			const { bytesRead } = await handle.read(buffer, read, length - read, position + read);
			if (bytesRead === 0) throw new Error('The spooled order data ended early');
			read += bytesRead;
		}
		return buffer.subarray(0, length);
	};
	// One read at a time: the reads share one buffer (the next segment may be read while the one
	// before it is being sent, or sent again).
	let queue: Promise<unknown> = Promise.resolve();
	const withSegment = async <T>(number: number, use: (ciphertext: Buffer) => T): Promise<T> => {
		const reading = queue.then(async () => use(await readSegment(number)));
		queue = reading.catch(() => undefined);
		return await reading;
	};
	return {
		count,
		withSegment,
		async segment(number: number): Promise<string> {
			return await withSegment(number, (ciphertext) => ciphertext.toString('base64'));
		},
		async close() {
			await handle.close();
		},
	};
}

const UNREADABLE =
	'The order data does not decompress: a segment is damaged, or the data was encrypted with another key';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Base64 characters decoded at a time (a multiple of 4): the text of a part stays a small string
 * (V8 keeps strings over 128 KiB in its large-object space, freed only by a full collection).
 */
const DECODE_PART = 64 * 1024;

/**
 * Base64 bytes decrypted at a time by `segmentParts`: a segment's parts are decoded into one
 * buffer kept for the download until about this many bytes are there, then decrypted at once (a
 * part handed on is about ZLIB_CHUNK, so it goes to inflate as it is).
 */
const DECRYPT_GROUP = 256 * 1024;

/** Turns the OrderData of the segments of a download, one at a time, into compressed bytes. */
export class DownloadDecoder {
	private readonly decryptor: E002Decryptor;
	private carry = '';
	private padded = false;
	/** Where `segmentParts` decodes base64 (kept: a new buffer per part would add to V8's GC work). */
	private decoded: Buffer | undefined;
	segments = 0;

	constructor(transactionKey: Buffer) {
		this.decryptor = new E002Decryptor(transactionKey);
	}

	/** Decodes and decrypts one segment's OrderData text. */
	segment(orderDataBase64: string): Buffer {
		this.nextSegment();
		return this.decode(orderDataBase64);
	}

	/**
	 * A new segment begins. When the one before ended its base64 with padding, it was a value of
	 * its own (the bank encodes each segment by itself): this segment starts a new value. Within a
	 * segment, nothing but whitespace may follow the padding.
	 */
	private nextSegment(): void {
		if (this.padded && this.carry === '') this.padded = false;
		this.segments++;
	}

	/**
	 * Decodes and decrypts one segment's OrderData, text or bytes, in parts of at most
	 * DECODE_PART base64 characters: the segment's bytes are turned into text a small part at a
	 * time, decoded into a buffer kept for the download and decrypted about DECRYPT_GROUP bytes at
	 * a time, so no buffer as large as the segment is made, and few buffers at all.
	 */
	segmentParts(orderData: string | Buffer): Buffer[] {
		this.nextSegment();
		const parts: Buffer[] = [];
		// In bytes, the base64url characters are looked for once (a native search of the segment).
		const urlSafeChecked =
			Buffer.isBuffer(orderData) && orderData.indexOf(0x2d) < 0 && orderData.indexOf(0x5f) < 0;
		// Room for a group and one more part (DECODE_PART characters decode to at most 3/4 of it).
		const decoded = (this.decoded ??= Buffer.allocUnsafeSlow(
			DECRYPT_GROUP + (DECODE_PART / 4) * 3,
		));
		let filled = 0;
		const decrypt = (): void => {
			if (filled === 0) return;
			const part = this.decryptor.update(decoded.subarray(0, filled));
			if (part.length) parts.push(part);
			filled = 0;
		};
		for (let at = 0; at < orderData.length || at === 0; at += DECODE_PART) {
			const end = Math.min(orderData.length, at + DECODE_PART);
			const text =
				typeof orderData === 'string'
					? orderData.slice(at, end)
					: orderData.toString('latin1', at, end);
			this.checkAfterPadding(text);
			const written = this.decodeWhole(text, decoded, filled, urlSafeChecked);
			if (written >= 0) {
				filled += written;
				if (filled >= DECRYPT_GROUP) decrypt();
			} else {
				// Whitespace, a group cut between segments or parts, or damage: the careful path
				// (the text was checked and tried as whole groups above).
				decrypt();
				const part = this.decodeCarefully(text);
				if (part.length) parts.push(part);
			}
			if (end === orderData.length) break;
		}
		decrypt();
		return parts;
	}

	/** After the padding of a segment's last group, nothing but whitespace may come in it. */
	private checkAfterPadding(orderDataBase64: string): void {
		if (this.padded && orderDataBase64.trim().length > 0) throw this.damaged();
	}

	/**
	 * The usual text: whole groups of base64 and nothing else, decoded into `into` at `offset`
	 * without a scan of its own (the decoder skips what is not base64, so fewer bytes than the
	 * groups hold means it is not that). The bytes written, or -1 when the text is not that.
	 */
	private decodeWhole(
		orderDataBase64: string,
		into: Buffer,
		offset: number,
		urlSafeChecked: boolean,
	): number {
		if (this.carry !== '' || orderDataBase64.length % 4 !== 0) return -1;
		const written = into.write(orderDataBase64, offset, 'base64');
		const padding = orderDataBase64.endsWith('==') ? 2 : orderDataBase64.endsWith('=') ? 1 : 0;
		if (
			written !== (orderDataBase64.length / 4) * 3 - padding ||
			(!urlSafeChecked && /[-_]/.test(orderDataBase64))
		)
			return -1;
		this.padded ||= padding > 0;
		return written;
	}

	private decode(orderDataBase64: string, urlSafeChecked = false): Buffer {
		this.checkAfterPadding(orderDataBase64);
		if (this.carry === '' && orderDataBase64.length % 4 === 0) {
			const bytes = Buffer.allocUnsafe((orderDataBase64.length / 4) * 3);
			const written = this.decodeWhole(orderDataBase64, bytes, 0, urlSafeChecked);
			if (written >= 0) return this.decryptor.update(bytes.subarray(0, written));
		}
		return this.decodeCarefully(orderDataBase64);
	}

	/** Any base64 text: whitespace left out, a group cut at its end carried to the next text. */
	private decodeCarefully(orderDataBase64: string): Buffer {
		const text = orderDataBase64.replace(/\s+/g, '');
		if (!BASE64.test(text) || (this.carry.includes('=') && text.length > 0)) throw this.damaged();
		const all = this.carry + text;
		const whole = all.length - (all.length % 4);
		this.carry = all.slice(whole);
		this.padded = all.slice(0, whole).endsWith('=');
		return this.decryptor.update(Buffer.from(all.slice(0, whole), 'base64'));
	}

	private damaged(): EbicsDataError {
		return new EbicsDataError(
			`Segment ${this.segments} of the order data is damaged: its OrderData is not base64`,
		);
	}

	/** The last compressed bytes; EbicsDataError when the data is cut off or damaged. */
	end(): Buffer {
		if (this.carry.length)
			throw new EbicsDataError(
				`The order data is damaged: the base64 of segment ${this.segments} ends in the middle of a group`,
			);
		return this.decryptor.final();
	}
}

/**
 * Joins decoded parts into chunks of about `bytes` (ZLIB_CHUNK by default): the inflater takes
 * each chunk in one pass of its thread pool, rather than one pass per small part.
 */
export function* joinParts(parts: Buffer[], bytes = ZLIB_CHUNK): Generator<Buffer> {
	let group: Buffer[] = [];
	let size = 0;
	for (const part of parts) {
		group.push(part);
		size += part.length;
		if (size >= bytes) {
			yield group.length === 1 ? group[0] : Buffer.concat(group, size);
			group = [];
			size = 0;
		}
	}
	if (size) yield group.length === 1 ? group[0] : Buffer.concat(group, size);
}

/** Inflates zlib-compressed order data; EbicsDataError when it does not decompress. */
export function inflateOrderData(compressed: Buffer): Buffer {
	return rethrowAs(
		() => inflateSync(compressed),
		() => new EbicsDataError(UNREADABLE),
	);
}

/** Decrypts and inflates the segments of a download held in memory. */
export function decodeDownload(segments: string[], transactionKey: Buffer): Buffer {
	const decoder = new DownloadDecoder(transactionKey);
	const parts = segments.map((segment) => decoder.segment(segment));
	parts.push(decoder.end());
	return inflateOrderData(Buffer.concat(parts));
}

/**
 * Inflates zlib-compressed order data as it comes (chunks from `DownloadDecoder`), reading the
 * source only as fast as the result is read. An error of the source comes out as it is; data that
 * does not decompress, or stops before the end of the compressed stream, is an EbicsDataError.
 */
export function inflateStream(compressed: AsyncIterable<Buffer>): Readable {
	const source = Readable.from(compressed, { objectMode: false, highWaterMark: 1 });
	async function* inflated(): AsyncGenerator<Buffer> {
		const inflate = createInflate({ chunkSize: ZLIB_CHUNK });
		source.once('error', (error) => inflate.destroy(error));
		source.pipe(inflate);
		try {
			for await (const chunk of inflate) yield chunk as Buffer;
		} catch (error) {
			throw error instanceof EbicsError || !(error as { code?: string })?.code?.startsWith('Z_')
				? error
				: new EbicsDataError(UNREADABLE);
		} finally {
			source.destroy();
			inflate.destroy();
		}
	}
	return Readable.from(inflated(), { objectMode: false, highWaterMark: ZLIB_CHUNK });
}
