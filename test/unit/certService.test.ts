/**
 * The certificate-service messages without a network: CertApplicationResponse documents in every
 * shape the public samples of Nordea, OP and Samlink show (our own fixtures, written in those
 * shapes with our own test certificates), the requests each bank wants (Nordea's HMAC, OP's
 * TransferKey with Service MATU, Samlink's TransferKey, RenewCertificate signed, OP's
 * GetServiceCertificates); SHA-1 signatures of the file service's answers accepted only on the
 * credential's opt-in, those of the certificate services verified whatever their algorithm.
 */
import { createHmac, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import forge from 'node-forge';
import { SignedXml } from 'xml-crypto';

import {
	BxdFormatError,
	BxdResponseCodeError,
	buildCertApplicationRequest,
	buildCertEnvelope,
	certificateForKey,
	decimalSerial,
	getBankCertificateRequest,
	nordeaHmac,
	readApplicationResponse,
	readBankCertificate,
	readCertApplicationResponse,
	verifyCertAnswer,
	readCertServiceAnswer,
	sameSerial,
	serialOf,
	signingMaterial,
	verifyEnvelopedSignature,
} from '../../nodes/shared/bxd';
import { testPki } from '../fixtures/bxd/keys';
import { readFileServiceCredential } from '../../nodes/shared/bxd/credential/fileServiceCredential';
import { createKeyAndRequest } from '../../nodes/shared/keys';

const NORDEA_DATA = 'http://filetransfer.nordea.com/xmldata/';
const OP_DATA = 'http://op.fi/mlp/xmldata/';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');

/** Signs a document as the banks' samples are signed: enveloped, inclusive C14N, with the algorithm given. */
function signAsBank(xml: string, algorithm: 'sha1' | 'sha256'): string {
	const signer = new SignedXml({
		privateKey: testPki().signer.keyPem,
		publicCert: testPki().signer.certPem,
		signatureAlgorithm: algorithm === 'sha1' ? `${DSIG}rsa-sha1` : 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
		canonicalizationAlgorithm: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
	});
	signer.addReference({
		xpath: '/*',
		transforms: [`${DSIG}enveloped-signature`, 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315'],
		digestAlgorithm: algorithm === 'sha1' ? `${DSIG}sha1` : 'http://www.w3.org/2001/04/xmlenc#sha256',
		isEmptyUri: true,
	});
	signer.computeSignature(xml, { location: { reference: '/*', action: 'append' } });
	return signer.getSignedXml();
}

/** Nordea's shape (sepafm test/sepa/banks/nordea/responses/gc.xml): bxd: prefix, DER in base64, X509v3, empty Name. */
function nordeaShape(certPem: string, code = '00', text = 'OK'): string {
	return (
		`<bxd:CertApplicationResponse xmlns:bxd="${NORDEA_DATA}"><bxd:CustomerId>11111111</bxd:CustomerId><bxd:Timestamp>2026-08-06T10:39:41+02:00</bxd:Timestamp>` +
		`<bxd:ResponseCode>${code}</bxd:ResponseCode><bxd:ResponseText>${text}</bxd:ResponseText><bxd:Certificates><bxd:Certificate><bxd:Name/>` +
		`<bxd:Certificate>${der(certPem)}</bxd:Certificate><bxd:CertificateFormat>X509v3</bxd:CertificateFormat></bxd:Certificate></bxd:Certificates></bxd:CertApplicationResponse>`
	);
}

/** Samlink's shape (sepafm samlink/responses/rc.xml): ns2: root, unprefixed children with their own xmlns, one-digit code, PEM text in base64. */
function samlinkShape(certPem: string): string {
	return (
		`<?xml version="1.0" encoding="UTF-8"?>\n<ns2:CertApplicationResponse xmlns:ns2="${OP_DATA}"><ns2:CustomerId>97506614</ns2:CustomerId>` +
		`<Timestamp xmlns="${OP_DATA}">2026-10-11T12:50:50.232+03:00</Timestamp><ResponseCode xmlns="${OP_DATA}">0</ResponseCode>` +
		`<ResponseText xmlns="${OP_DATA}">OK</ResponseText><Certificates xmlns="${OP_DATA}"><Certificate><Name>SURNAME=97506614, CN=Fixture Oy, O=Aineistopalvelut-Samlink, C=FI</Name>` +
		`<Certificate>${Buffer.from(certPem).toString('base64')}</Certificate><CertificateFormat>X509</CertificateFormat></Certificate></Certificates></ns2:CertApplicationResponse>`
	);
}

/** Samlink's error shape (sepafm samlink/responses/gc_error_30.xml): code 30 with Compressed and no certificates. */
function samlinkErrorShape(): string {
	return (
		`<?xml version="1.0" encoding="UTF-8"?>\n<ns2:CertApplicationResponse xmlns:ns2="${OP_DATA}"><ns2:CustomerId>12345678</ns2:CustomerId>` +
		'<ns2:Timestamp>2026-09-25T20:28:06+03:00</ns2:Timestamp><ns2:ResponseCode>30</ns2:ResponseCode>' +
		'<ns2:ResponseText>Asiakkaan palvelusopimuksen tarkistuksessa virhe:A00</ns2:ResponseText><ns2:Compressed>false</ns2:Compressed></ns2:CertApplicationResponse>'
	);
}

/** OP's GetServiceCertificates answer (op CertApplicationResponse_200812.xsd): default namespace, several named certificates, unsigned. */
function opServiceCertificatesShape(): string {
	return (
		`<?xml version="1.0" encoding="UTF-8"?><CertApplicationResponse xmlns="${OP_DATA}"><CustomerId>1000000001</CustomerId><Timestamp>2026-05-05T10:00:00.000+03:00</Timestamp>` +
		'<ResponseCode>00</ResponseCode><ResponseText>OK</ResponseText><Compressed>false</Compressed><Certificates>' +
		`<Certificate><Name>OP Fixture Services CA</Name><Certificate>${der(testPki().ca.certPem)}</Certificate><CertificateFormat>X509v3</CertificateFormat></Certificate>` +
		`<Certificate><Name>OP Fixture Bank Signer</Name><Certificate>${der(testPki().signer.certPem)}</Certificate><CertificateFormat>X509v3</CertificateFormat></Certificate>` +
		'</Certificates></CertApplicationResponse>'
	);
}

function soapAnswer(service: string, operation: string, inner: string, headerCode = '00', headerText = 'OK'): string {
	return (
		`<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:cer="${service}"><soapenv:Body>` +
		`<cer:${operation}out><cer:ResponseHeader><cer:SenderId>11111111</cer:SenderId><cer:RequestId>abc</cer:RequestId><cer:Timestamp>2026-08-06T10:39:41+02:00</cer:Timestamp>` +
		`<cer:ResponseCode>${headerCode}</cer:ResponseCode><cer:ResponseText>${headerText}</cer:ResponseText></cer:ResponseHeader>` +
		`<cer:ApplicationResponse>${Buffer.from(inner).toString('base64')}</cer:ApplicationResponse></cer:${operation}out></soapenv:Body></soapenv:Envelope>`
	);
}

describe('CertApplicationResponse in the shapes of the banks public samples', () => {
	const issued = testPki().signer.certPem;

	test('Nordea (signed with RSA-SHA1, base64 DER, X509v3): read, and its signature verified whatever the SHA-1 opt-in, naming the algorithm', () => {
		const signed = Buffer.from(signAsBank(nordeaShape(issued), 'sha1'));
		const read = readCertApplicationResponse(signed);
		expect(read).toMatchObject({ customerId: '11111111', responseCode: '00', responseText: 'OK', namespace: NORDEA_DATA, signature: 'notChecked' });
		expect(read.certificates).toHaveLength(1);
		expect(read.certificates[0].format).toBe('X509v3');
		expect(read.certificates[0].x509.fingerprint256).toBe(new X509Certificate(issued).fingerprint256);
		// A certificate service's algorithm is no policy: the issued certificate's chain is the anchor.
		const trust = readBankCertificate(testPki().ca.certPem);
		expect(verifyCertAnswer(signed, trust)).toEqual({ status: 'valid', algorithm: 'RSA-SHA1' });
		expect(verifyCertAnswer(signed, { ...trust, acceptSha1: false })).toEqual({ status: 'valid', algorithm: 'RSA-SHA1' });
		expect(verifyCertAnswer(Buffer.from(signAsBank(nordeaShape(issued), 'sha256')), trust)).toEqual({ status: 'valid', algorithm: 'RSA-SHA256' });
	});

	test('a certificate-service answer is still verified cryptographically with either algorithm: altered, or signed by a key the pinned root did not issue, it fails', () => {
		const trust = readBankCertificate(testPki().ca.certPem);
		for (const algorithm of ['sha1', 'sha256'] as const) {
			const signed = signAsBank(nordeaShape(issued), algorithm);
			expect(() => verifyCertAnswer(Buffer.from(signed.replace('<bxd:ResponseText>OK', '<bxd:ResponseText>KO')), trust)).toThrow(
				/^The certificate service's answer failed the signature check against the Bank Certificate: The response signature is invalid: the content does not match its digest/,
			);
			expect(() => verifyCertAnswer(Buffer.from(signed), readBankCertificate(testPki().stranger.certPem))).toThrow(
				/^The certificate service's answer failed the signature check against the Bank Certificate: The response signature is invalid: it was made with a certificate \(.*Fixture Bank File Service.*\) that is neither the Bank Certificate of the credential nor issued by it/,
			);
		}
	});

	test('an unsigned answer (as OP may leave them) is reported unsigned, not refused: its certificate is checked against the pinned root instead', () => {
		expect(verifyCertAnswer(Buffer.from(opServiceCertificatesShape()), readBankCertificate(testPki().ca.certPem))).toEqual({ status: 'unsigned', algorithm: 'unsigned' });
	});

	test('Samlink (mixed prefixes, one-digit code, PEM text encoded in base64): the certificate is read', () => {
		const read = readCertApplicationResponse(Buffer.from(samlinkShape(issued)));
		expect(read.responseCode).toBe('00');
		expect(read.certificates[0].name).toMatch(/^SURNAME=97506614/);
		expect(read.certificates[0].pem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
		expect(read.certificates[0].x509.fingerprint256).toBe(new X509Certificate(issued).fingerprint256);
	});

	test('Samlink error answer (code 30 in header and document): the bank code and text reach the error', () => {
		const answer = soapAnswer('http://mlp.op.fi/OPCertificateService', 'getCertificate', samlinkErrorShape(), '30', 'Asiakkaan palvelusopimuksen tarkistuksessa virhe:A00');
		expect(() => readCertServiceAnswer(answer, 'getCertificate')).toThrow(BxdResponseCodeError);
		expect(() => readCertServiceAnswer(answer, 'getCertificate')).toThrow('The bank answered code 30: Asiakkaan palvelusopimuksen tarkistuksessa virhe:A00');
		// Also when only the document carries the code.
		const inner = soapAnswer('http://mlp.op.fi/OPCertificateService', 'getCertificate', samlinkErrorShape(), '0', 'OK');
		expect(() => readCertServiceAnswer(inner, 'getCertificate')).toThrow(/code 30/);
	});

	test('OP GetServiceCertificates (unsigned, several named certificates)', () => {
		const answer = readCertServiceAnswer(soapAnswer('http://mlp.op.fi/OPCertificateService', 'getServiceCertificates', opServiceCertificatesShape()), 'getServiceCertificates');
		expect(answer.response?.signature).toBe('notChecked');
		expect(answer.response?.certificates.map((c) => c.name)).toEqual(['OP Fixture Services CA', 'OP Fixture Bank Signer']);
	});

	test('an ApplicationResponse where a CertApplicationResponse belongs is named, and a CertApplicationResponse is no longer refused as "not an ApplicationResponse"', () => {
		const wrong = `<ApplicationResponse xmlns="http://bxd.fi/xmldata/"><CustomerId>1</CustomerId><ResponseCode>00</ResponseCode></ApplicationResponse>`;
		expect(() => readCertApplicationResponse(Buffer.from(wrong))).toThrow(new BxdFormatError('The certificate service answered with a ApplicationResponse instead of a CertApplicationResponse'));
		expect(() => readCertServiceAnswer(soapAnswer('http://bxd.fi/CertificateService', 'getCertificate', nordeaShape(issued)), 'getCertificate')).not.toThrow();
	});

	test.each([
		['truncated base64', (pem: string) => der(pem).slice(0, 301), /is not base64 \(it may be truncated\)|cannot be read as an X\.509 certificate/],
		['a PEM cut before its END line', (pem: string) => Buffer.from(pem.slice(0, 400)).toString('base64'), /is truncated: it has no END CERTIFICATE line/],
		['a PKCS#7 bundle', (pem: string) => Buffer.from(`-----BEGIN PKCS7-----\n${der(pem)}\n-----END PKCS7-----`).toString('base64'), /is a PKCS#7 bundle, not an X\.509 certificate/],
		['a certificate request', () => Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----').toString('base64'), /is a certificate request, not an X\.509 certificate/],
	])('a certificate that is %s is refused with what it is', (_name, content, message) => {
		const xml = nordeaShape(issued).replace(der(issued), content(issued));
		expect(() => readCertApplicationResponse(Buffer.from(xml))).toThrow(message);
	});

	test('a certificate for another key than the one generated is refused', async () => {
		const keys = await createKeyAndRequest({ commonName: '11111111' });
		const read = readCertApplicationResponse(Buffer.from(nordeaShape(issued)));
		expect(() => certificateForKey(read, keys.publicKey)).toThrow(/does not match the key pair generated for this request; it was not stored/);
	});
});

describe('CertApplicationRequest as each bank wants it', () => {
	const base = { customerId: '11111111', environment: 'TEST', softwareId: 'tests', timestamp: new Date('2030-01-02T03:04:05Z') };

	function parse(xml: string) {
		const doc = new DOMParser().parseFromString(xml, 'text/xml') as unknown as Document;
		const root = doc.documentElement;
		const children = Array.from(root.childNodes).filter((n) => n.nodeType === 1) as Element[];
		return { root, names: children.map((c) => c.localName), text: (name: string) => children.find((c) => c.localName === name)?.textContent ?? undefined };
	}

	test('the PKCS#10 request is made locally: RSA 2048, SHA-256, signature verifies, subject carries the customer id', async () => {
		const keys = await createKeyAndRequest({ commonName: '11111111', serialNumber: '11111111', country: 'FI' });
		const csr = forge.pki.certificationRequestFromPem(keys.csrPem);
		expect(csr.verify()).toBe(true);
		expect((csr.publicKey as forge.pki.rsa.PublicKey).n.bitLength()).toBe(2048);
		expect(csr.subject.getField('CN').value).toBe('11111111');
		expect(keys.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
	});

	test('Nordea: HMAC-SHA1 of the DER request keyed with the PIN, no TransferKey, schema order', async () => {
		const keys = await createKeyAndRequest({ commonName: '11111111' });
		const xml = buildCertApplicationRequest({ ...base, dialect: 'nordea', command: 'GetCertificate', csrDer: keys.csrDer, pin: '12345 67890' });
		const doc = parse(xml);
		expect(doc.root.namespaceURI).toBe(NORDEA_DATA);
		expect(doc.names).toEqual(['CustomerId', 'Timestamp', 'Environment', 'SoftwareId', 'Command', 'Content', 'HMAC']);
		expect(doc.text('Command')).toBe('GetCertificate');
		expect(doc.text('HMAC')).toBe(createHmac('sha1', '1234567890').update(keys.csrDer).digest('base64'));
		expect(doc.text('HMAC')).toBe(nordeaHmac('1234567890', keys.csrDer));
		expect(Buffer.from(doc.text('Content')!, 'base64').equals(keys.csrDer)).toBe(true);
		expect(xml).not.toContain('1234567890');
	});

	test.each(['op', 'samlink'] as const)('%s: TransferKey and Service MATU, schema order', async (dialect) => {
		const keys = await createKeyAndRequest({ commonName: '11111111' });
		const doc = parse(buildCertApplicationRequest({ ...base, dialect, command: 'GetCertificate', csrDer: keys.csrDer, pin: '1234 5678 9012 3456' }));
		expect(doc.root.namespaceURI).toBe(OP_DATA);
		expect(doc.names).toEqual(['CustomerId', 'Timestamp', 'Environment', 'SoftwareId', 'Command', 'Compression', 'Service', 'Content', 'TransferKey']);
		expect(doc.text('Service')).toBe('MATU');
		expect(doc.text('TransferKey')).toBe('1234567890123456');
	});

	test.each([
		['sha256', 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256'],
		['sha1', `${DSIG}rsa-sha1`],
	] as const)('RenewCertificate is signed with the current certificate (%s) and carries no PIN', async (algorithm, uri) => {
		const keys = await createKeyAndRequest({ commonName: '11111111' });
		const signing = { ...signingMaterial(testPki().signer.certPem, testPki().signer.keyPem), algorithm };
		const xml = buildCertApplicationRequest({ ...base, dialect: 'op', command: 'RenewCertificate', csrDer: keys.csrDer, signing });
		const doc = parse(xml);
		expect(doc.text('Command')).toBe('RenewCertificate');
		expect(doc.names).not.toContain('TransferKey');
		expect(doc.names[doc.names.length - 1]).toBe('Signature');
		expect(xml).toContain(`<SignatureMethod Algorithm="${uri}"/>`);
		const trust = { ...readBankCertificate(testPki().ca.certPem), acceptSha1: true };
		expect(verifyEnvelopedSignature({ head: xml, tail: '' }, trust)).toBe('valid');
	});

	test('OP GetServiceCertificates: no content, no PIN, through getServiceCertificatesin', () => {
		const xml = buildCertApplicationRequest({ ...base, dialect: 'op', command: 'GetServiceCertificates' });
		expect(parse(xml).names).toEqual(['CustomerId', 'Timestamp', 'Environment', 'SoftwareId', 'Command', 'Compression', 'Service']);
		const envelope = buildCertEnvelope('op', 'GetServiceCertificates', '11111111', xml).body.toString('utf8');
		expect(envelope).toContain('<cer:getServiceCertificatesin>');
		expect(envelope).toContain('xmlns:cer="http://mlp.op.fi/OPCertificateService"');
	});

	test('RenewCertificate goes through getCertificatein of the Nordea service namespace', () => {
		const envelope = buildCertEnvelope('nordea', 'RenewCertificate', '11111111', '<x/>').body.toString('utf8');
		expect(envelope).toContain('xmlns:cer="http://bxd.fi/CertificateService"');
		expect(envelope).toContain('<cer:getCertificatein><cer:RequestHeader><cer:SenderId>11111111</cer:SenderId>');
	});

	test('bad input is refused before anything is built', () => {
		expect(() => buildCertApplicationRequest({ ...base, dialect: 'op', command: 'GetCertificate', csrDer: Buffer.from('x') })).toThrow('GetCertificate needs the one-time PIN or transfer key');
		expect(() => buildCertApplicationRequest({ ...base, dialect: 'op', command: 'RenewCertificate', csrDer: Buffer.from('x') })).toThrow(/signed with the current certificate, and there is none/);
		expect(() => buildCertApplicationRequest({ ...base, customerId: '12345678901234567', dialect: 'op', command: 'GetServiceCertificates' })).toThrow(/Customer ID must be 1 to 16 characters long \(got 17\)/);
	});
});

describe('SHA-1 signatures of ApplicationResponses: refused by default, accepted on the opt-in', () => {
	const response = `<ApplicationResponse xmlns="http://bxd.fi/xmldata/"><CustomerId>11111111</CustomerId><Timestamp>2026-01-01T00:00:00Z</Timestamp><ResponseCode>00</ResponseCode><ResponseText>OK</ResponseText><FileDescriptors/></ApplicationResponse>`;

	test('without the opt-in the error names the algorithm the bank used and the switch', () => {
		const signed = Buffer.from(signAsBank(response, 'sha1'));
		const trust = readBankCertificate(testPki().ca.certPem);
		expect(() => readApplicationResponse(signed, { trust })).toThrow(
			'The response signature uses RSA-SHA1 (http://www.w3.org/2000/09/xmldsig#rsa-sha1), which is not accepted by default. The bank still signs with SHA-1: if you accept that, switch on "Accept SHA-1 Signatures From the Bank" in the credential; otherwise ask the bank for SHA-256 (RSA-SHA256) signatures',
		);
	});

	test('with the opt-in a SHA-1 signature verifies, and an altered document still fails', () => {
		const signed = signAsBank(response, 'sha1');
		const trust = { ...readBankCertificate(testPki().ca.certPem), acceptSha1: true };
		expect(readApplicationResponse(Buffer.from(signed), { trust }).signature).toBe('valid');
		expect(() => readApplicationResponse(Buffer.from(signed.replace('<ResponseText>OK', '<ResponseText>KO')), { trust })).toThrow(/altered/);
	});

	test('SHA-256 answers verify with or without the opt-in', () => {
		const signed = Buffer.from(signAsBank(response, 'sha256'));
		expect(readApplicationResponse(signed, { trust: readBankCertificate(testPki().ca.certPem) }).signature).toBe('valid');
	});
});

describe('File Service credential addresses', () => {
	const base = { bank: 'custom', customerId: '11111111', certDialect: 'nordea' };
	it('takes https:// (and http:// for a test bank on your own network); anything else names the field and the rule', () => {
		expect(readFileServiceCredential({ ...base, url: 'https://bank.example/services' }).url).toBe('https://bank.example/services');
		expect(readFileServiceCredential({ ...base, url: 'http://127.0.0.1:8443/services' }).url).toBe('http://127.0.0.1:8443/services');
		for (const [field, value] of [
			['url', 'bank.example/services'],
			['largeFileUrl', 'ftp://bank.example/large'],
			['certificateServiceUrl', 'https:/bank.example'],
		]) {
			const name = { url: 'Service URL', largeFileUrl: 'Large File Service URL', certificateServiceUrl: 'Certificate Service URL' }[field];
			expect(() => readFileServiceCredential({ ...base, url: 'https://bank.example/services', [field]: value })).toThrow(
				`${name}: must be a web address starting with https:// (or http:// for a test bank on your own network)`,
			);
		}
	});
});

describe('Danske Bank PKI: certificate serial numbers in decimal, as the public record writes them', () => {
	/** A self-signed certificate with the serial number `hex`. */
	function withSerial(hex: string): string {
		const keys = forge.pki.rsa.generateKeyPair(1024);
		const cert = forge.pki.createCertificate();
		cert.publicKey = keys.publicKey;
		cert.serialNumber = hex;
		cert.validity.notBefore = new Date('2020-01-01T00:00:00Z');
		cert.validity.notAfter = new Date('2038-06-09T00:00:00Z');
		cert.setSubject([{ name: 'commonName', value: 'DBGROOT' }]);
		cert.setIssuer([{ name: 'commonName', value: 'DBGROOT' }]);
		cert.sign(keys.privateKey, forge.md.sha256.create());
		return forge.pki.certificateToPem(cert);
	}

	test("DBGROOT's serial 0x423A3173 is 1111110003, the number in its CRL address DBGROOT_1111110003.crl", () => {
		const root = withSerial('423a3173');
		expect(new X509Certificate(root).serialNumber).toBe('423A3173');
		expect(serialOf(root)).toBe('1111110003');
		expect(decimalSerial('423A3173')).toBe('1111110003');
		// GetBankCertificateRequest carries the decimal number.
		expect(getBankCertificateRequest(serialOf(root), 'abcdef0123', new Date('2026-11-26T10:00:00Z'))).toContain(
			'<elem:BankRootCertificateSerialNo>1111110003</elem:BankRootCertificateSerialNo>',
		);
	});

	test('a 128-bit serial with a leading zero byte stays exact (no floating point)', () => {
		const cert = withSerial('00f1e2d3c4b5a6978877665544332211');
		expect(serialOf(cert)).toBe(BigInt('0xf1e2d3c4b5a6978877665544332211').toString(10));
	});

	test('a serial the bank reports is matched in decimal, and in hexadecimal should an answer carry it so', () => {
		const cert = withSerial('423a3173');
		expect(sameSerial('1111110003', cert)).toBe(true);
		expect(sameSerial(' 1111110003 ', cert)).toBe(true);
		expect(sameSerial('423A3173', cert)).toBe(true);
		expect(sameSerial('1111110004', cert)).toBe(false);
		expect(sameSerial('', cert)).toBe(false);
	});
});
