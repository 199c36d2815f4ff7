/**
 * EBICS Trigger against the sandbox EBICS bank through n8n's polling engine: every file the bank
 * delivers is emitted exactly once, across restarts, a crash between the download and the
 * hand-over, a receipt that never reached the bank, a bank that forgot the transaction and
 * downloads that fail in the middle; the positive receipt goes only with the poll after the
 * hand-over; the test event changes nothing at the bank.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { DownloadState } from '../../nodes/EbicsTrigger/downloads/state';
import { parseBankFileToArrays } from '../../nodes/shared/bankfiles';
import { useSandbox } from '../helpers/bank';
import { bankH004Hashes, ebicsSecrets, ebicsStore, ebicsValues } from '../helpers/ebicsNode';
import { storedBytes } from '../helpers/fileTrigger';
import { arrive, bankFiles, ebicsTriggerHarness, emittedDigests, PARTNER, receipts, repeated, sha256, USER, waiting } from '../helpers/ebicsTrigger';
import type { SandboxBank } from '../sandbox';

const sandbox = useSandbox({ seed: 42 });
const bank = (): SandboxBank => sandbox.bank();
const btdInitialisations = (b: SandboxBank) => b.ebics.records.filter((r) => r.orderType === 'BTD' && r.phase === 'Initialisation');

let spies: jest.SpyInstance[] = [];
afterEach(() => {
	for (const spy of spies) spy.mockRestore();
	spies = [];
});

const sorted = (values: string[]) => [...values].sort();

describe('exactly once, the receipt after the hand-over', () => {
	it('the activation poll emits every statement the bank has not delivered, once, with its content; the bank marks them delivered only with the next poll', async () => {
		const b = bank();
		const due = waiting(b);
		expect(due.length).toBe(5);
		const h = ebicsTriggerHarness(b);
		const result = await h.poll();
		const items = result![0];
		expect(sorted(items.map((i) => String(i.json.sha256)))).toEqual(sorted(due));
		for (const item of items) {
			const bytes = await storedBytes(item);
			expect(sha256(bytes)).toBe(item.json.sha256);
			expect(item.json).toMatchObject({ service: 'BTD EOP camt.053 ZIP', serviceName: 'EOP', msgName: 'camt.053', orderType: 'BTD', mimeType: 'application/xml', fileCount: 5 });
			expect(item.binary!.data.fileName).toMatch(/^camt053_.*\.xml$/);
		}
		// Handed over, remembered in the saved state, the receipt due: nothing is delivered yet.
		expect(receipts(b)).toEqual([]);
		expect(waiting(b)).toHaveLength(5);
		expect(h.savedNodeStaticData()).toMatchObject({ delivered: expect.arrayContaining(due), receipts: [{ transactionId: items[0].json.transactionId, service: 'BTD EOP camt.053 ZIP' }] });

		expect(await h.poll()).toBeNull();
		expect(receipts(b)).toEqual(['positive']);
		expect(waiting(b)).toEqual([]);
		expect(h.liveNodeStaticData().receipts).toEqual([]);
	});

	it('30 statements arriving over 10 polls, with two restarts, are each emitted once and delivered at the bank', async () => {
		const b = bank();
		const all = waiting(b);
		let h = ebicsTriggerHarness(b);
		const emitted: string[] = [];
		for (let poll = 1; poll <= 10; poll++) {
			if (poll > 1) all.push(...arrive(b, 3));
			if (poll === 4 || poll === 8) h = h.reload(); // n8n restarted from its saved state
			const result = await h.poll();
			expect(result).not.toBeNull();
			emitted.push(...result![0].map((i) => String(i.json.sha256)));
			expect(result![0]).toHaveLength(poll === 1 ? 5 : 3);
		}
		expect(await h.poll()).toBeNull();
		expect(repeated(emitted)).toEqual([]);
		expect(sorted(emitted)).toEqual(sorted(all));
		expect(waiting(b)).toEqual([]);
		expect(receipts(b).every((r) => r === 'positive')).toBe(true);
	});

	it('n8n killed after the download, before the hand-over: no receipt was sent, the bank delivers again, the restarted trigger emits each file once', async () => {
		const b = bank();
		const due = waiting(b);
		const h = ebicsTriggerHarness(b);
		// The process dies right before the items are handed over (nothing saved, nothing emitted).
		spies.push(jest.spyOn(DownloadState.prototype, 'save').mockImplementationOnce(() => { throw new Error('n8n was killed'); }));
		await expect(h.poll()).rejects.toThrow('n8n was killed');
		expect(btdInitialisations(b)).toHaveLength(1);
		expect(h.emitted).toHaveLength(0);
		expect(receipts(b)).toEqual([]);
		const restarted = h.reload();
		const result = await restarted.poll();
		expect(sorted(result![0].map((i) => String(i.json.sha256)))).toEqual(sorted(due));
		expect(await restarted.poll()).toBeNull();
		expect(repeated(emittedDigests(restarted))).toEqual([]);
		expect(waiting(b)).toEqual([]);
	});

	it('n8n killed after the hand-over, before the receipt: the restarted trigger sends the receipt and emits nothing again', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b);
		const first = await h.poll();
		expect(first![0]).toHaveLength(5);
		expect(waiting(b)).toHaveLength(5);
		const restarted = h.reload();
		expect(await restarted.poll()).toBeNull();
		expect(receipts(b)).toEqual(['positive']);
		expect(waiting(b)).toEqual([]);
		expect(await restarted.poll()).toBeNull();
	});

	it('the bank forgot the transaction before the receipt (a restart after its timeout): the receipt fails, the bank delivers the files again, they are recognised, not emitted again, and receipted at once', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b);
		const first = await h.poll();
		b.ebics.transactions.clear();
		expect(await h.poll()).toBeNull();
		expect(receipts(b)).toEqual(['091101', 'positive']);
		expect(waiting(b)).toEqual([]);
		expect(h.logs.join('\n')).toMatch(/did not go through.*091101[\s\S]*delivered 5 files again that were emitted before/);
		expect(h.emitted).toHaveLength(1);
		expect(first![0]).toHaveLength(5);
	});

	it('a redelivery mixed with a new statement: only the new one is emitted, and the whole download is receipted with the next poll', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b);
		await h.poll();
		b.ebics.transactions.clear();
		const [fresh] = arrive(b, 1);
		const result = await h.poll();
		expect(result![0].map((i) => i.json.sha256)).toEqual([fresh]);
		expect(waiting(b)).toHaveLength(6);
		expect(await h.poll()).toBeNull();
		expect(waiting(b)).toEqual([]);
		expect(repeated(emittedDigests(h))).toEqual([]);
	});

	it('files that cannot be kept get the negative receipt and come again; a download that fails leaves the others going', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b, { services: ['camt053', 'mt940'] });
		const camt = waiting(b);
		const mt940 = waiting(b, 'mt940');
		b.ebics.faults.push('truncateZip');
		const first = await h.poll();
		// camt.053 (ZIP) was cut off: negative receipt; MT940 (one file a download) came.
		expect(first![0].map((i) => i.json.sha256)).toEqual([mt940[0]]);
		expect(receipts(b)).toEqual(['negative']);
		expect(h.logs.join('\n')).toMatch(/BTD EOP camt\.053 ZIP: the data could not be opened.*negative receipt/);
		const second = await h.poll();
		expect(sorted(second![0].map((i) => String(i.json.sha256)))).toEqual(sorted([...camt, mt940[1]]));
		for (let i = 0; i < 6; i++) await h.poll();
		expect(repeated(emittedDigests(h))).toEqual([]);
		expect(sorted(emittedDigests(h))).toEqual(sorted([...camt, ...mt940]));
		expect(waiting(b)).toEqual([]);
		expect(waiting(b, 'mt940')).toEqual([]);
	});

	it('a damaged segment, the only one: logged, the negative receipt is sent (every segment came) and the next poll emits the files', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b);
		b.ebics.faults.push('damageSegment');
		expect(await h.poll()).toBeNull();
		expect(h.logs.join('\n')).toMatch(/BTD EOP camt\.053 ZIP: the download failed: Segment 1 of the order data is damaged: its OrderData is not base64.*n8n did not confirm it: the bank keeps the data/);
		expect(receipts(b)).toEqual(['negative']);
		const result = await h.poll();
		expect(result![0]).toHaveLength(5);
	});

	it('a download that broke off (a segment whose answer never comes): logged, no receipt is sent, and the next poll emits the files', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b);
		b.ebics.switches.segmentBytes = 300;
		b.ebics.faults.push(...Array.from({ length: 10 }, () => 'dropDownloadAnswer' as const));
		expect(await h.poll()).toBeNull();
		const dropped = b.ebics.records.filter((r) => r.dropped).length;
		b.ebics.faults.length = 0;
		expect(dropped).toBeGreaterThanOrEqual(3);
		expect(h.logs.join('\n')).toMatch(/BTD EOP camt\.053 ZIP: the download failed: BTD EOP camt\.053 ZIP transfer of segment 2 of \d+: no answer came, also not when the segment was sent again.*The transfer broke off at segment 2 of \d+, so n8n sent no receipt/);
		expect(b.ebics.records.filter((r) => r.phase === 'Receipt')).toEqual([]);
		const result = await h.poll();
		expect(result![0]).toHaveLength(5);
	});
});

describe('Parsed Entries', () => {
	it('each statement once, as its entries, its balanced statement and the file item with the binary', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b, { output: 'parse' });
		const result = await h.poll();
		const items = result![0];
		const fileItems = items.filter((i) => i.json.kind === 'file');
		expect(sorted(fileItems.map((i) => String(i.json.sha256)))).toEqual(sorted(waiting(b)));
		for (const file of fileItems) {
			expect(file.json).toMatchObject({ parsed: true, format: 'camt.053.001.02', statements: 1 });
			expect(file.binary!.data).toBeDefined();
			const entries = items.filter((i) => i.json.kind === 'entry' && i.json.sha256 === file.json.sha256);
			expect(entries.length).toBe(file.json.entries);
			expect(entries.length).toBeGreaterThan(0);
			const statement = items.find((i) => i.json.kind === 'statement' && i.json.sha256 === file.json.sha256)!;
			expect(statement.json.check).toBe('ok');
		}
		expect(await h.poll()).toBeNull();
		expect(waiting(b)).toEqual([]);
	});
});

describe('Parsed Entries of a BAI2 file', () => {
	it('a BAI2 balance report downloaded through a typed service comes as its entries and its checked account, through the same parser as the Bank File node', async () => {
		const b = bank();
		const content = readFileSync(join(__dirname, '..', 'fixtures', 'bankfiles', 'bai2', 'moj-svb_us_example.bai2'));
		b.ebics.addFile(PARTNER, USER, { serviceName: 'EOP', msgName: 'bai2', name: 'svb-20220202.bai', content });
		const h = ebicsTriggerHarness(b, { services: [], otherServices: { service: [{ serviceName: 'EOP', msgName: 'bai2' }] }, output: 'parse' });
		const items = (await h.poll())![0];
		const [file] = items.filter((i) => i.json.kind === 'file');
		expect(file.json).toMatchObject({ parsed: true, format: 'BAI2', entries: 2, statements: 2, sha256: sha256(content) });
		const expected = await parseBankFileToArrays(content);
		const parsedPart = (json: IDataObject): IDataObject => {
			const { kind: _kind, sha256: _sha, fileName: _name, recovered: _recovered, ...rest } = json;
			return rest;
		};
		expect(items.filter((i) => i.json.kind === 'entry').map((i) => parsedPart(i.json))).toEqual(expected.entries);
		expect(items.filter((i) => i.json.kind === 'statement').map((i) => parsedPart(i.json))).toEqual(expected.statements);
		// SVB's figures: 347,269.79 + 4,901.96 = 352,171.75 and 352,171.75 + 9,058.00 = 361,229.75.
		expect(items.filter((i) => i.json.kind === 'statement').map((i) => [i.json.periodFrom, i.json.closingBalance, i.json.check])).toEqual([
			['2022-02-01', 352171.75, 'ok'],
			['2022-02-02', 361229.75, 'ok'],
		]);
		expect(await h.poll()).toBeNull();
		expect(bankFiles(b, 'bai2').every((f) => f.delivered)).toBe(true);
	});
});

describe('Fetch Test Event', () => {
	it('shows the new files and hands them back with the negative receipt: the bank and the memory are as they were, the published workflow still gets them', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b);
		const test = await h.pollManual();
		expect(test![0]).toHaveLength(5);
		for (const item of test![0]) expect(item.json.testEvent).toMatch(/negative receipt.*No positive receipt was sent/);
		expect(receipts(b)).toEqual(['negative']);
		expect(waiting(b)).toHaveLength(5);
		expect(h.staticData()).toEqual({});
		const result = await h.poll();
		expect(result![0]).toHaveLength(5);
	});

	it('with nothing new at the bank: a sample statement made by the node, parsed with Parsed Entries, and nothing sent but the download', async () => {
		const b = bank();
		for (const f of bankFiles(b)) f.delivered = true;
		const h = ebicsTriggerHarness(b, { output: 'parse' });
		const test = (await h.pollManual())![0];
		expect(test.every((i) => i.json.sample === true)).toBe(true);
		expect(test.at(-1)!.json).toMatchObject({ kind: 'file', parsed: true, format: 'camt.053.001.02', fileReference: 'SAMPLE' });
		expect(test[0].json.testEvent).toMatch(/A sample camt\.053 account statement made by the node.*no new data for BTD EOP camt\.053 ZIP/);
		expect(receipts(b)).toEqual([]);
	});
});

describe('parameters', () => {
	it('no service: refused naming the field, before anything is sent', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b, { services: [] });
		await expect(h.poll()).rejects.toThrow(/Services: choose at least one service/);
		expect(btdInitialisations(b)).toHaveLength(0);
	});

	it('a typed service with a bad ServiceName: refused naming the service and the field, before anything is sent', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b, { services: [], otherServices: { service: [{ serviceName: 'TOOLONG', msgName: 'camt.053' }] } });
		await expect(h.poll()).rejects.toThrow(/Other Services 1: .*Service ?Name/i);
		expect(btdInitialisations(b)).toHaveLength(0);
	});

	it('a typed service downloads like a preset', async () => {
		const b = bank();
		const h = ebicsTriggerHarness(b, { services: [], otherServices: { service: [{ serviceName: 'STM', msgName: 'camt.052', container: 'ZIP' }] } });
		const result = await h.poll();
		expect(sorted(result![0].map((i) => String(i.json.sha256)))).toEqual(sorted(waiting(b, 'camt.052', 'STM')));
	});
});

describe('secrets', () => {
	it('no private key of the subscriber is in any item, static data, test event, error or log line of the trigger', async () => {
		const b = bank();
		const store = ebicsStore(ebicsValues(b));
		const h = ebicsTriggerHarness(b, { services: ['camt053', 'mt940'], output: 'parse' }, store);
		const test = await h.pollManual();
		await h.poll();
		b.ebics.faults.push('damageSegment');
		await h.poll();
		const bad = ebicsTriggerHarness(b, { services: [], otherServices: { service: [{ serviceName: 'TOOLONG', msgName: 'x' }] } }, store);
		const error = await bad.poll().catch((e: Error & { description?: string }) => `${e.message}\n${e.description ?? ''}`);
		const texts = [
			{ where: 'items', text: JSON.stringify([h.emitted, test]) },
			{ where: 'static data', text: JSON.stringify(h.staticData()) },
			{ where: 'logs', text: [...h.logs, ...bad.logs].join('\n') },
			{ where: 'error', text: String(error) },
		];
		expect(h.logs.join('\n')).toMatch(/the download failed/);
		expect(ebicsSecrets(b, store).scan(texts)).toEqual([]);
	});
});

describe('an EBICS 2.5 (H004) credential', () => {
	const h004Store = (b: SandboxBank) => ebicsStore(ebicsValues(b, 'PARTNER2', 'READY1', { ebicsVersion: 'H004', ...bankH004Hashes(b) }));
	const h004Records = (b: SandboxBank, from: number) => b.ebics.records.slice(from).filter((r) => r.phase === 'Initialisation').map((r) => `${r.protocol ?? 'H005'} ${r.orderType}`);

	it('polls each preset as its EBICS 2.5 order type (C53), emits each file once, and sends the receipt with the next poll', async () => {
		const b = bank();
		const due = waiting(b);
		const before = b.ebics.records.length;
		const h = ebicsTriggerHarness(b, {}, h004Store(b));
		const items = (await h.poll())![0];
		expect(sorted(items.map((i) => String(i.json.sha256)))).toEqual(sorted(due));
		expect(items[0].json).toMatchObject({ service: 'C53 (End-of-day statement camt.053)', orderType: 'C53', fileCount: 5 });
		expect(h004Records(b, before)).toEqual(['H004 C53']);
		expect(receipts(b)).toEqual([]);
		expect(waiting(b)).toHaveLength(5);
		const more = arrive(b, 2);
		const next = (await h.poll())![0];
		expect(sorted(next.map((i) => String(i.json.sha256)))).toEqual(sorted(more));
		expect(receipts(b)).toEqual(['positive']);
		expect(await h.poll()).toBeNull();
		expect(waiting(b)).toEqual([]);
		expect(h004Records(b, before).every((r) => r.startsWith('H004 '))).toBe(true);
	});

	it('watches the order types typed under Order Types (STA: the MT940 statements, one file per download)', async () => {
		const b = bank();
		const due = waiting(b, 'mt940', 'EOP');
		expect(due.length).toBeGreaterThan(1);
		const before = b.ebics.records.length;
		const h = ebicsTriggerHarness(b, { services: [], h004OrderTypes: ' STA, ' }, h004Store(b));
		const emitted: string[] = [];
		for (let poll = 0; poll <= due.length; poll++) {
			const result = await h.poll();
			if (!result) break;
			expect(result[0]).toHaveLength(1);
			expect(result[0][0].json).toMatchObject({ service: 'STA (End-of-day statement MT940)', orderType: 'STA', fileName: 'mt940.txt' });
			emitted.push(String(result[0][0].json.sha256));
		}
		expect(sorted(emitted)).toEqual(sorted(due));
		expect(waiting(b, 'mt940', 'EOP')).toEqual([]);
		expect(new Set(h004Records(b, before))).toEqual(new Set(['H004 STA']));
	});

	it.each([
		['a preset without an EBICS 2.5 order type', { services: ['pain002'] }, /^Services: Payment status report .* has no EBICS 2\.5 order type common to all banks.*under Order Types/],
		['a typed BTF service', { otherServices: { service: [{ serviceName: 'STM', msgName: 'camt.052' }] } }, /^Other Services: BTF services are EBICS 3\.0, and the credential's EBICS Version is H004/],
		['an order type in lower case', { h004OrderTypes: 'crz' }, /^Order Types: "crz" is not an order type: three upper-case letters or digits/],
	])('%s: refused by name, nothing sent', async (_what, parameters, message) => {
		const b = bank();
		const before = b.ebics.records.length;
		const h = ebicsTriggerHarness(b, parameters, h004Store(b));
		await expect(h.poll()).rejects.toThrow(message);
		expect(b.ebics.records.slice(before)).toEqual([]);
	});

	it('EBICS 2.5 order types with an EBICS 3.0 credential: refused by name, nothing sent', async () => {
		const b = bank();
		const before = b.ebics.records.length;
		const h = ebicsTriggerHarness(b, { h004OrderTypes: 'CRZ' });
		await expect(h.poll()).rejects.toThrow(/^Order Types: these are for credentials whose EBICS Version is H004/);
		expect(b.ebics.records.slice(before)).toEqual([]);
	});
});
