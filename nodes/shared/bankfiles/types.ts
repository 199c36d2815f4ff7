/**
 * The shapes bank files are parsed into. Plain JSON values only, so they can become n8n items as
 * they are.
 */

export type BankFileFormat =
	| 'camt.052'
	| 'camt.053'
	| 'camt.054'
	| 'mt940'
	| 'mt942'
	| 'pain.002'
	| 'tito'
	| 'ktl'
	| 'bai2';

export interface DetectedFormat {
	format: BankFileFormat;
	/** ISO 20022 message version ("001.02"); "MT940" / "MT942" for SWIFT, "TITO" / "KTL", "2" (BAI2). */
	version: string;
	/** The full message name, e.g. "camt.053.001.02", or "MT940", "MT942", "TITO", "KTL", "BAI2". */
	messageType: string;
}

export interface BankTransactionCode {
	domain: string | null;
	family: string | null;
	subFamily: string | null;
	proprietary: string | null;
	proprietaryIssuer: string | null;
}

export interface FxDetails {
	/** The amount as originally instructed, and its currency. */
	instructedAmount: number | null;
	instructedCurrency: string | null;
	sourceCurrency: string | null;
	targetCurrency: string | null;
	unitCurrency: string | null;
	rate: number | null;
	contractId: string | null;
}

/**
 * One booking entry (or one transaction of an entry, when split per transaction detail). The
 * fields come in the order an accountant reads them (see items.ts, where every format builds its
 * entries).
 */
export interface BankEntry {
	bookingDate: string | null;
	valueDate: string | null;
	/** Signed: credits positive, debits negative. */
	amount: number;
	currency: string;
	creditDebit: 'CRDT' | 'DBIT';
	counterpartyName: string | null;
	counterpartyIban: string | null;
	counterpartyAccount: string | null;
	counterpartyBic: string | null;
	creditorReference: string | null;
	/** RF (ISO 11649), FI (Finnish national reference), or OTHER; null without a reference. */
	creditorReferenceType: 'RF' | 'FI' | 'OTHER' | null;
	remittanceText: string | null;
	/**
	 * The documents a payment settles, from structured remittance information (camt Strd): the
	 * invoices and credit notes it pays, each with its own amount; null when the file gives none.
	 */
	documents: RemittedDocument[] | null;
	endToEndId: string | null;
	status: string | null;
	reversal: boolean;
	accountIban: string | null;
	/** The account number when the account is not given as an IBAN (e.g. a Finnish BBAN in TITO). */
	accountId: string | null;
	accountCurrency: string | null;
	entryReference: string | null;
	accountServicerReference: string | null;
	bankTransactionCode: BankTransactionCode;
	instructionId: string | null;
	transactionId: string | null;
	paymentInformationId: string | null;
	mandateId: string | null;
	/** The SEPA creditor identifier of a direct debit (camt scheme ID, MT940 CRED+). */
	creditorId: string | null;
	/**
	 * The party the payment was made for or on behalf of, when it is not the counterparty
	 * (camt UltmtDbtr / UltmtCdtr, MT940 ABWA+ / ABWE+).
	 */
	ultimateCounterpartyName: string | null;
	purpose: string | null;
	returnReason: string | null;
	additionalInfo: string | null;
	fx: FxDetails | null;
	/** How many transactions the entry holds (a batch entry holds several). */
	transactionCount: number;
	/**
	 * 1-based index of the transaction within the entry when split per transaction detail, else null.
	 */
	transactionIndex: number | null;
	/** Transaction amount when split per transaction detail (signed like amount), else null. */
	entryAmount: number | null;
	statementId: string | null;
	statementSequence: number | null;
	legalSequence: number | null;
	statementCreated: string | null;
	periodFrom: string | null;
	periodTo: string | null;
	accountServicerBic: string | null;
	messageType: string;
	messageId: string | null;
	/** The entry's XML element, when asked for. */
	xml?: string;
	/** BAI2 only: the funds type of the transaction detail (16), null when defaulted. */
	funds?: FundsAvailability | null;
}

/**
 * When the money of a BAI2 amount is available (its funds type): immediately (0), after one day
 * (1), after two or more days (2), on a value date (V), distributed over days (S, D), or unknown (Z).
 */
export interface FundsAvailability {
	type: '0' | '1' | '2' | 'S' | 'V' | 'D' | 'Z';
	availability: 'immediate' | 'oneDay' | 'twoOrMoreDays' | 'valueDated' | 'distributed' | 'unknown';
	/** V: the date the money is available (YYYY-MM-DD), and the time (HH:MM) when given. */
	valueDate: string | null;
	valueTime: string | null;
	/**
	 * S and D: the amounts available after so many days (S: 0, 1 and 2 days, where 2 means two or
	 * more), in the currency's units; null for the other funds types.
	 */
	distribution: Array<{ days: number; amount: number }> | null;
}

/** One activity summary of a BAI2 account (03 record): total credits (100), total debits (400), ... */
export interface Bai2Summary {
	typeCode: string;
	description: string | null;
	/** CRDT for credit codes, DBIT for debit codes, null for the others (loans, the bank's own). */
	creditDebit: 'CRDT' | 'DBIT' | null;
	/** Unsigned, in the currency's units; null when the record reports no amount. */
	amount: number | null;
	itemCount: number | null;
	funds: FundsAvailability | null;
}

/** What a BAI2 file says of an account report beyond what every statement says. */
export interface Bai2Report {
	/** The file's sender and receiver (01), its creation date-time and its identification number. */
	senderId: string;
	receiverId: string;
	fileCreated: string | null;
	fileId: string;
	/** The group's originator (the bank holding the account) and ultimate receiver (02). */
	originatorId: string;
	ultimateReceiverId: string | null;
	/** 1 update, 2 deletion, 3 correction, 4 test only. */
	groupStatus: 'update' | 'deletion' | 'correction' | 'testOnly';
	asOfDate: string;
	/** HH:MM in the originator's time zone; 24:00 is the end of the day (2400 or 9999). */
	asOfTime: string | null;
	asOfDateModifier:
		| 'interimPreviousDay'
		| 'finalPreviousDay'
		| 'interimSameDay'
		| 'finalSameDay'
		| null;
	/** The activity summaries of the 03 record (and its continuations), in file order. */
	summaries: Bai2Summary[];
	/** The texts of non-monetary information details (type code 890). */
	information: string[];
	/** The account trailer's (49) control total in the currency's units, and its record count. */
	controlTotal: number;
	recordCount: number;
}

export interface BalanceInfo {
	/**
	 * ISO 20022 balance type code: OPBD, PRCD, CLBD, CLAV, ITBD, FWAV, ...; for a BAI2 status code
	 * without an ISO 20022 equivalent, the BAI2 type code itself ("072").
	 */
	type: string;
	amount: number;
	currency: string | null;
	date: string | null;
	/** BAI2 only: the status type code ("010") and its description ("Opening Ledger"). */
	typeCode?: string;
	description?: string | null;
}

export type StatementCheck = 'ok' | 'mismatch' | 'notAvailable';

/**
 * One statement, notification, intraday report or reference payment batch, with its balances and
 * the balance check; account, period, balances and check first.
 */
export interface StatementSummary {
	accountIban: string | null;
	accountId: string | null;
	accountCurrency: string | null;
	accountOwner: string | null;
	periodFrom: string | null;
	periodTo: string | null;
	openingBalance: number | null;
	openingBalanceDate: string | null;
	closingBalance: number | null;
	closingBalanceDate: string | null;
	/**
	 * opening + booked entries = closing (statements), or the file's own totals (KTL, MT942).
	 */
	check: StatementCheck;
	/** What the check found when it did not match, else null. */
	warning: string | null;
	availableBalance: number | null;
	availableBalanceDate: string | null;
	entryCount: number;
	creditCount: number;
	creditTotal: number;
	debitCount: number;
	/** Positive. */
	debitTotal: number;
	netTotal: number;
	statementId: string | null;
	statementSequence: number | null;
	legalSequence: number | null;
	created: string | null;
	accountServicerBic: string | null;
	balances: BalanceInfo[];
	messageType: string;
	messageId: string | null;
	/** BAI2 only: the file, group and account facts, activity summaries and information. */
	bai2?: Bai2Report;
}

/** One payment's (or payment group's) status from a pain.002 report: which payment, and why. */
export interface PaymentStatus {
	originalEndToEndId: string | null;
	status: string | null;
	reasonCode: string | null;
	reasonProprietary: string | null;
	additionalInfo: string | null;
	amount: number | null;
	currency: string | null;
	requestedExecutionDate: string | null;
	creditorName: string | null;
	creditorIban: string | null;
	originalInstructionId: string | null;
	originalPaymentInformationId: string | null;
	/** transaction, paymentInformation or group: the level the bank reported at. */
	level: 'transaction' | 'paymentInformation' | 'group';
	statusId: string | null;
	originalMessageId: string | null;
	originalMessageType: string | null;
	originalNumberOfTransactions: number | null;
	originalControlSum: number | null;
	messageType: string;
	messageId: string | null;
	created: string | null;
}

export interface ParseWarning {
	code: string;
	message: string;
	location: string | null;
}

export type ParseEvent =
	| { type: 'format'; format: DetectedFormat }
	| { type: 'entry'; entry: BankEntry }
	| { type: 'statement'; statement: StatementSummary }
	| { type: 'paymentStatus'; status: PaymentStatus }
	| { type: 'skippedStatement'; key: StatementKey }
	| { type: 'warning'; warning: ParseWarning };

export interface StatementKey {
	account: string;
	statementId: string;
}

export interface ParseOptions {
	/** 'auto' (default) detects the format from the content. */
	format?: BankFileFormat | 'auto';
	/** 'entry' (default): one item per booking entry; 'transaction': one per transaction detail. */
	split?: 'entry' | 'transaction';
	/** Keep each entry's XML element in `xml`. */
	keepXml?: boolean;
	/**
	 * 'fail' (default) stops at a record or entry that cannot be read; 'warn' skips it with a
	 * warning.
	 */
	onInvalidRecord?: 'fail' | 'warn';
	/** Statements to skip (already processed): return true to skip; its entries are not read. */
	skipStatement?: (key: StatementKey) => boolean;
	/**
	 * Text encoding of MT940 / MT942, BAI2, TITO and KTL files: 'auto' (default: UTF-8 when valid, else
	 * ISO-8859-1).
	 */
	encoding?: 'auto' | 'utf-8' | 'latin1';
}

/** One document a payment settles (camt structured remittance information, Strd). */
export interface RemittedDocument {
	/** The document's kind: CINV (invoice), CREN (credit note), DEBN, SOAC, ... or the bank's own. */
	type: string | null;
	/** The document's number (RfrdDocInf Nb). */
	number: string | null;
	/** The document's date. */
	date: string | null;
	/** The creditor's reference given with the document (CdtrRefInf Ref). */
	reference: string | null;
	/**
	 * The amount the payment settles for this document: the remitted amount, else the amount due;
	 * a credit note's amount is negative, so that the documents add up to the payment.
	 */
	amount: number | null;
	currency: string | null;
}
