import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { DirectDebitInput } from '../../nodes/shared/bankfiles';
import {
	assertSchemaValid,
	BankFileError,
	buildDirectDebitFile,
	creditorIdentifierProblem,
	PaymentValidationError,
	schemaProblems,
	validateDirectDebit,
} from '../../nodes/shared/bankfiles';
import { validateWithXsd, XSD_DIR } from '../helpers/xsd';

/** The schemas the package ships and validates with, checked here again with Debian's xmllint. */
const SCHEMAS = path.resolve(__dirname, '../../nodes/shared/bankfiles/schemas');
const schemaFile = (version: string): string => path.relative(XSD_DIR, path.join(SCHEMAS, `${version}.xsd`));
const FIXTURES = path.resolve(__dirname, '../fixtures/bankfiles');

const TODAY = '2026-11-26';
const base: DirectDebitInput = {
	creditorName: 'Stadtwerke Musterstadt GmbH',
	creditorIban: 'DE12500105170648489890',
	creditorBic: 'NOLADE21XXX',
	creditorId: 'DE98ZZZ09999999999',
	debtorName: 'Max Mustermann',
	debtorIban: 'DE02700202700010108669',
	debtorBic: 'BYLADEMMXXX',
	amount: '89.90',
	mandateId: 'M-2019-000123',
	mandateSignatureDate: '2019-05-01',
	sequenceType: 'RCUR',
	requestedCollectionDate: '2026-12-01',
	remittanceText: 'Abschlag Strom Dezember 2026',
	endToEndId: 'STROM-2026-12-1',
};
const debits: DirectDebitInput[] = [
	base,
	{ ...base, debtorName: 'Erika Musterfrau', debtorIban: 'DE89370400440532013000', debtorBic: null, amount: 120, mandateId: 'M-2026-000077', mandateSignatureDate: '2026-11-20', sequenceType: 'FRST', endToEndId: 'STROM-2026-12-2' },
	{ ...base, amount: '45.5', sequenceType: 'RCUR', remittanceText: null, creditorReference: 'RF18539007547034', endToEndId: null },
	{ ...base, debtorName: 'Beispiel Handels GmbH', debtorIban: 'DE44500105175407324931', amount: '1500.00', scheme: 'B2B', mandateId: 'B2B-0001', endToEndId: 'B2B-1' },
	{ ...base, requestedCollectionDate: '2026-12-15', sequenceType: 'FNAL', amount: '10.01', endToEndId: 'STROM-2026-12-5' },
	{ ...base, debtorName: 'Verein Muster e.V.', amount: '25', sequenceType: 'OOFF', mandateId: 'SPENDE-77', endToEndId: 'SPENDE-77' },
];
const options = { messageId: 'DD-20261126-1', initiatingPartyName: 'Stadtwerke Musterstadt GmbH', initiatingPartyId: 'DE98ZZZ09999999999', created: new Date('2026-11-26T10:00:00Z'), today: TODAY };

describe('pain.008 SEPA direct debit files', () => {
	it.each(['pain.008.001.02', 'pain.008.001.08'] as const)('%s: valid against the official schema (checked again by xmllint); blocks per collection date, sequence type and scheme; counts and control sums', async (version) => {
		const built = await buildDirectDebitFile(debits, { ...options, version });
		const xmllint = validateWithXsd(built.xml, schemaFile(version));
		expect(xmllint.output).toContain('validates');
		expect(built).toMatchObject({ messageId: 'DD-20261126-1', version, numberOfTransactions: 6, controlSum: '1790.41' });
		expect(built.paymentInformation).toEqual([
			{ paymentInformationId: 'DD-20261126-1-1', creditorIban: 'DE12500105170648489890', creditorId: 'DE98ZZZ09999999999', requestedCollectionDate: '2026-12-01', sequenceType: 'RCUR', scheme: 'CORE', numberOfTransactions: 2, controlSum: '135.40' },
			{ paymentInformationId: 'DD-20261126-1-2', creditorIban: 'DE12500105170648489890', creditorId: 'DE98ZZZ09999999999', requestedCollectionDate: '2026-12-01', sequenceType: 'FRST', scheme: 'CORE', numberOfTransactions: 1, controlSum: '120.00' },
			{ paymentInformationId: 'DD-20261126-1-3', creditorIban: 'DE12500105170648489890', creditorId: 'DE98ZZZ09999999999', requestedCollectionDate: '2026-12-01', sequenceType: 'RCUR', scheme: 'B2B', numberOfTransactions: 1, controlSum: '1500.00' },
			{ paymentInformationId: 'DD-20261126-1-4', creditorIban: 'DE12500105170648489890', creditorId: 'DE98ZZZ09999999999', requestedCollectionDate: '2026-12-15', sequenceType: 'FNAL', scheme: 'CORE', numberOfTransactions: 1, controlSum: '10.01' },
			{ paymentInformationId: 'DD-20261126-1-5', creditorIban: 'DE12500105170648489890', creditorId: 'DE98ZZZ09999999999', requestedCollectionDate: '2026-12-01', sequenceType: 'OOFF', scheme: 'CORE', numberOfTransactions: 1, controlSum: '25.00' },
		]);
		expect(built.endToEndIds).toEqual(['STROM-2026-12-1', 'STROM-2026-12-2', 'DD-20261126-1-3', 'B2B-1', 'STROM-2026-12-5', 'SPENDE-77']);
		const bic = version === 'pain.008.001.08' ? 'BICFI' : 'BIC';
		expect(built.xml).toContain('<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl><LclInstrm><Cd>B2B</Cd></LclInstrm><SeqTp>RCUR</SeqTp></PmtTpInf><ReqdColltnDt>2026-12-01</ReqdColltnDt>');
		expect(built.xml).toContain('<CdtrSchmeId><Id><PrvtId><Othr><Id>DE98ZZZ09999999999</Id><SchmeNm><Prtry>SEPA</Prtry></SchmeNm></Othr></PrvtId></Id></CdtrSchmeId>');
		expect(built.xml).toContain('<DrctDbtTx><MndtRltdInf><MndtId>M-2026-000077</MndtId><DtOfSgntr>2026-11-20</DtOfSgntr></MndtRltdInf></DrctDbtTx><DbtrAgt><FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId></DbtrAgt>');
		expect(built.xml).toContain(`<CdtrAgt><FinInstnId><${bic}>NOLADE21XXX</${bic}></FinInstnId></CdtrAgt>`);
		expect(built.xml).toContain('<InstdAmt Ccy="EUR">45.50</InstdAmt>');
		expect(built.xml).toContain('<Ref>RF18539007547034</Ref>');
	});

	it('the elements of a transaction come in the order of a public pain.008 sample (php-sepa-xml tests/fixtures/xml/pain.008.001.02.xml, see the README)', async () => {
		const built = await buildDirectDebitFile([base], { ...options, version: 'pain.008.001.02' });
		const sample = readFileSync(path.join(FIXTURES, 'pain008', 'pain.008.001.02-shape.xml'), 'utf8');
		const order = (xml: string) => [...xml.matchAll(/<(\w+)[ >]/g)].map((m) => m[1]);
		// The sample's first collection has an amended mandate and an ultimate debtor; its second one
		// has neither, as the builder's.
		const sampleTx = sample.slice(sample.lastIndexOf('<DrctDbtTxInf>'), sample.lastIndexOf('</DrctDbtTxInf>'));
		const builtTx = built.xml.slice(built.xml.indexOf('<DrctDbtTxInf>'), built.xml.indexOf('</DrctDbtTxInf>'));
		expect(order(sampleTx).filter((name) => name !== 'AmdmntInd')).toEqual(order(builtTx));
		const samplePmt = sample.slice(sample.indexOf('<PmtInf>'), sample.indexOf('<DrctDbtTxInf>'));
		const builtPmt = built.xml.slice(built.xml.indexOf('<PmtInf>'), built.xml.indexOf('<DrctDbtTxInf>'));
		expect(order(samplePmt).filter((name) => order(builtPmt).includes(name))).toEqual(order(builtPmt));
		expect(await schemaProblems(sample, 'pain.008.001.02')).toEqual([]);
	});

	it('the file is checked against its schema before it is handed out: a document the schema refuses names the element', async () => {
		const built = await buildDirectDebitFile([base], { ...options, version: 'pain.008.001.08' });
		const broken = built.xml.replace(/<ChrgBr>SLEV<\/ChrgBr>/, '').replace('<SeqTp>RCUR</SeqTp>', '<SeqTp>NEXT</SeqTp>');
		const problems = await schemaProblems(broken, 'pain.008.001.08');
		expect(problems[0]).toMatch(/^line \d+: Element '\{urn:iso:std:iso:20022:tech:xsd:pain\.008\.001\.08\}SeqTp': \[facet 'enumeration'\] The value 'NEXT' is not an element of the set/);
		const error = await assertSchemaValid(broken, 'pain.008.001.08').then(() => undefined, (e: unknown) => e);
		expect(error).toBeInstanceOf(BankFileError);
		expect(error).toMatchObject({ code: 'SCHEMA_INVALID' });
		expect((error as Error).message).toMatch(/^The pain\.008\.001\.08 file does not match the ISO 20022 schema, so it was not produced: line \d+: Element/);
	});

	it.each<[string, Partial<DirectDebitInput>, string, string]>([
		['creditor identifier check digits', { creditorId: 'DE98ZZZ09999999998' }, 'creditorId', '"DE98ZZZ09999999998" is not a SEPA creditor identifier: check digits do not match (ISO 7064 mod 97 over the national identifier)'],
		['creditor identifier shape', { creditorId: 'DE98-ZZZ' }, 'creditorId', '"DE98-ZZZ" is not a SEPA creditor identifier: must be a country code, 2 check digits, a 3-character business code and the national identifier (at most 35 characters)'],
		['missing creditor identifier', { creditorId: '' }, 'creditorId', 'is required (the SEPA creditor identifier)'],
		['debtor IBAN check digits', { debtorIban: 'DE02700202700010108668' }, 'debtorIban', '"DE02700202700010108668" is not a valid IBAN: check digits do not match (ISO 13616 mod-97)'],
		['creditor IBAN length', { creditorIban: 'DE1250010517064848989' }, 'creditorIban', '"DE1250010517064848989" is not a valid IBAN: must be 22 characters long for DE (found 21)'],
		['BIC shape', { debtorBic: 'BYLA-DE' }, 'debtorBic', '"BYLA-DE" is not a BIC: must be 8 or 11 letters or digits (bank 4, country 2, location 2, branch 3)'],
		['missing mandate', { mandateId: '' }, 'mandateId', 'is required (the reference of the mandate the debtor signed)'],
		['mandate ID characters', { mandateId: 'M_2019' }, 'mandateId', "must use only a-z A-Z 0-9 / - ? : ( ) . , ' + and space"],
		['mandate ID length', { mandateId: 'M'.repeat(36) }, 'mandateId', 'must be at most 35 characters (found 36)'],
		['signature date shape', { mandateSignatureDate: '01.05.2019' }, 'mandateSignatureDate', '"01.05.2019" is not a date in the form YYYY-MM-DD'],
		['signature date in the future', { mandateSignatureDate: '2026-11-27' }, 'mandateSignatureDate', '2026-11-27 is in the future (today is 2026-11-26)'],
		['missing signature date', { mandateSignatureDate: '' }, 'mandateSignatureDate', 'is required'],
		['sequence type', { sequenceType: 'NEXT' }, 'sequenceType', '"NEXT" is not a sequence type: FRST (first), RCUR (recurring), FNAL (final) or OOFF (one-off)'],
		['missing sequence type', { sequenceType: '' }, 'sequenceType', 'is required (one of FRST, RCUR, FNAL, OOFF)'],
		['collection date in the past', { requestedCollectionDate: '2026-11-25' }, 'requestedCollectionDate', '2026-11-25 is in the past (today is 2026-11-26)'],
		['collection date shape', { requestedCollectionDate: '1.12.2026' }, 'requestedCollectionDate', '"1.12.2026" is not a date in the form YYYY-MM-DD'],
		['scheme', { scheme: 'COR1' }, 'scheme', '"COR1" is not a SEPA direct debit scheme: CORE or B2B'],
		['currency', { currency: 'SEK' }, 'currency', 'must be EUR: SEPA direct debits are collected in euro (found "SEK")'],
		['amount decimals', { amount: '10.001' }, 'amount', '10.001 has 3 decimals; EUR allows at most 2'],
		['amount zero', { amount: 0 }, 'amount', 'must be more than 0 (found 0)'],
		['amount over the SEPA limit', { amount: '1000000000' }, 'amount', '1000000000 is too large (at most 999999999.99)'],
		['RF reference check digits', { remittanceText: null, creditorReference: 'RF19539007547034' }, 'creditorReference', '"RF19539007547034" is not a valid RF creditor reference (ISO 11649: RF, 2 check digits, up to 21 letters or digits, mod-97)'],
		['reference and message together', { creditorReference: 'RF18539007547034' }, 'remittanceText', 'give either a creditor reference or a message, not both (one remittance information per SEPA payment)'],
		['debtor name length', { debtorName: 'x'.repeat(71) }, 'debtorName', 'must be at most 70 characters (found 71)'],
		['end-to-end ID characters', { endToEndId: 'E2E_1' }, 'endToEndId', "must use only a-z A-Z 0-9 / - ? : ( ) . , ' + and space"],
	])('refuses %s, naming the item and the field, before anything is built', async (_label, change, field, message) => {
		const bad = { ...base, ...change };
		expect(validateDirectDebit(bad, 2, { today: TODAY })).toEqual([{ index: 2, field, message }]);
		const error = await buildDirectDebitFile([base, base, bad], { ...options, version: 'pain.008.001.08' }).then(() => undefined, (e: unknown) => e);
		expect(error).toBeInstanceOf(PaymentValidationError);
		expect((error as PaymentValidationError).problems).toEqual([{ index: 2, field, message }]);
	});

	it('SEPA creditor identifiers of several countries, with and without spaces', () => {
		for (const id of ['DE98ZZZ09999999999', 'FR72ZZZ123456', 'NL53ZZZ091734220000', 'IT66ZZZA1B2C3D4E5F6G7H8', 'ES50ZZZM23456789', 'AT61ZZZ01234567890', 'BE69ZZZ050D000000008', 'DE98 ZZZ0 9999 9999 99'])
			expect(creditorIdentifierProblem(id)).toBeUndefined();
		expect(creditorIdentifierProblem('FR73ZZZ123456')).toBe('check digits do not match (ISO 7064 mod 97 over the national identifier)');
	});

	it('the file settings are checked too: message ID and initiating party', async () => {
		const error = await buildDirectDebitFile([base], { ...options, version: 'pain.008.001.08', messageId: 'DD_1', initiatingPartyName: '' }).then(() => undefined, (e: unknown) => e);
		expect((error as PaymentValidationError).problems).toEqual([
			{ index: -1, field: 'messageId', message: "must use only a-z A-Z 0-9 / - ? : ( ) . , ' + and space" },
			{ index: -1, field: 'initiatingPartyName', message: 'is required' },
		]);
	});
});
