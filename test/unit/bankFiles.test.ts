import { Readable } from 'node:stream';

import type { BankEntry, PaymentInput } from '../../nodes/shared/bankfiles';
import {
	buildPaymentFile,
	detectFormat,
	finnishReferenceCheckDigit,
	isValidBic,
	isValidFinnishReference,
	isValidIban,
	isValidRfReference,
	parseBankFile,
	parseBankFileToArrays,
	PaymentValidationError,
	rfFromBase,
	validatePayment,
} from '../../nodes/shared/bankfiles';
import { fixture, parse, failure } from './bankFileHelpers';
import { camt054FromPain001 } from '../sandbox/bankfiles';
import { validateWithXsd } from '../helpers/xsd';


const noCode = { domain: null, family: null, subFamily: null, proprietary: null, proprietaryIssuer: null };

/** The statement fields of the first account in the camt.053 fixtures. */
const statementOne = (version: string) => ({
	messageType: `camt.053.001.${version}`,
	messageId: `STMT-20261120-00${version === '02' ? '01' : version}`,
	statementId: '2026112000785',
	statementSequence: 224,
	legalSequence: 224,
	statementCreated: '2026-11-21T04:12:00+02:00',
	periodFrom: '2026-11-20T00:00:00+02:00',
	periodTo: '2026-11-20T23:59:59+02:00',
	accountIban: 'FI2112345600000785',
	accountId: null,
	accountCurrency: 'EUR',
	accountServicerBic: 'SBXBFIHH',
});

const empty = {
	instructionId: null,
	transactionId: null,
	paymentInformationId: null,
	mandateId: null,
	creditorId: null,
	ultimateCounterpartyName: null,
	creditorReference: null,
	creditorReferenceType: null,
	remittanceText: null,
	documents: null,
	counterpartyName: null,
	counterpartyIban: null,
	counterpartyAccount: null,
	counterpartyBic: null,
	fx: null,
	purpose: null,
	returnReason: null,
	additionalInfo: null,
	transactionCount: 1,
	transactionIndex: null,
	entryAmount: null,
	reversal: false,
	status: 'BOOK',
	endToEndId: null,
};

describe('camt.053 statements, versions .02, .04 and .08', () => {
	it.each(['02', '04', '08'])('camt.053.001.%s: every field of every entry, and both statements with balances and the check', async (version) => {
		const result = await parse(fixture(`camt.053.001.${version}.xml`));
		expect(result.format).toEqual({ format: 'camt.053', version: `001.${version}`, messageType: `camt.053.001.${version}` });
		expect(result.warnings).toEqual([]);
		const s = statementOne(version);
		const day = { bookingDate: '2026-11-20', valueDate: '2026-11-20', currency: 'EUR' };
		expect(result.entries).toEqual<BankEntry[]>([
			{
				...s, ...empty, ...day,
				entryReference: '1', amount: 1500, creditDebit: 'CRDT',
				bankTransactionCode: { domain: 'PMNT', family: 'RCDT', subFamily: 'ESCT', proprietary: '705', proprietaryIssuer: 'FFFS' },
				accountServicerReference: '261120AAA0001', endToEndId: 'INV-1001',
				creditorReference: 'RF18539007547034', creditorReferenceType: 'RF',
				counterpartyName: 'Aros Food Group AB', counterpartyIban: 'SE4550000000058398257466', counterpartyBic: 'ESSESESS',
			},
			{
				...s, ...empty, ...day,
				entryReference: '2', amount: -250.35, creditDebit: 'DBIT',
				bankTransactionCode: { ...noCode, domain: 'PMNT', family: 'ICDT', subFamily: 'ESCT' },
				accountServicerReference: '261120AAA0002', endToEndId: 'E2E-2001', instructionId: 'I-2001', paymentInformationId: 'PAY-77-1',
				creditorReference: '1232', creditorReferenceType: 'FI',
				counterpartyName: 'Helsinki Office Supplies Oy', counterpartyIban: 'FI5115723500048531', counterpartyBic: 'NDEAFIHH',
			},
			{
				...s, ...empty, ...day,
				entryReference: '3', amount: -3000, creditDebit: 'DBIT',
				bankTransactionCode: { ...noCode, domain: 'PMNT', family: 'ICDT', subFamily: 'SALA' },
				accountServicerReference: '261120AAA0003', paymentInformationId: 'SAL-11', purpose: 'SALA',
				remittanceText: 'Salary 11/2026', transactionCount: 2,
			},
			{
				...s, ...empty, ...day, valueDate: '2026-11-21',
				entryReference: '4', amount: 920.4, creditDebit: 'CRDT',
				bankTransactionCode: { ...noCode, domain: 'PMNT', family: 'RCDT', subFamily: 'XBCT' },
				accountServicerReference: '261120AAA0004', transactionId: 'FX-88120', remittanceText: 'Order 5531',
				counterpartyName: 'Hanse Metals GmbH', counterpartyIban: 'DE89370400440532013000', counterpartyBic: 'COBADEFFXXX',
				fx: { instructedAmount: 1000, instructedCurrency: 'USD', sourceCurrency: 'USD', targetCurrency: 'EUR', unitCurrency: 'USD', rate: 0.9204, contractId: 'FXC-5531' },
			},
			{
				...s, ...empty, ...day,
				entryReference: '5', amount: -12.5, creditDebit: 'DBIT',
				bankTransactionCode: { domain: 'ACMT', family: 'MDOP', subFamily: 'CHRG', proprietary: '730', proprietaryIssuer: 'FFFS' },
				accountServicerReference: '261120AAA0005', additionalInfo: 'Service fee 10/2026',
			},
			{
				...s, ...empty, ...day,
				entryReference: '6', amount: 500, creditDebit: 'CRDT', reversal: true,
				bankTransactionCode: { ...noCode, domain: 'PMNT', family: 'ICDT', subFamily: 'RRTN' },
				accountServicerReference: '261120AAA0006', endToEndId: 'E2E-1999', returnReason: 'AC04',
			},
			{
				...s, ...empty, ...day, valueDate: '2026-11-19',
				statementId: '2026112000081', statementSequence: 118, legalSequence: null, accountIban: 'FI5542345670000081',
				entryReference: '1', amount: -42.9, creditDebit: 'DBIT',
				bankTransactionCode: { ...noCode, domain: 'PMNT', family: 'CCRD', subFamily: 'POSD' },
				accountServicerReference: '261120BBB0001', counterpartyName: 'Kahvila & Leipomo Oy', additionalInfo: 'Card purchase 4321********1234',
			},
		]);
		expect(result.statements).toEqual([
			{
				messageType: s.messageType, messageId: s.messageId, statementId: '2026112000785', statementSequence: 224, legalSequence: 224,
				created: '2026-11-21T04:12:00+02:00', periodFrom: s.periodFrom, periodTo: s.periodTo,
				accountIban: 'FI2112345600000785', accountId: null, accountCurrency: 'EUR', accountOwner: 'Esimerkki Oyj', accountServicerBic: 'SBXBFIHH',
				openingBalance: 10000, openingBalanceDate: '2026-11-19', closingBalance: 9657.55, closingBalanceDate: '2026-11-20',
				availableBalance: 9157.55, availableBalanceDate: '2026-11-20',
				balances: [
					{ type: 'OPBD', amount: 10000, currency: 'EUR', date: '2026-11-19' },
					{ type: 'CLBD', amount: 9657.55, currency: 'EUR', date: '2026-11-20' },
					{ type: 'CLAV', amount: 9157.55, currency: 'EUR', date: '2026-11-20' },
				],
				entryCount: 6, creditCount: 3, creditTotal: 2920.4, debitCount: 3, debitTotal: 3262.85, netTotal: -342.45,
				check: 'ok', warning: null,
			},
			expect.objectContaining({
				statementId: '2026112000081', accountIban: 'FI5542345670000081', openingBalance: 500, openingBalanceDate: '2026-11-19',
				closingBalance: 457.1, availableBalance: null, entryCount: 1, debitTotal: 42.9, netTotal: -42.9, check: 'ok', warning: null,
			}),
		]);
	});

	it('one item per transaction detail on request: the batch entry becomes its two salaries with their own amounts and parties', async () => {
		const { entries } = await parse(fixture('camt.053.001.02.xml'), { split: 'transaction' });
		expect(entries).toHaveLength(8);
		const salaries = entries.filter((e) => e.entryReference === '3' && e.statementId === '2026112000785');
		expect(salaries.map((e) => [e.amount, e.counterpartyName, e.counterpartyIban, e.endToEndId, e.transactionIndex, e.entryAmount, e.transactionCount])).toEqual([
			[-1200, 'Maija Meikäläinen', 'FI5279360001072486', 'SAL-1', 1, -3000, 2],
			[-1800, 'Matti Virtanen', 'FI1029501800021342', 'SAL-2', 2, -3000, 2],
		]);
	});

	it('keeps each entry\'s XML element on request, in the document\'s namespace', async () => {
		const { entries } = await parse(fixture('camt.053.001.08.xml'), { keepXml: true });
		expect(entries[0].xml).toMatch(/^<Ntry xmlns="urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.08"><NtryRef>1<\/NtryRef><Amt Ccy="EUR">1500\.00<\/Amt>/);
		expect(entries[6].xml).toContain('<Nm>Kahvila &amp; Leipomo Oy</Nm>');
		expect((await parse(fixture('camt.053.001.08.xml'))).entries[0].xml).toBeUndefined();
	});

	it('skips statements the caller has already processed, by account and statement id, without reading their entries', async () => {
		const seen: string[] = [];
		const result = await parse(fixture('camt.053.001.02.xml'), {
			skipStatement: ({ account, statementId }) => {
				seen.push(`${account}/${statementId}`);
				return account === 'FI2112345600000785' && statementId === '2026112000785';
			},
		});
		expect(seen).toEqual(['FI2112345600000785/2026112000785', 'FI5542345670000081/2026112000081']);
		expect(result.entries.map((e) => e.statementId)).toEqual(['2026112000081']);
		expect(result.statements.map((s) => s.statementId)).toEqual(['2026112000081']);
		expect(result.skippedStatements).toEqual([{ account: 'FI2112345600000785', statementId: '2026112000785' }]);
	});

	it('reports a closing balance that opening + entries do not reach as a mismatch warning, with the numbers', async () => {
		const xml = fixture('camt.053.001.02.xml').toString().replace('<Amt Ccy="EUR">9657.55</Amt>', '<Amt Ccy="EUR">9700.00</Amt>');
		const { statements } = await parse(xml);
		expect(statements[0].check).toBe('mismatch');
		expect(statements[0].warning).toBe('Opening balance 10000 + booked entries -342.45 = 9657.55, but the closing balance is 9700 (difference 42.45)');
		expect(statements[1].check).toBe('ok');
	});

	it('gives the same result from a stream of small chunks as from one buffer', async () => {
		const content = fixture('camt.053.001.08.xml');
		const whole = await parse(content);
		const chunks: Buffer[] = [];
		for (let i = 0; i < content.length; i += 13) chunks.push(content.subarray(i, i + 13));
		const streamed = await parseBankFileToArrays(Readable.from(chunks));
		expect(streamed).toEqual(whole);
	});

	it('yields the format first, then each statement after its entries', async () => {
		const kinds: string[] = [];
		for await (const event of parseBankFile(fixture('camt.053.001.02.xml'))) kinds.push(event.type);
		expect(kinds).toEqual(['format', 'entry', 'entry', 'entry', 'entry', 'entry', 'entry', 'statement', 'entry', 'statement']);
	});
});

describe('camt.054 notifications, versions .02, .04 and .08', () => {
	it.each(['02', '04', '08'])('camt.054.001.%s: every field; a batch of reference payments; no balances, so no check', async (version) => {
		const result = await parse(fixture(`camt.054.001.${version}.xml`));
		const base = {
			messageType: `camt.054.001.${version}`, messageId: 'NTF-20261120-0001', statementId: 'NTF-20261120-0001-1', statementSequence: 57, legalSequence: null,
			statementCreated: '2026-11-20T18:00:00+02:00', periodFrom: '2026-11-20T00:00:00+02:00', periodTo: '2026-11-20T18:00:00+02:00',
			accountIban: 'FI2112345600000785', accountId: null, accountCurrency: 'EUR', accountServicerBic: 'SBXBFIHH',
			bookingDate: '2026-11-20', valueDate: '2026-11-20', currency: 'EUR', creditDebit: 'CRDT' as const,
		};
		expect(result.entries).toEqual<BankEntry[]>([
			{
				...empty, ...base, entryReference: '1', amount: 310, transactionCount: 2,
				bankTransactionCode: { domain: 'PMNT', family: 'RCDT', subFamily: 'ESCT', proprietary: '705', proprietaryIssuer: 'FFFS' },
				accountServicerReference: '261120CCC0001',
			},
			{
				...empty, ...base, entryReference: '2', amount: 75.25,
				bankTransactionCode: { ...noCode, domain: 'PMNT', family: 'RCDT', subFamily: 'ESCT' },
				accountServicerReference: '261120CCC0002', endToEndId: 'E2E-3001', remittanceText: 'Deposit refund contract 44',
				counterpartyName: 'Tampere Energy Oy', counterpartyIban: 'FI5115723500048531',
			},
		]);
		const split = await parse(fixture(`camt.054.001.${version}.xml`), { split: 'transaction' });
		expect(split.entries.slice(0, 2).map((e) => [e.amount, e.creditorReference, e.creditorReferenceType, e.endToEndId, e.accountServicerReference, e.counterpartyName, e.counterpartyIban, e.counterpartyBic])).toEqual([
			[120, '123453', 'FI', null, '261120CCC0001', 'Lapland Minerals Oy', 'FI3944400100205558', null],
			[190, 'RF18539007547034', 'RF', 'ORDER-77', '261120CCC0001', 'Oulu Software Ltd', 'FI1029501800021342', 'OKOYFIHH'],
		]);
		expect(result.statements).toEqual([
			expect.objectContaining({ statementId: 'NTF-20261120-0001-1', openingBalance: null, closingBalance: null, balances: [], entryCount: 2, creditTotal: 385.25, check: 'notAvailable', warning: null }),
		]);
	});
});

describe('structured remittance: the documents a payment settles', () => {
	// The 75.25 credit pays invoice INV-2026-118 (100.00) less credit note CN-2026-7 (24.75); a
	// third block gives only a creditor reference and the amount remitted against it.
	const strd = (inner: string) => `<Strd>${inner}</Strd>`;
	const documentType = (code: string) => `<Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp>`;
	const remittance =
		'<RmtInf>' +
		strd(`<RfrdDocInf>${documentType('CINV')}<Nb> INV-2026-118</Nb><RltdDt>2026-10-31</RltdDt></RfrdDocInf><RfrdDocAmt><RmtdAmt Ccy="EUR">100.00</RmtdAmt></RfrdDocAmt>`) +
		strd(`<RfrdDocInf>${documentType('CREN')}<Nb>CN-2026-7</Nb></RfrdDocInf><RfrdDocAmt><CdtNoteAmt Ccy="EUR">24.75</CdtNoteAmt></RfrdDocAmt>`) +
		strd('<RfrdDocAmt><RmtdAmt Ccy="EUR">0</RmtdAmt></RfrdDocAmt><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf>') +
		'</RmtInf>';

	it.each(['02', '04', '08'])('camt.054.001.%s: each invoice and credit note with its number, date and amount; they add up to the payment', async (version) => {
		const xml = fixture(`camt.054.001.${version}.xml`).toString().replace('<RmtInf><Ustrd>Deposit refund</Ustrd><Ustrd>contract 44</Ustrd></RmtInf>', remittance);
		const { entries } = await parse(Buffer.from(xml));
		const entry = entries.find((e) => e.entryReference === '2')!;
		expect(entry.documents).toEqual([
			{ type: 'CINV', number: 'INV-2026-118', date: '2026-10-31', reference: null, amount: 100, currency: 'EUR' },
			{ type: 'CREN', number: 'CN-2026-7', date: null, reference: null, amount: -24.75, currency: 'EUR' },
			{ type: null, number: null, date: null, reference: 'RF18539007547034', amount: 0, currency: 'EUR' },
		]);
		expect(entry.documents!.reduce((sum, d) => sum + d.amount! * 100, 0) / 100).toBe(entry.amount);
		// The reference is also the entry's creditor reference; entries without documents say null.
		expect([entry.creditorReference, entry.creditorReferenceType]).toEqual(['RF18539007547034', 'RF']);
		expect(entries.find((e) => e.entryReference === '1')!.documents).toBeNull();
	});
});

describe('pain.002 payment status reports', () => {
	it('pain.002.001.03: one item per payment, and one for a payment block the bank answered only as a whole', async () => {
		const { paymentStatuses, entries } = await parse(fixture('pain.002.001.03.xml'));
		expect(entries).toEqual([]);
		const common = { messageType: 'pain.002.001.03', messageId: 'STS-20261120-17', created: '2026-11-20T09:30:00', originalMessageId: 'PAY-77', originalMessageType: 'pain.001.001.03', originalNumberOfTransactions: 3, originalControlSum: 1450.35 };
		expect(paymentStatuses).toEqual([
			{ ...common, level: 'transaction', originalPaymentInformationId: 'PAY-77-1', originalInstructionId: 'I-2001', originalEndToEndId: 'E2E-2001', statusId: 'S-1', status: 'ACCP', reasonCode: null, reasonProprietary: null, additionalInfo: null, amount: 250.35, currency: 'EUR', requestedExecutionDate: '2026-11-20', creditorName: 'Helsinki Office Supplies Oy', creditorIban: 'FI5115723500048531' },
			{ ...common, level: 'transaction', originalPaymentInformationId: 'PAY-77-1', originalInstructionId: null, originalEndToEndId: 'E2E-2002', statusId: 'S-2', status: 'RJCT', reasonCode: 'AC04', reasonProprietary: null, additionalInfo: 'Closed account number', amount: 1200, currency: 'EUR', requestedExecutionDate: '2026-11-20', creditorName: 'Baltic Shipping Oy', creditorIban: 'FI5279360001072486' },
			{ ...common, level: 'paymentInformation', originalPaymentInformationId: 'PAY-77-2', originalInstructionId: null, originalEndToEndId: null, statusId: null, status: 'RJCT', reasonCode: null, reasonProprietary: 'DT01', additionalInfo: 'Invalid execution date', amount: null, currency: null, requestedExecutionDate: null, creditorName: null, creditorIban: null, originalNumberOfTransactions: 1, originalControlSum: 0 },
		]);
	});

	it('pain.002.001.10: the 2019 shapes (ReqdExctnDt/Dt, Cdtr/Pty/Nm)', async () => {
		const { paymentStatuses } = await parse(fixture('pain.002.001.10.xml'));
		expect(paymentStatuses).toEqual([
			{
				messageType: 'pain.002.001.10', messageId: 'STS-20261121-01', created: '2026-11-21T08:00:00+02:00', originalMessageId: 'PAY-78', originalMessageType: 'pain.001.001.09',
				level: 'transaction', originalPaymentInformationId: 'PAY-78-1', originalInstructionId: null, originalEndToEndId: 'E2E-4001', statusId: null, status: 'ACSC',
				reasonCode: null, reasonProprietary: null, additionalInfo: null, amount: 99.9, currency: 'EUR', requestedExecutionDate: '2026-11-21',
				creditorName: 'Turku Harbour Services Oy', creditorIban: 'FI3944400100205558', originalNumberOfTransactions: 1, originalControlSum: null,
			},
		]);
	});

	it('a report with only the group status gives one item for the whole message', async () => {
		const xml = '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt><GrpHdr><MsgId>S1</MsgId><CreDtTm>2026-11-20T10:00:00</CreDtTm></GrpHdr>' +
			'<OrgnlGrpInfAndSts><OrgnlMsgId>P1</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.03</OrgnlMsgNmId><OrgnlNbOfTxs>4</OrgnlNbOfTxs><GrpSts>RJCT</GrpSts><StsRsnInf><Rsn><Cd>FF01</Cd></Rsn></StsRsnInf></OrgnlGrpInfAndSts></CstmrPmtStsRpt></Document>';
		const { paymentStatuses } = await parse(xml);
		expect(paymentStatuses).toEqual([expect.objectContaining({ level: 'group', originalMessageId: 'P1', status: 'RJCT', reasonCode: 'FF01', originalNumberOfTransactions: 4 })]);
	});
});

describe('Finnish TITO statements', () => {
	const expectedFirst = {
		messageType: 'TITO', messageId: null, statementId: '20261120-224', statementSequence: 224, legalSequence: null,
		statementCreated: '2026-11-21T04:12:00', periodFrom: '2026-11-20', periodTo: '2026-11-20',
		accountIban: 'FI2112345600000785', accountId: '12345600000785', accountCurrency: 'EUR', accountServicerBic: 'SBXBFIHH',
		entryReference: '000001', bookingDate: '2026-11-20', valueDate: '2026-11-20', amount: 1500, currency: 'EUR', creditDebit: 'CRDT',
		status: 'BOOK', reversal: false, bankTransactionCode: { ...noCode, proprietary: '705', proprietaryIssuer: 'FI-TITO' },
		accountServicerReference: '261120AAA0001', endToEndId: 'INV-1001', instructionId: null, transactionId: null, paymentInformationId: null, mandateId: null, creditorId: null, ultimateCounterpartyName: null,
		creditorReference: '1232', creditorReferenceType: 'FI', remittanceText: null, documents: null, counterpartyName: 'Åkerlund Förvaltning AB',
		counterpartyIban: 'SE4550000000058398257466', counterpartyAccount: null, counterpartyBic: 'ESSESESS', fx: null, purpose: null, returnReason: null,
		additionalInfo: 'Viitesiirto', transactionCount: 1, transactionIndex: null, entryAmount: null,
	};

	it.each(['tito-latin1.txt', 'tito-utf8.txt'])('%s: every field, letters such as Å ö ä decoded right, balances and the check', async (file) => {
		const result = await parse(fixture(file));
		expect(result.format.format).toBe('tito');
		expect(result.entries[0]).toEqual(expectedFirst);
		expect(result.entries.map((e) => [e.amount, e.creditDebit, e.reversal, e.counterpartyName, e.remittanceText, e.valueDate, e.bankTransactionCode.proprietary, e.transactionCount])).toEqual([
			[1500, 'CRDT', false, 'Åkerlund Förvaltning AB', null, '2026-11-20', '705', 1],
			[-250.35, 'DBIT', false, 'Helsingin Toimisto Oy', 'Lasku 2001 / marraskuu Kiitos ja hyvää päivänjatkoa', '2026-11-21', '710', 1],
			[-3000, 'DBIT', false, 'Palkat 11/2026', null, '2026-11-20', '720', 2],
			[920.4, 'CRDT', false, 'Hanse Metals GmbH', null, '2026-11-20', '710', 1],
			[-12.5, 'DBIT', false, null, null, '2026-11-20', '730', 1],
			[500, 'CRDT', true, 'Tampereen Energia Oy', null, '2026-11-20', '710', 1],
		]);
		expect(result.entries[1].counterpartyAccount).toBe('15723500048531');
		expect(result.entries[3].fx).toEqual({ instructedAmount: 1000, instructedCurrency: 'USD', sourceCurrency: 'USD', targetCurrency: 'EUR', unitCurrency: null, rate: 1.086484, contractId: null });
		expect(result.statements).toEqual([
			{
				messageType: 'TITO', messageId: null, statementId: '20261120-224', statementSequence: 224, legalSequence: null, created: '2026-11-21T04:12:00',
				periodFrom: '2026-11-20', periodTo: '2026-11-20', accountIban: 'FI2112345600000785', accountId: '12345600000785', accountCurrency: 'EUR',
				accountOwner: 'Esimerkki Oyj', accountServicerBic: 'SBXBFIHH', openingBalance: 10000, openingBalanceDate: '2026-11-19',
				closingBalance: 9657.55, closingBalanceDate: '2026-11-20', availableBalance: 9657.55, availableBalanceDate: '2026-11-20',
				balances: [
					{ type: 'OPBD', amount: 10000, currency: 'EUR', date: '2026-11-19' },
					{ type: 'CLBD', amount: 9657.55, currency: 'EUR', date: '2026-11-20' },
					{ type: 'CLAV', amount: 9657.55, currency: 'EUR', date: '2026-11-20' },
				],
				entryCount: 6, creditCount: 3, creditTotal: 2920.4, debitCount: 3, debitTotal: 3262.85, netTotal: -342.45, check: 'ok', warning: null,
			},
		]);
	});

	it('itemisation records become items of their own per transaction detail', async () => {
		const { entries } = await parse(fixture('tito-latin1.txt'), { split: 'transaction' });
		expect(entries.filter((e) => e.accountServicerReference === '261120AAA0003').map((e) => [e.amount, e.counterpartyName, e.transactionIndex, e.entryAmount])).toEqual([
			[-1200, 'Maija Meikäläinen', 1, -3000],
			[-1800, 'Matti Virtanen', 2, -3000],
		]);
	});

	it('a record of unknown type fails naming the line, or is skipped with a warning on request', async () => {
		const lines = fixture('tito-latin1.txt').toString('latin1').split('\r\n');
		lines.splice(3, 0, 'T99010ABCD');
		const content = Buffer.from(lines.join('\r\n'), 'latin1');
		const error = await failure(content);
		expect(error.code).toBe('UNKNOWN_RECORD');
		expect(error.message).toBe('Unknown TITO record type "T99" (line 4)');
		const warned = await parse(content, { onInvalidRecord: 'warn' });
		expect(warned.warnings).toEqual([{ code: 'UNKNOWN_RECORD', message: 'Unknown TITO record type "T99"; the record was skipped', location: 'line 4' }]);
		expect(warned.entries).toHaveLength(6);
		expect(warned.statements[0].check).toBe('ok');
	});

	it('a file that ends before the balance record is truncated', async () => {
		const text = fixture('tito-latin1.txt').toString('latin1');
		const error = await failure(Buffer.from(text.slice(0, text.indexOf('T40')), 'latin1'));
		expect(error.code).toBe('TRUNCATED');
		expect(error.message).toBe('The file is truncated: the last statement has no balance record (T40) (statement starting on line 1)');
	});
});

describe('Finnish KTL reference payments', () => {
	it('every field; a correction is a negative reversal; the batch totals are checked', async () => {
		const result = await parse(fixture('ktl-latin1.txt'));
		expect(result.format).toEqual({ format: 'ktl', version: 'KTL', messageType: 'KTL' });
		expect(result.entries[0]).toEqual({
			messageType: 'KTL', messageId: null, statementId: '000123456-202611201630', statementSequence: null, legalSequence: null,
			statementCreated: '2026-11-20T16:30:00', periodFrom: '2026-11-20', periodTo: '2026-11-20', accountIban: null, accountId: '12345600000785',
			accountCurrency: 'EUR', accountServicerBic: null, entryReference: null, bookingDate: '2026-11-20', valueDate: '2026-11-19', amount: 120,
			currency: 'EUR', creditDebit: 'CRDT', status: 'BOOK', reversal: false,
			bankTransactionCode: { domain: 'PMNT', family: 'RCDT', subFamily: null, proprietary: 'KTL-3', proprietaryIssuer: 'FI-KTL' },
			accountServicerReference: '2611205AAA000001', endToEndId: null, instructionId: null, transactionId: null, paymentInformationId: null, mandateId: null, creditorId: null, ultimateCounterpartyName: null,
			creditorReference: '1232', creditorReferenceType: 'FI', remittanceText: null, documents: null, counterpartyName: 'Meikäläinen', counterpartyIban: null,
			counterpartyAccount: null, counterpartyBic: null, fx: null, purpose: null, returnReason: null, additionalInfo: null, transactionCount: 1,
			transactionIndex: null, entryAmount: null,
		});
		expect(result.entries.map((e) => [e.amount, e.creditDebit, e.reversal, e.counterpartyName, e.creditorReference])).toEqual([
			[120, 'CRDT', false, 'Meikäläinen', '1232'],
			[190, 'CRDT', false, 'Öljy-Keskus', '123453'],
			[-120, 'DBIT', true, 'Meikäläinen', '1232'],
		]);
		expect(result.statements).toEqual([
			expect.objectContaining({ statementId: '000123456-202611201630', accountId: '12345600000785', entryCount: 3, creditCount: 2, creditTotal: 310, debitCount: 1, debitTotal: 120, netTotal: 190, check: 'ok', warning: null }),
		]);
	});

	it('totals that disagree with the summary record are a mismatch warning; a missing summary record is truncation', async () => {
		const text = fixture('ktl-latin1.txt').toString('latin1');
		const tampered = text.replace(/\r\n9000002/, '\r\n9000003');
		const { statements } = await parse(Buffer.from(tampered, 'latin1'));
		expect(statements[0].check).toBe('mismatch');
		expect(statements[0].warning).toBe('The batch summary record says 3 payments of 310, 1 corrections of 120, the records hold 2 payments of 310, 1 corrections of 120');
		const error = await failure(Buffer.from(text.slice(0, text.indexOf('\r\n9')), 'latin1'));
		expect(error.code).toBe('TRUNCATED');
	});
	it('a direct debit (record 5) with a feedback code was not collected: listed as INFO with the code, counted apart as the summary record does', async () => {
		const text = fixture('ktl-latin1.txt').toString('latin1');
		// Two direct debits: one collected (feedback 0), one not (feedback 4); the summary record
		// declares the failed one in positions 36-52.
		const debit = (archive: string, amount: string, feedback: string) =>
			`5123456000007852611202611192611205AAA${archive}00000000000000001232Meikäläinen 1A${amount}0A${feedback}`;
		// 9, payments 3 of 355.00, corrections 1 of 120.00, failed direct debits 1 of 75.50
		const summary = (failed: string) => `9${'000003'}${'00000035500'}${'000001'}${'00000012000'}${failed}`;
		const withDebits = text.replace(
			/\r\n9[^\r]*/,
			`\r\n${debit('000004', '0000004500', '0')}\r\n${debit('000005', '0000007550', '4')}\r\n${summary('000001' + '00000007550')}`,
		);
		const { entries, statements } = await parse(Buffer.from(withDebits, 'latin1'));
		expect(entries.slice(3).map((e) => [e.amount, e.status, e.bankTransactionCode.proprietary, e.returnReason])).toEqual([
			[45, 'BOOK', 'KTL-5', null],
			[75.5, 'INFO', 'KTL-5', 'KTL feedback code 4: the direct debit was not collected'],
		]);
		expect(statements[0]).toMatchObject({ entryCount: 5, creditCount: 3, creditTotal: 355, debitCount: 1, debitTotal: 120, check: 'ok', warning: null });
		// A summary that does not declare the failed debit is a mismatch that names it.
		const undeclared = withDebits.replace(/\r\n9[^\r]*/, `\r\n${summary('')}`);
		const [statement] = (await parse(Buffer.from(undeclared, 'latin1'))).statements;
		expect(statement.check).toBe('mismatch');
		expect(statement.warning).toBe(
			'The batch summary record says 3 payments of 355, 1 corrections of 120, the records hold 3 payments of 355, 1 corrections of 120, 1 failed direct debits of 75.5',
		);
	});
});

describe('bad input gets a clear error naming what was found', () => {
	const camt = fixture('camt.053.001.02.xml').toString();

	it.each([
		['not XML', 'Date;Amount\n2026-11-20;100\n', 'NOT_XML', 'The file is neither XML (camt, pain.002), a SWIFT MT940 / MT942, a BAI2 file nor a Finnish TITO or KTL file: it starts with "Date;Amount"'],
		['an empty file', '', 'NOT_A_BANK_FILE', 'The file is empty'],
		['XML that is no bank file', '<?xml version="1.0"?><invoice><id>1</id></invoice>', 'NOT_A_BANK_FILE', 'The XML is not an ISO 20022 account report, statement, notification or payment status report: its root element is <invoice>'],
		['a payment initiation', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>', 'NOT_A_BANK_FILE', 'The XML is a payment initiation (pain.001), which is built, not parsed (pain.001.001.03), not a camt.052 account report, camt.053 statement, camt.054 notification or pain.002 status report'],
		['an unknown version', camt.replace('camt.053.001.02', 'camt.053.001.13'), 'UNKNOWN_VERSION', 'camt.053.001.13 is not a supported version (supported: camt.053.001.02, camt.053.001.03, camt.053.001.04, camt.053.001.05, camt.053.001.06, camt.053.001.07, camt.053.001.08)'],
		['a truncated file', camt.slice(0, camt.indexOf('<NtryRef>4</NtryRef>')), 'TRUNCATED', 'The file is truncated: it ends inside <Document/BkToCstmrStmt/Stmt/Ntry>'],
		['malformed XML', camt.replace('<Sts>BOOK</Sts>', '<Sts>BOOK</Stat>'), 'INVALID_XML', expect.stringContaining('The XML is not well-formed:')],
		['an entry without amount', camt.replace('<Amt Ccy="EUR">250.35</Amt>', ''), 'MISSING_AMOUNT', 'The entry has no amount (Amt) (Stmt 2026112000785, Ntry 2)'],
		['an entry in another currency than its account', camt.replace('<Amt Ccy="EUR">250.35</Amt>', '<Amt Ccy="SEK">250.35</Amt>'), 'MIXED_CURRENCIES', 'The entry is in SEK but the account is in EUR (Stmt 2026112000785, Ntry 2)'],
	])('%s', async (_label, content, code, message) => {
		const error = await failure(content);
		expect(error.code).toBe(code);
		expect(error.message).toEqual(message);
	});

	it('a chosen format the content does not match', async () => {
		const error = await failure(fixture('tito-latin1.txt'), { format: 'camt.053' });
		expect(error.message).toBe('The file is a TITO account statement, not camt.053 as chosen');
		await expect(parse(fixture('camt.054.001.02.xml'), { format: 'camt.053' })).rejects.toThrow('The file is camt.054.001.02, not camt.053 as chosen');
	});

	it('invalid entries are skipped with a warning on request, and the balance check then shows the gap', async () => {
		const result = await parse(camt.replace('<Amt Ccy="EUR">250.35</Amt>', '<Amt Ccy="SEK">250.35</Amt>'), { onInvalidRecord: 'warn' });
		expect(result.warnings).toEqual([{ code: 'MIXED_CURRENCIES', message: 'The entry is in SEK but the account is in EUR; the entry was left out', location: 'Stmt 2026112000785, Ntry 2' }]);
		expect(result.entries).toHaveLength(6);
		expect(result.statements[0]).toMatchObject({ entryCount: 5, check: 'mismatch' });
	});

	it('ISO-8859-1 XML is read when it says so, and refused when it claims UTF-8', async () => {
		const latin = Buffer.from(camt.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
		const { entries } = await parse(latin, { split: 'transaction' });
		expect(entries.find((e) => e.endToEndId === 'SAL-1')?.counterpartyName).toBe('Maija Meikäläinen');
		const error = await failure(Buffer.from(camt, 'latin1'));
		expect(error.code).toBe('NOT_DECODABLE');
	});

	it('detects formats from the first bytes', () => {
		expect(detectFormat(fixture('camt.054.001.08.xml'))).toEqual({ format: 'camt.054', version: '001.08', messageType: 'camt.054.001.08' });
		expect(detectFormat(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fixture('pain.002.001.03.xml')]))).toMatchObject({ format: 'pain.002' });
		expect(detectFormat(fixture('ktl-latin1.txt')).format).toBe('ktl');
	});
});

describe('check digits', () => {
	it('IBAN, BIC, RF and Finnish references', () => {
		expect(isValidIban('FI21 1234 5600 0007 85')).toBe(true);
		expect(isValidIban('FI2112345600000786')).toBe(false);
		expect(isValidIban('DE89370400440532013000')).toBe(true);
		expect(isValidBic('NDEAFIHH')).toBe(true);
		expect(isValidBic('COBADEFFXXX')).toBe(true);
		expect(isValidBic('NDEA FI')).toBe(false);
		expect(isValidRfReference('RF18 5390 0754 7034')).toBe(true);
		expect(isValidRfReference('RF19539007547034')).toBe(false);
		expect(finnishReferenceCheckDigit('123')).toBe(2);
		expect(isValidFinnishReference('1232')).toBe(true);
		expect(isValidFinnishReference('1233')).toBe(false);
		expect(rfFromBase('1232')).toBe('RF111232');
		expect(isValidRfReference(rfFromBase('1232'))).toBe(true);
	});
});

describe('pain.001 payment files', () => {
	const TODAY = '2026-11-23';
	const base: PaymentInput = {
		debtorName: 'Esimerkki Oyj',
		debtorIban: 'FI2112345600000785',
		debtorBic: 'SBXBFIHH',
		creditorName: 'Helsinki Office Supplies Oy',
		creditorIban: 'FI5115723500048531',
		creditorBic: 'NDEAFIHH',
		amount: '250.35',
		currency: 'EUR',
		requestedExecutionDate: '2026-11-24',
		creditorReference: '1232',
		endToEndId: 'E2E-1',
	};
	const payments: PaymentInput[] = [
		base,
		{ ...base, creditorName: 'Aros Food Group AB', creditorIban: 'SE4550000000058398257466', creditorBic: 'ESSESESS', amount: 1500, creditorReference: 'RF18 5390 0754 7034', endToEndId: 'E2E-2' },
		{ ...base, creditorName: 'Matti Virtanen', creditorIban: 'FI1029501800021342', creditorBic: null, amount: '1800.1', creditorReference: null, remittanceText: 'Salary 11/2026', endToEndId: null },
		{ ...base, requestedExecutionDate: '2026-11-25', amount: '0.01', endToEndId: 'E2E-4' },
		{ ...base, debtorIban: 'FI5542345670000081', debtorBic: null, amount: '99.99', endToEndId: 'E2E-5' },
	];
	const options = { messageId: 'PAY-20261123-1', initiatingPartyName: 'Esimerkki Oyj', initiatingPartyId: '1234567-8', created: new Date('2026-11-23T10:00:00Z'), today: TODAY };

	it.each([
		['pain.001.001.03', 'pain.001.001.03.xsd'],
		['pain.001.001.09', 'pain.001.001.09.xsd'],
	] as const)('%s validates against the official schema; blocks per debtor account and date; counts and control sums', (version, xsd) => {
		const built = buildPaymentFile(payments, { ...options, version });
		const validation = validateWithXsd(built.xml, xsd);
		expect(validation.output).toContain('validates');
		expect(validation.valid).toBe(true);
		expect(built).toMatchObject({ messageId: 'PAY-20261123-1', version, numberOfTransactions: 5, controlSum: '3650.45' });
		expect(built.paymentInformation).toEqual([
			{ paymentInformationId: 'PAY-20261123-1-1', debtorIban: 'FI2112345600000785', requestedExecutionDate: '2026-11-24', numberOfTransactions: 3, controlSum: '3550.45' },
			{ paymentInformationId: 'PAY-20261123-1-2', debtorIban: 'FI2112345600000785', requestedExecutionDate: '2026-11-25', numberOfTransactions: 1, controlSum: '0.01' },
			{ paymentInformationId: 'PAY-20261123-1-3', debtorIban: 'FI5542345670000081', requestedExecutionDate: '2026-11-24', numberOfTransactions: 1, controlSum: '99.99' },
		]);
		expect(built.endToEndIds).toEqual(['E2E-1', 'E2E-2', 'PAY-20261123-1-3', 'E2E-4', 'E2E-5']);
		expect(built.xml).toContain('<InstdAmt Ccy="EUR">1800.10</InstdAmt>');
		expect(built.xml).toContain('<Ref>RF18539007547034</Ref>');
		expect(built.xml).toContain('<Ustrd>Salary 11/2026</Ustrd>');
		expect(built.xml).toContain('<Othr><Id>NOTPROVIDED</Id></Othr>');
	});

	it('round trip: the bank\'s camt.054 of the built payments parses back to the same amounts and references', async () => {
		for (const version of ['pain.001.001.03', 'pain.001.001.09'] as const) {
			const built = buildPaymentFile(payments, { ...options, version });
			const notification = camt054FromPain001(built.xml, { notificationId: 'NTF-RT-1', created: new Date('2026-11-24T18:00:00Z') });
			const { entries } = await parse(notification);
			expect(entries.map((e) => [e.amount, e.currency, e.endToEndId, e.creditorReference, e.remittanceText, e.counterpartyName, e.counterpartyIban, e.paymentInformationId, e.bookingDate])).toEqual([
				[-250.35, 'EUR', 'E2E-1', '1232', null, 'Helsinki Office Supplies Oy', 'FI5115723500048531', 'PAY-20261123-1-1', '2026-11-24'],
				[-1500, 'EUR', 'E2E-2', 'RF18539007547034', null, 'Aros Food Group AB', 'SE4550000000058398257466', 'PAY-20261123-1-1', '2026-11-24'],
				[-1800.1, 'EUR', 'PAY-20261123-1-3', null, 'Salary 11/2026', 'Matti Virtanen', 'FI1029501800021342', 'PAY-20261123-1-1', '2026-11-24'],
				[-0.01, 'EUR', 'E2E-4', '1232', null, 'Helsinki Office Supplies Oy', 'FI5115723500048531', 'PAY-20261123-1-2', '2026-11-25'],
				[-99.99, 'EUR', 'E2E-5', '1232', null, 'Helsinki Office Supplies Oy', 'FI5115723500048531', 'PAY-20261123-1-3', '2026-11-24'],
			]);
			expect(entries.map((e) => e.creditorReferenceType)).toEqual(['FI', 'RF', null, 'FI', 'FI']);
		}
	});

	it.each<[string, Partial<PaymentInput>, string, string]>([
		['IBAN check digits', { creditorIban: 'FI5115723500048532' }, 'creditorIban', '"FI5115723500048532" is not a valid IBAN: check digits do not match (ISO 13616 mod-97)'],
		['IBAN length', { debtorIban: 'FI211234560000078' }, 'debtorIban', '"FI211234560000078" is not a valid IBAN: must be 18 characters long for FI (found 17)'],
		['BIC shape', { creditorBic: 'NDEA-FI' }, 'creditorBic', '"NDEA-FI" is not a BIC: must be 8 or 11 letters or digits (bank 4, country 2, location 2, branch 3)'],
		['RF check digits', { creditorReference: 'RF19539007547034' }, 'creditorReference', '"RF19539007547034" is not a valid RF creditor reference (ISO 11649: RF, 2 check digits, up to 21 letters or digits, mod-97)'],
		['Finnish reference check digit', { creditorReference: '1233' }, 'creditorReference', '"1233" is not a valid Finnish reference number (4 to 20 digits, last one the 7-3-1 check digit)'],
		['amount zero', { amount: 0 }, 'amount', 'must be more than 0 (found 0)'],
		['amount negative', { amount: '-5.00' }, 'amount', 'must be more than 0 (found -5.00)'],
		['amount decimals', { amount: '10.005' }, 'amount', '10.005 has 3 decimals; EUR allows at most 2'],
		['amount decimals of a currency without minor units', { amount: '100.5', currency: 'JPY' }, 'amount', '100.5 has 1 decimals; JPY allows at most 0'],
		['amount not a number', { amount: '12,50' }, 'amount', '"12,50" is not a number'],
		['currency code', { currency: 'EURO' }, 'currency', '"EURO" is not an ISO 4217 currency code'],
		['date in the past', { requestedExecutionDate: '2026-11-22' }, 'requestedExecutionDate', '2026-11-22 is in the past (today is 2026-11-23)'],
		['date shape', { requestedExecutionDate: '24.11.2026' }, 'requestedExecutionDate', '"24.11.2026" is not a date in the form YYYY-MM-DD'],
		['name length', { creditorName: 'x'.repeat(71) }, 'creditorName', 'must be at most 70 characters (found 71)'],
		['missing name', { creditorName: '' }, 'creditorName', 'is required'],
		['control characters', { remittanceText: 'Invoice\u0007', creditorReference: null }, 'remittanceText', 'holds control characters that XML cannot carry'],
		['text length', { remittanceText: 'y'.repeat(141), creditorReference: null }, 'remittanceText', 'must be at most 140 characters (found 141)'],
		['reference and text together', { remittanceText: 'Invoice 1' }, 'remittanceText', 'give either a creditor reference or a message, not both (one remittance information per SEPA payment)'],
		['end-to-end id characters', { endToEndId: 'E2E_1' }, 'endToEndId', "must use only a-z A-Z 0-9 / - ? : ( ) . , ' + and space"],
		['end-to-end id length', { endToEndId: 'E'.repeat(36) }, 'endToEndId', 'must be at most 35 characters (found 36)'],
	])('refuses %s, naming the item and the field', (_label, change, field, message) => {
		const bad = { ...base, ...change };
		expect(validatePayment(bad, 3, { today: TODAY })).toEqual([{ index: 3, field, message }]);
		let error: unknown;
		try {
			buildPaymentFile([base, base, base, bad], { ...options, version: 'pain.001.001.03' });
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(PaymentValidationError);
		expect((error as PaymentValidationError).problems).toEqual([{ index: 3, field, message }]);
		expect((error as PaymentValidationError).message).toBe(`1 payment problem(s): item 3: ${field}: ${message}`);
	});

	it('the SEPA character set refuses letters outside basic Latin on request; by default they are kept', () => {
		const finnish = { ...base, creditorName: 'Meikäläinen Oy' };
		expect(validatePayment(finnish, 0, { today: TODAY })).toEqual([]);
		expect(validatePayment(finnish, 0, { today: TODAY, characterSet: 'sepa' })).toEqual([
			{ index: 0, field: 'creditorName', message: "must use only the SEPA characters a-z A-Z 0-9 / - ? : ( ) . , ' + and space" },
		]);
		const built = buildPaymentFile([{ ...finnish, creditorName: 'Meikäläinen & Poika <Oy>' }], { ...options, version: 'pain.001.001.09' });
		expect(built.xml).toContain('<Nm>Meikäläinen &amp; Poika &lt;Oy&gt;</Nm>');
		expect(validateWithXsd(built.xml, 'pain.001.001.09.xsd').valid).toBe(true);
	});
});

describe('defects seen with real files', () => {
	it('a pain.002 transaction that takes its status from its payment block carries the block\'s reason', async () => {
		const xml =
			'<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03"><CstmrPmtStsRpt><GrpHdr><MsgId>S2</MsgId><CreDtTm>2026-11-20T10:00:00</CreDtTm></GrpHdr>' +
			'<OrgnlGrpInfAndSts><OrgnlMsgId>P2</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.03</OrgnlMsgNmId><GrpSts>PART</GrpSts></OrgnlGrpInfAndSts>' +
			'<OrgnlPmtInfAndSts><OrgnlPmtInfId>P2-1</OrgnlPmtInfId><PmtInfSts>RJCT</PmtInfSts><StsRsnInf><Rsn><Cd>DT01</Cd></Rsn><AddtlInf>Invalid date</AddtlInf></StsRsnInf>' +
			'<TxInfAndSts><OrgnlEndToEndId>E2E-1</OrgnlEndToEndId></TxInfAndSts>' +
			'<TxInfAndSts><OrgnlEndToEndId>E2E-2</OrgnlEndToEndId><TxSts>ACCP</TxSts></TxInfAndSts>' +
			'<TxInfAndSts><OrgnlEndToEndId>E2E-3</OrgnlEndToEndId><StsRsnInf><Rsn><Cd>AC04</Cd></Rsn></StsRsnInf></TxInfAndSts>' +
			'</OrgnlPmtInfAndSts></CstmrPmtStsRpt></Document>';
		const { paymentStatuses } = await parse(xml);
		expect(paymentStatuses.map((s) => [s.originalEndToEndId, s.status, s.reasonCode, s.additionalInfo])).toEqual([
			['E2E-1', 'RJCT', 'DT01', 'Invalid date'],
			['E2E-2', 'ACCP', null, null],
			['E2E-3', 'RJCT', 'AC04', null],
		]);
	});

	it.each([
		['an entity the file uses', '<!DOCTYPE Document [<!ENTITY x "boom">]>'],
		['an entity the file does not use', '<!DOCTYPE Document [<!ENTITY unused "boom">]>'],
		['a SYSTEM document type', '<!DOCTYPE Document SYSTEM "http://example.com/evil.dtd">'],
	])('a DOCTYPE is refused by name: %s', async (_label, doctype) => {
		let camt = fixture('camt.053.001.02.xml').toString().replace('<Document', `${doctype}\n<Document`);
		if (doctype.includes('ENTITY x')) camt = camt.replace('<MsgId>', '<MsgId>&x;');
		const error = await failure(camt);
		expect(error.code).toBe('UNSAFE_XML');
		expect(error.message).toBe('The XML declares a document type (DOCTYPE), which bank files never need; it is refused (line 3)');
	});

	it('TITO and KTL: an all-zero reference field is no reference', async () => {
		const tito = fixture('tito-latin1.txt').toString('latin1').split('\r\n');
		const t10 = tito.findIndex((l) => l.startsWith('T10'));
		tito[t10] = tito[t10].slice(0, 159) + '0'.repeat(20) + tito[t10].slice(179);
		const { entries } = await parse(Buffer.from(tito.join('\r\n'), 'latin1'));
		expect(entries[0]).toMatchObject({ creditorReference: null, creditorReferenceType: null });
		const ktl = fixture('ktl-latin1.txt').toString('latin1').split('\r\n');
		const payment = ktl.findIndex((l) => l.startsWith('3'));
		ktl[payment] = ktl[payment].slice(0, 43) + '0'.repeat(20) + ktl[payment].slice(63);
		const ktlEntries = (await parse(Buffer.from(ktl.join('\r\n'), 'latin1'))).entries;
		expect(ktlEntries[0]).toMatchObject({ creditorReference: null, creditorReferenceType: null });
	});
});

describe('items put what an accountant reads first', () => {
	const ENTRY_LEAD = ['bookingDate', 'valueDate', 'amount', 'currency', 'creditDebit', 'counterpartyName', 'counterpartyIban', 'counterpartyAccount', 'counterpartyBic', 'creditorReference', 'creditorReferenceType', 'remittanceText', 'documents', 'endToEndId'];
	const STATEMENT_LEAD = ['accountIban', 'accountId', 'accountCurrency', 'accountOwner', 'periodFrom', 'periodTo', 'openingBalance', 'openingBalanceDate', 'closingBalance', 'closingBalanceDate', 'check', 'warning'];
	const STATUS_LEAD = ['originalEndToEndId', 'status', 'reasonCode', 'reasonProprietary', 'additionalInfo', 'amount', 'currency', 'requestedExecutionDate', 'creditorName', 'creditorIban'];

	it.each(['camt.053.001.02.xml', 'camt.054.001.08.xml', 'tito-latin1.txt', 'ktl-latin1.txt', 'mt940-de-latin1.sta', 'mt942-utf8.sta', 'camt.052.001.02.xml'])('%s: entries and statements', async (file) => {
		for (const split of ['entry', 'transaction'] as const) {
			const { entries, statements } = await parse(fixture(file), { split });
			expect(entries.length).toBeGreaterThan(0);
			for (const entry of entries) expect(Object.keys(entry).slice(0, ENTRY_LEAD.length)).toEqual(ENTRY_LEAD);
			expect(statements.length).toBeGreaterThan(0);
			for (const statement of statements) expect(Object.keys(statement).slice(0, STATEMENT_LEAD.length)).toEqual(STATEMENT_LEAD);
		}
	});

	it('pain.002: which payment, its status and why', async () => {
		const { paymentStatuses } = await parse(fixture('pain.002.001.03.xml'));
		for (const status of paymentStatuses) expect(Object.keys(status).slice(0, STATUS_LEAD.length)).toEqual(STATUS_LEAD);
	});
});
