/**
 * The sandbox EBICS bank's transfers of any size and its recovery (what bank.ts calls at a few
 * hooks):
 *
 * - Uploads are taken segment by segment (`UploadReceiver`): each segment's base64 decoded (from
 *   the request's bytes, out of its DOM), decrypted and inflated as it comes (fflate's synchronous streaming inflate), the A006 hash and
 *   SHA-256 kept; the order data is kept whole only up to KEEP_BYTES (the status reports of a
 *   pain.001 need it), so a bank process takes uploads of 1 GiB.
 * - Downloads of large files are encrypted per transaction into one buffer as their segments are
 *   asked for, and cut into base64 segments only when asked (`LazySegments`); the deflated form of
 *   a file is computed once.
 * - Recovery (switch `recovery`, off by default as at many banks): a segment sent again after
 *   the bank stored it is answered 061101 EBICS_TX_RECOVERY_SYNC with the last segment the bank
 *   holds, also for an upload that is complete (the bank keeps finished uploads for this);
 *   without recovery it is 091105 EBICS_RECOVERY_NOT_SUPPORTED, or 091101 EBICS_TX_UNKNOWN_TXID
 *   once the transaction is finished.
 * - Dropped answers (faults): the bank does its work, then the connection is closed without an
 *   answer, as when a line drops or a proxy times out: `dropUploadAnswer` (the next upload
 *   segment), `dropLastUploadAnswer` (the next last segment of an upload: the order is stored, the
 *   client does not hear it), `dropDownloadAnswer` (the next download segment).
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

import { Unzlib } from 'fflate';

import { DownloadDecoder, E002Encryptor, OrderDataHasher } from '../../../nodes/shared/ebics';

/** Order data up to this size is kept whole by the bank (larger: its size and hashes). */
export const KEEP_BYTES = 64 * 1024 * 1024;

/** Downloads whose compressed data is larger than this are cut into segments when asked. */
export const LAZY_ABOVE_BYTES = 8 * 1024 * 1024;

/** The connection is closed without an answer (after the bank did its work). */
export class DropAnswer extends Error {
	constructor() {
		super('The answer is dropped');
		this.name = 'DropAnswer';
	}
}

export type TransferFault = 'dropUploadAnswer' | 'dropLastUploadAnswer' | 'dropDownloadAnswer';
export const TRANSFER_FAULTS: TransferFault[] = ['dropUploadAnswer', 'dropLastUploadAnswer', 'dropDownloadAnswer'];

/** Whether a transfer's answer is dropped by a queued fault (the fault is consumed). */
export function dropsAnswer(take: (kind: TransferFault) => boolean, kind: 'upload' | 'download', last: boolean): boolean {
	if (kind === 'download') return take('dropDownloadAnswer');
	return (last && take('dropLastUploadAnswer')) || take('dropUploadAnswer');
}

/** An upload's order data taken segment by segment. */
export class UploadReceiver {
	count = 0;
	bytes = 0;
	private readonly decoder: DownloadDecoder;
	private readonly inflater: Unzlib;
	private readonly hasher = new OrderDataHasher();
	private readonly sha256 = createHash('sha256');
	private kept: Buffer[] | undefined = [];
	private ended = false;

	constructor(transactionKey: Buffer) {
		this.decoder = new DownloadDecoder(transactionKey);
		this.inflater = new Unzlib((chunk, final) => {
			const data = Buffer.from(chunk);
			this.bytes += data.length;
			this.hasher.update(data);
			this.sha256.update(data);
			if (this.kept && this.bytes <= KEEP_BYTES) this.kept.push(data);
			else this.kept = undefined;
			if (final) this.ended = true;
		});
	}

	/** Takes one segment's OrderData (text, or the bytes as they came); throws when it is damaged. */
	push(orderData: string | Buffer): void {
		this.count++;
		for (const part of this.decoder.segmentParts(orderData)) this.inflater.push(part, false);
	}

	/** The order data complete: its A006 hash, SHA-256, size, and the data when small. */
	finish(): { dataDigest: Buffer; sha256: string; bytes: number; data?: Buffer } {
		this.inflater.push(this.decoder.end(), true);
		if (!this.ended) throw new Error('The compressed order data ends early');
		return { dataDigest: this.hasher.digest(), sha256: this.sha256.digest('hex'), bytes: this.bytes, data: this.kept ? Buffer.concat(this.kept) : undefined };
	}
}

/** The deflated form of a file's content, computed once per content. */
const deflated = new WeakMap<Buffer, Buffer>();
export function compressedOf(data: Buffer): Buffer {
	let compressed = deflated.get(data);
	if (!compressed) {
		compressed = deflateSync(data);
		if (data.length > LAZY_ABOVE_BYTES) deflated.set(data, compressed);
	}
	return compressed;
}

/**
 * The segments of a large download: encrypted as they are first asked for (CBC runs in order, so
 * a segment asked for encrypts those before it too), kept for the transaction, each cut into base64
 * when asked; the first answer does not wait for the whole file to be encrypted. `prepare` makes a
 * segment's text ahead (the next one, while the client reads the one answered), as a bank whose
 * file is ready answers a segment without working on it first.
 */
export class LazySegments {
	readonly count: number;
	private readonly encrypted: Buffer;
	private readonly encryptor: E002Encryptor;
	/** Bytes of `compressed` encrypted so far, and of `encrypted` written. */
	private fed = 0;
	private done = 0;
	/** The one segment made ahead. */
	private ready: { index: number; text: string } | undefined;

	constructor(
		private readonly compressed: Buffer,
		transactionKey: Buffer,
		private readonly segmentBytes: number,
	) {
		this.encryptor = new E002Encryptor(transactionKey);
		// E002 pads with 1 to 16 bytes: the ciphertext is the next whole block.
		const length = (Math.floor(compressed.length / 16) + 1) * 16;
		this.encrypted = Buffer.allocUnsafe(length);
		this.count = Math.max(1, Math.ceil(length / segmentBytes));
	}

	at(index: number): string {
		if (this.ready?.index === index) return this.ready.text;
		const end = Math.min(this.encrypted.length, (index + 1) * this.segmentBytes);
		while (this.done < end) {
			const input = this.compressed.subarray(this.fed, Math.min(this.compressed.length, this.fed + this.segmentBytes));
			this.fed += input.length;
			const out = this.fed === this.compressed.length ? Buffer.concat([this.encryptor.update(input), this.encryptor.final()]) : this.encryptor.update(input);
			out.copy(this.encrypted, this.done);
			this.done += out.length;
		}
		return this.encrypted.toString('base64', index * this.segmentBytes, end);
	}

	/** Makes segment `index` (from 0) ahead, replacing the one made before; nothing past the last. */
	prepare(index: number): void {
		if (index >= this.count || this.ready?.index === index) return;
		this.ready = { index, text: this.at(index) };
	}
}

/** Finished uploads kept for recovery: transaction ID to the number of segments the bank holds. */
export class FinishedUploads {
	private readonly done = new Map<string, { numSegments: number; orderId: string }>();

	add(id: string, numSegments: number, orderId: string): void {
		this.done.set(id, { numSegments, orderId });
		if (this.done.size > 1000) this.done.delete(this.done.keys().next().value as string);
	}

	get(id: string): { numSegments: number; orderId: string } | undefined {
		return this.done.get(id);
	}

	clear(): void {
		this.done.clear();
	}
}
