/**
 * pain.008 SEPA direct debit initiation (versions .001.02 and .001.08, Core and B2B) out of a list
 * of collections: every collection is checked first (each problem names the collection and the
 * field), then they are grouped into payment information blocks by creditor account and creditor
 * identifier, collection date, sequence type and scheme (Core / B2B), with counts and control sums
 * filled in; the file is checked against the official schema before it is handed out.
 */
import { creditorIdentifierProblem, normalizeIban } from './checks';
import type { PaymentProblem } from './errors';
import type { BuiltFile, PaymentFileSettings } from './payments';
import {
	accountXml,
	agentXml,
	assertBuildable,
	blockIdOf,
	checkAmount,
	checkBics,
	checkFutureDate,
	checkIbans,
	checkIds,
	checkNames,
	checkRemittance,
	documentXml,
	endToEndIdOf,
	formatUnits,
	groupBy,
	groupHeaderXml,
	idProblem,
	isCalendarDate,
	problemList,
	remittanceXml,
	str,
	unitsOf,
} from './payments';
import { assertSchemaValid } from './schema';
import { escapeXml } from './xml';

export type DirectDebitFileVersion = 'pain.008.001.02' | 'pain.008.001.08';
export const DIRECT_DEBIT_FILE_VERSIONS: DirectDebitFileVersion[] = [
	'pain.008.001.02',
	'pain.008.001.08',
];

/** FRST first of a series, RCUR a later one, FNAL the last one, OOFF a one-off collection. */
export type SequenceType = 'FRST' | 'RCUR' | 'FNAL' | 'OOFF';
export const SEQUENCE_TYPES: SequenceType[] = ['FRST', 'RCUR', 'FNAL', 'OOFF'];
/** CORE: SEPA Core (consumers and businesses); B2B: SEPA Business to Business. */
export type DirectDebitScheme = 'CORE' | 'B2B';
export const DIRECT_DEBIT_SCHEMES: DirectDebitScheme[] = ['CORE', 'B2B'];

export interface DirectDebitInput {
	/** The company collecting (the creditor) and the account the money goes to. */
	creditorName: string;
	creditorIban: string;
	creditorBic?: string | null;
	/** SEPA creditor identifier (e.g. DE98ZZZ09999999999), checked with its check digits. */
	creditorId: string;
	debtorName: string;
	debtorIban: string;
	debtorBic?: string | null;
	/** More than 0, at most 2 decimals, at most 999999999.99. */
	amount: number | string;
	/** EUR (SEPA direct debits are in euro); EUR when not given. */
	currency?: string | null;
	/** The mandate reference the debtor signed, and the date it was signed (YYYY-MM-DD). */
	mandateId: string;
	mandateSignatureDate: string;
	sequenceType: SequenceType | string;
	/** YYYY-MM-DD, not before `today`. */
	requestedCollectionDate: string;
	/** CORE (default) or B2B. */
	scheme?: DirectDebitScheme | string | null;
	/** An RF creditor reference (ISO 11649) or a Finnish reference number; or give remittanceText. */
	creditorReference?: string | null;
	remittanceText?: string | null;
	/** Returned by the banks in statements and returns; generated when empty. */
	endToEndId?: string | null;
	instructionId?: string | null;
}

export type DirectDebitFileOptions = PaymentFileSettings<DirectDebitFileVersion>;

export interface DirectDebitBlockSummary {
	paymentInformationId: string;
	creditorIban: string;
	creditorId: string;
	requestedCollectionDate: string;
	sequenceType: SequenceType;
	scheme: DirectDebitScheme;
	numberOfTransactions: number;
	controlSum: string;
}

export type BuiltDirectDebitFile = BuiltFile<DirectDebitFileVersion, DirectDebitBlockSummary>;

/** The largest amount a SEPA direct debit carries. */
const SDD_LIMIT = { value: 1e9, text: '999999999.99' };

const schemeOf = (debit: DirectDebitInput): string => str(debit.scheme).toUpperCase() || 'CORE';

/** Every rule one collection breaks (empty when it can go into a file). */
export function validateDirectDebit(
	debit: DirectDebitInput,
	index: number,
	options: Pick<DirectDebitFileOptions, 'today' | 'characterSet'> = {},
): PaymentProblem[] {
	const { problems, add, sepa, today } = problemList(index, options);
	checkNames(
		add,
		[
			['creditorName', debit.creditorName],
			['debtorName', debit.debtorName],
		],
		sepa,
	);
	checkIbans(add, [
		['creditorIban', debit.creditorIban],
		['debtorIban', debit.debtorIban],
	]);
	checkBics(add, [
		['creditorBic', debit.creditorBic],
		['debtorBic', debit.debtorBic],
	]);
	const creditorId = str(debit.creditorId);
	if (!creditorId) add('creditorId', 'is required (the SEPA creditor identifier)');
	else {
		const problem = creditorIdentifierProblem(creditorId);
		if (problem) add('creditorId', `"${creditorId}" is not a SEPA creditor identifier: ${problem}`);
	}
	const currency = str(debit.currency) || 'EUR';
	if (currency !== 'EUR')
		add('currency', `must be EUR: SEPA direct debits are collected in euro (found "${currency}")`);
	checkAmount(add, debit.amount, 'EUR', SDD_LIMIT);
	const mandateId = str(debit.mandateId);
	if (!mandateId) add('mandateId', 'is required (the reference of the mandate the debtor signed)');
	else {
		const problem = idProblem(mandateId, 35);
		if (problem) add('mandateId', problem);
	}
	const signed = str(debit.mandateSignatureDate);
	const collection = str(debit.requestedCollectionDate);
	if (!signed) add('mandateSignatureDate', 'is required');
	else if (!isCalendarDate(signed))
		add('mandateSignatureDate', `"${signed}" is not a date in the form YYYY-MM-DD`);
	else if (signed > today)
		add('mandateSignatureDate', `${signed} is in the future (today is ${today})`);
	const sequence = str(debit.sequenceType).toUpperCase();
	if (!sequence) add('sequenceType', `is required (one of ${SEQUENCE_TYPES.join(', ')})`);
	else if (!(SEQUENCE_TYPES as string[]).includes(sequence))
		add(
			'sequenceType',
			`"${sequence}" is not a sequence type: FRST (first), RCUR (recurring), FNAL (final) or OOFF (one-off)`,
		);
	checkFutureDate(add, 'requestedCollectionDate', collection, today);
	const scheme = schemeOf(debit);
	if (!(DIRECT_DEBIT_SCHEMES as string[]).includes(scheme))
		add('scheme', `"${scheme}" is not a SEPA direct debit scheme: CORE or B2B`);
	checkRemittance(add, debit.creditorReference, debit.remittanceText, sepa);
	checkIds(add, [
		['endToEndId', debit.endToEndId],
		['instructionId', debit.instructionId],
	]);
	return problems;
}

/** The creditor's SEPA identifier as pain.008 carries it (CdtrSchmeId). */
const creditorSchemeIdXml = (creditorId: string): string =>
	`<CdtrSchmeId><Id><PrvtId><Othr><Id>${escapeXml(creditorId)}</Id><SchmeNm><Prtry>SEPA</Prtry></SchmeNm></Othr></PrvtId></Id></CdtrSchmeId>`;

/**
 * Builds the file; throws PaymentValidationError listing every problem when any collection (or
 * option) is invalid, and a BankFileError when the file does not match its schema.
 */
export async function buildDirectDebitFile(
	debits: DirectDebitInput[],
	options: DirectDebitFileOptions,
): Promise<BuiltDirectDebitFile> {
	assertBuildable(
		debits,
		options,
		DIRECT_DEBIT_FILE_VERSIONS,
		(debit, index) => validateDirectDebit(debit, index, options),
		{ field: 'directDebits', noun: 'direct debits' },
	);

	const bicTag = options.version === 'pain.008.001.08' ? 'BICFI' : 'BIC';
	const endToEndIds = debits.map((debit, index) =>
		endToEndIdOf(debit.endToEndId, options.messageId, index),
	);
	const groups = groupBy(
		debits.map((debit, index) => ({ debit, endToEndId: endToEndIds[index] })),
		({ debit }) =>
			[
				normalizeIban(debit.creditorIban),
				str(debit.creditorBic).toUpperCase(),
				str(debit.creditorName),
				str(debit.creditorId).replace(/\s+/g, '').toUpperCase(),
				str(debit.requestedCollectionDate),
				str(debit.sequenceType).toUpperCase(),
				schemeOf(debit),
			].join('|'),
	);

	let totalUnits = 0;
	const summaries: DirectDebitBlockSummary[] = [];
	const blocks = groups.map((list, i) => {
		const first = list[0].debit;
		const id = blockIdOf(options.messageId, i + 1);
		let units = 0;
		const transactions = list.map(({ debit, endToEndId }) => {
			const amountUnits = unitsOf(debit.amount);
			units += amountUnits;
			const instructionId = str(debit.instructionId);
			return (
				'<DrctDbtTxInf>' +
				`<PmtId>${instructionId ? `<InstrId>${escapeXml(instructionId)}</InstrId>` : ''}<EndToEndId>${escapeXml(endToEndId)}</EndToEndId></PmtId>` +
				`<InstdAmt Ccy="EUR">${formatUnits(amountUnits, 2)}</InstdAmt>` +
				`<DrctDbtTx><MndtRltdInf><MndtId>${escapeXml(str(debit.mandateId))}</MndtId><DtOfSgntr>${str(debit.mandateSignatureDate)}</DtOfSgntr></MndtRltdInf></DrctDbtTx>` +
				`<DbtrAgt>${agentXml(debit.debtorBic, bicTag)}</DbtrAgt>` +
				`<Dbtr><Nm>${escapeXml(str(debit.debtorName))}</Nm></Dbtr>` +
				`<DbtrAcct>${accountXml(debit.debtorIban)}</DbtrAcct>` +
				remittanceXml(debit.creditorReference, debit.remittanceText) +
				'</DrctDbtTxInf>'
			);
		});
		totalUnits += units;
		const date = str(first.requestedCollectionDate);
		const sequenceType = str(first.sequenceType).toUpperCase() as SequenceType;
		const scheme = schemeOf(first) as DirectDebitScheme;
		const creditorId = str(first.creditorId).replace(/\s+/g, '').toUpperCase();
		const controlSum = formatUnits(units, 2);
		summaries.push({
			paymentInformationId: id,
			creditorIban: normalizeIban(first.creditorIban),
			creditorId,
			requestedCollectionDate: date,
			sequenceType,
			scheme,
			numberOfTransactions: list.length,
			controlSum,
		});
		return (
			'<PmtInf>' +
			`<PmtInfId>${escapeXml(id)}</PmtInfId><PmtMtd>DD</PmtMtd>` +
			(options.batchBooking !== undefined
				? `<BtchBookg>${options.batchBooking ? 'true' : 'false'}</BtchBookg>`
				: '') +
			`<NbOfTxs>${list.length}</NbOfTxs><CtrlSum>${controlSum}</CtrlSum>` +
			`<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl><LclInstrm><Cd>${scheme}</Cd></LclInstrm><SeqTp>${sequenceType}</SeqTp></PmtTpInf>` +
			`<ReqdColltnDt>${date}</ReqdColltnDt>` +
			`<Cdtr><Nm>${escapeXml(str(first.creditorName))}</Nm></Cdtr>` +
			`<CdtrAcct>${accountXml(first.creditorIban)}</CdtrAcct>` +
			`<CdtrAgt>${agentXml(first.creditorBic, bicTag)}</CdtrAgt>` +
			'<ChrgBr>SLEV</ChrgBr>' +
			creditorSchemeIdXml(creditorId) +
			transactions.join('') +
			'</PmtInf>'
		);
	});
	const controlSum = formatUnits(totalUnits, 2);
	const xml = documentXml(
		options.version,
		'CstmrDrctDbtInitn',
		groupHeaderXml({ ...options, count: debits.length, controlSum }),
		blocks,
	);
	await assertSchemaValid(xml, options.version);
	return {
		xml,
		messageId: options.messageId,
		version: options.version,
		numberOfTransactions: debits.length,
		controlSum,
		paymentInformation: summaries,
		endToEndIds,
	};
}
