import { bai2Reader } from './bai2';
import { CamtReader } from './camt';
import { detectFormat } from './detect';
import { ktlReader, titoReader } from './finnish';
import { paymentStatusOf, statementOf } from './items';
import { Pain002Reader } from './pain002';
import type { BankFileSource } from './source';
import { swiftReader } from './mt940';
import type { RecordReader } from './records';
import { LineSplitter } from './records';
import { peek } from './source';
import type {
	BankEntry,
	BankFileFormat,
	DetectedFormat,
	ParseEvent,
	ParseOptions,
	ParseWarning,
	PaymentStatus,
	StatementKey,
	StatementSummary,
} from './types';
import { SubtreeReader } from './xml';

/** The formats read line by line, and their readers. */
const LINE_READERS: Partial<
	Record<
		BankFileFormat,
		(
			format: DetectedFormat,
			options: ParseOptions,
			emit: (event: ParseEvent) => void,
		) => RecordReader
	>
> = {
	tito: titoReader,
	ktl: ktlReader,
	mt940: swiftReader,
	mt942: swiftReader,
	bai2: bai2Reader,
};

/** Bytes parsed before the events they gave are handed over. */
const PIECE = 16 * 1024;

/**
 * Parses a bank file as it streams in, yielding what it finds in file order: first the detected
 * format, then entries, statements (after their entries), payment statuses and warnings.
 * Throws a BankFileError for a file it cannot read (wrong format, unknown version, truncated,
 * malformed, an invalid entry unless `onInvalidRecord: 'warn'`).
 */
export async function* parseBankFile(
	source: BankFileSource,
	options: ParseOptions = {},
): AsyncGenerator<ParseEvent> {
	const { head, chunks } = await peek(source, 8192);
	const format = detectFormat(head, options.format);
	yield { type: 'format', format };
	let queue: ParseEvent[] = [];
	const emit = (event: ParseEvent): void => {
		// Statements and payment statuses leave in reading order, whichever reader made them
		// (entries are built in that order from the start: see items.ts).
		if (event.type === 'statement') event.statement = statementOf(event.statement);
		else if (event.type === 'paymentStatus') event.status = paymentStatusOf(event.status);
		queue.push(event);
	};
	/** The events found so far, handed over (the queue starts anew). */
	const take = (): ParseEvent[] => {
		const events = queue;
		queue = [];
		return events;
	};
	const lineReader = LINE_READERS[format.format];
	if (lineReader) {
		const records = lineReader(format, options, emit);
		const splitter = new LineSplitter((line, number, last) => {
			records.line(line, number, last);
		}, options.encoding);
		// A chunk at a time, so that what its lines give is handed over before the next is read.
		for await (const chunk of chunks) {
			for (let offset = 0; offset < chunk.length; offset += PIECE) {
				splitter.push(chunk.length <= PIECE ? chunk : chunk.subarray(offset, offset + PIECE));
				if (queue.length) yield* take();
			}
		}
		splitter.end();
		records.end();
		yield* take();
		return;
	}
	let camt: CamtReader | undefined;
	const handler =
		format.format === 'pain.002'
			? new Pain002Reader(format, emit)
			: (camt = new CamtReader(format, options, emit));
	const reader = new SubtreeReader(handler);
	if (camt) camt.namespaceOf = () => reader.rootNamespace;
	for await (const chunk of chunks) {
		// A piece at a time, so that what one piece yields is handed over before the next is read.
		for (let offset = 0; offset < chunk.length; offset += PIECE) {
			reader.write(chunk.length <= PIECE ? chunk : chunk.subarray(offset, offset + PIECE));
			if (queue.length) yield* take();
		}
	}
	reader.close();
	yield* take();
}

export interface ParsedBankFile {
	format: DetectedFormat;
	entries: BankEntry[];
	statements: StatementSummary[];
	paymentStatuses: PaymentStatus[];
	warnings: ParseWarning[];
	skippedStatements: StatementKey[];
}

/** The whole result of parseBankFile in arrays (for files that fit in memory as items anyway). */
export async function parseBankFileToArrays(
	source: BankFileSource,
	options: ParseOptions = {},
): Promise<ParsedBankFile> {
	const out: Omit<ParsedBankFile, 'format'> & { format?: DetectedFormat } = {
		entries: [],
		statements: [],
		paymentStatuses: [],
		warnings: [],
		skippedStatements: [],
	};
	for await (const event of parseBankFile(source, options)) {
		if (event.type === 'format') out.format = event.format;
		else if (event.type === 'entry') out.entries.push(event.entry);
		else if (event.type === 'statement') out.statements.push(event.statement);
		else if (event.type === 'paymentStatus') out.paymentStatuses.push(event.status);
		else if (event.type === 'warning') out.warnings.push(event.warning);
		else out.skippedStatements.push(event.key);
	}
	return out as ParsedBankFile;
}
