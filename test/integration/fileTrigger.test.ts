/**
 * Bank File Trigger against the sandbox bank through n8n's polling engine: every file that
 * arrives is emitted exactly once, across restarts, crashes between the download and the
 * hand-over, and a bank failing in the middle of a poll.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import * as downloadModule from '../../nodes/shared/bxd/node/bankFiles';
import { FileMemory } from '../../nodes/BankFileTrigger/files/state';
import type { PollHarness } from '../harness/poll';
import { useSandbox } from '../helpers/bank';
import { arrive, emittedReferences, fileTriggerHarness, fileTypesParameter, storedBytes } from '../helpers/fileTrigger';
import type { SandboxBank } from '../sandbox';
import type { FaultSpec } from '../sandbox/types';

const sandbox = useSandbox({ seed: 42 });
const bank = (): SandboxBank => sandbox.bank();

const downloads = (b: SandboxBank) => b.stats.soapCalls.filter((c) => c.operation === 'downloadFile');
const statusOf = (b: SandboxBank, reference: string) => b.files.list().find((f) => f.fileReference === reference)?.status;
const newXt = (b: SandboxBank) => b.files.list().filter((f) => f.fileType === 'XT' && f.status === 'NEW').map((f) => f.fileReference);
const handedOutXt = (b: SandboxBank) => b.files.list().filter((f) => f.fileType === 'XT' && f.status !== 'NEW').map((f) => f.fileReference);

/** Every reference at most once: the list of those emitted more than once. */
function repeated(references: string[]): string[] {
	return references.filter((r, i) => references.indexOf(r) !== i);
}

/** Starts the trigger: the activation poll notes the baseline, downloads nothing and emits nothing. */
async function started(parameters = {}): Promise<PollHarness> {
	const h = fileTriggerHarness(bank(), parameters);
	expect(await h.poll()).toBeNull();
	expect(downloads(bank())).toHaveLength(0);
	expect(h.saves).toBe(1);
	return h;
}

let spies: jest.SpyInstance[] = [];
afterEach(() => {
	for (const spy of spies) spy.mockRestore();
	spies = [];
});

describe('exactly once', () => {
	it('30 files arriving over 10 polls, with two restarts, are each emitted once with their content; files handed out before the start never are', async () => {
		const b = bank();
		const before = handedOutXt(b);
		const waiting = newXt(b);
		expect(before.length).toBeGreaterThan(0);
		expect(waiting.length).toBeGreaterThan(0);
		let h = await started();

		const arrived: string[] = [];
		for (let poll = 1; poll <= 10; poll++) {
			arrived.push(...arrive(b, 3).map((f) => f.fileReference));
			if (poll === 4 || poll === 8) h = h.reload(); // n8n restarted from its saved state
			const result = await h.poll();
			expect(result).not.toBeNull();
			const items = result![0];
			expect(items.length).toBe(poll === 1 ? waiting.length + 3 : 3);
			for (const item of items) {
				expect(item.json.recovered).toBe(false);
				const stored = b.files.get(String(item.json.fileReference))!;
				expect(item.binary?.data).toMatchObject({ fileName: stored.descriptor.userFilename, mimeType: 'application/xml' });
				expect(item.json).toMatchObject({ fileType: 'XT', responseCode: '00', fileSize: stored.content.length });
			}
			// The references are saved with the hand-over.
			expect(h.savedNodeStaticData().emitted).toEqual(expect.arrayContaining(items.map((i) => i.json.fileReference)));
		}
		expect(await h.poll()).toBeNull();
		const all = [...new Set([...waiting, ...arrived])];
		// Across the three harnesses (the first two were replaced by restarts) nothing was emitted twice.
		const emitted = h.savedNodeStaticData().emitted as string[];
		expect(repeated(emitted)).toEqual([]);
		expect([...emitted].sort()).toEqual([...all].sort());
		for (const reference of before) expect(emitted).not.toContain(reference);
		expect(downloads(b).length).toBe(all.length);
		for (const reference of all) expect(statusOf(b, reference)).toBe('DLD');
	});

	it('emits oldest first, at most Max Files per Poll, and the rest with the next polls', async () => {
		const b = bank();
		const h = await started({ maxFilesPerPoll: 4 });
		const waiting = newXt(b);
		const arrived = arrive(b, 7).map((f) => f.fileReference);
		const due = [...waiting, ...arrived];
		const seen: string[] = [];
		for (;;) {
			const result = await h.poll();
			if (!result) break;
			expect(result[0].length).toBeLessThanOrEqual(4);
			seen.push(...result[0].map((i) => String(i.json.fileReference)));
		}
		expect(seen).toEqual(due);
	});

	it('a file another program downloaded after the start is still emitted once (it cannot be told from one lost in a crash)', async () => {
		const b = bank();
		const h = await started();
		await h.poll();
		const [file] = arrive(b, 1);
		(b.files as unknown as { markDownloaded(ref: string, when: Date): void }).markDownloaded(file.fileReference, new Date());
		const result = await h.poll();
		expect(result![0].map((i) => [i.json.fileReference, i.json.recovered])).toEqual([[file.fileReference, true]]);
		expect(await h.poll()).toBeNull();
	});
});

describe('a crash between the download and the hand-over loses nothing', () => {
	function crashBeforeHandOver(): void {
		const save = FileMemory.prototype.save;
		const spy = jest.spyOn(FileMemory.prototype, 'save').mockImplementation(function (this: FileMemory, listed) {
			// Only the poll that downloaded files: the crash comes after them and before the items are handed over.
			if (downloads(bank()).length > 0 && spy.mock.calls.length === 1) throw new Error('process died');
			return save.call(this, listed);
		});
		spies.push(spy);
	}

	it('the poll throws after downloading: the files, marked as downloaded at the bank, come with the next poll, once', async () => {
		const b = bank();
		const h = await started({ fileTypes: fileTypesParameter('XP') });
		await h.poll(); // the sandbox's own new status reports
		const files = arrive(b, 3, 'XP').map((f) => f.fileReference);
		crashBeforeHandOver();
		await expect(h.poll()).rejects.toThrow('process died');
		for (const reference of files) expect(statusOf(b, reference)).toBe('DLD');

		const result = await h.poll();
		expect(result![0].map((i) => [i.json.fileReference, i.json.recovered])).toEqual(files.map((f) => [f, true]));
		expect(result![0].every((i) => i.binary?.data)).toBe(true);
		expect(await h.poll()).toBeNull();
		expect(repeated(emittedReferences(h))).toEqual([]);
	});

	it('the process dies after downloading (n8n restarts from the saved state): the files come once after the restart', async () => {
		const b = bank();
		const h = await started();
		const waiting = newXt(b);
		const files = arrive(b, 3).map((f) => f.fileReference);
		crashBeforeHandOver();
		await expect(h.poll()).rejects.toThrow('process died');
		for (const reference of [...waiting, ...files]) expect(statusOf(b, reference)).toBe('DLD');

		const restarted = h.reload();
		const result = await restarted.poll();
		expect(result![0].map((i) => String(i.json.fileReference))).toEqual([...waiting, ...files]);
		expect(result![0].every((i) => i.json.recovered === true)).toBe(true);
		expect(await restarted.poll()).toBeNull();
		expect(restarted.reload().savedNodeStaticData().emitted).toEqual([...waiting, ...files]);
	});

	it('the process dies during the very first poll: it downloads nothing, so a restart starts again and loses nothing', async () => {
		const b = bank();
		const waiting = newXt(b);
		const h = fileTriggerHarness(b);
		spies.push(jest.spyOn(FileMemory.prototype, 'save').mockImplementationOnce(() => {
			throw new Error('process died');
		}));
		await expect(h.poll()).rejects.toThrow('process died');
		expect(downloads(b)).toHaveLength(0);
		const restarted = h.reload();
		expect(await restarted.poll()).toBeNull();
		const result = await restarted.poll();
		expect(result![0].map((i) => String(i.json.fileReference))).toEqual(waiting);
	});
});

describe('the bank failing in the middle of a poll loses nothing and repeats nothing', () => {
	/** Arms a fault of the bank just before the second download of the poll. */
	function failSecondDownload(fault: FaultSpec): void {
		const fetchFile = downloadModule.fetchFile;
		const spy = jest.spyOn(downloadModule, 'fetchFile').mockImplementation(async (...args) => {
			if (spy.mock.calls.length === 2) bank().faults.add(fault);
			return await fetchFile(...args);
		});
		spies.push(spy);
	}

	it.each<[string, FaultSpec, boolean]>([
		['a 503 SOAP fault after the bank marked the file', { kind: 'status', status: 503, phase: 'after', area: 'soap', count: 1 }, true],
		["a proxy's 502 page after the bank marked the file (three tries)", { kind: 'html', status: 502, phase: 'after', area: 'soap', count: 3 }, true],
		['a dropped connection after the bank marked the file (three tries)', { kind: 'drop', phase: 'after', area: 'soap', count: 3 }, true],
		['bxd code 26, technical error', { kind: 'soapResponseCode', responseCode: '26', area: 'soap', count: 1 }, false],
	])('%s', async (_label, fault, marked) => {
		const b = bank();
		const h = await started({ fileTypes: fileTypesParameter('XP') });
		await h.poll();
		const files = arrive(b, 3, 'XP').map((f) => f.fileReference);
		failSecondDownload(fault);

		const first = await h.poll();
		expect(first![0].map((i) => i.json.fileReference)).toEqual([files[0]]);
		expect(statusOf(b, files[1])).toBe(marked ? 'DLD' : 'NEW');
		expect(statusOf(b, files[2])).toBe('NEW');
		expect(h.logs.join('\n')).toMatch(new RegExp(`file ${files[1]} could not be fetched`));
		expect(h.savedNodeStaticData().emitted).toContain(files[0]);

		const second = await h.poll();
		expect(second![0].map((i) => [i.json.fileReference, i.json.recovered])).toEqual([
			[files[1], marked],
			[files[2], false],
		]);
		expect(await h.poll()).toBeNull();
		expect(repeated(emittedReferences(h))).toEqual([]);
	});

	it('a listing that fails ends the poll before anything is downloaded; the next poll delivers', async () => {
		const b = bank();
		const h = await started({ fileTypes: fileTypesParameter('XP') });
		await h.poll();
		const files = arrive(b, 2, 'XP').map((f) => f.fileReference);
		b.faults.add({ kind: 'status', status: 500, area: 'soap', count: 1 });
		const before = downloads(b).length;
		expect(await h.poll()).toBeNull();
		expect(downloads(b).length).toBe(before);
		expect(h.logs.join('\n')).toMatch(/listing the bank's files failed/);
		expect(emittedReferences(h).filter((r) => files.includes(r))).toEqual([]);
		expect((await h.poll())![0].map((i) => i.json.fileReference)).toEqual(files);
	});
});

describe('Fetch Test Event and reporting', () => {
	it('never downloads a new file: the newest file already handed out comes again with its content, and the new one is named', async () => {
		const b = bank();
		const h = await started();
		const handedOut = handedOutXt(b);
		const statusBefore = new Map(handedOut.map((reference) => [reference, statusOf(b, reference)]));
		const [file] = arrive(b, 1);
		const saved = h.savedNodeStaticData();
		const result = await h.pollManual();
		const [item] = result![0];
		expect(handedOut).toContain(item.json.fileReference);
		const stored = b.files.get(String(item.json.fileReference))!;
		expect(item.binary?.data).toMatchObject({ fileName: stored.descriptor.userFilename, mimeType: 'application/xml' });
		expect(item.json.sample).toBeUndefined();
		expect(String(item.json.testEvent)).toMatch(
			new RegExp(`already handed out, downloaded again \\(its status stays\\)\\. A newer file \\(${file.fileReference}\\) is still new at the bank: it is not downloaded here.*Nothing was marked as downloaded`),
		);
		expect(statusOf(b, file.fileReference)).toBe('NEW');
		expect(statusOf(b, String(item.json.fileReference))).toBe(statusBefore.get(String(item.json.fileReference)));
		expect(downloads(b)).toHaveLength(1);
		expect(h.savedNodeStaticData()).toEqual(saved);
		// The active trigger still gets the new one.
		expect((await h.poll())![0].map((i) => i.json.fileReference)).toContain(file.fileReference);
	});

	it('when every file of the type is still new, a sample file of that type, marked as a sample; nothing is downloaded', async () => {
		const b = bank();
		const waiting = b.files.put({ fileType: 'camt.054.001.02', content: Buffer.from('<Document/>'), status: 'NEW', userFilename: 'ntf.xml' }).fileReference;
		const h = fileTriggerHarness(b, { fileTypes: fileTypesParameter('camt.054.001.02') });
		const saved = h.savedNodeStaticData();
		const result = await h.pollManual();
		expect(result![0]).toHaveLength(1);
		const [item] = result![0];
		expect(item.json).toMatchObject({ sample: true, fileReference: 'SAMPLE', fileType: 'camt.054.001.02', fileName: 'SAMPLE-camt.054-notification.xml' });
		expect(item.binary?.data).toMatchObject({ fileName: 'SAMPLE-camt.054-notification.xml', mimeType: 'application/xml' });
		expect((await storedBytes(item)).toString('utf8')).toMatch(/Not a file from a bank[\s\S]*camt\.054\.001\.02/);
		expect(String(item.json.testEvent)).toMatch(
			new RegExp(`^A sample camt\\.054 debit/credit notification made by the node, not a file from the bank: every file of type camt\\.054\\.001\\.02 at the bank is still new \\(the newest is ${waiting}\\)`),
		);
		expect(statusOf(b, waiting)).toBe('NEW');
		expect(downloads(b)).toHaveLength(0);
		expect(h.savedNodeStaticData()).toEqual(saved);
	});

	it('an empty bank: a sample too, saying the bank has none of the type and which format the sample is', async () => {
		const h = fileTriggerHarness(bank(), { fileTypes: fileTypesParameter('XF') });
		const result = await h.pollManual();
		expect(result![0]).toHaveLength(1);
		const [item] = result![0];
		expect(item.json).toMatchObject({ sample: true, fileName: 'SAMPLE-camt.053-statement.xml' });
		expect(item.binary?.data).toBeDefined();
		expect(String(item.json.testEvent)).toMatch(/not a file from the bank: the bank has no files of type XF .*The node has no sample of type XF: this is a camt\.053 statement\./);
		expect(downloads(bank())).toHaveLength(0);
	});

	it('Descriptors Only: the newest file as the bank lists it, or one item saying there is none', async () => {
		const b = bank();
		const [file] = arrive(b, 1);
		const listed = await fileTriggerHarness(b, { output: 'report' }).pollManual();
		expect(listed![0][0].json).toMatchObject({ fileReference: file.fileReference });
		expect(listed![0][0].binary).toBeUndefined();
		const none = await fileTriggerHarness(b, { output: 'report', fileTypes: fileTypesParameter('XF') }).pollManual();
		expect(none![0][0].json).toMatchObject({ files: 0 });
		expect(String(none![0][0].json.testEvent)).toMatch(/No files of type XF at the bank/);
		expect(downloads(b)).toHaveLength(0);
	});

	it('Output "Descriptors Only" emits each new file once without downloading it', async () => {
		const b = bank();
		const h = await started({ output: 'report' });
		const waiting = newXt(b);
		const files = arrive(b, 2).map((f) => f.fileReference);
		const result = await h.poll();
		const items: INodeExecutionData[] = result![0];
		expect(items.map((i) => i.json.fileReference)).toEqual([...waiting, ...files]);
		expect(items.every((i) => i.binary === undefined && i.json.status === 'NEW')).toBe(true);
		expect(downloads(b)).toHaveLength(0);
		expect(await h.poll()).toBeNull();
		expect(await h.reload().poll()).toBeNull();
	});

	it('a credential without a Service URL fails the activation with the field to fix', async () => {
		const h = fileTriggerHarness(bank());
		const stored = h.credentials.get('files-1')!;
		h.credentials.set({ ...stored, data: { ...stored.data, url: '' } });
		await expect(h.poll()).rejects.toThrow(/Service URL: required/);
	});
});
