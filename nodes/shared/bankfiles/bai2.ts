/**
 * BAI2: the balance and transaction reports of US (and Canadian) banks, "Cash Management Balance
 * Reporting Specifications, Version 2" (BAI, 2005). Comma-separated records, one per line (or
 * fixed-length records of the length the file header gives), each ending with "/" unless it ends
 * in text:
 *
 *   01 file header     sender, receiver, creation date and time, file ID, record length, version 2
 *   02 group header    ultimate receiver, originator (the bank), group status, as-of date and
 *                      time, currency (default USD), as-of-date modifier
 *   03 account         account number, currency (default: the group's), then any number of
 *                      type code, amount, item count, funds type: balances (status codes 001-099)
 *                      and activity summaries (credits 100-399, debits 400-699)
 *   16 detail          type code, amount, funds type, bank reference, customer reference, text
 *   88 continuation    the record before continued: its next fields, or more of its text
 *   49 account trailer control total (the sum of every amount of the account), record count
 *   98 group trailer   control total, number of accounts, record count
 *   99 file trailer    control total, number of groups, record count
 *
 * Amounts are whole numbers in the currency's minor units (ISO 4217: cents for USD). Every
 * trailer's control total and record count is checked; a file whose figures do not add up is
 * refused, naming the trailer, its line and both numbers. An account is one statement: its
 * entries (the 16 records) are handed over with it once its trailer is read and checked.
 */
import { fromUnits, minorToUnits, minorUnits } from './amounts';
import type { TypeCodeInfo } from './bai2Codes';
import { typeCodeInfo } from './bai2Codes';
import { isValidBic, isValidIban, normalizeIban } from './checks';
import { BankFileError } from './errors';
import type { StatementContext } from './items';
import { contextOf, entryOf, NO_PAYMENT_FACTS, statementKeyOf } from './items';
import type { RecordReader } from './records';
import { notYetCounted, skipOrFail } from './records';
import { ownString } from './xml';
import type {
	Bai2Report,
	Bai2Summary,
	BalanceInfo,
	BankEntry,
	DetectedFormat,
	FundsAvailability,
	ParseEvent,
	ParseOptions,
	StatementSummary,
} from './types';

/** One physical record: its text (the record code included) and its line. */
interface Piece {
	text: string;
	line: number;
	/** The record fills its physical record: text it ends with runs on into the next one. */
	full: boolean;
}

/** A logical record: a physical record and the continuation records (88) after it. */
interface LogicalRecord {
	code: string;
	pieces: Piece[];
}

interface FileState {
	line: number;
	senderId: string;
	receiverId: string;
	created: string | null;
	fileId: string;
	/** Physical records counted so far, this file's header included. */
	records: number;
	groups: number;
	/** The sum of the group trailers' control totals, in minor units. */
	total: number;
}

interface GroupState {
	line: number;
	originatorId: string;
	ultimateReceiverId: string | null;
	groupStatus: Bai2Report['groupStatus'];
	asOfDate: string;
	asOfTime: string | null;
	asOfDateModifier: Bai2Report['asOfDateModifier'];
	/** The modifier's digit and the as-of time's digits, for the statement ID. */
	modifierCode: string;
	timeCode: string;
	currency: string;
	records: number;
	accounts: number;
	total: number;
}

interface AccountState {
	line: number;
	number: string;
	currency: string;
	digits: number;
	summary: StatementSummary;
	report: Bai2Report;
	context: StatementContext;
	skipped: boolean;
	entries: BankEntry[];
	records: number;
	/** The sum of every amount of the account's records, in minor units. */
	total: number;
	/** Signed detail amounts booked, credits and debits, in units of 10^-5. */
	bookedUnits: number;
	creditUnits: number;
	debitUnits: number;
	problems: number;
	/** What the account trailer's figures did not match (read on with a warning). */
	notes: string[];
	/** Activity summaries 100 (total credits) and 400 (total debits), in minor units. */
	totalCredits: number | null;
	totalDebits: number | null;
}

/** The length of most BAI2 physical records: text that fills one may break a word. */
const USUAL_RECORD_LENGTH = 80;

const GROUP_STATUS: Record<string, Bai2Report['groupStatus']> = {
	'1': 'update',
	'2': 'deletion',
	'3': 'correction',
	'4': 'testOnly',
};

const MODIFIERS: Record<string, NonNullable<Bai2Report['asOfDateModifier']>> = {
	'1': 'interimPreviousDay',
	'2': 'finalPreviousDay',
	'3': 'interimSameDay',
	'4': 'finalSameDay',
};

const AVAILABILITY: Record<FundsAvailability['type'], FundsAvailability['availability']> = {
	'0': 'immediate',
	'1': 'oneDay',
	'2': 'twoOrMoreDays',
	S: 'distributed',
	V: 'valueDated',
	D: 'distributed',
	Z: 'unknown',
};

/** BAI2 status codes with an ISO 20022 balance type of the same meaning. */
const ISO_BALANCE: Record<string, string> = {
	'010': 'OPBD',
	'015': 'CLBD',
	'030': 'ITBD',
	'040': 'OPAV',
	'045': 'CLAV',
	'060': 'ITAV',
};

const RECORD_NAMES: Record<string, string> = {
	'01': 'file header (01)',
	'02': 'group header (02)',
	'03': 'account identifier (03)',
	'16': 'transaction detail (16)',
	'49': 'account trailer (49)',
	'88': 'continuation (88)',
	'98': 'group trailer (98)',
	'99': 'file trailer (99)',
};

const where = (line: number): string => `line ${line}`;

/** Days in a month of a year (Gregorian). */
function daysIn(year: number, month: number): number {
	if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
	return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** YYMMDD as an ISO date (years 80-99 are 19xx), or undefined when it is no date. */
function dateOf(value: string): string | undefined {
	if (!/^\d{6}$/.test(value)) return undefined;
	const yy = Number(value.slice(0, 2));
	const year = yy + (yy >= 80 ? 1900 : 2000);
	const month = Number(value.slice(2, 4));
	const day = Number(value.slice(4, 6));
	if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
	return `${year}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
}

/**
 * A military time (HHMM; some banks write HH:MM:SS) as HH:MM; 2400 and 9999 mean the end of the
 * day: 24:00. Null when defaulted or not a time.
 */
function timeOf(value: string): string | null {
	if (value === '9999' || value === '2400') return '24:00';
	const match = /^(\d{2}):?(\d{2})(?::?\d{2})?$/.exec(value);
	if (!match || Number(match[1]) > 23 || Number(match[2]) > 59) return null;
	return `${match[1]}:${match[2]}`;
}

/** A date and a time as an ISO local date-time (the end of the day as 23:59:59); without a time, the date. */
function dateTimeOf(date: string, time: string | null): string {
	if (!time) return date;
	return time === '24:00' ? `${date}T23:59:59` : `${date}T${time}:00`;
}

/** Runs of white space, or white space that is not a plain space. */
const UNTIDY = /\s\s|[\t\n\r\f\v]/;

/** Text with its runs of white space made single spaces, trimmed; null when nothing is left. */
function cleanText(value: string): string | null {
	const text = (UNTIDY.test(value) ? value.replace(/\s+/g, ' ') : value).trim();
	return text ? ownString(text) : null;
}

/** A piece of a record without the "/" that may end it and the blanks around it. */
function withoutEnd(value: string): string {
	const text = value.trimEnd();
	return text.endsWith('/') ? text.slice(0, -1).trimEnd() : text;
}

/** What a physical record holds after its record code and comma ("16,115,..." gives "115,..."). */
const bodyOf = (piece: Piece): string => piece.text.slice(3);

/**
 * The fields of a record without text (01, 02, 03, 49, 98, 99) and its continuations: each
 * physical record ends at its "/" (what follows is padding); the continuation goes on with the
 * next field.
 */
function plainFields(record: LogicalRecord): string[] {
	return fieldsAndEnds(record).fields;
}

/** The fields of a record without text, and the index after each physical record's last field. */
function fieldsAndEnds(record: LogicalRecord): { fields: string[]; ends: number[] } {
	const fields: string[] = [];
	const ends: number[] = [];
	for (const piece of record.pieces) {
		let body = bodyOf(piece);
		const slash = body.indexOf('/');
		if (slash !== -1) {
			const after = body.slice(slash + 1);
			if (/^\s*\d{2},/.test(after))
				throw new BankFileError(
					'INVALID_RECORD',
					`The line holds another record after the end ("/") of its ${RECORD_NAMES[record.code] ?? `record ${record.code}`}: ${JSON.stringify(after.trim().slice(0, 30))}; BAI2 files have one record per line`,
					where(piece.line),
				);
			body = body.slice(0, slash);
		}
		for (const field of body.split(',')) fields.push(field.trim());
		ends.push(fields.length);
	}
	return { fields, ends };
}

/** A whole number, signed or not ("+4350000", "-500000", "00"); undefined when it is none. */
function integerOf(value: string): number | undefined {
	if (!/^[+-]?\d+$/.test(value)) return undefined;
	const number = Number(value);
	return Number.isSafeInteger(number) ? number : undefined;
}

/** The funds type at `at` and the fields it takes, or the reason it cannot be read. */
function fundsAt(
	fields: string[],
	at: number,
	toAmount: (minor: number) => number,
): { funds: FundsAvailability | null; next: number } | string {
	const type = (fields[at] ?? '').toUpperCase();
	if (!type) return { funds: null, next: at + 1 };
	const funds = (
		valueDate: string | null,
		valueTime: string | null,
		distribution: FundsAvailability['distribution'],
	): FundsAvailability => ({
		type: type as FundsAvailability['type'],
		availability: AVAILABILITY[type as FundsAvailability['type']],
		valueDate,
		valueTime,
		distribution,
	});
	/** An availability amount: signed, defaulted means zero. */
	const amount = (value: string | undefined): number | undefined =>
		!value ? 0 : integerOf(value) === undefined ? undefined : toAmount(integerOf(value)!);
	switch (type) {
		case '0':
		case '1':
		case '2':
		case 'Z':
			return { funds: funds(null, null, null), next: at + 1 };
		case 'V': {
			const date = dateOf(fields[at + 1] ?? '');
			if (!date)
				return `the value date of funds type V, ${JSON.stringify(fields[at + 1] ?? '')}, is not a date YYMMDD`;
			return { funds: funds(date, timeOf(fields[at + 2] ?? ''), null), next: at + 3 };
		}
		case 'S': {
			const amounts = [1, 2, 3].map((i) => amount(fields[at + i]));
			if (amounts.some((a) => a === undefined))
				return `the availability amounts of funds type S, ${fields.slice(at + 1, at + 4).join(',')}, are not whole numbers`;
			return {
				funds: funds(
					null,
					null,
					amounts.map((a, days) => ({ days, amount: a! })),
				),
				next: at + 4,
			};
		}
		case 'D': {
			const count = Number(fields[at + 1]);
			if (!/^\d+$/.test(fields[at + 1] ?? ''))
				return `the number of distributions of funds type D, ${JSON.stringify(fields[at + 1] ?? '')}, is not a whole number`;
			const distribution: Array<{ days: number; amount: number }> = [];
			for (let i = 0; i < count; i++) {
				const days = fields[at + 2 + 2 * i] ?? '';
				const value = amount(fields[at + 3 + 2 * i]);
				if (!/^\d+$/.test(days) || value === undefined)
					return `distribution ${i + 1} of ${count} of funds type D, ${JSON.stringify(`${days},${fields[at + 3 + 2 * i] ?? ''}`)}, is not a number of days and an amount`;
				distribution.push({ days: Number(days), amount: value });
			}
			return { funds: funds(null, null, distribution), next: at + 2 + 2 * count };
		}
		default:
			return `the funds type ${JSON.stringify(fields[at])} is not one of 0, 1, 2, S, V, D, Z`;
	}
}

/** How many fields a funds type takes, from the fields read so far (at least 1). */
function fundsWidth(fields: string[], at: number): number {
	const type = (fields[at] ?? '').toUpperCase();
	if (type === 'V') return 3;
	if (type === 'S') return 4;
	if (type === 'D') {
		const count = fields[at + 1];
		return count !== undefined && /^\d+$/.test(count) ? 2 + 2 * Number(count) : 2;
	}
	return 1;
}

/**
 * A transaction detail (16) and its continuations: the fields up to the customer reference, then
 * the text, which runs to the end of the logical record (it may hold commas and slashes). A
 * physical record ending before the text ends at "/"; the next continuation goes on with the next
 * field. Text continued in an 88 record is joined with a space, unless the record before filled its
 * physical record (then a word may have been cut).
 */
function detailFields(record: LogicalRecord): { fields: string[]; text: string | null } {
	// Type code, amount, funds type (and its fields), bank reference, customer reference.
	const fields: string[] = [];
	const needed = (): number => 2 + (fields.length > 2 ? fundsWidth(fields, 2) : 1) + 2;
	let text: string | null = null;
	let previous: Piece | undefined;
	for (const piece of record.pieces) {
		const body = bodyOf(piece);
		if (text !== null) {
			const part = withoutEnd(body);
			const gap = text && previous && !previous.full && part ? ' ' : '';
			text += gap + part;
			previous = piece;
			continue;
		}
		let rest: string | null = body;
		while (rest !== null && fields.length < needed()) {
			const comma = rest.indexOf(',');
			if (comma === -1) {
				// The piece ends within the fields: at its "/", the rest of the record follows.
				fields.push(withoutEnd(rest).trim());
				rest = null;
			} else {
				fields.push(rest.slice(0, comma).trim());
				rest = rest.slice(comma + 1);
			}
		}
		if (rest !== null) text = withoutEnd(rest);
		previous = piece;
	}
	return { fields, text };
}

/**
 * BAI2: one statement per account (03 ... 49), its entries (16) with it once its trailer is read;
 * every trailer's control total and record count checked.
 */
export function bai2Reader(
	format: DetectedFormat,
	options: ParseOptions,
	emit: (event: ParseEvent) => void,
): RecordReader {
	const name = format.messageType;
	let pending: LogicalRecord | undefined;
	let file: FileState | undefined;
	let group: GroupState | undefined;
	let account: AccountState | undefined;
	let recordLength: number | null = null;
	let files = 0;
	let closedFiles = 0;
	/** How often each account and as-of time has been reported in the file. */
	const seen = new Map<string, number>();

	const fail = (
		message: string,
		line: number,
		code: 'INVALID_RECORD' | 'TRUNCATED' = 'INVALID_RECORD',
	): never => {
		throw new BankFileError(code, message, where(line));
	};

	/** The file a record belongs to: refused before the file header or after the trailer. */
	const inFile = (record: string, line: number): FileState => {
		if (!file)
			fail(
				closedFiles
					? `A ${record} after the file trailer (99)`
					: `A ${record} before the file header (01)`,
				line,
			);
		return file!;
	};

	/**
	 * A trailer whose figures do not add up: the file is refused, or (onInvalidRecord: 'warn') read
	 * on with a warning, and the account's statement says it.
	 */
	const mismatch = (message: string, line: number, of?: AccountState): void => {
		if (options.onInvalidRecord !== 'warn')
			throw new BankFileError('CONTROL_TOTAL_MISMATCH', message, where(line));
		of?.notes.push(message);
		emit({
			type: 'warning',
			warning: {
				code: 'CONTROL_TOTAL_MISMATCH',
				message: `${message}; the file was read on`,
				location: where(line),
			},
		});
	};

	/** A control total or count of a trailer: a whole number (a defaulted total is zero). */
	const trailerNumber = (
		value: string | undefined,
		what: string,
		record: string,
		line: number,
		defaultZero = false,
	): number => {
		if (defaultZero && !value) return 0;
		const number = integerOf(value ?? '');
		if (number === undefined || (!what.includes('total') && number < 0))
			fail(
				`The ${what} of the ${record}, ${JSON.stringify(value ?? '')}, is not a whole number`,
				line,
			);
		return number!;
	};

	const fileHeader = (r: LogicalRecord): void => {
		const line = r.pieces[0].line;
		if (file)
			fail(
				`A file header (01) before the file trailer (99) of the file that started on line ${file.line}`,
				line,
				'TRUNCATED',
			);
		const [sender, receiver, date, time, fileId, length, , version] = plainFields(r);
		if (version !== '2')
			throw new BankFileError(
				'UNKNOWN_VERSION',
				version === '3'
					? 'The file is BAI version 3 (BTRS, ANSI X9.121), not BAI2 (version 2)'
					: `The file header (01) gives version ${JSON.stringify(version ?? '')}: only BAI version 2 is supported`,
				where(line),
			);
		const created = dateOf(date ?? '');
		if (!created)
			fail(
				`The file creation date of the file header (01), ${JSON.stringify(date ?? '')}, is not a date YYMMDD`,
				line,
			);
		recordLength = length && /^\d+$/.test(length) && Number(length) > 0 ? Number(length) : null;
		files++;
		file = {
			line,
			senderId: sender ?? '',
			receiverId: receiver ?? '',
			created: dateTimeOf(created!, timeOf(time ?? '')),
			fileId: fileId ?? '',
			records: r.pieces.length,
			groups: 0,
			total: 0,
		};
	};

	const groupHeader = (r: LogicalRecord): void => {
		const line = r.pieces[0].line;
		inFile('group header (02)', line);
		if (group)
			fail(
				`A group header (02) before the group trailer (98) of the group that started on line ${group.line}`,
				line,
				'TRUNCATED',
			);
		const [ultimateReceiver, originator, status, date, time, currency, modifier] = plainFields(r);
		const groupStatus = GROUP_STATUS[status ?? ''];
		if (!groupStatus)
			fail(
				`The group status of the group header (02), ${JSON.stringify(status ?? '')}, is not 1 (update), 2 (deletion), 3 (correction) or 4 (test only)`,
				line,
			);
		const asOfDate = dateOf(date ?? '');
		if (!asOfDate)
			fail(
				`The as-of date of the group header (02), ${JSON.stringify(date ?? '')}, is not a date YYMMDD`,
				line,
			);
		const code = (currency ?? '').toUpperCase();
		if (code && !/^[A-Z]{3}$/.test(code))
			fail(
				`The currency of the group header (02), ${JSON.stringify(currency)}, is not a currency code`,
				line,
			);
		const asOfTime = timeOf(time ?? '');
		file!.records += r.pieces.length;
		file!.groups++;
		group = {
			line,
			originatorId: originator ?? '',
			ultimateReceiverId: ultimateReceiver || null,
			groupStatus,
			asOfDate: asOfDate!,
			asOfTime,
			asOfDateModifier: MODIFIERS[modifier ?? ''] ?? null,
			modifierCode: MODIFIERS[modifier ?? ''] ? modifier! : '',
			timeCode: asOfTime ? asOfTime.replace(':', '') : '',
			// The group's currency; USD when the header leaves it out.
			currency: code || 'USD',
			records: r.pieces.length,
			accounts: 0,
			total: 0,
		};
	};

	const accountIdentifier = (r: LogicalRecord): void => {
		const line = r.pieces[0].line;
		inFile('account identifier (03)', line);
		if (!group) fail('An account identifier (03) outside a group (02 ... 98)', line);
		if (account)
			fail(
				`Account ${account.number} (line ${account.line}) has no account trailer (49) before the next account identifier (03)`,
				line,
				'TRUNCATED',
			);
		const g = group!;
		const { fields, ends } = fieldsAndEnds(r);
		const number = fields[0] ?? '';
		if (!number) fail('The account identifier (03) has no account number', line);
		const given = (fields[1] ?? '').toUpperCase();
		if (given && !/^[A-Z]{3}$/.test(given))
			fail(
				`The currency of account ${number}, ${JSON.stringify(fields[1])}, is not a currency code`,
				line,
			);
		const currency = given || g.currency;
		const digits = minorUnits(currency);
		const toAmount = (minor: number): number => fromUnits(minorToUnits(minor, digits));
		const compact = normalizeIban(number);
		const iban = isValidIban(compact) ? compact : null;
		const asOf = [g.asOfDate.replace(/-/g, ''), g.timeCode, g.modifierCode]
			.filter(Boolean)
			.join('-');
		const reported = g.groupStatus === 'update' ? asOf : `${asOf}-${g.groupStatus}`;
		// The same account reported again as of the same time (a bank may split an account's report
		// by value date): its next statements are told apart by their order in the file.
		const occurrence = (seen.get(`${number}|${reported}`) ?? 0) + 1;
		seen.set(`${number}|${reported}`, occurrence);
		const statementId = occurrence === 1 ? reported : `${reported}#${occurrence}`;
		const report: Bai2Report = {
			senderId: file!.senderId,
			receiverId: file!.receiverId,
			fileCreated: file!.created,
			fileId: file!.fileId,
			originatorId: g.originatorId,
			ultimateReceiverId: g.ultimateReceiverId,
			groupStatus: g.groupStatus,
			asOfDate: g.asOfDate,
			asOfTime: g.asOfTime,
			asOfDateModifier: g.asOfDateModifier,
			summaries: [],
			information: [],
			controlTotal: 0,
			recordCount: 0,
		};
		const summary: StatementSummary = {
			...notYetCounted(),
			accountIban: iban,
			accountId: iban ? null : ownString(number),
			accountCurrency: currency,
			accountOwner: null,
			periodFrom: g.asOfDate,
			periodTo: g.asOfDate,
			openingBalance: null,
			openingBalanceDate: null,
			statementId,
			statementSequence: null,
			legalSequence: null,
			created: file!.created,
			accountServicerBic: isValidBic(g.originatorId) ? g.originatorId : null,
			messageType: name,
			messageId: file!.fileId || null,
			bai2: report,
		};
		let total = 0;
		let totalCredits: number | null = null;
		let totalDebits: number | null = null;
		for (let at = 2; at < fields.length; ) {
			const code = fields[at];
			const amountText = fields[at + 1] ?? '';
			const countText = fields[at + 2] ?? '';
			if (!code && ends.slice(0, -1).includes(at + 1)) {
				// "015,35217175,,,/" before a continuation: one comma too many before its "/".
				at++;
				continue;
			}
			if (!code) {
				// A defaulted type code: no status or summary here (03,5765432,,,,,/).
				if (amountText)
					fail(
						`Account ${number}: an amount (${amountText}) without a type code in field ${at + 3} of the account identifier (03)`,
						line,
					);
				at += 4;
				continue;
			}
			const info = /^\d{3}$/.test(code) ? typeCodeInfo(code, '03') : undefined;
			if (!info)
				fail(
					`Account ${number}: ${JSON.stringify(code)} in field ${at + 2} of the account identifier (03) is not a BAI2 type code (three digits of a status or summary range)`,
					line,
				);
			const minor = amountText ? integerOf(amountText) : null;
			if (minor === undefined)
				fail(
					`Account ${number}: the amount of type code ${code}, ${JSON.stringify(amountText)}, is not a whole number in minor units`,
					line,
				);
			if (countText && !/^\d+$/.test(countText))
				fail(
					`Account ${number}: the item count of type code ${code}, ${JSON.stringify(countText)}, is not a whole number`,
					line,
				);
			const funds = fundsAt(fields, at + 3, toAmount);
			if (typeof funds === 'string') fail(`Account ${number}, type code ${code}: ${funds}`, line);
			const { funds: availability, next } = funds as Exclude<typeof funds, string>;
			at = next;
			if (minor !== null) total += minor!;
			if (info!.level === 'Status') {
				if (minor === null) continue;
				statusBalance(summary, info!, toAmount(minor!), currency, g.asOfDate);
				continue;
			}
			if (code === '100' && minor !== null) totalCredits = minor!;
			if (code === '400' && minor !== null) totalDebits = minor!;
			report.summaries.push({
				typeCode: code,
				description: info!.description,
				creditDebit:
					info!.transaction === 'CR' ? 'CRDT' : info!.transaction === 'DB' ? 'DBIT' : null,
				amount: minor === null ? null : toAmount(minor!),
				itemCount: countText ? Number(countText) : null,
				funds: availability,
			} satisfies Bai2Summary);
		}
		g.records += r.pieces.length;
		g.accounts++;
		file!.records += r.pieces.length;
		const skipped = options.skipStatement?.(statementKeyOf(summary)) ?? false;
		account = {
			line,
			number,
			currency,
			digits,
			summary,
			report,
			context: contextOf(summary),
			skipped,
			entries: [],
			records: r.pieces.length,
			total,
			bookedUnits: 0,
			creditUnits: 0,
			debitUnits: 0,
			problems: 0,
			notes: [],
			totalCredits,
			totalDebits,
		};
	};

	const transactionDetail = (r: LogicalRecord): void => {
		const line = r.pieces[0].line;
		inFile('transaction detail (16)', line);
		if (!account) fail('A transaction detail (16) outside an account (03 ... 49)', line);
		const a = account!;
		const g = group!;
		a.records += r.pieces.length;
		g.records += r.pieces.length;
		file!.records += r.pieces.length;
		const toAmount = (minor: number): number => fromUnits(minorToUnits(minor, a.digits));
		const { fields, text } = detailFields(r);
		const [code = '', amountText = ''] = fields;
		const minor = amountText ? integerOf(amountText) : null;
		if (minor === undefined)
			fail(
				`Account ${a.number}: the amount of the transaction detail (16), ${JSON.stringify(amountText)}, is not a whole number in minor units`,
				line,
			);
		// Counted in the control total whatever the record is, as the bank counted it.
		if (minor !== null) a.total += minor!;
		const info = /^\d{3}$/.test(code) ? typeCodeInfo(code, '16') : undefined;
		const problem = (message: string): void => {
			if (options.onInvalidRecord === 'warn') a.problems++;
			skipOrFail(options, emit, 'INVALID_RECORD', `Account ${a.number}: ${message}`, where(line));
		};
		if (code === '890') {
			// Non-monetary information: neither a credit nor a debit.
			const information = text ? cleanText(text) : null;
			if (information) a.report.information.push(information);
			return;
		}
		if (!info) {
			problem(
				`the type code of the transaction detail (16), ${JSON.stringify(code)}, is not a BAI2 type code`,
			);
			return;
		}
		if (info.transaction === 'NA') {
			problem(
				`type code ${code} (${info.description}) in a transaction detail (16) is neither a credit nor a debit code`,
			);
			return;
		}
		const funds = fundsAt(fields, 2, toAmount);
		if (typeof funds === 'string') {
			problem(`the transaction detail (16) of type code ${code}: ${funds}`);
			return;
		}
		const width = fundsWidth(fields, 2);
		const bankReference = fields[2 + width] || null;
		const customerReference = fields[3 + width] || null;
		if (minor === null) {
			// A detail without an amount (it may adjust availability only): no entry to book.
			emit({
				type: 'warning',
				warning: {
					code: 'NO_AMOUNT',
					message: `Account ${a.number}: the transaction detail (16) of type code ${code} reports no amount; it gives no entry`,
					location: where(line),
				},
			});
			return;
		}
		if (minor! < 0) {
			problem(
				`the amount of the transaction detail (16) of type code ${code} is negative (${amountText}): detail amounts are unsigned, the type code says credit or debit`,
			);
			return;
		}
		const credit = info.transaction === 'CR';
		const units = minorToUnits(minor!, a.digits);
		const signed = credit ? units : -units;
		const availability = funds.funds;
		// Value dates before the as-of date count as the as-of date (BAI2, Funds Type).
		const valueDate =
			availability?.type === 'V'
				? availability.valueDate! < g.asOfDate
					? g.asOfDate
					: availability.valueDate
				: availability?.type === '0'
					? g.asOfDate
					: null;
		const entry = entryOf(
			a.context,
			{
				entryReference: customerReference ? ownString(customerReference) : null,
				bookingDate: g.asOfDate,
				valueDate,
				amount: fromUnits(signed),
				currency: a.currency,
				creditDebit: credit ? 'CRDT' : 'DBIT',
				status: 'BOOK',
				reversal: false,
				transactionCount: 1,
			},
			{ ...NO_PAYMENT_FACTS, remittanceText: text === null ? null : cleanText(text) },
			{
				bankTransactionCode: {
					domain: null,
					family: null,
					subFamily: null,
					proprietary: code,
					proprietaryIssuer: 'BAI',
				},
				accountServicerReference: bankReference ? ownString(bankReference) : null,
				fx: null,
				additionalInfo: info.description,
				transactionIndex: null,
				entryAmount: null,
			},
		);
		entry.funds = availability;
		const s = a.summary;
		s.entryCount++;
		if (credit) {
			s.creditCount++;
			a.creditUnits += units;
		} else {
			s.debitCount++;
			a.debitUnits += units;
		}
		a.bookedUnits += signed;
		if (!a.skipped) a.entries.push(entry);
	};

	const accountTrailer = (r: LogicalRecord): void => {
		const line = r.pieces[0].line;
		inFile('account trailer (49)', line);
		if (!account) fail('An account trailer (49) without its account identifier (03)', line);
		const a = account!;
		const g = group!;
		a.records += r.pieces.length;
		g.records += r.pieces.length;
		file!.records += r.pieces.length;
		const [totalText, countText] = plainFields(r);
		const record = `account trailer (49) of account ${a.number}`;
		const total = trailerNumber(totalText, 'control total', record, line, true);
		const count = trailerNumber(countText, 'record count', record, line);
		if (total !== a.total)
			mismatch(
				`The ${record} gives a control total of ${total}, but the amounts of the account's records (line ${a.line} on) add up to ${a.total}`,
				line,
				a,
			);
		if (count !== a.records)
			mismatch(
				`The ${record} counts ${count} records, but the account has ${a.records} (its 03, 16 and 88 records and this 49)`,
				line,
				a,
			);
		g.total += total;
		a.report.controlTotal = fromUnits(minorToUnits(total, a.digits));
		a.report.recordCount = count;
		account = undefined;
		closeStatement(a);
	};

	const groupTrailer = (r: LogicalRecord): void => {
		const line = r.pieces[0].line;
		inFile('group trailer (98)', line);
		if (!group) fail('A group trailer (98) without its group header (02)', line);
		if (account)
			fail(
				`Account ${account.number} (line ${account.line}) has no account trailer (49) before the group trailer (98)`,
				line,
				'TRUNCATED',
			);
		const g = group!;
		g.records += r.pieces.length;
		file!.records += r.pieces.length;
		const [totalText, accountsText, countText] = plainFields(r);
		const record = `group trailer (98) of the group that starts on line ${g.line}`;
		const total = trailerNumber(totalText, 'control total', record, line, true);
		const accounts = trailerNumber(accountsText, 'number of accounts', record, line);
		const count = trailerNumber(countText, 'record count', record, line);
		if (total !== g.total)
			mismatch(
				`The ${record} gives a control total of ${total}, but its account trailers' control totals add up to ${g.total}`,
				line,
			);
		if (accounts !== g.accounts)
			mismatch(
				`The ${record} counts ${accounts} accounts, but the group has ${g.accounts} account identifiers (03)`,
				line,
			);
		if (count !== g.records)
			mismatch(
				`The ${record} counts ${count} records, but the group has ${g.records} (its 02, 03, 16, 88, 49 records and this 98)`,
				line,
			);
		file!.total += total;
		group = undefined;
	};

	const fileTrailer = (r: LogicalRecord): void => {
		const line = r.pieces[0].line;
		inFile('file trailer (99)', line);
		if (group)
			fail(
				`The group that starts on line ${group.line} has no group trailer (98) before the file trailer (99)`,
				line,
				'TRUNCATED',
			);
		const f = file!;
		f.records += r.pieces.length;
		const [totalText, groupsText, countText] = plainFields(r);
		const record = 'file trailer (99)';
		const total = trailerNumber(totalText, 'control total', record, line, true);
		const groups = trailerNumber(groupsText, 'number of groups', record, line);
		const count = trailerNumber(countText, 'record count', record, line);
		if (total !== f.total)
			mismatch(
				`The ${record} gives a control total of ${total}, but the group trailers' control totals add up to ${f.total}`,
				line,
			);
		if (groups !== f.groups)
			mismatch(
				`The ${record} counts ${groups} groups, but the file has ${f.groups} group headers (02)`,
				line,
			);
		if (count !== f.records)
			mismatch(
				`The ${record} counts ${count} records, but the file has ${f.records} (from its 01 to this 99, continuations included)`,
				line,
			);
		file = undefined;
		closedFiles++;
	};

	/** Hands over a checked account: its entries, then its statement with the balance check. */
	const closeStatement = (a: AccountState): void => {
		const s = a.summary;
		if (a.skipped) {
			emit({ type: 'skippedStatement', key: statementKeyOf(s) });
			return;
		}
		s.creditTotal = fromUnits(a.creditUnits);
		s.debitTotal = fromUnits(a.debitUnits);
		s.netTotal = fromUnits(a.creditUnits - a.debitUnits);
		const warnings: string[] = [...a.notes];
		if (a.notes.length) s.check = 'mismatch';
		else if (s.openingBalance !== null && s.closingBalance !== null) {
			const opening = Math.round(s.openingBalance * 10 ** a.digits);
			const closing = Math.round(s.closingBalance * 10 ** a.digits);
			const booked = Math.round(a.bookedUnits / 10 ** (5 - a.digits));
			if (opening + booked === closing) s.check = 'ok';
			else {
				s.check = 'mismatch';
				const units = (minor: number): number => fromUnits(minorToUnits(minor, a.digits));
				let note = '';
				if (a.totalCredits !== null && a.totalDebits !== null) {
					const bySummary = opening + a.totalCredits - a.totalDebits;
					note =
						bySummary === closing
							? `; the total credits (100) and debits (400) of the summary do add up: the file details only part of the activity`
							: `; the total credits (100) and debits (400) of the summary do not add up either`;
				}
				warnings.push(
					`Opening ledger (010) ${s.openingBalance} + details ${fromUnits(a.bookedUnits)} = ${units(opening + booked)}, but the closing ledger (015) is ${s.closingBalance} (difference ${units(closing - opening - booked)})${note}`,
				);
			}
		}
		if (a.problems)
			warnings.push(
				`${a.problems} transaction detail${a.problems === 1 ? ' was' : 's were'} left out (see the warnings)`,
			);
		s.warning = warnings.length ? warnings.join('; ') : null;
		for (const entry of a.entries) emit({ type: 'entry', entry });
		a.entries = [];
		emit({ type: 'statement', statement: s });
	};

	const readRecord = (r: LogicalRecord): void => {
		switch (r.code) {
			case '01':
				fileHeader(r);
				break;
			case '02':
				groupHeader(r);
				break;
			case '03':
				accountIdentifier(r);
				break;
			case '16':
				transactionDetail(r);
				break;
			case '49':
				accountTrailer(r);
				break;
			case '98':
				groupTrailer(r);
				break;
			case '99':
				fileTrailer(r);
				break;
			default: {
				const line = r.pieces[0].line;
				inFile(`record ${r.code}`, line);
				file!.records += r.pieces.length;
				if (group) group.records += r.pieces.length;
				if (account) account.records += r.pieces.length;
				skipOrFail(
					options,
					emit,
					'UNKNOWN_RECORD',
					`Unknown ${name} record code "${r.code}"`,
					where(line),
				);
			}
		}
	};

	const flush = (): void => {
		if (!pending) return;
		const record = pending;
		pending = undefined;
		readRecord(record);
	};

	const physical = (text: string, number: number, full: boolean): void => {
		const match = /^(\d{2}),/.exec(text) ?? /^(\d{2})$/.exec(text.trimEnd());
		if (!match)
			fail(
				`The line is not a ${name} record (a record code of two digits and a comma): it starts with ${JSON.stringify(text.slice(0, 30))}`,
				number,
			);
		const code = match![1];
		const piece: Piece = { text, line: number, full };
		if (code === '88') {
			if (!pending) fail('A continuation record (88) with no record before it to continue', number);
			pending!.pieces.push(piece);
			return;
		}
		flush();
		pending = { code, pieces: [piece] };
	};

	/** Whether a line is a run of fixed-length records: one record code every `length` characters. */
	const isRun = (text: string, length: number): boolean => {
		if (text.length <= length) return false;
		for (let at = 0; at < text.length; at += length)
			if (!/^\d{2},/.test(text.slice(at, at + 3)) && text.slice(at).trim()) return false;
		return true;
	};

	const line = (raw: string, number: number): void => {
		// Transmission control characters and a byte order mark are no data.
		// eslint-disable-next-line no-control-regex
		const text = raw.replace(/[\u0000-\u0008\u000b-\u001f\u007f\ufeff]+/g, '');
		if (!text.trim()) return;
		// The physical record length of a file header not read yet (it is read with its continuations).
		const header = !file && text.startsWith('01,') ? /^01(?:,[^,/]*){5},(\d+)/.exec(text) : null;
		const length = header ? Number(header[1]) : recordLength;
		if (length && isRun(text, length)) {
			// Fixed-length records without line ends.
			for (let at = 0; at < text.length; at += length) {
				const part = text.slice(at, at + length);
				if (part.trim()) physical(part, number, part.trimEnd().length === length);
			}
			return;
		}
		// A record that fills its physical record (80 characters unless the header says) may have
		// its text cut mid-word. Blanks before a record are no part of it.
		physical(text.trimStart(), number, text.trimEnd().length === (length || USUAL_RECORD_LENGTH));
	};

	const end = (): void => {
		flush();
		if (account)
			throw new BankFileError(
				'TRUNCATED',
				`The file ends in account ${account.number} (line ${account.line}), without its account trailer (49)`,
			);
		if (group)
			throw new BankFileError(
				'TRUNCATED',
				`The file ends in the group that starts on line ${group.line}, without its group trailer (98)`,
			);
		if (file)
			throw new BankFileError(
				'TRUNCATED',
				`The file ends without its file trailer (99) (the file header is on line ${file.line})`,
			);
		if (!files)
			throw new BankFileError('NOT_A_BANK_FILE', `The file holds no ${name} file header (01)`);
	};

	return { line, end };
}

/** A status amount as a balance; opening and closing ledger and available also as the statement's. */
function statusBalance(
	summary: StatementSummary,
	info: TypeCodeInfo,
	amount: number,
	currency: string,
	date: string,
): void {
	summary.balances.push({
		type: ISO_BALANCE[info.code] ?? info.code,
		amount,
		currency,
		date,
		typeCode: info.code,
		description: info.description,
	} satisfies BalanceInfo);
	switch (info.code) {
		case '010':
			summary.openingBalance = amount;
			summary.openingBalanceDate = date;
			break;
		case '015':
			summary.closingBalance = amount;
			summary.closingBalanceDate = date;
			break;
		case '045':
			summary.availableBalance = amount;
			summary.availableBalanceDate = date;
			break;
		case '060':
			// Current available: the available balance of a same-day report without a closing one.
			if (summary.availableBalance === null) {
				summary.availableBalance = amount;
				summary.availableBalanceDate = date;
			}
			break;
		default:
			break;
	}
}
