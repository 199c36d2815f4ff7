/**
 * What the line-based bank files (TITO, KTL, SWIFT MT940 / MT942, BAI2) share: reading a file as
 * decoded lines, the record reader they implement, and how a bad record fails or is skipped.
 */
import { isAscii } from 'node:buffer';

import { BankFileError } from './errors';
import type { ParseEvent, ParseOptions, StatementSummary } from './types';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

/**
 * Splits a file into decoded lines as its bytes come, with their numbers (1-based), each line
 * decoded on its own: UTF-8 when it is valid UTF-8, else ISO-8859-1 ('auto'), or as chosen. One
 * line is held back until the next one (or the end) shows whether it is the last.
 */
export class LineSplitter {
	private rest: Buffer = Buffer.alloc(0);
	private number = 0;
	private pending: string | undefined;

	constructor(
		private readonly onLine: (line: string, number: number, last: boolean) => void,
		private readonly encoding: ParseOptions['encoding'] = 'auto',
	) {}

	private decode(bytes: Buffer): string {
		// Plain ASCII (most lines of most files) reads the same in every encoding.
		if (isAscii(bytes)) return bytes.toString('latin1');
		if (this.encoding === 'latin1') return latin1.decode(bytes);
		if (this.encoding === 'utf-8') return utf8.decode(bytes);
		try {
			return utf8.decode(bytes);
		} catch {
			return latin1.decode(bytes);
		}
	}

	private take(line: string): void {
		if (this.pending !== undefined) this.onLine(this.pending, this.number, false);
		this.number++;
		this.pending = line;
	}

	/** The lines a chunk completes. */
	push(chunk: Buffer): void {
		const buffer = this.rest.length ? Buffer.concat([this.rest, chunk]) : chunk;
		// A piece that is all ASCII is cut into lines without looking at each line's bytes again.
		const ascii = isAscii(buffer);
		let start = 0;
		for (;;) {
			const end = buffer.indexOf(0x0a, start);
			if (end === -1) break;
			const stop = end > start && buffer[end - 1] === 0x0d ? end - 1 : end;
			this.take(
				ascii ? buffer.toString('latin1', start, stop) : this.decode(buffer.subarray(start, stop)),
			);
			start = end + 1;
		}
		this.rest = start < buffer.length ? Buffer.from(buffer.subarray(start)) : Buffer.alloc(0);
	}

	/** The last lines, the very last one marked as such. */
	end(): void {
		const rest = this.rest;
		if (rest.length)
			this.take(this.decode(rest.subarray(0, rest[rest.length - 1] === 0x0d ? -1 : undefined)));
		this.rest = Buffer.alloc(0);
		if (this.pending !== undefined) this.onLine(this.pending, this.number, true);
		this.pending = undefined;
	}
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
