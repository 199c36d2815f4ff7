/**
 * The EBICS 3.0 protocol library without a bank: known answers, the X002 signature checked by an
 * independent implementation (xmlsec1), every request against the official H005 schemas, E002,
 * A006, segmentation, containers and letters.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream } from 'pdf-lib';

import {
	certificateDigest,
	checkService,
	decodeDownload,
	decryptE002,
	downloadInitRequest,
	downloadTransferRequest,
	DownloadDecoder,
	E002Decryptor,
	EbicsDataError,
	EbicsKeyError,
	EbicsSignatureError,
	EbicsValidationError,
	encryptE002,
	formatHash,
	hevRequest,
	hiaOrderData,
	hpbRequest,
	iniOrderData,
	initialisationLetters,
	loadKeyPair,
	loadSubscriberKeys,
	newTransactionKey,
	openContainer,
	orderDataDigest,
	parseDocument,
	parseHash,
	prepareUpload,
	publicKeyDigest,
	receiptRequest,
	SEGMENT_MAX_BASE64,
	SERVICE_PRESETS,
	signA006,
	signRequest,
	unsecuredRequest,
	unwrapTransactionKey,
	uploadInitRequest,
	uploadTransferRequest,
	userSignatureData,
	verifyA006,
	verifyAuthSignature,
	wrapTransactionKey,
	authSignatureTemplate,
	BUSINESS_RETURN_CODES,
	TECHNICAL_RETURN_CODES,
	returnCodeInfo,
	checkReturnCodes,
	EbicsReturnCodeError,
} from '../../nodes/shared/ebics';
import { testBankKeys, testSubscriberKeys, validateEbics, xmlsecSignX002, xmlsecVerifyX002 } from '../helpers/ebics';

const subscriber = { hostId: 'SBXHOST', partnerId: 'PARTNER1', userId: 'USER1', product: { name: 'n8n-nodes-corporate-banking' } };
const digests = { authentication: randomBytes(32), encryption: randomBytes(32) };

describe('bank key hashes', () => {
	it('reproduces the EBICS 2.5 specification example letter (A006 key, exponent 10001)', () => {
		// EBICS 2.5 specification 11.5.1.2, example letter, as railslove/epics issue #44 matched it.
		const modulus =
			'9b864d2e729e9e039478eb9641e627c6f298b9b54dacb2b899c6137c6a67a39356b0c0e2bb22d5f14a4e3eb5e0509a416ea5958f75cfa304f9ba3218bfed24ecb6065e628042f97ac1322cf3753fd592722ca283e8b5471259f64bcda64ed87f7b56dad9573279b47b6679c9f718407ecfac5c46146ab7701d47d051e781622b49d7095f47a44ca33f6704024b403d71aa5f3ea230537730710a96dd62be6cbf4027280c9fffe06d0a8c5ee075e230a449136508e5a911e37d1cff7fb931181f';
		const key = createPublicKey({
			key: { kty: 'RSA', n: Buffer.from(modulus, 'hex').toString('base64url'), e: Buffer.from('010001', 'hex').toString('base64url') },
			format: 'jwk',
		});
		expect(formatHash(publicKeyDigest(key))).toBe(
			'D4 7A 24 27 5C 5F D8 0D 50 1B CF 28 C5 38 FE 1F\n51 DD 24 8B 3E 5C 72 D5 CD 47 9D 82 79 0C EF 52',
		);
	});

	it('hashes a certificate as SHA-256 of its DER form (H005) and reads hashes as letters print them', async () => {
		const keys = await testSubscriberKeys();
		const der = loadKeyPair(keys.signature, 'signature').certificateDer;
		const expected = createHash('sha256').update(der).digest();
		expect(certificateDigest(der)).toEqual(expected);
		const printed = formatHash(expected);
		expect(printed.split('\n')).toHaveLength(2);
		expect(parseHash(printed, 'hash')).toEqual(expected);
		expect(parseHash(expected.toString('hex').toLowerCase().replace(/(..)/g, '$1:'), 'hash')).toEqual(expected);
		expect(parseHash(expected.toString('base64'), 'hash')).toEqual(expected);
		expect(() => parseHash('D4 7A 24', 'Bank authentication key hash')).toThrow(
			/Bank authentication key hash must be the SHA-256 hash .*got 3 bytes/,
		);
	});
});

describe('A006 electronic signature', () => {
	it('hashes order data without CR, LF and Ctrl-Z, as the spec normalises it', () => {
		expect(orderDataDigest(Buffer.from('<a>\r\n<b>1</b>\n</a>\x1a'))).toEqual(createHash('sha256').update('<a><b>1</b></a>').digest());
	});

	it('signs the 32-byte hash with RSASSA-PSS (SHA-256, MGF1-SHA-256, salt 32) and verifies it', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const digest = orderDataDigest(Buffer.from('payment file'));
		const signature = signA006(digest, keys.signature.privateKey);
		expect(signature).toHaveLength(256);
		expect(verifyA006(digest, signature, keys.signature.publicKey)).toBe(true);
		expect(verifyA006(orderDataDigest(Buffer.from('other file')), signature, keys.signature.publicKey)).toBe(false);
		expect(verifyA006(digest, signature, keys.authentication.publicKey)).toBe(false);
	});

	it('writes UserSignatureData valid against ebics_signature_S002.xsd', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const xml = userSignatureData(signA006(randomBytes(32), keys.signature.privateKey), {
			partnerId: 'PARTNER1',
			userId: 'USER1',
			certificateBase64: keys.signature.certificateDer.toString('base64'),
		});
		expect(validateEbics(xml, 'ebics_signature_S002.xsd')).toEqual({ valid: true, output: expect.stringContaining('validates') });
	});
});

describe('E002 encryption', () => {
	it('round-trips AES-128-CBC with a zero IV and unwraps the key with RSA PKCS#1 v1.5 on this Node', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const key = newTransactionKey();
		const data = randomBytes(1000);
		const encrypted = encryptE002(data, key);
		expect(encrypted.length).toBe(1008);
		expect(decryptE002(encrypted, key)).toEqual(data);
		const wrapped = wrapTransactionKey(key, keys.encryption.publicKey);
		expect(unwrapTransactionKey(wrapped, keys.encryption.privateKey)).toEqual(key);
		// Another key: an EbicsDataError (Node 20, node-forge), or with OpenSSL's implicit rejection
		// (Node 22.13+) rarely 16 random bytes, never the key.
		const withOtherKey = (): boolean => {
			try {
				return !unwrapTransactionKey(wrapped, keys.authentication.privateKey).equals(key);
			} catch (error) {
				return error instanceof EbicsDataError;
			}
		};
		expect(withOtherKey()).toBe(true);
	});

	it('reads X9.23 padding (zeros and a count) as libeufin and node-ebics write it', () => {
		const key = newTransactionKey();
		const data = Buffer.from('twenty-one bytes long');
		const padded = Buffer.concat([data, Buffer.alloc(10), Buffer.from([11])]);
		const { createCipheriv } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
		const cipher = createCipheriv('aes-128-cbc', key, Buffer.alloc(16)).setAutoPadding(false);
		const encrypted = Buffer.concat([cipher.update(padded), cipher.final()]);
		expect(decryptE002(encrypted, key)).toEqual(data);
	});

	it('refuses data that is not whole blocks, or does not end in valid padding', () => {
		const key = newTransactionKey();
		expect(() => decryptE002(randomBytes(15), key)).toThrow(/not a whole number of AES blocks/);
		// A last block whose final byte is 0 is no padding at all (a count of 1 to 16 is).
		const { createCipheriv } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
		const cipher = createCipheriv('aes-128-cbc', key, Buffer.alloc(16)).setAutoPadding(false);
		const unpadded = Buffer.concat([cipher.update(Buffer.alloc(32, 0)), cipher.final()]);
		const decryptor = new E002Decryptor(key);
		decryptor.update(unpadded);
		expect(() => decryptor.final()).toThrow(new EbicsDataError('The encrypted order data does not decrypt to valid padding: it was encrypted with another transaction key, or it is damaged'));
	});
});

describe('X002 authentication signature', () => {
	it('is verified by xmlsec1 (XPointer to the authenticate="true" elements, inclusive C14N) and by our own check', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const xml = hpbRequest(subscriber, keys.authentication.privateKey);
		const publicPem = keys.authentication.publicKey.export({ type: 'spki', format: 'pem' }).toString();
		expect(xmlsecVerifyX002(xml, publicPem)).toEqual({ ok: true, output: expect.stringContaining('OK') });
		expect(() => verifyAuthSignature(parseDocument(xml, 'request'), keys.authentication.publicKey, 'The request')).not.toThrow();
		// Several authenticated elements (header and TransferReceipt): both are digested, in order.
		const receipt = receiptRequest('SBXHOST', 'A'.repeat(32), 0, keys.authentication.privateKey);
		expect(xmlsecVerifyX002(receipt, publicPem).ok).toBe(true);
	});

	it('fails, in xmlsec1 and in our check, when an authenticated value is changed after signing', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const publicPem = keys.authentication.publicKey.export({ type: 'spki', format: 'pem' }).toString();
		const tampered = receiptRequest('SBXHOST', 'A'.repeat(32), 0, keys.authentication.privateKey).replace('<ReceiptCode>0<', '<ReceiptCode>1<');
		expect(xmlsecVerifyX002(tampered, publicPem).ok).toBe(false);
		expect(() => verifyAuthSignature(parseDocument(tampered, 'r'), keys.authentication.publicKey, 'The bank\'s answer')).toThrow(
			new EbicsSignatureError("The bank's answer: the authentication signature does not match the content (digest differs: the message was changed after signing)"),
		);
	});

	it('fails with the other key, and names a missing signature', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const xml = hpbRequest(subscriber, keys.authentication.privateKey);
		expect(() => verifyAuthSignature(parseDocument(xml, 'r'), keys.signature.publicKey, 'The answer')).toThrow(/value does not verify/);
		const unsigned = xml.replace(/<AuthSignature>[\s\S]*<\/AuthSignature>/, '');
		expect(() => verifyAuthSignature(parseDocument(unsigned, 'r'), keys.authentication.publicKey, 'The answer')).toThrow(/has no AuthSignature/);
	});

	it("verifies a signature made by xmlsec1 (the way a bank's XML-DSig stack signs its answers)", async () => {
		const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const template = `<ebicsResponse xmlns="urn:org:ebics:H005" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Version="H005" Revision="1"><header authenticate="true"><static/><mutable><TransactionPhase>Initialisation</TransactionPhase><ReturnCode>000000</ReturnCode><ReportText>[EBICS_OK] OK</ReportText></mutable></header>${authSignatureTemplate()}<body><ReturnCode authenticate="true">000000</ReturnCode></body></ebicsResponse>`;
		const signed = xmlsecSignX002(template, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
		expect(signed).toMatch(/<ds:SignatureValue>[A-Za-z0-9+\/=\s]{300,}<\/ds:SignatureValue>/);
		expect(() => verifyAuthSignature(parseDocument(signed, 'r'), publicKey, 'r')).not.toThrow();
		// And xmlsec1 verifies what we sign the same way.
		expect(xmlsecVerifyX002(signRequest(template, privateKey), publicKey.export({ type: 'spki', format: 'pem' }).toString()).ok).toBe(true);
	});
});

describe('requests validate against the official H005 schemas', () => {
	it('HEV', () => {
		expect(validateEbics(hevRequest('SBXHOST'), 'ebics_hev.xsd').valid).toBe(true);
	});

	it('INI and HIA, with their order data', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const ini = iniOrderData(subscriber, keys.signature.certificateDer);
		expect(validateEbics(ini, 'ebics_signature_S002.xsd')).toEqual({ valid: true, output: expect.any(String) });
		const hia = hiaOrderData(subscriber, keys.authentication.certificateDer, keys.encryption.certificateDer);
		expect(validateEbics(hia).valid).toBe(true);
		for (const request of [unsecuredRequest(subscriber, 'INI', ini), unsecuredRequest({ ...subscriber, systemId: 'SYS1' }, 'HIA', hia)]) {
			const result = validateEbics(request);
			expect(result.output).toContain('validates');
			const orderData = /<OrderData>([^<]+)</.exec(request)?.[1] ?? '';
			expect(inflateSync(Buffer.from(orderData, 'base64')).toString()).toMatch(/SignaturePubKeyOrderData|HIARequestOrderData/);
		}
	});

	it('HPB, BTD with and without a date range, admin downloads, transfer and receipt', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const key = keys.authentication.privateKey;
		const service = checkService({ ...SERVICE_PRESETS.camt053.service, scope: 'DE', msgVersion: '08' });
		const requests = [
			hpbRequest(subscriber, key),
			downloadInitRequest(subscriber, 'BTD', { kind: 'BTD', service }, digests, key),
			downloadInitRequest(subscriber, 'BTD', { kind: 'BTD', service: { serviceName: 'STM', msgName: 'mt942', scope: 'CH', serviceOption: 'XQRR', msgVariant: '001', msgFormat: 'TXT' }, dateRange: { start: '2026-11-01', end: '2026-11-25' } }, digests, key),
			...['HTD', 'HKD', 'HAA'].map((type) => downloadInitRequest(subscriber, type, { kind: 'standard' }, digests, key)),
			...['HAC', 'PTK'].map((type) => downloadInitRequest(subscriber, type, { kind: 'standard', dateRange: { start: '2026-11-20', end: '2026-11-25' } }, digests, key)),
			downloadTransferRequest('SBXHOST', 'ABCDEF0123456789ABCDEF0123456789', 2, false, key),
			receiptRequest('SBXHOST', 'ABCDEF0123456789ABCDEF0123456789', 0, key),
			receiptRequest('SBXHOST', 'ABCDEF0123456789ABCDEF0123456789', 1, key),
		];
		for (const request of requests) expect({ request: request.slice(0, 300), ...validateEbics(request) }).toMatchObject({ valid: true });
		expect(requests[2]).toContain('<DateRange><Start>2026-11-01</Start><End>2026-11-25</End></DateRange>');
		expect(requests[1]).toContain('<Service><ServiceName>EOP</ServiceName><Scope>DE</Scope><Container containerType="ZIP"/><MsgName version="08">camt.053</MsgName></Service>');
	});

	it('BTU initialisation for each signature class, segment transfers, and SPR', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const bank = await testBankKeys();
		const key = keys.authentication.privateKey;
		const prepared = prepareUpload(Buffer.from('<Document/>'), {
			signatureKey: keys.signature.privateKey,
			signer: { partnerId: 'PARTNER1', userId: 'USER1' },
			bankEncryptionKey: createPublicKey(bank.encryptionCertificatePem as string),
		});
		const service = { ...SERVICE_PRESETS.sddCore.service, scope: 'DE', msgVersion: '08' };
		const inits = (['authorise', 'distributed', 'transport'] as const).map((signatureFlag) =>
			uploadInitRequest(subscriber, 'BTU', { kind: 'BTU', service, signatureFlag, fileName: 'payments.xml' }, digests, { ...prepared, numSegments: 1 }, key),
		);
		expect(inits[0]).toContain('<SignatureFlag/>');
		expect(inits[1]).toContain('<SignatureFlag requestEDS="true"/>');
		expect(inits[2]).not.toContain('SignatureFlag');
		const spr = uploadInitRequest(subscriber, 'SPR', { kind: 'standard' }, digests, { ...prepared, numSegments: 0 }, key);
		const transfer = uploadTransferRequest('SBXHOST', 'ABCDEF0123456789ABCDEF0123456789', 1, true, prepared.segments[0], key);
		for (const request of [...inits, spr, transfer]) expect(validateEbics(request)).toMatchObject({ valid: true });
	});

	it('refuses bad IDs and service parameters before building anything, naming the field', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const key = keys.authentication.privateKey;
		expect(() => hpbRequest({ ...subscriber, userId: 'USER 1' }, key)).toThrow(
			new EbicsValidationError('userId', 'User ID "USER 1" is not valid: 1 to 35 letters, digits, "," or "=" (EBICS UserID)'),
		);
		expect(() => hpbRequest({ ...subscriber, hostId: '' }, key)).toThrow(/Host ID is required/);
		expect(() => hpbRequest({ ...subscriber, partnerId: 'P'.repeat(36) }, key)).toThrow(/Partner ID .* is not valid/);
		expect(() => checkService({ serviceName: 'eop', msgName: 'camt.053' })).toThrow(/service.serviceName "eop" is not valid: it must be three upper-case/);
		expect(() => checkService({ serviceName: 'EOP', msgName: 'CAMT.053' })).toThrow(/service.msgName/);
		expect(() => checkService({ serviceName: 'EOP', msgName: 'camt.053', container: 'TAR' as 'ZIP' })).toThrow(/service.container "TAR"/);
		expect(() => downloadInitRequest(subscriber, 'BTD', { kind: 'BTD', service: SERVICE_PRESETS.camt053.service, dateRange: { start: '2026-11-31', end: '2026-12-01' } }, digests, key)).toThrow(
			/dateRange.start must be a date written YYYY-MM-DD/,
		);
		expect(() => downloadInitRequest(subscriber, 'BTD', { kind: 'BTD', service: SERVICE_PRESETS.camt053.service, dateRange: { start: '2026-12-02', end: '2026-12-01' } }, digests, key)).toThrow(
			/the start 2026-12-02 is after the end 2026-12-01/,
		);
	});
});

describe('segmentation', () => {
	it('cuts the encrypted order data into base64 segments of at most 1,048,576 characters that decode back', async () => {
		const keys = loadSubscriberKeys(await testSubscriberKeys());
		const bank = await testBankKeys();
		const data = randomBytes(2_000_000); // incompressible: three segments
		const prepared = prepareUpload(data, {
			signatureKey: keys.signature.privateKey,
			signer: { partnerId: 'P', userId: 'U' },
			bankEncryptionKey: createPublicKey(bank.encryptionCertificatePem as string),
		});
		const lengths = prepared.segments.map((segment) => segment.length);
		expect(lengths.slice(0, 2)).toEqual([SEGMENT_MAX_BASE64, SEGMENT_MAX_BASE64]);
		expect(lengths).toHaveLength(3);
		expect(lengths[2]).toBeLessThanOrEqual(SEGMENT_MAX_BASE64);
		const key = unwrapTransactionKey(prepared.wrappedTransactionKey, createPrivateKey(bank.encryptionKeyPem));
		expect(decodeDownload(prepared.segments, key).equals(data)).toBe(true);
		expect(prepared.dataDigest).toEqual(orderDataDigest(data));
		const signature = inflateSync(decryptE002(prepared.encryptedSignatureData, key)).toString();
		expect(validateEbics(signature, 'ebics_signature_S002.xsd').valid).toBe(true);
	});

	it('reads segments whose base64 is cut anywhere, and names a damaged or cut-off segment', () => {
		const key = newTransactionKey();
		const data = randomBytes(5000);
		const text = encryptE002(deflateSync(data), key).toString('base64');
		expect(decodeDownload([text.slice(0, 1001), text.slice(1001, 3003), text.slice(3003)], key)).toEqual(data);
		expect(() => decodeDownload([text.slice(0, 1000), '%%%', text.slice(1003)], key)).toThrow(
			new EbicsDataError('Segment 2 of the order data is damaged: its OrderData is not base64'),
		);
		expect(() => decodeDownload([text.slice(0, 1000)], key)).toThrow(EbicsDataError);
		const flipped = Buffer.from(text, 'base64');
		flipped[100] ^= 0xff;
		expect(() => decodeDownload([flipped.toString('base64')], key)).toThrow(/does not decompress: a segment is damaged/);
		const decoder = new DownloadDecoder(key);
		decoder.segment(text.slice(0, 1001));
		expect(() => decoder.end()).toThrow(/ends in the middle of a group/);
	});
});

describe('ZIP containers', () => {
	const archive = Buffer.from(zipSync({ 'camt053_1.xml': Buffer.from('<Document>1</Document>'), 'sub/camt053_2.xml': Buffer.from('<Document>2</Document>') }));

	it('opens into one file per entry', () => {
		expect(openContainer(archive, { container: 'ZIP', name: 'x' }).map((f) => [f.name, f.data.toString()])).toEqual([
			['camt053_1.xml', '<Document>1</Document>'],
			['sub/camt053_2.xml', '<Document>2</Document>'],
		]);
		expect(openContainer(Buffer.from('<Document/>'), { name: 'camt.053.xml' })).toEqual([{ name: 'camt.053.xml', data: Buffer.from('<Document/>') }]);
	});

	it('names a truncated archive and data that is no archive', () => {
		expect(() => openContainer(archive.subarray(0, archive.length - 30), { container: 'ZIP', name: 'x' })).toThrow(/The ZIP container is damaged or cut off/);
		expect(() => openContainer(Buffer.from('<Document/>'), { container: 'ZIP', name: 'x' })).toThrow(/announced as a ZIP container but is not a ZIP archive/);
	});
});

describe('keys', () => {
	it('checks imported keys: readable, RSA of 2048 bits at least, certificate of the key, three different keys', async () => {
		const keys = await testSubscriberKeys();
		expect(() => loadSubscriberKeys({ ...keys, encryption: keys.authentication })).toThrow(/three different keys/);
		expect(() => loadSubscriberKeys({ ...keys, encryption: { ...keys.encryption, certificatePem: keys.signature.certificatePem } })).toThrow(
			new EbicsKeyError('encryption key (E002)', 'The encryption key (E002) certificate does not belong to its private key'),
		);
		expect(() => loadSubscriberKeys({ ...keys, signature: { ...keys.signature, privateKeyPem: 'not a key' } })).toThrow(/signature key \(A006\) private key cannot be read/);
		const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
		expect(() => loadKeyPair({ privateKeyPem: small, certificatePem: keys.signature.certificatePem }, 'signature key (A006)')).toThrow(/has 1024 bits; EBICS 3.0 needs at least 2048/);
		const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
		expect(() => loadKeyPair({ privateKeyPem: ec, certificatePem: keys.signature.certificatePem }, 'signature key (A006)')).toThrow(/must be an RSA key/);
	});

	it('never puts key material in an error message', async () => {
		const keys = await testSubscriberKeys();
		const body = keys.signature.privateKeyPem.split('\n')[1];
		let message = '';
		try {
			loadSubscriberKeys({ ...keys, signature: { ...keys.signature, privateKeyPem: keys.signature.privateKeyPem.replace(body, body.slice(0, 10)) } });
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message).toMatch(/cannot be read/);
		expect(message).not.toContain(body.slice(0, 10));
	});
});

describe('return codes', () => {
	it('has the technical and business tables of the annex, with names, meanings and actions', () => {
		expect(TECHNICAL_RETURN_CODES.get('091002')).toMatchObject({ name: 'EBICS_INVALID_USER_OR_USER_STATE', action: expect.stringContaining('send the signed initialisation letters and wait') });
		expect(TECHNICAL_RETURN_CODES.get('091008')?.name).toBe('EBICS_BANK_PUBKEY_UPDATE_REQUIRED');
		expect(TECHNICAL_RETURN_CODES.get('061001')?.name).toBe('EBICS_AUTHENTICATION_FAILED');
		expect(BUSINESS_RETURN_CODES.get('091301')?.name).toBe('EBICS_SIGNATURE_VERIFICATION_FAILED');
		expect(BUSINESS_RETURN_CODES.get('090005')?.name).toBe('EBICS_NO_DOWNLOAD_DATA_AVAILABLE');
		expect(TECHNICAL_RETURN_CODES.size + BUSINESS_RETURN_CODES.size).toBeGreaterThan(65);
		expect(returnCodeInfo('091301', 'technical')?.level).toBe('business');
	});

	it('checks both levels: an error in the body under an OK header is an error; notes and warnings pass; 090005 only where allowed', () => {
		expect(() => checkReturnCodes({ technical: '000000', business: '091116', reportText: 'Erreur' }, 'BTU initialisation')).toThrow(
			new EbicsReturnCodeError('091116', 'business', BUSINESS_RETURN_CODES.get('091116'), 'Erreur', 'BTU initialisation'),
		);
		expect(() => checkReturnCodes({ technical: '011000', business: '000000' }, 'receipt')).not.toThrow();
		// A warning means the order was processed: no error (that would invite a second submission).
		expect(() => checkReturnCodes({ technical: '031001', business: '011301' }, 'BTU initialisation')).not.toThrow();
		expect(() => checkReturnCodes({ technical: '000000', business: '090005' }, 'BTD')).toThrow(/EBICS_NO_DOWNLOAD_DATA_AVAILABLE/);
		expect(() => checkReturnCodes({ technical: '000000', business: '090005' }, 'BTD', { allowNoData: true })).not.toThrow();
		expect(() => checkReturnCodes({ technical: '061001', business: '000000' }, 'HPB')).toThrow(/HPB: the bank answered 061001 EBICS_AUTHENTICATION_FAILED/);
	});
});

describe('initialisation letters', () => {
	it('print the SHA-256 hash of each certificate in HTML and PDF, and give the hashes as fields', async () => {
		const keys = await testSubscriberKeys();
		const at = new Date('2026-11-26T08:30:00Z');
		const letters = await initialisationLetters(
			{ hostId: 'SBXHOST', partnerId: 'PARTNER1', userId: 'USER1', bankName: 'Sandbox Bank', subscriberName: 'Sandbox Customer GmbH' },
			{ signature: keys.signature.certificatePem, authentication: keys.authentication.certificatePem, encryption: keys.encryption.certificatePem },
			at,
		);
		const loaded = loadSubscriberKeys(keys);
		expect(letters.hashes).toEqual({
			signature: formatHash(createHash('sha256').update(loaded.signature.certificateDer).digest()),
			authentication: formatHash(createHash('sha256').update(loaded.authentication.certificateDer).digest()),
			encryption: formatHash(createHash('sha256').update(loaded.encryption.certificateDer).digest()),
		});
		expect(letters.letters.map((l) => [l.order, l.keys.map((k) => k.version)])).toEqual([
			['INI', ['A006']],
			['HIA', ['X002', 'E002']],
		]);
		for (const hash of Object.values(letters.hashes)) expect(letters.html).toContain(hash);
		expect(letters.html).toContain('<td>PARTNER1</td>');
		expect(letters.html).toContain(keys.encryption.certificatePem.trim().split(/\r?\n/)[1]);
		const pdf = await PDFDocument.load(letters.pdf);
		expect(pdf.getPageCount()).toBe(2);
		expect(pdf.getTitle()).toBe('EBICS initialisation letters PARTNER1 USER1');
		// Standard fonts write text as hex strings: the hash lines are in the pages' content streams,
		// read through the document's own structure (a compressed stream may end in any byte).
		const content = pdf
			.getPages()
			.flatMap((page) => {
				const contents = page.node.Contents();
				const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => pdf.context.lookup(ref)) : [contents];
				return streams.filter((stream): stream is PDFRawStream => stream instanceof PDFRawStream);
			})
			.map((stream) => Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1'))
			.join('\n');
		const shown = [...content.matchAll(/<([0-9A-Fa-f]+)> Tj/g)].map((m) => Buffer.from(m[1], 'hex').toString('latin1'));
		for (const hash of Object.values(letters.hashes)) for (const line of hash.split('\n')) expect(shown).toContain(line);
		expect(shown).toContain('EBICS initialisation letter (HIA)');
	});
});
