/**
 * pain.001 credit transfer initiation (versions .001.03 and .001.09) out of a list of payments:
 * every payment is checked first (each problem names the payment and the field), then the
 * payments are grouped into payment information blocks by debtor account, execution date and
 * category purpose, with counts and control sums filled in.
 */
import { fromUnits, isCurrencyCode, minorUnits, toUnits } from './amounts';
import {
	ibanProblem,
	isValidBic,
	isValidFinnishReference,
	isValidRfReference,
	normalizeIban,
} from './checks';
import type { PaymentProblem } from './errors';
import { PaymentValidationError } from './errors';
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

export interface PaymentFileOptions {
	version: PaymentFileVersion;
	/** Unique per file, at most 35 characters. */
	messageId: string;
	initiatingPartyName: string;
	/**
	 * Organisation id of the initiating party (e.g. a Finnish business id or the bank's customer id).
	 */
	initiatingPartyId?: string | null;
	/** Creation time written in the file; now when not given. */
	created?: Date;
	/** YYYY-MM-DD: execution dates before it are refused; the current UTC date when not given. */
	today?: string;
	batchBooking?: boolean;
	/**
	 * 'sepa': only the SEPA basic Latin characters in texts; 'unicode' (default): any XML text
	 * character.
	 */
	characterSet?: 'unicode' | 'sepa';
}

export interface PaymentInformationSummary {
	paymentInformationId: string;
	debtorIban: string;
	requestedExecutionDate: string;
	numberOfTransactions: number;
	controlSum: string;
}

export interface BuiltPaymentFile {
	xml: string;
	messageId: string;
	version: PaymentFileVersion;
	numberOfTransactions: number;
	controlSum: string;
	paymentInformation: PaymentInformationSummary[];
	/** The end-to-end id of each payment, in input order. */
	endToEndIds: string[];
}

const SEPA_TEXT = /^[A-Za-z0-9/\-?:().,'+ ]*$/;
// eslint-disable-next-line no-control-regex
const XML_TEXT = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]*$/;

const str = (value: unknown): string =>
	value === undefined || value === null ? '' : String(value).trim();

function textProblem(value: string, max: number, sepa: boolean): string | undefined {
	if ([...value].length > max)
		return `must be at most ${max} characters (found ${[...value].length})`;
	if (!XML_TEXT.test(value)) return 'holds control characters that XML cannot carry';
	if (sepa && !SEPA_TEXT.test(value))
		return "must use only the SEPA characters a-z A-Z 0-9 / - ? : ( ) . , ' + and space";
	return undefined;
}

function idProblem(value: string, max: number): string | undefined {
	if (value.length > max) return `must be at most ${max} characters (found ${value.length})`;
	if (!SEPA_TEXT.test(value)) return "must use only a-z A-Z 0-9 / - ? : ( ) . , ' + and space";
	if (value.startsWith('/') || value.endsWith('/') || value.includes('//'))
		return "must not start or end with '/' or hold '//'";
	return undefined;
}

function isCalendarDate(value: string): boolean {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
	const date = new Date(`${value}T00:00:00Z`);
	return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** Every rule one payment breaks (empty when it can go into a file). */
export function validatePayment(
	payment: PaymentInput,
	index: number,
	options: Pick<PaymentFileOptions, 'today' | 'characterSet'> = {},
): PaymentProblem[] {
	const problems: PaymentProblem[] = [];
	const add = (field: string, message: string): void => {
		problems.push({ index, field, message });
	};
	const sepa = options.characterSet === 'sepa';
	const today = options.today ?? new Date().toISOString().slice(0, 10);

	for (const [field, value] of [
		['debtorIban', payment.debtorIban],
		['creditorIban', payment.creditorIban],
	] as const) {
		const iban = str(value);
		if (!iban) add(field, 'is required');
		else {
			const problem = ibanProblem(iban);
			if (problem) add(field, `"${iban}" is not a valid IBAN: ${problem}`);
		}
	}
	for (const [field, value] of [
		['debtorBic', payment.debtorBic],
		['creditorBic', payment.creditorBic],
	] as const) {
		const bic = str(value).toUpperCase();
		if (bic && !isValidBic(bic))
			add(
				field,
				`"${bic}" is not a BIC: must be 8 or 11 letters or digits (bank 4, country 2, location 2, branch 3)`,
			);
	}
	for (const [field, value] of [
		['debtorName', payment.debtorName],
		['creditorName', payment.creditorName],
	] as const) {
		const name = str(value);
		if (!name) add(field, 'is required');
		else {
			const problem = textProblem(name, 70, sepa);
			if (problem) add(field, problem);
		}
	}
	const currency = str(payment.currency) || 'EUR';
	if (!/^[A-Z]{3}$/.test(currency) || !isCurrencyCode(currency))
		add('currency', `"${currency}" is not an ISO 4217 currency code`);
	const amountText =
		typeof payment.amount === 'number' ? String(payment.amount) : str(payment.amount);
	const units = /e/i.test(amountText) ? undefined : toUnits(amountText);
	if (amountText === '') add('amount', 'is required');
	else if (units === undefined) add('amount', `"${amountText}" is not a number`);
	else if (units <= 0) add('amount', `must be more than 0 (found ${amountText})`);
	else {
		const decimals = amountText.split('.')[1]?.length ?? 0;
		const allowed = minorUnits(currency);
		if (decimals > allowed)
			add(
				'amount',
				`${amountText} has ${decimals} decimals; ${currency} allows at most ${allowed}`,
			);
		if (fromUnits(units) >= 1e12)
			add('amount', `${amountText} is too large (at most 999999999999.99)`);
	}
	const date = str(payment.requestedExecutionDate);
	if (!date) add('requestedExecutionDate', 'is required');
	else if (!isCalendarDate(date))
		add('requestedExecutionDate', `"${date}" is not a date in the form YYYY-MM-DD`);
	else if (date < today)
		add('requestedExecutionDate', `${date} is in the past (today is ${today})`);

	const reference = str(payment.creditorReference).replace(/\s+/g, '');
	const text = str(payment.remittanceText);
	if (reference) {
		if (/^RF/i.test(reference)) {
			if (!isValidRfReference(reference))
				add(
					'creditorReference',
					`"${reference}" is not a valid RF creditor reference (ISO 11649: RF, 2 check digits, up to 21 letters or digits, mod-97)`,
				);
		} else if (/^\d+$/.test(reference)) {
			if (!isValidFinnishReference(reference))
				add(
					'creditorReference',
					`"${reference}" is not a valid Finnish reference number (4 to 20 digits, last one the 7-3-1 check digit)`,
				);
		} else
			add(
				'creditorReference',
				`"${reference}" is neither an RF creditor reference nor a Finnish reference number`,
			);
		if (text)
			add(
				'remittanceText',
				'give either a creditor reference or a message, not both (one remittance information per SEPA payment)',
			);
	} else if (text) {
		const problem = textProblem(text, 140, sepa);
		if (problem) add('remittanceText', problem);
	}
	for (const [field, value] of [
		['endToEndId', payment.endToEndId],
		['instructionId', payment.instructionId],
	] as const) {
		const id = str(value);
		if (id) {
			const problem = idProblem(id, 35);
			if (problem) add(field, problem);
		}
	}
	const purpose = str(payment.categoryPurpose);
	if (purpose && !/^[A-Z0-9]{4}$/.test(purpose))
		add(
			'categoryPurpose',
			`"${purpose}" is not an ISO category purpose code (4 letters, e.g. SALA, SUPP)`,
		);
	return problems;
}

function formatUnits(units: number, decimals: number): string {
	return fromUnits(units).toFixed(decimals);
}

/** Checks the options that concern the whole file. */
function optionProblems(options: PaymentFileOptions): PaymentProblem[] {
	const problems: PaymentProblem[] = [];
	if (!PAYMENT_FILE_VERSIONS.includes(options.version))
		problems.push({
			index: -1,
			field: 'version',
			message: `must be one of ${PAYMENT_FILE_VERSIONS.join(', ')}`,
		});
	const idProblemText = options.messageId ? idProblem(options.messageId, 35) : 'is required';
	if (idProblemText) problems.push({ index: -1, field: 'messageId', message: idProblemText });
	const name = str(options.initiatingPartyName);
	const nameProblem = name ? textProblem(name, 70, options.characterSet === 'sepa') : 'is required';
	if (nameProblem) problems.push({ index: -1, field: 'initiatingPartyName', message: nameProblem });
	const id = str(options.initiatingPartyId);
	if (id && id.length > 35)
		problems.push({
			index: -1,
			field: 'initiatingPartyId',
			message: 'must be at most 35 characters',
		});
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
	const problems = [
		...optionProblems(options),
		...payments.flatMap((p, i) => validatePayment(p, i, options)),
	];
	if (!payments.length)
		problems.push({
			index: -1,
			field: 'payments',
			message: 'there are no payments to put in the file',
		});
	if (problems.length) throw new PaymentValidationError(problems);

	const v09 = options.version === 'pain.001.001.09';
	const bicTag = v09 ? 'BICFI' : 'BIC';
	const created = (options.created ?? new Date()).toISOString().slice(0, 19);
	const groups = new Map<
		string,
		Array<{ payment: PaymentInput; index: number; endToEndId: string }>
	>();
	const endToEndIds: string[] = [];
	payments.forEach((payment, index) => {
		const endToEndId =
			str(payment.endToEndId) || `${options.messageId.slice(0, 28)}-${index + 1}`.slice(0, 35);
		endToEndIds.push(endToEndId);
		const key = [
			normalizeIban(payment.debtorIban),
			str(payment.debtorBic).toUpperCase(),
			str(payment.debtorName),
			str(payment.requestedExecutionDate),
			str(payment.categoryPurpose),
			str(payment.currency) || 'EUR',
		].join('|');
		const list = groups.get(key) ?? [];
		list.push({ payment, index, endToEndId });
		groups.set(key, list);
	});

	let totalUnits = 0;
	let maxDecimals = 0;
	const summaries: PaymentInformationSummary[] = [];
	const blocks: string[] = [];
	let blockNumber = 0;
	for (const list of groups.values()) {
		blockNumber++;
		const first = list[0].payment;
		const currency = str(first.currency) || 'EUR';
		const decimals = minorUnits(currency);
		maxDecimals = Math.max(maxDecimals, decimals);
		const id = `${options.messageId.slice(0, 30)}-${blockNumber}`.slice(0, 35);
		let units = 0;
		const transactions = list.map(({ payment, endToEndId }) => {
			const amountUnits = toUnits(
				typeof payment.amount === 'number' ? String(payment.amount) : str(payment.amount),
			)!;
			units += amountUnits;
			const reference = str(payment.creditorReference).replace(/\s+/g, '').toUpperCase();
			const text = str(payment.remittanceText);
			let remittance = '';
			if (reference) {
				const issuer = reference.startsWith('RF') ? '<Issr>ISO</Issr>' : '';
				remittance = `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry>${issuer}</Tp><Ref>${escapeXml(reference)}</Ref></CdtrRefInf></Strd></RmtInf>`;
			} else if (text) remittance = `<RmtInf><Ustrd>${escapeXml(text)}</Ustrd></RmtInf>`;
			const creditorBic = str(payment.creditorBic).toUpperCase();
			const instructionId = str(payment.instructionId);
			return (
				'<CdtTrfTxInf>' +
				`<PmtId>${instructionId ? `<InstrId>${escapeXml(instructionId)}</InstrId>` : ''}<EndToEndId>${escapeXml(endToEndId)}</EndToEndId></PmtId>` +
				`<Amt><InstdAmt Ccy="${currency}">${formatUnits(amountUnits, decimals)}</InstdAmt></Amt>` +
				(creditorBic
					? `<CdtrAgt><FinInstnId><${bicTag}>${creditorBic}</${bicTag}></FinInstnId></CdtrAgt>`
					: '') +
				`<Cdtr><Nm>${escapeXml(str(payment.creditorName))}</Nm></Cdtr>` +
				`<CdtrAcct><Id><IBAN>${normalizeIban(payment.creditorIban)}</IBAN></Id></CdtrAcct>` +
				remittance +
				'</CdtTrfTxInf>'
			);
		});
		totalUnits += units;
		const date = str(first.requestedExecutionDate);
		const debtorBic = str(first.debtorBic).toUpperCase();
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
		blocks.push(
			'<PmtInf>' +
				`<PmtInfId>${escapeXml(id)}</PmtInfId><PmtMtd>TRF</PmtMtd>` +
				(options.batchBooking !== undefined
					? `<BtchBookg>${options.batchBooking ? 'true' : 'false'}</BtchBookg>`
					: '') +
				`<NbOfTxs>${list.length}</NbOfTxs><CtrlSum>${controlSum}</CtrlSum>` +
				typeInfo +
				(v09
					? `<ReqdExctnDt><Dt>${date}</Dt></ReqdExctnDt>`
					: `<ReqdExctnDt>${date}</ReqdExctnDt>`) +
				`<Dbtr><Nm>${escapeXml(str(first.debtorName))}</Nm></Dbtr>` +
				`<DbtrAcct><Id><IBAN>${normalizeIban(first.debtorIban)}</IBAN></Id></DbtrAcct>` +
				`<DbtrAgt><FinInstnId>${debtorBic ? `<${bicTag}>${debtorBic}</${bicTag}>` : '<Othr><Id>NOTPROVIDED</Id></Othr>'}</FinInstnId></DbtrAgt>` +
				(sepa ? '<ChrgBr>SLEV</ChrgBr>' : '') +
				transactions.join('') +
				'</PmtInf>',
		);
	}
	const controlSum = formatUnits(totalUnits, maxDecimals);
	const partyId = str(options.initiatingPartyId);
	const xml =
		'<?xml version="1.0" encoding="UTF-8"?>\n' +
		`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${options.version}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		'<CstmrCdtTrfInitn>' +
		`<GrpHdr><MsgId>${escapeXml(options.messageId)}</MsgId><CreDtTm>${created}</CreDtTm>` +
		`<NbOfTxs>${payments.length}</NbOfTxs><CtrlSum>${controlSum}</CtrlSum>` +
		`<InitgPty><Nm>${escapeXml(str(options.initiatingPartyName))}</Nm>` +
		(partyId ? `<Id><OrgId><Othr><Id>${escapeXml(partyId)}</Id></Othr></OrgId></Id>` : '') +
		'</InitgPty></GrpHdr>' +
		blocks.join('') +
		'</CstmrCdtTrfInitn></Document>\n';
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
