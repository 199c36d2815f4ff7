/**
 * The one place entry, statement and payment status items are put together, in the order an
 * accountant reads them: for an entry the dates, the amount, the counterparty and the reference
 * first, then the account, the bank's codes and references, and the statement and message it
 * came in last; for a statement the account, the period, the balances and their check first.
 * Every format (camt, MT940/942, BAI2, TITO, KTL) builds its items here, so they all have one shape.
 */
import type { BankEntry, PaymentStatus, StatementKey, StatementSummary } from './types';

/** Statement-level facts every entry item carries. */
export type StatementContext = Pick<
	BankEntry,
	| 'messageType'
	| 'messageId'
	| 'statementId'
	| 'statementSequence'
	| 'legalSequence'
	| 'statementCreated'
	| 'periodFrom'
	| 'periodTo'
	| 'accountIban'
	| 'accountId'
	| 'accountCurrency'
	| 'accountServicerBic'
>;

/** What a booking entry says of itself, shared by its transactions. */
export type EntryHead = Pick<
	BankEntry,
	| 'entryReference'
	| 'bookingDate'
	| 'valueDate'
	| 'amount'
	| 'currency'
	| 'creditDebit'
	| 'status'
	| 'reversal'
	| 'transactionCount'
>;

/** What the entry says about the payment: its IDs, reference, message and counterparty. */
export type PaymentFacts = Pick<
	BankEntry,
	| 'endToEndId'
	| 'instructionId'
	| 'transactionId'
	| 'paymentInformationId'
	| 'mandateId'
	| 'creditorId'
	| 'creditorReference'
	| 'creditorReferenceType'
	| 'remittanceText'
	| 'documents'
	| 'counterpartyName'
	| 'counterpartyIban'
	| 'counterpartyAccount'
	| 'counterpartyBic'
	| 'ultimateCounterpartyName'
	| 'purpose'
	| 'returnReason'
>;

/** The bank's codes and notes on the entry, and where a split transaction sits in its entry. */
export type EntryTail = Pick<
	BankEntry,
	| 'bankTransactionCode'
	| 'accountServicerReference'
	| 'fx'
	| 'additionalInfo'
	| 'transactionIndex'
	| 'entryAmount'
>;

/** The payment facts of an entry that says nothing about its payment. */
export const NO_PAYMENT_FACTS: Readonly<PaymentFacts> = Object.freeze({
	endToEndId: null,
	instructionId: null,
	transactionId: null,
	paymentInformationId: null,
	mandateId: null,
	creditorId: null,
	creditorReference: null,
	creditorReferenceType: null,
	remittanceText: null,
	documents: null,
	counterpartyName: null,
	counterpartyIban: null,
	counterpartyAccount: null,
	counterpartyBic: null,
	ultimateCounterpartyName: null,
	purpose: null,
	returnReason: null,
});

/** The key a statement is remembered by: its account (the IBAN, else the number) and its ID. */
export function statementKeyOf(
	s: Pick<BankEntry, 'accountIban' | 'accountId' | 'statementId'>,
): StatementKey {
	return { account: s.accountIban ?? s.accountId ?? '', statementId: s.statementId ?? '' };
}

/** The statement facts entries carry, from a statement summary read so far. */
export function contextOf(s: StatementSummary): StatementContext {
	return {
		messageType: s.messageType,
		messageId: s.messageId,
		statementId: s.statementId,
		statementSequence: s.statementSequence,
		legalSequence: s.legalSequence,
		statementCreated: s.created,
		periodFrom: s.periodFrom,
		periodTo: s.periodTo,
		accountIban: s.accountIban,
		accountId: s.accountId,
		accountCurrency: s.accountCurrency,
		accountServicerBic: s.accountServicerBic,
	};
}

/**
 * One entry item, written out field by field (no object spread): every item gets the same shape
 * from the start, and nothing of the statement's objects is copied through the engine's slow
 * paths.
 */
export function entryOf(
	c: StatementContext,
	h: EntryHead,
	f: PaymentFacts,
	t: EntryTail,
): BankEntry {
	return {
		bookingDate: h.bookingDate,
		valueDate: h.valueDate,
		amount: h.amount,
		currency: h.currency,
		creditDebit: h.creditDebit,
		counterpartyName: f.counterpartyName,
		counterpartyIban: f.counterpartyIban,
		counterpartyAccount: f.counterpartyAccount,
		counterpartyBic: f.counterpartyBic,
		creditorReference: f.creditorReference,
		creditorReferenceType: f.creditorReferenceType,
		remittanceText: f.remittanceText,
		documents: f.documents,
		endToEndId: f.endToEndId,
		status: h.status,
		reversal: h.reversal,
		accountIban: c.accountIban,
		accountId: c.accountId,
		accountCurrency: c.accountCurrency,
		entryReference: h.entryReference,
		accountServicerReference: t.accountServicerReference,
		bankTransactionCode: t.bankTransactionCode,
		instructionId: f.instructionId,
		transactionId: f.transactionId,
		paymentInformationId: f.paymentInformationId,
		mandateId: f.mandateId,
		creditorId: f.creditorId,
		ultimateCounterpartyName: f.ultimateCounterpartyName,
		purpose: f.purpose,
		returnReason: f.returnReason,
		additionalInfo: t.additionalInfo,
		fx: t.fx,
		transactionCount: h.transactionCount,
		transactionIndex: t.transactionIndex,
		entryAmount: t.entryAmount,
		statementId: c.statementId,
		statementSequence: c.statementSequence,
		legalSequence: c.legalSequence,
		statementCreated: c.statementCreated,
		periodFrom: c.periodFrom,
		periodTo: c.periodTo,
		accountServicerBic: c.accountServicerBic,
		messageType: c.messageType,
		messageId: c.messageId,
	};
}

/** A statement item in reading order: account, period, balances and their check first. */
export function statementOf(s: StatementSummary): StatementSummary {
	const statement: StatementSummary = {
		accountIban: s.accountIban,
		accountId: s.accountId,
		accountCurrency: s.accountCurrency,
		accountOwner: s.accountOwner,
		periodFrom: s.periodFrom,
		periodTo: s.periodTo,
		openingBalance: s.openingBalance,
		openingBalanceDate: s.openingBalanceDate,
		closingBalance: s.closingBalance,
		closingBalanceDate: s.closingBalanceDate,
		check: s.check,
		warning: s.warning,
		availableBalance: s.availableBalance,
		availableBalanceDate: s.availableBalanceDate,
		entryCount: s.entryCount,
		creditCount: s.creditCount,
		creditTotal: s.creditTotal,
		debitCount: s.debitCount,
		debitTotal: s.debitTotal,
		netTotal: s.netTotal,
		statementId: s.statementId,
		statementSequence: s.statementSequence,
		legalSequence: s.legalSequence,
		created: s.created,
		accountServicerBic: s.accountServicerBic,
		balances: s.balances,
		messageType: s.messageType,
		messageId: s.messageId,
	};
	// What only a BAI2 account report has, last.
	if (s.bai2) statement.bai2 = s.bai2;
	return statement;
}

/** A payment status item in reading order: which payment, its status and why, then the rest. */
export function paymentStatusOf(s: PaymentStatus): PaymentStatus {
	return {
		originalEndToEndId: s.originalEndToEndId,
		status: s.status,
		reasonCode: s.reasonCode,
		reasonProprietary: s.reasonProprietary,
		additionalInfo: s.additionalInfo,
		amount: s.amount,
		currency: s.currency,
		requestedExecutionDate: s.requestedExecutionDate,
		creditorName: s.creditorName,
		creditorIban: s.creditorIban,
		originalInstructionId: s.originalInstructionId,
		originalPaymentInformationId: s.originalPaymentInformationId,
		level: s.level,
		statusId: s.statusId,
		originalMessageId: s.originalMessageId,
		originalMessageType: s.originalMessageType,
		originalNumberOfTransactions: s.originalNumberOfTransactions,
		originalControlSum: s.originalControlSum,
		messageType: s.messageType,
		messageId: s.messageId,
		created: s.created,
	};
}
