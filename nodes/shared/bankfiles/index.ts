/**
 * Bank files as data: parsers for the files banks send and builders for the payment files they
 * receive. Pure functions with no n8n imports, so any node (Bank File, a trigger, ...) can use
 * them; errors are BankFileError / PaymentValidationError with stable codes.
 *
 * Reading
 * -------
 *   parseBankFile(source, options?): AsyncGenerator<ParseEvent>
 *     source: a Buffer, a Readable stream or any async iterable of chunks. The file is read as a
 *     stream: XML through a SAX parser that builds one entry (Ntry) at a time, never the whole
 *     document tree; MT940 / MT942, BAI2, TITO and KTL line by line. Events, in file order:
 *       { type: 'format', format: DetectedFormat }          always first
 *       { type: 'entry', entry: BankEntry }                 one per booking entry (or per TxDtls
 *                                                           with split: 'transaction')
 *       { type: 'statement', statement: StatementSummary }  after the statement's entries:
 *                                                           balances, totals, check
 *       { type: 'paymentStatus', status: PaymentStatus }    pain.002: per payment, else per
 *                                                           block / message
 *       { type: 'skippedStatement', key: StatementKey }     a statement options.skipStatement
 *                                                           refused
 *       { type: 'warning', warning: ParseWarning }          an entry / record left out
 *                                                           (onInvalidRecord: 'warn')
 *     Entries, statements and payment statuses have their fields in reading order (items.ts).
 *     options (ParseOptions): format ('auto' | one of BANK_FILE_FORMATS), split ('entry' |
 *     'transaction'), keepXml, onInvalidRecord ('fail' | 'warn'), skipStatement(key) => boolean,
 *     encoding ('auto' | 'utf-8' | 'latin1', for MT940 / MT942, BAI2, TITO and KTL).
 *   parseBankFileToArrays(source, options?): Promise<ParsedBankFile>   the same, in arrays
 *   detectFormat(head: Buffer, chosen?): DetectedFormat                 format and version from
 *                                                                       the first bytes
 *
 *   Formats: camt.052, camt.053 and camt.054 versions .001.02 to .001.08, pain.002 .001.03 to
 *   .001.10, SWIFT MT940 and MT942, BAI2 (BAI Cash Management Balance Reporting Specifications
 *   version 2: one statement per account, its trailers' control totals and record counts checked),
 *   Finnish TITO (konekielinen tiliote) and KTL (viitesiirto); ISO-8859-1 or UTF-8. A DOCTYPE in an
 *   XML file is refused by name.
 *
 * Writing
 * -------
 *   buildPaymentFile(payments: PaymentInput[], options: PaymentFileOptions): BuiltPaymentFile
 *     pain.001.001.03 or pain.001.001.09 credit transfers, grouped into payment information blocks
 *     by debtor account, execution date, category purpose and currency; throws
 *     PaymentValidationError (problems: { index, field, message }[]) before producing anything.
 *   validatePayment(payment, index, options?): PaymentProblem[]         the checks of one payment
 *   buildDirectDebitFile(debits: DirectDebitInput[], options): Promise<BuiltDirectDebitFile>
 *     pain.008.001.02 or pain.008.001.08 SEPA direct debits (Core, B2B), grouped by creditor,
 *     collection date, sequence type and scheme; checked like payments, then against the official
 *     schema (schemaProblems / assertSchemaValid) before the file is handed out.
 *   validateDirectDebit(debit, index, options?): PaymentProblem[]       the checks of one debit
 *
 * Checks
 * ------
 *   ibanProblem / isValidIban (ISO 13616 mod-97), isValidBic (ISO 9362), isValidRfReference
 *   (ISO 11649), isValidFinnishReference / finnishReferenceCheckDigit (7-3-1), rfFromBase,
 *   referenceKind, creditorIdentifierProblem (SEPA creditor identifier, ISO 7064 mod 97),
 *   isCurrencyCode, minorUnits.
 */
export { parseBankFile, parseBankFileToArrays } from './parse';
export type { ParsedBankFile } from './parse';
export { BANK_FILE_FORMATS, detectFormat, SUPPORTED_VERSIONS } from './detect';
export { typeCodeInfo } from './bai2Codes';
export type { TypeCodeInfo } from './bai2Codes';
export { buildPaymentFile, validatePayment, PAYMENT_FILE_VERSIONS } from './pain001';
export type {
	BuiltPaymentFile,
	PaymentFileOptions,
	PaymentFileVersion,
	PaymentInformationSummary,
	PaymentInput,
} from './pain001';
export {
	buildDirectDebitFile,
	DIRECT_DEBIT_FILE_VERSIONS,
	DIRECT_DEBIT_SCHEMES,
	SEQUENCE_TYPES,
	validateDirectDebit,
} from './pain008';
export type {
	BuiltDirectDebitFile,
	DirectDebitBlockSummary,
	DirectDebitFileOptions,
	DirectDebitFileVersion,
	DirectDebitInput,
	DirectDebitScheme,
	SequenceType,
} from './pain008';
export { assertSchemaValid, schemaProblems } from './schema';
export { BankFileError, PaymentValidationError } from './errors';
export type { BankFileErrorCode, PaymentProblem } from './errors';
export {
	creditorIdentifierProblem,
	finnishReferenceCheckDigit,
	ibanProblem,
	isValidBic,
	isValidFinnishReference,
	isValidIban,
	isValidRfReference,
	normalizeIban,
	referenceKind,
	rfFromBase,
} from './checks';
export { isCurrencyCode, minorUnits } from './amounts';
export type { BankFileSource } from './source';
export type * from './types';
