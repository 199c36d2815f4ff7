/**
 * The streaming path of the bxd layer, without HTTP: requests whose file is streamed in (signed
 * with digests computed in a streaming pass, checked by xmlsec1, an implementation independent
 * of ours), answers read as they arrive (xmlsec1 signs them as a bank would; our verifier checks
 * them from hashes taken while the Content passed), and the stream pieces they are made of,
 * against their whole-text counterparts, for every way the chunks can be cut.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync, deflateRawSync } from 'node:zlib';

import {
	Base64DecodeStream,
	bankTrust,
	BxdFaultError,
	BxdFormatError,
	BxdResponseCodeError,
	CanonicalText,
	canonicalPayloadText,
	decodePayload,
	ElementCut,
	openElements,
	prepareRequest,
	prepareStreamingRequest,
	readResponse,
	readResponseStream,
	signingMaterial,
	SOAP_ENV_NS,
	type AnswerReading,
	type FileServiceSettings,
	type SigningMaterial,
	type StreamedAnswer,
} from '../../nodes/shared/bxd';
import { testPki } from '../fixtures/bxd/keys';
import { collect, cut, through } from '../helpers/chunks';
import { between, lines as inLines, without } from '../helpers/text';
import { responseSignatureTemplate, useXmlsec } from '../helpers/xmlsec';

const xmlsec = useXmlsec('bxd-streams-');
const { verifyApplicationRequest, verifyWsSecurity } = xmlsec;

let material: SigningMaterial;

beforeAll(() => {
	material = signingMaterial(testPki().signer.certPem, testPki().signer.keyPem);
});

const CHUNKINGS = [[1], [3], [4], [5], [7, 1, 2], [4096], [65537], [1 << 20]];

const SETTINGS: FileServiceSettings = {
	senderId: '87654321',
	receiverId: 'FIXTFIHH',
	customerId: '87654321',
	softwareId: 'tests',
	environment: 'TEST',
	language: 'EN',
	userAgent: 'tests',
};

describe('Stream pieces against their whole-text counterparts', () => {
	const data = randomBytes(100_003);

	test.each(CHUNKINGS)('payload base64 decoding in chunks of %p skips line-break references as decodePayload does', async (...sizes) => {
		const lines = inLines(data.toString('base64'), 76);
		for (const variant of [lines.join('&#13;\n'), ` ${lines.join('&#xD;&#xA;')}\n`]) {
			const decoded = await through(variant, new Base64DecodeStream('The test data'), sizes);
			expect(decoded.equals(decodePayload(variant, 'The test data'))).toBe(true);
			expect(decoded.equals(data)).toBe(true);
		}
	});

	test.each([
		['an unknown character reference', 'QUJD&#65;REVG'],
		['a character reference cut off at the end', 'QUJDREVG&#1'],
	])('payload base64 decoding refuses %s, however it is cut, naming what was read', async (_label, text) => {
		const message = /^The test data is not valid base64: unexpected character/;
		for (const sizes of [[1], [3], [1 << 20]]) {
			await expect(through(text, new Base64DecodeStream('The test data'), sizes)).rejects.toThrow(message);
		}
		expect(() => decodePayload(text, 'The test data')).toThrow(message);
	});

	test.each(CHUNKINGS)('canonical payload text in chunks of %p equals the whole-text form', (...sizes) => {
		const raw = Buffer.from(`${inLines(data.toString('base64'), 60).join('&#13;\r\n')}&amp;&lt;\r`, 'latin1');
		const canonical = new CanonicalText();
		const parts = [...cut(raw, sizes)].map((chunk) => canonical.write(chunk));
		parts.push(canonical.end());
		expect(Buffer.concat(parts).toString('latin1')).toBe(canonicalPayloadText(raw).toString('latin1'));
	});

	test('open elements: comments, CDATA, declarations, self-closing tags and quoted ">" are skipped', () => {
		const xml =
			'<?xml version="1.0"?><!-- <x> --><a:Root xmlns:a="urn:a" note="1 > 0"><a:Done/><a:Closed>t</a:Closed><![CDATA[<y>]]><a:Open attr=\'<z>\'>';
		expect(openElements(xml)).toEqual(['a:Root', 'a:Open']);
	});

	test('the cutter finds a tag split over chunks, skips one the caller refuses, and keeps head and tail', async () => {
		const xml = '<r:Root xmlns:r="urn:r"><r:List><r:Content>not this</r:Content></r:List><r:Content>QUJD' + 'REVG'.repeat(1000) + '</r:Content><r:Sig/></r:Root>';
		for (const sizes of [[1], [2, 3], [17], [1 << 20]]) {
			const cutter = new ElementCut({
				localName: 'Content',
				what: 'The test document',
				maxHead: 1 << 20,
				maxTail: 1 << 20,
				accept: (before) => openElements(before).length === 1,
			});
			const content = await through(xml, cutter, sizes);
			expect(content.toString('latin1')).toBe(`QUJD${'REVG'.repeat(1000)}`);
			expect(cutter.found?.head.toString('latin1')).toBe('<r:Root xmlns:r="urn:r"><r:List><r:Content>not this</r:Content></r:List><r:Content>');
			expect(cutter.tail?.toString('latin1')).toBe('</r:Content><r:Sig/></r:Root>');
		}
	});

	test('the cutter reports a document cut off inside the element', async () => {
		const cutter = new ElementCut({ localName: 'Content', what: 'The test document', maxHead: 1024, maxTail: 1024 });
		await expect(through('<Root><Content>QUJD', cutter, [3])).rejects.toThrow(/cut off: the Content element is not closed/);
	});
});

describe('A streamed request: signed in a streaming pass, checked by xmlsec1', () => {
	async function streamedRequest(content: Buffer, settings: FileServiceSettings, opens: Array<() => Readable> = [], spoolDir?: string) {
		let opened = 0;
		const source = {
			length: content.length,
			open: async () => opens[opened++]?.() ?? Readable.from(cut(content, [65537, 1000, 3]), { objectMode: false }),
		};
		const request = await prepareStreamingRequest(
			settings,
			'uploadFile',
			{ fileType: 'pain.001.001.03', userFilename: 'Åbo & "Trä" <1>.xml', compression: false },
			source,
			new Date('2030-01-02T03:04:05Z'),
			{ spoolDir },
		);
		return { request, body: await collect(request.body()), opened: () => opened };
	}

	const innerOf = (xml: string) => Buffer.from(between(xml, '<mod:ApplicationRequest>', '<'), 'base64');
	const content = Buffer.concat([Buffer.from('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03">'), randomBytes(3_000_001)]);

	test.each(['inclusive', 'exclusive'] as const)(
		'%s C14N: the WS-Security signature and the ApplicationRequest signature both verify; the file comes out whole',
		async (canonicalization) => {
			const { request, body, opened } = await streamedRequest(content, { ...SETTINGS, signing: material, canonicalization });
			expect(opened()).toBe(2); // one pass for the digests, one to send
			expect(body.length).toBe(request.size);
			const xml = body.toString('utf8');
			expect(xml).toContain('<wsu:Created>2030-01-02T03:04:05Z</wsu:Created><wsu:Expires>2030-01-02T03:09:05Z</wsu:Expires>');
			const envelope = verifyWsSecurity(xml);
			expect(envelope.output).toMatch(/SignedInfo References \(ok\/all\): 2\/2/);
			expect(envelope.ok).toBe(true);
			const inner = innerOf(xml);
			expect(inner.toString('utf8')).toContain(`<Transform Algorithm="${canonicalization === 'exclusive' ? 'http://www.w3.org/2001/10/xml-exc-c14n#' : 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315'}"/>`);
			expect(verifyApplicationRequest(inner).ok).toBe(true);
			const carried = Buffer.from(between(inner.toString('latin1'), '<Content>', '</Content>'), 'base64');
			expect(carried.equals(content)).toBe(true);
		},
	);

	describe('with a spool folder: the file read and encoded once, the message sent from a temporary file', () => {
		let spoolDir: string;
		beforeEach(() => {
			spoolDir = mkdtempSync(join(tmpdir(), 'bxd-spool-test-'));
		});
		afterEach(() => rmSync(spoolDir, { recursive: true, force: true }));

		test.each(['inclusive', 'exclusive'] as const)('%s C14N: one read of the file, both signatures verify with xmlsec1, the file comes out whole, dispose removes the spool', async (canonicalization) => {
			const { request, body, opened } = await streamedRequest(content, { ...SETTINGS, signing: material, canonicalization }, [], spoolDir);
			expect(opened()).toBe(1);
			expect(readdirSync(spoolDir)).toHaveLength(1);
			expect(body.length).toBe(request.size);
			// Sent again from the same spool: the same bytes.
			expect((await collect(request.body())).equals(body)).toBe(true);
			const xml = body.toString('utf8');
			const envelope = verifyWsSecurity(xml);
			expect(envelope.output).toMatch(/SignedInfo References \(ok\/all\): 2\/2/);
			expect(envelope.ok).toBe(true);
			const inner = innerOf(xml);
			expect(verifyApplicationRequest(inner).ok).toBe(true);
			expect(Buffer.from(between(inner.toString('latin1'), '<Content>', '</Content>'), 'base64').equals(content)).toBe(true);
			await request.dispose();
			expect(readdirSync(spoolDir)).toEqual([]);
			await request.dispose();
		});

		test('a file that fails while it is read leaves no spool file behind, and the error is the read\'s', async () => {
			const failing = () =>
				Readable.from(
					(async function* () {
						yield content.subarray(0, 2_000_000);
						throw new Error('disk read failed');
					})(),
					{ objectMode: false },
				);
			await expect(streamedRequest(content, { ...SETTINGS, signing: material }, [failing], spoolDir)).rejects.toThrow('disk read failed');
			expect(readdirSync(spoolDir)).toEqual([]);
		});

		test('a file shorter than announced fails the digest pass and leaves no spool file behind', async () => {
			const shorter = () => Readable.from(cut(content.subarray(0, content.length - 10), [65536]), { objectMode: false });
			await expect(streamedRequest(content, { ...SETTINGS, signing: material }, [shorter], spoolDir)).rejects.toThrow(/changed while it was being sent/);
			expect(readdirSync(spoolDir)).toEqual([]);
		});

		test('a spool file cut after it was written breaks the message instead of sending another one', async () => {
			const { request } = await streamedRequest(content, { ...SETTINGS, signing: material }, [], spoolDir);
			const [name] = readdirSync(spoolDir);
			const { truncateSync } = await import('node:fs');
			truncateSync(join(spoolDir, name), 1000);
			await expect(collect(request.body())).rejects.toThrow(/changed before it was sent/);
			await request.dispose();
			expect(readdirSync(spoolDir)).toEqual([]);
		});

		test('unsigned, nothing is spooled', async () => {
			const { opened } = await streamedRequest(content, SETTINGS, [], spoolDir);
			expect(opened()).toBe(1);
			expect(readdirSync(spoolDir)).toEqual([]);
		});
	});

	test('xmlsec1 rejects both signatures after one character of the streamed file changed', async () => {
		const { body } = await streamedRequest(content, { ...SETTINGS, signing: material });
		const xml = body.toString('utf8');
		const inner = innerOf(xml).toString('latin1');
		const at = inner.indexOf('<Content>') + 5000;
		const alteredInner = inner.slice(0, at) + (inner[at] === 'A' ? 'B' : 'A') + inner.slice(at + 1);
		expect(verifyApplicationRequest(Buffer.from(alteredInner, 'latin1')).ok).toBe(false);
		const outer = between(xml, '<mod:ApplicationRequest>', '<');
		const alteredOuter = xml.replace(outer, Buffer.from(alteredInner, 'latin1').toString('base64'));
		expect(verifyWsSecurity(alteredOuter).ok).toBe(false);
	});

	test('unsigned, it carries the same document as the in-memory builder, in one pass', async () => {
		const { request, body, opened } = await streamedRequest(content, SETTINGS);
		expect(opened()).toBe(1);
		expect(request.signed).toBe(false);
		const buffered = prepareRequest(SETTINGS, 'uploadFile', { fileType: 'pain.001.001.03', userFilename: 'Åbo & "Trä" <1>.xml', compression: false, content }, new Date('2030-01-02T03:04:05Z'));
		const strip = (xml: string) => xml.replace(`<mod:RequestId>${between(xml, '<mod:RequestId>', '<')}<`, '<mod:RequestId><');
		const streamedXml = body.toString('utf8');
		const bufferedXml = buffered.envelope.body.toString('utf8');
		expect(innerOf(streamedXml).equals(innerOf(bufferedXml))).toBe(true);
		expect(strip(streamedXml)).toBe(strip(bufferedXml));
		expect(body.length).toBe(buffered.size);
	});

	test('a file that changes between the digest pass and sending breaks the message instead of sending another file', async () => {
		const shorter = content.subarray(0, content.length - 10);
		const { request } = await streamedRequest(content, { ...SETTINGS, signing: material });
		expect(request.signed).toBe(true);
		let opened = 0;
		const source = {
			length: content.length,
			open: async () => Readable.from(cut(opened++ === 0 ? content : shorter, [65536]), { objectMode: false }),
		};
		const changing = await prepareStreamingRequest({ ...SETTINGS, signing: material }, 'uploadFile', { fileType: 'XL' }, source);
		await expect(collect(changing.body())).rejects.toThrow(/changed while it was being sent/);
	});
});

describe('An answer read as it arrives', () => {
	const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';

	/** An ApplicationResponse signed by xmlsec1 as a bank signs it. */
	function bankSigned(contentText: string, options: { compressed?: 'GZIP' | 'DEFLATE'; c14n?: string } = {}): Buffer {
		const c14n = options.c14n ?? C14N;
		const template =
			'<c2b:ApplicationResponse xmlns:c2b="http://bxd.fi/xmldata/"><c2b:CustomerId>87654321</c2b:CustomerId><c2b:Timestamp>2024-03-05T08:15:30+02:00</c2b:Timestamp>' +
			'<c2b:ResponseCode>00</c2b:ResponseCode><c2b:ResponseText>OK.</c2b:ResponseText>' +
			(options.compressed ? `<c2b:Compressed>true</c2b:Compressed><c2b:CompressionMethod>${options.compressed}</c2b:CompressionMethod>` : '<c2b:Compressed>false</c2b:Compressed>') +
			'<c2b:FileDescriptors><c2b:FileDescriptor><c2b:FileReference>F1</c2b:FileReference><c2b:UserFilename>statement.xml</c2b:UserFilename></c2b:FileDescriptor></c2b:FileDescriptors>' +
			`<c2b:Content>${contentText}</c2b:Content>` +
			responseSignatureTemplate(c14n) +
			'</c2b:ApplicationResponse>';
		const run = xmlsec.signAsBank(template);
		expect(run.ok).toBe(true);
		return run.signed;
	}

	function envelope(applicationResponse: Buffer | string, code = '00', lines = false): Buffer {
		let text = Buffer.isBuffer(applicationResponse) ? applicationResponse.toString('base64') : applicationResponse;
		if (lines) text = inLines(text, 76).join('\r\n');
		return Buffer.from(
			`<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}" xmlns:cor="http://bxd.fi/CorporateFileService" xmlns:mod="http://model.bxd.fi">` +
				'<soapenv:Body><cor:downloadFileout><mod:ResponseHeader><mod:SenderId>87654321</mod:SenderId><mod:RequestId>1</mod:RequestId><mod:Timestamp>2024-03-05T08:15:30+02:00</mod:Timestamp>' +
				`<mod:ResponseCode>${code}</mod:ResponseCode><mod:ResponseText>OK.</mod:ResponseText><mod:ReceiverId>FIXTFIHH</mod:ReceiverId></mod:ResponseHeader>` +
				`<mod:ApplicationResponse>${text}</mod:ApplicationResponse></cor:downloadFileout></soapenv:Body></soapenv:Envelope>`,
			'utf8',
		);
	}

	const trusted: FileServiceSettings = { ...SETTINGS, trust: bankTrust(testPki().ca.certPem) };
	const file1 = Buffer.concat([Buffer.from('<?xml version="1.0"?><Document>'), randomBytes(1_500_000), Buffer.from('</Document>')]);

	async function read(body: Buffer, settings: FileServiceSettings = trusted, sizes = [16384]): Promise<AnswerReading> {
		return await readResponseStream(settings, 'downloadFile', Readable.from(cut(body, sizes), { objectMode: false }), { unpack: true });
	}

	async function streamedFile(body: Buffer, settings: FileServiceSettings = trusted, sizes = [16384]): Promise<{ answer: StreamedAnswer; content: Buffer }> {
		const reading = await read(body, settings, sizes);
		if (!reading.streamed) throw new Error('expected a streamed answer');
		const content = await collect(reading.answer.content);
		return { answer: reading.answer, content };
	}

	const lines = inLines(file1.toString('base64'), 76);

	test.each([
		['inclusive C14N, one line, chunks of 16 KiB', lines.join(''), C14N, [16384], false],
		['inclusive C14N, lines with &#13;, odd chunks', lines.join('&#13;\n'), C14N, [1001, 7, 65536], false],
		['exclusive C14N, lines, the outer base64 in CRLF lines too', lines.join('\n'), 'http://www.w3.org/2001/10/xml-exc-c14n#', [4093], true],
	])('%s: the file comes out whole, the signature is verified from the hashes taken in passing', async (_label, contentText, c14n, sizes, outerLines) => {
		const document = bankSigned(contentText, { c14n });
		const { answer, content } = await streamedFile(envelope(document, '00', outerLines), trusted, sizes);
		expect(answer.code).toBe('00');
		expect(answer.applicationResponse.fileDescriptors[0]).toMatchObject({ fileReference: 'F1', userFilename: 'statement.xml' });
		expect(content.equals(file1)).toBe(true);
		expect(answer.contentBytes()).toBe(file1.length);
		const done = await answer.done;
		expect(done.signature).toBe('valid');
		// The same document read whole agrees.
		expect(readResponse(trusted, 'downloadFile', envelope(document)).applicationResponse?.signature).toBe('valid');
	});

	test.each(['GZIP', 'DEFLATE'] as const)('%s-compressed content is unpacked as it streams', async (method) => {
		const packed = method === 'GZIP' ? gzipSync(file1) : deflateRawSync(file1);
		const { answer, content } = await streamedFile(envelope(bankSigned(packed.toString('base64'), { compressed: method })));
		expect(answer.unpacked).toBe(true);
		expect(content.equals(file1)).toBe(true);
		expect((await answer.done).compressed).toBe(true);
	});

	test('one changed character of the Content fails the content stream: no file passes unchecked', async () => {
		const document = bankSigned(lines.join('')).toString('latin1');
		const at = document.indexOf('<c2b:Content>') + 100_000;
		const altered = Buffer.from(document.slice(0, at) + (document[at] === 'Q' ? 'R' : 'Q') + document.slice(at + 1), 'latin1');
		const reading = await read(envelope(altered));
		if (!reading.streamed) throw new Error('expected a streamed answer');
		await expect(collect(reading.answer.content)).rejects.toThrow(/does not match its digest/);
		await expect(reading.answer.done).rejects.toThrow(/does not match its digest/);
	});

	test('an unsigned answer fails when the bank certificate is known, and passes without it', async () => {
		const unsigned = Buffer.from(without(bankSigned(lines.join('')).toString('latin1'), '<Signature', '</Signature>'), 'latin1');
		const reading = await read(envelope(unsigned));
		if (!reading.streamed) throw new Error('expected a streamed answer');
		await expect(collect(reading.answer.content)).rejects.toThrow(/signature is missing/);
		const { content, answer } = await streamedFile(envelope(unsigned), SETTINGS);
		expect(content.equals(file1)).toBe(true);
		expect((await answer.done).signature).toBe('notChecked');
	});

	test('an answer cut off in the middle of the file is an error, never a shorter file', async () => {
		const body = envelope(bankSigned(lines.join('')));
		const reading = await read(body.subarray(0, Math.floor(body.length / 2)));
		if (!reading.streamed) throw new Error('expected a streamed answer');
		await expect(collect(reading.answer.content)).rejects.toThrow(BxdFormatError);
	});

	test('a code other than 00/24 is reported before any content is passed on', async () => {
		await expect(read(envelope(bankSigned(lines.join('')), '26'))).rejects.toThrow(BxdResponseCodeError);
	});

	test('answers without Content (no data, faults) are read whole and judged as usual', async () => {
		const noData = Buffer.from(
			'<c2b:ApplicationResponse xmlns:c2b="http://bxd.fi/xmldata/"><c2b:CustomerId>1</c2b:CustomerId><c2b:ResponseCode>24</c2b:ResponseCode><c2b:ResponseText>No data.</c2b:ResponseText></c2b:ApplicationResponse>',
		);
		const reading = await read(envelope(noData, '24'), SETTINGS, [5]);
		expect(reading.streamed).toBe(false);
		if (!reading.streamed) expect(reading.result).toMatchObject({ code: '24', noData: true });
		const fault = Buffer.from(
			`<soapenv:Envelope xmlns:soapenv="${SOAP_ENV_NS}"><soapenv:Body><soapenv:Fault><faultcode>soapenv:Server</faultcode><faultstring>Backend down</faultstring>` +
				'<detail><FileServiceFaultElement xmlns="http://bxd.fi/CorporateFileService"><category>technical</category><code>26</code></FileServiceFaultElement></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>',
		);
		await expect(read(fault, SETTINGS, [7])).rejects.toThrow(BxdFaultError);
		await expect(read(Buffer.from('<!DOCTYPE x [<!ENTITY e "e">]><x/>'), SETTINGS)).rejects.toThrow(/DOCTYPE/);
	});
});
