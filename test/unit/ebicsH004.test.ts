/**
 * EBICS 2.5 (H004) without a bank: every H004 request against the official H004 schemas, the
 * X002 signature of an H004 request checked by xmlsec1, the letters' hash of the public key
 * against the independent implementation of the npm package ebics-client, a real bank's H004
 * HPB answer (Credit Suisse test system) read into the bank's bare keys, and what is refused
 * before anything is sent.
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream } from 'pdf-lib';

import {
	decodeDownload,
	downloadTransferRequest,
	EbicsValidationError,
	formatHash,
	H004_NS,
	h004Dialect,
	hiaOrderDataH004,
	hpbRequestH004,
	initialisationLetters,
	iniOrderDataH004,
	loadBankKeys,
	loadSubscriberKeys,
	parseDocument,
	prepareUpload,
	publicKeyDigest,
	readHpbOrderDataH004,
	readResponse,
	receiptRequest,
	S001_NS,
	unsecuredRequestH004,
	unwrapTransactionKey,
	uploadTransferRequest,
	verifyAuthSignature,
	type OrderParams,
} from '../../nodes/shared/ebics';
import { testBankKeys, testSubscriberKeys, validateEbics, xmlsecVerifyX002 } from '../helpers/ebics';

const H004_XSD = 'H004/ebics_H004.xsd';
const subscriber = { hostId: 'SBXHOST', partnerId: 'PARTNER1', userId: 'USER1', product: { name: 'n8n-nodes-corporate-banking' } };
const digests = { authentication: randomBytes(32), encryption: randomBytes(32) };
const DIR = path.resolve(__dirname, '../fixtures/ebics/node-ebics');

function expectValid(xml: string | Buffer, schema = H004_XSD): void {
	const result = validateEbics(xml, schema);
	expect(result.output).toMatch(/validates/);
	expect(result.valid).toBe(true);
}

async function loaded() {
	return loadSubscriberKeys(await testSubscriberKeys());
}

describe('H004 requests against the official H004 schemas', () => {
	it('INI and HIA with certificates and keys, or bare keys (RSAKeyValue)', async () => {
		const keys = await loaded();
		for (const form of ['certificate', 'key'] as const) {
			const ini = iniOrderDataH004(subscriber, keys.signature, form);
			expectValid(ini, 'H004/ebics_signature.xsd');
			expect(ini.includes('<ds:X509Certificate>')).toBe(form === 'certificate');
			expect(ini).toContain('<PubKeyValue><ds:RSAKeyValue><ds:Modulus>');
			const hia = hiaOrderDataH004(subscriber, keys.authentication, keys.encryption, form);
			expectValid(hia, 'H004/ebics_orders_H004.xsd');
			for (const [type, data] of [['INI', ini], ['HIA', hia]] as const) {
				const request = unsecuredRequestH004(subscriber, type, data);
				expectValid(request);
				expect(request).toContain(`<OrderType>${type}</OrderType><OrderAttribute>DZNNN</OrderAttribute>`);
				const body = /<OrderData>([^<]+)</.exec(request)?.[1] ?? '';
				expect(inflateSync(Buffer.from(body, 'base64')).toString('utf8')).toBe(data);
			}
		}
		// The modulus and exponent are those of the key.
		const ini = iniOrderDataH004(subscriber, keys.signature, 'key');
		const jwk = keys.signature.publicKey.export({ format: 'jwk' });
		expect(ini).toContain(`<ds:Modulus>${Buffer.from(jwk.n as string, 'base64url').toString('base64')}</ds:Modulus>`);
		expect(ini).toContain('<ds:Exponent>AQAB</ds:Exponent>');
	});

	it('HPB, signed with X002 (verified by xmlsec1)', async () => {
		const keys = await loaded();
		const xml = hpbRequestH004(subscriber, keys.authentication.privateKey);
		expectValid(xml);
		expect(xml).toContain('<OrderType>HPB</OrderType><OrderAttribute>DZHNN</OrderAttribute>');
		const pem = keys.authentication.publicKey.export({ type: 'spki', format: 'pem' }).toString();
		expect(xmlsecVerifyX002(xml, pem)).toMatchObject({ ok: true });
		expect(() => verifyAuthSignature(parseDocument(xml, 'HPB'), keys.authentication.publicKey, 'HPB')).not.toThrow();
	});

	it('download initialisations: standard with a date range, FDL with a file format and country', async () => {
		const keys = await loaded();
		const dialect = h004Dialect();
		const cases: Array<[string, OrderParams, RegExp]> = [
			['C53', { kind: 'standard', dateRange: { start: '2026-01-01', end: '2026-01-31' } }, /<OrderType>C53<\/OrderType><OrderAttribute>DZHNN<\/OrderAttribute><StandardOrderParams><DateRange><Start>2026-01-01<\/Start>/],
			['STA', { kind: 'standard' }, /<StandardOrderParams\/>|<StandardOrderParams><\/StandardOrderParams>/],
			['HAC', { kind: 'standard' }, /<OrderType>HAC<\/OrderType>/],
			['FDL', { kind: 'file', fileFormat: 'camt.xxx.cfonb120.stm', countryCode: 'FR', dateRange: { start: '2026-02-01', end: '2026-02-02' } }, /<FDLOrderParams><DateRange>.*<\/DateRange><FileFormat CountryCode="FR">camt.xxx.cfonb120.stm<\/FileFormat><\/FDLOrderParams>/],
		];
		for (const [type, params, expected] of cases) {
			const xml = dialect.downloadInitRequest(subscriber, type, params, digests, keys.authentication.privateKey);
			expectValid(xml);
			expect(xml).toMatch(expected);
			expect(xml).toMatch(/^<\?xml[^>]*\?><ebicsRequest xmlns="urn:org:ebics:H004" xmlns:ds="[^"]+" Version="H004" Revision="1">/);
			expect(xml).toContain(`<Authentication Version="X002" Algorithm="http://www.w3.org/2001/04/xmlenc#sha256">${digests.authentication.toString('base64')}</Authentication>`);
		}
	});

	it('upload initialisation (OZHNN with an ES, DZHNN with a transport signature), transfers and receipts', async () => {
		const keys = await loaded();
		const bank = await testBankKeys();
		const prepared = prepareUpload(Buffer.from('<Document/>'), {
			signatureKey: keys.signature.privateKey,
			signer: { partnerId: subscriber.partnerId, userId: subscriber.userId },
			bankEncryptionKey: createPublicKey(bank.encryptionCertificatePem as string),
			signatureNamespace: S001_NS,
		});
		const dialect = h004Dialect();
		const data = { ...prepared, numSegments: prepared.segments.length };
		const cct = dialect.uploadInitRequest(subscriber, 'CCT', { kind: 'standard' }, digests, data, keys.authentication.privateKey);
		expectValid(cct);
		expect(cct).toContain('<OrderType>CCT</OrderType><OrderAttribute>OZHNN</OrderAttribute><StandardOrderParams/>');
		expect(cct).not.toContain('DataDigest');
		const ful = dialect.uploadInitRequest(subscriber, 'FUL', { kind: 'file', fileFormat: 'pain.001.001.03.sct', signatureFlag: 'transport' }, digests, data, keys.authentication.privateKey);
		expectValid(ful);
		expect(ful).toContain('<OrderAttribute>DZHNN</OrderAttribute><FULOrderParams><FileFormat>pain.001.001.03.sct</FileFormat></FULOrderParams>');
		// The UserSignatureData in the S001 namespace, valid against ebics_signature.xsd.
		const bankPrivate = createPrivateKey(bank.encryptionKeyPem);
		const transactionKey = unwrapTransactionKey(prepared.wrappedTransactionKey, bankPrivate);
		const signature = decodeDownload([prepared.encryptedSignatureData.toString('base64')], transactionKey);
		expectValid(signature, 'H004/ebics_signature.xsd');
		expect(signature.toString()).toContain(`<UserSignatureData xmlns="${S001_NS}">`);
		const id = 'A'.repeat(32);
		expectValid(uploadTransferRequest('SBXHOST', id, 1, true, prepared.segments[0], keys.authentication.privateKey, 'H004'));
		expectValid(downloadTransferRequest('SBXHOST', id, 2, false, keys.authentication.privateKey, 'H004'));
		const receipt = receiptRequest('SBXHOST', id, 0, keys.authentication.privateKey, 'H004');
		expectValid(receipt);
		const pem = keys.authentication.publicKey.export({ type: 'spki', format: 'pem' }).toString();
		expect(xmlsecVerifyX002(receipt, pem)).toMatchObject({ ok: true });
	});

	it('refuses what H004 does not have, naming the field, before anything is built', async () => {
		const keys = await loaded();
		const dialect = h004Dialect();
		const build = (type: string, params: OrderParams) => () => dialect.downloadInitRequest(subscriber, type, params, digests, keys.authentication.privateKey);
		expect(build('BTD', { kind: 'standard' })).toThrow(new EbicsValidationError('orderType', 'BTD is an EBICS 3.0 order type: an EBICS 2.5 (H004) bank takes the order type of the file (e.g. C53, CCT, FDL, FUL)'));
		expect(build('C53', { kind: 'BTD', service: { serviceName: 'EOP', msgName: 'camt.053' } })).toThrow(/BTF services \(BTD, BTU\) belong to EBICS 3.0/);
		expect(build('c53', { kind: 'standard' })).toThrow(/Order type "c53" is not valid: three upper-case letters or digits/);
		expect(build('FDL', { kind: 'standard' })).toThrow(/FDL needs the file format the bank names/);
		expect(build('FDL', { kind: 'file', fileFormat: 'camt 053' })).toThrow(/File format "camt 053" is not valid/);
		expect(build('FDL', { kind: 'file', fileFormat: 'camt.053', countryCode: 'fr' })).toThrow(/Country code "fr" is not valid: two upper-case letters/);
		expect(build('C53', { kind: 'file', fileFormat: 'camt.053' })).toThrow(/A file format goes with order type FDL, not C53/);
		expect(build('C53', { kind: 'standard', dateRange: { start: '2026-02-30', end: '2026-03-01' } })).toThrow(/dateRange.start must be a date/);
	});
});

describe('EBICS 2.5 letters: the hash of the public key', () => {
	it('prints the hash of exponent and modulus as the independent ebics-client computes it, with the key numbers', async () => {
		const pems = await testSubscriberKeys();
		const letters = await initialisationLetters({ hostId: 'SBXHOST', partnerId: 'PARTNER1', userId: 'USER1' }, { signature: pems.signature.certificatePem, authentication: pems.authentication.certificatePem, encryption: pems.encryption.certificatePem }, new Date('2026-03-02T10:00:00Z'), 'H004');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const Key = require('ebics-client/lib/keymanagers/Key') as new (options: { pem: string }) => unknown;
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const Crypto = require('ebics-client/lib/crypto/Crypto') as { digestPublicKey(key: unknown): string };
		for (const [name, pair] of Object.entries({ signature: pems.signature, authentication: pems.authentication, encryption: pems.encryption })) {
			const publicPem = createPublicKey(pair.privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
			const theirs = formatHash(Buffer.from(Crypto.digestPublicKey(new Key({ pem: publicPem })), 'base64'));
			expect(letters.hashes[name as keyof typeof letters.hashes]).toBe(theirs);
			expect(theirs).toBe(formatHash(publicKeyDigest(createPublicKey(pair.privateKeyPem))));
		}
		expect(letters.html).toContain('H004 (EBICS 2.5)');
		expect(letters.html).toContain('Hash value of the public key (SHA-256 of exponent and modulus):');
		expect(letters.html).toContain('Exponent: 10001');
		expect(letters.letters[0].keys[0].modulus).toMatch(/^[0-9A-F]{512}$/);
		// The PDF shows every hash line and the key numbers (a long letter goes on over a further page).
		const pdf = await PDFDocument.load(letters.pdf);
		expect(pdf.getPageCount()).toBeGreaterThanOrEqual(2);
		const shown = pdf
			.getPages()
			.flatMap((page) => {
				const contents = page.node.Contents();
				const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => pdf.context.lookup(ref)) : [contents];
				return streams.filter((stream): stream is PDFRawStream => stream instanceof PDFRawStream);
			})
			.flatMap((stream) => [...Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1').matchAll(/<([0-9A-Fa-f]+)> Tj/g)].map((m) => Buffer.from(m[1], 'hex').toString('latin1')));
		for (const hash of Object.values(letters.hashes)) for (const line of hash.split('\n')) expect(shown).toContain(line);
		expect(shown).toContain('Exponent: 10001');
		expect(shown).toContain('EBICS version');
		expect(shown).toContain('H004 (EBICS 2.5)');
		expect(shown).toContain('Signature');
		// The H005 letters keep the certificate hash.
		const h005 = await initialisationLetters({ hostId: 'SBXHOST', partnerId: 'PARTNER1', userId: 'USER1' }, { signature: pems.signature.certificatePem, authentication: pems.authentication.certificatePem, encryption: pems.encryption.certificatePem });
		expect(h005.hashes.signature).not.toBe(letters.hashes.signature);
		expect(h005.html).not.toContain('Exponent:');
	});

	it("reproduces the EBICS 2.5 specification's example letter hash (railslove/epics issue #44)", () => {
		const modulus =
			'9b864d2e729e9e039478eb9641e627c6f298b9b54dacb2b899c6137c6a67a39356b0c0e2bb22d5f14a4e3eb5e0509a416ea5958f75cfa304f9ba3218bfed24ecb6065e628042f97ac1322cf3753fd592722ca283e8b5471259f64bcda64ed87f7b56dad9573279b47b6679c9f718407ecfac5c46146ab7701d47d051e781622b49d7095f47a44ca33f6704024b403d71aa5f3ea230537730710a96dd62be6cbf4027280c9fffe06d0a8c5ee075e230a449136508e5a911e37d1cff7fb931181f';
		const key = createPublicKey({ key: { kty: 'RSA', n: Buffer.from(modulus, 'hex').toString('base64url'), e: 'AQAB' }, format: 'jwk' });
		const hpb = `<HPBResponseOrderData xmlns="${H004_NS}" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">${['Authentication', 'Encryption'].map((k) => `<${k}PubKeyInfo><PubKeyValue><ds:RSAKeyValue><ds:Modulus>${Buffer.from(modulus, 'hex').toString('base64')}</ds:Modulus><ds:Exponent>AQAB</ds:Exponent></ds:RSAKeyValue></PubKeyValue><${k}Version>${k === 'Authentication' ? 'X002' : 'E002'}</${k}Version></${k}PubKeyInfo>`).join('')}<HostID>SPEC</HostID></HPBResponseOrderData>`;
		expectValid(hpb, 'H004/ebics_orders_H004.xsd');
		const read = loadBankKeys(readHpbOrderDataH004(hpb).keys);
		expect(read.authentication.certificate).toBeUndefined();
		expect(formatHash(publicKeyDigest(read.authentication.publicKey))).toBe('D4 7A 24 27 5C 5F D8 0D 50 1B CF 28 C5 38 FE 1F\n51 DD 24 8B 3E 5C 72 D5 CD 47 9D 82 79 0C EF 52');
		expect(publicKeyDigest(key)).toEqual(publicKeyDigest(read.encryption.publicKey));
	});
});

describe("a real bank's H004 HPB answer (Credit Suisse test system, node-ebics test suite)", () => {
	it('is read as an H004 key management response, its order data as the bank\'s bare keys', () => {
		const answer = readFileSync(path.join(DIR, 'HPB_response.xml'), 'utf8');
		const response = readResponse(answer, 'HPB', { namespace: H004_NS });
		expect(response).toMatchObject({ root: 'ebicsKeyManagementResponse', codes: { technical: '000000', business: '000000' } });
		expect(() => readResponse(answer, 'HPB')).toThrow(/is not an EBICS 3.0 response: its root is ebicsKeyManagementResponse in urn:org:ebics:H004 \(the bank answers in H004: set the credential's EBICS Version/);
		const read = readHpbOrderDataH004(readFileSync(path.join(DIR, 'HPB_response_data.xml')));
		expect(read.hostId).toBe('CRSISOTB');
		expect(read.keys.authenticationCertificatePem).toBeUndefined();
		const keys = loadBankKeys(read.keys);
		expect(keys.authentication.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
		expect(() => readHpbOrderDataH004('<HPBResponseOrderData xmlns="urn:org:ebics:H005"/>')).toThrow(/not an H004 HPBResponseOrderData/);
	});
});
