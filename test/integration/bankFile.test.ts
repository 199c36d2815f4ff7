/**
 * The Bank File node through the real n8n engine: bank files in as binary data, entries and
 * statements out on two outputs; payment rows in, one pain.001 file out, bad rows to the error output.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { MANUAL_TRIGGER_TYPE, runWorkflow } from '../harness/engine';
import { NODE_NAME, PACKAGE, packageCredentialTypes, packageNodeTypes, runNode } from '../helpers/nodes';
import { validateWithXsd } from '../helpers/xsd';

const FIXTURES = path.resolve(__dirname, '../fixtures/bankfiles');

function fileItem(name: string, content?: Buffer): INodeExecutionData {
	const bytes = content ?? readFileSync(path.join(FIXTURES, name));
	return { json: { name }, binary: { data: { data: bytes.toString('base64'), mimeType: 'application/octet-stream', fileName: name } } };
}

const parse = async (inputItems: INodeExecutionData[], parameters: Record<string, unknown> = {}, settings?: Partial<INode>, staticData?: IDataObject) => {
	if (!staticData) return await runNode({ type: 'bankFile', parameters: { operation: 'parse', ...parameters }, inputItems, settings });
	const nodes: INode[] = [
		{ id: 'start', name: 'Start', type: MANUAL_TRIGGER_TYPE, typeVersion: 1, position: [0, 0], parameters: {} },
		{ id: 'bank', name: NODE_NAME, type: `${PACKAGE}.bankFile`, typeVersion: 1, position: [200, 0], parameters: { operation: 'parse', ...parameters } as INode['parameters'] },
	];
	return await runWorkflow({
		workflow: { nodes, connections: { Start: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } }, staticData },
		nodeTypes: packageNodeTypes(),
		credentialTypes: packageCredentialTypes(),
		inputItems,
	});
};

describe('Bank File: Parse', () => {
	test('entries on the first output, statements with balances and check on the second, each linked to its file', async () => {
		const result = await parse([fileItem('camt.053.001.02.xml'), fileItem('tito-latin1.txt')]);
		expect(result.status).toBe('success');
		const entries = result.output(NODE_NAME, 0);
		const statements = result.output(NODE_NAME, 1);
		expect(entries).toHaveLength(13);
		expect(entries[0].json).toMatchObject({ messageType: 'camt.053.001.02', amount: 1500, currency: 'EUR', creditorReference: 'RF18539007547034', counterpartyName: 'Aros Food Group AB', statementId: '2026112000785' });
		expect(entries[0].pairedItem).toEqual({ item: 0 });
		expect(entries[12].json).toMatchObject({ messageType: 'TITO', amount: 500, reversal: true, counterpartyName: 'Tampereen Energia Oy' });
		expect(entries[12].pairedItem).toEqual({ item: 1 });
		expect(statements.map((s) => [s.json.kind, s.json.fileName, s.json.statementId, s.json.openingBalance, s.json.closingBalance, s.json.check])).toEqual([
			['statement', 'camt.053.001.02.xml', '2026112000785', 10000, 9657.55, 'ok'],
			['statement', 'camt.053.001.02.xml', '2026112000081', 500, 457.1, 'ok'],
			['statement', 'tito-latin1.txt', '20261120-224', 10000, 9657.55, 'ok'],
		]);
	});

	test('pain.002 statuses come one per payment; per transaction detail on request', async () => {
		const statuses = await parse([fileItem('pain.002.001.03.xml')]);
		expect(statuses.output(NODE_NAME, 0).map((i) => [i.json.originalEndToEndId, i.json.status, i.json.reasonCode])).toEqual([
			['E2E-2001', 'ACCP', null],
			['E2E-2002', 'RJCT', 'AC04'],
			[null, 'RJCT', null],
		]);
		const split = await parse([fileItem('camt.054.001.08.xml')], { options: { split: 'transaction', keepXml: true } });
		expect(split.output(NODE_NAME, 0).map((i) => i.json.amount)).toEqual([120, 190, 75.25]);
		expect(String(split.output(NODE_NAME, 0)[0].json.xml)).toContain('<Ref>123453</Ref>');
	});

	test('skips statements this workflow already processed: from saved static data, and a second copy of the same file in one run', async () => {
		const saved = { 'node:Bank': { processedStatements: ['FI5542345670000081|2026112000081'] } };
		const result = await parse([fileItem('camt.053.001.02.xml'), fileItem('camt.053.001.02.xml')], { options: { skipProcessed: true } }, undefined, saved);
		expect(result.status).toBe('success');
		expect(result.output(NODE_NAME, 1).map((s) => s.json.statementId)).toEqual(['2026112000785']);
		expect(new Set(result.output(NODE_NAME, 0).map((e) => e.json.statementId))).toEqual(new Set(['2026112000785']));
		expect(result.output(NODE_NAME, 0)).toHaveLength(6);
	});

	test('a file that is not a bank file fails naming what was found; with Continue On Fail it becomes an error item and the other files are parsed', async () => {
		const bad = fileItem('notes.csv', Buffer.from('Date;Amount\n2026-11-20;100\n'));
		const failed = await parse([bad]);
		expect(failed.status).toBe('error');
		expect(failed.nodeError(NODE_NAME)).toMatchObject({
			name: 'NodeOperationError',
			message: 'The file is neither XML (camt, pain.002), a SWIFT MT940 / MT942, a BAI2 file nor a Finnish TITO or KTL file: it starts with "Date;Amount"',
		});
		const continued = await parse([bad, fileItem('ktl-latin1.txt')], {}, { onError: 'continueRegularOutput' });
		expect(continued.status).toBe('success');
		const items = continued.output(NODE_NAME, 0);
		expect(items[0].json.error).toBe('The file is neither XML (camt, pain.002), a SWIFT MT940 / MT942, a BAI2 file nor a Finnish TITO or KTL file: it starts with "Date;Amount"');
		expect(items.slice(1).map((i) => i.json.amount)).toEqual([120, 190, -120]);
	});

	test('BAI2: the details of a Citibank file as entries and its account as the statement; a file whose trailer does not add up fails the node naming the trailer, the line and both numbers', async () => {
		const result = await parse([fileItem('bai2/moj-citi_example.bai2')], { format: 'bai2' });
		expect(result.status).toBe('success');
		expect(result.output(NODE_NAME, 0).map((i) => [i.json.messageType, i.json.amount, i.json.currency, i.json.valueDate, i.json.accountServicerReference, i.json.entryReference])).toEqual([
			['BAI2', 0.01, 'GBP', '2015-07-15', '1234567890', 'RP12312312312312'],
		]);
		expect(result.output(NODE_NAME, 1).map((i) => [i.json.kind, i.json.accountId, i.json.openingBalance, i.json.closingBalance, i.json.check])).toEqual([['statement', '77777777', 100, 100, 'mismatch']]);

		const citi = readFileSync(path.join(FIXTURES, 'bai2/moj-citi_example.bai2')).toString('latin1');
		const failed = await parse([fileItem('citi.bai2', Buffer.from(citi.replace('99,20001,1,14/', '99,20001,1,13/')))]);
		expect(failed.status).toBe('error');
		expect(failed.nodeError(NODE_NAME)).toMatchObject({
			name: 'NodeOperationError',
			message: 'The file trailer (99) counts 13 records, but the file has 14 (from its 01 to this 99, continuations included) (line 14)',
		});
	});

	test('an unknown TITO record is skipped with a warning item on the Statements output on request', async () => {
		const lines = readFileSync(path.join(FIXTURES, 'tito-latin1.txt')).toString('latin1').split('\r\n');
		lines.splice(3, 0, 'T99010ABCD');
		const result = await parse([fileItem('tito.txt', Buffer.from(lines.join('\r\n'), 'latin1'))], { options: { onInvalidRecord: 'warn' } });
		expect(result.output(NODE_NAME, 1).map((i) => [i.json.kind, i.json.code, i.json.location])).toEqual([
			['warning', 'UNKNOWN_RECORD', 'line 4'],
			['statement', undefined, undefined],
		]);
	});
});

describe('Bank File: Build Payment File', () => {
	const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
	const row = (overrides: Record<string, unknown> = {}): INodeExecutionData => ({
		json: {
			debtorName: 'Esimerkki Oyj',
			debtorIban: 'FI2112345600000785',
			creditorName: 'Helsinki Office Supplies Oy',
			creditorIban: 'FI5115723500048531',
			amount: 250.35,
			requestedExecutionDate: tomorrow,
			creditorReference: '1232',
			...overrides,
		},
	});
	const build = async (inputItems: INodeExecutionData[], settings?: Partial<INode>, version = 'pain.001.001.09') =>
		await runNode({
			type: 'bankFile',
			parameters: { operation: 'buildPaymentFile', version, initiatingPartyName: 'Esimerkki Oyj', options: { messageId: 'PAY-TEST-1' } },
			inputItems,
			settings,
		});

	test.each(['pain.001.001.03', 'pain.001.001.09'])('%s: one file from all rows, valid against the schema, with counts and sums', async (version) => {
		const result = await build([row(), row({ amount: '1500', creditorReference: 'RF18539007547034' }), row({ amount: 10, creditorReference: '', remittanceText: 'Invoice 77' })], undefined, version);
		expect(result.status).toBe('success');
		const [file] = result.output(NODE_NAME);
		expect(file.json).toMatchObject({ messageId: 'PAY-TEST-1', version, numberOfTransactions: 3, controlSum: '1760.35', includedItems: [0, 1, 2], leftOutItems: [], complete: true, fileName: 'PAY-TEST-1.xml' });
		expect(file.pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		const xml = Buffer.from(file.binary!.data.data, 'base64').toString('utf8');
		expect(validateWithXsd(xml, `${version}.xsd`).valid).toBe(true);
	});

	test('an invalid row stops the node before any file is made, naming the item and the field', async () => {
		const result = await build([row(), row({ creditorIban: 'FI5115723500048532' }), row({ amount: '12.345' })]);
		expect(result.status).toBe('error');
		const error = result.nodeError(NODE_NAME)!;
		expect(error.message).toBe('Invalid payment in item 1: creditorIban: "FI5115723500048532" is not a valid IBAN: check digits do not match (ISO 13616 mod-97)');
		expect(error.description).toContain('No file was produced. 2 of 3 item(s) are invalid:');
		expect(error.description).toContain('item 2: amount: 12.345 has 3 decimals; EUR allows at most 2');
	});

	test('with the error output, bad rows go there and the file holds only the good ones and says so', async () => {
		const result = await build([row(), row({ requestedExecutionDate: '2020-01-01' }), row({ amount: 5 })], { onError: 'continueErrorOutput' });
		expect(result.status).toBe('success');
		const [file] = result.output(NODE_NAME, 0);
		expect(result.output(NODE_NAME, 0)).toHaveLength(1);
		expect(file.json).toMatchObject({ numberOfTransactions: 2, controlSum: '255.35', includedItems: [0, 2], leftOutItems: [1], complete: false, notice: '1 of 3 payments were left out of the file (items 1): see the error output' });
		const errors = result.output(NODE_NAME, 1);
		expect(errors).toHaveLength(1);
		expect(errors[0].json.error).toMatch(/^Invalid payment: requestedExecutionDate: 2020-01-01 is in the past \(today is \d{4}-\d{2}-\d{2}\)$/);
		expect(errors[0].pairedItem).toEqual({ item: 1 });
		const xml = Buffer.from(file.binary!.data.data, 'base64').toString('utf8');
		expect(xml.match(/<CdtTrfTxInf>/g)).toHaveLength(2);
		expect(validateWithXsd(xml, 'pain.001.001.09.xsd').valid).toBe(true);
	});
});

describe('Bank File: SWIFT MT940 / MT942 and camt.052', () => {
	test('an MT940 file, an MT942 report and a camt.052 report in one run: entries and statements like camt, each linked to its file', async () => {
		const result = await parse([fileItem('mt940-de-latin1.sta'), fileItem('mt942-utf8.sta'), fileItem('camt.052.001.02.xml')]);
		expect(result.status).toBe('success');
		const entries = result.output(NODE_NAME, 0);
		expect(entries.map((e) => [e.json.messageType, e.json.amount, e.json.counterpartyName, e.pairedItem])).toEqual([
			['MT940', 2500, 'Müller Maschinenbau GmbH', { item: 0 }],
			['MT940', -89.9, 'Energieversorgung Musterstadt AG', { item: 0 }],
			['MT940', 1200, 'Schmidt & Söhne KG', { item: 0 }],
			['MT940', -15, null, { item: 0 }],
			['MT940', 89.9, 'Energieversorgung Musterstadt AG', { item: 0 }],
			['MT940', 300, null, { item: 0 }],
			['MT940', -49.99, null, { item: 0 }],
			['MT942', 1500, 'Åkerlund Förvaltning AB', { item: 1 }],
			['MT942', -250.35, 'Helsinki Office Supplies Oy', { item: 1 }],
			['MT942', -80, null, { item: 1 }],
			['camt.052.001.02', -89.9, 'Energieversorgung Musterstadt AG', { item: 2 }],
			['camt.052.001.02', 2500, 'Müller Maschinenbau GmbH', { item: 2 }],
			['camt.052.001.02', 300, 'Schmidt & Söhne KG', { item: 2 }],
		]);
		expect(Object.keys(entries[0].json).slice(0, 5)).toEqual(['bookingDate', 'valueDate', 'amount', 'currency', 'creditDebit']);
		expect(entries[1].json).toMatchObject({ mandateId: 'M-2019-000123', creditorId: 'DE98ZZZ09999999999', endToEndId: 'STROM-2026-11', remittanceText: 'Abschlag Strom November 2026' });
		const statements = result.output(NODE_NAME, 1);
		expect(statements.map((s) => [s.json.kind, s.json.fileName, s.json.statementId, s.json.openingBalance, s.json.closingBalance, s.json.check])).toEqual([
			['statement', 'mt940-de-latin1.sta', '20261127-00112', 12500, 16185, 'ok'],
			['statement', 'mt940-de-latin1.sta', '20261127-00045', -500, -249.99, 'ok'],
			['statement', 'mt942-utf8.sta', '202611301330-00331', null, null, 'ok'],
			['statement', 'camt.052.001.02.xml', '3171C5220261130133000', 12500, 14910.1, 'ok'],
		]);
		expect(Object.keys(statements[0].json).slice(0, 6)).toEqual(['kind', 'accountIban', 'accountId', 'accountCurrency', 'accountOwner', 'periodFrom']);
	});

	test('a truncated MT940 file fails naming the statement; an unknown field becomes a warning item on request', async () => {
		const text = readFileSync(path.join(FIXTURES, 'mt940-de-latin1.sta')).toString('latin1');
		const truncated = Buffer.from(text.slice(0, text.indexOf(':62M:')), 'latin1');
		const failed = await parse([fileItem('cut.sta', truncated)]);
		expect(failed.status).toBe('error');
		expect(failed.nodeError(NODE_NAME)!.message).toBe('Statement 20261127-00112 ends without its closing balance (:62F:) (message starting on line 2)');
		const unknown = Buffer.from(text.replace(':28C:00045/001', ':28C:00045/001\r\n:99X:SOMETHING'), 'latin1');
		const warned = await parse([fileItem('odd.sta', unknown)], { options: { onInvalidRecord: 'warn' } });
		expect(warned.status).toBe('success');
		const warnings = warned.output(NODE_NAME, 1).filter((i) => i.json.kind === 'warning');
		expect(warnings.map((w) => [w.json.code, w.json.message, w.json.location, w.json.fileName])).toEqual([
			['UNKNOWN_RECORD', 'Unknown MT940 field :99X:; the record was skipped', 'line 44', 'odd.sta'],
		]);
	});
});

describe('Bank File: Build Direct Debit File', () => {
	const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
	const row = (overrides: Record<string, unknown> = {}): INodeExecutionData => ({
		json: {
			debtorName: 'Max Mustermann',
			debtorIban: 'DE02700202700010108669',
			amount: 89.9,
			mandateId: 'M-2019-000123',
			mandateSignatureDate: '2019-05-01',
			sequenceType: 'RCUR',
			requestedCollectionDate: inAWeek,
			remittanceText: 'Abschlag Strom',
			...overrides,
		},
	});
	const build = async (inputItems: INodeExecutionData[], settings?: Partial<INode>, parameters: Record<string, unknown> = {}) =>
		await runNode({
			type: 'bankFile',
			parameters: {
				operation: 'buildDirectDebitFile',
				version: 'pain.008.001.08',
				scheme: 'CORE',
				initiatingPartyName: 'Stadtwerke Musterstadt GmbH',
				creditorName: 'Stadtwerke Musterstadt GmbH',
				creditorIban: 'DE12500105170648489890',
				creditorBic: 'NOLADE21XXX',
				creditorId: 'DE98ZZZ09999999999',
				options: { messageId: 'DD-TEST-1' },
				...parameters,
			},
			inputItems,
			settings,
		});

	test.each(['pain.008.001.02', 'pain.008.001.08'])('%s: one file from all rows, grouped by sequence type, valid against the schema', async (version) => {
		const result = await build([row(), row({ sequenceType: 'FRST', mandateId: 'M-2026-1', mandateSignatureDate: '2026-01-10', amount: '120' }), row({ amount: '10.10', remittanceText: '', creditorReference: 'RF18539007547034' })], undefined, { version });
		expect(result.status).toBe('success');
		const [file] = result.output(NODE_NAME);
		expect(file.json).toMatchObject({ messageId: 'DD-TEST-1', version, numberOfTransactions: 3, controlSum: '220.00', includedItems: [0, 1, 2], leftOutItems: [], complete: true, fileName: 'DD-TEST-1.xml' });
		expect((file.json.paymentInformation as IDataObject[]).map((b) => [b.sequenceType, b.scheme, b.requestedCollectionDate, b.numberOfTransactions, b.controlSum])).toEqual([
			['RCUR', 'CORE', inAWeek, 2, '100.00'],
			['FRST', 'CORE', inAWeek, 1, '120.00'],
		]);
		expect(file.pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		const xml = Buffer.from(file.binary!.data.data, 'base64').toString('utf8');
		expect(validateWithXsd(xml, path.relative(path.resolve(__dirname, '../fixtures/xsd'), path.resolve(__dirname, `../../nodes/shared/bankfiles/schemas/${version}.xsd`))).valid).toBe(true);
	});

	test('a wrong creditor identifier or a bad row stops the node before any file is made, naming the item, the field and the rule', async () => {
		const wrongCreditor = await build([row()], undefined, { creditorId: 'DE98ZZZ09999999998' });
		expect(wrongCreditor.status).toBe('error');
		expect(wrongCreditor.nodeError(NODE_NAME)!.message).toBe('Invalid direct debit in item 0: creditorId: "DE98ZZZ09999999998" is not a SEPA creditor identifier: check digits do not match (ISO 7064 mod 97 over the national identifier)');
		const result = await build([row(), row({ sequenceType: 'NEXT' }), row({ mandateSignatureDate: '' })]);
		expect(result.status).toBe('error');
		const error = result.nodeError(NODE_NAME)!;
		expect(error.message).toBe('Invalid direct debit in item 1: sequenceType: "NEXT" is not a sequence type: FRST (first), RCUR (recurring), FNAL (final) or OOFF (one-off)');
		expect(error.description).toContain('No file was produced. 2 of 3 item(s) are invalid:');
		expect(error.description).toContain('item 2: mandateSignatureDate: is required');
	});

	test('with the error output, bad rows go there and the file holds only the good ones and says so', async () => {
		const result = await build([row(), row({ debtorIban: 'DE02700202700010108668' }), row({ scheme: 'B2B' })], { onError: 'continueErrorOutput' }, { scheme: '={{ $json.scheme || "CORE" }}' });
		expect(result.status).toBe('success');
		const [file] = result.output(NODE_NAME, 0);
		expect(file.json).toMatchObject({ numberOfTransactions: 2, includedItems: [0, 2], leftOutItems: [1], complete: false, notice: '1 of 3 direct debits were left out of the file (items 1): see the error output' });
		expect((file.json.paymentInformation as IDataObject[]).map((b) => b.scheme)).toEqual(['CORE', 'B2B']);
		const errors = result.output(NODE_NAME, 1);
		expect(errors.map((e) => [e.json.error, e.pairedItem])).toEqual([
			['Invalid direct debit: debtorIban: "DE02700202700010108668" is not a valid IBAN: check digits do not match (ISO 13616 mod-97)', { item: 1 }],
		]);
	});
});

describe("the sandbox bank's files", () => {
	test('every statement, notification and reference payment file parses; all kinds of entries; every statement balances', async () => {
		const { FileStore } = await import('../sandbox/bankfiles');
		const { parseBankFileToArrays } = await import('../../nodes/shared/bankfiles');
		const store = new FileStore({ seed: 7, days: 10, customerId: 'SANDBOXCUST1', customerName: 'Sandbox Customer Oy', targetId: 'T1', now: () => new Date('2026-11-23T12:00:00Z') });
		try {
			const files = store.list();
			expect(new Set(files.map((f) => f.fileType))).toEqual(new Set(['XT', 'XP', 'TITO', 'KTL']));
			let entries = 0;
			const codes = new Set<string>();
			for (const descriptor of files) {
				const parsed = await parseBankFileToArrays(store.get(descriptor.fileReference)!.content);
				entries += parsed.entries.length;
				for (const e of parsed.entries) codes.add(`${e.bankTransactionCode.domain}/${e.bankTransactionCode.family}/${e.bankTransactionCode.subFamily}`);
				for (const s of parsed.statements) expect([descriptor.userFilename, s.check, s.warning]).toEqual([descriptor.userFilename, 'ok', null]);
			}
			expect(files.filter((f) => f.fileType === 'XT')).toHaveLength(20);
			expect(entries).toBeGreaterThan(1000);
			expect([...codes]).toEqual(expect.arrayContaining(['PMNT/RCDT/ESCT', 'PMNT/ICDT/ESCT', 'PMNT/ICDT/SALA', 'PMNT/CCRD/POSD', 'PMNT/IDDT/ESDD', 'ACMT/MDOP/CHRG', 'ACMT/MCOP/INTR', 'PMNT/RCDT/XBCT', 'PMNT/ICDT/RRTN']));
		} finally {
			store.dispose();
		}
	});
});
