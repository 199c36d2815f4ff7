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
	| 'ktl';

export interface DetectedFormat {
	format: BankFileFormat;
	/** ISO 20022 message version ("001.02"); "MT940" / "MT942" for SWIFT, "TITO" / "KTL". */
	version: string;
	/** The full message name, e.g. "camt.053.001.02", or "MT940", "MT942", "TITO", "KTL". */
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
}

export interface BalanceInfo {
	/** ISO 20022 balance type code: OPBD, PRCD, CLBD, CLAV, ITBD, FWAV, ... */
	type: string;
	amount: number;
	currency: string | null;
	date: string | null;
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
	 * Text encoding of MT940 / MT942, TITO and KTL files: 'auto' (default: UTF-8 when valid, else
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
