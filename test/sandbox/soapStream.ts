/**
 * Reads a file-service request as it arrives, for messages of any size (the large-file
 * address): the SOAP text before the ApplicationRequest is collected, the base64
 * ApplicationRequest is decoded on the fly, its text before the Content is collected, the
 * Content is base64-decoded straight into a file on disk, and the small rest of both documents
 * is collected at the end. While the Content passes, its text is hashed for the signature check
 * (SHA-256 from the canonical text that precedes it, inclusive and exclusive C14N), so the
 * customer's signature is verified without the document ever being in memory.
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { DOMParser } from '@xmldom/xmldom';
import { C14nCanonicalization, ExclusiveCanonicalization, SignedXml } from 'xml-crypto';

import { Base64Decoder } from './base64';
import { closeFile, writeChunk } from './fileWrite';
import { envelopedSignature } from './xmldsig';

/** The SOAP text around the ApplicationRequest, and the ApplicationRequest text around its Content, are kept up to this size. */
const TEXT_LIMIT = 1024 * 1024;

/** Something in the message is broken: `level` says whether the SOAP message or the ApplicationRequest. */
export class SoapStreamError extends Error {
	constructor(
		readonly level: 'soap' | 'application',
		message: string,
		/** The message is over the address's size limit. */
		readonly tooLarge = false,
	) {
		super(message);
	}
}

/** The canonical text before the Content, with the hash of it plus the Content so far. */
export interface ContentDigest {
	prefix: string;
	hash: Hash;
}

export type StreamedSoapRequest =
	/** No ApplicationRequest element: the whole (small) body. */
	| { kind: 'whole'; bytes: number; body: Buffer }
	/** An ApplicationRequest without Content: decoded whole (it is small). */
	| { kind: 'document'; bytes: number; soapSkeleton: string; applicationRequest: Buffer }
	/** An ApplicationRequest with Content: the Content is in `contentFile` (decoded, as sent). */
	| {
			kind: 'content';
			bytes: number;
			soapSkeleton: string;
			/** The ApplicationRequest with an empty Content element. */
			documentSkeleton: string;
			/** Where the empty Content is in `documentSkeleton` (after its opening tag). */
			contentAt: number;
			contentFile: string;
			contentSize: number;
			/** Hashes of the Content text from each possible canonical prefix; empty when it could not be hashed. */
			digests: ContentDigest[];
	  };

const OPEN_APPLICATION_REQUEST = /<(?:[A-Za-z_][\w.-]*:)?ApplicationRequest(?:\s[^>]*)?(\/?)>/;
const OPEN_CONTENT = /<(?:[A-Za-z_][\w.-]*:)?Content(?:\s[^>]*)?(\/?)>/;
const LINE_REFERENCES = /&#(?:13|10|x[dDaA]);/g;

/** Base64 text to bytes across chunks, as leniently as the sandbox reads a whole text. */
class Base64Reader extends Base64Decoder {
	private reference = '';

	constructor(private readonly level: 'soap' | 'application') {
		super();
	}

	decode(chunk: Buffer): Buffer {
		let text = this.reference + chunk.toString('latin1');
		this.reference = '';
		// Plain base64 (the usual case) decodes to exactly three bytes per four characters;
		// anything else (line breaks, references, a wrong character) takes the careful way.
		if (text.indexOf('&') === -1 && text.indexOf('-') === -1 && text.indexOf('_') === -1) {
			const all = this.carry + text;
			const usable = all.length - (all.length % 4);
			const out = Buffer.from(usable < all.length ? all.slice(0, usable) : all, 'base64');
			if (out.length === (usable / 4) * 3) {
				this.carry = all.slice(usable);
				return out;
			}
		}
		if (text.includes('&')) {
			const amp = text.lastIndexOf('&');
			if (!text.includes(';', amp) && text.length - amp < 8) {
				this.reference = text.slice(amp);
				text = text.slice(0, amp);
			}
			text = text.replace(LINE_REFERENCES, '');
		}
		if (/[^A-Za-z0-9+/=\s]/.test(text)) throw new SoapStreamError(this.level, 'Base64 content is not valid.');
		return this.write(text);
	}
}

/**
 * The canonical text a verifier digests before the Content, for inclusive and exclusive C14N,
 * from the document's text up to the Content's opening tag. Computed here with xml-crypto's
 * canonicalizers on the head closed artificially around a marker.
 */
function canonicalPrefixes(head: string, contentName: string, rootName: string): string[] {
	const marker = `sandbox-content-${Math.random().toString(36).slice(2)}`;
	const doc = new DOMParser({ errorHandler: () => undefined }).parseFromString(
		`${head}${marker}</${contentName}></${rootName}>`,
		'text/xml',
	) as unknown as Document;
	const root = doc.documentElement;
	if (!root) return [];
	const prefixes = new Set<string>();
	for (const canonicalizer of [new C14nCanonicalization(), new ExclusiveCanonicalization()]) {
		try {
			const text = canonicalizer.process(root as unknown as Element, { defaultNsForPrefix: {}, ancestorNamespaces: [] }).toString();
			const at = text.indexOf(marker);
			if (at !== -1) prefixes.add(text.slice(0, at));
		} catch {
			// A head the canonicalizer cannot read cannot be verified either.
		}
	}
	return [...prefixes];
}

function openElementNames(text: string): string[] {
	const stack: string[] = [];
	const tags = /<(\/?)([A-Za-z_][\w.:-]*)[^>]*?(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g;
	for (let match = tags.exec(text); match; match = tags.exec(text)) {
		if (!match[2]) continue;
		if (match[1]) stack.pop();
		else if (!match[3]) stack.push(match[2]);
	}
	return stack;
}

/**
 * Reads a SOAP request from `req` without holding its payload: see the module comment.
 * `contentFile()` gives the path the Content is written to. Throws SoapStreamError for broken
 * messages; the caller removes the file when it does not keep it.
 */
export async function readSoapRequestStream(req: IncomingMessage, contentFile: () => string, limit: number): Promise<StreamedSoapRequest> {
	const declared = Number(req.headers['content-length']);
	if (Number.isFinite(declared) && declared > limit) throw new SoapStreamError('soap', `Message larger than ${limit} bytes.`, true);
	let bytes = 0;
	let state: 'soapHead' | 'document' | 'soapTail' = 'soapHead';
	let inner: 'head' | 'content' | 'tail' = 'head';
	let soapHead = '';
	let soapTail = '';
	let documentHead = Buffer.alloc(0);
	let documentTail = '';
	const outer = new Base64Reader('soap');
	const content = new Base64Reader('application');
	let file: WriteStream | undefined;
	let path: string | undefined;
	let contentSize = 0;
	let digests: ContentDigest[] = [];
	let canonical = true;
	let documentHeadText = '';

	/** Decoded ApplicationRequest bytes arrive. */
	const onDocument = async (data: Buffer): Promise<void> => {
		if (!data.length) return;
		if (inner === 'head') {
			documentHead = Buffer.concat([documentHead, data]);
			const text = documentHead.toString('latin1');
			const open = OPEN_CONTENT.exec(text);
			if (!open || open[1] === '/') {
				if (documentHead.length > 64 * TEXT_LIMIT) throw new SoapStreamError('application', 'ApplicationRequest is too large without Content.');
				return;
			}
			const end = open.index + open[0].length;
			const rest = documentHead.subarray(end);
			documentHead = documentHead.subarray(0, end);
			documentHeadText = documentHead.toString('utf8');
			const names = openElementNames(documentHeadText);
			if (names.length === 2) {
				digests = canonicalPrefixes(documentHeadText, names[1], names[0]).map((prefix) => ({
					prefix,
					hash: createHash('sha256').update(prefix, 'utf8'),
				}));
			}
			path = contentFile();
			file = createWriteStream(path, { highWaterMark: 1024 * 1024 });
			inner = 'content';
			await onDocument(rest);
			return;
		}
		if (inner === 'content') {
			const lt = data.indexOf(0x3c);
			const text = lt === -1 ? data : data.subarray(0, lt);
			if (text.includes(0x0d) || text.includes(0x26)) canonical = false;
			for (const digest of digests) digest.hash.update(text);
			const decoded = content.decode(text);
			contentSize += decoded.length;
			await writeChunk(file as WriteStream, decoded);
			if (lt !== -1) {
				const last = content.end();
				contentSize += last.length;
				await writeChunk(file as WriteStream, last);
				inner = 'tail';
				documentTail = data.subarray(lt).toString('utf8');
			}
			return;
		}
		documentTail += data.toString('utf8');
		if (documentTail.length > TEXT_LIMIT) throw new SoapStreamError('application', 'ApplicationRequest is too large after its Content.');
	};

	try {
		for await (const chunk of req) {
			const data = chunk as Buffer;
			bytes += data.length;
			if (bytes > limit) throw new SoapStreamError('soap', `Message larger than ${limit} bytes.`, true);
			if (state === 'soapHead') {
				soapHead += data.toString('latin1');
				const open = OPEN_APPLICATION_REQUEST.exec(soapHead);
				if (!open || open[1] === '/') {
					if (soapHead.length > TEXT_LIMIT) throw new SoapStreamError('soap', 'SOAP message is too large before its ApplicationRequest.');
					continue;
				}
				const end = open.index + open[0].length;
				const rest = Buffer.from(soapHead.slice(end), 'latin1');
				soapHead = soapHead.slice(0, end);
				state = 'document';
				if (!rest.length) continue;
				await handleDocumentText(rest);
				continue;
			}
			if (state === 'document') {
				await handleDocumentText(data);
				continue;
			}
			soapTail += data.toString('latin1');
			if (soapTail.length > TEXT_LIMIT) throw new SoapStreamError('soap', 'SOAP message is too large after its ApplicationRequest.');
		}
		if (state === 'soapHead') return { kind: 'whole', bytes, body: Buffer.from(soapHead, 'latin1') };
		if (state === 'document') throw new SoapStreamError('soap', 'Element ApplicationRequest is not closed.');
		await onDocument(outer.end());
		const soapSkeleton = Buffer.from(soapHead + soapTail, 'latin1').toString('utf8');
		if (inner === 'head') return { kind: 'document', bytes, soapSkeleton, applicationRequest: documentHead };
		if (inner === 'content') throw new SoapStreamError('application', 'Element Content is not closed.');
		await closeFile(file as WriteStream);
		file = undefined;
		return {
			kind: 'content',
			bytes,
			soapSkeleton,
			documentSkeleton: documentHeadText + documentTail,
			contentAt: documentHeadText.length,
			contentFile: path as string,
			contentSize,
			digests: canonical ? digests : [],
		};
	} catch (error) {
		file?.destroy();
		if (path) rmSync(path, { force: true });
		throw error;
	}

	async function handleDocumentText(data: Buffer): Promise<void> {
		const lt = data.indexOf(0x3c);
		if (lt === -1) {
			await onDocument(outer.decode(data));
			return;
		}
		await onDocument(outer.decode(data.subarray(0, lt)));
		state = 'soapTail';
		soapTail = data.subarray(lt).toString('latin1');
	}
}

const SHA256_URI = 'http://www.w3.org/2001/04/xmlenc#sha256';

class NotHashed extends Error {}

/**
 * Verifies the enveloped signature of an ApplicationRequest whose Content streamed into a file:
 * `skeleton` is the document with an empty Content at `contentAt`; the digest over the Content
 * comes from the hash that started from the canonical prefix the verifier asks for. 'skipped'
 * when the signature digests the Content in a way that was not hashed (another algorithm or
 * canonicalization, or Content text that is not canonical as sent).
 */
export function verifyStreamedSignature(
	skeleton: string,
	contentAt: number,
	digests: ContentDigest[],
	certPem: string,
): 'none' | 'valid' | 'invalid' | 'skipped' {
	const marker = `sandbox-content-${Math.random().toString(36).slice(2)}`;
	const xml = skeleton.slice(0, contentAt) + marker + skeleton.slice(contentAt);
	const signature = envelopedSignature(xml);
	if (typeof signature === 'string') return signature;
	const verifier = new SignedXml({ publicCert: certPem, getCertFromKeyInfo: () => null });
	verifier.HashAlgorithms = {
		[SHA256_URI]: class StreamedContentHash {
			getHash(canonical: string): string {
				const at = canonical.indexOf(marker);
				if (at === -1) return createHash('sha256').update(canonical, 'utf8').digest('base64');
				const digest = digests.find((entry) => entry.prefix === canonical.slice(0, at));
				if (!digest) throw new NotHashed();
				return digest.hash.copy().update(canonical.slice(at + marker.length), 'utf8').digest('base64');
			}

			getAlgorithmName(): string {
				return SHA256_URI;
			}
		},
	};
	try {
		verifier.loadSignature(signature as unknown as Node);
		const references = verifier.getReferences();
		if (references.length !== 1 || !(references[0].uri === '' || references[0].isEmptyUri)) return 'invalid';
		if (references[0].digestAlgorithm !== SHA256_URI) return 'skipped';
		return verifier.checkSignature(xml) ? 'valid' : 'invalid';
	} catch (error) {
		return error instanceof NotHashed ? 'skipped' : 'invalid';
	}
}
