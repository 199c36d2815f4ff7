/**
 * SWIFT MT940 (customer statement) and MT942 (interim transaction report), as banks deliver them
 * over EBICS, host-to-host and FinTS: one or more messages per file, each a block of fields
 * (:20: :25: :28C: :60F: :61: :86: :62F: ...) ended by a line "-", with or without the SWIFT
 * envelope ({1:}{2:}{4: ... -}{5:}), CRLF or LF line ends, ISO-8859-1 / Windows-1252 or UTF-8.
 *
 * - A statement may run over several pages (messages with :28C: n/1, n/2, ...; every page but the
 *   last closes with :62M:, every page but the first opens with :60M:): its entries and balances
 *   are read as one statement, and each page's opening is checked against the previous page's
 *   closing.
 * - :86: is read as German banks structure it (the DFÜ agreement of the Deutsche Kreditwirtschaft:
 *   transaction code (GVC), then subfields ?00 booking text, ?20-?29 and ?60-?63 purpose with the
 *   SEPA identifiers EREF+ KREF+ MREF+ CRED+ SVWZ+ ABWA+ ..., ?30 BIC or bank code, ?31 IBAN or
 *   account, ?32-?33 name, ?34 text key extension), and otherwise as free text.
 * - The entries of a statement are handed over with its statement, once its closing balance is
 *   read, so that every entry carries the whole period.
 */
import { fromUnits, toUnits } from './amounts';
import { isValidBic, isValidIban, normalizeIban, referenceKind } from './checks';
import { BankFileError } from './errors';
import type { PaymentFacts, StatementContext } from './items';
import { contextOf, entryOf, NO_PAYMENT_FACTS, statementKeyOf } from './items';
import type { RecordReader } from './records';
import { notYetCounted, skipOrFail } from './records';
import { ownString } from './xml';
import type {
	BalanceInfo,
	BankEntry,
	DetectedFormat,
	ParseEvent,
	ParseOptions,
	StatementSummary,
} from './types';

/** One field of a message: its tag, its lines (the first without the tag) and where it starts. */
interface Field {
	tag: string;
	lines: string[];
	line: number;
}

interface Balance {
	date: string | null;
	currency: string;
	/** Signed, in units of 10^-5. */
	units: number;
}

/** What a message's header fields say; a statement starts from it. */
interface Message {
	line: number;
	reference: string | null;
	account: string | null;
	statementNumber: string | null;
	page: number | null;
	created: string | null;
	currency: string | null;
}

interface Statement {
	summary: StatementSummary;
	/** What every entry of the statement carries (its period's end is added when it is read). */
	context: StatementContext;
	skipped: boolean;
	entries: BankEntry[];
	bookedUnits: number;
	creditUnits: number;
	debitUnits: number;
	/** Entries left out with a warning. */
	problems: number;
	line: number;
	/** The closing balance of the last page read, while the statement goes on (:62M:). */
	pageClosing?: Balance;
	/** The final closing balance (:62F:) has been read. */
	closed: boolean;
	/** What breaks the check: pages that do not follow on, a closing in another currency. */
	notes: string[];
	/** What the statement item should say without breaking the check: pages not in the file. */
	remarks: string[];
	/** MT942's own totals (:90D:, :90C:). */
	declared?: { debits?: [number, number]; credits?: [number, number] };
	openingCurrency: string | null;
}

/** The entry being read: its :61: line, then its :86: details. */
interface PendingEntry {
	entry: BankEntry;
	/** The units booked, signed (0 for an entry that is not booked). */
	booked: number;
	/** The entry's amount in units, without sign. */
	units: number;
	details: boolean;
}

/** A field's tag at the start of a line; NS: a bank's own non-SWIFT field, ignored. */
const TAG = /^(\d{2}[A-Z]?|NS)$/;

/** The tag of a line that starts a field (":61:..." gives "61"), else undefined. */
function tagOf(line: string): string | undefined {
	const end = line.indexOf(':', 1);
	if (end < 3 || end > 4) return undefined;
	const tag = line.slice(1, end);
	return TAG.test(tag) ? tag : undefined;
}
const KNOWN_TAGS = new Set([
	'NS',
	'20',
	'21',
	'25',
	'25P',
	'28',
	'28C',
	'13',
	'13D',
	'34F',
	'60F',
	'60M',
	'61',
	'86',
	'62F',
	'62M',
	'64',
	'65',
	'90D',
	'90C',
]);

/** Days in a month of a year (Gregorian). */
function daysIn(year: number, month: number): number {
	if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
	return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** YYMMDD as an ISO date (years 80-99 are 19xx); a day past the month's end is its last day. */
function date6(value: string): string | null {
	if (value.length !== 6 || !/^\d{6}$/.test(value)) return null;
	const yy = Number(value.slice(0, 2));
	const year = yy + (yy >= 80 ? 1900 : 2000);
	const month = Number(value.slice(2, 4));
	if (month < 1 || month > 12) return null;
	// Some banks date month-end bookings the 30th of February: read as the month's last day.
	const day = Math.min(Number(value.slice(4, 6)), daysIn(year, month));
	if (day < 1) return null;
	return `${year}-${value.slice(2, 4)}-${day < 10 ? '0' : ''}${day}`;
}

/**
 * The booking date (MMDD) nearest to the value date: in its year, or in the year before or after
 * when the two are more than half a year apart (a booking on 31 December valued 2 January).
 */
function bookingDateNear(valueDate: string, mmdd: string): string | null {
	const year = Number(valueDate.slice(0, 4));
	const shift = Number(mmdd.slice(0, 2)) - Number(valueDate.slice(5, 7));
	const y = shift > 6 ? year - 1 : shift < -6 ? year + 1 : year;
	return date6(`${String(y % 100).padStart(2, '0')}${mmdd}`);
}

/** SWIFT amount "1234,56" (comma as decimal mark) in units of 10^-5. */
function amountUnits(text: string): number | undefined {
	const comma = text.indexOf(',');
	const whole = comma === -1 ? text : text.slice(0, comma);
	const fraction = comma === -1 ? '' : text.slice(comma + 1);
	if (!/^\d+$/.test(whole) || !/^\d{0,5}$/.test(fraction)) return undefined;
	return Number(whole) * 100000 + (fraction ? Number(fraction.padEnd(5, '0')) : 0);
}

/** :60F: :62M: :64: ...: D/C mark, YYMMDD, currency, amount. */
function balanceOf(value: string): Balance | undefined {
	const match = /^([CD])(\d{6})([A-Z]{3})(\d+(?:,\d*)?)$/.exec(value.replace(/\s+/g, ''));
	if (!match) return undefined;
	const units = amountUnits(match[4]);
	if (units === undefined) return undefined;
	return { date: date6(match[2]), currency: match[3], units: match[1] === 'D' ? -units : units };
}

/** :25: as the account's IBAN, or its number (bank code / account), and the bank's BIC if given. */
function accountOf(value: string): {
	iban: string | null;
	id: string | null;
	bic: string | null;
	currency: string | null;
} {
	const text = value.trim();
	const slash = text.indexOf('/');
	const before = slash === -1 ? '' : text.slice(0, slash);
	const bic = before && isValidBic(before) ? before : null;
	const rest = bic ? text.slice(slash + 1) : text;
	const compact = normalizeIban(rest);
	if (isValidIban(compact)) return { iban: compact, id: null, bic, currency: null };
	// An IBAN followed by the account's currency (NL91ABNA0417164300EUR).
	const withCurrency = /^([A-Z]{2}\d{2}[A-Z0-9]+?)([A-Z]{3})$/.exec(compact);
	if (withCurrency && isValidIban(withCurrency[1]))
		return { iban: withCurrency[1], id: null, bic, currency: withCurrency[2] };
	return { iban: null, id: (bic ? rest : text) || null, bic, currency: null };
}

/** :13D: YYMMDDHHMM and a UTC offset, as an ISO date-time. */
function dateTimeOf(value: string): string | null {
	const match = /^(\d{6})(\d{2})(\d{2})([+-]\d{2})?(\d{2})?/.exec(value.trim());
	if (!match) return null;
	const day = date6(match[1]);
	if (!day) return null;
	const offset = match[4] ? `${match[4]}:${match[5] ?? '00'}` : '';
	return `${day}T${match[2]}:${match[3]}:00${offset}`;
}

/** A message's creation time from its SWIFT output header {2:O940HHMM<MIR 28>YYMMDDHHMM...}. */
function createdFromEnvelope(line: string): string | null {
	const match = /\{2:O94[02]\d{4}\d{6}[A-Z0-9]{22}(\d{6})(\d{4})/.exec(line);
	return match ? dateTimeOf(`${match[1]}${match[2]}`) : null;
}

// ---- :86: ----

/** The SEPA identifiers German banks write in the purpose lines (DK, DFÜ agreement annex 3). */
const SEPA_KEYWORDS = /(EREF|KREF|MREF|CRED|DEBT|COAM|OAMT|SVWZ|ABWA|ABWE|IBAN|BIC)\+/g;
/** Identifiers of at most 35 characters: a longer value ends at a purpose line's end. */
const IDENTIFIERS = new Set(['EREF', 'KREF', 'MREF', 'CRED', 'DEBT']);
const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/** Length of a purpose line (?20-?29, ?60-?63): a full one may break a word. */
const PURPOSE_LINE = 27;
/** Length of a SWIFT text line: a full one may break a word. */
const SWIFT_LINE = 65;
/** What the first line of :86: starts with, before its text. */
const TAG_86 = ':86:';

/**
 * Lines as one text: after a full line the next continues it (banks break words there); after a
 * shorter one, a space. Returns the text and where each later line starts in it.
 */
function joinLines(
	parts: string[],
	full: number,
	firstExtra = 0,
): { text: string; starts: number[] } {
	let text = '';
	const starts: number[] = [];
	parts.forEach((part, i) => {
		if (i > 0) {
			const before = parts[i - 1].length + (i === 1 ? firstExtra : 0);
			if (before < full && !text.endsWith(' ')) text += ' ';
			starts.push(text.length);
		}
		text += part;
	});
	return { text, starts };
}

/** Runs of white space, or white space that is not a plain space. */
const UNTIDY = /\s\s|[\t\n\r\f\v]/;

/** Text with its white space made single spaces and trimmed; null when nothing is left. */
const cleanText = (value: string | undefined): string | null => {
	if (value === undefined) return null;
	const text = (UNTIDY.test(value) ? value.replace(/\s+/g, ' ') : value).trim();
	// A string of its own, not a slice that would keep the whole field alive in the item.
	return text ? ownString(text) : null;
};

interface Details {
	/** Only what the details say; the entry keeps the rest as it is. */
	facts: Partial<PaymentFacts>;
	/** ?00 booking text, supplementary text. */
	info: string | null;
	/** The bank's transaction code (GVC) and text key extension, when structured. */
	code: string | null;
	textKey: string | null;
}

/** The SEPA identifiers in the purpose text, and the text that belongs to none. */
function sepaFields(parts: string[]): { fields: Map<string, string>; free: string[] } {
	const { text, starts } = joinLines(parts, PURPOSE_LINE);
	const fields = new Map<string, string>();
	const free: string[] = [];
	const found: Array<{ key: string; at: number }> = [];
	for (const match of text.matchAll(SEPA_KEYWORDS)) {
		const at = match.index;
		// A keyword starts the text, a purpose line, or follows a space.
		if (at === 0 || text[at - 1] === ' ' || starts.includes(at)) found.push({ key: match[1], at });
	}
	if (!found.length) return { fields, free: [text] };
	free.push(text.slice(0, found[0].at));
	found.forEach(({ key, at }, i) => {
		const from = at + key.length + 1;
		const to = i + 1 < found.length ? found[i + 1].at : text.length;
		let value = text.slice(from, to);
		if (IDENTIFIERS.has(key) && value.trim().length > 35) {
			// Longer than an identifier can be: it ends with a purpose line, the rest is free text.
			const end = [...starts].reverse().find((s) => s > from && s - from <= 36);
			if (end !== undefined) {
				free.push(text.slice(end, to));
				value = text.slice(from, end);
			}
		}
		if (!fields.has(key)) fields.set(key, value);
	});
	return { fields, free };
}

/**
 * The :86: field of an entry: structured (GVC and ?nn subfields) as German banks write it, else
 * free text.
 */
function detailsOf(lines: string[]): Details {
	const joined = lines.join('');
	const structured = /^\s*(\d{3})([?>])(\d{2})/.exec(joined);
	if (!structured && SLASH_KEY.test(joined.trimStart())) return slashDetails(lines);
	if (!structured) {
		const { text } = joinLines(
			lines.map((l) => l.trimEnd()),
			SWIFT_LINE,
			TAG_86.length,
		);
		return { facts: { remittanceText: cleanText(text) }, info: null, code: null, textKey: null };
	}
	const separator = structured[2];
	/** Subfields by number (?00 ... ?99); the purpose lines apart, in their order. */
	const subfields: Array<string | undefined> = [];
	const purpose: string[] = [];
	/** Where the subfield marker (separator and 2 digits) next to `from` starts, or the end. */
	const nextMarker = (from: number): number => {
		for (
			let at = joined.indexOf(separator, from);
			at !== -1;
			at = joined.indexOf(separator, at + 1)
		)
			if (isDigit(joined.charCodeAt(at + 1)) && isDigit(joined.charCodeAt(at + 2))) return at;
		return joined.length;
	};
	for (let at = structured.index + structured[0].length - 3; at < joined.length; ) {
		const n = (joined.charCodeAt(at + 1) - 48) * 10 + joined.charCodeAt(at + 2) - 48;
		const end = nextMarker(at + 3);
		const value = joined.slice(at + 3, end);
		if ((n >= 20 && n <= 29) || (n >= 60 && n <= 63)) purpose.push(value);
		else subfields[n] = subfields[n] === undefined ? value : subfields[n] + value;
		at = end;
	}
	const sub = (n: number): string | undefined => subfields[n];
	const { fields, free } = sepaFields(purpose);
	const field = (key: string): string | null => cleanText(fields.get(key));
	const freeText = cleanText(free.join(' '));
	const svwz = field('SVWZ');
	const bankId = cleanText(sub(30))?.replace(/\s/g, '') ?? null;
	const account = cleanText(sub(31))?.replace(/\s/g, '') ?? null;
	const iban38 = cleanText(sub(38))?.replace(/\s/g, '') ?? null;
	const ibanInPurpose = field('IBAN')?.replace(/\s/g, '') ?? null;
	const iban = [account, iban38, ibanInPurpose].find(
		(candidate) => candidate && isValidIban(candidate),
	);
	const bic = [bankId, field('BIC')?.replace(/\s/g, '')].find(
		(candidate) => candidate && isValidBic(candidate.toUpperCase()),
	);
	const name = cleanText(
		joinLines([sub(32) ?? '', sub(33) ?? ''].filter(Boolean), PURPOSE_LINE).text,
	);
	const endToEnd = field('EREF');
	return {
		facts: {
			endToEndId: endToEnd && !/^(NOTPROVIDED|NONREF)$/.test(endToEnd) ? endToEnd : null,
			paymentInformationId: field('KREF'),
			mandateId: field('MREF'),
			creditorId: field('CRED'),
			remittanceText: svwz ?? freeText,
			counterpartyName: name,
			counterpartyIban: iban ?? null,
			counterpartyAccount:
				iban || !account ? null : bankId && !bic ? `${bankId}/${account}` : account,
			counterpartyBic: bic ? bic.toUpperCase() : null,
			ultimateCounterpartyName: field('ABWA') ?? field('ABWE'),
		},
		info: [cleanText(sub(0)), svwz ? freeText : null].filter(Boolean).join(' ') || null,
		code: structured[1],
		textKey: cleanText(sub(34)),
	};
}

/** The keys of :86: as Dutch banks (and others) write it: /EREF/.../REMI/.../CNTP/... */
const SLASH_KEYS =
	'EREF|MARF|CSID|REMI|CNTP|ORDP|BENM|IREF|PREF|RTRN|ISDT|ULTD|ULTC|PURP|BUSP|OCMT|EXCH|CHGS|TRCD|ACCW|NAME';
const SLASH_KEY = new RegExp(`^/(?:${SLASH_KEYS})/`);
const SLASH_FIELD = new RegExp(`/(${SLASH_KEYS})/`, 'g');

/** A /KEY/value :86: (SWIFT's field 86 structure as ING, Rabobank and ABN AMRO write it). */
function slashDetails(lines: string[]): Details {
	const { text } = joinLines(
		lines.map((l) => l.trimEnd()),
		SWIFT_LINE,
		TAG_86.length,
	);
	const fields = new Map<string, string>();
	const found = [...text.matchAll(SLASH_FIELD)];
	found.forEach((match, i) => {
		const from = match.index + match[0].length;
		const to = i + 1 < found.length ? found[i + 1].index : text.length;
		if (!fields.has(match[1])) fields.set(match[1], text.slice(from, to).replace(/\/+$/, ''));
	});
	const get = (key: string): string | null => cleanText(fields.get(key));
	/** A party's name: "/NAME/..." inside BENM, ORDP, ULTD, ULTC (or the NAME field itself). */
	const nameIn = (key: string): string | null => {
		const value = fields.get(key);
		if (value === undefined) return null;
		const name = /(?:^|\/)NAME\/([^/]*)/.exec(value)?.[1];
		return cleanText(name ?? value.replace(/^\/+/, ''));
	};
	// CNTP/<account>/<BIC>/<name>/<city>
	const [account, bic, cntpName] = (fields.get('CNTP') ?? '').split('/').map((v) => cleanText(v));
	// REMI/USTD//<text> or REMI/STRD/CUR/<reference>, or the text alone.
	const remi = fields.get('REMI') ?? '';
	const structuredRef = /^\/?STRD\/(?:CUR|ISO|SCOR)?\/([^/]+)/.exec(remi)?.[1];
	const remittance = structuredRef
		? null
		: cleanText(remi.replace(/^\/?USTD\/\/?/, '').replace(/\/+$/, ''));
	const reference = structuredRef ? structuredRef.replace(/\s+/g, '') : null;
	const iban = account?.replace(/\s/g, '') ?? null;
	const endToEnd = get('EREF');
	return {
		facts: {
			endToEndId: endToEnd && !/^(NOTPROVIDED|NONREF)$/.test(endToEnd) ? endToEnd : null,
			instructionId: get('IREF'),
			paymentInformationId: get('PREF'),
			mandateId: get('MARF'),
			creditorId: get('CSID'),
			creditorReference: reference,
			creditorReferenceType: reference ? (referenceKind(reference) ?? 'OTHER') : null,
			remittanceText: remittance,
			counterpartyName: cntpName ?? nameIn('BENM') ?? nameIn('ORDP') ?? nameIn('NAME'),
			counterpartyIban: iban && isValidIban(iban) ? iban : null,
			counterpartyAccount: iban && !isValidIban(iban) ? iban : null,
			counterpartyBic: bic && isValidBic(bic.toUpperCase()) ? bic.toUpperCase() : null,
			ultimateCounterpartyName: nameIn('ULTD') ?? nameIn('ULTC'),
			purpose: get('PURP')?.replace(/^CD\//, '') ?? null,
			returnReason: get('RTRN'),
		},
		info: null,
		code: null,
		textKey: null,
	};
}

/** Puts what the details say into the entry, field by field (the entry keeps its shape). */
function assignFacts(entry: BankEntry, facts: Partial<PaymentFacts>): void {
	if (facts.endToEndId !== undefined) entry.endToEndId = facts.endToEndId;
	if (facts.instructionId !== undefined) entry.instructionId = facts.instructionId;
	if (facts.paymentInformationId !== undefined)
		entry.paymentInformationId = facts.paymentInformationId;
	if (facts.mandateId !== undefined) entry.mandateId = facts.mandateId;
	if (facts.creditorId !== undefined) entry.creditorId = facts.creditorId;
	if (facts.creditorReference !== undefined) entry.creditorReference = facts.creditorReference;
	if (facts.creditorReferenceType !== undefined)
		entry.creditorReferenceType = facts.creditorReferenceType;
	if (facts.remittanceText !== undefined) entry.remittanceText = facts.remittanceText;
	if (facts.counterpartyName !== undefined) entry.counterpartyName = facts.counterpartyName;
	if (facts.counterpartyIban !== undefined) entry.counterpartyIban = facts.counterpartyIban;
	if (facts.counterpartyAccount !== undefined)
		entry.counterpartyAccount = facts.counterpartyAccount;
	if (facts.counterpartyBic !== undefined) entry.counterpartyBic = facts.counterpartyBic;
	if (facts.ultimateCounterpartyName !== undefined)
		entry.ultimateCounterpartyName = facts.ultimateCounterpartyName;
	if (facts.purpose !== undefined) entry.purpose = facts.purpose;
	if (facts.returnReason !== undefined) entry.returnReason = facts.returnReason;
}

// ---- :61: ----

const STATEMENT_LINE =
	/^(\d{6})(?:(\d{4})|\s+)?(RC|RD|EC|ED|C|D)([A-Z])?(\d+(?:,\d*)?)([A-Z][A-Z0-9 ]{3})(.*)$/;

/**
 * MT940 / MT942: one statement (or interim report) per message, or per run of pages; its entries
 * with it, once it is complete.
 */
export function swiftReader(
	format: DetectedFormat,
	options: ParseOptions,
	emit: (event: ParseEvent) => void,
): RecordReader {
	const interim = format.format === 'mt942';
	const name = format.messageType;
	let inMessage = false;
	let message: Message | undefined;
	let field: Field | undefined;
	let statement: Statement | undefined;
	let pending: PendingEntry | undefined;
	let envelopeCreated: string | null = null;
	let messages = 0;

	const where = (line: number): string => `line ${line}`;

	const startStatement = (m: Message, opening: Balance | undefined, line: number): Statement => {
		if (!m.account)
			throw new BankFileError(
				'INVALID_RECORD',
				`The ${name} message has no account identification (:25:)`,
				`message starting on line ${m.line}`,
			);
		const account = accountOf(m.account);
		const currency = opening?.currency ?? account.currency ?? m.currency;
		const day = interim ? (m.created?.slice(0, 10) ?? null) : (opening?.date ?? null);
		const stamp = interim ? m.created?.slice(0, 16).replace(/\D/g, '') : day?.replace(/-/g, '');
		const summary: StatementSummary = {
			...notYetCounted(),
			accountIban: account.iban,
			accountId: account.id,
			accountCurrency: currency,
			accountOwner: null,
			periodFrom: day,
			periodTo: interim ? day : null,
			openingBalance: opening ? fromUnits(opening.units) : null,
			openingBalanceDate: opening?.date ?? null,
			statementId: `${stamp ? `${stamp}-` : ''}${m.statementNumber ?? m.reference ?? ''}`,
			statementSequence:
				m.statementNumber && /^\d+$/.test(m.statementNumber) ? Number(m.statementNumber) : null,
			legalSequence: null,
			created: m.created,
			accountServicerBic: account.bic,
			messageType: name,
			messageId: m.reference,
		};
		if (opening)
			summary.balances.push({
				type: 'OPBD',
				amount: fromUnits(opening.units),
				currency: opening.currency,
				date: opening.date,
			});
		const skipped = options.skipStatement?.(statementKeyOf(summary)) ?? false;
		return {
			summary,
			context: contextOf(summary),
			skipped,
			entries: [],
			bookedUnits: 0,
			creditUnits: 0,
			debitUnits: 0,
			problems: 0,
			line,
			closed: false,
			notes: [],
			remarks: [],
			openingCurrency: opening?.currency ?? null,
		};
	};

	/** The statement the entries of the current message belong to (MT942: started on first need). */
	const current = (line: number): Statement => {
		if (statement) return statement;
		if (interim && message) {
			statement = startStatement(message, undefined, line);
			return statement;
		}
		throw new BankFileError(
			'INVALID_RECORD',
			`A ${name} entry or balance before the statement's opening balance (:60F:)`,
			where(line),
		);
	};

	const balanceField = (f: Field): Balance => {
		const value = f.lines.join('');
		const balance = balanceOf(value);
		if (!balance)
			throw new BankFileError(
				'INVALID_RECORD',
				`The balance :${f.tag}:${value} is not a D/C mark, a date YYMMDD, a currency and an amount`,
				where(f.line),
			);
		return balance;
	};

	const listBalance = (s: Statement, type: string, b: Balance): void => {
		s.summary.balances.push({
			type,
			amount: fromUnits(b.units),
			currency: b.currency,
			date: b.date,
		} satisfies BalanceInfo);
	};

	const finishEntry = (): void => {
		if (!pending || !statement) return;
		const { entry, booked, units } = pending;
		pending = undefined;
		const s = statement;
		s.summary.entryCount++;
		if (entry.creditDebit === 'CRDT') {
			s.summary.creditCount++;
			s.creditUnits += units;
		} else {
			s.summary.debitCount++;
			s.debitUnits += units;
		}
		s.bookedUnits += booked;
		if (!s.skipped) s.entries.push(entry);
	};

	const readEntry = (f: Field): void => {
		const s = current(f.line);
		const first = f.lines[0];
		const match = STATEMENT_LINE.exec(first.trim());
		const valueDate = match ? date6(match[1]) : null;
		const units = match ? amountUnits(match[5]) : undefined;
		if (!match || !valueDate || units === undefined) {
			s.problems += options.onInvalidRecord === 'warn' ? 1 : 0;
			skipOrFail(
				options,
				emit,
				'INVALID_RECORD',
				`The ${name} entry :61:${first.trim()} is not a value date YYMMDD, an optional booking date MMDD, a D/C mark, an amount and a transaction type`,
				where(f.line),
			);
			return;
		}
		const mark = match[3];
		// RC: a credit reversed (money out); RD: a debit reversed (money in).
		const credit = mark === 'C' || mark === 'RD' || mark === 'EC';
		const signed = credit ? units : -units;
		const type = ownString(match[6]);
		const [customer, bank] = splitReference(match[7]);
		const supplementary = f.lines.length > 1 ? cleanText(f.lines.slice(1).join(' ')) : null;
		const expected = mark.startsWith('E');
		const entry = entryOf(
			s.context,
			{
				entryReference: customer,
				bookingDate:
					match[2] && match[2] !== match[1].slice(2)
						? bookingDateNear(valueDate, match[2])
						: valueDate,
				valueDate,
				amount: fromUnits(signed),
				currency: s.summary.accountCurrency ?? '',
				creditDebit: credit ? 'CRDT' : 'DBIT',
				status: expected ? 'PDNG' : 'BOOK',
				reversal: mark.startsWith('R'),
				transactionCount: 1,
			},
			NO_PAYMENT_FACTS,
			{
				bankTransactionCode: {
					domain: null,
					family: null,
					subFamily: null,
					proprietary: type,
					proprietaryIssuer: 'SWIFT',
				},
				accountServicerReference: bank,
				fx: null,
				additionalInfo: supplementary,
				transactionIndex: null,
				entryAmount: null,
			},
		);
		pending = { entry, booked: expected ? 0 : signed, units, details: false };
	};

	const readDetails = (f: Field): void => {
		if (!pending || pending.details) return; // information for the account owner: not an entry's
		pending.details = true;
		const entry = pending.entry;
		const details = detailsOf(f.lines);
		const facts = details.facts;
		assignFacts(entry, facts);
		const reference = facts.creditorReference ? undefined : referenceIn(entry.remittanceText);
		if (reference) {
			entry.creditorReference = reference.value;
			entry.creditorReferenceType = reference.kind;
		}
		if (details.info)
			entry.additionalInfo = [details.info, entry.additionalInfo].filter(Boolean).join(' ');
		if (details.code) {
			const code = entry.bankTransactionCode;
			code.proprietary = [code.proprietary, details.code, details.textKey]
				.filter(Boolean)
				.join('+');
			code.proprietaryIssuer = 'DK';
		}
	};

	/** Hands over a complete statement: its entries (with the whole period), then the statement. */
	const closeStatement = (): void => {
		const s = statement!;
		statement = undefined;
		const summary = s.summary;
		if (s.skipped) {
			emit({ type: 'skippedStatement', key: statementKeyOf(summary) });
			return;
		}
		summary.creditTotal = fromUnits(s.creditUnits);
		summary.debitTotal = fromUnits(s.debitUnits);
		summary.netTotal = fromUnits(s.creditUnits - s.debitUnits);
		const warnings = [...s.notes];
		if (interim) {
			const declared = s.declared;
			if (declared?.debits || declared?.credits) {
				const found = `${summary.debitCount} debits of ${summary.debitTotal}, ${summary.creditCount} credits of ${summary.creditTotal}`;
				const [dc, du] = declared.debits ?? [summary.debitCount, s.debitUnits];
				const [cc, cu] = declared.credits ?? [summary.creditCount, s.creditUnits];
				const matches =
					dc === summary.debitCount &&
					du === s.debitUnits &&
					cc === summary.creditCount &&
					cu === s.creditUnits;
				summary.check = matches ? 'ok' : 'mismatch';
				if (!matches)
					warnings.push(
						`The report's totals (:90D: / :90C:) say ${dc} debits of ${fromUnits(du)}, ${cc} credits of ${fromUnits(cu)}; its entries hold ${found}`,
					);
			}
		} else if (summary.openingBalance !== null && summary.closingBalance !== null) {
			const opening = toUnits(summary.openingBalance.toFixed(5))!;
			const closing = toUnits(summary.closingBalance.toFixed(5))!;
			const computed = opening + s.bookedUnits;
			if (Math.round(computed) === Math.round(closing) && !s.notes.length) summary.check = 'ok';
			else {
				summary.check = 'mismatch';
				if (Math.round(computed) !== Math.round(closing))
					warnings.unshift(
						`Opening balance ${summary.openingBalance} + booked entries ${fromUnits(s.bookedUnits)} = ${fromUnits(computed)}, but the closing balance is ${summary.closingBalance} (difference ${fromUnits(closing - computed)})`,
					);
			}
		}
		warnings.push(...s.remarks);
		if (s.problems)
			warnings.push(
				`${s.problems} entr${s.problems === 1 ? 'y was' : 'ies were'} left out (see the warnings)`,
			);
		summary.warning = warnings.length ? warnings.join('; ') : null;
		for (const entry of s.entries) {
			entry.periodTo = summary.periodTo;
			emit({ type: 'entry', entry });
		}
		s.entries = [];
		emit({ type: 'statement', statement: summary });
	};

	/**
	 * A statement whose last page read closed with :62M: and whose next page is not in the file:
	 * it closes on that page's balance, and says so.
	 */
	const closeIncomplete = (): void => {
		const s = statement!;
		const last = s.pageClosing!;
		s.summary.closingBalance = fromUnits(last.units);
		s.summary.closingBalanceDate = last.date;
		s.summary.periodTo = last.date;
		listBalance(s, 'ITBD', last);
		s.remarks.push(
			`The statement's last page in the file closes with an intermediate balance (:62M:): its next page is not in the file`,
		);
		closeStatement();
	};

	const readField = (f: Field): void => {
		const m = message!;
		const value = f.tag === '61' || f.tag === '86' ? '' : f.lines.join('');
		if (f.tag !== '86') finishEntry();
		switch (f.tag) {
			case '20':
				m.reference = value.trim() || null;
				break;
			case '21':
			case 'NS':
				break;
			case '25':
			case '25P':
				m.account = value.trim() || null;
				break;
			case '28':
			case '28C': {
				const [number, page] = value.trim().split('/');
				m.statementNumber = number || null;
				m.page = page && /^\d+$/.test(page) ? Number(page) : null;
				break;
			}
			case '13':
			case '13D':
				m.created = dateTimeOf(value) ?? m.created;
				break;
			case '34F': {
				const currency = /^([A-Z]{3})/.exec(value.trim())?.[1];
				if (currency) m.currency ??= currency;
				break;
			}
			case '60F':
			case '60M': {
				const opening = balanceField(f);
				if (f.tag === '60M' && statement && !statement.closed) {
					// The next page of the statement: it must open where the last page closed.
					const last = statement.pageClosing;
					if (last && last.units !== opening.units)
						statement.notes.push(
							`Page ${m.page ?? '?'} opens with ${fromUnits(opening.units)} (:60M:) but the page before closed with ${fromUnits(last.units)} (:62M:)`,
						);
					statement.pageClosing = undefined;
					break;
				}
				if (statement?.closed) closeStatement();
				else if (statement) closeIncomplete();
				statement = startStatement(m, opening, f.line);
				if (f.tag === '60M')
					statement.remarks.push(
						'The statement starts with an intermediate opening balance (:60M:): its earlier pages are not in the file',
					);
				break;
			}
			case '61':
				readEntry(f);
				break;
			case '86':
				readDetails(f);
				break;
			case '62F':
			case '62M': {
				const s = current(f.line);
				const closing = balanceField(f);
				if (s.openingCurrency && closing.currency !== s.openingCurrency)
					s.notes.push(
						`The closing balance is in ${closing.currency} but the opening balance in ${s.openingCurrency}`,
					);
				if (f.tag === '62M') {
					s.pageClosing = closing;
					break;
				}
				s.closed = true;
				s.summary.closingBalance = fromUnits(closing.units);
				s.summary.closingBalanceDate = closing.date;
				s.summary.periodTo = closing.date;
				listBalance(s, 'CLBD', closing);
				break;
			}
			case '64': {
				const s = current(f.line);
				const available = balanceField(f);
				s.summary.availableBalance = fromUnits(available.units);
				s.summary.availableBalanceDate = available.date;
				listBalance(s, 'CLAV', available);
				break;
			}
			case '65':
				listBalance(current(f.line), 'FWAV', balanceField(f));
				break;
			case '90D':
			case '90C': {
				const s = current(f.line);
				const total = /^(\d+)([A-Z]{3})(\d+(?:,\d*)?)$/.exec(value.replace(/\s+/g, ''));
				const units = total ? amountUnits(total[3]) : undefined;
				if (!total || units === undefined)
					throw new BankFileError(
						'INVALID_RECORD',
						`The total :${f.tag}:${value} is not a number of entries, a currency and an amount`,
						where(f.line),
					);
				s.declared ??= {};
				s.declared[f.tag === '90D' ? 'debits' : 'credits'] = [Number(total[1]), units];
				break;
			}
			default:
				skipOrFail(
					options,
					emit,
					'UNKNOWN_RECORD',
					`Unknown ${name} field :${f.tag}:`,
					where(f.line),
				);
		}
	};

	const flushField = (): void => {
		if (!field) return;
		const f = field;
		field = undefined;
		readField(f);
	};

	const endMessage = (): void => {
		flushField();
		finishEntry();
		if (!inMessage) return;
		inMessage = false;
		const m = message!;
		message = undefined;
		if (interim) {
			statement ??= startStatement(m, undefined, m.line);
			closeStatement();
			return;
		}
		if (!statement) {
			throw new BankFileError(
				'TRUNCATED',
				`The ${name} message has no opening balance (:60F:)`,
				`message starting on line ${m.line}`,
			);
		}
		if (statement.closed) closeStatement();
		else if (!statement.pageClosing)
			throw new BankFileError(
				'TRUNCATED',
				`Statement ${statement.summary.statementId} ends without its closing balance (:62F:)`,
				`message starting on line ${m.line}`,
			);
	};

	const startMessage = (line: number): void => {
		if (inMessage) endMessage();
		inMessage = true;
		messages++;
		message = {
			line,
			reference: null,
			account: null,
			statementNumber: null,
			page: null,
			created: envelopeCreated,
			currency: null,
		};
		envelopeCreated = null;
	};

	const read = (raw: string, number: number): void => {
		// Transmission control characters (SOH, ETX) some banks put around messages; trailing spaces
		// are kept, since a :86: line may end with one that separates two words.
		let line =
			raw.charCodeAt(0) < 32 || raw.charCodeAt(raw.length - 1) < 32
				? // eslint-disable-next-line no-control-regex
					raw.replace(/^[\u0000-\u0008\u000b-\u001f]+|[\u0000-\u0008\u000a-\u001f]+$/g, '')
				: raw;
		if (line.startsWith('{')) {
			// The SWIFT envelope: basic, application and user headers, then the text block {4:.
			const text = line.indexOf('{4:');
			envelopeCreated = createdFromEnvelope(line) ?? envelopeCreated;
			if (text === -1) {
				if (/^\{5:|^\{[1-3]:/.test(line)) return;
			} else line = line.slice(text + 3);
			if (!line) return;
		}
		const first = line.charCodeAt(0);
		// "-" ends a message ("-}" in the envelope); "}" or "{5:" close the envelope.
		if (first === 45 || first === 125 || first === 123 || first === 32) {
			const trimmed = line.trim();
			if (trimmed === '-' || trimmed.startsWith('-}')) {
				endMessage();
				return;
			}
			if (trimmed === '}' || trimmed.startsWith('{5:')) return;
			if (!trimmed) return;
		}
		const tag = first === 58 ? tagOf(line) : undefined;
		// A :86: line wrapped where its text holds ":12:" is no field of its own.
		if (tag && !KNOWN_TAGS.has(tag) && field?.tag === '86') {
			field.lines.push(line);
			return;
		}
		if (tag) {
			flushField();
			const value = line.slice(tag.length + 2);
			if (tag === '20') startMessage(number);
			else if (!inMessage) {
				throw new BankFileError(
					'INVALID_RECORD',
					`A ${name} field :${tag}: before the message's reference (:20:)`,
					where(number),
				);
			}
			field = { tag, lines: [value], line: number };
			if (!KNOWN_TAGS.has(tag)) flushField();
			return;
		}
		if (!line) return;
		if (field) field.lines.push(line);
		// Lines before the first message (a bank's file header) are not part of any message.
	};

	const end = (): void => {
		endMessage();
		if (statement) closeIncomplete();
		if (!messages)
			throw new BankFileError('NOT_A_BANK_FILE', `The file holds no ${name} message (:20:)`);
	};

	return { line: read, end };
}

/** :61: references: the account owner's (before //, none when NONREF) and the bank's (after //). */
function splitReference(rest: string): [string | null, string | null] {
	const at = rest.indexOf('//');
	const customer = (at === -1 ? rest : rest.slice(0, at)).trim();
	const bank = at === -1 ? '' : rest.slice(at + 2).trim();
	// NONREF, or a pointer to the reference in :86: (EREF, KREF+): no reference of its own.
	const none = !customer || customer === 'NONREF' || /^[A-Z]{4}\+?$/.test(customer);
	// Strings of their own, not slices that would keep the whole line alive in the item.
	return [none ? null : ownString(customer), bank ? ownString(bank) : null];
}

/** An RF or Finnish creditor reference written alone as the purpose, as Nordic banks do. */
function referenceIn(text: string | null): { value: string; kind: 'RF' | 'FI' } | undefined {
	if (!text || text.length > 40) return undefined;
	const start = text.charCodeAt(0);
	// Only a text that starts as a reference does: with a digit or with RF.
	const rf = (start === 82 || start === 114) && (text[1] === 'F' || text[1] === 'f');
	if (!isDigit(start) && !rf) return undefined;
	const compact = text.replace(/\s+/g, '');
	if (!/^(RF\d{2}[A-Z0-9]+|\d{4,20})$/i.test(compact)) return undefined;
	const kind = referenceKind(compact);
	return kind ? { value: compact.toUpperCase(), kind } : undefined;
}
