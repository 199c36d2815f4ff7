/**
 * A request whose file is streamed: file -> base64 into the ApplicationRequest's Content ->
 * base64 of that document into the SOAP Body -> the HTTP request, without ever holding the
 * file, its base64 or the message. Signing needs the digests before the message is sent: one
 * streaming pass over the file computes the ApplicationRequest digest and the Body digest
 * together. Given a spool folder, that pass also writes the Body's text to a temporary file
 * there, and the message is sent from it (the file is read and encoded once); without one, the
 * message is streamed from a second read of the file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';

import { Base64Encoder, base64Length } from './base64';
import { buildApplicationRequestSlot } from './applicationRequest';
import type { BxdOperation } from './constants';
import { newPlaceholder, splitAtPlaceholder } from './document';
import type { EncryptionSession } from './encryption';
import { encryptedChunks, startEncryption } from './encryption';
import { BxdFormatError } from './errors';
import type { FileServiceSettings, RequestFields } from './exchange';
import { applicationRequestFields, requestHeader } from './exchange';
import { DigestCapture, fixedDigester, signEnvelopedSkeleton } from './signature';
import { draftRequestEnvelope } from './soap';

/** The bytes that go into the Content: opened once per pass. */
export interface ContentSource {
	/** A fresh stream of the bytes (already compressed when the request says so). */
	open(): Promise<Readable>;
	/** Their length in bytes. */
	length: number;
}

export interface StreamingRequest {
	operation: BxdOperation;
	/** Size of the SOAP message in bytes (the Content-Length). */
	size: number;
	signed: boolean;
	requestId: string;
	/** The message as a stream; each call reads the content (or the spooled Body) again. */
	body(): Readable;
	/** Removes the temporary file the message is sent from, if any (safe to call twice). */
	dispose(): Promise<void>;
}

export interface StreamingOptions {
	/**
	 * A folder for the signed Body's text: written during the digest pass and sent from, so the
	 * file is read once. The caller owns the folder; the request's file in it is removed by
	 * dispose(), or at once when preparing fails.
	 */
	spoolDir?: string;
}

/** Bytes gathered before a write to the spool file. */
const SPOOL_BATCH = 1024 * 1024;

/**
 * Writes the Body's text to a file in batches, one write at a time in flight while the next
 * batch is encoded.
 */
class SpoolWriter {
	private parts: Buffer[] = [];
	private pendingBytes = 0;
	private inFlight: Promise<unknown> = Promise.resolve();
	bytes = 0;

	private constructor(
		readonly path: string,
		private readonly handle: Awaited<ReturnType<typeof open>>,
	) {}

	static async create(dir: string): Promise<SpoolWriter> {
		const path = join(dir, `bxd-body-${randomBytes(8).toString('hex')}.b64`);
		return new SpoolWriter(path, await open(path, 'wx', 0o600));
	}

	async write(chunk: Buffer): Promise<void> {
		if (!chunk.length) return;
		this.parts.push(chunk);
		this.pendingBytes += chunk.length;
		this.bytes += chunk.length;
		if (this.pendingBytes >= SPOOL_BATCH) await this.flush();
	}

	private async flush(): Promise<void> {
		await this.inFlight;
		if (!this.pendingBytes) return;
		const batch = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
		this.parts = [];
		this.pendingBytes = 0;
		this.inFlight = this.handle.write(batch);
	}

	async close(): Promise<void> {
		await this.flush();
		await this.inFlight;
		await this.handle.close();
	}

	/** Closes and removes the file after a failure. */
	async abandon(): Promise<void> {
		await this.inFlight.catch(() => undefined);
		await this.handle.close().catch(() => undefined);
		await rm(this.path, { force: true });
	}
}

/** Chunks the content is read in: a multiple of 3, so base64 needs no carry-over. */
export const CONTENT_CHUNK = 3 * 16 * 1024;

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

async function* contentChunks(source: ContentSource): AsyncGenerator<Buffer> {
	let count = 0;
	for await (const chunk of await source.open()) {
		const bytes = chunk as Buffer;
		count += bytes.length;
		yield bytes;
	}
	if (count !== source.length) {
		throw new BxdFormatError(
			`The file changed while it was being sent (${count} bytes instead of ${source.length})`,
		);
	}
}

/**
 * Prepares a request that carries a file streamed from `source` (uploadFile). With signing
 * material it reads the file once to compute the digests, so this resolves after that pass.
 */
export async function prepareStreamingRequest(
	settings: FileServiceSettings,
	operation: BxdOperation,
	fields: Omit<RequestFields, 'content'>,
	source: ContentSource,
	now = new Date(),
	options: StreamingOptions = {},
): Promise<StreamingRequest> {
	const slot = buildApplicationRequestSlot(
		applicationRequestFields(settings, operation, fields, now),
	);
	const draft = draftRequestEnvelope({
		operation,
		header: requestHeader(settings, now),
		signing: settings.signing,
		now,
	});
	if (settings.encryption)
		return await prepareEncrypted(
			settings,
			operation,
			source,
			slot,
			draft,
			startEncryption(settings.encryption.recipient),
		);
	let documentHead = slot.head;
	let documentTail = slot.tail;
	let envelope: { head: string; tail: string };
	/** The signed Body's text up to its last bytes, written during the digest pass. */
	let spool: SpoolWriter | undefined;
	/** The Body's last bytes (after the spooled text). */
	let bodyEnd = Buffer.alloc(0);

	const signing = settings.signing;
	if (!signing) {
		envelope = draft.finish();
	} else {
		if (options.spoolDir) spool = await SpoolWriter.create(options.spoolDir);
		let prepared = false;
		try {
			const signOptions = { canonicalization: settings.canonicalization };
			const placeholder = newPlaceholder();
			const skeleton = slot.head + placeholder + slot.tail;
			// What the two signatures digest around their payloads (dummy digests for now).
			const documentCapture = new DigestCapture();
			const draftDocument = splitAtPlaceholder(
				signEnvelopedSkeleton(
					skeleton,
					placeholder,
					signing,
					signOptions,
					documentCapture.digester,
				),
				placeholder,
			);
			const documentSlot = documentCapture.single();
			const bodyCapture = new DigestCapture();
			draft.finish(bodyCapture.digester);
			const bodySlot = bodyCapture.single();

			// One pass over the file: the ApplicationRequest digest, and the Body digest up to the
			// document's tail, which holds the signature that needs the first digest.
			const documentHash = createHash(documentSlot.algorithm).update(documentSlot.prefix, 'utf8');
			const bodyHash = createHash(bodySlot.algorithm).update(bodySlot.prefix, 'utf8');
			const inner = new Base64Encoder();
			const outer = new Base64Encoder();
			const passBody = async (text: Buffer): Promise<void> => {
				bodyHash.update(text);
				if (spool) await spool.write(text);
			};
			await passBody(outer.write(utf8(draftDocument.head)));
			for await (const chunk of contentChunks(source)) {
				const text = inner.write(chunk);
				documentHash.update(text);
				await passBody(outer.write(text));
			}
			const last = inner.end();
			documentHash.update(last);
			await passBody(outer.write(last));
			const documentDigest = documentHash.update(documentSlot.suffix, 'utf8').digest('base64');

			const signed = splitAtPlaceholder(
				signEnvelopedSkeleton(
					skeleton,
					placeholder,
					signing,
					signOptions,
					fixedDigester([{ slot: documentSlot, digest: documentDigest }]),
				),
				placeholder,
			);
			if (signed.head !== draftDocument.head)
				throw new BxdFormatError(
					'Internal error: the ApplicationRequest changed while it was signed',
				);
			documentHead = signed.head;
			documentTail = signed.tail;
			bodyEnd = Buffer.concat([outer.write(utf8(documentTail)), outer.end()]);
			bodyHash.update(bodyEnd);
			const bodyDigest = bodyHash.update(bodySlot.suffix, 'utf8').digest('base64');
			envelope = draft.finish(fixedDigester([{ slot: bodySlot, digest: bodyDigest }]));
			await spool?.close();
			prepared = true;
		} finally {
			// A pass that failed leaves no spool file behind.
			if (!prepared) await spool?.abandon();
		}
	}

	const envelopeHead = utf8(envelope.head);
	const envelopeTail = utf8(envelope.tail);
	const head = utf8(documentHead);
	const tail = utf8(documentTail);
	const size =
		envelopeHead.length +
		base64Length(head.length + base64Length(source.length) + tail.length) +
		envelopeTail.length;

	const spooled = spool;
	async function* fromSpool(written: SpoolWriter): AsyncGenerator<Buffer> {
		yield envelopeHead;
		let count = 0;
		for await (const chunk of createReadStream(written.path, { highWaterMark: SPOOL_BATCH })) {
			count += (chunk as Buffer).length;
			yield chunk as Buffer;
		}
		if (count !== written.bytes)
			throw new BxdFormatError(
				`The prepared message changed before it was sent (${count} bytes instead of ${written.bytes})`,
			);
		for (const last of [bodyEnd, envelopeTail]) if (last.length) yield last;
	}

	async function* message(): AsyncGenerator<Buffer> {
		if (spooled) {
			yield* fromSpool(spooled);
			return;
		}
		const inner = new Base64Encoder();
		const outer = new Base64Encoder();
		yield envelopeHead;
		yield outer.write(head);
		for await (const chunk of contentChunks(source)) {
			const text = outer.write(inner.write(chunk));
			if (text.length) yield text;
		}
		for (const last of [outer.write(inner.end()), outer.write(tail), outer.end(), envelopeTail])
			if (last.length) yield last;
	}

	return {
		operation,
		size,
		signed: !!signing,
		requestId: draft.requestId,
		body: () => Readable.from(message(), { objectMode: false, highWaterMark: 1024 * 1024 }),
		dispose: async () => {
			if (spooled) await rm(spooled.path, { force: true });
		},
	};
}

/**
 * The ApplicationRequest around its Content, signed when the settings have signing material (one
 * pass over the file).
 */
async function signedSlot(
	settings: FileServiceSettings,
	slot: { head: string; tail: string },
	source: ContentSource,
): Promise<{ head: string; tail: string }> {
	const signing = settings.signing;
	if (!signing) return slot;
	const options = { canonicalization: settings.canonicalization };
	const placeholder = newPlaceholder();
	const skeleton = slot.head + placeholder + slot.tail;
	const capture = new DigestCapture();
	signEnvelopedSkeleton(skeleton, placeholder, signing, options, capture.digester);
	const documentSlot = capture.single();
	const hash = createHash(documentSlot.algorithm).update(documentSlot.prefix, 'utf8');
	const inner = new Base64Encoder();
	for await (const chunk of contentChunks(source)) hash.update(inner.write(chunk));
	hash.update(inner.end());
	const digest = hash.update(documentSlot.suffix, 'utf8').digest('base64');
	return splitAtPlaceholder(
		signEnvelopedSkeleton(
			skeleton,
			placeholder,
			signing,
			options,
			fixedDigester([{ slot: documentSlot, digest }]),
		),
		placeholder,
	);
}

/**
 * A streamed request whose ApplicationRequest is encrypted (Danske Bank): file -> base64 into
 * the signed ApplicationRequest -> 3DES-CBC -> base64 into the EncryptedData -> base64 into the
 * SOAP Body. The content key is chosen once, so every pass over the file gives the same bytes:
 * one pass for the ApplicationRequest digest, one for the Body digest, then the one that is sent.
 */
async function prepareEncrypted(
	settings: FileServiceSettings,
	operation: BxdOperation,
	source: ContentSource,
	slot: { head: string; tail: string },
	draft: ReturnType<typeof draftRequestEnvelope>,
	session: EncryptionSession,
): Promise<StreamingRequest> {
	const document = await signedSlot(settings, slot, source);
	const head = utf8(document.head);
	const tail = utf8(document.tail);
	const plainLength = head.length + base64Length(source.length) + tail.length;

	async function* plain(): AsyncGenerator<Buffer> {
		yield head;
		const inner = new Base64Encoder();
		for await (const chunk of contentChunks(source)) {
			const text = inner.write(chunk);
			if (text.length) yield text;
		}
		const last = inner.end();
		if (last.length) yield last;
		yield tail;
	}

	let envelope: { head: string; tail: string };
	if (settings.signing) {
		const bodyCapture = new DigestCapture();
		draft.finish(bodyCapture.digester);
		const bodySlot = bodyCapture.single();
		const bodyHash = createHash(bodySlot.algorithm).update(bodySlot.prefix, 'utf8');
		const outer = new Base64Encoder();
		for await (const chunk of encryptedChunks(session, plain()))
			bodyHash.update(outer.write(chunk));
		bodyHash.update(outer.end());
		envelope = draft.finish(
			fixedDigester([
				{ slot: bodySlot, digest: bodyHash.update(bodySlot.suffix, 'utf8').digest('base64') },
			]),
		);
	} else {
		envelope = draft.finish();
	}
	const envelopeHead = utf8(envelope.head);
	const envelopeTail = utf8(envelope.tail);
	const size =
		envelopeHead.length + base64Length(session.documentBytes(plainLength)) + envelopeTail.length;

	async function* message(): AsyncGenerator<Buffer> {
		const outer = new Base64Encoder();
		yield envelopeHead;
		for await (const chunk of encryptedChunks(session, plain())) {
			const text = outer.write(chunk);
			if (text.length) yield text;
		}
		const last = outer.end();
		if (last.length) yield last;
		yield envelopeTail;
	}

	return {
		operation,
		size,
		signed: !!settings.signing,
		requestId: draft.requestId,
		body: () => Readable.from(message(), { objectMode: false, highWaterMark: 1024 * 1024 }),
		dispose: async () => undefined,
	};
}
