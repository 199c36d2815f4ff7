/**
 * The distributed signature in EBICS 2.5 (H004) without a bank: the HVU, HVZ, HVD and HVT
 * initialisations (DZHNN, H004 order parameters naming the order by OrderType), HVE (UZHNN, a
 * signature only: S001 UserSignatureData with the A006 signature of the order's DataDigest, no
 * order data, no DataDigest element) and HVS (OZHNN: the same signature, and its
 * HVSRequestOrderData as order data) against the official H004 schemas; the
 * readers of H004 order data on the answers of a real bank (epics suite) and on an HVT answer
 * valid against ebics_orders_H004.xsd; order references checked before anything is built.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';

import {
	child,
	decryptE002,
	downloadInitRequestH004,
	EbicsClient,
	EbicsFormatError,
	EbicsVeu,
	H004_NS,
	hvListParams,
	hvOrderParams,
	hvsOrderData,
	hvtOrderParams,
	orderDataDigest,
	parseDocument,
	path as xmlPath,
	readVeuDetails,
	readVeuOrders,
	readVeuTransactions,
	S001_NS,
	text,
	unwrapTransactionKey,
	verifyA006,
	type EbicsSubscriberKeys,
} from '../../nodes/shared/ebics';
import { testBankKeys, testSubscriberKeys, validateEbics } from '../helpers/ebics';

const EPICS = path.join(__dirname, '../fixtures/ebics/epics');
const epics = (name: string): Buffer => readFileSync(path.join(EPICS, name));
const H004_XSD = 'H004/ebics_H004.xsd';
const ORDERS_XSD = 'H004/ebics_orders_H004.xsd';

const subscriber = { hostId: 'SBXHOST', partnerId: 'PARTNER4', userId: 'SIGNER2' };
const ref = { partnerId: 'PARTNER4', orderType: 'CCT', orderId: 'A1B2' };
const digests = { authentication: Buffer.alloc(32, 1), encryption: Buffer.alloc(32, 2) };

function expectValid(xml: string | Buffer, schema = H004_XSD): void {
	expect(validateEbics(xml, schema)).toEqual({ valid: true, output: expect.stringContaining('validates') });
}

let keys: EbicsSubscriberKeys;
beforeAll(async () => {
	keys = await testSubscriberKeys();
});

describe('H004 distributed signature requests', () => {
	test('HVU and HVZ (with an order type filter), HVD and HVT (a page, the complete file) are valid H004 downloads', () => {
		const key = createPrivateKey(keys.authentication.privateKeyPem);
		const params: Array<[string, string]> = [
			['HVU', hvListParams('HVU', [], 'H004')],
			['HVZ', hvListParams('HVZ', [], 'H004', ['CCT', 'CDD'])],
			['HVD', hvOrderParams('HVD', ref, 'H004')],
			['HVT', hvtOrderParams(ref, { completeOrderData: false, limit: 10, offset: 0 }, 'H004')],
			['HVT', hvtOrderParams({ ...ref, orderType: 'FUL', fileFormat: 'pain.001.001.03.sct' }, { completeOrderData: true }, 'H004')],
		];
		for (const [orderType, xml] of params) {
			const request = downloadInitRequestH004(subscriber, orderType, { kind: 'element', xml }, digests, key);
			expectValid(request);
			expect(request).toContain(`<OrderType>${orderType}</OrderType><OrderAttribute>DZHNN</OrderAttribute><${orderType}OrderParams`);
		}
		expect(params.map(([, xml]) => xml)).toEqual([
			'<HVUOrderParams></HVUOrderParams>',
			'<HVZOrderParams><OrderTypes>CCT CDD</OrderTypes></HVZOrderParams>',
			'<HVDOrderParams><PartnerID>PARTNER4</PartnerID><OrderType>CCT</OrderType><OrderID>A1B2</OrderID></HVDOrderParams>',
			'<HVTOrderParams><PartnerID>PARTNER4</PartnerID><OrderType>CCT</OrderType><OrderID>A1B2</OrderID><OrderFlags completeOrderData="false" fetchLimit="10" fetchOffset="0"></OrderFlags></HVTOrderParams>',
			'<HVTOrderParams><PartnerID>PARTNER4</PartnerID><OrderType>FUL</OrderType><FileFormat>pain.001.001.03.sct</FileFormat><OrderID>A1B2</OrderID><OrderFlags completeOrderData="true" fetchLimit="0" fetchOffset="0"></OrderFlags></HVTOrderParams>',
		]);
	});

	test('order references are checked for H004 before anything is built: the order type, not a service', () => {
		expect(() => hvOrderParams('HVE', { ...ref, orderType: '' }, 'H004')).toThrow(/^Order Type is required with an EBICS 2\.5 \(H004\) credential/);
		expect(() => hvOrderParams('HVE', { ...ref, orderType: 'BTU' }, 'H004')).toThrow(/^BTU is an EBICS 3\.0 order type/);
		expect(() => hvOrderParams('HVE', { ...ref, orderType: 'CC T' }, 'H004')).toThrow(/^Order type "CC T" is not valid: three upper-case letters or digits/);
		expect(() => hvOrderParams('HVE', { ...ref, orderType: 'FUL', fileFormat: 'pain 001' }, 'H004')).toThrow(/^File format "pain 001" is not valid/);
		expect(() => hvOrderParams('HVE', { ...ref, orderId: 'a1' }, 'H004')).toThrow(/^Order ID "A1" is not valid/);
		expect(() => hvListParams('HVU', [], 'H004', ['BTD'])).toThrow(/^BTD is an EBICS 3\.0 order type/);
		// An order type typed in lower case is the bank's order type.
		expect(hvOrderParams('HVS', { ...ref, orderType: 'cct', orderId: 'a1b2' }, 'H004')).toBe(
			'<HVSOrderParams><PartnerID>PARTNER4</PartnerID><OrderType>CCT</OrderType><OrderID>A1B2</OrderID></HVSOrderParams>',
		);
	});

	test.each([
		['HVE', 'UZHNN', 0],
		['HVS', 'OZHNN', 1],
	] as const)("%s goes as %s with %i segments: this subscriber's A006 signature of the order's DataDigest, valid against the H004 schemas", async (orderType, attribute, numSegments) => {
		const bank = await testBankKeys();
		const sent: string[] = [];
		const send = async (xml: string): Promise<string> => {
			sent.push(xml);
			throw new Error('stop after the first request');
		};
		const options = { subscriber, version: 'H004' as const, keys: { version: 1 as const, subscriber: keys, bank }, send };
		const veu = new EbicsVeu(new EbicsClient(options), options);
		const digest = orderDataDigest(Buffer.from('<Document>the order</Document>'));
		const sendOrder = (veu as unknown as { send: (t: string, r: typeof ref, d: Buffer, o?: string) => Promise<unknown> }).send.bind(veu);
		// HVS cancels with its order data: the digest of the order it cancels (what confirmed() passes).
		const orderData = orderType === 'HVS' ? hvsOrderData(digest, H004_NS) : undefined;
		await expect(sendOrder(orderType, ref, digest, orderData)).rejects.toThrow('stop after the first request');
		const xml = sent[0];
		expectValid(xml);
		expect(xml).toContain(`<OrderDetails><OrderType>${orderType}</OrderType><OrderAttribute>${attribute}</OrderAttribute><${orderType}OrderParams><PartnerID>PARTNER4</PartnerID><OrderType>CCT</OrderType><OrderID>A1B2</OrderID></${orderType}OrderParams></OrderDetails>`);
		expect(xml).toContain(`<NumSegments>${numSegments}</NumSegments>`);
		const doc = parseDocument(xml, 'request');
		const transfer = xmlPath(doc.documentElement, H004_NS, 'body', 'DataTransfer');
		// H004 has no DataDigest in the request; the order data (HVS) follows in the transfer phase.
		expect(child(transfer, H004_NS, 'DataDigest')).toBeUndefined();
		expect(child(transfer, H004_NS, 'OrderData')).toBeUndefined();
		// The bank's digests in the H004 form (hash of exponent and modulus).
		expect(text(xmlPath(doc.documentElement, H004_NS, 'header', 'static', 'BankPubKeyDigests', 'Encryption'))).toBe(text(child(child(transfer, H004_NS, 'DataEncryptionInfo'), H004_NS, 'EncryptionPubKeyDigest')));
		// What the bank does: unwrap the transaction key, decrypt the signature, verify it over the order's digest.
		const transactionKey = unwrapTransactionKey(Buffer.from(text(xmlPath(transfer, H004_NS, 'DataEncryptionInfo', 'TransactionKey'))!, 'base64'), createPrivateKey(bank.encryptionKeyPem));
		const signatureXml = inflateSync(decryptE002(Buffer.from(text(child(transfer, H004_NS, 'SignatureData'))!, 'base64'), transactionKey));
		expectValid(signatureXml, 'H004/ebics_signature.xsd');
		const signature = Buffer.from(text(xmlPath(parseDocument(signatureXml, 'signature').documentElement, S001_NS, 'OrderSignatureData', 'SignatureValue'))!, 'base64');
		expect(verifyA006(digest, signature, createPublicKey(keys.signature.certificatePem))).toBe(true);
		expect(verifyA006(orderDataDigest(Buffer.from('another order')), signature, createPublicKey(keys.signature.certificatePem))).toBe(false);
	});

	test("HVS's order data is an HVSRequestOrderData in the H004 namespace naming the cancelled order's digest, valid against ebics_orders_H004.xsd", () => {
		const digest = orderDataDigest(Buffer.from('<Document>the order</Document>'));
		const data = hvsOrderData(digest, H004_NS);
		expectValid(data, ORDERS_XSD);
		const root = parseDocument(data, 'HVS order data').documentElement;
		expect(root.namespaceURI).toBe(H004_NS);
		expect(text(child(root, H004_NS, 'CancelledDataDigest'))).toBe(digest.toString('base64'));
		expect(child(root, H004_NS, 'CancelledDataDigest')?.getAttribute('SignatureVersion')).toBe('A006');
	});
});

describe('H004 answers of a real bank (epics suite: HVU, HVZ, HVD of a German bank)', () => {
	const signers = [
		{ partnerId: 'RS', userId: 'RST', name: 'RS T', at: '2016-03-23T08:56:39.000000Z', authorisationLevel: 'T' },
		{ partnerId: 'RS', userId: 'RSA', name: 'RS A', at: '2016-03-23T09:26:33.000000Z', authorisationLevel: 'A' },
	];
	const first = {
		orderId: 'B03N',
		orderType: 'CCT',
		serviceLabel: 'CCT (SEPA credit transfer pain.001)',
		orderDataSize: 1776,
		readyToBeSigned: true,
		signaturesRequired: 1,
		signaturesDone: 1,
		signers,
		originator: { partnerId: 'RS', userId: 'RST', name: 'RS T', at: '2016-03-23T08:56:39.000000Z' },
		additionalInfo: undefined,
	};

	test('HVU: each order by its order type, with its signers and originator', () => {
		const orders = readVeuOrders(epics('hvu_response.xml'), 'HVU');
		expect(orders).toHaveLength(2);
		expect(orders[0]).toEqual(first);
		expect(orders[1]).toMatchObject({ orderId: 'B03P', orderType: 'CCT', signaturesDone: 0, signers: [expect.objectContaining({ userId: 'RST', authorisationLevel: 'T' })] });
		expect(orders[0].service).toBeUndefined();
	});

	test('HVZ: the same orders with their data digests (the payment totals the bank adds are left aside)', () => {
		const orders = readVeuOrders(epics('hvz_response.xml'), 'HVZ');
		expect(orders[0]).toEqual({ ...first, dataDigest: '12 3F 50 E7 3B E9 79 FF 3B 57 D1 1F E6 F7 44 63 F6 A2 3E F1 22 55 8B A9 71 91 E2 AF 9D 46 F7 88' });
		expect(orders[1].dataDigest).toBe('20 D3 7A 28 6E 44 1D 5A 2F 3C BB 1B CD D9 CD 6D F2 FB 18 69 DE 63 3B 60 21 8C 57 95 14 30 C0 8E');
	});

	test('HVD: the digest HVZ lists, the ISO-8859-1 display file, the signers', () => {
		const details = readVeuDetails(epics('hvd_response.xml'));
		expect(details.dataDigest.toString('base64')).toBe('Ej9Q5zvpef87V9Ef5vdEY/aiPvEiVYupcZHir51G94g=');
		expect(details).toMatchObject({ signatureVersion: 'A006', orderDataAvailable: true, orderDataSize: 1776, orderDetailsAvailable: false, signers });
		expect(details.displayFile).toContain('Anzahl der Zahlungssätze     : 1');
		expect(details.displayFile).toContain('Ausführungstermin            : 23.03.2016');
	});

	test('a FUL order is named by its order type and file format (HVU valid against ebics_orders_H004.xsd)', () => {
		const xml = Buffer.from(
			'<HVUResponseOrderData xmlns="urn:org:ebics:H004"><OrderDetails><OrderType>FUL</OrderType><FileFormat CountryCode="FR">pain.001.001.03.sct</FileFormat><OrderID>A00C</OrderID><OrderDataSize>912</OrderDataSize>' +
				'<SigningInfo readyToBeSigned="false" NumSigRequired="2" NumSigDone="1"/><OriginatorInfo><PartnerID>P1</PartnerID><UserID>U1</UserID><Timestamp>2026-04-01T09:00:00Z</Timestamp></OriginatorInfo></OrderDetails></HVUResponseOrderData>',
		);
		expectValid(xml, ORDERS_XSD);
		expect(readVeuOrders(xml, 'HVU')).toEqual([
			{
				orderId: 'A00C',
				orderType: 'FUL',
				fileFormat: 'pain.001.001.03.sct',
				serviceLabel: 'FUL pain.001.001.03.sct (File by its format)',
				orderDataSize: 912,
				readyToBeSigned: false,
				signaturesRequired: 2,
				signaturesDone: 1,
				signers: [],
				originator: { partnerId: 'P1', userId: 'U1', name: undefined, at: '2026-04-01T09:00:00Z' },
				additionalInfo: undefined,
			},
		]);
	});

	test('an answer in another namespace than H004 or H005 is refused by name', () => {
		const xml = Buffer.from('<HVUResponseOrderData xmlns="urn:org:ebics:H003"/>');
		expect(() => readVeuOrders(xml, 'HVU')).toThrow(EbicsFormatError);
		expect(() => readVeuOrders(xml, 'HVU')).toThrow(/is not a HVUResponseOrderData \(the root is HVUResponseOrderData in urn:org:ebics:H003\)/);
	});
});

describe('H004 HVT answer (valid against ebics_orders_H004.xsd): OrderFormat instead of MsgName, national bank codes', () => {
	const xml = Buffer.from(
		'<?xml version="1.0" encoding="UTF-8"?>' +
			'<HVTResponseOrderData xmlns="urn:org:ebics:H004"><NumOrderInfos>2</NumOrderInfos>' +
			'<OrderInfo><OrderFormat>pain.001</OrderFormat>' +
			'<AccountInfo><AccountNumber Role="Originator" international="true">DE89370400440532013000</AccountNumber><BankCode Role="Originator">37040044</BankCode><AccountHolder Role="Originator">Müller GmbH</AccountHolder></AccountInfo>' +
			'<AccountInfo Currency="CHF"><AccountNumber Role="Recipient" international="true">CH5604835012345678009</AccountNumber><BankCode Role="Recipient" international="true">CRESCHZZ80A</BankCode></AccountInfo>' +
			'<ExecutionDate>2026-04-02</ExecutionDate><Amount isCredit="false" Currency="EUR">1250.00</Amount><Description Type="Purpose">Rechnung 4711</Description></OrderInfo>' +
			'<OrderInfo><AccountInfo><NationalAccountNumber Role="Originator" format="other">0532013000</NationalAccountNumber><NationalBankCode Role="Originator" format="other">37040044</NationalBankCode></AccountInfo>' +
			'<AccountInfo><AccountNumber Role="Other" Description="Ultimate creditor">FR1420041010050500013M02606</AccountNumber><BankCode Role="Other" international="true">BNPAFRPP</BankCode></AccountInfo>' +
			'<Amount>.50</Amount></OrderInfo></HVTResponseOrderData>',
	);

	test('is read transaction by transaction', () => {
		expectValid(xml, ORDERS_XSD);
		const page = readVeuTransactions(xml);
		expect(page.total).toBe(2);
		expect(page.transactions[0]).toEqual({
			msgName: 'pain.001',
			accounts: [
				{ role: 'Originator', accountNumber: 'DE89370400440532013000', international: true, bankCode: '37040044', holder: 'Müller GmbH', currency: 'EUR' },
				{ role: 'Recipient', accountNumber: 'CH5604835012345678009', international: true, bankCode: 'CRESCHZZ80A', currency: 'CHF' },
			],
			executionDate: '2026-04-02',
			amount: '1250.00',
			currency: 'EUR',
			isCredit: false,
			descriptions: [{ type: 'Purpose', text: 'Rechnung 4711' }],
		});
		expect(page.transactions[1]).toEqual({
			accounts: [
				{ role: 'Originator', accountNumber: '0532013000', bankCode: '37040044', currency: 'EUR' },
				{ role: 'Other', roleDescription: 'Ultimate creditor', accountNumber: 'FR1420041010050500013M02606', international: false, bankCode: 'BNPAFRPP', currency: 'EUR' },
			],
			amount: '.50',
			descriptions: [],
		});
	});
});
