/**
 * HTD, HKD and HAA in EBICS 2.5 (H004) as real bank test hosts write them (test/fixtures/ebics/real:
 * the Sparkassen test host SIZBN001 from the epics suite, the Sparkasse host EBICSSPK from the
 * ebicsbox suite; see real/SOURCES.md). Each file is first checked against the official
 * ebics_orders_H004.xsd; the values expected were read from the files by hand, field by field as
 * the schema names them (OrderInfo: OrderType, TransferType, OrderFormat, Description,
 * NumSigRequired; Permission: OrderTypes list, AccountID, AuthorisationLevel). A reader that meets
 * an element the schema does not define, or an order type it cannot read, refuses by name; the
 * client decides that before any receipt and sends the negative one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
	EbicsClient,
	EbicsFormatError,
	EbicsVeu,
	H004_NS,
	H005_NS,
	readAvailableDownloads,
	readAvailableServices,
	readCustomerAcknowledgement,
	readCustomerInfo,
	type Download,
} from '../../nodes/shared/ebics';
import { customerInfoItems } from '../../nodes/Ebics/helpers/customerInfo';
import { testBankKeys, testSubscriberKeys, validateEbics } from '../helpers/ebics';

const REAL = path.resolve(__dirname, '../fixtures/ebics/real');
const real = (name: string): Buffer => readFileSync(path.join(REAL, name));
const ORDERS_XSD = 'H004/ebics_orders_H004.xsd';

function thrown(fn: () => unknown): Error {
	try {
		fn();
	} catch (error) {
		return error as Error;
	}
	throw new Error('did not throw');
}

/** An H004 document with `from` replaced by `to` (the first occurrence). */
function edited(name: string, from: string, to: string): Buffer {
	const xml = real(name).toString('utf8');
	expect(xml).toContain(from);
	return Buffer.from(xml.replace(from, to));
}

describe('the real files are EBICS 2.5 order data valid against ebics_orders_H004.xsd', () => {
	test.each(['epics/htd_order_data.xml', 'epics/htd_order_data_without_names.xml', 'epics/haa_response_h004.xml', 'ebicsbox/htd.xml'])('%s', (name) => {
		expect(validateEbics(real(name), ORDERS_XSD)).toMatchObject({ valid: true });
	});
});

describe('HTD of the Sparkassen test host SIZBN001 (epics suite)', () => {
	const info = readCustomerInfo(real('epics/htd_order_data.xml'), 'HTD');
	const downloads = ['PTK', 'HPD', 'HTD', 'STA', 'HVD', 'HPB', 'HAA', 'HVT', 'HVU', 'HVZ'];
	const uploads = ['INI', 'SPR', 'PUB', 'HIA', 'HCA', 'HSA', 'HVE', 'HVS', 'CCS', 'CCT', 'CIP', 'CD1', 'CDB', 'CDD'];

	test('the customer, the bank host and the account with its national and international numbers', () => {
		expect(info.partner).toMatchObject({ name: 'Railslove GmbH', country: 'Deutschland', hostId: 'SIZBN001' });
		expect(info.partner.accounts).toEqual([
			{ id: '1', accountNumber: '1929807319', iban: 'DE51370501981929807319', bankCode: '37050198', bic: 'COLSDE33XXX' },
		]);
	});

	test('the 25 order types of the customer by OrderType, with their transfer type, description and signatures required', () => {
		expect(info.partner.orders.map((o) => o.orderType)).toEqual(['HTD', 'STA', 'PTK', 'HPD', 'HAC', 'HAA', 'HVT', 'HVU', 'HVD', 'HPB', 'HVZ', 'CCS', 'INI', 'HIA', 'HCA', 'HSA', 'SPR', 'PUB', 'HVE', 'HVS', 'CCT', 'CIP', 'CD1', 'CDB', 'CDD']);
		expect(info.partner.orders[0]).toEqual({ orderType: 'HTD', transferType: 'Download', description: 'Kunden- und Teilnehmerdaten abholen' });
		expect(info.partner.orders[1]).toEqual({ orderType: 'STA', transferType: 'Download', description: 'Abholen SWIFT-Tagesauszüge' });
		expect(info.partner.orders.find((o) => o.orderType === 'CCT')).toEqual({ orderType: 'CCT', transferType: 'Upload', description: 'Credit Transfer Initiation', numSigRequired: 1 });
		expect(info.partner.orders.find((o) => o.orderType === 'HIA')).toEqual({ orderType: 'HIA', transferType: 'Upload', description: 'Initiales Senden Public Key' });
		expect(info.partner.orders.filter((o) => o.transferType === 'Upload')).toHaveLength(14);
	});

	test("the user's permissions: one per order type of each OrderTypes list, the uploads with signature class E", () => {
		expect(info.users).toHaveLength(1);
		expect(info.users[0]).toMatchObject({ userId: 'EBIX', status: 1, name: 'Ebi, Epics' });
		expect(info.users[0].permissions).toEqual([...downloads.map((orderType) => ({ orderType })), ...uploads.map((orderType) => ({ orderType, authorisationLevel: 'E' }))]);
	});

	test('the items a user sees have the fields of EBICS 3.0 where the meaning is the same', () => {
		const permissions = customerInfoItems(info, 'permissions', 0).map((i) => i.json);
		expect(permissions).toHaveLength(24);
		expect(permissions[3]).toEqual({ userId: 'EBIX', userName: 'Ebi, Epics', userStatus: 1, orderType: 'STA' });
		expect(permissions.find((p) => p.orderType === 'CCT')).toEqual({ userId: 'EBIX', userName: 'Ebi, Epics', userStatus: 1, orderType: 'CCT', signatureClass: 'E', signatureClassText: 'single signature' });
		expect(customerInfoItems(info, 'orders', 0)[0].json).toEqual({ orderType: 'HTD', transferType: 'Download', description: 'Kunden- und Teilnehmerdaten abholen' });
		expect(customerInfoItems(info, 'orders', 0).find((i) => i.json.orderType === 'CDD')!.json).toEqual({ orderType: 'CDD', transferType: 'Upload', description: 'Direct Debit Initiation', signaturesRequired: 1 });
	});

	test('the same host without account and with an empty OrderTypes: no account, a permission of class E without order type', () => {
		const bare = readCustomerInfo(real('epics/htd_order_data_without_names.xml'), 'HTD');
		expect(bare.partner).toEqual({ name: 'Railslove GmbH', country: 'Deutschland', hostId: 'SIZBN001', accounts: [], orders: [{ orderType: 'HTD', transferType: 'Download', description: 'Kunden- und Teilnehmerdaten abholen' }] });
		expect(bare.users).toEqual([{ userId: 'EBIX', status: 1, name: 'Ebi, Epics', permissions: [{ orderType: 'HTD' }, { orderType: '', authorisationLevel: 'E' }] }]);
	});
});

describe('HTD of the Sparkasse host EBICSSPK (ebicsbox suite): order formats, the account holder, a permission for an account', () => {
	const info = readCustomerInfo(real('ebicsbox/htd.xml'), 'HTD');

	test('the customer with its address and the account with its holder, currency and description', () => {
		expect(info.partner).toMatchObject({ name: 'Railslove GmbH', street: 'Sechzigstr.', postCode: '50733', city: 'Köln', hostId: 'EBICSSPK' });
		expect(info.partner.accounts).toEqual([
			{ id: 'accid000000001', currency: 'EUR', description: 'Railslove GmbH', holder: 'Railslove GmbH', accountNumber: '2624334974', iban: 'DE45100110012624334974', bankCode: '10011001', bic: 'NTSBDEB1XXX' },
		]);
	});

	test('27 order types, each with the order format the bank names', () => {
		expect(info.partner.orders).toHaveLength(27);
		expect(info.partner.orders[0]).toEqual({ orderType: 'C52', transferType: 'Download', orderFormat: 'CAMT052', description: 'Abholen Vormerkposten' });
		expect(info.partner.orders.find((o) => o.orderType === 'AZV')).toEqual({ orderType: 'AZV', transferType: 'Upload', orderFormat: 'DTAZVJS', description: 'AZV im Diskettenformat senden', numSigRequired: 1 });
		expect(info.partner.orders.find((o) => o.orderType === 'HCA')).toEqual({ orderType: 'HCA', transferType: 'Upload', orderFormat: 'MISC', description: 'Teilnehmerschluessel EBICS aendern', numSigRequired: 0 });
	});

	test('the permissions: 14 downloads, the account, 5 uploads of class E, 8 of class T', () => {
		const [user] = info.users;
		expect(user).toMatchObject({ userId: '12353901', status: 1, name: 'Michael Bumann' });
		expect(user.permissions.filter((p) => !p.authorisationLevel && p.orderType).map((p) => p.orderType)).toEqual(['C52', 'C53', 'HAA', 'HAC', 'HKD', 'HPB', 'HPD', 'HTD', 'HVD', 'HVT', 'HVU', 'HVZ', 'PTK', 'STA']);
		expect(user.permissions.filter((p) => !p.orderType)).toEqual([{ orderType: '', accountId: 'accid000000001' }]);
		expect(user.permissions.filter((p) => p.authorisationLevel === 'E').map((p) => p.orderType)).toEqual(['AZV', 'CCT', 'CCU', 'CD1', 'CDD']);
		expect(user.permissions.filter((p) => p.authorisationLevel === 'T').map((p) => p.orderType)).toEqual(['HCA', 'HCS', 'HIA', 'HVE', 'HVS', 'INI', 'PUB', 'SPR']);
		expect(user.permissions).toHaveLength(28);
		const items = customerInfoItems(info, 'permissions', 0).map((i) => i.json);
		expect(items.find((i) => i.accountId)).toEqual({ userId: '12353901', userName: 'Michael Bumann', userStatus: 1, accountId: 'accid000000001', iban: 'DE45100110012624334974' });
		expect(items.find((i) => i.orderType === 'SPR')).toMatchObject({ signatureClass: 'T', signatureClassText: 'transport signature only' });
	});

	test('HKD is read the same way (its order data has the same PartnerInfo and UserInfo)', () => {
		const hkd = Buffer.from(real('ebicsbox/htd.xml').toString('utf8').replace(/HTDResponseOrderData/g, 'HKDResponseOrderData'));
		expect(validateEbics(hkd, ORDERS_XSD)).toMatchObject({ valid: true });
		expect(readCustomerInfo(hkd, 'HKD')).toEqual(info);
	});
});

describe('HAA in EBICS 2.5 (epics suite): the OrderTypes list', () => {
	test('all 24 order types the bank lists, each as an item of its own', () => {
		expect(readAvailableDownloads(real('epics/haa_response_h004.xml'))).toEqual(
			'PTK HPD HTD STA HVD HPB HAA HVT HVU HVZ INI SPR PUB HIA HCA HSA HVE HVS CCS CCT CIP CD1 CDB CDD'.split(' ').map((orderType) => ({ orderType })),
		);
	});

	test('an empty list is nothing waiting', () => {
		const empty = Buffer.from(`<HAAResponseOrderData xmlns="${H004_NS}"><OrderTypes/></HAAResponseOrderData>`);
		expect(validateEbics(empty, ORDERS_XSD)).toMatchObject({ valid: true });
		expect(readAvailableDownloads(empty)).toEqual([]);
	});

	test("an HTD element of another namespace (the schema's extension point) is left aside", () => {
		const extended = edited('epics/htd_order_data.xml', '</UserInfo>', '<x:Role xmlns:x="urn:example:bank">admin</x:Role></UserInfo>');
		expect(validateEbics(extended, ORDERS_XSD)).toMatchObject({ valid: true });
		expect(readCustomerInfo(extended, 'HTD')).toEqual(readCustomerInfo(real('epics/htd_order_data.xml'), 'HTD'));
	});

	test('readAvailableServices (services only) refuses it by name instead of answering nothing', () => {
		expect(thrown(() => readAvailableServices(real('epics/haa_response_h004.xml'))).message).toMatch(/EBICS 2\.5: it lists order types, not services/);
	});
});

describe('what cannot be read is refused by name, never read as less than the bank said', () => {
	test.each([
		['an EBICS 3.0 element in an H004 permission', 'epics/htd_order_data.xml', '<OrderTypes>PTK', '<AdminOrderType>PTK</AdminOrderType><OrderTypes>PTK', 'HTD', /^The HTD order data \(EBICS 2\.5\) cannot be read: Permission holds AdminOrderType, which ebics_orders_H004\.xsd does not define there$/],
		['an unknown element in an OrderInfo', 'ebicsbox/htd.xml', '<OrderFormat>CAMT052</OrderFormat>', '<OrderFormat>CAMT052</OrderFormat><Service/>', 'HKD', /^The HKD order data \(EBICS 2\.5\) cannot be read: OrderInfo holds Service/],
		['an element without namespace in UserInfo', 'epics/htd_order_data.xml', '<Name>Ebi, Epics</Name>', '<Name>Ebi, Epics</Name><Role xmlns="">x</Role>', 'HTD', /UserInfo holds Role without namespace/],
		['an order type that is not one', 'epics/htd_order_data.xml', '<OrderTypes>PTK HPD', '<OrderTypes>PTK hpd', 'HTD', /Permission\/OrderTypes lists "hpd", which is not an order type/],
		['a transfer type the schema does not know', 'epics/htd_order_data.xml', '<TransferType>Download</TransferType>', '<TransferType>Both</TransferType>', 'HTD', /the TransferType of HTD is "Both", not Upload or Download/],
		['a permission without its OrderTypes', 'epics/htd_order_data_without_names.xml', '<OrderTypes>HTD</OrderTypes>', '', 'HTD', /Permission has no OrderTypes/],
	])('%s', (_what, file, from, to, orderType, message) => {
		const xml = edited(file, from, to);
		const data = orderType === 'HKD' ? Buffer.from(xml.toString('utf8').replace(/HTDResponseOrderData/g, 'HKDResponseOrderData')) : xml;
		// The official schema refuses it too.
		expect(validateEbics(data, ORDERS_XSD)).toMatchObject({ valid: false });
		const error = thrown(() => readCustomerInfo(data, orderType as 'HTD' | 'HKD'));
		expect(error).toBeInstanceOf(EbicsFormatError);
		expect(error.message).toMatch(message);
	});

	test('HAA: a service in the H004 namespace, a misspelt list, a bad order type', () => {
		const haa = (inner: string): Buffer => Buffer.from(`<HAAResponseOrderData xmlns="${H004_NS}">${inner}</HAAResponseOrderData>`);
		expect(thrown(() => readAvailableDownloads(haa('<OrderTypes>STA</OrderTypes><Service><ServiceName>EOP</ServiceName></Service>'))).message).toBe(
			'The HAA order data (EBICS 2.5) cannot be read: HAAResponseOrderData holds Service, which ebics_orders_H004.xsd does not define there',
		);
		expect(thrown(() => readAvailableDownloads(haa('<OrderType>STA</OrderType>'))).message).toMatch(/HAAResponseOrderData holds OrderType/);
		expect(thrown(() => readAvailableDownloads(haa(''))).message).toBe('The HAA order data (EBICS 2.5) cannot be read: HAAResponseOrderData has no OrderTypes');
		expect(thrown(() => readAvailableDownloads(haa('<OrderTypes>STA C5</OrderTypes>'))).message).toMatch(/OrderTypes lists "C5"/);
	});

	test('HAA in EBICS 3.0: an order type list instead of services is refused, not read as no service', () => {
		const xml = Buffer.from(`<HAAResponseOrderData xmlns="${H005_NS}"><OrderTypes>STA</OrderTypes></HAAResponseOrderData>`);
		expect(thrown(() => readAvailableDownloads(xml)).message).toBe(
			'The HAA order data (EBICS 3.0) cannot be read: HAAResponseOrderData holds OrderTypes, which ebics_orders_H005.xsd does not define there',
		);
	});

	test('order data of another EBICS version is refused by its namespace', () => {
		const h003 = Buffer.from(real('epics/htd_order_data.xml').toString('utf8').replace('urn:org:ebics:H004', 'urn:org:ebics:H003'));
		expect(thrown(() => readCustomerInfo(h003, 'HTD')).message).toBe(
			'The HTD order data is in urn:org:ebics:H003, neither EBICS 3.0 (urn:org:ebics:H005) nor EBICS 2.5 (urn:org:ebics:H004)',
		);
		expect(thrown(() => readAvailableDownloads(Buffer.from('<HAAResponseOrderData><OrderTypes>STA</OrderTypes></HAAResponseOrderData>'))).message).toMatch(/The HAA order data is in no namespace/);
	});
});

describe('HAC of the Sparkasse host EBICSSPK (ebicsbox suite): the same pain.002 in EBICS 2.5 as in 3.0', () => {
	test('a CD1 upload: received, signature checked, accepted with the bank\'s summary', () => {
		const hac = readCustomerAcknowledgement(real('ebicsbox/hac_cd1.xml'));
		expect(hac).toMatchObject({ messageId: 'u8NTBMERR0kBAABs6yEtFYQYCgAA', createdAt: '2015-04-28T08:47:18.138Z' });
		expect(hac.entries.map((e) => [e.action, e.orderId, e.timestamp, e.reasonCode, e.refused])).toEqual([
			['FILE_UPLOAD', 'N013', '2015-04-14T18:12:26.570Z', 'TS01', undefined],
			['ES_VERIFICATION', 'N013', '2015-04-14T18:12:29.310Z', 'DS01', undefined],
			['ORDER_HAC_FINAL_POS', 'N013', '2015-04-14T18:12:29.310Z', undefined, false],
		]);
		expect(hac.entries[0].details).toEqual({ PartnerID: '1234560F', OrderType: 'CD1', UserID: '12345601' });
		expect(hac.entries[2].additionalInfo).toContain('Anzahl der Zahlungssaetze: 1');
		expect(hac.entries[2].additionalInfo).toContain('Summe der Betraege (EUR) : 1,50');
	});

	test('an STA download: no order ID, the download reason code', () => {
		expect(readCustomerAcknowledgement(real('ebicsbox/hac_sta.xml')).entries).toEqual([
			{ action: 'FILE_DOWNLOAD', actionText: 'File downloaded from the bank', timestamp: '2015-04-13T07:33:34.500Z', reasonCode: 'TD01', details: { PartnerID: '1234560F', OrderType: 'STA', UserID: '12345601' } },
		]);
	});
});

describe('the client reads the order data before any receipt', () => {
	async function client(): Promise<EbicsClient> {
		const [keys, bank] = await Promise.all([testSubscriberKeys(), testBankKeys()]);
		return new EbicsClient({
			subscriber: { hostId: 'HOST', partnerId: 'PARTNER', userId: 'USER' },
			keys: { version: 1, subscriber: keys, bank },
			send: () => Promise.reject(new Error('no bank in this test')),
			version: 'H004',
		});
	}

	function held(data: Buffer, receipts: string[]): Download {
		return {
			orderType: 'HTD',
			transactionId: 'T',
			numSegments: 1,
			data,
			files: () => [],
			acknowledge: async () => {
				receipts.push('positive');
				return { technical: '011000', business: '000000' };
			},
			reject: async () => {
				receipts.push('negative');
				return { technical: '011001', business: '000000' };
			},
		};
	}

	test('H004 HTD, HKD and HAA are read, then the positive receipt', async () => {
		const c = await client();
		const receipts: string[] = [];
		const download = jest.spyOn(c, 'download');
		download.mockResolvedValueOnce(held(real('epics/htd_order_data.xml'), receipts));
		expect((await c.htd()).users[0].permissions).toHaveLength(24);
		download.mockResolvedValueOnce(held(Buffer.from(real('ebicsbox/htd.xml').toString('utf8').replace(/HTDResponseOrderData/g, 'HKDResponseOrderData')), receipts));
		expect((await c.hkd()).partner.orders).toHaveLength(27);
		download.mockResolvedValueOnce(held(real('epics/haa_response_h004.xml'), receipts));
		expect(await c.haa()).toHaveLength(24);
		download.mockResolvedValueOnce(undefined);
		expect(await c.haa()).toEqual([]);
		expect(receipts).toEqual(['positive', 'positive', 'positive']);
		expect(download.mock.calls.map((call) => call[0])).toEqual(['HTD', 'HKD', 'HAA', 'HAA']);
	});

	test('an answer it cannot read: the negative receipt (the bank keeps the data), never the positive one, then the error', async () => {
		const c = await client();
		const receipts: string[] = [];
		jest.spyOn(c, 'download').mockResolvedValueOnce(held(edited('epics/haa_response_h004.xml', '<OrderTypes>', '<Service/><OrderTypes>'), receipts));
		await expect(c.haa()).rejects.toThrow(/The HAA order data \(EBICS 2\.5\) cannot be read: HAAResponseOrderData holds Service/);
		expect(receipts).toEqual(['negative']);
	});

	test('the distributed signature downloads go through the same reading (EbicsClient.readDownload)', async () => {
		const c = await client();
		const [keys, bank] = await Promise.all([testSubscriberKeys(), testBankKeys()]);
		const veu = new EbicsVeu(c, { subscriber: c.subscriber, keys: { version: 1, subscriber: keys, bank }, send: () => Promise.reject(new Error('no bank')) });
		const receipts: string[] = [];
		const readDownload = jest.spyOn(c, 'readDownload');
		jest.spyOn(c, 'download').mockResolvedValueOnce(held(Buffer.from(`<HVUResponseOrderData xmlns="${H004_NS}"/>`), receipts)).mockResolvedValueOnce(held(Buffer.from('<nope/>'), receipts));
		expect(await veu.orders()).toEqual([]);
		await expect(veu.orders()).rejects.toThrow(EbicsFormatError);
		expect(readDownload.mock.calls.map((call) => [call[0], call[1].kind])).toEqual([
			['HVU', 'element'],
			['HVU', 'element'],
		]);
		expect(receipts).toEqual(['positive', 'negative']);
	});
});
