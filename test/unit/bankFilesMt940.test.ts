import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

import type { BankEntry } from '../../nodes/shared/bankfiles';
import { detectFormat, parseBankFileToArrays } from '../../nodes/shared/bankfiles';
import { failure, fixture, FIXTURES, parse } from './bankFileHelpers';

// mt940js has no type declarations; it is the npm parser the MT940 reading is checked against.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Parser: Mt940js } = require('mt940js') as {
	Parser: new () => { parse(text: string): Array<{ transactions: Array<{ amount: number; date: Date; reference: string; bankReference?: string }> }> };
};

const publicSample = (name: string): Buffer => readFileSync(path.join(FIXTURES, 'mt940', name));

const swift = { domain: null, family: null, subFamily: null };

describe('MT940 statements as a German bank writes them (ISO-8859-1, CRLF, SWIFT envelope, two pages, structured :86:)', () => {
	const statementFields = {
		statementId: '20261127-00112', statementSequence: 112, legalSequence: null, statementCreated: '2026-11-30T16:30:00',
		periodFrom: '2026-11-27', periodTo: '2026-11-30', accountIban: null, accountId: '37040044/0532013000', accountCurrency: 'EUR',
		accountServicerBic: null, messageType: 'MT940', messageId: 'STARTUMSE',
	};
	const none = {
		instructionId: null, transactionId: null, paymentInformationId: null, mandateId: null, creditorId: null, creditorReference: null,
		creditorReferenceType: null, documents: null, ultimateCounterpartyName: null, purpose: null, returnReason: null, fx: null,
		transactionCount: 1, transactionIndex: null, entryAmount: null, entryReference: null, endToEndId: null, reversal: false, status: 'BOOK',
		counterpartyAccount: null,
	};

	it('every field of a credit transfer and of a direct debit with its mandate, creditor ID and ultimate creditor', async () => {
		const result = await parse(fixture('mt940-de-latin1.sta'));
		expect(result.format).toEqual({ format: 'mt940', version: 'MT940', messageType: 'MT940' });
		expect(result.warnings).toEqual([]);
		expect(result.entries.slice(0, 2)).toEqual<BankEntry[]>([
			{
				...statementFields, ...none,
				bookingDate: '2026-11-28', valueDate: '2026-11-28', amount: 2500, currency: 'EUR', creditDebit: 'CRDT',
				counterpartyName: 'Müller Maschinenbau GmbH', counterpartyIban: 'DE02700202700010108669', counterpartyBic: 'BYLADEMMXXX',
				remittanceText: 'Rechnung 1001 vom 21.11.2026 Kunde 4711', endToEndId: 'INV-2026-1001', accountServicerReference: 'BK-0001',
				bankTransactionCode: { ...swift, proprietary: 'NTRF+166+997', proprietaryIssuer: 'DK' }, additionalInfo: 'GUTSCHR. UEBERWEISUNG',
			},
			{
				...statementFields, ...none,
				bookingDate: '2026-11-28', valueDate: '2026-11-28', amount: -89.9, currency: 'EUR', creditDebit: 'DBIT',
				counterpartyName: 'Energieversorgung Musterstadt AG', counterpartyIban: 'DE12500105170648489890', counterpartyBic: 'NOLADE21XXX',
				remittanceText: 'Abschlag Strom November 2026', endToEndId: 'STROM-2026-11', paymentInformationId: 'PMT-77-1',
				mandateId: 'M-2019-000123', creditorId: 'DE98ZZZ09999999999', ultimateCounterpartyName: 'Stadtwerke Musterstadt',
				accountServicerReference: 'BK-0002', bankTransactionCode: { ...swift, proprietary: 'NDDT+105+992', proprietaryIssuer: 'DK' },
				additionalInfo: 'SEPA-BASISLASTSCHRIFT',
			},
		]);
	});

	it('the second page continues the statement: a booking date in the year before its value date, a reversed direct debit, an RF reference', async () => {
		const { entries } = await parse(fixture('mt940-de-latin1.sta'));
		expect(entries.slice(2, 5).map((e) => [e.bookingDate, e.valueDate, e.amount, e.creditDebit, e.reversal, e.creditorReference, e.creditorReferenceType, e.endToEndId, e.counterpartyName, e.statementId, e.periodTo])).toEqual([
			['2026-11-30', '2026-12-01', 1200, 'CRDT', false, 'RF18539007547034', 'RF', null, 'Schmidt & Söhne KG', '20261127-00112', '2026-11-30'],
			['2026-12-31', '2027-01-02', -15, 'DBIT', false, null, null, null, null, '20261127-00112', '2026-11-30'],
			['2026-11-30', '2026-11-30', 89.9, 'CRDT', true, null, null, 'STROM-2026-11', 'Energieversorgung Musterstadt AG', '20261127-00112', '2026-11-30'],
		]);
		expect(entries[4].additionalInfo).toBe('RUECKLASTSCHRIFT RUECKLASTSCHRIFT AC04');
		expect(entries[4].bankTransactionCode).toEqual({ ...swift, proprietary: 'NRTI+109+901', proprietaryIssuer: 'DK' });
	});

	it('one statement for both pages with its balances and the check; the second statement of the file with free-text details', async () => {
		const { statements, entries } = await parse(fixture('mt940-de-latin1.sta'));
		expect(statements).toEqual([
			{
				accountIban: null, accountId: '37040044/0532013000', accountCurrency: 'EUR', accountOwner: null, periodFrom: '2026-11-27', periodTo: '2026-11-30',
				openingBalance: 12500, openingBalanceDate: '2026-11-27', closingBalance: 16185, closingBalanceDate: '2026-11-30', check: 'ok', warning: null,
				availableBalance: 16095.1, availableBalanceDate: '2026-11-30', entryCount: 5, creditCount: 3, creditTotal: 3789.9, debitCount: 2, debitTotal: 104.9,
				netTotal: 3685, statementId: '20261127-00112', statementSequence: 112, legalSequence: null, created: '2026-11-30T16:30:00', accountServicerBic: null,
				balances: [
					{ type: 'OPBD', amount: 12500, currency: 'EUR', date: '2026-11-27' },
					{ type: 'CLBD', amount: 16185, currency: 'EUR', date: '2026-11-30' },
					{ type: 'CLAV', amount: 16095.1, currency: 'EUR', date: '2026-11-30' },
					{ type: 'FWAV', amount: 16095.1, currency: 'EUR', date: '2026-12-01' },
				],
				messageType: 'MT940', messageId: 'STARTUMSE',
			},
			expect.objectContaining({ accountIban: 'DE44500105175407324931', accountId: null, statementId: '20261127-00045', openingBalance: -500, closingBalance: -249.99, check: 'ok', entryCount: 2, messageId: '940-20261130-2' }),
		]);
		expect(entries.slice(5).map((e) => [e.amount, e.entryReference, e.remittanceText, e.bankTransactionCode.proprietary])).toEqual([
			[300, 'INV-77', 'ZAHLUNG KUNDE 77 RECHNUNG INV-77 HAMBURG', 'NTRF'],
			[-49.99, null, 'KARTENZAHLUNG BUERO-BEDARF 27.11.', 'NMSC'],
		]);
	});

	it('LF line ends, UTF-8, a stream of small chunks and statements skipped as already processed give the same', async () => {
		const crlf = await parse(fixture('mt940-de-latin1.sta'));
		const lf = await parse(Buffer.from(fixture('mt940-de-latin1.sta').toString('latin1').replace(/\r\n/g, '\n'), 'utf8'));
		expect(lf.entries).toEqual(crlf.entries);
		const bytes = fixture('mt940-de-latin1.sta');
		const pieces = Array.from({ length: Math.ceil(bytes.length / 37) }, (_, i) => bytes.subarray(i * 37, i * 37 + 37));
		const streamed = await parseBankFileToArrays(Readable.from(pieces));
		expect(streamed.entries).toEqual(crlf.entries);
		expect(streamed.statements).toEqual(crlf.statements);
		const skipped = await parse(bytes, { skipStatement: (key) => key.account === '37040044/0532013000' && key.statementId === '20261127-00112' });
		expect(skipped.skippedStatements).toEqual([{ account: '37040044/0532013000', statementId: '20261127-00112' }]);
		expect(skipped.entries.map((e) => e.statementId)).toEqual(['20261127-00045', '20261127-00045']);
	});
});

describe('MT942 interim reports', () => {
	it('entries with /KEY/ details, a pending entry, and the report\'s own totals checked', async () => {
		const result = await parse(fixture('mt942-utf8.sta'));
		expect(result.format).toEqual({ format: 'mt942', version: 'MT942', messageType: 'MT942' });
		expect(result.entries.map((e) => [e.amount, e.status, e.counterpartyName, e.counterpartyIban, e.counterpartyBic, e.creditorReference, e.remittanceText, e.endToEndId, e.paymentInformationId])).toEqual([
			[1500, 'BOOK', 'Åkerlund Förvaltning AB', 'SE4550000000058398257466', 'ESSESESS', 'RF18539007547034', null, 'INV-1001', null],
			[-250.35, 'BOOK', 'Helsinki Office Supplies Oy', 'FI5115723500048531', 'NDEAFIHH', null, 'Lasku 2001 marraskuu', 'E2E-2001', 'PAY-77-1'],
			[-80, 'PDNG', null, null, null, null, 'Card purchase pending', null, null],
		]);
		expect(result.statements).toEqual([
			expect.objectContaining({ accountIban: 'FI2112345600000785', statementId: '202611301330-00331', created: '2026-11-30T13:30:00+02:00', periodFrom: '2026-11-30', periodTo: '2026-11-30', openingBalance: null, closingBalance: null, entryCount: 3, creditTotal: 1500, debitTotal: 330.35, check: 'ok', warning: null }),
		]);
	});

	it('totals that the entries do not reach are a mismatch warning with both counts', async () => {
		const text = fixture('mt942-utf8.sta').toString().replace(':90D:2EUR330,35', ':90D:2EUR330,36');
		const { statements } = await parse(text);
		expect(statements[0].check).toBe('mismatch');
		expect(statements[0].warning).toBe("The report's totals (:90D: / :90C:) say 2 debits of 330.36, 1 credits of 1500; its entries hold 2 debits of 330.35, 1 credits of 1500");
	});
});

describe('public MT940 / MT942 samples (see test/fixtures/bankfiles/mt940/README.md)', () => {
	it('betterplace sepa_mt9401: 20 statements of a German bank, 97 entries, every balance check adds up, the SEPA identifiers read', async () => {
		const { entries, statements } = await parse(publicSample('betterplace-sepa_mt9401.sta'));
		expect(entries).toHaveLength(97);
		expect(statements).toHaveLength(20);
		expect(statements.every((s) => s.check === 'ok')).toBe(true);
		expect(entries[0]).toMatchObject({
			amount: 300, creditDebit: 'CRDT', endToEndId: 'TFNR 40005 00005', remittanceText: 'MTLG:Grund nicht spezifiziert Reject aus SEPA-Ueberweisungsauftrag',
			additionalInfo: 'RETOURE', bankTransactionCode: { proprietary: 'NTRF+159+914', proprietaryIssuer: 'DK' }, accountServicerReference: '0724710345313905',
		});
		const incoming = entries.find((e) => e.accountServicerReference === '0724710290621954');
		expect(incoming).toMatchObject({ amount: 15000.05, counterpartyIban: 'DE42100100100043921105', counterpartyBic: 'PBNKDEFF100', endToEndId: 'EndToEndIdTFNR2000400001' });
		const batch = entries.find((e) => e.accountServicerReference === 'BD7CFA74485E7E69');
		expect(batch).toMatchObject({ amount: -500250, entryReference: null, paymentInformationId: 'TFNr 01005 PayId CTSc-01 EBB', remittanceText: 'MTLG:SEPA-Ueberweisungsauftrag Datei mit 0000005 Zahlungen' });
	});

	it('cmxl mt940: old German :86:, a Polish bank\'s structured details and a BIC in :25:', async () => {
		const { entries, statements } = await parse(publicSample('cmxl-mt940.sta'));
		expect(statements.map((s) => [s.accountId, s.accountServicerBic, s.accountCurrency, s.check, s.entryCount])).toEqual([
			['45050050/76198810', null, 'DEM', 'ok', 11],
			['10020030/1234567', null, 'EUR', 'ok', 2],
			['320000546101', 'BPHKPLPK', 'PLN', 'ok', 3],
		]);
		expect(entries[11]).toMatchObject({ amount: -800, remittanceText: 'Miete November', counterpartyName: 'MUELLER', counterpartyAccount: '10020030/234567', bankTransactionCode: { proprietary: 'NSTO+008+339' } });
		expect(entries[13]).toMatchObject({ amount: 20000, counterpartyIban: 'PL08106000760000777777777777', additionalInfo: 'Wyplata-(dysp/przel) Card transaction' });
	});

	it('mBank mt942: transmission control characters around the message, free-text details, totals checked', async () => {
		const { format, entries, statements } = await parse(publicSample('mbank-mt942.sta'));
		expect(format.format).toBe('mt942');
		expect(entries.map((e) => [e.amount, e.accountServicerReference, e.additionalInfo])).toEqual([
			[0.01, 'MB170119012058', '911-TRANSAKCJA IPH'],
			[0.01, 'MB170119012085', '911-TRANSAKCJA IPH'],
			[0.01, 'MB170119012121', '911-TRANSAKCJA IPH'],
		]);
		expect(entries[0].remittanceText).toContain('Z RACH.: 56114010810000267002001001; OD: JAN NOWAK UL. NIJAKA 1 M 2 31-234 KRAKOW');
		expect(statements).toEqual([expect.objectContaining({ accountIban: 'PL29114010810000267002001002', created: '2017-01-19T18:15:00+01:00', check: 'ok', creditCount: 3, creditTotal: 0.03 })]);
	});

	it('ABN AMRO: a bank header before the messages; a statement whose pages are not all in the file says so, and its balances that do not add up are a mismatch', async () => {
		const { statements, entries } = await parse(publicSample('jejik-abnamro.sta'));
		expect(entries).toHaveLength(10);
		expect(statements.map((s) => s.statementId)).toEqual(['20110522-19321', '20110523-19322']);
		expect(statements[0].check).toBe('mismatch');
		expect(statements[0].warning).toBe('Opening balance 3236.28 + booked entries -321.44 = 2914.84, but the closing balance is 876.84 (difference -2038)');
		expect(statements[1].warning).toContain('The statement starts with an intermediate opening balance (:60M:): its earlier pages are not in the file');
		expect(statements[1].warning).toContain("The statement's last page in the file closes with an intermediate balance (:62M:): its next page is not in the file");
	});

	it('Rabobank: /KEY/ details (EREF, BENM/NAME, REMI)', async () => {
		const { entries } = await parse(publicSample('jejik-rabobank-iban.sta'));
		expect(entries.slice(0, 2).map((e) => [e.amount, e.endToEndId, e.counterpartyName, e.remittanceText])).toEqual([
			[-25, '01-01-2013 12:00 0030000987654321', 'CONTRA ACCOUNT HOLDER', null],
			[-10, null, 'JOHN DOE', 'Reference 201301234'],
		]);
	});

	it.each(['betterplace-sepa_mt9401.sta', 'cmxl-mt940.sta', 'mt940js-test1.mt940'])('%s: amounts, value dates and bank references as mt940js reads them', async (file) => {
		const content = publicSample(file);
		const theirs = new Mt940js().parse(content.toString('latin1')).flatMap((s) => s.transactions);
		const { entries } = await parse(content);
		expect(entries.map((e) => [e.amount, e.valueDate])).toEqual(theirs.map((t) => [t.amount, t.date.toISOString().slice(0, 10)]));
		expect(entries.map((e) => e.accountServicerReference)).toEqual(theirs.map((t) => t.bankReference || null));
	});
});

describe("mt940-js's own test cases (webschik/mt940-js __tests__/cases, with their expected results)", () => {
	interface Expected {
		openingBalance: { isCredit: boolean; value: number };
		closingBalance: { isCredit: boolean; value: number };
		transactions: Array<{ isCredit: boolean; amount: number; valueDate: string; entryDate: string; code: string; customerReference: string; bankReference: string }>;
	}

	it.each(['base-1.mta', 'base-2.mta', 'base-3.mta', 'ing-1.mta', 'ing-2.mta', 'abn-amro-1.STA'])('%s: every entry\'s amount, dates, transaction type and references as mt940-js expects them', async (file) => {
		const expected = JSON.parse(publicSample(`mt940-js-${file.replace(/\.\w+$/, '.json')}`).toString('utf8')) as Expected[];
		const { entries, statements } = await parse(publicSample(`mt940-js-${file}`));
		expect(entries.map((e) => [e.amount, e.valueDate, e.bookingDate, e.bankTransactionCode.proprietary?.split('+')[0], e.entryReference, e.accountServicerReference])).toEqual(
			expected.flatMap((s) => s.transactions.map((t) => [t.isCredit ? t.amount : -t.amount, t.valueDate, t.entryDate || t.valueDate, t.code, t.customerReference || null, t.bankReference || null])),
		);
		// mt940-js gives one statement per message; a statement over several pages is one here, from
		// the first page's opening balance to the last page's closing balance.
		const signed = (b: { isCredit: boolean; value: number }) => (b.isCredit ? b.value : -b.value);
		expect(statements[0].openingBalance).toBe(signed(expected[0].openingBalance));
		expect(statements[statements.length - 1].closingBalance).toBe(signed(expected[expected.length - 1].closingBalance));
	});
});

describe('bad MT940 files name the place', () => {
	const text = fixture('mt940-de-latin1.sta').toString('latin1');
	const lines = text.split('\r\n');
	const latin = (value: string) => Buffer.from(value, 'latin1');

	it('a file cut off inside a statement is truncated, naming the message', async () => {
		const cut = lines.slice(0, lines.findIndex((l) => l.startsWith(':62M:'))).join('\r\n');
		const error = await failure(latin(cut));
		expect(error.code).toBe('TRUNCATED');
		expect(error.message).toBe('Statement 20261127-00112 ends without its closing balance (:62F:) (message starting on line 2)');
	});

	it('an unknown field fails naming the line, or is skipped with a warning on request', async () => {
		const bad = [...lines.slice(0, 5), ':99X:SOMETHING', ...lines.slice(5)].join('\r\n');
		const error = await failure(latin(bad));
		expect(error).toMatchObject({ code: 'UNKNOWN_RECORD', message: 'Unknown MT940 field :99X: (line 6)' });
		const warned = await parse(latin(bad), { onInvalidRecord: 'warn' });
		expect(warned.warnings).toEqual([{ code: 'UNKNOWN_RECORD', message: 'Unknown MT940 field :99X:; the record was skipped', location: 'line 6' }]);
		expect(warned.statements[0].check).toBe('ok');
	});

	it('an entry line that is not one fails naming the line; skipped with a warning, the balance check shows the gap', async () => {
		const bad = text.replace(':61:2611281128CR2500,00NTRFNONREF//BK-0001', ':61:26112CR2500,00NTRF');
		const error = await failure(latin(bad));
		expect(error).toMatchObject({ code: 'INVALID_RECORD', message: 'The MT940 entry :61:26112CR2500,00NTRF is not a value date YYMMDD, an optional booking date MMDD, a D/C mark, an amount and a transaction type (line 6)' });
		const warned = await parse(latin(bad), { onInvalidRecord: 'warn' });
		expect(warned.statements[0]).toMatchObject({ check: 'mismatch', entryCount: 4 });
		expect(warned.statements[0].warning).toBe('Opening balance 12500 + booked entries 1185 = 13685, but the closing balance is 16185 (difference 2500); 1 entry was left out (see the warnings)');
	});

	it('a balance that does not add up, and a page that does not open where the last one closed, are mismatch warnings naming them', async () => {
		const { statements } = await parse(latin(text.replace(':62F:C261130EUR16185,00', ':62F:C261130EUR16185,01')));
		expect(statements[0]).toMatchObject({ statementId: '20261127-00112', check: 'mismatch', warning: 'Opening balance 12500 + booked entries 3685 = 16185, but the closing balance is 16185.01 (difference 0.01)' });
		const gap = await parse(latin(text.replace(':60M:C261128EUR14910,10', ':60M:C261128EUR14900,10')));
		expect(gap.statements[0].check).toBe('mismatch');
		expect(gap.statements[0].warning).toBe('Page 2 opens with 14900.1 (:60M:) but the page before closed with 14910.1 (:62M:)');
	});

	it('an entry before the opening balance, and a balance that is not one, name the line', async () => {
		const early = lines.filter((l) => !l.startsWith(':60F:')).join('\r\n');
		expect(await failure(latin(early))).toMatchObject({ code: 'INVALID_RECORD', message: "A MT940 entry or balance before the statement's opening balance (:60F:) (line 5)" });
		const balance = text.replace(':60F:C261127EUR12500,00', ':60F:C261127EU12500,00');
		expect(await failure(latin(balance))).toMatchObject({ code: 'INVALID_RECORD', message: 'The balance :60F:C261127EU12500,00 is not a D/C mark, a date YYMMDD, a currency and an amount (line 5)' });
	});

	it('detects MT940 and MT942 from the first bytes, and a chosen format the content does not match', async () => {
		expect(detectFormat(fixture('mt940-de-latin1.sta'))).toEqual({ format: 'mt940', version: 'MT940', messageType: 'MT940' });
		expect(detectFormat(publicSample('mbank-mt942.sta')).format).toBe('mt942');
		expect(detectFormat(publicSample('jejik-abnamro.sta')).format).toBe('mt940');
		expect((await failure(fixture('mt942-utf8.sta'), { format: 'mt940' })).message).toBe('The file is a SWIFT MT942 interim report, not mt940 as chosen');
		expect((await failure(fixture('tito-latin1.txt'), { format: 'mt940' })).message).toMatch(/^The file is not a SWIFT MT940 \(its fields :20:, :25:, :28C: are missing\): it starts with "T00322/);
	});
});
