import { DateTime } from 'luxon';

import { dayProperties, readDay } from '../../nodes/shared/common/properties';

/** The day fields' notice pattern, as n8n tries it (the hide rule of `dayProperties`). */
function noticePattern(): RegExp {
	const [, notice] = dayProperties({ displayName: 'Start Date', name: 'startDate', description: '' });
	const rules = notice.displayOptions!.hide!.startDate as Array<string | { _cnd: { regex?: string } }>;
	const regex = rules.find((r): r is { _cnd: { regex: string } } => typeof r === 'object' && !!r._cnd.regex)!;
	return new RegExp(regex._cnd.regex);
}

describe('readDay: one reading of a day field for EBICS, List Files and the FX nodes', () => {
	test.each([
		['2026-01-31', '2026-01-31'],
		['  2026-01-31 ', '2026-01-31'],
		['2026-01-31T00:00:00', '2026-01-31'],
		['2026-01-31T10:15:00.000+02:00', '2026-01-31'],
		['2026-01-31 10:15', '2026-01-31'],
	])('%j is the day %s', (value, day) => {
		expect(readDay(value)).toEqual({ day });
		expect(noticePattern().test(value)).toBe(true);
	});

	test.each(['2026-01-31,', '2026-01-05 to 2026-01-09', '31.01.2026', '2026-1-31', '-2026-01-31', 'yesterday', '20260131'])(
		'%j is refused as not written YYYY-MM-DD, and its notice shows',
		(value) => {
			expect(readDay(value)).toEqual({ problem: 'format', text: value.trim() });
			expect(noticePattern().test(value)).toBe(false);
		},
	);

	test.each(['2026-13-01', '2026-11-31', '2026-02-29', '2026-00-10'])('%s is refused as no day of the calendar, never moved to another day', (value) => {
		expect(readDay(value)).toEqual({ problem: 'calendar', text: value, day: value });
	});

	test('empty values are empty; a date object is its day in the given zone', () => {
		expect(readDay('')).toEqual({ problem: 'empty' });
		expect(readDay('   ')).toEqual({ problem: 'empty' });
		expect(readDay(undefined)).toEqual({ problem: 'empty' });
		expect(readDay(new Date(Number.NaN))).toEqual({ problem: 'empty' });
		const lateEvening = new Date('2026-01-31T23:30:00Z');
		expect(readDay(lateEvening, 'UTC')).toEqual({ day: '2026-01-31' });
		expect(readDay(lateEvening, 'Europe/Helsinki')).toEqual({ day: '2026-02-01' });
		expect(readDay(DateTime.fromISO('2026-03-05T08:00:00', { zone: 'utc' }))).toEqual({ day: '2026-03-05' });
	});
});
