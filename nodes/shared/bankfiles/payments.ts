/**
 * What the payment files the banks receive share, credit transfers (pain.001) and direct debits
 * (pain.008): the checks of one payment's fields (each problem names the field and the rule), the
 * checks of the file's own settings, and the XML pieces both messages write the same way.
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

const SEPA_TEXT = /^[A-Za-z0-9/\-?:().,'+ ]*$/;
// eslint-disable-next-line no-control-regex
const XML_TEXT = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]*$/;

/** What a payment file builder is told about the file as a whole. */
export interface PaymentFileSettings<Version extends string> {
	version: Version;
	/** Unique per file, at most 35 characters. */
	messageId: string;
	initiatingPartyName: string;
	/**
	 * Organisation id of the initiating party (e.g. a Finnish business id or the bank's customer id).
	 */
	initiatingPartyId?: string | null;
	/** Creation time written in the file; now when not given. */
	created?: Date;
	/** YYYY-MM-DD: execution or collection dates before it are refused; the current UTC date when not given. */
	today?: string;
	batchBooking?: boolean;
	/**
	 * 'sepa': only the SEPA basic Latin characters in texts; 'unicode' (default): any XML text
	 * character.
	 */
	characterSet?: 'unicode' | 'sepa';
}

/** What a payment file builder hands back: the file and what it holds. */
export interface BuiltFile<Version extends string, Block> {
	xml: string;
	messageId: string;
	version: Version;
	numberOfTransactions: number;
	controlSum: string;
	/** One summary per payment information block. */
	paymentInformation: Block[];
	/** The end-to-end ID of each payment, in input order. */
	endToEndIds: string[];
}

/** A value as trimmed text ('' for nothing). */
export const str = (value: unknown): string =>
	value === undefined || value === null ? '' : String(value).trim();

/** Adds one problem of the payment being checked: its field and the rule it breaks. */
export type AddProblem = (field: string, message: string) => void;

export function textProblem(value: string, max: number, sepa: boolean): string | undefined {
	if ([...value].length > max)
		return `must be at most ${max} characters (found ${[...value].length})`;
	if (!XML_TEXT.test(value)) return 'holds control characters that XML cannot carry';
	if (sepa && !SEPA_TEXT.test(value))
		return "must use only the SEPA characters a-z A-Z 0-9 / - ? : ( ) . , ' + and space";
	return undefined;
}

/** An identifier the payment carries through the banks (end-to-end ID, mandate ID, ...). */
export function idProblem(value: string, max: number): string | undefined {
	if (value.length > max) return `must be at most ${max} characters (found ${value.length})`;
	if (!SEPA_TEXT.test(value)) return "must use only a-z A-Z 0-9 / - ? : ( ) . , ' + and space";
	if (value.startsWith('/') || value.endsWith('/') || value.includes('//'))
		return "must not start or end with '/' or hold '//'";
	return undefined;
}

export function isCalendarDate(value: string): boolean {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
	const date = new Date(`${value}T00:00:00Z`);
	return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** Required IBANs, each valid (shape, length of its country, mod-97). */
export function checkIbans(add: AddProblem, fields: Array<[string, unknown]>): void {
	for (const [field, value] of fields) {
		const iban = str(value);
		if (!iban) add(field, 'is required');
		else {
			const problem = ibanProblem(iban);
			if (problem) add(field, `"${iban}" is not a valid IBAN: ${problem}`);
		}
	}
}

/** Optional BICs, each of the ISO 9362 shape when given. */
export function checkBics(add: AddProblem, fields: Array<[string, unknown]>): void {
	for (const [field, value] of fields) {
		const bic = str(value).toUpperCase();
		if (bic && !isValidBic(bic))
			add(
				field,
				`"${bic}" is not a BIC: must be 8 or 11 letters or digits (bank 4, country 2, location 2, branch 3)`,
			);
	}
}

/** Required names of at most 70 characters. */
export function checkNames(add: AddProblem, fields: Array<[string, unknown]>, sepa: boolean): void {
	for (const [field, value] of fields) {
		const name = str(value);
		if (!name) add(field, 'is required');
		else {
			const problem = textProblem(name, 70, sepa);
			if (problem) add(field, problem);
		}
	}
}

/** Optional identifiers of at most 35 characters. */
export function checkIds(add: AddProblem, fields: Array<[string, unknown]>): void {
	for (const [field, value] of fields) {
		const id = str(value);
		if (id) {
			const problem = idProblem(id, 35);
			if (problem) add(field, problem);
		}
	}
}

/** The amount as written: a number or its text. */
export const amountText = (amount: unknown): string =>
	typeof amount === 'number' ? String(amount) : str(amount);

/** More than 0, no more decimals than the currency has, below `limit`. */
export function checkAmount(
	add: AddProblem,
	amount: unknown,
	currency: string,
	limit = { value: 1e12, text: '999999999999.99' },
): void {
	const text = amountText(amount);
	const units = /e/i.test(text) ? undefined : toUnits(text);
	if (text === '') add('amount', 'is required');
	else if (units === undefined) add('amount', `"${text}" is not a number`);
	else if (units <= 0) add('amount', `must be more than 0 (found ${text})`);
	else {
		const decimals = text.split('.')[1]?.length ?? 0;
		const allowed = minorUnits(currency);
		if (decimals > allowed)
			add('amount', `${text} has ${decimals} decimals; ${currency} allows at most ${allowed}`);
		if (fromUnits(units) >= limit.value)
			add('amount', `${text} is too large (at most ${limit.text})`);
	}
}

export function checkCurrency(add: AddProblem, currency: string): void {
	if (!/^[A-Z]{3}$/.test(currency) || !isCurrencyCode(currency))
		add('currency', `"${currency}" is not an ISO 4217 currency code`);
}

/** A required date YYYY-MM-DD, not before `today`. */
export function checkFutureDate(
	add: AddProblem,
	field: string,
	value: unknown,
	today: string,
): void {
	const date = str(value);
	if (!date) add(field, 'is required');
	else if (!isCalendarDate(date)) add(field, `"${date}" is not a date in the form YYYY-MM-DD`);
	else if (date < today) add(field, `${date} is in the past (today is ${today})`);
}

/**
 * The remittance information: an RF creditor reference (ISO 11649) or a Finnish reference number,
 * or a message of at most 140 characters; not both.
 */
export function checkRemittance(
	add: AddProblem,
	creditorReference: unknown,
	remittanceText: unknown,
	sepa: boolean,
): void {
	const reference = str(creditorReference).replace(/\s+/g, '');
	const text = str(remittanceText);
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
}

/** A payment's problems as its checks find them, and the settings the checks go by. */
export function problemList(
	index: number,
	options: { today?: string; characterSet?: 'unicode' | 'sepa' },
): { problems: PaymentProblem[]; add: AddProblem; sepa: boolean; today: string } {
	const problems: PaymentProblem[] = [];
	return {
		problems,
		add: (field, message) => {
			problems.push({ index, field, message });
		},
		sepa: options.characterSet === 'sepa',
		today: options.today ?? new Date().toISOString().slice(0, 10),
	};
}

/** The file's version, message ID and initiating party. */
function fileProblems(
	options: PaymentFileSettings<string>,
	versions: readonly string[],
): PaymentProblem[] {
	const problems: PaymentProblem[] = [];
	if (!versions.includes(options.version))
		problems.push({
			index: -1,
			field: 'version',
			message: `must be one of ${versions.join(', ')}`,
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
 * Throws a PaymentValidationError listing every problem of the file's settings and of every item
 * (`field` and `noun` name the list when it is empty); returns when all can go into the file.
 */
export function assertBuildable<T>(
	items: T[],
	options: PaymentFileSettings<string>,
	versions: readonly string[],
	validate: (item: T, index: number) => PaymentProblem[],
	empty: { field: string; noun: string },
): void {
	const problems = [...fileProblems(options, versions), ...items.flatMap((p, i) => validate(p, i))];
	if (!items.length)
		problems.push({
			index: -1,
			field: empty.field,
			message: `there are no ${empty.noun} to put in the file`,
		});
	if (problems.length) throw new PaymentValidationError(problems);
}

/** The whole message: the document in its version's namespace, the group header, the blocks. */
export function documentXml(
	version: string,
	root: string,
	groupHeader: string,
	blocks: string[],
): string {
	return (
		'<?xml version="1.0" encoding="UTF-8"?>\n' +
		`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${version}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<${root}>${groupHeader}${blocks.join('')}</${root}></Document>\n`
	);
}

export function formatUnits(units: number, decimals: number): string {
	return fromUnits(units).toFixed(decimals);
}

/** The amount in units of 10^-5 (checked before). */
export const unitsOf = (amount: unknown): number => toUnits(amountText(amount))!;

/** RmtInf: the creditor reference (structured, SCOR) or the message (unstructured), or nothing. */
export function remittanceXml(creditorReference: unknown, remittanceText: unknown): string {
	const reference = str(creditorReference).replace(/\s+/g, '').toUpperCase();
	const text = str(remittanceText);
	if (reference) {
		const issuer = reference.startsWith('RF') ? '<Issr>ISO</Issr>' : '';
		return `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry>${issuer}</Tp><Ref>${escapeXml(reference)}</Ref></CdtrRefInf></Strd></RmtInf>`;
	}
	return text ? `<RmtInf><Ustrd>${escapeXml(text)}</Ustrd></RmtInf>` : '';
}

/** A bank (FinInstnId) by its BIC, or NOTPROVIDED when the payment gives none. */
export function agentXml(bic: unknown, bicTag: 'BIC' | 'BICFI'): string {
	const code = str(bic).toUpperCase();
	return `<FinInstnId>${code ? `<${bicTag}>${code}</${bicTag}>` : '<Othr><Id>NOTPROVIDED</Id></Othr>'}</FinInstnId>`;
}

/** An account by its IBAN. */
export const accountXml = (iban: unknown): string =>
	`<Id><IBAN>${normalizeIban(str(iban))}</IBAN></Id>`;

/** The group header both messages open with. */
export function groupHeaderXml(options: {
	messageId: string;
	created?: Date;
	count: number;
	controlSum: string;
	initiatingPartyName: string;
	initiatingPartyId?: string | null;
}): string {
	const created = (options.created ?? new Date()).toISOString().slice(0, 19);
	const partyId = str(options.initiatingPartyId);
	return (
		`<GrpHdr><MsgId>${escapeXml(options.messageId)}</MsgId><CreDtTm>${created}</CreDtTm>` +
		`<NbOfTxs>${options.count}</NbOfTxs><CtrlSum>${options.controlSum}</CtrlSum>` +
		`<InitgPty><Nm>${escapeXml(str(options.initiatingPartyName))}</Nm>` +
		(partyId ? `<Id><OrgId><Othr><Id>${escapeXml(partyId)}</Id></Othr></OrgId></Id>` : '') +
		'</InitgPty></GrpHdr>'
	);
}

/** The end-to-end ID of a payment: its own, or one made from the message ID and its place. */
export function endToEndIdOf(given: unknown, messageId: string, index: number): string {
	return str(given) || `${messageId.slice(0, 28)}-${index + 1}`.slice(0, 35);
}

/** The ID of the n-th payment information block of a file. */
export const blockIdOf = (messageId: string, n: number): string =>
	`${messageId.slice(0, 30)}-${n}`.slice(0, 35);

/** Payments grouped by a key, in the order each group first appears. */
export function groupBy<T>(list: T[], key: (item: T) => string): T[][] {
	const groups = new Map<string, T[]>();
	for (const item of list) {
		const k = key(item);
		const group = groups.get(k);
		if (group) group.push(item);
		else groups.set(k, [item]);
	}
	return [...groups.values()];
}
