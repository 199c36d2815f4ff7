import { BankFileError, detectFormat, SUPPORTED_VERSIONS } from '../../nodes/shared/bankfiles';
import { fixture, parse } from './bankFileHelpers';

describe('camt.052 intraday account reports', () => {
	it.each([
		['02', 'PRCD', 'CLBD'],
		['08', 'OPBD', 'ITBD'],
	])('camt.052.001.%s: entries with their mandate, creditor ID and ultimate parties; a pending entry left out of the balance check', async (version, openingType, closingType) => {
		const result = await parse(fixture(`camt.052.001.${version}.xml`));
		expect(result.format).toEqual({ format: 'camt.052', version: `001.${version}`, messageType: `camt.052.001.${version}` });
		const report = {
			statementId: '3171C5220261130133000', statementSequence: 17, legalSequence: null, statementCreated: '2026-11-30T13:30:00.0+01:00',
			periodFrom: '2026-11-30T00:00:00.0+01:00', periodTo: '2026-11-30T13:30:00.0+01:00', accountIban: 'DE89370400440532013000', accountId: null,
			accountCurrency: 'EUR', accountServicerBic: 'COBADEFFXXX', messageType: `camt.052.001.${version}`, messageId: `052D2026-11-30T13:30:00.0N0000000${version}`,
		};
		expect(result.entries[0]).toEqual({
			...report,
			bookingDate: '2026-11-30', valueDate: '2026-11-30', amount: -89.9, currency: 'EUR', creditDebit: 'DBIT',
			counterpartyName: 'Energieversorgung Musterstadt AG', counterpartyIban: 'DE12500105170648489890', counterpartyAccount: null, counterpartyBic: 'NOLADE21XXX',
			creditorReference: null, creditorReferenceType: null, remittanceText: 'Abschlag Strom November 2026', documents: null, endToEndId: 'STROM-2026-11',
			status: 'BOOK', reversal: false, entryReference: null, accountServicerReference: '2026113000533052000',
			bankTransactionCode: { domain: null, family: null, subFamily: null, proprietary: 'NDDT+105+00992', proprietaryIssuer: 'ZKA' },
			instructionId: null, transactionId: null, paymentInformationId: 'PMT-77-1', mandateId: 'M-2019-000123', creditorId: 'DE98ZZZ09999999999',
			ultimateCounterpartyName: 'Stadtwerke Musterstadt', purpose: null, returnReason: null, additionalInfo: 'SEPA-BASISLASTSCHRIFT', fx: null,
			transactionCount: 1, transactionIndex: null, entryAmount: null,
		});
		expect(result.entries.slice(1).map((e) => [e.amount, e.status, e.counterpartyName, e.ultimateCounterpartyName, e.creditorReference, e.creditorReferenceType, e.endToEndId, e.bookingDate, e.valueDate])).toEqual([
			[2500, 'BOOK', 'Müller Maschinenbau GmbH', 'Müller Holding AG', 'RF18539007547034', 'RF', null, '2026-11-30', '2026-11-30'],
			[300, 'PDNG', 'Schmidt & Söhne KG', null, null, null, null, null, '2026-12-01'],
		]);
		expect(result.statements).toEqual([
			expect.objectContaining({
				accountIban: 'DE89370400440532013000', accountOwner: 'Beispiel Handels GmbH', openingBalance: 12500, openingBalanceDate: '2026-11-29',
				closingBalance: 14910.1, closingBalanceDate: '2026-11-30', check: 'ok', warning: null, entryCount: 3, creditCount: 2, creditTotal: 2800,
				debitCount: 1, debitTotal: 89.9,
				balances: [
					{ type: openingType, amount: 12500, currency: 'EUR', date: '2026-11-29' },
					{ type: closingType, amount: 14910.1, currency: 'EUR', date: '2026-11-30' },
				],
			}),
		]);
	});

	it('an interim balance that the booked entries do not reach is a mismatch warning; a bad entry names the report and the entry', async () => {
		const text = fixture('camt.052.001.08.xml').toString().replace('<Amt Ccy="EUR">14910.10</Amt>', '<Amt Ccy="EUR">15210.10</Amt>');
		const { statements } = await parse(text);
		expect(statements[0]).toMatchObject({ check: 'mismatch', warning: 'Opening balance 12500 + booked entries 2410.1 = 14910.1, but the closing balance is 15210.1 (difference 300)' });
		const bad = fixture('camt.052.001.08.xml').toString().replace('<Amt Ccy="EUR">2500.00</Amt>', '<Amt Ccy="SEK">2500.00</Amt>');
		await expect(parse(bad)).rejects.toThrow(new BankFileError('MIXED_CURRENCIES', 'The entry is in SEK but the account is in EUR', 'Rpt 3171C5220261130133000, Ntry #2'));
	});

	it('every version .02 to .08 is read; the format is detected from the root element and namespace', () => {
		expect(SUPPORTED_VERSIONS['camt.052']).toEqual(['001.02', '001.03', '001.04', '001.05', '001.06', '001.07', '001.08']);
		for (const version of SUPPORTED_VERSIONS['camt.052']) {
			const xml = fixture('camt.052.001.08.xml').toString().replace('camt.052.001.08', `camt.052.${version}`);
			expect(detectFormat(Buffer.from(xml))).toEqual({ format: 'camt.052', version, messageType: `camt.052.${version}` });
		}
	});
});
