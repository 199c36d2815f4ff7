import { CamtReader } from './camt';
import { detectFormat } from './detect';
import { lines, parseKtl, parseTito } from './finnish';
import { Pain002Reader } from './pain002';
import type { BankFileSource } from './source';
import { peek } from './source';
import type { BankEntry, DetectedFormat, ParseEvent, ParseOptions, ParseWarning, PaymentStatus, StatementKey, StatementSummary } from './types';
import { SubtreeReader } from './xml';

/**
 * Parses a bank file as it streams in, yielding what it finds in file order: first the detected
 * format, then entries, statements (after their entries), payment statuses and warnings.
 * Throws a BankFileError for a file it cannot read (wrong format, unknown version, truncated,
 * malformed, an invalid entry unless `onInvalidRecord: 'warn'`).
 */
export async function* parseBankFile(source: BankFileSource, options: ParseOptions = {}): AsyncGenerator<ParseEvent> {
	const { head, chunks } = await peek(source, 8192);
	const format = detectFormat(head, options.format);
	yield { type: 'format', format };
	if (format.format === 'tito') {
		yield* parseTito(lines(chunks, options.encoding), format, options);
		return;
	}
	if (format.format === 'ktl') {
		yield* parseKtl(lines(chunks, options.encoding), format, options);
		return;
	}
	const queue: ParseEvent[] = [];
	const emit = (event: ParseEvent): void => {
		queue.push(event);
	};
	let camt: CamtReader | undefined;
	const handler = format.format === 'pain.002' ? new Pain002Reader(format, emit) : (camt = new CamtReader(format, options, emit));
	const reader = new SubtreeReader(handler);
	if (camt) camt.namespaceOf = () => reader.rootNamespace;
	for await (const chunk of chunks) {
		reader.write(chunk);
		while (queue.length) yield queue.shift()!;
	}
	reader.close();
	while (queue.length) yield queue.shift()!;
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
export async function parseBankFileToArrays(source: BankFileSource, options: ParseOptions = {}): Promise<ParsedBankFile> {
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
