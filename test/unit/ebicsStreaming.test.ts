/**
 * The streaming transfer path of the EBICS library: an upload spooled once (A006 hash, deflate,
 * E002) and read back segment by segment decodes to the same order data as the in-memory path;
 * a download inflates segment by segment; ZIP containers open entry by entry, with data
 * descriptors or without; damage and cuts are named errors, never shorter data.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import { Zip, ZipDeflate, ZipPassThrough, zipSync } from 'fflate';

import {
	allElements,
	decodeDownload,
	DownloadDecoder,
	E002Encryptor,
	EbicsDataError,
	fileSegments,
	inflateStream,
	joinParts,
	newTransactionKey,
	orderDataDigest,
	parseDocument,
	parseKeepingOrderDataOut,
	segmentCount,
	segmentRequestBytes,
	serialize,
	spoolUpload,
	streamContainer,
	UploadSegmenter,
	uploadTransferEnvelope,
	uploadTransferRequest,
} from '../../nodes/shared/ebics';
import { deflateSync } from 'node:zlib';

import { isoMessageOfHead } from '../../nodes/Ebics/helpers/paymentFile';

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'ebics-stream-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(stream: Readable): Promise<Buffer> {
	const parts: Buffer[] = [];
	for await (const chunk of stream) parts.push(chunk as Buffer);
	return Buffer.concat(parts);
}

function chunked(data: Buffer, size: number): Readable {
	async function* pieces() {
		for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
	}
	return Readable.from(pieces(), { objectMode: false });
}

describe('upload spooling', () => {
	test('one pass gives the A006 hash and segments that decode to the order data, at the segment size asked', async () => {
		const data = Buffer.concat([randomBytes(200_000), Buffer.from('line\r\nline\n\x1a'.repeat(5000))]);
		const key = newTransactionKey();
		const file = path.join(dir, 'spool');
		const spooled = await spoolUpload(chunked(data, 7777), key, file);
		expect(spooled.dataDigest.equals(orderDataDigest(data))).toBe(true);
		expect(spooled.orderDataBytes).toBe(data.length);
		expect(spooled.encryptedBytes % 16).toBe(0);
		const segments = await fileSegments(file, spooled.encryptedBytes, 30_000);
		expect(segments.count).toBe(segmentCount(spooled.encryptedBytes, 30_000));
		expect(segments.count).toBeGreaterThan(5);
		const texts: string[] = [];
		for (let n = 1; n <= segments.count; n++) texts.push(await segments.segment(n));
		// Any segment can be read again (a recovery sends one again).
		expect(await segments.segment(2)).toBe(texts[1]);
		await segments.close();
		expect(texts.slice(0, -1).every((t) => t.length === 40_000)).toBe(true);
		expect(decodeDownload(texts, key).equals(data)).toBe(true);
	});

	test('an empty stream still makes one segment', async () => {
		const key = newTransactionKey();
		const file = path.join(dir, 'empty');
		const spooled = await spoolUpload(Readable.from([]), key, file);
		const segments = await fileSegments(file, spooled.encryptedBytes);
		expect(segments.count).toBe(1);
		expect(decodeDownload([await segments.segment(1)], key)).toEqual(Buffer.alloc(0));
		await segments.close();
	});
});

function encryptedSegments(data: Buffer, segmentBytes: number): { key: Buffer; segments: string[] } {
	const key = newTransactionKey();
	const encryptor = new E002Encryptor(key);
	const segmenter = new UploadSegmenter(segmentBytes);
	return { key, segments: [...segmenter.push(encryptor.update(deflateSync(data))), ...segmenter.push(encryptor.final()), ...segmenter.end()] };
}

describe('download inflating', () => {
	test('segment by segment, read only as fast as the reader', async () => {
		const data = randomBytes(300_000);
		const { key, segments } = encryptedSegments(data, 9_999);
		const decoder = new DownloadDecoder(key);
		let fetched = 0;
		async function* compressed() {
			for (const segment of segments) {
				fetched++;
				yield decoder.segment(segment);
			}
			yield decoder.end();
		}
		const stream = inflateStream(compressed());
		const first = await new Promise<Buffer>((resolve) => stream.once('data', resolve));
		stream.pause();
		expect(first.length).toBeGreaterThan(0);
		// Not all segments were asked for to give the first bytes.
		expect(fetched).toBeLessThan(segments.length);
		const rest = await collect(stream);
		expect(Buffer.concat([first, rest]).equals(data)).toBe(true);
	});

	test('data cut before the end of the compressed stream, or not compressed, is an EbicsDataError', async () => {
		const { key, segments } = encryptedSegments(randomBytes(50_000), 9_999);
		const decoder = new DownloadDecoder(key);
		async function* cut() {
			yield decoder.segment(segments[0]);
		}
		await expect(collect(inflateStream(cut()))).rejects.toThrow(EbicsDataError);
		async function* garbage() {
			yield Buffer.from('not zlib at all');
		}
		await expect(collect(inflateStream(garbage()))).rejects.toThrow(/^The order data does not decompress/);
	});

	test("the source's own error comes out as it is", async () => {
		async function* failing(): AsyncGenerator<Buffer> {
			yield deflateSync(Buffer.from('x')).subarray(0, 2);
			throw new Error('segment 2 did not come');
		}
		await expect(collect(inflateStream(failing()))).rejects.toThrow('segment 2 did not come');
	});
});

describe('streamed containers', () => {
	const files = { 'a/camt053_1.xml': randomBytes(500_000), 'camt053_2.xml': Buffer.from('<Document/>'.repeat(50_000)), 'empty.xml': Buffer.alloc(0) };

	async function open(zip: Buffer, options = { name: 'x' }) {
		return await streamContainer(chunked(zip, 10_000), options, async (file) => ({ name: file.name, data: await collect(file.stream) }));
	}

	test('a ZIP without data descriptors (sizes in the headers)', async () => {
		const out = await open(Buffer.from(zipSync(files)));
		expect(out.map((f) => f.name)).toEqual(Object.keys(files));
		for (const f of out) expect(f.data.equals(files[f.name as keyof typeof files])).toBe(true);
	});

	test('a ZIP written as a stream (data descriptors), stored and deflated entries', async () => {
		const parts: Uint8Array[] = [];
		const writer = new Zip((error, chunk) => {
			if (error) throw error;
			parts.push(chunk);
		});
		for (const [name, data] of Object.entries(files)) {
			const entry = name.endsWith('2.xml') ? new ZipPassThrough(name) : new ZipDeflate(name);
			writer.add(entry);
			entry.push(data, true);
		}
		writer.end();
		const out = await open(Buffer.concat(parts));
		expect(out.map((f) => f.name)).toEqual(Object.keys(files));
		for (const f of out) expect(f.data.equals(files[f.name as keyof typeof files])).toBe(true);
	});

	test('not a container: one file with the given name', async () => {
		const out = await open(Buffer.from('{1:F01...}'), { name: 'mt940.txt' });
		expect(out).toEqual([{ name: 'mt940.txt', data: Buffer.from('{1:F01...}') }]);
	});

	test('a cut-off archive, and a ZIP container that is none, are named errors', async () => {
		const zip = Buffer.from(zipSync(files));
		await expect(open(zip.subarray(0, 300_000))).rejects.toThrow(/^The ZIP container is damaged or cut off/);
		await expect(open(zip.subarray(0, zip.length - 40))).rejects.toThrow('The ZIP container is damaged or cut off: it has no end record (the end of the archive is missing)');
		await expect(streamContainer(chunked(Buffer.from('plain text'), 4), { container: 'ZIP', name: 'x' }, async () => 1)).rejects.toThrow(
			'The download was announced as a ZIP container but is not a ZIP archive',
		);
	});

	test('a reader that fails stops the unzipping with its error', async () => {
		const zip = Buffer.from(zipSync(files));
		await expect(
			streamContainer(chunked(zip, 10_000), { name: 'x' }, async (file) => {
				file.stream.destroy(new Error('disk full'));
				throw new Error('disk full');
			}),
		).rejects.toThrow('disk full');
	});
});

describe('large segments in XML', () => {
	const b64 = randomBytes(200_000).toString('base64');

	test('a document with one large OrderData parses to the same text as without setting it aside', () => {
		const xml = `<?xml version="1.0"?><r xmlns="urn:x"><h authenticate="true">1</h><body><DataTransfer><OrderData>${b64}</OrderData></DataTransfer><ReturnCode>000000</ReturnCode></body></r>`;
		const doc = parseDocument(xml, 'x');
		const orderData = allElements(doc.documentElement).find((e) => e.localName === 'OrderData')!;
		expect(orderData.textContent).toBe(b64);
		expect(serialize(doc.documentElement)).toBe(xml.replace('<?xml version="1.0"?>', ''));
		// Two OrderData elements, or one with markup in it: parsed as they are.
		const two = parseDocument(`<r><OrderData>${b64}</OrderData><OrderData>QUJD</OrderData></r>`, 'x');
		expect(allElements(two.documentElement).map((e) => e.textContent)).toEqual([`${b64}QUJD`, b64, 'QUJD']);
		expect(() => parseDocument(`<r><OrderData>${b64}<x/></OrderData>`, 'x')).toThrow(/is not well-formed XML/);
	});

	test('an upload transfer request carries the segment after its signature, unchanged', () => {
		const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
		const xml = uploadTransferRequest('HOST1', 'A'.repeat(32), 2, true, b64, key);
		expect(xml).toContain(`<OrderData>${b64}</OrderData>`);
		expect(() => uploadTransferRequest('HOST1', 'A'.repeat(32), 2, true, `${b64}<x/>`, key)).toThrow('The OrderData of a segment must be base64');
	});

	test('a segment with a character that is not base64 is named as damaged, also among whole groups', () => {
		const { key, segments } = encryptedSegments(randomBytes(50_000), 30_000);
		const decoder = new DownloadDecoder(key);
		expect(() => decoder.segment(`${segments[0].slice(0, 100)}%%%%${segments[0].slice(104)}`)).toThrow('Segment 1 of the order data is damaged: its OrderData is not base64');
		const plain = new DownloadDecoder(key);
		const lined = segments.map((s) => s.replace(/(.{76})/g, '$1\r\n'));
		const parts = lined.map((s) => plain.segment(s));
		parts.push(plain.end());
		expect(Buffer.concat(parts).length).toBeGreaterThan(0);
	});
});

describe('segments as bytes', () => {
	test('a segment given as bytes, with or without line breaks, decodes in parts to the same data as its text', () => {
		const data = randomBytes(400_000);
		const { key, segments } = encryptedSegments(data, 300_000);
		const asText = new DownloadDecoder(key);
		const fromText = [...segments.map((segment) => asText.segment(segment)), asText.end()];
		for (const form of [(s: string) => s, (s: string) => s.replace(/(.{76})/g, '$1\r\n')]) {
			const asBytes = new DownloadDecoder(key);
			const parts = segments.map((segment) => asBytes.segmentParts(Buffer.from(form(segment), 'latin1')));
			// A segment of 400,000 base64 characters comes out in several parts, none of them whole.
			expect(parts[0].length).toBeGreaterThan(1);
			const decoded = Buffer.concat([...parts.flat(), asBytes.end()]);
			expect(decoded.equals(Buffer.concat(fromText))).toBe(true);
		}
		const urlSafe = segments[0].replace(/\+/g, '-');
		expect(urlSafe).not.toBe(segments[0]);
		expect(() => new DownloadDecoder(key).segmentParts(Buffer.from(urlSafe, 'latin1'))).toThrow('Segment 1 of the order data is damaged: its OrderData is not base64');
	});

	test('decoded parts go to the inflater joined into chunks of about 256 KiB, in order', () => {
		const parts = Array.from({ length: 17 }, () => randomBytes(49_152));
		const chunks = [...joinParts(parts)];
		expect(chunks.map((c) => c.length)).toEqual([294_912, 294_912, 245_760]);
		expect(Buffer.concat(chunks).equals(Buffer.concat(parts))).toBe(true);
		expect([...joinParts([])]).toEqual([]);
	});

	test('an answer as bytes keeps its large OrderData out of the DOM, as the bytes that came', () => {
		const b64 = randomBytes(200_000).toString('base64');
		const xml = Buffer.from(`<?xml version="1.0"?><r xmlns="urn:x"><h authenticate="true">é</h><body><DataTransfer><OrderData>${b64}</OrderData></DataTransfer></body></r>`, 'utf8');
		const parsed = parseKeepingOrderDataOut(xml, 'x');
		expect(Buffer.isBuffer(parsed.orderData)).toBe(true);
		expect((parsed.orderData as Buffer).toString('latin1')).toBe(b64);
		expect(parsed.orderDataElement?.firstChild).toBeNull();
		expect(allElements(parsed.doc.documentElement).find((e) => e.localName === 'h')?.textContent).toBe('é');
		// The same document as text, parsed whole, has the same OrderData.
		expect(allElements(parseDocument(xml, 'x').documentElement).find((e) => e.localName === 'OrderData')?.textContent).toBe(b64);
	});

	test('an upload transfer request built as bytes is the request built as text, in a buffer kept for the next one', () => {
		const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
		const ciphertext = randomBytes(200_000);
		const envelope = uploadTransferEnvelope('HOST1', 'A'.repeat(32), 2, false, key);
		const first = segmentRequestBytes(envelope.head, ciphertext, envelope.tail);
		expect(first.request.toString('utf8')).toBe(envelope.head + ciphertext.toString('base64') + envelope.tail);
		// The signature (RSA PKCS#1 v1.5, no nonce in a transfer) is the same as the text's.
		expect(first.request.toString('utf8')).toBe(uploadTransferRequest('HOST1', 'A'.repeat(32), 2, false, ciphertext.toString('base64'), key));
		const shorter = randomBytes(1000);
		const second = segmentRequestBytes(envelope.head, shorter, envelope.tail, first.buffer);
		expect(second.buffer).toBe(first.buffer);
		expect(second.request.toString('utf8')).toBe(envelope.head + shorter.toString('base64') + envelope.tail);
	});
});

describe('the message of a large payment file, from its first bytes', () => {
	test('the root element\'s namespace, with or without a prefix, after a declaration and comments', () => {
		const head = (xml: string) => isoMessageOfHead(Buffer.from(xml));
		expect(head('\uFEFF<?xml version="1.0"?><!-- batch --><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09" xmlns:xsi="x"><CstmrCdtTrfInitn>')).toMatchObject({ id: 'pain.001.001.09', family: 'pain.001', version: '09' });
		expect(head("<p:Document xmlns:p='urn:iso:std:iso:20022:tech:xsd:pain.008.001.02'><p:CstmrDrctDbtInitn>")).toMatchObject({ id: 'pain.008.001.02' });
		expect(head('<Document xmlns:p="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><x>')).toBeUndefined();
		expect(head('Amount;IBAN\n')).toBeUndefined();
	});
});
