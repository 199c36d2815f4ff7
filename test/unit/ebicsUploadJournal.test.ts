/**
 * The EBICS upload journal's writes as the credential's preAuthentication returns them: only the
 * journal, the check field as it was and the request emptied; entries expire and are bounded.
 */
import { CorporateBankingEbicsApi } from '../../credentials/CorporateBankingEbicsApi.credentials';
import {
	EBICS_UPLOAD_JOURNAL_FIELD,
	EBICS_UPLOAD_JOURNAL_WRITE_FIELD,
	findUploadEntry,
	JOURNAL_DAYS,
	JOURNAL_SIZE,
	readUploadJournal,
	writeUploadJournal,
	type UploadJournalEntry,
} from '../../nodes/shared/ebics/journal/ebicsUploadJournal';

const NOW = new Date('2026-11-26T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;

function entry(n: number, at = NOW): UploadJournalEntry {
	return { owner: 'HOST/PARTNER/USER', order: 'BTU SCT pain.001', sha256: n.toString(16).padStart(64, '0'), orderId: `A${n}`, at: at.toISOString() };
}

function stored(entries: UploadJournalEntry[]): string {
	return JSON.stringify({ v: 1, entries });
}

test('a put returns the journal with the entry, the check field as it was and the request emptied, nothing else', () => {
	const out = writeUploadJournal('', { op: 'put', entry: entry(1), check: '2026-11-20T08:00:00.000Z' }, NOW);
	expect(out).toEqual({
		[EBICS_UPLOAD_JOURNAL_FIELD]: stored([entry(1)]),
		[EBICS_UPLOAD_JOURNAL_WRITE_FIELD]: '',
		ebicsCheck: '2026-11-20T08:00:00.000Z',
	});
});

test('a remove takes out only the entry of that subscriber, order and content; the last one leaves the field empty', () => {
	const other = { ...entry(1), order: 'BTU SDD COR pain.008' };
	const two = writeUploadJournal(stored([entry(1), other]), { op: 'remove', entry: entry(1), check: '' }, NOW);
	expect(readUploadJournal(two[EBICS_UPLOAD_JOURNAL_FIELD]).entries).toEqual([other]);
	const none = writeUploadJournal(stored([entry(1)]), { op: 'remove', entry: entry(1), check: '' }, NOW);
	expect(none[EBICS_UPLOAD_JOURNAL_FIELD]).toBe('');
});

test(`entries older than ${JOURNAL_DAYS} days are dropped, and at most ${JOURNAL_SIZE} kept (the newest)`, () => {
	const old = entry(0, new Date(NOW.getTime() - (JOURNAL_DAYS + 1) * DAY));
	const many = Array.from({ length: JOURNAL_SIZE + 5 }, (_, i) => entry(i + 1, new Date(NOW.getTime() - (JOURNAL_SIZE + 5 - i) * 60_000)));
	const out = writeUploadJournal(stored([old, ...many]), { op: 'put', entry: entry(999), check: '' }, NOW);
	const kept = readUploadJournal(out[EBICS_UPLOAD_JOURNAL_FIELD]).entries;
	expect(kept).toHaveLength(JOURNAL_SIZE);
	expect(kept[kept.length - 1]).toEqual(entry(999));
	expect(kept.map((e) => e.orderId)).not.toContain('A0');
	expect(kept[0].orderId).toBe('A7');
	expect(findUploadEntry(readUploadJournal(stored([old])), old.owner, old.order, old.sha256, NOW)).toBeUndefined();
});

test('a journal that cannot be read counts as empty; a broken entry is left out', () => {
	expect(readUploadJournal('{not json').entries).toEqual([]);
	expect(readUploadJournal(stored([entry(1), { ...entry(2), sha256: 'x' }])).entries).toEqual([entry(1)]);
});

test("the credential's preAuthentication stores a journal write without any request", async () => {
	const credential = new CorporateBankingEbicsApi();
	const httpRequest = jest.fn();
	const out = await credential.preAuthentication.call({ helpers: { httpRequest } } as never, {
		url: 'https://bank.invalid/ebics',
		[EBICS_UPLOAD_JOURNAL_FIELD]: '',
		[EBICS_UPLOAD_JOURNAL_WRITE_FIELD]: JSON.stringify({ op: 'put', entry: entry(1), check: 'kept' }),
		ebicsCheck: '',
	});
	expect(httpRequest).not.toHaveBeenCalled();
	expect(Object.keys(out).sort()).toEqual([EBICS_UPLOAD_JOURNAL_FIELD, EBICS_UPLOAD_JOURNAL_WRITE_FIELD, 'ebicsCheck'].sort());
	expect(out.ebicsCheck).toBe('kept');
	expect(readUploadJournal(out[EBICS_UPLOAD_JOURNAL_FIELD]).entries[0].orderId).toBe('A1');
});
