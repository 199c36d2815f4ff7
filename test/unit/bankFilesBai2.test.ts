/**
 * BAI2 balance reports: the public samples in fixtures/bankfiles/bai2 (see SOURCES.md there), the
 * expected values worked out from the BAI specification (record formats, Appendix A type codes,
 * Appendix D's explanation of its own sample), and malformed files made from them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

import type { BankEntry, StatementSummary } from '../../nodes/shared/bankfiles';
import { detectFormat, parseBankFileToArrays, typeCodeInfo } from '../../nodes/shared/bankfiles';
import { failure, FIXTURES, parse } from './bankFileHelpers';

const sample = (name: string): string => readFileSync(path.join(FIXTURES, 'bai2', name), 'latin1');
const bai = { domain: null, family: null, subFamily: null, proprietaryIssuer: 'BAI' };
const noPayment = {
	counterpartyName: null, counterpartyIban: null, counterpartyAccount: null, counterpartyBic: null, creditorReference: null,
	creditorReferenceType: null, documents: null, endToEndId: null, instructionId: null, transactionId: null, paymentInformationId: null,
	mandateId: null, creditorId: null, ultimateCounterpartyName: null, purpose: null, returnReason: null, fx: null,
};
const single = { status: 'BOOK', reversal: false, transactionCount: 1, transactionIndex: null, entryAmount: null };

describe('the specification\'s sample transmission (Appendix D)', () => {
	const file = sample('moov-sample2.txt');
	const report = {
		senderId: '122099999', receiverId: '123456789', fileCreated: '2004-06-21T02:00:00', fileId: '1', originatorId: '122099999',
		groupStatus: 'update', asOfDate: '2004-06-20', asOfTime: '23:59', asOfDateModifier: 'finalPreviousDay', information: [],
	};
	const context = {
		statementId: '20040620-2359-2', statementSequence: null, legalSequence: null, statementCreated: '2004-06-21T02:00:00',
		periodFrom: '2004-06-20', periodTo: '2004-06-20', accountIban: null, accountCurrency: 'USD', accountServicerBic: null,
		messageType: 'BAI2', messageId: '1',
	};

	it('is detected as BAI2 from its file header', () => {
		expect(detectFormat(Buffer.from(file))).toEqual({ format: 'bai2', version: '2', messageType: 'BAI2' });
	});

	it('the first account: balances 010 $43,500.00, 040 $28,300.00, 072 $10,200.00 (continued in 88), 074 $5,000.00; a lockbox deposit of $4,500.00 with distributed availability', async () => {
		const result = await parse(file);
		expect(result.warnings).toEqual([]);
		expect(result.statements[0]).toEqual<StatementSummary>({
			accountIban: null, accountId: '0123456789', accountCurrency: 'USD', accountOwner: null, periodFrom: '2004-06-20', periodTo: '2004-06-20',
			openingBalance: 43500, openingBalanceDate: '2004-06-20', closingBalance: null, closingBalanceDate: null, check: 'notAvailable', warning: null,
			availableBalance: null, availableBalanceDate: null, entryCount: 1, creditCount: 1, creditTotal: 4500, debitCount: 0, debitTotal: 0, netTotal: 4500,
			statementId: '20040620-2359-2', statementSequence: null, legalSequence: null, created: '2004-06-21T02:00:00', accountServicerBic: null,
			balances: [
				{ type: 'OPBD', amount: 43500, currency: 'USD', date: '2004-06-20', typeCode: '010', description: 'Opening Ledger' },
				{ type: 'OPAV', amount: 28300, currency: 'USD', date: '2004-06-20', typeCode: '040', description: 'Opening Available' },
				{ type: '072', amount: 10200, currency: 'USD', date: '2004-06-20', typeCode: '072', description: '1-Day Float' },
				{ type: '074', amount: 5000, currency: 'USD', date: '2004-06-20', typeCode: '074', description: '2 or More Days Float' },
			],
			messageType: 'BAI2', messageId: '1',
			bai2: { ...report, ultimateReceiverId: '031001234', summaries: [], controlTotal: 91500, recordCount: 4 } as StatementSummary['bai2'],
		});
		expect(result.entries[0]).toEqual<BankEntry>({
			...context, ...noPayment, ...single, accountId: '0123456789',
			bookingDate: '2004-06-20', valueDate: null, amount: 4500, currency: 'USD', creditDebit: 'CRDT', remittanceText: null,
			entryReference: null, accountServicerReference: null, bankTransactionCode: { ...bai, proprietary: '115' }, additionalInfo: 'Lockbox Deposit',
			funds: {
				type: 'S', availability: 'distributed', valueDate: null, valueTime: null,
				distribution: [{ days: 0, amount: 1000 }, { days: 1, amount: 2000 }, { days: 2, amount: 1500 }],
			},
		});
	});

	it('the second account: a negative opening ledger, a summary type code whose amount is in the next 88 record, an 88 holding a single amount', async () => {
		const { statements, entries } = await parse(file);
		const second = statements[1];
		expect(second.balances.map((b) => [b.typeCode, b.amount])).toEqual([['010', -5000], ['072', 5000], ['074', 5000], ['040', -15000]]);
		expect(second.bai2!.summaries.map((s) => [s.typeCode, s.description, s.creditDebit, s.amount, s.itemCount, s.funds])).toEqual([
			['100', 'Total Credits', 'CRDT', 10000, null, null],
			['400', 'Total Debits', 'DBIT', 20000, null, null],
			['190', 'Total Incoming Money Transfers', 'CRDT', 5000, null, null],
			['110', 'Total Lockbox Deposits', 'CRDT', 10000, null, null],
		]);
		// "There is no same-day availability (the field is defaulted to zero)"; the text ends the record.
		expect(entries[1]).toMatchObject({ accountId: '9876543210', amount: 5000, remittanceText: 'LOCK BOX NO.68751', funds: { type: 'S', distribution: [{ days: 0, amount: 0 }, { days: 1, amount: 2000 }, { days: 2, amount: 3000 }] } });
		expect(second.bai2).toMatchObject({ controlTotal: 40000, recordCount: 5 });
	});

	it('the second group: a value-dated $200,000.00 with bank and customer references and its text in the 88 record, a $100,000.00 with one-day availability', async () => {
		const { statements, entries } = await parse(file);
		expect(entries[2]).toEqual<BankEntry>({
			...context, ...noPayment, ...single, accountId: '4589761203',
			bookingDate: '2004-06-20', valueDate: '2004-06-22', amount: 200000, currency: 'USD', creditDebit: 'CRDT',
			remittanceText: 'PROCEEDS OF LETTER OF CREDIT FROM THE ARAMCO OIL CO', entryReference: 'YRC065321', accountServicerReference: 'SP4738',
			bankTransactionCode: { ...bai, proprietary: '218' }, additionalInfo: 'Foreign Collection Credit',
			funds: { type: 'V', availability: 'valueDated', valueDate: '2004-06-22', valueTime: null, distribution: null },
		});
		expect(entries[3]).toMatchObject({ accountId: '4589761203', amount: 100000, valueDate: null, bankTransactionCode: { proprietary: '195' }, additionalInfo: 'Incoming Money Transfer', funds: { type: '1', availability: 'oneDay' } });
		expect(statements[2].bai2).toMatchObject({ ultimateReceiverId: '053003456', controlTotal: 1800000, recordCount: 6 });
	});

	it('the third and fourth groups: summaries with item counts and funds types 0 and D (days 0, 1, 3), a correction group, and no entries', async () => {
		const { statements, entries } = await parse(file);
		expect(entries).toHaveLength(4);
		expect(statements[3].bai2!.summaries).toEqual([
			{ typeCode: '190', description: 'Total Incoming Money Transfers', creditDebit: 'CRDT', amount: 700000, itemCount: 4, funds: { type: '0', availability: 'immediate', valueDate: null, valueTime: null, distribution: null } },
			{
				typeCode: '110', description: 'Total Lockbox Deposits', creditDebit: 'CRDT', amount: 700000, itemCount: 15,
				funds: { type: 'D', availability: 'distributed', valueDate: null, valueTime: null, distribution: [{ days: 0, amount: 200000 }, { days: 1, amount: 300000 }, { days: 3, amount: 200000 }] },
			},
		]);
		// Group status 3: a correction; its statement ID says so, so that it is not taken for the update.
		expect(statements[4]).toMatchObject({ accountId: '7890654321', statementId: '20040620-2359-2-correction', openingBalance: 8000, bai2: { groupStatus: 'correction', controlTotal: 118000, recordCount: 3 } });
		expect(statements[4].bai2!.summaries).toEqual([{ typeCode: '110', description: 'Total Lockbox Deposits', creditDebit: 'CRDT', amount: 50000, itemCount: 4, funds: null }]);
		expect(statements.map((s) => s.accountId)).toEqual(['0123456789', '9876543210', '4589761203', '0975312468', '7890654321']);
	});

	it('the same statements from a stream of one byte at a time, with a byte order mark and CR LF, and from fixed-length records of 65 characters without line ends', async () => {
		const whole = await parse(file);
		const bytes = Buffer.from(file);
		const streamed = await parseBankFileToArrays(Readable.from((function* () { for (const byte of bytes) yield Buffer.from([byte]); })()));
		expect(streamed).toEqual(whole);
		// A byte order mark, CR LF line ends and blanks before the records change nothing.
		expect(await parse(`\uFEFF${file.replace(/\n(?=.)/g, '\r\n  ')}`)).toEqual(whole);
		// The file header declares 65-character physical records: one run of them, no line ends.
		const fixed = file.trimEnd().split('\n').map((line) => line.padEnd(65, ' ')).join('');
		expect(fixed.length).toBe(65 * 31);
		expect(await parse(fixed)).toEqual(whole);
	});

	it('an account refused by skipStatement gives no entries, only its key', async () => {
		const result = await parse(file, { skipStatement: (key) => key.account === '4589761203' });
		expect(result.skippedStatements).toEqual([{ account: '4589761203', statementId: '20040620-2359-2' }]);
		expect(result.entries.map((e) => e.accountId)).toEqual(['0123456789', '9876543210']);
		expect(result.statements.map((s) => s.accountId)).toEqual(['0123456789', '9876543210', '0975312468', '7890654321']);
	});
});

describe('banks\' files', () => {
	it('a Canadian bank (CAD): one account reported twice (the second statement ID numbered); value dates before the as-of date count as the as-of date; summaries with counts and value dates', async () => {
		const { statements, entries, warnings } = await parse(sample('moov-sample1.txt'));
		expect(warnings).toEqual([]);
		expect(statements.map((s) => [s.accountId, s.accountCurrency, s.statementId, s.entryCount, s.creditCount, s.creditTotal, s.debitCount, s.debitTotal, s.availableBalance, s.check])).toEqual([
			['10200123456', 'CAD', '20060317', 11, 3, 2085, 8, 2085, 0, 'notAvailable'],
			['10200123456', 'CAD', '20060317#2', 6, 2, 1115, 4, 1115, 0, 'notAvailable'],
		]);
		expect(statements[0].balances.map((b) => [b.type, b.amount])).toEqual([['OPAV', 0], ['CLAV', 0]]);
		expect(statements[0].bai2).toMatchObject({ senderId: '0004', receiverId: '12345', fileId: '001', fileCreated: '2006-03-21T08:29:00', originatorId: '0004', asOfTime: null, asOfDateModifier: null, controlTotal: 8340, recordCount: 14 });
		const valueDated = (date: string) => ({ type: 'V', availability: 'valueDated', valueDate: date, valueTime: null, distribution: null });
		expect(statements[0].bai2!.summaries).toEqual([
			{ typeCode: '100', description: 'Total Credits', creditDebit: 'CRDT', amount: 2085, itemCount: 3, funds: valueDated('2006-03-16') },
			{ typeCode: '400', description: 'Total Debits', creditDebit: 'DBIT', amount: 2085, itemCount: 8, funds: valueDated('2006-03-16') },
		]);
		expect(entries.slice(0, 4).map((e) => [e.bookingDate, e.valueDate, e.amount, e.creditDebit, e.bankTransactionCode.proprietary, e.additionalInfo, e.remittanceText, e.funds?.valueDate])).toEqual([
			['2006-03-17', '2006-03-17', -25, 'DBIT', '409', 'Debit (Any Type)', 'RETURNED CHEQUE', '2006-03-16'],
			['2006-03-17', '2006-03-17', -900, 'DBIT', '409', 'Debit (Any Type)', 'RTN-UNKNOWN', '2006-03-16'],
			['2006-03-17', '2006-03-17', -5, 'DBIT', '409', 'Debit (Any Type)', 'RTD CHQ SERVICE CHRG', '2006-03-16'],
			['2006-03-17', '2006-03-17', 2035, 'CRDT', '108', 'Credit (Any Type)', 'TFR 1020 0345678', '2006-03-16'],
		]);
		expect(entries.at(-1)).toMatchObject({ amount: -5, remittanceText: 'GALERIES RICHELIEU', valueDate: '2006-03-17', funds: { valueDate: '2006-03-17' } });
	});

	it('Citibank (GBP): a penny value-dated, its text in seven 88 records joined with spaces; the ledger balances do not move with it, so the check says mismatch', async () => {
		const { statements, entries } = await parse(sample('moj-citi_example.bai2'));
		expect(entries).toEqual<BankEntry[]>([{
			...noPayment, ...single,
			bookingDate: '2015-07-15', valueDate: '2015-07-15', amount: 0.01, currency: 'GBP', creditDebit: 'CRDT',
			remittanceText: 'FR:FP SIP INCOMING ENDT:20150715 TRID:RP12312312312312 PY:RP1231231231231200 A1234BC 22/03/66 BI:22222222 OB:111111 BUCKINGHAM PALACE OB3:BARCLAYS BANK PLC BO:11111111 BO1:DOE JO',
			accountIban: null, accountId: '77777777', accountCurrency: 'GBP', entryReference: 'RP12312312312312', accountServicerReference: '1234567890',
			bankTransactionCode: { ...bai, proprietary: '191' }, additionalInfo: 'Individual Incoming Internal Money Transfer',
			statementId: '20150715-2340-2', statementSequence: null, legalSequence: null, statementCreated: '2015-07-16T07:13:00', periodFrom: '2015-07-15',
			// The originator's identifier has the shape of a BIC.
			periodTo: '2015-07-15', accountServicerBic: 'CITIGB00', messageType: 'BAI2', messageId: '00131100',
			funds: { type: 'V', availability: 'valueDated', valueDate: '2015-07-15', valueTime: null, distribution: null },
		}]);
		expect(statements[0]).toMatchObject({
			openingBalance: 100, closingBalance: 100, check: 'mismatch',
			warning: 'Opening ledger (010) 100 + details 0.01 = 100.01, but the closing ledger (015) is 100 (difference -0.01)',
			bai2: { originatorId: 'CITIGB00', ultimateReceiverId: '8888888', controlTotal: 200.01, recordCount: 10 },
		});
	});

	it('NatWest (GBP): text cut mid-word at the end of an 80-character record joined without a space; debits 699 and a credit 399 that add up to the closing ledger', async () => {
		const { statements, entries } = await parse(sample('moj-nwb_example.bai2'));
		expect(entries.map((e) => [e.amount, e.bankTransactionCode.proprietary, e.entryReference, e.accountServicerReference])).toEqual([
			[-9.71, '699', null, null], [-1, '699', null, null], [-1.23, '699', null, null], [-15.71, '699', null, null], [0.89, '399', null, null],
		]);
		expect(entries[4].remittanceText).toBe('TFR XBANKGO24007680SJ CAT JPY 2 GBPXBANKGO24007680BGC INTERNATIONAL-5373 CLIENT SECCY AC TFR');
		expect(entries[0].remittanceText).toBe('LVP XBANKGO24007664SJ LVP INT 2 USAXBANKGO24007664SJ LVP INT 2 USARELAY TFR');
		const [statement] = statements;
		expect(statement).toMatchObject({
			accountId: '88888888 600004', accountCurrency: 'GBP', accountServicerBic: 'NWBKGB2L', openingBalance: 365.21, closingBalance: 338.45,
			availableBalance: 338.45, check: 'ok', warning: null, debitCount: 4, debitTotal: 27.65, creditCount: 1, creditTotal: 0.89, netTotal: -26.76,
			created: '2010-02-15T14:59:00', statementId: '20091216-2400',
			bai2: { asOfTime: '24:00', asOfDateModifier: null, controlTotal: 1437.64, recordCount: 14 },
		});
		expect(statement.bai2!.summaries.map((s) => [s.typeCode, s.amount, s.itemCount])).toEqual([['400', 27.65, 4], ['100', 0.89, 1]]);
		expect(statement.balances.map((b) => b.type)).toEqual(['OPBD', 'CLBD', 'CLAV', 'OPAV', '072', '074', '075']);
	});

	it('Silicon Valley Bank (USD): two groups, a 03 record ending ",,,/" before its continuation, a file trailer without "/"', async () => {
		const { statements, entries } = await parse(sample('moj-svb_us_example.bai2'));
		expect(statements.map((s) => [s.periodFrom, s.openingBalance, s.closingBalance, s.availableBalance, s.check, s.creditTotal, s.statementId])).toEqual([
			['2022-02-01', 347269.79, 352171.75, 352171.75, 'ok', 4901.96, '20220201-2'],
			['2022-02-02', 352171.75, 361229.75, 361229.75, 'ok', 9058, '20220202-2'],
		]);
		expect(statements[0].balances.map((b) => [b.typeCode, b.amount])).toEqual([['010', 347269.79], ['015', 352171.75], ['040', 327425.37], ['045', 352171.75], ['072', 0], ['074', 0]]);
		expect(entries.map((e) => [e.amount, e.accountServicerReference, e.entryReference, e.remittanceText, e.funds])).toEqual([
			[4901.96, '172629', null, 'SOME PAYMENT ACH OFFSET', null],
			[9058, '150675', null, 'SOME PAYMENT ACH OFFSET', null],
		]);
	});

	it('accounts with nothing reported and a blank account control total (zero)', async () => {
		const { statements, entries } = await parse(sample('moj-account_trailer_amount_blank_example.bai2'));
		expect(entries).toEqual([]);
		expect(statements.map((s) => [s.accountId, s.balances, s.entryCount, s.check, s.bai2!.controlTotal, s.bai2!.recordCount])).toEqual([
			['12345', [], 0, 'notAvailable', 0, 2],
			['54321', [], 0, 'notAvailable', 0, 2],
		]);
	});

	it('a US bank\'s test file whose trailers do not add up: refused naming the account trailer and both numbers; read with warnings when asked', async () => {
		const file = sample('moov-sample4-continuations-newline-delimited.txt');
		// Account 107049932: 060 6865898, 100 1912, 400 000 in its 03 record; details 60000, 143500, 928650.
		const sum = 6865898 + 1912 + 0 + 60000 + 143500 + 928650;
		const error = await failure(file);
		expect(error.code).toBe('CONTROL_TOTAL_MISMATCH');
		expect(error.message).toBe(`The account trailer (49) of account 107049932 gives a control total of -1260161341762, but the amounts of the account's records (line 5 on) add up to ${sum} (line 22)`);

		const { statements, entries, warnings } = await parse(file, { onInvalidRecord: 'warn' });
		expect(warnings.map((w) => [w.code, w.location])).toEqual([
			['CONTROL_TOTAL_MISMATCH', 'line 22'], ['CONTROL_TOTAL_MISMATCH', 'line 22'], ['CONTROL_TOTAL_MISMATCH', 'line 110'], ['CONTROL_TOTAL_MISMATCH', 'line 110'],
			['CONTROL_TOTAL_MISMATCH', 'line 115'], ['CONTROL_TOTAL_MISMATCH', 'line 115'], ['CONTROL_TOTAL_MISMATCH', 'line 115'], ['CONTROL_TOTAL_MISMATCH', 'line 116'],
		]);
		// 03, 3 details with 3 + 7 + 3 continuations, 49: 18 records where the trailer says 26.
		expect(warnings[1].message).toBe('The account trailer (49) of account 107049932 counts 26 records, but the account has 18 (its 03, 16 and 88 records and this 49); the file was read on');
		expect(statements.map((s) => [s.accountId, s.check, s.entryCount])).toEqual([
			['107049924', 'notAvailable', 0], ['107049932', 'mismatch', 3], ['104108339', 'mismatch', 14], ['260000033037', 'notAvailable', 0], ['280000010657', 'notAvailable', 0],
		]);
		expect(statements[1].warning).toMatch(/^The account trailer \(49\) of account 107049932 gives a control total of -1260161341762/);
		expect(entries).toHaveLength(17);
		expect(entries[1]).toMatchObject({
			amount: 1435, creditDebit: 'CRDT', bankTransactionCode: { proprietary: '261' }, additionalInfo: 'Individual Rejected Credit',
			accountServicerReference: 'SB2322600000404', entryReference: 'GSQ4FBGFDGWGKY', funds: null, valueDate: null,
			remittanceText: 'ACH Credit Reject,From: TEST INC, Remittance Info: "ACH- Test - Addenda Record", Entry Description: TRADE; -, SEC: CTX, Client Ref ID: GSQ4FBGFDGWGKY, GS ID: SB2322600000404 CREF: REMI: ACH- Test - Addenda Record EREF: GSQ4FBGFDGWGKY CRNM: Test DBNM: SAMPLE INC DACT: 101152046 DABA: 026015079',
		});
		expect(entries[0]).toMatchObject({ amount: -600, creditDebit: 'DBIT', bankTransactionCode: { proprietary: '447' } });
	});

	it('a file whose records run together on one line is refused naming the line', async () => {
		const error = await failure(sample('moov-sample3.txt'));
		expect(error.code).toBe('INVALID_RECORD');
		expect(error.message).toBe('The line holds another record after the end ("/") of its file header (01): "02,103100195,103100195,1,22091"; BAI2 files have one record per line (line 1)');
	});
});

describe('records the samples do not have', () => {
	const wrap = (account: string[], currency = '', total?: number, records?: number): string => {
		const lines = ['01,SENDER,RECEIVER,261201,9999,7,,,2/', `02,RECEIVER,BANKUS33XXX,1,261130,2400,${currency},4/`, ...account];
		const sum = total ?? 0;
		const count = records ?? account.length;
		return [...lines, `98,${sum},1,${count + 2}/`, `99,${sum},1,${count + 4}/`, ''].join('\r\n');
	};

	it('non-monetary information (890), a value time, three-decimal and zero-decimal currencies, a detail type code of the bank\'s own range', async () => {
		const kwd = wrap(['03,KW81CBKU0000000000001234560101,KWD,010,-1234567,,,015,-1229567,,/', '16,890,,,,,detail reports will be delayed until 11:00 AM.', '16,195,5000,V,261201,1300,REF1,,WIRE/', '49,-2459134,4/'], 'JPY', -2459134, 4);
		const result = await parse(kwd);
		const [statement] = result.statements;
		expect(statement).toMatchObject({
			accountIban: 'KW81CBKU0000000000001234560101', accountId: null, accountCurrency: 'KWD', openingBalance: -1234.567, closingBalance: -1229.567, check: 'ok',
			accountServicerBic: 'BANKUS33XXX', created: '2026-12-01T23:59:59', statementId: '20261130-2400-4',
			bai2: { information: ['detail reports will be delayed until 11:00 AM.'], asOfDateModifier: 'finalSameDay', controlTotal: -2459.134 },
		});
		expect(result.entries).toHaveLength(1);
		expect(result.entries[0]).toMatchObject({ amount: 5, currency: 'KWD', valueDate: '2026-12-01', funds: { type: 'V', valueDate: '2026-12-01', valueTime: '13:00' } });

		const jpy = await parse(wrap(['03,0001234,,010,1000000,,,400,5000,1,Z/', '16,965,5000,2,,,BANK OWN DEBIT/', '49,1010000,3/'], 'JPY', 1010000, 3));
		expect(jpy.statements[0]).toMatchObject({ accountCurrency: 'JPY', openingBalance: 1000000, bai2: { summaries: [{ typeCode: '400', amount: 5000, itemCount: 1, funds: { type: 'Z', availability: 'unknown' } }] } });
		expect(jpy.entries[0]).toMatchObject({ amount: -5000, creditDebit: 'DBIT', additionalInfo: "Bank's own debit", bankTransactionCode: { proprietary: '965' }, funds: { type: '2', availability: 'twoOrMoreDays' } });
	});

	it('a detail continued field by field: its references in the 88 record after a "/" that ends the funds type', async () => {
		// The specification's sample 88 record: 16 ending with the funds type, 88 with the references and text, 88 with more text.
		const { entries } = await parse(wrap(['03,12345,,/', '16,115,10000000,S,5000000,4000000,1000000/', '88,AX13612,B096132,AMALGAMATED CORP. LOCKBOX', '88,DEPOSIT-MISC. RECEIVABLES', '49,10000000,5/'], '', 10000000, 5));
		expect(entries[0]).toMatchObject({
			amount: 100000, accountServicerReference: 'AX13612', entryReference: 'B096132', remittanceText: 'AMALGAMATED CORP. LOCKBOX DEPOSIT-MISC. RECEIVABLES',
			funds: { type: 'S', distribution: [{ days: 0, amount: 50000 }, { days: 1, amount: 40000 }, { days: 2, amount: 10000 }] },
		});
	});

	it('a detail with a status code, or a negative amount: refused naming the account and the code, or left out with a warning', async () => {
		const status = wrap(['03,12345,,/', '16,015,500,,,,/', '49,500,3/'], '', 500, 3);
		const error = await failure(status);
		expect(error.message).toBe('Account 12345: type code 015 (Closing Ledger) in a transaction detail (16) is neither a credit nor a debit code (line 4)');
		const warned = await parse(status, { onInvalidRecord: 'warn' });
		expect(warned.entries).toEqual([]);
		expect(warned.statements[0].warning).toBe('1 transaction detail was left out (see the warnings)');
		expect(warned.warnings[0]).toEqual({ code: 'INVALID_RECORD', message: 'Account 12345: type code 015 (Closing Ledger) in a transaction detail (16) is neither a credit nor a debit code; the record was skipped', location: 'line 4' });
		const negative = await failure(wrap(['03,12345,,/', '16,475,-500,,,,/', '49,-500,3/'], '', -500, 3));
		expect(negative.message).toMatch(/^Account 12345: the amount of the transaction detail \(16\) of type code 475 is negative \(-500\)/);
	});
});

describe('malformed files: each a clear error naming the record and the numbers', () => {
	const file = sample('moov-sample2.txt');
	const replaced = (from: string, to: string): string => {
		expect(file).toContain(from);
		return file.replace(from, to);
	};

	it.each([
		['an account control total one cent off', '49,9150000,4/', '49,9150001,4/', 'CONTROL_TOTAL_MISMATCH', "The account trailer (49) of account 0123456789 gives a control total of 9150001, but the amounts of the account's records (line 3 on) add up to 9150000 (line 6)"],
		['an account record count that leaves out the 88', '49,9150000,4/', '49,9150000,3/', 'CONTROL_TOTAL_MISMATCH', 'The account trailer (49) of account 0123456789 counts 3 records, but the account has 4 (its 03, 16 and 88 records and this 49) (line 6)'],
		['a group total that is not the sum of its accounts', '98,13150000,2,11/', '98,13150001,2,11/', 'CONTROL_TOTAL_MISMATCH', "The group trailer (98) of the group that starts on line 2 gives a control total of 13150001, but its account trailers' control totals add up to 13150000 (line 12)"],
		['a group counting one account too many', '98,13150000,2,11/', '98,13150000,3,11/', 'CONTROL_TOTAL_MISMATCH', 'The group trailer (98) of the group that starts on line 2 counts 3 accounts, but the group has 2 account identifiers (03) (line 12)'],
		['a file total that is not the sum of its groups', '99,345450000,4,31/', '99,345450001,4,31/', 'CONTROL_TOTAL_MISMATCH', "The file trailer (99) gives a control total of 345450001, but the group trailers' control totals add up to 345450000 (line 31)"],
		['a file record count without the continuations', '99,345450000,4,31/', '99,345450000,4,25/', 'CONTROL_TOTAL_MISMATCH', 'The file trailer (99) counts 25 records, but the file has 31 (from its 01 to this 99, continuations included) (line 31)'],
		['a missing account trailer', '49,9150000,4/\n', '', 'TRUNCATED', 'Account 0123456789 (line 3) has no account trailer (49) before the next account identifier (03) (line 6)'],
		['a missing group trailer', '98,13150000,2,11/\n', '', 'TRUNCATED', 'A group header (02) before the group trailer (98) of the group that started on line 2 (line 12)'],
		['a missing file trailer', '99,345450000,4,31/', '', 'TRUNCATED', 'The file ends without its file trailer (99) (the file header is on line 1)'],
		['a continuation whose type code is none', '88,072,1020000,,,074,500000,,/', '88,07X,1020000,,,074,500000,,/', 'INVALID_RECORD', 'Account 0123456789: "07X" in field 12 of the account identifier (03) is not a BAI2 type code (three digits of a status or summary range) (line 3)'],
		['a continuation whose amount is no number', '88,072,1020000,,,074,500000,,/', '88,072,10200.00,,,074,500000,,/', 'INVALID_RECORD', 'Account 0123456789: the amount of type code 072, "10200.00", is not a whole number in minor units (line 3)'],
		['a continuation of no record type', '88,PROCEEDS OF', '77,PROCEEDS OF', 'UNKNOWN_RECORD', 'Unknown BAI2 record code "77" (line 17)'],
		['a funds type that is none of the specification\'s', '16,195,10000000,1,,,/', '16,195,10000000,X,,,/', 'INVALID_RECORD', 'Account 4589761203: the transaction detail (16) of type code 195: the funds type "X" is not one of 0, 1, 2, S, V, D, Z (line 18)'],
		['a distribution with fewer pairs than it says', '88,70000000,15,D,3,0,20000000,1,30000000,3,20000000/', '88,70000000,15,D,4,0,20000000,1,30000000,3,20000000/', 'INVALID_RECORD', 'Account 0975312468, type code 110: distribution 4 of 4 of funds type D, ",", is not a number of days and an amount (line 22)'],
		['a detail outside an account', '03,0123456789,,010,+4350000,,,040,2830000,,/\n88,072,1020000,,,074,500000,,/\n', '', 'INVALID_RECORD', 'A transaction detail (16) outside an account (03 ... 49) (line 3)'],
		['version 3 (BTRS)', '0200,1,65,,2/', '0200,1,65,,3/', 'UNKNOWN_VERSION', 'The file is BAI version 3 (BTRS, ANSI X9.121), not BAI2 (version 2) (line 1)'],
		['an as-of date that is no date', '02,031001234,122099999,1,040620,', '02,031001234,122099999,1,040631,', 'INVALID_RECORD', 'The as-of date of the group header (02), "040631", is not a date YYMMDD (line 2)'],
	])('%s', async (_name, from, to, code, message) => {
		const error = await failure(replaced(from, to));
		expect(error.code).toBe(code);
		expect(error.message).toBe(message);
	});
});

describe('detection and the type code table', () => {
	it('BAI2 is told from the other formats, and a chosen format must fit', async () => {
		for (const name of ['moov-sample1.txt', 'moov-sample2.txt', 'moj-citi_example.bai2', 'moj-nwb_example.bai2', 'moj-svb_us_example.bai2'])
			expect(detectFormat(Buffer.from(sample(name))).format).toBe('bai2');
		expect(detectFormat(Buffer.from(sample('moov-sample2.txt')), 'bai2').format).toBe('bai2');
		expect(() => detectFormat(Buffer.from(sample('moov-sample2.txt')), 'mt940')).toThrow('The file is not a SWIFT MT940 (its fields :20:, :25:, :28C: are missing): it starts with "01,122099999,123456789,040621,0200,1,65,"');
		expect(() => detectFormat(Buffer.from(sample('moov-sample2.txt')), 'tito')).toThrow('The file is a BAI2 balance report, not tito as chosen');
		expect(() => detectFormat(Buffer.from('T00322100...'), 'bai2')).toThrow('The file is not BAI2 (its first record is not a file header "01,sender,receiver,YYMMDD,..."): it starts with "T00322100..."');
		expect(() => detectFormat(Buffer.from('Date;Amount\n'))).toThrow('The file is neither XML (camt, pain.002), a SWIFT MT940 / MT942, a BAI2 file nor a Finnish TITO or KTL file: it starts with "Date;Amount"');
	});

	it('type codes as Appendix A lists them, and the ranges for the rest', () => {
		expect(typeCodeInfo('010', '03')).toEqual({ code: '010', transaction: 'NA', level: 'Status', description: 'Opening Ledger', listed: true });
		expect(typeCodeInfo('015', '03')?.description).toBe('Closing Ledger');
		expect(typeCodeInfo('040', '03')?.description).toBe('Opening Available');
		expect(typeCodeInfo('045', '03')?.description).toBe('Closing Available');
		expect(typeCodeInfo('100', '03')).toEqual({ code: '100', transaction: 'CR', level: 'Summary', description: 'Total Credits', listed: true });
		expect(typeCodeInfo('400', '03')).toEqual({ code: '400', transaction: 'DB', level: 'Summary', description: 'Total Debits', listed: true });
		expect(typeCodeInfo('165', '16')).toEqual({ code: '165', transaction: 'CR', level: 'Detail', description: 'Preauthorized ACH Credit', listed: true });
		expect(typeCodeInfo('475', '16')).toEqual({ code: '475', transaction: 'DB', level: 'Detail', description: 'Check Paid', listed: true });
		expect(typeCodeInfo('890', '16')).toEqual({ code: '890', transaction: 'NA', level: 'Detail', description: 'Contains Non-monetary Information', listed: true });
		expect(typeCodeInfo('039', '03')?.description).toBe('Opening Available + Total Same-Day ACH DTC Deposit');
		expect(typeCodeInfo('403', '03')?.description).toBe("Today's Total Debits");
		// Not listed: known by its range only (101-399 credits, 401-699 debits, 900-999 the bank's own).
		expect(typeCodeInfo('102', '16')).toEqual({ code: '102', transaction: 'CR', level: 'Detail', description: 'Credit', listed: false });
		expect(typeCodeInfo('950', '03')).toEqual({ code: '950', transaction: 'CR', level: 'Summary', description: "Bank's own credit", listed: false });
		expect(typeCodeInfo('905', '03')).toEqual({ code: '905', transaction: 'NA', level: 'Status', description: "Bank's own account status", listed: false });
		expect(typeCodeInfo('850', '16')).toBeUndefined();
		expect(typeCodeInfo('000', '03')).toBeUndefined();
	});
});
