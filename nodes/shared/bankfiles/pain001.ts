/**
 * pain.001 credit transfer initiation (versions .001.03 and .001.09) out of a list of payments:
 * every payment is checked first (each problem names the payment and the field), then the
 * payments are grouped into payment information blocks by debtor account, execution date and
 * category purpose, with counts and control sums filled in.
 */
import { minorUnits } from './amounts';
import { normalizeIban } from './checks';
import type { PaymentProblem } from './errors';
import type { BuiltFile, PaymentFileSettings } from './payments';
import {
	accountXml,
	agentXml,
	assertBuildable,
	blockIdOf,
	checkAmount,
	checkBics,
	checkCurrency,
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
	problemList,
	remittanceXml,
	str,
	unitsOf,
} from './payments';
import { escapeXml } from './xml';

export type PaymentFileVersion = 'pain.001.001.03' | 'pain.001.001.09';
export const PAYMENT_FILE_VERSIONS: PaymentFileVersion[] = ['pain.001.001.03', 'pain.001.001.09'];

export interface PaymentInput {
	debtorName: string;
	debtorIban: string;
	debtorBic?: string | null;
	creditorName: string;
	creditorIban: string;
	creditorBic?: string | null;
	/** More than 0, at most the currency's minor-unit decimals (2 for EUR). */
	amount: number | string;
	/** ISO 4217 code; EUR when not given. */
	currency?: string | null;
	/** YYYY-MM-DD, not before `today`. */
	requestedExecutionDate: string;
	/** An RF creditor reference (ISO 11649) or a Finnish reference number; or give remittanceText. */
	creditorReference?: string | null;
	remittanceText?: string | null;
	/**
	 * Given by the payer, returned by the bank in statements and status reports; generated when
	 * empty.
	 */
	endToEndId?: string | null;
	instructionId?: string | null;
	/** ISO category purpose code such as SALA (salaries) or SUPP (supplier payment). */
	categoryPurpose?: string | null;
}

export type PaymentFileOptions = PaymentFileSettings<PaymentFileVersion>;

export interface PaymentInformationSummary {
	paymentInformationId: string;
	debtorIban: string;
	requestedExecutionDate: string;
	numberOfTransactions: number;
	controlSum: string;
}

export type BuiltPaymentFile = BuiltFile<PaymentFileVersion, PaymentInformationSummary>;

/** Every rule one payment breaks (empty when it can go into a file). */
export function validatePayment(
	payment: PaymentInput,
	index: number,
	options: Pick<PaymentFileOptions, 'today' | 'characterSet'> = {},
): PaymentProblem[] {
	const { problems, add, sepa, today } = problemList(index, options);
	checkIbans(add, [
		['debtorIban', payment.debtorIban],
		['creditorIban', payment.creditorIban],
	]);
	checkBics(add, [
		['debtorBic', payment.debtorBic],
		['creditorBic', payment.creditorBic],
	]);
	checkNames(
		add,
		[
			['debtorName', payment.debtorName],
			['creditorName', payment.creditorName],
		],
		sepa,
	);
	const currency = str(payment.currency) || 'EUR';
	checkCurrency(add, currency);
	checkAmount(add, payment.amount, currency);
	checkFutureDate(add, 'requestedExecutionDate', payment.requestedExecutionDate, today);
	checkRemittance(add, payment.creditorReference, payment.remittanceText, sepa);
	checkIds(add, [
		['endToEndId', payment.endToEndId],
		['instructionId', payment.instructionId],
	]);
	const purpose = str(payment.categoryPurpose);
	if (purpose && !/^[A-Z0-9]{4}$/.test(purpose))
		add(
			'categoryPurpose',
			`"${purpose}" is not an ISO category purpose code (4 letters, e.g. SALA, SUPP)`,
		);
	return problems;
}

/**
 * Builds the file; throws PaymentValidationError listing every problem when any payment (or option)
 * is invalid.
 */
export function buildPaymentFile(
	payments: PaymentInput[],
	options: PaymentFileOptions,
): BuiltPaymentFile {
	assertBuildable(
		payments,
		options,
		PAYMENT_FILE_VERSIONS,
		(payment, index) => validatePayment(payment, index, options),
		{ field: 'payments', noun: 'payments' },
	);

	const v09 = options.version === 'pain.001.001.09';
	const bicTag = v09 ? 'BICFI' : 'BIC';
	const endToEndIds = payments.map((payment, index) =>
		endToEndIdOf(payment.endToEndId, options.messageId, index),
	);
	const groups = groupBy(
		payments.map((payment, index) => ({ payment, endToEndId: endToEndIds[index] })),
		({ payment }) =>
			[
				normalizeIban(payment.debtorIban),
				str(payment.debtorBic).toUpperCase(),
				str(payment.debtorName),
				str(payment.requestedExecutionDate),
				str(payment.categoryPurpose),
				str(payment.currency) || 'EUR',
			].join('|'),
	);

	let totalUnits = 0;
	let maxDecimals = 0;
	const summaries: PaymentInformationSummary[] = [];
	const blocks = groups.map((list, i) => {
		const first = list[0].payment;
		const currency = str(first.currency) || 'EUR';
		const decimals = minorUnits(currency);
		maxDecimals = Math.max(maxDecimals, decimals);
		const id = blockIdOf(options.messageId, i + 1);
		let units = 0;
		const transactions = list.map(({ payment, endToEndId }) => {
			const amountUnits = unitsOf(payment.amount);
			units += amountUnits;
			const creditorBic = str(payment.creditorBic);
			const instructionId = str(payment.instructionId);
			return (
				'<CdtTrfTxInf>' +
				`<PmtId>${instructionId ? `<InstrId>${escapeXml(instructionId)}</InstrId>` : ''}<EndToEndId>${escapeXml(endToEndId)}</EndToEndId></PmtId>` +
				`<Amt><InstdAmt Ccy="${currency}">${formatUnits(amountUnits, decimals)}</InstdAmt></Amt>` +
				(creditorBic ? `<CdtrAgt>${agentXml(creditorBic, bicTag)}</CdtrAgt>` : '') +
				`<Cdtr><Nm>${escapeXml(str(payment.creditorName))}</Nm></Cdtr>` +
				`<CdtrAcct>${accountXml(payment.creditorIban)}</CdtrAcct>` +
				remittanceXml(payment.creditorReference, payment.remittanceText) +
				'</CdtTrfTxInf>'
			);
		});
		totalUnits += units;
		const date = str(first.requestedExecutionDate);
		const purpose = str(first.categoryPurpose);
		const sepa = currency === 'EUR';
		const typeInfo =
			sepa || purpose
				? `<PmtTpInf>${sepa ? '<SvcLvl><Cd>SEPA</Cd></SvcLvl>' : ''}${purpose ? `<CtgyPurp><Cd>${purpose}</Cd></CtgyPurp>` : ''}</PmtTpInf>`
				: '';
		const controlSum = formatUnits(units, decimals);
		summaries.push({
			paymentInformationId: id,
			debtorIban: normalizeIban(first.debtorIban),
			requestedExecutionDate: date,
			numberOfTransactions: list.length,
			controlSum,
		});
		return (
			'<PmtInf>' +
			`<PmtInfId>${escapeXml(id)}</PmtInfId><PmtMtd>TRF</PmtMtd>` +
			(options.batchBooking !== undefined
				? `<BtchBookg>${options.batchBooking ? 'true' : 'false'}</BtchBookg>`
				: '') +
			`<NbOfTxs>${list.length}</NbOfTxs><CtrlSum>${controlSum}</CtrlSum>` +
			typeInfo +
			(v09 ? `<ReqdExctnDt><Dt>${date}</Dt></ReqdExctnDt>` : `<ReqdExctnDt>${date}</ReqdExctnDt>`) +
			`<Dbtr><Nm>${escapeXml(str(first.debtorName))}</Nm></Dbtr>` +
			`<DbtrAcct>${accountXml(first.debtorIban)}</DbtrAcct>` +
			`<DbtrAgt>${agentXml(first.debtorBic, bicTag)}</DbtrAgt>` +
			(sepa ? '<ChrgBr>SLEV</ChrgBr>' : '') +
			transactions.join('') +
			'</PmtInf>'
		);
	});
	const controlSum = formatUnits(totalUnits, maxDecimals);
	const xml = documentXml(
		options.version,
		'CstmrCdtTrfInitn',
		groupHeaderXml({ ...options, count: payments.length, controlSum }),
		blocks,
	);
	return {
		xml,
		messageId: options.messageId,
		version: options.version,
		numberOfTransactions: payments.length,
		controlSum,
		paymentInformation: summaries,
		endToEndIds,
	};
}
