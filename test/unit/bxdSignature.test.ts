/**
 * Signatures checked by a verifier that is not ours: xmlsec1 (libxmlsec1 with OpenSSL) verifies
 * the enveloped XML-DSig of our ApplicationRequests and the WS-Security signature of our SOAP
 * messages, and rejects them once altered. In the other direction, xmlsec1 signs
 * ApplicationResponses and our verifier checks them. xmlsec1 is required: without it these tests
 * fail (install the Debian package `xmlsec1`).
 */
import {
	bankTrust,
	buildApplicationRequest,
	buildRequestEnvelope,
	documentBytes,
	prepareRawRequest,
	prepareRequest,
	signApplicationRequest,
	signingMaterial,
	splitAtContent,
	verifyEnvelopedSignature,
	type PayloadDocument,
	type SigningMaterial,
} from '../../nodes/shared/bxd';
import { testPki } from '../fixtures/bxd/keys';
import { responseSignatureTemplate, useXmlsec } from '../helpers/xmlsec';

const xmlsec = useXmlsec('bxd-signature-');
const { verifyApplicationRequest, verifyWsSecurity } = xmlsec;

let material: SigningMaterial;

beforeAll(() => {
	material = signingMaterial(testPki().signer.certPem, testPki().signer.keyPem);
});

function uploadRequest(content: Buffer): PayloadDocument {
	return buildApplicationRequest({
		customerId: '87654321',
		command: 'UploadFile',
		environment: 'TEST',
		softwareId: 'tests',
		fileType: 'pain.001.001.03',
		userFilename: 'Åbo & "Trä" <1>.xml',
		compression: false,
		content,
	});
}

const PAYMENT = Buffer.from('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>\r\n');

describe('ApplicationRequest signature (enveloped XML-DSig), checked by xmlsec1', () => {
	test.each(['inclusive', 'exclusive'] as const)('%s C14N: RSA-SHA256, SHA-256, URI "", enveloped transform, certificate in KeyInfo', (canonicalization) => {
		const signed = documentBytes(signApplicationRequest(uploadRequest(PAYMENT), material, { canonicalization })).toString('utf8');
		expect(signed).toContain('<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>');
		expect(signed).toContain('<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>');
		expect(signed).toContain('<Reference URI="">');
		expect(signed).toContain('<Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>');
		expect(signed).toContain(`<X509Certificate>${material.certificateBase64}</X509Certificate>`);
		expect(signed).toMatch(/<\/Content><Signature xmlns="http:\/\/www.w3.org\/2000\/09\/xmldsig#">[\s\S]*<\/Signature><\/ApplicationRequest>$/);
		const check = verifyApplicationRequest(signed);
		expect(check.output).toMatch(/OK/);
		expect(check.ok).toBe(true);
	});

	test('xmlsec1 rejects it after one character of the file, a field or the signature changed', () => {
		const signed = documentBytes(signApplicationRequest(uploadRequest(PAYMENT), material)).toString('utf8');
		const content = /<Content>([^<]+)<\/Content>/.exec(signed)![1];
		const flipped = content.slice(0, 10) + (content[10] === 'A' ? 'B' : 'A') + content.slice(11);
		for (const altered of [
			signed.replace(content, flipped),
			signed.replace('<Environment>TEST</Environment>', '<Environment>PRODUCTION</Environment>'),
			signed.replace(/<SignatureValue>(.)/, (_m, c: string) => `<SignatureValue>${c === 'A' ? 'B' : 'A'}`),
		]) {
			expect(verifyApplicationRequest(altered).ok).toBe(false);
		}
	});

	test('a certificate the CA did not issue does not verify with xmlsec1 against that CA', () => {
		const stranger = signingMaterial(testPki().stranger.certPem, testPki().stranger.keyPem);
		const signed = documentBytes(signApplicationRequest(uploadRequest(PAYMENT), stranger));
		expect(verifyApplicationRequest(signed).ok).toBe(false);
	});

	test('a 25 MB file is signed without holding it in the signing DOM, and xmlsec1 agrees', () => {
		const big = Buffer.alloc(25 * 1000 * 1000);
		for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
		const signed = signApplicationRequest(uploadRequest(big), material);
		expect(signed.payload?.length).toBe(Math.ceil(big.length / 3) * 4);
		expect(signed.head.length + signed.tail.length).toBeLessThan(5000);
		expect(verifyApplicationRequest(documentBytes(signed)).ok).toBe(true);
	});
});

describe('WS-Security signature of the SOAP message, checked by xmlsec1', () => {
	function signedEnvelope(): string {
		const prepared = prepareRequest(
			{ senderId: '87654321', receiverId: 'FIXTFIHH', customerId: '87654321', softwareId: 'tests', environment: 'TEST', language: 'EN', userAgent: 'tests', signing: material },
			'uploadFile',
			{ fileType: 'XL', content: PAYMENT },
			new Date('2030-01-02T03:04:05Z'),
		);
		return prepared.envelope.body.toString('utf8');
	}

	test('BinarySecurityToken, Timestamp with Expires five minutes later, one signature over Timestamp and Body by wsu:Id', () => {
		const xml = signedEnvelope();
		expect(xml).toContain(`<wsse:BinarySecurityToken EncodingType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary" ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3" wsu:Id="X509-`);
		expect(xml).toContain('<wsu:Created>2030-01-02T03:04:05Z</wsu:Created><wsu:Expires>2030-01-02T03:09:05Z</wsu:Expires>');
		const timestampId = /<wsu:Timestamp wsu:Id="([^"]+)"/.exec(xml)![1];
		const bodyId = /<soapenv:Body [^>]*wsu:Id="([^"]+)"/.exec(xml)![1];
		expect(xml).toContain(`<ds:Reference URI="#${timestampId}">`);
		expect(xml).toContain(`<ds:Reference URI="#${bodyId}">`);
		expect(xml).toContain('<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>');
		expect(xml).toContain('<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>');
		expect(xml).toMatch(/<wsse:SecurityTokenReference><wsse:Reference URI="#X509-[^"]+"/);
		const check = verifyWsSecurity(xml);
		expect(check.output).toMatch(/SignedInfo References \(ok\/all\): 2\/2/);
		expect(check.ok).toBe(true);
	});

	test('xmlsec1 rejects it when the Body (the ApplicationRequest) or the Timestamp is altered', () => {
		const xml = signedEnvelope();
		const payload = /<mod:ApplicationRequest>([^<]+)</.exec(xml)![1];
		const bodyAltered = xml.replace(payload, payload.slice(0, 40) + (payload[40] === 'Q' ? 'R' : 'Q') + payload.slice(41));
		const expiresAltered = xml.replace('<wsu:Expires>2030-01-02T03:09:05Z', '<wsu:Expires>2030-01-02T09:09:05Z');
		expect(verifyWsSecurity(bodyAltered).ok).toBe(false);
		expect(verifyWsSecurity(expiresAltered).ok).toBe(false);
	});

	test('the ApplicationRequest inside the signed Body is itself signed and verifies with xmlsec1', () => {
		const xml = signedEnvelope();
		const inner = Buffer.from(/<mod:ApplicationRequest>([^<]+)</.exec(xml)![1], 'base64');
		expect(verifyApplicationRequest(inner).ok).toBe(true);
	});

	test('a raw ApplicationRequest is signed once: unsigned ones get a signature, signed ones keep theirs', () => {
		const settings = { senderId: '1', receiverId: '2', customerId: '1', softwareId: 's', environment: 'TEST', signing: material };
		const innerOf = (body: Buffer) => Buffer.from(/<mod:ApplicationRequest>([^<]+)</.exec(body.toString('utf8'))![1], 'base64');
		const declaresOnly = Buffer.from(
			'<?xml version="1.0" encoding="UTF-8"?><ApplicationRequest xmlns="http://bxd.fi/xmldata/" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><CustomerId>1</CustomerId><Command>GetUserInfo</Command><Timestamp>2024-03-05T10:00:00Z</Timestamp><Environment>TEST</Environment><SoftwareId>s</SoftwareId></ApplicationRequest>',
		);
		const signedByNode = innerOf(prepareRawRequest(settings, 'getUserInfo', declaresOnly).envelope.body);
		expect(signedByNode.toString().match(/<Signature /g)).toHaveLength(1);
		expect(verifyApplicationRequest(signedByNode).ok).toBe(true);
		const presigned = documentBytes(signApplicationRequest(uploadRequest(PAYMENT), material, { canonicalization: 'exclusive' }));
		const kept = innerOf(prepareRawRequest(settings, 'uploadFile', presigned).envelope.body);
		expect(kept.equals(presigned)).toBe(true);
	});

	test('without signing material there is no Security header and no Signature', () => {
		const { body } = buildRequestEnvelope({
			operation: 'getUserInfo',
			header: { senderId: '1', receiverId: '2', language: 'EN', userAgent: 'tests' },
			applicationRequest: buildApplicationRequest({ customerId: '1', command: 'GetUserInfo', environment: 'TEST', softwareId: 's' }),
		});
		const xml = body.toString('utf8');
		expect(xml).not.toMatch(/Security|Signature/);
		expect(xml).toMatch(/<soapenv:Body><cor:getUserInfoin><mod:RequestHeader><mod:SenderId>1<\/mod:SenderId><mod:RequestId>[0-9a-f]{34}<\/mod:RequestId>/);
	});
});

describe('ApplicationResponse signatures made by xmlsec1, checked by our verifier', () => {
	/** An ApplicationResponse template as a bank signs it: Content in base64 lines with CRs, signature last. */
	function template(c14n: string, content: string): string {
		return (
			'<c2b:ApplicationResponse xmlns:c2b="http://bxd.fi/xmldata/"><c2b:CustomerId>87654321</c2b:CustomerId><c2b:Timestamp>2024-03-05T08:15:30+02:00</c2b:Timestamp>' +
			'<c2b:ResponseCode>00</c2b:ResponseCode><c2b:ResponseText>OK.</c2b:ResponseText><c2b:Compressed>false</c2b:Compressed>' +
			`<c2b:Content>${content}</c2b:Content>` +
			responseSignatureTemplate(c14n) +
			'</c2b:ApplicationResponse>'
		);
	}

	function bankSigned(c14n: string, content: string, signer = testPki().signer): Buffer {
		const run = xmlsec.signAsBank(template(c14n, content), signer);
		expect(run.output).toBe('');
		expect(run.ok).toBe(true);
		return run.signed;
	}

	const lines = Buffer.from('A statement line that is long enough to wrap\n'.repeat(200)).toString('base64').match(/.{1,76}/g)!;

	test.each([
		['inclusive C14N, base64 lines with LF', 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315', lines.join('\n')],
		['inclusive C14N, base64 lines with &#13; and LF', 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315', lines.join('&#13;\n')],
		['exclusive C14N, one line', 'http://www.w3.org/2001/10/xml-exc-c14n#', lines.join('')],
	])('%s: valid with the bank certificate or its CA, the Content checked without being parsed', (_label, c14n, content) => {
		const signed = bankSigned(c14n, content);
		const doc = splitAtContent(signed);
		expect(doc.payload?.length).toBeGreaterThan(10000);
		expect(verifyEnvelopedSignature(doc, bankTrust(testPki().signer.certPem))).toBe('valid');
		expect(verifyEnvelopedSignature(doc, bankTrust(testPki().ca.certPem))).toBe('valid');
	});

	test('a changed character in the Content, in a field, or another signer is rejected', () => {
		const signed = bankSigned('http://www.w3.org/TR/2001/REC-xml-c14n-20010315', lines.join('\n')).toString('utf8');
		const trust = bankTrust(testPki().ca.certPem);
		const inContent = signed.replace(lines[3], lines[3].replace(/^./, (c) => (c === 'Q' ? 'R' : 'Q')));
		expect(() => verifyEnvelopedSignature(splitAtContent(Buffer.from(inContent)), trust)).toThrow(/does not match its digest/);
		const inField = signed.replace('<c2b:ResponseCode>00<', '<c2b:ResponseCode>24<');
		expect(() => verifyEnvelopedSignature(splitAtContent(Buffer.from(inField)), trust)).toThrow(/does not match its digest/);
		const stranger = bankSigned('http://www.w3.org/TR/2001/REC-xml-c14n-20010315', lines.join('\n'), testPki().stranger);
		expect(() => verifyEnvelopedSignature(splitAtContent(stranger), trust)).toThrow(/neither the Bank Certificate of the credential nor issued by it/);
		expect(() => verifyEnvelopedSignature(splitAtContent(stranger), bankTrust(testPki().signer.certPem))).toThrow(/neither the Bank Certificate/);
	});

	test('a certificate from the trusted CA that has expired is refused', () => {
		const signed = bankSigned('http://www.w3.org/TR/2001/REC-xml-c14n-20010315', lines.join('\n'), testPki().expired);
		expect(() => verifyEnvelopedSignature(splitAtContent(signed), bankTrust(testPki().ca.certPem))).toThrow(/not valid now/);
	});

	test('a second signature, or one that does not cover the whole document, is refused', () => {
		const signed = bankSigned('http://www.w3.org/TR/2001/REC-xml-c14n-20010315', 'QUJD').toString('utf8');
		const signature = /<Signature[\s\S]*<\/Signature>/.exec(signed)![0];
		const twice = signed.replace('</c2b:ApplicationResponse>', `<c2b:CustomerExtension>${signature}</c2b:CustomerExtension></c2b:ApplicationResponse>`);
		expect(() => verifyEnvelopedSignature(splitAtContent(Buffer.from(twice)), bankTrust(testPki().signer.certPem))).toThrow(/exactly one enveloped signature/);
		const partial = signed.replace('<c2b:ResponseCode>', '<c2b:ResponseCode Id="rc">').replace('<Reference URI="">', '<Reference URI="#rc">');
		expect(() => verifyEnvelopedSignature(splitAtContent(Buffer.from(partial)), bankTrust(testPki().signer.certPem))).toThrow(/whole ApplicationResponse/);
	});

	test('a reference by ID to the root element covers the whole document (Danske Bank signs so); an ID that is not only the root\'s is refused', () => {
		const byId = (rootId: string) =>
			template('http://www.w3.org/2001/10/xml-exc-c14n#', 'QUJD')
				.replace('<c2b:ApplicationResponse ', `<c2b:ApplicationResponse ${rootId} `)
				.replace('<Reference URI="">', '<Reference URI="#response">');
		const trust = bankTrust(testPki().signer.certPem);
		const signed = xmlsec.signAsBank(byId('xml:id="response"'), testPki().signer);
		expect([signed.ok, signed.output]).toEqual([true, '']);
		expect(verifyEnvelopedSignature(splitAtContent(signed.signed), trust)).toBe('valid');
		const altered = signed.signed.toString('utf8').replace('<c2b:ResponseCode>00<', '<c2b:ResponseCode>24<');
		expect(() => verifyEnvelopedSignature(splitAtContent(Buffer.from(altered)), trust)).toThrow(/does not match its digest/);
		// The same ID on a child as well: which element it names is not certain, so it is refused.
		const twice = signed.signed.toString('utf8').replace('<c2b:ResponseCode>', '<c2b:ResponseCode Id="response">');
		expect(() => verifyEnvelopedSignature(splitAtContent(Buffer.from(twice)), trust)).toThrow(/whole ApplicationResponse/);
	});

	test('our own request signature verifies with our verifier too (round trip)', () => {
		const signed = signApplicationRequest(uploadRequest(PAYMENT), material);
		expect(verifyEnvelopedSignature(splitAtContent(documentBytes(signed)), bankTrust(testPki().ca.certPem))).toBe('valid');
	});
});
