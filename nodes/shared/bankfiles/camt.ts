import { fromUnits, toUnits } from './amounts';
import { referenceKind } from './checks';
import { BankFileError } from './errors';
import type {
	BalanceInfo,
	BankEntry,
	BankTransactionCode,
	DetectedFormat,
	FxDetails,
	ParseEvent,
	ParseOptions,
	RemittedDocument,
	StatementSummary,
} from './types';
import type { EntryHead, PaymentFacts, StatementContext } from './items';
import { entryOf, statementKeyOf } from './items';
import type { SubtreeHandler, XNode } from './xml';
import { child, children, firstText, serialize, text } from './xml';

const num = (value: string | null): number | null => {
	if (value === null) return null;
	const n = Number(value);
	return Number.isFinite(n) ? n : null;
};

/** ISO date (or date-time) of a DateAndDateTimeChoice. */
const dateOf = (node: XNode | undefined): string | null => firstText(node, ['Dt'], ['DtTm']);
const isoDate = (value: string | null): string | null =>
	value === null ? null : value.slice(0, 10);

/** A party name in any version: Nm directly (up to .07) or inside Pty (.08+). */
const partyName = (party: XNode | undefined): string | null =>
	firstText(party, ['Nm'], ['Pty', 'Nm']);
const bicOf = (agent: XNode | undefined): string | null =>
	firstText(agent, ['FinInstnId', 'BIC'], ['FinInstnId', 'BICFI'], ['FinInstnId', 'BICOrBEI']);
const accountIbanOf = (account: XNode | undefined): string | null => text(account, 'Id', 'IBAN');
const accountOtherOf = (account: XNode | undefined): string | null =>
	text(account, 'Id', 'Othr', 'Id');

/** A direct debit's SEPA creditor identifier: the creditor's private ID of scheme SEPA. */
function creditorSchemeId(parties: XNode | undefined): string | null {
	const creditor = child(parties, 'Cdtr');
	const ids = child(child(creditor, 'Pty') ?? creditor, 'Id', 'PrvtId');
	const sepa = children(ids, 'Othr').find((o) => text(o, 'SchmeNm', 'Prtry') === 'SEPA');
	return sepa ? text(sepa, 'Id') : null;
}

function bankTransactionCode(node: XNode | undefined): BankTransactionCode {
	return {
		domain: text(node, 'Domn', 'Cd'),
		family: text(node, 'Domn', 'Fmly', 'Cd'),
		subFamily: text(node, 'Domn', 'Fmly', 'SubFmlyCd'),
		proprietary: text(node, 'Prtry', 'Cd'),
		proprietaryIssuer: text(node, 'Prtry', 'Issr'),
	};
}

function fxDetails(tx: XNode | undefined, entry: XNode): FxDetails | null {
	const details = child(tx, 'AmtDtls') ?? child(entry, 'AmtDtls');
	if (!details) return null;
	const instructed = child(details, 'InstdAmt');
	const exchange =
		child(instructed, 'CcyXchg') ??
		child(details, 'TxAmt', 'CcyXchg') ??
		child(details, 'CntrValAmt', 'CcyXchg');
	const instructedAmount = child(instructed, 'Amt');
	if (!exchange && !instructedAmount) return null;
	const instructedCurrency = instructedAmount?.attrs.Ccy ?? null;
	if (!exchange && instructedCurrency && instructedCurrency === child(entry, 'Amt')?.attrs.Ccy)
		return null;
	return {
		instructedAmount: num(instructedAmount?.text ?? null),
		instructedCurrency,
		sourceCurrency: text(exchange, 'SrcCcy'),
		targetCurrency: text(exchange, 'TrgtCcy'),
		unitCurrency: text(exchange, 'UnitCcy'),
		rate: num(text(exchange, 'XchgRate')),
		contractId: text(exchange, 'CtrctId'),
	};
}

/** The facts of one transaction (TxDtls) for its BankEntry, with its amount as written. */
interface TxFacts
	extends PaymentFacts,
		Pick<BankEntry, 'accountServicerReference' | 'additionalInfo' | 'fx'> {
	bankTransactionCode: BankTransactionCode | null;
	amountText: string | null;
}

const notApplicable = (value: string | null): string | null =>
	value === null || value === 'NOTPROVIDED' ? null : value;

/**
 * The documents of one structured remittance block (Strd): one per referred document (RfrdDocInf),
 * or one for a block that gives only an amount and a creditor reference. The block's amounts
 * (RfrdDocAmt) go with its document when it names exactly one.
 */
function remittedDocuments(strd: XNode): RemittedDocument[] {
	const infos = children(strd, 'RfrdDocInf');
	const amounts = child(strd, 'RfrdDocAmt');
	if (!infos.length && !amounts) return [];
	const reference = text(strd, 'CdtrRefInf', 'Ref');
	const remitted = child(amounts, 'RmtdAmt') ?? child(amounts, 'DuePyblAmt');
	const creditNote = remitted ? undefined : child(amounts, 'CdtNoteAmt');
	const chosen = remitted ?? creditNote;
	const value = num(chosen?.text?.trim() ?? null);
	const amount = value === null ? null : creditNote ? -value : value;
	const currency = chosen?.attrs.Ccy ?? null;
	const one = (info: XNode | undefined, withAmount: boolean): RemittedDocument => ({
		type: firstText(info, ['Tp', 'CdOrPrtry', 'Cd'], ['Tp', 'CdOrPrtry', 'Prtry']),
		number: text(info, 'Nb')?.trim() || null,
		date: isoDate(firstText(info, ['RltdDt'], ['RltdDt', 'Dt'])),
		reference,
		amount: withAmount ? amount : null,
		currency: withAmount ? currency : null,
	});
	if (!infos.length) return [one(undefined, true)];
	return infos.map((info) => one(info, infos.length === 1));
}

function documentsOf(structured: XNode[]): RemittedDocument[] | null {
	if (!structured.length) return null;
	const documents = structured.flatMap(remittedDocuments);
	return documents.length ? documents : null;
}

function txFacts(tx: XNode | undefined, entry: XNode, credit: boolean): TxFacts {
	const parties = child(tx, 'RltdPties');
	const agents = child(tx, 'RltdAgts');
	const party = credit ? child(parties, 'Dbtr') : child(parties, 'Cdtr');
	const account = credit ? child(parties, 'DbtrAcct') : child(parties, 'CdtrAcct');
	const agent = credit ? child(agents, 'DbtrAgt') : child(agents, 'CdtrAgt');
	const remittance = child(tx, 'RmtInf');
	const structured = children(remittance, 'Strd');
	let creditorReference: string | null = null;
	let referenceType: string | null = null;
	for (const strd of structured) {
		const ref = text(strd, 'CdtrRefInf', 'Ref');
		if (ref) {
			creditorReference = ref;
			referenceType = firstText(
				strd,
				['CdtrRefInf', 'Tp', 'CdOrPrtry', 'Cd'],
				['CdtrRefInf', 'Tp', 'CdOrPrtry', 'Prtry'],
			);
			break;
		}
	}
	const unstructured = children(remittance, 'Ustrd')
		.map((u) => u.text)
		.filter(Boolean);
	const additional = structured
		.flatMap((s) => children(s, 'AddtlRmtInf').map((a) => a.text))
		.filter(Boolean);
	const refs = child(tx, 'Refs');
	const btc = child(tx, 'BkTxCd');
	let kind: BankEntry['creditorReferenceType'] = null;
	if (creditorReference) {
		const detected = referenceKind(creditorReference);
		kind =
			detected ?? (referenceType === 'SCOR' && /^RF/i.test(creditorReference) ? 'RF' : 'OTHER');
	}
	return {
		endToEndId: notApplicable(text(refs, 'EndToEndId')),
		instructionId: text(refs, 'InstrId'),
		transactionId: text(refs, 'TxId'),
		paymentInformationId: text(refs, 'PmtInfId'),
		mandateId: text(refs, 'MndtId'),
		creditorId: creditorSchemeId(parties),
		accountServicerReference: text(refs, 'AcctSvcrRef'),
		creditorReference,
		creditorReferenceType: kind,
		remittanceText: [...unstructured, ...additional].join(' ') || null,
		documents: documentsOf(structured),
		counterpartyName: partyName(party),
		counterpartyIban: accountIbanOf(account),
		counterpartyAccount: accountOtherOf(account),
		counterpartyBic: bicOf(agent),
		ultimateCounterpartyName: partyName(child(parties, credit ? 'UltmtDbtr' : 'UltmtCdtr')),
		purpose: firstText(tx, ['Purp', 'Cd'], ['Purp', 'Prtry']),
		returnReason: firstText(tx, ['RtrInf', 'Rsn', 'Cd'], ['RtrInf', 'Rsn', 'Prtry']),
		additionalInfo: text(tx, 'AddtlTxInf'),
		bankTransactionCode: btc ? bankTransactionCode(btc) : null,
		amountText: firstText(tx, ['Amt'], ['AmtDtls', 'TxAmt', 'Amt']),
		fx: tx ? fxDetails(tx, entry) : null,
	};
}

/**
 * Whether two fact values are the same: strings, numbers, null, or flat objects of those (codes,
 * FX).
 */
function same(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
	const ka = Object.keys(a);
	if (ka.length !== Object.keys(b).length) return false;
	for (const key of ka)
		if ((a as Record<string, unknown>)[key] !== (b as Record<string, unknown>)[key]) return false;
	return true;
}

/** Facts shared by all transactions of an entry (those that differ become null). */
function common(list: TxFacts[]): TxFacts {
	const first = list[0];
	if (list.length === 1) return first;
	const out = { ...first } as Record<string, unknown>;
	for (const key of Object.keys(first) as Array<keyof TxFacts>) {
		if (key === 'remittanceText') {
			const texts = [...new Set(list.map((f) => f.remittanceText).filter(Boolean))];
			out[key] = texts.join(' | ') || null;
			continue;
		}
		if (key === 'documents') {
			const documents = list.flatMap((f) => f.documents ?? []);
			out[key] = documents.length ? documents : null;
			continue;
		}
		const value = first[key];
		for (let i = 1; i < list.length; i++) {
			if (!same(list[i][key], value)) {
				out[key] = null;
				break;
			}
		}
	}
	return out as unknown as TxFacts;
}

export class CamtReader implements SubtreeHandler {
	private groupHeader?: XNode;
	private statement?: {
		parts: Map<string, XNode[]>;
		context?: StatementContext;
		skipped?: boolean;
		balanceCurrency?: string | null;
		entries: number;
		credits: number;
		debits: number;
		creditUnits: number;
		debitUnits: number;
		bookedUnits: number;
		problems: number;
	};
	private readonly container: string;
	/** The document's namespace (known once the root element is read). */
	namespaceOf?: () => string | undefined;

	constructor(
		private readonly format: DetectedFormat,
		private readonly options: ParseOptions,
		private readonly emit: (event: ParseEvent) => void,
	) {
		this.container =
			format.format === 'camt.053' ? 'Stmt' : format.format === 'camt.052' ? 'Rpt' : 'Ntfctn';
	}

	capture(path: readonly string[]): boolean {
		if (path.length === 3 && path[2] === 'GrpHdr') return true;
		return path.length === 4 && path[2] === this.container;
	}

	onOpen(path: readonly string[]): void {
		if (path.length === 3 && path[2] === this.container) {
			this.statement = {
				parts: new Map(),
				entries: 0,
				credits: 0,
				debits: 0,
				creditUnits: 0,
				debitUnits: 0,
				bookedUnits: 0,
				problems: 0,
			};
		}
	}

	onCaptured(path: readonly string[], node: XNode): void {
		if (path.length === 3) {
			this.groupHeader = node;
			return;
		}
		const statement = this.statement!;
		if (node.name !== 'Ntry') {
			const list = statement.parts.get(node.name) ?? [];
			list.push(node);
			statement.parts.set(node.name, list);
			return;
		}
		const context = this.contextOf();
		if (statement.skipped) return;
		this.readEntry(node, context);
	}

	onClose(path: readonly string[]): void {
		if (path.length === 3 && path[2] === this.container) {
			const context = this.contextOf();
			const statement = this.statement!;
			if (statement.skipped) {
				this.emit({ type: 'skippedStatement', key: statementKeyOf(context) });
			} else this.emit({ type: 'statement', statement: this.summary(context) });
			this.statement = undefined;
		}
	}

	private part(name: string): XNode | undefined {
		return this.statement?.parts.get(name)?.[0];
	}

	private contextOf(): StatementContext {
		const statement = this.statement!;
		if (statement.context) return statement.context;
		const account = this.part('Acct');
		const period = this.part('FrToDt');
		const context: StatementContext = {
			messageType: this.format.messageType,
			messageId: text(this.groupHeader, 'MsgId'),
			statementId: text(this.part('Id')),
			statementSequence: num(text(this.part('ElctrncSeqNb'))),
			legalSequence: num(text(this.part('LglSeqNb'))),
			statementCreated: text(this.part('CreDtTm')),
			periodFrom: text(period, 'FrDtTm') ?? text(period, 'FrDt'),
			periodTo: text(period, 'ToDtTm') ?? text(period, 'ToDt'),
			accountIban: accountIbanOf(account),
			accountId: accountOtherOf(account),
			accountCurrency: text(account, 'Ccy'),
			accountServicerBic: bicOf(child(account, 'Svcr')),
		};
		statement.context = context;
		const skip = this.options.skipStatement;
		if (skip && context.statementId) statement.skipped = skip(statementKeyOf(context));
		return context;
	}

	private problem(
		code: 'MISSING_AMOUNT' | 'MIXED_CURRENCIES',
		message: string,
		where: () => string,
	): void {
		const location = where();
		if (this.options.onInvalidRecord === 'warn') {
			this.statement!.problems++;
			this.emit({
				type: 'warning',
				warning: { code, message: `${message}; the entry was left out`, location },
			});
			return;
		}
		throw new BankFileError(code, message, location);
	}

	private expectedCurrency(context: StatementContext): string | null {
		const statement = this.statement!;
		if (context.accountCurrency) return context.accountCurrency;
		if (statement.balanceCurrency === undefined) {
			statement.balanceCurrency = child(this.part('Bal'), 'Amt')?.attrs.Ccy ?? null;
		}
		return statement.balanceCurrency;
	}

	private readEntry(ntry: XNode, context: StatementContext): void {
		const statement = this.statement!;
		const index = statement.entries + statement.problems + 1;
		const location = (): string =>
			`${this.container} ${context.statementId ?? '?'}, Ntry ${text(ntry, 'NtryRef') ?? `#${index}`}`;
		const amountNode = child(ntry, 'Amt');
		const units = amountNode ? toUnits(amountNode.text) : undefined;
		if (!amountNode || units === undefined) {
			this.problem(
				'MISSING_AMOUNT',
				amountNode
					? `The entry's amount "${amountNode.text}" is not a number`
					: 'The entry has no amount (Amt)',
				location,
			);
			return;
		}
		const currency = amountNode.attrs.Ccy ?? null;
		const expected = this.expectedCurrency(context);
		if (!currency) {
			this.problem('MISSING_AMOUNT', 'The entry amount has no currency (Ccy)', location);
			return;
		}
		if (expected && currency !== expected) {
			this.problem(
				'MIXED_CURRENCIES',
				`The entry is in ${currency} but the account is in ${expected}`,
				location,
			);
			return;
		}
		const indicator = text(ntry, 'CdtDbtInd');
		if (indicator !== 'CRDT' && indicator !== 'DBIT') {
			this.problem(
				'MISSING_AMOUNT',
				`The entry has no valid credit/debit indicator (found ${indicator ?? 'none'})`,
				location,
			);
			return;
		}
		const credit = indicator === 'CRDT';
		const signed = credit ? units : -units;
		const status = firstText(ntry, ['Sts', 'Cd'], ['Sts', 'Prtry'], ['Sts']);
		statement.entries++;
		if (credit) {
			statement.credits++;
			statement.creditUnits += units;
		} else {
			statement.debits++;
			statement.debitUnits += units;
		}
		if (status === null || status === 'BOOK') statement.bookedUnits += signed;

		const details = children(ntry, 'NtryDtls');
		const txs = details.flatMap((d) => children(d, 'TxDtls'));
		const batchCount =
			details.map((d) => num(text(d, 'Btch', 'NbOfTxs'))).find((n) => n !== null) ?? null;
		const head: EntryHead = {
			entryReference: text(ntry, 'NtryRef'),
			bookingDate: isoDate(dateOf(child(ntry, 'BookgDt'))),
			valueDate: isoDate(dateOf(child(ntry, 'ValDt'))),
			amount: fromUnits(signed),
			currency,
			creditDebit: indicator,
			status,
			reversal: text(ntry, 'RvslInd') === 'true',
			transactionCount: batchCount ?? Math.max(txs.length, 1),
		};
		const entryCode = bankTransactionCode(child(ntry, 'BkTxCd'));
		const entryServicerRef = text(ntry, 'AcctSvcrRef');
		const entryInfo = text(ntry, 'AddtlNtryInf');
		const xml = this.options.keepXml ? serialize(ntry, this.namespaceOf?.()) : undefined;
		const make = (
			facts: TxFacts,
			transactionIndex: number | null,
			entryAmount: number | null,
		): BankEntry => {
			const entry = entryOf(context, head, facts, {
				bankTransactionCode:
					facts.bankTransactionCode &&
					Object.values(facts.bankTransactionCode).some((v) => v !== null)
						? facts.bankTransactionCode
						: entryCode,
				accountServicerReference: entryServicerRef ?? facts.accountServicerReference,
				fx: facts.fx ?? fxDetails(undefined, ntry),
				additionalInfo:
					entryInfo && facts.additionalInfo
						? `${entryInfo} ${facts.additionalInfo}`
						: (entryInfo ?? facts.additionalInfo),
				transactionIndex,
				entryAmount,
			});
			if (xml !== undefined) entry.xml = xml;
			return entry;
		};
		if (this.options.split === 'transaction' && txs.length > 1) {
			txs.forEach((tx, i) => {
				const facts = txFacts(tx, ntry, credit);
				const txUnits = facts.amountText !== null ? toUnits(facts.amountText) : undefined;
				const entry = make(facts, i + 1, head.amount);
				if (txUnits !== undefined) entry.amount = fromUnits(credit ? txUnits : -txUnits);
				this.emit({ type: 'entry', entry });
			});
			return;
		}
		const facts = txs.length
			? common(txs.map((tx) => txFacts(tx, ntry, credit)))
			: txFacts(undefined, ntry, credit);
		this.emit({ type: 'entry', entry: make(facts, null, null) });
	}

	private summary(context: StatementContext): StatementSummary {
		const statement = this.statement!;
		const balances: BalanceInfo[] = (statement.parts.get('Bal') ?? []).map((bal) => {
			const amount = child(bal, 'Amt');
			const units = toUnits(amount?.text ?? '') ?? 0;
			return {
				type: firstText(bal, ['Tp', 'CdOrPrtry', 'Cd'], ['Tp', 'CdOrPrtry', 'Prtry']) ?? 'UNKNOWN',
				amount: fromUnits(text(bal, 'CdtDbtInd') === 'DBIT' ? -units : units),
				currency: amount?.attrs.Ccy ?? null,
				date: isoDate(dateOf(child(bal, 'Dt'))),
			};
		});
		const find = (...types: string[]): BalanceInfo | undefined =>
			types.map((t) => balances.find((b) => b.type === t)).find(Boolean);
		const opening = find('OPBD', 'PRCD', 'OPAV');
		// An intraday report (camt.052) closes on its interim booked balance when it has no closing one.
		const closing = find('CLBD') ?? (this.format.format === 'camt.052' ? find('ITBD') : undefined);
		const available = find('CLAV', 'ITAV');
		let check: StatementSummary['check'] = 'notAvailable';
		let warning: string | null = null;
		if (opening && closing) {
			const expected = toUnits(closing.amount.toFixed(5))!;
			const computed = toUnits(opening.amount.toFixed(5))! + statement.bookedUnits;
			if (Math.round(expected) === Math.round(computed)) check = 'ok';
			else {
				check = 'mismatch';
				warning = `Opening balance ${opening.amount} + booked entries ${fromUnits(statement.bookedUnits)} = ${fromUnits(computed)}, but the closing balance is ${closing.amount} (difference ${fromUnits(expected - computed)})`;
			}
		}
		if (statement.problems && !warning)
			warning = `${statement.problems} entr${statement.problems === 1 ? 'y was' : 'ies were'} left out (see the warnings)`;
		return {
			messageType: context.messageType,
			messageId: context.messageId,
			statementId: context.statementId,
			statementSequence: context.statementSequence,
			legalSequence: context.legalSequence,
			created: context.statementCreated,
			periodFrom: context.periodFrom,
			periodTo: context.periodTo,
			accountIban: context.accountIban,
			accountId: context.accountId,
			accountCurrency: context.accountCurrency ?? opening?.currency ?? null,
			accountOwner: partyName(child(this.part('Acct'), 'Ownr')),
			accountServicerBic: context.accountServicerBic,
			openingBalance: opening?.amount ?? null,
			openingBalanceDate: opening?.date ?? null,
			closingBalance: closing?.amount ?? null,
			closingBalanceDate: closing?.date ?? null,
			availableBalance: available?.amount ?? null,
			availableBalanceDate: available?.date ?? null,
			balances,
			entryCount: statement.entries,
			creditCount: statement.credits,
			creditTotal: fromUnits(statement.creditUnits),
			debitCount: statement.debits,
			debitTotal: fromUnits(statement.debitUnits),
			netTotal: fromUnits(statement.creditUnits - statement.debitUnits),
			check,
			warning,
		};
	}
}
