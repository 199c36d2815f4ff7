/** What kind of problem a bank file or a payment has; stable codes for callers to branch on. */
export type BankFileErrorCode =
	| 'NOT_XML'
	| 'NOT_A_BANK_FILE'
	| 'UNKNOWN_VERSION'
	| 'TRUNCATED'
	| 'INVALID_XML'
	| 'UNSAFE_XML'
	| 'NOT_DECODABLE'
	| 'MISSING_AMOUNT'
	| 'MIXED_CURRENCIES'
	| 'UNKNOWN_RECORD'
	| 'INVALID_RECORD'
	| 'CONTROL_TOTAL_MISMATCH'
	| 'INVALID_PAYMENT'
	| 'SCHEMA_INVALID';

/** A problem in a bank file (or a payment to be built) that names what was found and where. */
export class BankFileError extends Error {
	readonly code: BankFileErrorCode;
	/** Where: "line 12", "Stmt 2024-001 / Ntry 5", "item 3". */
	readonly location?: string;

	constructor(code: BankFileErrorCode, message: string, location?: string) {
		super(location ? `${message} (${location})` : message);
		this.name = 'BankFileError';
		this.code = code;
		this.location = location;
	}
}

/** One rule a payment breaks: the input item, the field and the rule. */
export interface PaymentProblem {
	/** Index of the payment in the list given to the builder (the n8n item index). */
	index: number;
	field: string;
	message: string;
}

/** The payments that cannot go into a file, every problem of every payment listed. */
export class PaymentValidationError extends BankFileError {
	readonly problems: PaymentProblem[];

	constructor(problems: PaymentProblem[]) {
		const shown = problems.slice(0, 10).map((p) => `item ${p.index}: ${p.field}: ${p.message}`);
		const more = problems.length > 10 ? `; and ${problems.length - 10} more` : '';
		super('INVALID_PAYMENT', `${problems.length} payment problem(s): ${shown.join('; ')}${more}`);
		this.name = 'PaymentValidationError';
		this.problems = problems;
	}
}
