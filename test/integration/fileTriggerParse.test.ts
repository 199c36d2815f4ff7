/**
 * Bank File Trigger, Output "Parsed Entries": each new file is downloaded and parsed by the Bank
 * File parser (camt.053, pain.002, TITO, KTL, BAI2), through n8n's polling engine against the sandbox
 * bank. Every file is delivered once, as for the other outputs; a file that cannot be parsed is
 * emitted once as a file item with the error and its binary, and does not hold up the files
 * after it.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { FileMemory } from '../../nodes/BankFileTrigger/files/state';
import { parseBankFileToArrays } from '../../nodes/shared/bankfiles';
import type { PollHarness } from '../harness/poll';
import { useSandbox } from '../helpers/bank';
import { arrive, emittedReferences, fileTriggerHarness, fileTypesParameter, storedBytes } from '../helpers/fileTrigger';
import type { SandboxBank } from '../sandbox';

const sandbox = useSandbox({ seed: 42 });
const bank = (): SandboxBank => sandbox.bank();
const fixture = (name: string): Buffer => readFileSync(join(__dirname, '..', 'fixtures', 'bankfiles', name));

const downloads = (b: SandboxBank) => b.stats.soapCalls.filter((c) => c.operation === 'downloadFile');
const statusOf = (b: SandboxBank, reference: string) => b.files.list().find((f) => f.fileReference === reference)?.status;
const ofKind = (items: INodeExecutionData[], kind: string) => items.filter((i) => i.json.kind === kind);
/** The item's JSON without what the trigger adds to the parser's fields. */
const parsedPart = (item: INodeExecutionData): IDataObject => {
	const { kind: _kind, fileReference: _ref, fileName: _name, recovered: _recovered, ...rest } = item.json;
	return rest;
};

let spies: jest.SpyInstance[] = [];
afterEach(() => {
	for (const spy of spies) spy.mockRestore();
	spies = [];
});

/** Starts a trigger with Output Parsed Entries on the given file types and takes the files already waiting. */
async function started(fileTypes: string[], parameters: IDataObject = {}): Promise<PollHarness> {
	const h = fileTriggerHarness(bank(), { output: 'parse', fileTypes: fileTypesParameter(...fileTypes), ...parameters });
	expect(await h.poll()).toBeNull();
	await h.poll();
	return h;
}

/** A file arriving at the bank now, status NEW, with the given content. */
function put(b: SandboxBank, fileType: string, content: Buffer, userFilename: string, offsetMs = 0): string {
	return b.files.put({ fileType, content, status: 'NEW', userFilename, fileTimestamp: new Date(Date.now() + offsetMs) }).fileReference;
}


describe('Parsed Entries', () => {
	it('camt.053: one item per entry with the Bank File fields, the statements with their check, then the file with its binary', async () => {
		const b = bank();
		const h = await started(['XT']);
		const content = fixture('camt.053.001.02.xml');
		const reference = put(b, 'XT', content, 'statement-2026-11-20.xml');
		const items = (await h.poll())![0];

		expect(items.map((i) => i.json.kind)).toEqual(['entry', 'entry', 'entry', 'entry', 'entry', 'entry', 'statement', 'entry', 'statement', 'file']);
		for (const item of items) expect(item.json).toMatchObject({ fileReference: reference, fileName: 'statement-2026-11-20.xml', recovered: false });
		const expected = await parseBankFileToArrays(content);
		expect(ofKind(items, 'entry').map(parsedPart)).toEqual(expected.entries);
		expect(ofKind(items, 'statement').map(parsedPart)).toEqual(expected.statements);
		const [first] = ofKind(items, 'entry');
		expect(first.json).toMatchObject({
			messageType: 'camt.053.001.02',
			statementId: '2026112000785',
			accountIban: 'FI2112345600000785',
			accountCurrency: 'EUR',
			currency: 'EUR',
		});
		expect(ofKind(items, 'entry').find((i) => i.json.entryReference === '4')!.json).toMatchObject({
			amount: 920.4,
			creditDebit: 'CRDT',
			counterpartyName: 'Hanse Metals GmbH',
			fx: { instructedAmount: 1000, instructedCurrency: 'USD', rate: 0.9204 },
		});
		expect(ofKind(items, 'statement')[0].json).toMatchObject({ openingBalance: 10000, closingBalance: 9657.55, entryCount: 6, netTotal: -342.45, check: 'ok' });
		for (const item of items.slice(0, -1)) expect(item.binary).toBeUndefined();

		const [file] = ofKind(items, 'file');
		expect(file.json).toMatchObject({
			fileReference: reference,
			fileType: 'XT',
			parsed: true,
			format: 'camt.053.001.02',
			entries: 7,
			paymentStatuses: 0,
			statements: 2,
			warnings: 0,
			responseCode: '00',
		});
		expect(await storedBytes(file)).toEqual(content);
		expect(statusOf(b, reference)).toBe('DLD');
		expect(await h.poll()).toBeNull();
		expect(await h.reload().poll()).toBeNull();
	});

	it('Item Per Transaction Detail: the batch entry becomes its salaries, as in the Bank File node', async () => {
		const b = bank();
		const h = await started(['XT'], { parseOptions: { split: 'transaction' } });
		const content = fixture('camt.053.001.02.xml');
		put(b, 'XT', content, 'statement.xml');
		const items = (await h.poll())![0];
		const expected = await parseBankFileToArrays(content, { split: 'transaction' });
		expect(ofKind(items, 'entry').map(parsedPart)).toEqual(expected.entries);
		expect(ofKind(items, 'entry')).toHaveLength(8);
	});

	it('pain.002: one item per payment status', async () => {
		const b = bank();
		const h = await started(['XP']);
		const reference = put(b, 'XP', fixture('pain.002.001.03.xml'), 'status.xml');
		const items = (await h.poll())![0];
		expect(items.map((i) => i.json.kind)).toEqual(['paymentStatus', 'paymentStatus', 'paymentStatus', 'file']);
		expect(ofKind(items, 'paymentStatus').map((i) => [i.json.level, i.json.originalEndToEndId, i.json.status, i.json.reasonCode, i.json.amount])).toEqual([
			['transaction', 'E2E-2001', 'ACCP', null, 250.35],
			['transaction', 'E2E-2002', 'RJCT', 'AC04', 1200],
			['paymentInformation', null, 'RJCT', null, null],
		]);
		expect(ofKind(items, 'paymentStatus')[0].json).toMatchObject({ messageType: 'pain.002.001.03', originalMessageId: 'PAY-77', fileReference: reference });
		expect(ofKind(items, 'file')[0].json).toMatchObject({ parsed: true, format: 'pain.002.001.03', paymentStatuses: 3, entries: 0 });
	});

	it('TITO (ISO-8859-1): entries with their Finnish letters, and the statement with its balance check', async () => {
		const b = bank();
		const h = await started(['TITO']);
		const content = fixture('tito-latin1.txt');
		put(b, 'TITO', content, 'tito.txt');
		const items = (await h.poll())![0];
		expect(items.map((i) => i.json.kind)).toEqual(['entry', 'entry', 'entry', 'entry', 'entry', 'entry', 'statement', 'file']);
		expect(ofKind(items, 'entry').map(parsedPart)).toEqual((await parseBankFileToArrays(content)).entries);
		expect(ofKind(items, 'entry').map((i) => [i.json.amount, i.json.creditDebit, i.json.counterpartyName])).toEqual([
			[1500, 'CRDT', 'Åkerlund Förvaltning AB'],
			[-250.35, 'DBIT', 'Helsingin Toimisto Oy'],
			[-3000, 'DBIT', 'Palkat 11/2026'],
			[920.4, 'CRDT', 'Hanse Metals GmbH'],
			[-12.5, 'DBIT', null],
			[500, 'CRDT', 'Tampereen Energia Oy'],
		]);
		expect(ofKind(items, 'statement')[0].json).toMatchObject({
			messageType: 'TITO',
			statementId: '20261120-224',
			accountId: '12345600000785',
			openingBalance: 10000,
			closingBalance: 9657.55,
			check: 'ok',
		});
		expect(ofKind(items, 'file')[0].json).toMatchObject({ parsed: true, format: 'TITO', entries: 6, statements: 1 });
	});

	it('KTL: one item per reference payment, the batch with its totals check', async () => {
		const b = bank();
		const h = await started(['KTL']);
		const content = fixture('ktl-latin1.txt');
		put(b, 'KTL', content, 'ktl.txt');
		const items = (await h.poll())![0];
		expect(ofKind(items, 'entry').map((i) => [i.json.amount, i.json.creditDebit, i.json.reversal, i.json.counterpartyName, i.json.creditorReference, i.json.creditorReferenceType])).toEqual([
			[120, 'CRDT', false, 'Meikäläinen', '1232', 'FI'],
			[190, 'CRDT', false, 'Öljy-Keskus', '123453', 'FI'],
			[-120, 'DBIT', true, 'Meikäläinen', '1232', 'FI'],
		]);
		expect(ofKind(items, 'entry').map(parsedPart)).toEqual((await parseBankFileToArrays(content)).entries);
		expect(ofKind(items, 'statement')[0].json).toMatchObject({ statementId: '000123456-202611201630', creditTotal: 310, debitTotal: 120, check: 'ok' });
		expect(ofKind(items, 'file')[0].json).toMatchObject({ parsed: true, format: 'KTL', entries: 3, statements: 1 });
	});

	it('BAI2 (NatWest\'s file): one item per transaction detail, the account with its balances and its checked trailers; a file whose control total is off comes as the file with the error, nothing of it parsed', async () => {
		const b = bank();
		const h = await started(['BAI2']);
		const content = fixture('bai2/moj-nwb_example.bai2');
		const reference = put(b, 'BAI2', content, 'nwb-20091216.bai');
		const broken = Buffer.from(fixture('bai2/moov-sample2.txt').toString('latin1').replace('49,9150000,4/', '49,9150001,4/'));
		const bad = put(b, 'BAI2', broken, 'broken.bai', 1);
		const items = (await h.poll())![0];

		const mine = items.filter((i) => i.json.fileReference === reference);
		expect(mine.map((i) => i.json.kind)).toEqual(['entry', 'entry', 'entry', 'entry', 'entry', 'statement', 'file']);
		const expected = await parseBankFileToArrays(content);
		expect(ofKind(mine, 'entry').map(parsedPart)).toEqual(expected.entries);
		expect(ofKind(mine, 'statement').map(parsedPart)).toEqual(expected.statements);
		// The figures of the file itself: 365.21 - 9.71 - 1.00 - 1.23 - 15.71 + 0.89 = 338.45.
		expect(ofKind(mine, 'statement')[0].json).toMatchObject({ messageType: 'BAI2', accountId: '88888888 600004', openingBalance: 365.21, closingBalance: 338.45, check: 'ok', bai2: { controlTotal: 1437.64, recordCount: 14 } });
		expect(ofKind(mine, 'entry')[4].json).toMatchObject({ amount: 0.89, currency: 'GBP', bankTransactionCode: { proprietary: '399', proprietaryIssuer: 'BAI' }, additionalInfo: 'Miscellaneous Credit' });
		expect(ofKind(mine, 'file')[0].json).toMatchObject({ parsed: true, format: 'BAI2', entries: 5, statements: 1 });

		const theirs = items.filter((i) => i.json.fileReference === bad);
		expect(theirs).toHaveLength(1);
		expect(theirs[0].json).toMatchObject({
			kind: 'file', parsed: false, format: 'BAI2', errorCode: 'CONTROL_TOTAL_MISMATCH', errorLocation: 'line 6',
			error: "The account trailer (49) of account 0123456789 gives a control total of 9150001, but the amounts of the account's records (line 3 on) add up to 9150000 (line 6)",
		});
		expect(await storedBytes(theirs[0])).toEqual(broken);
		expect(await h.poll()).toBeNull();
	});

	it('a file that cannot be parsed is emitted once as the file with the error and its binary; the files after it come in the same poll', async () => {
		const b = bank();
		const h = await started(['XT']);
		const truncated = fixture('camt.053.001.02.xml').subarray(0, 1500);
		const bad = put(b, 'XT', truncated, 'broken.xml', 0);
		const notXml = put(b, 'XT', Buffer.from('%PDF-1.7 not a statement'), 'statement.pdf', 1);
		const [good] = arrive(b, 1).map((f) => f.fileReference);
		const items = (await h.poll())![0];

		const byReference = (i: INodeExecutionData) => String(i.json.fileReference);
		const files = [bad, notXml, good].map((reference) => ofKind(items, 'file').find((i) => byReference(i) === reference)!);
		expect(files.map((i) => [i.json.fileReference, i.json.parsed, i.json.errorCode])).toEqual([
			[bad, false, 'TRUNCATED'],
			[notXml, false, 'NOT_XML'],
			[good, true, undefined],
		]);
		// Nothing of a file that failed half-way: no entry of it is emitted.
		expect(items.filter((i) => i.json.fileReference === bad)).toHaveLength(1);
		expect(String(files[0].json.error)).toMatch(/truncated: it ends inside <Document\/BkToCstmrStmt\/Stmt/);
		expect(files[0].json).toMatchObject({ kind: 'file', fileName: 'broken.xml', format: 'camt.053.001.02', recovered: false });
		expect(await storedBytes(files[0])).toEqual(truncated);
		expect(files[1].json.error).toMatch(/neither XML .* nor a Finnish TITO or KTL file: it starts with "%PDF/);
		expect(ofKind(items, 'entry').length).toBeGreaterThan(0);
		expect(ofKind(items, 'entry').every((i) => i.json.fileReference === good)).toBe(true);
		expect(h.logs.join('\n')).toMatch(new RegExp(`file ${bad} could not be parsed`));

		// Each file is remembered: none of them comes again, after a restart neither.
		expect(h.savedNodeStaticData().emitted).toEqual(expect.arrayContaining([bad, notXml, good]));
		expect(await h.poll()).toBeNull();
		expect(await h.reload().poll()).toBeNull();
	});

	it('On Invalid Entry Skip With a Warning: the entry is left out with a warning item, the file is parsed', async () => {
		const b = bank();
		const h = await started(['XT'], { parseOptions: { onInvalidRecord: 'warn' } });
		const xml = fixture('camt.053.001.02.xml').toString().replace('<Amt Ccy="EUR">12.50</Amt>', '<Amt Ccy="USD">12.50</Amt>');
		put(b, 'XT', Buffer.from(xml), 'statement.xml');
		const items = (await h.poll())![0];
		expect(ofKind(items, 'warning').map((i) => i.json.code)).toEqual(['MIXED_CURRENCIES']);
		expect(ofKind(items, 'entry')).toHaveLength(6);
		expect(ofKind(items, 'file')[0].json).toMatchObject({ parsed: true, entries: 6, warnings: 1 });
	});

	it('a crash between the download and the hand-over: after a restart the files come parsed, once, marked recovered', async () => {
		const b = bank();
		const h = await started(['XT']);
		const files = arrive(b, 3).map((f) => f.fileReference);
		const save = FileMemory.prototype.save;
		const spy = jest.spyOn(FileMemory.prototype, 'save').mockImplementation(function (this: FileMemory, listed) {
			if (spy.mock.calls.length === 1) throw new Error('process died');
			return save.call(this, listed);
		});
		spies.push(spy);
		await expect(h.poll()).rejects.toThrow('process died');
		for (const reference of files) expect(statusOf(b, reference)).toBe('DLD');

		const restarted = h.reload();
		const items = (await restarted.poll())![0];
		expect(ofKind(items, 'file').map((i) => [i.json.fileReference, i.json.parsed, i.json.recovered])).toEqual(files.map((f) => [f, true, true]));
		for (const reference of files) {
			const expected = await parseBankFileToArrays(b.files.get(reference)!.content);
			const entries = items.filter((i) => i.json.kind === 'entry' && i.json.fileReference === reference);
			expect(entries.map(parsedPart)).toEqual(expected.entries);
			expect(entries.every((i) => i.json.recovered === true)).toBe(true);
		}
		expect(await restarted.poll()).toBeNull();
		expect(restarted.reload().savedNodeStaticData().emitted).toEqual(expect.arrayContaining(files));
		expect(new Set(emittedReferences(restarted)).size).toBe(files.length);
	});

	it('Max Files per Poll counts files, not items: each poll parses at most that many files, oldest first', async () => {
		const b = bank();
		const h = await started(['XT'], { maxFilesPerPoll: 2 });
		const files = arrive(b, 5).map((f) => f.fileReference);
		const seen: string[] = [];
		for (;;) {
			const result = await h.poll();
			if (!result) break;
			const polled = ofKind(result[0], 'file').map((i) => String(i.json.fileReference));
			expect(polled.length).toBeLessThanOrEqual(2);
			seen.push(...polled);
		}
		// The files left over from the start come first (oldest first), then these, each once.
		expect(seen.slice(-files.length)).toEqual(files);
		expect(new Set(seen).size).toBe(seen.length);
		expect(downloads(b).length).toBeGreaterThanOrEqual(files.length);
	});

	it('Fetch Test Event parses the newest file already handed out (changing nothing), never a new one', async () => {
		const b = bank();
		const h = await started(['XT']);
		const saved = h.savedNodeStaticData();
		const again = await h.pollManual();
		expect(ofKind(again![0], 'entry').length).toBeGreaterThan(0);
		expect(ofKind(again![0], 'file')[0].json).toMatchObject({ parsed: true });
		expect(again![0].every((i) => /downloaded again/.test(String(i.json.testEvent)))).toBe(true);

		const [file] = arrive(b, 1);
		const fresh = await h.pollManual();
		const [fileItem] = ofKind(fresh![0], 'file');
		expect(fileItem.json.fileReference).not.toBe(file.fileReference);
		expect(ofKind(fresh![0], 'entry').length).toBeGreaterThan(0);
		expect(String(fileItem.json.testEvent)).toMatch(new RegExp(`A newer file \\(${file.fileReference}\\) is still new at the bank`));
		expect(statusOf(b, file.fileReference)).toBe('NEW');
		expect(h.savedNodeStaticData()).toEqual(saved);
	});

	it.each([
		['camt.054.001.02', 'auto', 'camt.054', 'entry', 'SAMPLE-camt.054-notification.xml'],
		['ZZ', 'camt.053', 'camt.053', 'entry', 'SAMPLE-camt.053-statement.xml'],
		['ZZ', 'pain.002', 'pain.002', 'paymentStatus', 'SAMPLE-pain.002-status-report.xml'],
		['TITO-FI', 'auto', 'tito', 'entry', 'SAMPLE-tito-statement.txt'],
		['KTL-FI', 'auto', 'ktl', 'entry', 'SAMPLE-ktl-reference-payments.txt'],
		['camt.052.001.02', 'auto', 'camt.052', 'entry', 'SAMPLE-camt.052-intraday-report.xml'],
		['MT940', 'auto', 'mt940', 'entry', 'SAMPLE-mt940-statement.sta'],
		['MT942', 'auto', 'mt942', 'entry', 'SAMPLE-mt942-intraday.sta'],
		['ZZ', 'mt940', 'mt940', 'entry', 'SAMPLE-mt940-statement.sta'],
		['BAI2', 'auto', 'bai2', 'entry', 'SAMPLE-bai2-balance-report.bai'],
	])('Fetch Test Event with only new files of type %s (File Format %s): a sample %s file, parsed as the bank\'s would be, every item marked', async (fileType, chosen, format, kind, fileName) => {
		const b = bank();
		const waiting = put(b, fileType, Buffer.from('not read'), 'waiting');
		const h = fileTriggerHarness(b, { output: 'parse', fileTypes: fileTypesParameter(fileType), parseOptions: { format: chosen } });
		const items = (await h.pollManual())![0];
		expect(ofKind(items, kind).length).toBeGreaterThan(0);
		const [fileItem] = ofKind(items, 'file');
		expect(fileItem.json).toMatchObject({ parsed: true, fileName, fileReference: 'SAMPLE', fileType });
		expect(fileItem.binary?.data).toMatchObject({ fileName });
		// The same entries the parser makes of the sample's bytes.
		const parsed = await parseBankFileToArrays(await storedBytes(fileItem));
		expect(parsed.format.format).toBe(format);
		const withoutMarks = (item: INodeExecutionData): IDataObject => {
			const { sample: _sample, testEvent: _testEvent, ...rest } = parsedPart(item);
			return rest;
		};
		expect(ofKind(items, kind).map(withoutMarks)).toEqual(kind === 'entry' ? parsed.entries : parsed.paymentStatuses);
		for (const item of items) expect(item.json).toMatchObject({ sample: true, testEvent: expect.stringMatching(new RegExp(`is still new \\(the newest is ${waiting}\\)`)) });
		expect(statusOf(b, waiting)).toBe('NEW');
		expect(downloads(b)).toHaveLength(0);
	});

	it('a Parse Options value that is not offered fails before anything is listed, naming the field', async () => {
		const h = fileTriggerHarness(bank(), { output: 'parse', parseOptions: { split: 'line' } });
		await expect(h.poll()).rejects.toThrow('Item Per: "line" is not one of entry, transaction');
	});
});
