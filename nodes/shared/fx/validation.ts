import { DateTime } from 'luxon';

import { InputError } from '../common/errors';
import { readDay } from '../common/properties';

/** ISO 4217 active alphabetic currency codes (funds and precious-metal codes included). */
export const ISO_4217 = new Set(
	(
		'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
		'CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL ' +
		'GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD ' +
		'KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO ' +
		'NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD ' +
		'SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV ' +
		'WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA YER ZAR ZMW ZWG ZWL'
	).split(' '),
);

/** Tenors the bank accepts (REFERENCES: ON, TOM, TN, SP, SN, 1W-3W, 1M-11M, 15M, 18M, 1Y-5Y). */
export const TENORS: string[] = [
	'ON',
	'TOM',
	'TN',
	'SP',
	'SN',
	'1W',
	'2W',
	'3W',
	...Array.from({ length: 11 }, (_, i) => `${i + 1}M`),
	'15M',
	'18M',
	...Array.from({ length: 5 }, (_, i) => `${i + 1}Y`),
];

export const TENOR_NAMES: Record<string, string> = {
	ON: 'Overnight (ON)',
	TOM: 'Tomorrow (TOM)',
	TN: 'Tomorrow Next (TN)',
	SP: 'Spot (SP)',
	SN: 'Spot Next (SN)',
};

/**
 * A value as the user would recognise it in a message (JSON.stringify shows NaN and Infinity as
 * null).
 */
function shown(value: unknown): string {
	return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/** Decimal places of a number written in plain or exponent notation. */
function decimalPlaces(text: string): number {
	const match = /^[+-]?\d*(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text.trim());
	if (!match) return 0;
	return Math.max(0, (match[1]?.length ?? 0) - Number(match[2] ?? 0));
}

/** ISO 4217 minor units: currencies with no decimals, with three, and with four; two otherwise. */
const MINOR_UNITS: Record<string, number> = Object.fromEntries([
	...'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'
		.split(' ')
		.map((c) => [c, 0]),
	...'BHD IQD JOD KWD LYD OMR TND'.split(' ').map((c) => [c, 3]),
	...'CLF UYW'.split(' ').map((c) => [c, 4]),
]);

export function minorUnits(currency: string): number {
	return MINOR_UNITS[currency.toUpperCase()] ?? 2;
}

const NOTHING_SENT = 'Nothing was sent to the bank.';

/** What a check returned, or what it threw. */
function attempt<T>(run: () => T): { value: T } | { error: unknown } {
	try {
		return { value: run() };
	} catch (error) {
		return { error };
	}
}

export class FxValidator {
	/** What `check` found wrong so far, each saying "Field: rule". */
	private readonly problems: InputError[] = [];

	constructor(
		private readonly itemIndex: number,
		/** The workflow's time zone: a Date object is read as the calendar day it is there. */
		private readonly zone = 'UTC',
	) {}

	fail(field: string, rule: string): never {
		throw new InputError(`${field}: ${rule}`, {
			itemIndex: this.itemIndex,
			description: NOTHING_SENT,
		});
	}

	/**
	 * Runs the check of one field and keeps its problem instead of stopping: the value the check
	 * returns, or undefined when the field is wrong. `finish` then reports every problem at once.
	 */
	check<T>(run: () => T): T | undefined {
		const outcome = attempt(run);
		if ('value' in outcome) return outcome.value;
		if (!(outcome.error instanceof InputError)) throw outcome.error;
		this.problems.push(outcome.error);
		return undefined;
	}

	/**
	 * Throws one error naming every field `check` found wrong: a single problem as "Field: rule",
	 * several numbered in the message and one per line in the description.
	 */
	finish(): void {
		const each = this.problems.map((problem) => problem.message);
		if (!each.length) return;
		if (each.length === 1)
			throw new InputError(each[0], { itemIndex: this.itemIndex, description: NOTHING_SENT });
		throw new InputError(
			`${each.length} fields to fix: ${each.map((p, i) => `(${i + 1}) ${p}`).join(' ')}`,
			{ itemIndex: this.itemIndex, description: `${each.join('\n')}\n${NOTHING_SENT}` },
		);
	}

	/** A calendar date as YYYY-MM-DD from a date or date-time parameter value. */
	date(
		field: string,
		value: unknown,
		rules: { notFuture?: boolean; notPast?: boolean } = {},
	): string {
		const read = readDay(value, this.zone);
		if (read.problem) {
			if (read.problem === 'empty') this.fail(field, 'required, as a date such as 2025-01-31');
			if (read.problem === 'format')
				this.fail(field, `"${read.text}" is not a valid date (expected YYYY-MM-DD)`);
			this.fail(field, `"${read.day}" is not a real calendar date`);
		}
		const day = DateTime.fromISO(read.day, { zone: 'utc' });
		// "Today" is the workflow's today: late in the evening west of UTC it is not yet tomorrow.
		const today = DateTime.fromISO(DateTime.now().setZone(this.zone).toISODate() ?? '', {
			zone: 'utc',
		});
		if (rules.notFuture && day > today)
			this.fail(field, `${read.day} is in the future; it must be today or earlier`);
		if (rules.notPast && day < today)
			this.fail(field, `${read.day} is in the past; it must be today or later`);
		return read.day;
	}

	integer(field: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
		const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof n !== 'number' || !Number.isInteger(n))
			this.fail(field, `must be a whole number, got ${shown(value)}`);
		if (n < min || n > max) {
			this.fail(
				field,
				max === Number.MAX_SAFE_INTEGER
					? `must be at least ${min}, got ${n}`
					: `must be from ${min} to ${max}, got ${n}`,
			);
		}
		return n;
	}

	/**
	 * A positive amount, exactly as typed: a number, or text of digits with a point as the
	 * decimal separator. A sign, a comma, a space or more decimals than the currency has are
	 * refused, never rounded, clamped or read another way.
	 */
	positiveAmount(field: string, value: unknown, currency?: string): number {
		let n: number;
		let decimals: number;
		if (typeof value === 'number') {
			if (!Number.isFinite(value)) this.fail(field, `must be a number, got ${shown(value)}`);
			n = value;
			decimals = decimalPlaces(String(value));
		} else if (typeof value === 'string' && value.trim() !== '') {
			const text = value.trim();
			if (/^-/.test(text)) this.fail(field, `must be greater than zero, got ${text}`);
			if (text.includes(',')) {
				this.fail(
					field,
					`"${text}" uses a comma: write the amount with digits and a point as the decimal separator, such as 1500.50 (no thousands separators)`,
				);
			}
			if (!/^\+?\d+(\.\d+)?$/.test(text)) {
				this.fail(
					field,
					`"${text}" is not an amount: use digits and a point as the decimal separator, such as 1500.50`,
				);
			}
			n = Number(text);
			decimals = decimalPlaces(text);
		} else {
			this.fail(
				field,
				value === '' || value === undefined || value === null
					? 'required, an amount greater than zero such as 1500.50'
					: `must be a number, got ${shown(value)}`,
			);
		}
		if (n <= 0) this.fail(field, `must be greater than zero, got ${n}`);
		if (currency) {
			const allowed = minorUnits(currency);
			if (decimals > allowed) {
				this.fail(
					field,
					`${currency} amounts have ${allowed === 0 ? 'no decimals' : `at most ${allowed} decimal${allowed === 1 ? '' : 's'}`}, got ${shown(value)}`,
				);
			}
		}
		return n;
	}

	currency(field: string, value: unknown): string {
		const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
		if (!code) this.fail(field, 'required, an ISO 4217 currency code such as EUR');
		if (!ISO_4217.has(code))
			this.fail(field, `"${String(value)}" is not an ISO 4217 currency code`);
		return code;
	}

	oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
		const v = typeof value === 'string' ? value.trim().toUpperCase() : '';
		if (!allowed.includes(v as T))
			this.fail(field, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
		return v as T;
	}

	requiredText(field: string, value: unknown, maxLength = 256): string {
		const v =
			typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
		if (!v) this.fail(field, 'required');
		if (v.length > maxLength) this.fail(field, `must be at most ${maxLength} characters`);
		return v;
	}

	tradeId(field: string, value: unknown): string {
		const v = typeof value === 'string' ? value.trim() : '';
		if (v.length !== 12) this.fail(field, `must be exactly 12 characters, got ${v.length}`);
		if (!/^[A-Za-z0-9]+$/.test(v)) this.fail(field, 'may contain only letters and digits');
		return v;
	}

	/** Counterpart identifiers from a comma-separated string or a list. */
	counterparts(field: string, value: unknown): string[] {
		const raw = Array.isArray(value)
			? value.map(String)
			: typeof value === 'string'
				? value.split(',')
				: [];
		const list = raw.map((s) => s.trim()).filter(Boolean);
		for (const id of list) {
			if (!/^[A-Za-z0-9._\-/ ]{1,64}$/.test(id))
				this.fail(field, `"${id}" is not a counterpart identifier`);
		}
		return [...new Set(list)];
	}
}
