/**
 * Reading bxd answers: ApplicationResponse documents shaped like the ones Nordea, OP/Samlink and
 * Danske send (test/fixtures/bxd), SOAP envelopes around them, response codes, compressed
 * content, broken answers, and a payload too big for an XML parser.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';

import * as xml from '../../nodes/shared/bxd/xml';
import { testPki } from '../fixtures/bxd/keys';
import {
	BxdFaultError,
	BxdFormatError,
	BxdResponseCodeError,
	BxdSignatureError,
	bankTrust,
	buildApplicationRequest,
	decompress,
	normalizeResponseCode,
	parseResponseEnvelope,
	parseSoapFault,
	readApplicationResponse,
	readResponse,
	type FileServiceSettings,
} from '../../nodes/shared/bxd';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'bxd', name));
const statement = fixture('statement.xml');

const settings: FileServiceSettings = {
	senderId: '87654321',
	receiverId: 'NDEAFIHH',
	customerId: '87654321',
	softwareId: 'tests',
	environment: 'TEST',
};

/** Wraps an ApplicationResponse in a SOAP answer the way banks do (base64, optionally in lines). */
function envelope(operation: string, applicationResponse: Buffer | string, code = '00', text = 'OK.', lineLength = 0): string {
	let b64 = Buffer.from(applicationResponse).toString('base64');
	if (lineLength) b64 = b64.match(new RegExp(`.{1,${lineLength}}`, 'g'))!.join('\n');
	return (
		'<?xml version="1.0" encoding="UTF-8"?>' +
		'<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:cor="http://bxd.fi/CorporateFileService" xmlns:mod="http://model.bxd.fi">' +
		`<soapenv:Body><cor:${operation}out><mod:ResponseHeader><mod:SenderId>87654321</mod:SenderId><mod:RequestId>r1</mod:RequestId>` +
		`<mod:Timestamp>2024-03-05T08:00:00Z</mod:Timestamp><mod:ResponseCode>${code}</mod:ResponseCode><mod:ResponseText>${text}</mod:ResponseText>` +
		`<mod:ReceiverId>NDEAFIHH</mod:ReceiverId></mod:ResponseHeader><mod:ApplicationResponse>${b64}</mod:ApplicationResponse></cor:${operation}out></soapenv:Body></soapenv:Envelope>`
	);
}

describe('ApplicationResponse documents', () => {
	test('Nordea-like file list: prefixed names, typed descriptors, ISO timestamps in UTC', () => {
		const response = readApplicationResponse(fixture('nordea-like-download-file-list.xml'));
		expect(response).toMatchObject({
			customerId: '87654321',
			timestamp: '2024-03-05T06:15:30.000Z',
			responseCode: '00',
			responseText: 'OK.',
			encrypted: false,
			compressed: false,
			signature: 'notChecked',
		});
		expect(response.content).toBeUndefined();
		expect(response.fileDescriptors).toEqual([
			{
				fileReference: '87654321B12024030419503000000010',
				targetId: '87654321B1',
				serviceId: 'NDEAFIHHXXX-FI1-EUR-19503000000010',
				fileType: 'TITO',
				fileTimestamp: '2024-03-04T00:00:00.000Z',
				status: 'NEW',
			},
			{
				fileReference: '87654321B12024030419503000000051',
				targetId: '87654321B1',
				serviceId: 'NDEAFIHHXXX-FI1-EUR-19503000000051',
				fileType: 'TITO',
				fileTimestamp: '2024-03-01T21:30:00.000Z',
				status: 'DLD',
				amountTotal: -1520.75,
				transactionCount: 12,
				lastDownloadTimestamp: '2024-03-02T05:01:02.345Z',
			},
			{
				fileReference: '87654321B12024030429501800000014',
				targetId: '87654321B1',
				fileType: 'KTL',
				fileTimestamp: '2024-03-04T00:00:00.000Z',
				status: 'NEW',
				deletable: true,
			},
		]);
	});

	test('OP-like file list: default namespace, XML declaration, xsi:type, numeric booleans, feedback attributes', () => {
		const response = readApplicationResponse(fixture('op-like-download-file-list.xml'));
		expect(response).toMatchObject({ responseCode: '00', executionSerial: '20240305-0007', fileType: 'camt.053.001.02' });
		const [feedback, statementFile] = response.fileDescriptors;
		expect(feedback).toEqual({
			fileReference: '1680440835',
			targetId: 'NONE',
			userFilename: 'pain002 feedback',
			parentFileReference: '1680440830',
			fileType: 'pain.002.001.03',
			fileTimestamp: '2024-03-04T17:43:04.059Z',
			status: 'NEW',
			forwardedTimestamp: '2024-03-04T17:43:04.059Z',
			deletable: false,
		});
		expect(statementFile).toMatchObject({
			amountTotal: 1175.25,
			transactionCount: 2,
			confirmable: false,
			deletable: true,
			subStatus: 'OK',
			subStatusText: 'Processed',
			feedbackFileAttributes: {
				feedbackFileReference: '1680440830',
				feedbackFileType: 'pain.001.001.03',
				feedbackFileStatus: 'ACCP',
				feedbackFileDate: '2024-03-04',
			},
		});
		expect(typeof statementFile.amountTotal).toBe('number');
		expect(Number.isInteger(statementFile.transactionCount)).toBe(true);
	});

	test('Nordea-like user info: one entry per UserFileType, empty elements left out, services as a list', () => {
		const { userFileTypes } = readApplicationResponse(fixture('nordea-like-get-user-info.xml'));
		expect(userFileTypes).toEqual([
			{
				targetId: '87654321B1',
				fileType: 'TITO',
				fileTypeName: 'Account statement (TITO) FI',
				country: 'FI',
				direction: 'Download',
				fileTypeServices: [
					{ serviceId: 'NDEAFIHHXXX-FI1-EUR-19503000000010', serviceIdType: 'A' },
					{ serviceId: 'NDEAFIHHXXX-FI1-EUR-19503000000051', serviceIdOwnerName: 'Fixture Trading Oy', serviceIdType: 'A', serviceIdText: 'Main account' },
				],
			},
			{ targetId: '87654321B1', fileType: 'NDCORPAYS', fileTypeName: 'Corporate payments (pain.001)', direction: 'Upload', fileTypeServices: [] },
			{
				targetId: '87654321B1',
				fileType: 'camt.053.001.02',
				fileTypeName: 'Bank to customer statement',
				country: 'SE',
				direction: 'Download',
				fileTypeServices: [{ serviceId: 'NDEASESSXXX-SE1-SEK-10010011223SEK', serviceIdType: 'A' }],
			},
		]);
	});

	test('content in base64 lines with CRLF decodes to the file byte for byte', () => {
		const response = readApplicationResponse(fixture('op-like-download-file.xml'));
		expect(fixture('op-like-download-file.xml').includes('\r\n')).toBe(true);
		expect(response.compressed).toBe(false);
		expect(response.content?.equals(statement)).toBe(true);
		expect(response.xmlWithoutContent).not.toMatch(/PD94bWwg/);
		expect(response.fileDescriptors[0].fileReference).toBe('1680440901');
	});

	test('GZIP content is unpacked, DEFLATE content (raw or zlib) too', () => {
		const gz = readApplicationResponse(fixture('op-like-download-file-gzip.xml'));
		expect(gz).toMatchObject({ compressed: true, compressionMethod: 'GZIP' });
		expect(decompress(gz.content!, gz.compressionMethod).equals(statement)).toBe(true);
		const deflated = readApplicationResponse(fixture('danske-like-download-file-deflate.xml'));
		expect(deflated).toMatchObject({ compressed: true, compressionMethod: 'DEFLATE', fileType: 'XT' });
		expect(decompress(deflated.content!, 'DEFLATE').equals(statement)).toBe(true);
		expect(decompress(deflateSync(statement), 'DEFLATE').equals(statement)).toBe(true);
	});

	test('a damaged or mislabelled archive is an error, never a shorter file', () => {
		const packed = gzipSync(statement);
		expect(() => decompress(packed.subarray(0, packed.length - 20), 'GZIP')).toThrow(/damaged or cut off/);
		expect(() => decompress(statement, 'GZIP')).toThrow(/not a gzip archive/);
		expect(() => decompress(packed, 'LZMA')).toThrow(/cannot read: LZMA/);
	});

	test('a document declared ISO-8859-1 is read in that encoding', () => {
		const latin1 = Buffer.from(
			'<?xml version="1.0" encoding="ISO-8859-1"?><ApplicationResponse xmlns="http://bxd.fi/xmldata/"><CustomerId>1</CustomerId><ResponseCode>00</ResponseCode><ResponseText>Käsitelty</ResponseText><Content>QUJD</Content></ApplicationResponse>',
			'latin1',
		);
		const response = readApplicationResponse(latin1);
		expect(response).toMatchObject({ responseText: 'Käsitelty', encoding: 'latin1' });
		expect(response.content?.toString()).toBe('ABC');
	});

	test('Danske-like upload result: pretty-printed, one-digit code padded to two', () => {
		const response = readApplicationResponse(fixture('danske-like-upload-file.xml'));
		expect(response).toMatchObject({ responseCode: '00', amountTotal: 30.75, transactionCount: 1 });
		expect(response.fileDescriptors).toEqual([
			expect.objectContaining({ fileReference: 'DB2024030500042', status: 'WFP', userFilename: 'payments march.xml', fileType: 'pain.001.001.03' }),
		]);
		expect(readApplicationResponse(fixture('danske-like-one-digit-error.xml')).responseCode).toBe('05');
		expect(normalizeResponseCode('0')).toBe('00');
		expect(normalizeResponseCode(' 24 ')).toBe('24');
		expect(normalizeResponseCode('')).toBeUndefined();
	});

	test('a DOCTYPE, malformed XML, broken base64 content and a foreign document are clear errors', () => {
		const good = fixture('nordea-like-no-data.xml').toString('utf8');
		const doctype = `<!DOCTYPE c2b:ApplicationResponse [<!ENTITY x SYSTEM "file:///etc/passwd">]>${good.replace('Content not found.', '&x;')}`;
		expect(() => readApplicationResponse(Buffer.from(doctype))).toThrow(/DOCTYPE declaration is refused/);
		expect(() => readApplicationResponse(Buffer.from(good.replace('</c2b:ResponseText>', '')))).toThrow(BxdFormatError);
		const cut = fixture('op-like-download-file.xml').toString('utf8').replace(/(<Content>[\s\S]{101})[\s\S]*?(<\/Content>)/, '$1$2');
		expect(() => readApplicationResponse(Buffer.from(cut))).toThrow(/not valid base64.*(multiple of 4|truncated)/);
		const junk = fixture('op-like-download-file.xml').toString('utf8').replace('<Content>', '<Content>%%');
		expect(() => readApplicationResponse(Buffer.from(junk))).toThrow(/unexpected character/);
		expect(() => readApplicationResponse(Buffer.from('<CertApplicationResponse xmlns="http://op.fi/mlp/xmldata/"/>'))).toThrow(
			/CertApplicationResponse instead of an ApplicationResponse/,
		);
	});

	test('with a bank certificate, an old SHA-1 signature is refused', () => {
		const trust = bankTrust(testPki().signer.certPem);
		expect(() => readApplicationResponse(fixture('nordea-like-download-file-list.xml'), { trust })).toThrow(/SHA-1/);
		expect(readApplicationResponse(fixture('nordea-like-no-data.xml'), { trust }).signature).toBe('unsigned');
	});
});

describe('SOAP answers', () => {
	test('a Nordea-like envelope with a WS-Security header and base64 in lines', () => {
		const parsed = parseResponseEnvelope(fixture('nordea-like-envelope-download-file-list.xml'), 'downloadFileList');
		expect(parsed.element).toBe('downloadFileListout');
		expect(parsed.header).toEqual({
			senderId: '87654321',
			requestId: '5b0e6c2d4f1a9e8d7c6b5a4f3e2d1c0b9a',
			timestamp: '2024-03-05T08:15:30+02:00',
			responseCode: '00',
			responseText: 'OK.',
			receiverId: '87654321B1',
		});
		expect(parsed.applicationResponse?.equals(fixture('nordea-like-download-file-list.xml'))).toBe(true);
	});

	test('the same answer given as a string (what the HTTP client returns for text/xml) reads the same', () => {
		const asText = parseResponseEnvelope(fixture('nordea-like-envelope-download-file-list.xml').toString('utf8'), 'downloadFileList');
		expect(asText.applicationResponse?.equals(fixture('nordea-like-download-file-list.xml'))).toBe(true);
	});

	test('an OP-like envelope with a Body wsu:Id, an empty ReceiverId and a compressed download', () => {
		const result = readResponse(settings, 'downloadFile', fixture('op-like-envelope-download-file-gzip.xml'));
		expect(result).toMatchObject({ code: '00', noData: false, header: { requestId: 'fixture-0001', timestamp: '2024-03-05T09:06:00.157' } });
		expect(result.header.receiverId).toBeUndefined();
		const response = result.applicationResponse!;
		expect(decompress(response.content!, response.compressionMethod).equals(statement)).toBe(true);
	});

	test('the operation in the answer must be the one asked', () => {
		expect(() => parseResponseEnvelope(fixture('nordea-like-envelope-download-file-list.xml'), 'downloadFile')).toThrow(
			/downloadFileListout instead of downloadFileout/,
		);
	});

	test('a SOAP fault gives its fault string, category and code', () => {
		const body = fixture('soap-fault.xml');
		const fault = parseSoapFault(body);
		expect(fault).toBeInstanceOf(BxdFaultError);
		expect(fault).toMatchObject({
			faultString: 'Authentication failed: certificate not valid for this SenderId',
			faultCode: 'soapenv:Client',
			category: 'authentication',
			code: '30',
		});
		expect(() => parseResponseEnvelope(body)).toThrow(BxdFaultError);
		expect(parseSoapFault('<html><body>Bad gateway</body></html>')).toBeUndefined();
		expect(parseSoapFault(undefined)).toBeUndefined();
	});

	test('codes: 00 and 24 succeed (24 with no data), others fail with code and text, one digit is padded', () => {
		expect(readResponse(settings, 'downloadFileList', envelope('downloadFileList', fixture('op-like-download-file-list.xml'), '00', 'OK'))).toMatchObject({
			code: '00',
			noData: false,
		});
		const none = readResponse(settings, 'downloadFileList', envelope('downloadFileList', fixture('nordea-like-no-data.xml'), '24', 'Content not found.'));
		expect(none).toMatchObject({ code: '24', noData: true });
		expect(none.applicationResponse?.fileDescriptors).toEqual([]);

		const failures: Array<[string, Buffer, string, string, string, string]> = [
			['header and document say 20', fixture('nordea-like-not-ok.xml'), '20', 'Content type not valid.', '20', 'ResponseHeader'],
			['header OK, document says 5', fixture('danske-like-one-digit-error.xml'), '00', 'OK', '05', 'ApplicationResponse'],
			['header says 6 (one digit)', fixture('nordea-like-no-data.xml'), '6', 'Operation is not accepted.', '06', 'ResponseHeader'],
		];
		for (const [label, document, headerCode, headerText, code, where] of failures) {
			let caught: unknown;
			try {
				readResponse(settings, 'downloadFileList', envelope('downloadFileList', document, headerCode, headerText));
			} catch (error) {
				caught = error;
			}
			expect({ label, caught }).toMatchObject({ label, caught: expect.any(BxdResponseCodeError) });
			expect(caught).toMatchObject({ code, where });
		}
		const oneDigitOk = readResponse(settings, 'uploadFile', envelope('uploadFile', fixture('danske-like-upload-file.xml'), '0', 'OK'));
		expect(oneDigitOk.code).toBe('00');
	});

	test('an error header wins even when the ApplicationResponse cannot be read', () => {
		const body = envelope('downloadFileList', '<c2b:ApplicationResponse xmlns:c2b="http://bxd.fi/xmldata/"><broken', '26', 'Technical error.');
		expect(() => readResponse(settings, 'downloadFileList', body)).toThrow(expect.objectContaining({ code: '26', text: 'Technical error.' }));
	});

	test('with a bank certificate an unsigned successful answer is refused, an unsigned error answer keeps its code', () => {
		const trusted = { ...settings, trust: bankTrust(testPki().signer.certPem) };
		expect(() => readResponse(trusted, 'downloadFileList', envelope('downloadFileList', fixture('op-like-download-file-list.xml')))).toThrow(BxdSignatureError);
		expect(() => readResponse(trusted, 'downloadFileList', envelope('downloadFileList', fixture('nordea-like-no-data.xml'), '24'))).toThrow(/signature is missing/);
		expect(() => readResponse(trusted, 'downloadFileList', envelope('downloadFileList', '', '24'))).toThrow(/without an ApplicationResponse/);
		expect(readResponse(settings, 'downloadFileList', envelope('downloadFileList', '', '24'))).toMatchObject({ code: '24', noData: true });
		expect(() => readResponse(trusted, 'downloadFileList', envelope('downloadFileList', fixture('nordea-like-not-ok.xml'), '00'))).toThrow(
			expect.objectContaining({ code: '20' }),
		);
	});

	test('broken answers are clear errors: empty, HTML, DOCTYPE, not SOAP, truncated, base64 cut short or with junk', () => {
		const good = envelope('downloadFileList', fixture('op-like-download-file-list.xml'));
		const cases: Array<[string, string, RegExp]> = [
			['empty', '   ', /empty/],
			['HTML page', '<html><head><title>502</title></head><body>Bad gateway</body></html>', /not a SOAP envelope/],
			['DOCTYPE', good.replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]>'), /DOCTYPE/],
			['not XML', '{"error":"maintenance"}', /not well-formed|not a SOAP envelope/],
			['cut in the middle of the base64', good.slice(0, Math.floor(good.length * 0.6)), /cut off|not closed/],
			['base64 cut short', good.replace(/(<mod:ApplicationResponse>[A-Za-z0-9+/]{401})[A-Za-z0-9+/=]*/, '$1'), /not valid base64/],
			['junk in the base64', good.replace('<mod:ApplicationResponse>', '<mod:ApplicationResponse>*'), /unexpected character/],
			['no ResponseHeader', good.replace(/<mod:ResponseHeader>[\s\S]*<\/mod:ResponseHeader>/, ''), /no ResponseHeader/],
		];
		for (const [label, body, pattern] of cases) {
			let caught: unknown;
			try {
				readResponse(settings, 'downloadFileList', body);
			} catch (error) {
				caught = error;
			}
			expect({ label, message: (caught as Error)?.message }).toEqual({ label, message: expect.stringMatching(pattern) });
			expect(caught).toBeInstanceOf(BxdFormatError);
		}
	});

	test('a 30 MB file never reaches the XML parser: only the small parts are parsed', () => {
		const content = Buffer.alloc(30 * 1000 * 1000, 0x41);
		const document = Buffer.concat([
			Buffer.from(fixture('op-like-download-file.xml').toString('utf8').replace(/<Content>[\s\S]*$/, '<Content>')),
			Buffer.from(content.toString('base64')),
			Buffer.from('</Content></ApplicationResponse>'),
		]);
		const body = envelope('downloadFile', document);
		const spy = jest.spyOn(xml, 'parseXml');
		try {
			const result = readResponse(settings, 'downloadFile', body);
			expect(result.applicationResponse?.content?.equals(content)).toBe(true);
			expect(spy).toHaveBeenCalled();
			const largest = Math.max(...spy.mock.calls.map(([input]) => input.length));
			expect(largest).toBeLessThan(4000);
		} finally {
			spy.mockRestore();
		}
	});
});

describe('ApplicationRequest', () => {
	test('children come in schema order, only those given, values escaped, dates checked', () => {
		const doc = buildApplicationRequest({
			customerId: '87654321',
			command: 'UploadFile',
			timestamp: new Date('2024-03-05T10:11:12.345Z'),
			environment: 'PRODUCTION',
			targetId: 'T1',
			userFilename: 'A&B <march>.xml',
			compression: true,
			compressionMethod: 'GZIP',
			softwareId: 'n8n',
			fileType: 'pain.001.001.03',
			content: Buffer.from('hello'),
		});
		expect(doc.payload?.toString()).toBe(Buffer.from('hello').toString('base64'));
		expect(doc.head).toBe(
			'<ApplicationRequest xmlns="http://bxd.fi/xmldata/"><CustomerId>87654321</CustomerId><Command>UploadFile</Command>' +
				'<Timestamp>2024-03-05T10:11:12Z</Timestamp><Environment>PRODUCTION</Environment><UserFilename>A&amp;B &lt;march&gt;.xml</UserFilename>' +
				'<TargetId>T1</TargetId><Compression>true</Compression><CompressionMethod>GZIP</CompressionMethod><SoftwareId>n8n</SoftwareId>' +
				'<FileType>pain.001.001.03</FileType><Content>',
		);
		expect(doc.tail).toBe('</Content></ApplicationRequest>');
		const list = buildApplicationRequest({
			customerId: 'C',
			command: 'DownloadFileList',
			environment: 'TEST',
			softwareId: 's',
			startDate: '2024-03-01',
			endDate: '2024-03-31',
			status: 'NEW',
			serviceId: 'S',
			fileReferences: ['R1', ' R2 '],
		});
		expect(list.head).toMatch(
			/<CustomerId>C<\/CustomerId><Command>DownloadFileList<\/Command><Timestamp>[^<]+<\/Timestamp><StartDate>2024-03-01<\/StartDate><EndDate>2024-03-31<\/EndDate><Status>NEW<\/Status><ServiceId>S<\/ServiceId><Environment>TEST<\/Environment><FileReferences><FileReference>R1<\/FileReference><FileReference>R2<\/FileReference><\/FileReferences><SoftwareId>s<\/SoftwareId><\/ApplicationRequest>$/,
		);
		expect(list.payload).toBeUndefined();
	});

	test('values outside the schema are refused with the field name', () => {
		const base = { customerId: 'C', command: 'DownloadFileList', environment: 'TEST', softwareId: 's' };
		expect(() => buildApplicationRequest({ ...base, customerId: '12345678901234567' })).toThrow(/CustomerId must be 1 to 16 characters/);
		expect(() => buildApplicationRequest({ ...base, environment: 'DEV' })).toThrow(/Environment must be PRODUCTION or TEST/);
		expect(() => buildApplicationRequest({ ...base, startDate: '05.03.2024' })).toThrow(/StartDate must be a date/);
		expect(() => buildApplicationRequest({ ...base, startDate: '2024-03-05', endDate: '2024-03-01' })).toThrow(/before StartDate/);
		expect(() => buildApplicationRequest({ ...base, fileType: 'x'.repeat(41) })).toThrow(/FileType must be 1 to 40/);
		expect(() => buildApplicationRequest({ ...base, userFilename: 'a\u0001b' })).toThrow(/control character/);
	});
});
