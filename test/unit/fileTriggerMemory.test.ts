import type { IDataObject } from 'n8n-workflow';

import { FileMemory } from '../../nodes/BankFileTrigger/files/state';

describe('Bank File Trigger memory', () => {
	it('writes nothing to static data before save()', () => {
		const data: IDataObject = { scope: 's', baseline: ['A'], baselineDay: '2026-11-20', coveredFrom: '2026-11-13', emitted: ['X'] };
		const before = structuredClone(data);
		const memory = new FileMemory(data, 100);
		memory.emitted('Y');
		memory.advance('2026-11-16');
		expect(data).toEqual(before);
		memory.save(new Set());
		expect(data).toMatchObject({ emitted: ['X', 'Y'], coveredFrom: '2026-11-16', baseline: ['A'] });
	});

	it('is started only for the scope it noted its baseline for', () => {
		const memory = new FileMemory({}, 100);
		expect(memory.startedFor('s')).toBe(false);
		memory.start('s', ['A'], '2026-11-20', '2026-11-13');
		expect(memory.startedFor('s')).toBe(true);
		expect(memory.startedFor('other')).toBe(false);
		expect(memory.inBaseline('A')).toBe(true);
	});

	it('the covered days never move back; the baseline is forgotten once no file of it can be listed', () => {
		const data: IDataObject = {};
		const memory = new FileMemory(data, 100);
		memory.start('s', ['A'], '2026-11-20', '2026-11-13');
		memory.advance('2026-11-10');
		expect(memory.firstCoveredDay).toBe('2026-11-13');
		memory.advance('2026-11-20');
		expect(memory.inBaseline('A')).toBe(true);
		memory.advance('2026-11-21');
		expect(memory.inBaseline('A')).toBe(false);
		memory.save(new Set());
		expect(data).toMatchObject({ baseline: [], coveredFrom: '2026-11-21' });
	});

	it('over the limit, forgets the oldest references the bank no longer lists first', () => {
		const data: IDataObject = { emitted: ['A', 'B', 'C', 'D'] };
		const memory = new FileMemory(data, 4);
		memory.emitted('E');
		memory.emitted('F');
		memory.save(new Set(['A', 'C', 'E', 'F']));
		expect(data.emitted).toEqual(['A', 'C', 'E', 'F']);
	});

	it('forgets the oldest listed references only when the listings alone exceed the limit', () => {
		const data: IDataObject = { emitted: ['A', 'B', 'C'] };
		const memory = new FileMemory(data, 2);
		memory.emitted('D');
		memory.save(new Set(['A', 'B', 'C', 'D']));
		expect(data.emitted).toEqual(['C', 'D']);
	});

	it('remembers a reference once', () => {
		const data: IDataObject = { emitted: ['A'] };
		const memory = new FileMemory(data, 10);
		memory.emitted('A');
		memory.emitted('B');
		memory.emitted('B');
		memory.save(new Set());
		expect(data.emitted).toEqual(['A', 'B']);
	});
});
