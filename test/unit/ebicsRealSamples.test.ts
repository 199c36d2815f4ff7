/**
 * Known answers of the order data and answer readers on what banks send: the answers of bank
 * test systems published in public EBICS clients' test suites (test/fixtures/ebics/epics and
 * node-ebics, taken unchanged), and synthetic answers of this project that carry the features
 * seen in real answers whose licence does not allow copying or whose version the reader does not
 * claim (test/fixtures/ebics/synthetic). See test/fixtures/ebics/README.md for each source.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
	EbicsFormatError,
	EbicsReturnCodeError,
	EbicsSignatureError,
	readAvailableServices,
	readCustomerAcknowledgement,
	readCustomerInfo,
	readCustomerProtocol,
	readHpbOrderData,
	readResponse,
	readVeuDetails,
	readVeuOrders,
	readVeuTransactions,
} from '../../nodes/shared/ebics';
import { readHpbOrderDataH004 } from '../../nodes/shared/ebics/h004/orderData';
import { signRequest } from '../../nodes/shared/ebics/x002';
import { customerInfoItems } from '../../nodes/Ebics/helpers/customerInfo';
import { validateEbics } from '../helpers/ebics';

const EPICS = path.resolve(__dirname, '../fixtures/ebics/epics');
const SYNTHETIC = path.resolve(__dirname, '../fixtures/ebics/synthetic');
const H004 = 'urn:org:ebics:H004';

const epics = (name: string): Buffer => readFileSync(path.join(EPICS, name));
const synthetic = (name: string): Buffer => readFileSync(path.join(SYNTHETIC, name));

function thrown(fn: () => unknown): unknown {
	try {
		fn();
	} catch (error) {
		return error;
	}
	throw new Error('did not throw');
}

describe('HTD of the Zürcher Kantonalbank ISO test system (ZKBISOTB, EBICS 3.0, epics suite)', () => {
	const info = readCustomerInfo(epics('htd_order_data_h005.xml'), 'HTD');

	it('reads the customer and its account without attributes the bank left out', () => {
		expect(info.partner).toEqual({
			name: 'Test Company AG',
			country: 'Schweiz',
			hostId: 'ZKBISOTB',
			accounts: [{ id: '1', iban: 'CH5604835012345678000', bic: 'ZKBKCHZZ80A' }],
			orders: [],
		});
	});

	it("reads the services the bank lists directly under the user as the user's permissions", () => {
		expect(info.users).toHaveLength(1);
		expect(info.users[0]).toMatchObject({ userId: 'EBIX', status: 1, name: 'Test User' });
		expect(info.users[0].permissions.map((p) => p.service)).toEqual([
			{ serviceName: 'OTH', scope: 'BIL', serviceOption: 'CH004TPE', container: 'ZIP', msgName: 'msc' },
			{ serviceName: 'STM', scope: 'BIL', serviceOption: 'CH004TPE', container: 'ZIP', msgName: 'pain.001' },
			{ serviceName: 'SCT', scope: 'BIL', serviceOption: 'CH004TPE', container: 'ZIP', msgName: 'pain.008' },
			{ serviceName: 'CAMT', scope: 'BIL', serviceOption: 'CH004TPE', container: 'ZIP', msgName: 'camt.052' },
			{ serviceName: 'CAMT', scope: 'BIL', serviceOption: 'CH004TPE', container: 'ZIP', msgName: 'camt.053' },
		]);
	});

	it('gives the items a user sees: one per permission, one per account', () => {
		const permissions = customerInfoItems(info, 'permissions', 0).map((i) => i.json);
		expect(permissions).toHaveLength(5);
		expect(permissions[2]).toEqual({
			userId: 'EBIX',
			userName: 'Test User',
			userStatus: 1,
			service: 'SCT BIL CH004TPE pain.008 ZIP',
			serviceName: 'SCT',
			scope: 'BIL',
			serviceOption: 'CH004TPE',
			msgName: 'pain.008',
			container: 'ZIP',
		});
		expect(customerInfoItems(info, 'accounts', 0).map((i) => i.json)).toEqual([
			{ id: '1', iban: 'CH5604835012345678000', bic: 'ZKBKCHZZ80A' },
		]);
	});
});

describe('HTD of the Sparkassen test host SIZBN001 (EBICS 2.5, epics suite)', () => {
	it('is read in the H004 shape (test/unit/ebicsH004OrderData.test.ts has every field), never as an empty answer', () => {
		const info = readCustomerInfo(epics('htd_order_data.xml'), 'HTD');
		expect(info.partner.hostId).toBe('SIZBN001');
		expect(info.users[0].permissions).toHaveLength(24);
	});
});

describe('HKD with the features of the Sparkassen HTD (synthetic EBICS 3.0): national and international numbers, umlauts, national account numbers', () => {
	const info = readCustomerInfo(synthetic('HKDResponseOrderData.xml'), 'HKD');

	it('reads the customer, both accounts and the order types', () => {
		expect(info.partner).toEqual({
			name: 'Müller & Söhne GmbH',
			street: 'Domstraße 1',
			postCode: '50667',
			city: 'Köln',
			country: 'Deutschland',
			hostId: 'TESTHOST',
			accounts: [
				{
					id: '1',
					currency: 'EUR',
					description: 'Geschäftskonto',
					holder: 'Müller & Söhne GmbH',
					accountNumber: '1234567890',
					iban: 'DE02370501981234567890',
					bankCode: '37050198',
					bic: 'COLSDE33XXX',
				},
				{ id: '2', accountNumber: '0835-123456-01', bankCode: '700' },
			],
			orders: [
				{
					orderType: 'BTD',
					service: { serviceName: 'EOP', scope: 'DE', container: 'ZIP', msgName: 'camt.053', msgVersion: '08' },
					description: 'Abholen Tagesauszüge camt.053',
				},
				{
					orderType: 'BTU',
					service: { serviceName: 'SCT', msgName: 'pain.001', msgVersion: '09' },
					description: 'SEPA-Überweisung',
					numSigRequired: 2,
				},
				{ orderType: 'HVE', description: 'VEU-Unterschrift hinzufügen', numSigRequired: 1 },
			],
		});
	});

	it('gives one item per permission with the signature class, the account and its limit', () => {
		expect(customerInfoItems(info, 'permissions', 3).map((i) => i.json)).toEqual([
			{ userId: 'USERA', userName: 'Ebi, Epics', userStatus: 1, orderType: 'HTD' },
			{
				userId: 'USERA',
				userName: 'Ebi, Epics',
				userStatus: 1,
				orderType: 'BTU',
				service: 'SCT pain.001.09',
				serviceName: 'SCT',
				msgName: 'pain.001',
				msgVersion: '09',
				accountId: '1',
				iban: 'DE02370501981234567890',
				maxAmount: '100000.00',
				currency: 'EUR',
				signatureClass: 'A',
				signatureClassText: 'first of two signatures',
			},
			{
				userId: 'USERT',
				userStatus: 4,
				orderType: 'BTU',
				service: 'SCT pain.001.09',
				serviceName: 'SCT',
				msgName: 'pain.001',
				msgVersion: '09',
				signatureClass: 'T',
				signatureClassText: 'transport signature only',
			},
		]);
	});
});

describe('what an EBICS 3.0 HTD or HKD reader cannot read is refused by name, never read as less', () => {
	it('an EBICS 2.5 OrderType in the H005 namespace (the schema refuses it too)', () => {
		const xml = synthetic('HKDResponseOrderData.xml').toString('utf8').replace('<AdminOrderType>HVE</AdminOrderType>', '<OrderType>HVE</OrderType>');
		expect(xml).toContain('<OrderType>HVE</OrderType>');
		expect(validateEbics(xml)).toMatchObject({ valid: false });
		const error = thrown(() => readCustomerInfo(xml, 'HKD')) as Error;
		expect(error).toBeInstanceOf(EbicsFormatError);
		expect(error.message).toBe('The HKD order data (EBICS 3.0) cannot be read: OrderInfo holds OrderType, which ebics_orders_H005.xsd does not define there');
	});

	it("an account's UsageOrderTypes are read as the services it is limited to", () => {
		const xml = synthetic('HKDResponseOrderData.xml')
			.toString('utf8')
			.replace(/(<AccountInfo ID="2"[^>]*>[\s\S]*?)(<\/AccountInfo>)/, '$1<UsageOrderTypes><Service><ServiceName>SCT</ServiceName><MsgName>pain.001</MsgName></Service></UsageOrderTypes>$2');
		expect(xml).toContain('<UsageOrderTypes>');
		expect(validateEbics(xml)).toMatchObject({ valid: true });
		expect(readCustomerInfo(xml, 'HKD').partner.accounts[1]).toEqual({ id: '2', accountNumber: '0835-123456-01', bankCode: '700', usageServices: [{ serviceName: 'SCT', msgName: 'pain.001' }] });
	});
});

describe('HAA of the Zürcher Kantonalbank ISO test system (EBICS 3.0, epics suite)', () => {
	it('reads every service with data to fetch', () => {
		expect(readAvailableServices(epics('haa_response_h005.xml')).map((s) => `${s.serviceName}/${s.msgName}`)).toEqual([
			'OTH/msc',
			'STM/pain.001',
			'SCT/pain.008',
			'CAMT/camt.052',
			'CAMT/camt.053',
		]);
	});
});

describe('what French banks send (synthetic, with the features of answers quoted in ebics-client-php issues #29 and #179)', () => {
	it('INI refused in the body (X.509 only) under a tab-indented header that says OK: the body code, its meaning, no "OK" text', () => {
		const error = thrown(() => readResponse(synthetic('INI_body_error_tabs.xml').toString('utf8'), 'INI'));
		expect(error).toBeInstanceOf(EbicsReturnCodeError);
		expect(error).toMatchObject({ code: '091217', level: 'business', reportText: undefined });
		expect((error as Error).message).toBe('INI: the bank answered 091217 EBICS_ONLY_X509_SUPPORT: The bank only accepts X.509 certificates.');
	});

	it('HAA with a French format without version or container next to a zipped pain.002', () => {
		expect(readAvailableServices(synthetic('HAAResponseOrderData_FR.xml'))).toEqual([
			{ serviceName: 'EOP', scope: 'FR', msgName: 'cfonb120' },
			{ serviceName: 'REP', scope: 'FR', container: 'ZIP', msgName: 'pain.002', msgVersion: '03' },
		]);
	});
});

describe('HPB answers', () => {
	it('EBICS 3.0 with certificates only (epics suite): the host, the versions, both certificates', () => {
		const read = readHpbOrderData(epics('hpb_response_x509.xml'));
		expect(read).toMatchObject({ hostId: 'TESTBANK001', authenticationVersion: 'X002', encryptionVersion: 'E002' });
		expect(read.authenticationCertificatePem).toMatch(/^-----BEGIN CERTIFICATE-----/);
		expect(read.encryptionCertificatePem).toBe(read.authenticationCertificatePem);
	});

	it("EBICS 2.5 of the Sparkassen test host SIZBN001: bare 1024-bit keys whose modulus starts with a zero byte", () => {
		const read = readHpbOrderDataH004(epics('hpb_response_order.xml'));
		expect(read.hostId).toBe('SIZBN001');
		expect(read.keys.authenticationCertificatePem).toBeUndefined();
		const { createPublicKey } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
		const key = createPublicKey(read.keys.authenticationPublicKeyPem as string);
		expect(key.asymmetricKeyDetails).toMatchObject({ modulusLength: 1024, publicExponent: 65537n });
		expect(key.export({ format: 'jwk' }).n).toMatch(/^nb_Q6ghnJ1v2yApuLCoNzADQ21xQwhiLoYrs-qhGzO7W7K0afEmNCEa3raQyyVa8uB5tRLB2r9PdjIaxrcpB4gZpRSf2KrK7cGg04x2jYMs3g10YxjVZH8dthEpHckfJRGFMErDbspJxFF0oaXqNj5VxdxMokvw-NcxAflwPobM$/);
	});

	it('the same keys when the bank declares the signature namespace as a default namespace', () => {
		expect(readHpbOrderDataH004(epics('hpb_response_order_without_ns.xml'))).toEqual(readHpbOrderDataH004(epics('hpb_response_order.xml')));
	});
});

describe('EBICS 2.5 answers (ebicsKeyManagementResponse, epics suite)', () => {
	it('with the ebics: prefix: the codes, the transaction key, the key digest and the order data', () => {
		const read = readResponse(epics('hpb_response_ebics_ns.xml').toString('utf8'), 'HPB', { namespace: H004 });
		expect(read.root).toBe('ebicsKeyManagementResponse');
		expect(read.codes).toEqual({ technical: '000000', business: '000000', reportText: '[EBICS_OK] OK' });
		expect(read.transactionKey).toHaveLength(256);
		expect(read.encryptionPubKeyDigest?.toString('base64')).toBe('rwIxSUJAVEFDQ0sdYe+CybdspMllDG6ArNtdCzUbT1E=');
		expect(read.orderData).toMatch(/^tPp8sZbGSkjaUy4IoNek/);
		expect(read.noData).toBe(false);
	});

	it('an error in the body under a header that says OK: the business code, without the header\'s "OK" text', () => {
		const error = thrown(() => readResponse(epics('ebics_business_nok.xml').toString('utf8'), 'HPB', { namespace: H004 }));
		expect(error).toBeInstanceOf(EbicsReturnCodeError);
		expect(error).toMatchObject({ code: '091116', level: 'business', reportText: undefined });
		expect((error as Error).message).toBe('HPB: the bank answered 091116 EBICS_PROCESSING_ERROR: The bank could not process the order.');
	});

	it("a technical error with an empty body: the bank's code and text, not a format error", () => {
		const error = thrown(() => readResponse(epics('ebics_technical_nok.xml').toString('utf8'), 'HPB', { namespace: H004 }));
		expect(error).toBeInstanceOf(EbicsReturnCodeError);
		expect(error).toMatchObject({
			code: '061001',
			level: 'technical',
			reportText: '[EBICS_AUTHENTICATION_FAILED] Authentication signature error',
		});
	});
});

describe('an EBICS 3.0 download answer with the ebics: prefix, tabs and a German ReportText (synthetic, signed here as a bank would)', () => {
	it('verifies the signature and reads the transaction, the segment, the key and the order data', () => {
		const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const signed = signRequest(synthetic('ebicsResponse_prefixed_unsigned.xml').toString('utf8'), privateKey);
		expect(signed).toContain('<ebics:ebicsResponse');
		const read = readResponse(signed, 'BTD initialisation', { bankAuthenticationKey: publicKey });
		expect(read).toMatchObject({
			root: 'ebicsResponse',
			codes: { technical: '000000', business: '000000', reportText: '[EBICS_OK] Auftrag erfolgreich' },
			transactionId: 'B7A3E5C1D9F2468ACE13579BDF024680',
			numSegments: 2,
			phase: 'Initialisation',
			segmentNumber: 1,
			lastSegment: false,
			orderData: 'c2VnbWVudCBvbmU=',
			noData: false,
			signed: true,
		});
		expect(read.transactionKey?.toString('hex')).toBe('0102030405060708090a0b0c0d0e0f10');
		expect(read.encryptionPubKeyDigest).toHaveLength(32);
	});

	it('refuses the same answer signed with another key', () => {
		const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const signed = signRequest(synthetic('ebicsResponse_prefixed_unsigned.xml').toString('utf8'), privateKey);
		expect(() => readResponse(signed, 'BTD initialisation', { bankAuthenticationKey: publicKey })).toThrow(EbicsSignatureError);
	});
});

describe('distributed signature (synthetic EBICS 3.0 answers with the features of the EBICS 2.5 HVU, HVZ and HVD answers in the epics suite)', () => {
	const digestHex = Buffer.from('utJdkV0ZEMag2HudB5iVPp5Uq0J9hL5I2sDcDIncCHI=', 'base64').toString('hex').toUpperCase();
	const spaced = digestHex.match(/../g)?.join(' ');

	it('HVZ with the h005: prefix, names on an indented new line, microsecond and zone-less times, the payment totals', () => {
		const orders = readVeuOrders(synthetic('HVZResponseOrderData.xml'), 'HVZ');
		expect(orders).toEqual([
			{
				orderId: 'N00A',
				service: { serviceName: 'SCT', scope: 'DE', msgName: 'pain.001', msgVersion: '09' },
				serviceLabel: 'SCT DE pain.001.09',
				orderDataSize: 1776,
				readyToBeSigned: true,
				signaturesRequired: 2,
				signaturesDone: 1,
				signers: [
					{ partnerId: 'PARTNER1', userId: 'USERT', name: 'Transport User', at: '2026-03-23T08:56:39.000000Z', authorisationLevel: 'T' },
					{ partnerId: 'PARTNER1', userId: 'USERA', name: 'First Signer', at: '2026-03-23T09:26:33.000000Z', authorisationLevel: 'A' },
				],
				originator: { partnerId: 'PARTNER1', userId: 'USERT', name: 'Transport User', at: '2026-03-23T08:56:39.000000Z' },
				additionalInfo: undefined,
				dataDigest: spaced,
			},
			{
				orderId: 'N00B',
				service: { serviceName: 'SCT', scope: 'DE', msgName: 'pain.001', msgVersion: '09' },
				serviceLabel: 'SCT DE pain.001.09',
				orderDataSize: 1776,
				readyToBeSigned: false,
				signaturesRequired: 1,
				signaturesDone: 0,
				signers: [],
				originator: { partnerId: 'PARTNER1', userId: 'USERT', name: 'Transport User', at: '2026-03-29T10:57:11' },
				additionalInfo: undefined,
				dataDigest: spaced,
			},
		]);
	});

	it('HVD whose display file is ISO-8859-1 text, as German banks write it', () => {
		const details = readVeuDetails(synthetic('HVDResponseOrderData.xml'));
		expect(details.dataDigest.toString('hex').toUpperCase()).toBe(digestHex);
		expect(details.signatureVersion).toBe('A006');
		expect(details.displayFile).toContain('Anzahl der Zahlungssätze : 2');
		expect(details.displayFile).toContain('Summe der Beträge (EUR)  : 1.250,00');
		expect(details.displayFile).toContain('Ausführungstermin        : 02.04.2026');
		expect(details).toMatchObject({ orderDataAvailable: true, orderDataSize: 1776, orderDetailsAvailable: false });
		expect(details.signers).toEqual([
			{ partnerId: 'PARTNER1', userId: 'USERT', name: 'Transport User', at: '2026-03-23T08:56:39.000000Z', authorisationLevel: 'T' },
		]);
	});
});

describe('HVT with the number forms the schema allows (xs:decimal) and national account numbers (synthetic)', () => {
	it('reads every transaction, its accounts and amount as the bank wrote it', () => {
		const page = readVeuTransactions(synthetic('HVTResponseOrderData.xml'));
		expect(page.total).toBe(3);
		expect(page.transactions.map((t) => t.amount)).toEqual(['1000.', '+12.30', '.50']);
		expect(page.transactions.map((t) => Number(t.amount))).toEqual([1000, 12.3, 0.5]);
		expect(page.transactions[0]).toEqual({
			msgName: 'pain.001',
			accounts: [
				{ role: 'Originator', accountNumber: 'DE02370501981234567890', international: true, bankCode: 'COLSDE33XXX', holder: 'Müller & Söhne GmbH', currency: 'EUR' },
				{ role: 'Recipient', accountNumber: 'DE89370400440532013000', international: true, holder: 'Lieferant AG', currency: 'EUR' },
			],
			executionDate: '2026-04-02',
			amount: '1000.',
			currency: 'EUR',
			isCredit: false,
			descriptions: [{ type: 'Purpose', text: 'Rechnung 4711 vom 23.03.2026' }],
		});
		expect(page.transactions[1].accounts).toEqual([
			{ role: 'Originator', accountNumber: '1234567890', bankCode: '37050198', currency: 'EUR' },
			{ role: 'Other', roleDescription: 'Ultimate creditor', accountNumber: 'CH5604835012345678000', international: true, currency: 'EUR' },
		]);
	});
});

describe('HAC with a namespace prefix (ns2:), zone-less times, split texts and an entry without reason (synthetic)', () => {
	it('reads each entry as the bank wrote it', () => {
		const hac = readCustomerAcknowledgement(synthetic('HAC_pain.002_prefixed.xml'));
		expect(hac.messageId).toBe('HAC20260323000001');
		expect(hac.createdAt).toBe('2026-03-23T10:02:11.347');
		expect(hac.entries).toEqual([
			{
				action: 'FILE_UPLOAD',
				actionText: 'File uploaded to the bank',
				orderId: 'N00A',
				timestamp: '2026-03-23T09:56:39.000',
				reasonCode: 'TS01',
				additionalInfo: 'Datei übertragen',
				details: { OrderType: 'BTU', UserID: 'USERT' },
			},
			{
				action: 'ES_VERIFICATION',
				actionText: 'Signature checked',
				orderId: 'N00A',
				timestamp: '2026-03-23T09:56:40.000',
				reasonCode: 'DS0A',
				additionalInfo: 'Unterschriftsklasse T reicht für die Freigabe des Auftrags nicht aus',
				details: {},
			},
			{
				action: 'ORDER_HAC_FINAL_NEG',
				actionText: 'Order finished: refused',
				orderId: 'N00A',
				timestamp: '2026-03-23T09:56:40.000',
				refused: true,
				details: {},
			},
			{ action: 'FILE_DOWNLOAD', actionText: 'File downloaded from the bank', details: {} },
		]);
	});
});

describe('PTK in ISO-8859-1 with CRLF (synthetic, the layout of German banks)', () => {
	it('reads the lines with their umlauts and the orders they name', () => {
		const lines = readCustomerProtocol(synthetic('PTK_latin1.txt'));
		expect(lines.map((l) => l.line)).toEqual([1, 2, 4, 5, 6, 7, 9, 10]);
		expect(lines[3]).toEqual({ line: 5, text: '23.03.2026 09:56:39  Datei übertragen (1.776 Bytes)' });
		expect(lines[5].text).toBe('23.03.2026 09:56:40  Auftrag abgewiesen');
		expect(lines[2]).toEqual({ line: 4, text: 'Auftragsart: CCT   Auftragsnummer: N00A   Teilnehmer: USERT', orderId: 'N00A' });
		expect(lines[6]).toEqual({ line: 9, text: 'Auftragsart: STA   Auftrags-Nr. N00B', orderId: 'N00B' });
		expect(lines[7].text).toBe('23.03.2026 10:01:02  Abholung erfolgreich, Größe 12.304 Bytes');
	});
});
