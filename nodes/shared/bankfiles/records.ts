/**
 * What the line-based bank files (TITO, KTL, SWIFT MT940 / MT942) share: reading a file as
 * decoded lines, the record reader they implement, and how a bad record fails or is skipped.
 */
import { BankFileError } from './errors';
import type { ParseEvent, ParseOptions, StatementSummary } from './types';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/** Lines of the file, decoded, with their numbers (1-based). */
export async function* lines(
	chunks: AsyncIterable<Buffer>,
	encoding: ParseOptions['encoding'] = 'auto',
): AsyncGenerator<{ line: string; number: number; last: boolean }> {
	let rest: Buffer = Buffer.alloc(0);
	let number = 0;
	const decode = (bytes: Buffer): string => {
		if (encoding === 'latin1') return latin1.decode(bytes);
		if (encoding === 'utf-8') return utf8.decode(bytes);
		try {
			return utf8.decode(bytes);
		} catch {
			return latin1.decode(bytes);
		}
	};
	let pending: string | undefined;
	for await (const chunk of chunks) {
		let buffer = rest.length ? Buffer.concat([rest, chunk]) : chunk;
		let start = 0;
		for (;;) {
			const end = buffer.indexOf(0x0a, start);
			if (end === -1) break;
			let line = buffer.subarray(start, end);
			if (line.length && line[line.length - 1] === 0x0d) line = line.subarray(0, -1);
			if (pending !== undefined) yield { line: pending, number, last: false };
			number++;
			pending = decode(line);
			start = end + 1;
		}
		buffer = buffer.subarray(start);
		rest = Buffer.from(buffer);
	}
	if (rest.length) {
		if (pending !== undefined) yield { line: pending, number, last: false };
		number++;
		pending = decode(rest.subarray(0, rest[rest.length - 1] === 0x0d ? -1 : undefined));
	}
	if (pending !== undefined) yield { line: pending, number, last: true };
}

/**
 * The part of a statement read line by line that its later records fill in: no closing balance
 * yet, nothing counted, no check made.
 */
export function notYetCounted(): Pick<
	StatementSummary,
	| 'closingBalance'
	| 'closingBalanceDate'
	| 'availableBalance'
	| 'availableBalanceDate'
	| 'balances'
	| 'entryCount'
	| 'creditCount'
	| 'creditTotal'
	| 'debitCount'
	| 'debitTotal'
	| 'netTotal'
	| 'check'
	| 'warning'
> {
	return {
		closingBalance: null,
		closingBalanceDate: null,
		availableBalance: null,
		availableBalanceDate: null,
		balances: [],
		entryCount: 0,
		creditCount: 0,
		creditTotal: 0,
		debitCount: 0,
		debitTotal: 0,
		netTotal: 0,
		check: 'notAvailable',
		warning: null,
	};
}

export function skipOrFail(
	options: ParseOptions,
	emit: (event: ParseEvent) => void,
	code: 'UNKNOWN_RECORD' | 'INVALID_RECORD',
	message: string,
	location: string,
): void {
	if (options.onInvalidRecord === 'warn') {
		emit({
			type: 'warning',
			warning: { code, message: `${message}; the record was skipped`, location },
		});
		return;
	}
	throw new BankFileError(code, message, location);
}

export /** The message for a record type the format does not have (unprintable characters shown as ?). */
function unknownType(formatName: string, type: string): string {
	return `Unknown ${formatName} record type "${type.replace(/[^\x20-\x7e]/g, '?')}"`;
}

/**
 * Reads a line-based file line by line, emitting what each line completes; `end` after the last
 * line checks that the file is complete and emits what is still open.
 */
export interface RecordReader {
	line(line: string, number: number, last: boolean): void;
	end(): void;
}
