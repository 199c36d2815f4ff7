/**
 * The Finnish fixed-width bank files (Finance Finland's descriptions): TITO "konekielinen
 * tiliote" (account statement, records T00 / T10 / T11 / T40 / T50 / T70 ...) and KTL
 * "viitesiirto" (incoming reference payments, records 0 / 3 / 5 / 9). Read line by line, each
 * line decoded on its own (ISO-8859-1 files are common; UTF-8 is accepted too).
 */
import { fromUnits, minorToUnits } from './amounts';
import { referenceKind } from './checks';
import { BankFileError } from './errors';
import type { RecordReader } from './records';
import { notYetCounted, skipOrFail, unknownType } from './records';
import type { PaymentFacts } from './items';
import { contextOf, entryOf, NO_PAYMENT_FACTS, statementKeyOf } from './items';
import type {
	BankEntry,
	BankFileFormat,
	BankTransactionCode,
	DetectedFormat,
	FxDetails,
	ParseEvent,
	ParseOptions,
	StatementSummary,
} from './types';

/** 1-based, inclusive field positions as the format descriptions give them. */
const field = (line: string, from: number, length: number): string =>
	line.slice(from - 1, from - 1 + length).trim();

const date6 = (value: string): string | null => {
	if (!/^\d{6}$/.test(value) || value === '000000') return null;
	return `20${value.slice(0, 2)}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
};

/** A signed amount in cents: sign character then digits. */
const signedCents = (sign: string, digits: string): number | undefined => {
	if (!/^\d+$/.test(digits)) return undefined;
	const cents = Number(digits);
	return sign === '-' ? -cents : cents;
};

const clean = (value: string): string | null =>
	value.trim() === '' ? null : value.trim().replace(/\s+/g, ' ');

/**
 * What a TITO or KTL entry says about its payment: the reference (RF or Finnish) and the
 * counterparty, no payment IDs and no message.
 */
function referenceOnly(
	reference: string,
	counterparty: Pick<PaymentFacts, 'counterpartyName' | 'counterpartyAccount'>,
	returnReason: string | null = null,
): PaymentFacts {
	return {
		...NO_PAYMENT_FACTS,
		creditorReference: reference || null,
		creditorReferenceType: reference ? (referenceKind(reference) ?? ('OTHER' as const)) : null,
		counterpartyName: counterparty.counterpartyName,
		counterpartyAccount: counterparty.counterpartyAccount,
		returnReason,
	};
}

const emptyCode: BankTransactionCode = {
	domain: null,
	family: null,
	subFamily: null,
	proprietary: null,
	proprietaryIssuer: null,
};

interface TitoStatement {
	summary: StatementSummary;
	skipped: boolean;
	bookedUnits: number;
	creditUnits: number;
	debitUnits: number;
	sawBalance: boolean;
	line: number;
}

/**
 * TITO: one statement per T00 record, one entry per T10 / T80 record (with its T11 / T81 details).
 */
export function titoReader(
	format: DetectedFormat,
	options: ParseOptions,
	emit: (event: ParseEvent) => void,
): RecordReader {
	let statement: TitoStatement | undefined;
	let entry: { value: BankEntry; detail: boolean; line: number } | undefined;
	/**
	 * The last main entry and its itemisations, emitted when the next main entry (or the end) comes.
	 */
	let main: { value: BankEntry; items: BankEntry[] } | undefined;

	const emitMain = (): void => {
		if (!main) return;
		const { value, items } = main;
		main = undefined;
		if (options.split === 'transaction' && items.length)
			items.forEach((item) => emit({ type: 'entry', entry: item }));
		else emit({ type: 'entry', entry: value });
	};

	const flushEntry = (): void => {
		if (!entry || !statement) return;
		const { value, detail } = entry;
		entry = undefined;
		if (statement.skipped) return;
		if (detail) {
			// An itemisation of the previous entry: an item of its own only when splitting per
			// transaction.
			if (main) {
				main.items.push(value);
				value.transactionIndex = main.items.length;
				value.entryAmount = main.value.amount;
				if (main.value.transactionCount < main.items.length)
					main.value.transactionCount = main.items.length;
			}
			return;
		}
		emitMain();
		const units = minorToUnits(Math.round(value.amount * 100));
		statement.summary.entryCount++;
		if (value.amount >= 0) {
			statement.summary.creditCount++;
			statement.creditUnits += units;
		} else {
			statement.summary.debitCount++;
			statement.debitUnits -= units;
		}
		if (value.status === 'BOOK') statement.bookedUnits += units;
		main = { value, items: [] };
	};

	const closeStatement = (): void => {
		flushEntry();
		emitMain();
		if (!statement) return;
		const s = statement;
		statement = undefined;
		if (s.skipped) {
			emit({ type: 'skippedStatement', key: statementKeyOf(s.summary) });
			return;
		}
		const summary = s.summary;
		summary.creditTotal = fromUnits(s.creditUnits);
		summary.debitTotal = fromUnits(s.debitUnits);
		summary.netTotal = fromUnits(s.creditUnits - s.debitUnits);
		if (summary.openingBalance !== null && summary.closingBalance !== null) {
			const computed = minorToUnits(Math.round(summary.openingBalance * 100)) + s.bookedUnits;
			const closing = minorToUnits(Math.round(summary.closingBalance * 100));
			if (computed === closing) summary.check = 'ok';
			else {
				summary.check = 'mismatch';
				summary.warning = `Opening balance ${summary.openingBalance} + booked entries ${fromUnits(s.bookedUnits)} = ${fromUnits(computed)}, but the closing balance is ${summary.closingBalance} (difference ${fromUnits(closing - computed)})`;
			}
		}
		emit({ type: 'statement', statement: summary });
	};

	const read = (line: string, number: number, last: boolean): void => {
		if (line.trim() === '') return;
		const location = `line ${number}`;
		const type = line.slice(0, 3);
		const declared = Number(line.slice(3, 6));
		if (last && Number.isFinite(declared) && line.length < declared && line.trimEnd() === line) {
			throw new BankFileError(
				'TRUNCATED',
				`The file is truncated: the last ${type} record is ${line.length} characters of ${declared}`,
				location,
			);
		}
		const record =
			Number.isFinite(declared) && line.length < declared ? line.padEnd(declared) : line;
		if (type === 'T00') {
			closeStatement();
			const account = field(record, 10, 14);
			const number3 = field(record, 24, 3);
			const from = date6(field(record, 27, 6));
			const created = field(record, 39, 10);
			const opening = signedCents(field(record, 72, 1), field(record, 73, 18));
			const ibanBic = field(record, 293, 30).split(/\s+/);
			const currency = field(record, 97, 3);
			const summary: StatementSummary = {
				messageType: format.messageType,
				messageId: null,
				statementId: `${from?.replace(/-/g, '') ?? ''}-${number3}`,
				statementSequence: Number(number3) || null,
				legalSequence: null,
				created: /^\d{10}$/.test(created)
					? `${date6(created.slice(0, 6))}T${created.slice(6, 8)}:${created.slice(8, 10)}:00`
					: null,
				periodFrom: from,
				periodTo: date6(field(record, 33, 6)),
				accountIban: ibanBic[0] && /^[A-Z]{2}\d{2}/.test(ibanBic[0]) ? ibanBic[0] : null,
				accountId: account || null,
				accountCurrency: currency === '1' ? 'EUR' : currency || null,
				accountOwner: clean(field(record, 148, 35)),
				accountServicerBic: ibanBic[1] || null,
				openingBalance: opening === undefined ? null : opening / 100,
				openingBalanceDate: date6(field(record, 66, 6)),
				...notYetCounted(),
			};
			if (summary.openingBalance !== null)
				summary.balances.push({
					type: 'OPBD',
					amount: summary.openingBalance,
					currency: summary.accountCurrency,
					date: summary.openingBalanceDate,
				});
			const skipped = options.skipStatement?.(statementKeyOf(summary)) ?? false;
			statement = {
				summary,
				skipped,
				bookedUnits: 0,
				creditUnits: 0,
				debitUnits: 0,
				sawBalance: false,
				line: number,
			};
		} else if (!statement) {
			throw new BankFileError(
				'INVALID_RECORD',
				`A ${type} record before the statement's basic record T00`,
				location,
			);
		} else if (type === 'T10' || type === 'T80') {
			flushEntry();
			const s = statement.summary;
			const cents = signedCents(field(record, 88, 1), field(record, 89, 18));
			if (cents === undefined) {
				skipOrFail(
					options,
					emit,
					'INVALID_RECORD',
					`The ${type} record has no valid amount ("${field(record, 88, 19)}")`,
					location,
				);
				return;
			}
			const entryType = field(record, 49, 1);
			// Leading zeros are padding: a field of zeros only is no reference.
			const reference = field(record, 160, 20).replace(/^0+/, '');
			const level = record.slice(187, 188);
			entry = {
				line: number,
				detail: level.trim() !== '' && level !== '0',
				value: entryOf(
					contextOf(s),
					{
						entryReference: field(record, 7, 6) || null,
						bookingDate: date6(field(record, 31, 6)),
						valueDate: date6(field(record, 37, 6)) ?? date6(field(record, 31, 6)),
						amount: cents / 100,
						currency: s.accountCurrency ?? 'EUR',
						creditDebit: cents >= 0 ? 'CRDT' : 'DBIT',
						status: entryType === '9' ? 'RJCT' : 'BOOK',
						reversal: entryType === '3' || entryType === '4',
						transactionCount: 1,
					},
					referenceOnly(reference, {
						counterpartyName: clean(field(record, 109, 35)),
						counterpartyAccount: field(record, 145, 14) || null,
					}),
					{
						bankTransactionCode: {
							...emptyCode,
							proprietary: field(record, 50, 3) || null,
							proprietaryIssuer: 'FI-TITO',
						},
						accountServicerReference: field(record, 13, 18) || null,
						fx: null,
						additionalInfo: clean(field(record, 53, 35)),
						transactionIndex: null,
						entryAmount: null,
					},
				),
			};
		} else if (type === 'T11' || type === 'T81') {
			if (!entry) {
				skipOrFail(
					options,
					emit,
					'INVALID_RECORD',
					`A ${type} record without a transaction record before it`,
					location,
				);
				return;
			}
			const e = entry.value;
			const kind = field(record, 7, 2);
			const data = record.slice(8);
			const chunks35 = (text: string): string[] =>
				(text.match(/.{1,35}/g) ?? []).map((t) => t.trim()).filter(Boolean);
			if (kind === '00' || kind === '06') {
				const messages = chunks35(data).join(' ');
				e.remittanceText = [e.remittanceText, messages].filter(Boolean).join(' ') || null;
			} else if (kind === '01') {
				const count = Number(field(data, 1, 8));
				if (count > 0) e.transactionCount = count;
			} else if (kind === '05') {
				const amount = signedCents(field(data, 1, 1), field(data, 2, 18));
				const rate = field(data, 25, 11);
				const fx: FxDetails = {
					instructedAmount: amount === undefined ? null : Math.abs(amount) / 100,
					instructedCurrency: field(data, 21, 3) || null,
					sourceCurrency: field(data, 21, 3) || null,
					targetCurrency: e.currency,
					unitCurrency: null,
					rate: /^\d+$/.test(rate) ? Number(rate) / 1e6 : null,
					contractId: field(data, 36, 6) || null,
				};
				e.fx = fx;
			} else if (kind === '08') {
				e.returnReason = field(data, 1, 3) || null;
				const description = clean(field(data, 5, 31));
				if (description)
					e.additionalInfo = [e.additionalInfo, description].filter(Boolean).join(' ');
			} else if (kind === '09') {
				e.counterpartyName = clean(field(data, 1, 35)) ?? e.counterpartyName;
			} else if (kind === '11') {
				const endToEnd = clean(field(data, 1, 35));
				e.endToEndId = endToEnd && endToEnd !== 'NOTPROVIDED' ? endToEnd : null;
				e.counterpartyIban = clean(field(data, 36, 35));
				e.counterpartyBic = clean(field(data, 71, 35));
				const recipient = clean(field(data, 106, 70));
				const payer = clean(field(data, 176, 70));
				const fullName = e.creditDebit === 'CRDT' ? payer : recipient;
				if (fullName) e.counterpartyName = fullName;
			}
			// other detail kinds (invoice, card, correction, bank messages) add nothing to the fields
		} else if (type === 'T40') {
			flushEntry();
			const s = statement.summary;
			const closing = signedCents(field(record, 13, 1), field(record, 14, 18));
			const available = signedCents(field(record, 32, 1), field(record, 33, 18));
			const day = date6(field(record, 7, 6));
			/** Lists a balance of the day and returns its amount. */
			const listed = (balanceType: 'CLBD' | 'CLAV', cents: number): number => {
				const amount = cents / 100;
				s.balances.push({ type: balanceType, amount, currency: s.accountCurrency, date: day });
				return amount;
			};
			if (closing !== undefined) {
				s.closingBalance = listed('CLBD', closing);
				s.closingBalanceDate = day;
			}
			if (available !== undefined) {
				s.availableBalance = listed('CLAV', available);
				s.availableBalanceDate = day;
			}
			statement.sawBalance = true;
		} else if (['T50', 'T51', 'T56', 'T57', 'T60', 'T70'].includes(type)) {
			flushEntry();
			// cumulative and special records: totals and bank notices, not entries
		} else {
			flushEntry();
			skipOrFail(options, emit, 'UNKNOWN_RECORD', unknownType('TITO', type), location);
		}
	};

	const end = (): void => {
		if (statement && !statement.sawBalance) {
			throw new BankFileError(
				'TRUNCATED',
				'The file is truncated: the last statement has no balance record (T40)',
				`statement starting on line ${statement.line}`,
			);
		}
		closeStatement();
	};

	return { line: read, end };
}

/** KTL: one entry per reference payment record (3 or 5), one batch summary per 0 ... 9 batch. */
export function ktlReader(
	format: DetectedFormat,
	options: ParseOptions,
	emit: (event: ParseEvent) => void,
): RecordReader {
	let batch:
		| {
				summary: StatementSummary;
				creditUnits: number;
				debitUnits: number;
				count: number;
				corrections: number;
				correctionUnits: number;
				failed: number;
				failedUnits: number;
				skipped?: boolean;
				line: number;
				decided: boolean;
		  }
		| undefined;
	const read = (line: string, number: number): void => {
		if (line.trim() === '') return;
		const location = `line ${number}`;
		const type = line.slice(0, 1);
		if (type === '0') {
			if (batch)
				throw new BankFileError(
					'TRUNCATED',
					'A new batch (record 0) starts before the previous one ended with its summary record 9',
					location,
				);
			const created = date6(field(line, 2, 6));
			const time = field(line, 8, 4);
			const serviceId = field(line, 14, 9);
			batch = {
				line: number,
				decided: false,
				creditUnits: 0,
				debitUnits: 0,
				count: 0,
				corrections: 0,
				correctionUnits: 0,
				failed: 0,
				failedUnits: 0,
				summary: {
					messageType: format.messageType,
					messageId: null,
					statementId: `${serviceId || 'KTL'}-${created?.replace(/-/g, '') ?? ''}${time}`,
					statementSequence: null,
					legalSequence: null,
					created:
						created && /^\d{4}$/.test(time)
							? `${created}T${time.slice(0, 2)}:${time.slice(2)}:00`
							: created,
					periodFrom: created,
					periodTo: created,
					accountIban: null,
					accountId: null,
					accountCurrency:
						field(line, 23, 1) === '1' || field(line, 23, 1) === '' ? 'EUR' : field(line, 23, 1),
					accountOwner: null,
					accountServicerBic: null,
					openingBalance: null,
					openingBalanceDate: null,
					...notYetCounted(),
				},
			};
		} else if (!batch) {
			throw new BankFileError(
				'INVALID_RECORD',
				`A record "${type}" before the batch header record 0`,
				location,
			);
		} else if (type === '3' || type === '5') {
			const s = batch.summary;
			const account = field(line, 2, 14);
			if (!batch.decided) {
				batch.decided = true;
				s.accountId = account || null;
				batch.skipped = options.skipStatement?.(statementKeyOf(s)) ?? false;
			}
			const digits = field(line, 78, 10);
			if (!/^\d{10}$/.test(digits)) {
				skipOrFail(
					options,
					emit,
					'INVALID_RECORD',
					`The payment record has no valid amount ("${digits}")`,
					location,
				);
				return;
			}
			const correction = field(line, 88, 1) === '1';
			const cents = Number(digits);
			const units = minorToUnits(cents);
			// A direct debit (record 5) with a feedback code other than 0 was not collected: the
			// bank lists it, and counts it apart in the summary record, but no money moved.
			const feedback = field(line, 90, 1);
			const failed = type === '5' && feedback !== '' && feedback !== '0';
			if (failed) {
				batch.failed += 1;
				batch.failedUnits += units;
			} else {
				batch.count += correction ? 0 : 1;
				batch.corrections += correction ? 1 : 0;
				if (correction) batch.correctionUnits += units;
			}
			if (batch.skipped) return;
			// Leading zeros are padding: a field of zeros only is no reference.
			const reference = field(line, 44, 20).replace(/^0+/, '');
			const amount = (correction ? -cents : cents) / 100;
			if (failed) {
				// listed for follow-up, left out of the counts and totals
			} else if (correction) {
				s.debitCount++;
				batch.debitUnits += units;
			} else {
				s.creditCount++;
				batch.creditUnits += units;
			}
			s.entryCount++;
			emit({
				type: 'entry',
				entry: entryOf(
					{ ...contextOf(s), accountId: account || null },
					{
						entryReference: null,
						bookingDate: date6(field(line, 16, 6)),
						valueDate: date6(field(line, 22, 6)),
						amount,
						currency: s.accountCurrency ?? 'EUR',
						creditDebit: correction ? 'DBIT' : 'CRDT',
						status: failed ? 'INFO' : 'BOOK',
						reversal: correction,
						transactionCount: 1,
					},
					referenceOnly(
						reference,
						{ counterpartyName: clean(field(line, 64, 12)), counterpartyAccount: null },
						failed ? `KTL feedback code ${feedback}: the direct debit was not collected` : null,
					),
					{
						bankTransactionCode: {
							domain: 'PMNT',
							family: 'RCDT',
							subFamily: type === '5' ? 'RDDT' : null,
							proprietary: type === '5' ? 'KTL-5' : 'KTL-3',
							proprietaryIssuer: 'FI-KTL',
						},
						accountServicerReference: field(line, 28, 16) || null,
						fx: null,
						additionalInfo: null,
						transactionIndex: null,
						entryAmount: null,
					},
				),
			});
		} else if (type === '9') {
			const s = batch.summary;
			const count = Number(field(line, 2, 6));
			const total = Number(field(line, 8, 11));
			const corrections = Number(field(line, 19, 6));
			const correctionTotal = Number(field(line, 25, 11));
			// Failed direct debits: count and amount (left blank by files without direct debits).
			const failedCount = Number(field(line, 36, 6) || 0);
			const failedTotal = Number(field(line, 42, 11) || 0);
			if (batch.skipped) {
				emit({ type: 'skippedStatement', key: statementKeyOf(s) });
			} else {
				s.creditTotal = fromUnits(batch.creditUnits);
				s.debitTotal = fromUnits(batch.debitUnits);
				s.netTotal = fromUnits(batch.creditUnits - batch.debitUnits);
				const failedText = (n: number, units: string | number) =>
					n ? `, ${n} failed direct debits of ${units}` : '';
				const found = `${batch.count} payments of ${fromUnits(batch.creditUnits)}, ${batch.corrections} corrections of ${fromUnits(batch.correctionUnits)}${failedText(batch.failed, fromUnits(batch.failedUnits))}`;
				const declared = `${count} payments of ${total / 100}, ${corrections} corrections of ${correctionTotal / 100}${failedText(failedCount, failedTotal / 100)}`;
				const matches =
					count === batch.count &&
					minorToUnits(total) === batch.creditUnits &&
					corrections === batch.corrections &&
					minorToUnits(correctionTotal) === batch.correctionUnits &&
					(Number.isFinite(failedCount) ? failedCount : 0) === batch.failed &&
					minorToUnits(Number.isFinite(failedTotal) ? failedTotal : 0) === batch.failedUnits;
				s.check = matches ? 'ok' : 'mismatch';
				s.warning = matches
					? null
					: `The batch summary record says ${declared}, the records hold ${found}`;
				emit({ type: 'statement', statement: s });
			}
			batch = undefined;
		} else {
			skipOrFail(options, emit, 'UNKNOWN_RECORD', unknownType('KTL', type), location);
		}
	};

	const end = (): void => {
		if (batch)
			throw new BankFileError(
				'TRUNCATED',
				'The file is truncated: the last batch has no summary record 9',
				`batch starting on line ${batch.line}`,
			);
	};

	return { line: read, end };
}

export const FINNISH_FORMATS: BankFileFormat[] = ['tito', 'ktl'];
