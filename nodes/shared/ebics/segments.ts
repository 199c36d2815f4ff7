/**
 * The order data pipeline of a transfer (chapter 7 of the spec, "Segmentation of the order
 * data"): compress (zlib/deflate), encrypt (E002), base64, cut into segments of at most 1,048,576
 * base64 characters, each base64 on its own (so every segment decodes alone).
 *
 * Both directions are built from parts that take one chunk at a time:
 * - upload: `UploadSegmenter` takes ciphertext chunks and gives out full segments as they fill;
 * - download: `DownloadDecoder` takes one segment's OrderData at a time and gives back the
 *   compressed bytes it held, keeping only a base64 remainder (< 4 characters) and the last AES
 *   block between segments.
 *
 * Part 1 runs them over buffers (`prepareUpload`, `decodeDownload`). To make transfers
 * flat in memory at any size, the callers can instead: for an upload, run the order data through
 * zlib's deflate stream and the E002Encryptor into the segmenter twice, once to count the segments
 * (NumSegments is declared in the initialisation request, before any segment is sent; deflate
 * gives the same bytes for the same input and level) and once to send them, or spool the
 * ciphertext to a temporary file once; for a download, pipe what `DownloadDecoder.segment()`
 * returns into `zlib.createInflate()` and on into the binary data store, requesting the next
 * segment only when the previous one has been written.
 */
import { type KeyObject } from 'node:crypto';
import { constants as zlibConstants, deflateSync, inflateSync } from 'node:zlib';

import { OrderDataHasher, signA006, userSignatureData, type SignerIdentity } from './a006';
import { SEGMENT_MAX_BYTES } from './constants';
import {
	E002Decryptor,
	E002Encryptor,
	encryptE002,
	newTransactionKey,
	wrapTransactionKey,
} from './e002';
import { EbicsDataError, rethrowAs } from './errors';

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

/** Signs, compresses, encrypts and segments order data held in memory. */
export function prepareUpload(orderData: Buffer, signing: UploadSigning): PreparedUpload {
	const transactionKey = newTransactionKey();
	const dataDigest = new OrderDataHasher().update(orderData).digest();
	const signature = signA006(dataDigest, signing.signatureKey);
	const signatureXml = userSignatureData(signature, signing.signer, signing.signatureNamespace);
	const encryptedSignatureData = encryptE002(
		deflateSync(Buffer.from(signatureXml, 'utf8')),
		transactionKey,
	);
	const encryptor = new E002Encryptor(transactionKey);
	const segmenter = new UploadSegmenter(signing.segmentBytes);
	const segments = [
		...segmenter.push(
			encryptor.update(deflateSync(orderData, { level: zlibConstants.Z_DEFAULT_COMPRESSION })),
		),
		...segmenter.push(encryptor.final()),
		...segmenter.end(),
	];
	return {
		wrappedTransactionKey: wrapTransactionKey(transactionKey, signing.bankEncryptionKey),
		encryptedSignatureData,
		dataDigest,
		segments,
	};
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Turns the OrderData of the segments of a download, one at a time, into compressed bytes. */
export class DownloadDecoder {
	private readonly decryptor: E002Decryptor;
	private carry = '';
	segments = 0;

	constructor(transactionKey: Buffer) {
		this.decryptor = new E002Decryptor(transactionKey);
	}

	/** Decodes and decrypts one segment's OrderData text. */
	segment(orderDataBase64: string): Buffer {
		this.segments++;
		const text = orderDataBase64.replace(/\s+/g, '');
		if (!BASE64.test(text) || (this.carry.includes('=') && text.length > 0))
			throw new EbicsDataError(
				`Segment ${this.segments} of the order data is damaged: its OrderData is not base64`,
			);
		const all = this.carry + text;
		const whole = all.length - (all.length % 4);
		this.carry = all.slice(whole);
		return this.decryptor.update(Buffer.from(all.slice(0, whole), 'base64'));
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

/** Inflates zlib-compressed order data; EbicsDataError when it does not decompress. */
export function inflateOrderData(compressed: Buffer): Buffer {
	return rethrowAs(
		() => inflateSync(compressed),
		() =>
			new EbicsDataError(
				'The order data does not decompress: a segment is damaged, or the data was encrypted with another key',
			),
	);
}

/** Decrypts and inflates the segments of a download held in memory. */
export function decodeDownload(segments: string[], transactionKey: Buffer): Buffer {
	const decoder = new DownloadDecoder(transactionKey);
	const parts = segments.map((segment) => decoder.segment(segment));
	parts.push(decoder.end());
	return inflateOrderData(Buffer.concat(parts));
}
