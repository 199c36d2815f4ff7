import { mkdtempSync, readFileSync, readSync, openSync, closeSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { XMLParser } from 'fast-xml-parser';

import { Prng } from './prng';
import type { BankFileDescriptor, FileStoreApi, PutFileOptions } from './types';

/** File type short codes and the ISO names they stand for (either may be used in filters). */
export const FILE_TYPE_ALIASES: ReadonlyArray<readonly string[]> = [
	['XL', 'pain.001.001.03', 'pain.001'],
	['XP', 'pain.002.001.03', 'pain.002'],
	['XT', 'camt.053.001.02', 'camt.053'],
	['XF', 'camt.054.001.02', 'camt.054'],
];

export function sameFileType(filter: string, fileType: string): boolean {
	const a = filter.trim().toLowerCase();
	const b = fileType.trim().toLowerCase();
	if (a === b) return true;
	return FILE_TYPE_ALIASES.some((group) => {
		const lower = group.map((item) => item.toLowerCase());
		return lower.includes(a) && lower.includes(b);
	});
}

export const USER_FILE_TYPES = [
	{ fileType: 'XL', name: 'SEPA credit transfer pain.001.001.03', direction: 'Upload' },
	{ fileType: 'XP', name: 'Payment status report pain.002.001.03', direction: 'Download' },
	{ fileType: 'XT', name: 'Bank to customer statement camt.053.001.02', direction: 'Download' },
	{ fileType: 'XF', name: 'Debit credit notification camt.054.001.02', direction: 'Download' },
] as const;

/** IBAN with computed check digits. */
export function makeIban(country: string, bban: string): string {
	const rearranged = `${bban}${country}00`
		.toUpperCase()
		.split('')
		.map((char) => (/[A-Z]/.test(char) ? String(char.charCodeAt(0) - 55) : char))
		.join('');
	let remainder = 0;
	for (const digit of rearranged) remainder = (remainder * 10 + Number(digit)) % 97;
	return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

export const BANK_BIC = 'SBXBFIHH';

const ACCOUNTS = [
	{ iban: makeIban('FI', '12345600000785'), currency: 'EUR' },
	{ iban: makeIban('FI', '42345670000081'), currency: 'EUR' },
];

const PARTIES = [
	'Nordic Timber Holding A/S',
	'Baltic Shipping Oy',
	'Aros Food Group AB',
	'Lapland Minerals Oy',
	'Hanse Metals GmbH',
	'Helsinki Office Supplies Oy',
	'Tampere Energy Oy',
	'Oulu Software Ltd',
	'Turku Harbour Services Oy',
	'Espoo Facility Management Oy',
];

const REMITTANCES = [
	'Invoice 2024-{n}',
	'Rent {m}',
	'Salary payment {m}',
	'Reference RF18 5390 0754 70{n}',
	'Purchase order PO-{n}',
	'Service fee {m}',
];

const DAY_MS = 24 * 60 * 60 * 1000;
const pad = (value: number, length = 2): string => String(value).padStart(length, '0');
const day = (date: Date): string => date.toISOString().slice(0, 10);
const money = (cents: number): string => (Math.abs(cents) / 100).toFixed(2);

function escapeText(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The kinds of booking a corporate account statement holds, with their ISO bank transaction codes. */
type EntryKind =
	| 'sepaIn'
	| 'referenceIn'
	| 'sepaOut'
	| 'salaryBatch'
	| 'card'
	| 'directDebit'
	| 'fee'
	| 'interest'
	| 'fxIn'
	| 'returned';

const ENTRY_KINDS: ReadonlyArray<readonly [EntryKind, number]> = [
	['sepaIn', 22],
	['referenceIn', 22],
	['sepaOut', 24],
	['salaryBatch', 3],
	['card', 10],
	['directDebit', 6],
	['fee', 4],
	['interest', 2],
	['fxIn', 4],
	['returned', 3],
];

const CODES: Record<EntryKind, [string, string, string]> = {
	sepaIn: ['PMNT', 'RCDT', 'ESCT'],
	referenceIn: ['PMNT', 'RCDT', 'ESCT'],
	sepaOut: ['PMNT', 'ICDT', 'ESCT'],
	salaryBatch: ['PMNT', 'ICDT', 'SALA'],
	card: ['PMNT', 'CCRD', 'POSD'],
	directDebit: ['PMNT', 'IDDT', 'ESDD'],
	fee: ['ACMT', 'MDOP', 'CHRG'],
	interest: ['ACMT', 'MCOP', 'INTR'],
	fxIn: ['PMNT', 'RCDT', 'XBCT'],
	returned: ['PMNT', 'ICDT', 'RRTN'],
};

const EMPLOYEES = ['Maija Meikalainen', 'Matti Virtanen', 'Aino Korhonen', 'Juha Nieminen', 'Liisa Makinen', 'Pekka Hamalainen'];
const MERCHANTS = ['Kahvila Aurora', 'Neste Espoo', 'Stockmann Helsinki', 'VR Online', 'Finnair Web'];

interface GeneratedTx {
	cents: number;
	party?: string;
	partyIban?: string;
	partyBic?: string;
	remittance?: string;
	reference?: string;
	endToEndId?: string;
}

interface GeneratedEntry {
	kind: EntryKind;
	cents: number;
	reference: string;
	txs: GeneratedTx[];
	info?: string;
	fx?: { currency: string; amount: string; rate: string };
}

function finnishReference(base: string): string {
	let sum = 0;
	const weights = [7, 3, 1];
	for (let i = 0; i < base.length; i++) sum += Number(base[base.length - 1 - i]) * weights[i % 3];
	return `${base}${(10 - (sum % 10)) % 10}`;
}

function rfReference(base: string): string {
	return makeIban('RF', base).replace(/^RF(\d\d)(.*)$/, 'RF$1$2');
}

function generateEntry(prng: Prng, kind: EntryKind, month: string, reference: string): GeneratedEntry {
	const party = prng.pick(PARTIES);
	const partyIban = makeIban('FI', `${prng.int(100000, 999999)}${pad(prng.int(0, 99999999), 8)}`);
	const invoice = String(prng.int(1000, 99999));
	switch (kind) {
		case 'sepaIn': {
			const cents = prng.int(5000, 2500000);
			return { kind, cents, reference, txs: [{ cents, party, partyIban, remittance: prng.pick(REMITTANCES).replace('{n}', invoice).replace('{m}', month), endToEndId: `INV-${invoice}` }] };
		}
		case 'referenceIn': {
			const cents = prng.int(2000, 900000);
			const ref = prng.chance(0.5) ? finnishReference(invoice) : rfReference(invoice);
			return { kind, cents, reference, txs: [{ cents, party, partyIban, partyBic: prng.pick(['NDEAFIHH', 'OKOYFIHH', 'DABAFIHH', 'HELSFIHH']), reference: ref }] };
		}
		case 'sepaOut': {
			const cents = -prng.int(1500, 1500000);
			return { kind, cents, reference, txs: [{ cents, party, partyIban, partyBic: 'NDEAFIHH', reference: finnishReference(invoice), endToEndId: `PAY-${invoice}` }] };
		}
		case 'salaryBatch': {
			const txs: GeneratedTx[] = EMPLOYEES.slice(0, prng.int(2, EMPLOYEES.length)).map((name, i) => ({
				cents: -prng.int(250000, 520000),
				party: name,
				partyIban: makeIban('FI', `${prng.int(100000, 999999)}${pad(prng.int(0, 99999999), 8)}`),
				remittance: `Salary ${month}`,
				endToEndId: `SAL-${month.replace('-', '')}-${i + 1}`,
			}));
			return { kind, cents: txs.reduce((sum, tx) => sum + tx.cents, 0), reference, txs };
		}
		case 'card': {
			const cents = -prng.int(350, 45000);
			return { kind, cents, reference, txs: [{ cents, party: prng.pick(MERCHANTS) }], info: `Card purchase 4321********${pad(prng.int(0, 9999), 4)}` };
		}
		case 'directDebit': {
			const cents = -prng.int(2000, 90000);
			return { kind, cents, reference, txs: [{ cents, party: prng.pick(['Helen Oy', 'Elisa Oyj', 'Telia Finland Oyj']), partyIban, remittance: `Direct debit ${month}` }] };
		}
		case 'fee':
			return { kind, cents: -prng.int(100, 4500), reference, txs: [], info: `Service fee ${month}` };
		case 'interest':
			return { kind, cents: prng.int(1, 9000), reference, txs: [], info: `Interest ${month}` };
		case 'fxIn': {
			const usd = prng.int(10000, 5000000);
			const rate = prng.range(0.88, 0.96);
			const cents = Math.round(usd * rate);
			return {
				kind,
				cents,
				reference,
				txs: [{ cents, party: 'Hanse Metals GmbH', partyIban: makeIban('DE', `37040044${pad(prng.int(0, 9999999999), 10)}`), partyBic: 'COBADEFFXXX', remittance: `Order ${invoice}` }],
				fx: { currency: 'USD', amount: (usd / 100).toFixed(2), rate: rate.toFixed(6) },
			};
		}
		case 'returned': {
			const cents = prng.int(1500, 300000);
			return { kind, cents, reference, txs: [{ cents, endToEndId: `PAY-${invoice}` }], info: 'Returned payment' };
		}
	}
}

/**
 * What a statement of a large bank carries besides the essentials, as in real camt.053 files:
 * the bank's message and payment references, both parties (the other one with postal address),
 * both agents, the referred invoice with its amounts, dates and additional text, and the
 * lines indented. Used for statements of realistic size (the statement benchmark).
 */
export interface StatementDetail {
	/** The account owner's name, the other party of every payment. */
	owner: { name: string };
}

const address = (street: string, postCode: string, town: string, country = 'FI'): string =>
	`<PstlAdr><StrtNm>${escapeText(street)}</StrtNm><PstCd>${postCode}</PstCd><TwnNm>${escapeText(town)}</TwnNm><Ctry>${country}</Ctry></PstlAdr>`;

const STREETS = ['Mannerheimintie 12 B', 'Hameenkatu 4', 'Aleksanterinkatu 52', 'Kauppakatu 21 A 3', 'Teollisuustie 7'];
const TOWNS: Array<[string, string]> = [['00100', 'Helsinki'], ['33100', 'Tampere'], ['20100', 'Turku'], ['90100', 'Oulu'], ['40100', 'Jyvaskyla']];

function detailXml(entry: GeneratedEntry, tx: GeneratedTx, n: number, dateText: string, detail: StatementDetail): { refs: string; parties: string; agents: string; remittance: string; dates: string; info: string } {
	const seed = Number(entry.reference.slice(-6)) + n;
	const credit = tx.cents > 0;
	const [postCode, town] = TOWNS[seed % TOWNS.length];
	const partyXml = (name: string) =>
		`<Nm>${escapeText(name)}</Nm>${address(STREETS[seed % STREETS.length], postCode, town)}`;
	const owner = `<Nm>${escapeText(detail.owner.name)}</Nm>`;
	const counterparty = tx.party ? partyXml(tx.party) : undefined;
	const account = tx.partyIban ? `<Id><IBAN>${tx.partyIban}</IBAN></Id>` : undefined;
	const parties = credit
		? `<RltdPties>${counterparty ? `<Dbtr>${counterparty}</Dbtr>` : ''}${account ? `<DbtrAcct>${account}</DbtrAcct>` : ''}<Cdtr>${owner}</Cdtr></RltdPties>`
		: `<RltdPties><Dbtr>${owner}</Dbtr>${counterparty ? `<Cdtr>${counterparty}</Cdtr>` : ''}${account ? `<CdtrAcct>${account}</CdtrAcct>` : ''}</RltdPties>`;
	const ownAgent = `<${credit ? 'CdtrAgt' : 'DbtrAgt'}><FinInstnId><BIC>${BANK_BIC}</BIC></FinInstnId></${credit ? 'CdtrAgt' : 'DbtrAgt'}>`;
	const otherAgent = tx.partyBic ? `<${credit ? 'DbtrAgt' : 'CdtrAgt'}><FinInstnId><BIC>${tx.partyBic}</BIC></FinInstnId></${credit ? 'DbtrAgt' : 'CdtrAgt'}>` : '';
	const agents = `<RltdAgts>${credit ? otherAgent + ownAgent : ownAgent + otherAgent}</RltdAgts>`;
	const invoice = `${dateText.replace(/-/g, '')}-${pad(seed % 100000, 5)}`;
	const document =
		`<Strd><RfrdDocInf><Nb>${invoice}</Nb><RltdDt>${dateText}</RltdDt></RfrdDocInf><RfrdDocAmt><RmtdAmt Ccy="EUR">${money(Math.abs(tx.cents))}</RmtdAmt></RfrdDocAmt></Strd>`;
	const reference = tx.reference
		? `<Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry>${tx.reference.startsWith('RF') ? '<Issr>ISO</Issr>' : ''}</Tp><Ref>${tx.reference}</Ref></CdtrRefInf></Strd>`
		: '';
	const remittance = `<RmtInf>${tx.remittance ? `<Ustrd>${escapeText(tx.remittance)}</Ustrd>` : ''}${document}${reference}</RmtInf>`;
	return {
		refs: `<MsgId>MSG${entry.reference}</MsgId>`,
		parties,
		agents,
		remittance,
		dates: `<RltdDts><AccptncDtTm>${dateText}T08:${pad(seed % 60, 2)}:00</AccptncDtTm></RltdDts>`,
		info: `<AddtlTxInf>${credit ? 'Incoming' : 'Outgoing'} ${entry.kind} payment, archive ${entry.reference}</AddtlTxInf>`,
	};
}

function entryXml(entry: GeneratedEntry, index: number, currency: string, dateText: string, detail?: StatementDetail): string {
	const credit = entry.cents > 0;
	const [domain, family, subFamily] = CODES[entry.kind];
	const txXml = entry.txs
		.map((tx, n) => {
			const txCredit = tx.cents > 0;
			const more = detail ? detailXml(entry, tx, n, dateText, detail) : undefined;
			const party = more
				? more.parties
				: tx.party
					? txCredit
						? `<RltdPties><Dbtr><Nm>${escapeText(tx.party)}</Nm></Dbtr>${tx.partyIban ? `<DbtrAcct><Id><IBAN>${tx.partyIban}</IBAN></Id></DbtrAcct>` : ''}</RltdPties>`
						: `<RltdPties><Cdtr><Nm>${escapeText(tx.party)}</Nm></Cdtr>${tx.partyIban ? `<CdtrAcct><Id><IBAN>${tx.partyIban}</IBAN></Id></CdtrAcct>` : ''}</RltdPties>`
					: '';
			const agent = more
				? more.agents
				: tx.partyBic
					? `<RltdAgts><${txCredit ? 'DbtrAgt' : 'CdtrAgt'}><FinInstnId><BIC>${tx.partyBic}</BIC></FinInstnId></${txCredit ? 'DbtrAgt' : 'CdtrAgt'}></RltdAgts>`
					: '';
			const remittance = more
				? more.remittance
				: tx.reference
					? `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry>${tx.reference.startsWith('RF') ? '<Issr>ISO</Issr>' : ''}</Tp><Ref>${tx.reference}</Ref></CdtrRefInf></Strd></RmtInf>`
					: tx.remittance
						? `<RmtInf><Ustrd>${escapeText(tx.remittance)}</Ustrd></RmtInf>`
						: '';
			const fx = entry.fx
				? `<AmtDtls><InstdAmt><Amt Ccy="${entry.fx.currency}">${entry.fx.amount}</Amt></InstdAmt><TxAmt><Amt Ccy="${currency}">${money(tx.cents)}</Amt>` +
					`<CcyXchg><SrcCcy>${entry.fx.currency}</SrcCcy><TrgtCcy>${currency}</TrgtCcy><UnitCcy>${entry.fx.currency}</UnitCcy><XchgRate>${entry.fx.rate}</XchgRate></CcyXchg></TxAmt></AmtDtls>`
				: `<AmtDtls><TxAmt><Amt Ccy="${currency}">${money(tx.cents)}</Amt></TxAmt></AmtDtls>`;
			const returned = entry.kind === 'returned' ? '<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf>' : '';
			const ids = more
				? `<PmtInfId>PI${entry.reference}</PmtInfId><InstrId>IN${entry.reference}${n + 1}</InstrId>`
				: '';
			const txId = more ? `<TxId>TX${entry.reference}${pad(n + 1, 3)}</TxId>` : '';
			const parts = [
				`<Refs>${more?.refs ?? ''}<AcctSvcrRef>${entry.reference}</AcctSvcrRef>${ids}<EndToEndId>${escapeText(tx.endToEndId ?? 'NOTPROVIDED')}</EndToEndId>${txId}</Refs>`,
				fx,
				party,
				agent,
				entry.kind === 'salaryBatch' ? '<Purp><Cd>SALA</Cd></Purp>' : '',
				remittance,
				more?.dates ?? '',
				returned,
				more?.info ?? '',
			].filter(Boolean);
			// Indented, one element a line, as large banks write them.
			return more ? `\n          <TxDtls>\n            ${parts.join('\n            ')}\n          </TxDtls>` : `<TxDtls>${parts.join('')}</TxDtls>`;
		})
		.join('');
	const batch = entry.txs.length > 1 ? `<Btch><NbOfTxs>${entry.txs.length}</NbOfTxs></Btch>` : '';
	if (detail) {
		const lines = [
			`<NtryRef>${index + 1}</NtryRef>`,
			`<Amt Ccy="${currency}">${money(entry.cents)}</Amt>`,
			`<CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd>`,
			entry.kind === 'returned' ? '<RvslInd>true</RvslInd>' : '',
			'<Sts>BOOK</Sts>',
			`<BookgDt><Dt>${dateText}</Dt></BookgDt>`,
			`<ValDt><Dt>${dateText}</Dt></ValDt>`,
			`<AcctSvcrRef>${entry.reference}</AcctSvcrRef>`,
			`<BkTxCd><Domn><Cd>${domain}</Cd><Fmly><Cd>${family}</Cd><SubFmlyCd>${subFamily}</SubFmlyCd></Fmly></Domn></BkTxCd>`,
			txXml ? `<NtryDtls>${batch}${txXml}\n        </NtryDtls>` : '',
			entry.info ? `<AddtlNtryInf>${escapeText(entry.info)}</AddtlNtryInf>` : '',
		].filter(Boolean);
		return `<Ntry>\n        ${lines.join('\n        ')}\n      </Ntry>`;
	}
	return (
		`<Ntry><NtryRef>${index + 1}</NtryRef><Amt Ccy="${currency}">${money(entry.cents)}</Amt>` +
		`<CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd>${entry.kind === 'returned' ? '<RvslInd>true</RvslInd>' : ''}<Sts>BOOK</Sts>` +
		`<BookgDt><Dt>${dateText}</Dt></BookgDt><ValDt><Dt>${dateText}</Dt></ValDt>` +
		`<AcctSvcrRef>${entry.reference}</AcctSvcrRef>` +
		`<BkTxCd><Domn><Cd>${domain}</Cd><Fmly><Cd>${family}</Cd><SubFmlyCd>${subFamily}</SubFmlyCd></Fmly></Domn></BkTxCd>` +
		(txXml ? `<NtryDtls>${batch}${txXml}</NtryDtls>` : '') +
		(entry.info ? `<AddtlNtryInf>${escapeText(entry.info)}</AddtlNtryInf>` : '') +
		'</Ntry>'
	);
}

/** Entries of one statement day: every kind of booking, in the proportions of a busy corporate account. */
export function statementEntries(prng: Prng, date: Date, sequence: number, count: number): GeneratedEntry[] {
	const month = date.toISOString().slice(0, 7);
	const entries: GeneratedEntry[] = [];
	for (let index = 0; index < count; index++) {
		const reference = `${day(date).replace(/-/g, '')}${pad(sequence, 4)}${pad(index + 1, 3)}`;
		entries.push(generateEntry(prng, prng.weighted(ENTRY_KINDS), month, reference));
	}
	return entries;
}

export function camt053(options: {
	prng: Prng;
	account: { iban: string; currency: string };
	date: Date;
	sequence: number;
	customerName: string;
	customerId: string;
	openingCents: number;
	/** How many entries (default: 25 to 60). */
	entries?: number;
	/** Entries with everything large banks add (see StatementDetail); default: the essentials, on one line each. */
	detail?: StatementDetail;
}): { xml: string; closingCents: number; entries: number; totalCents: number } {
	const { prng, account, date, sequence } = options;
	const entries = statementEntries(prng, date, sequence, options.entries ?? prng.int(25, 60));
	const credits = entries.filter((entry) => entry.cents > 0);
	const debits = entries.filter((entry) => entry.cents < 0);
	const creditSum = credits.reduce((sum, entry) => sum + entry.cents, 0);
	const debitSum = -debits.reduce((sum, entry) => sum + entry.cents, 0);
	const closing = options.openingCents + creditSum - debitSum;
	const net = creditSum - debitSum;
	const dateText = day(date);
	const created = `${day(new Date(date.getTime() + DAY_MS))}T05:00:00`;
	const stmtId = `${options.customerId}-${dateText.replace(/-/g, '')}-${account.iban.slice(-4)}`;
	const balance = (code: string, cents: number): string =>
		`<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${account.currency}">${money(cents)}</Amt>` +
		`<CdtDbtInd>${cents >= 0 ? 'CRDT' : 'DBIT'}</CdtDbtInd><Dt><Dt>${dateText}</Dt></Dt></Bal>`;
	const entriesXml = entries.map((entry, index) => entryXml(entry, index, account.currency, dateText, options.detail)).join('\n      ');
	const xml =
		'<?xml version="1.0" encoding="UTF-8"?>\n' +
		'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
		'  <BkToCstmrStmt>\n' +
		`    <GrpHdr><MsgId>${stmtId}</MsgId><CreDtTm>${created}</CreDtTm>` +
		`<MsgRcpt><Nm>${escapeText(options.customerName)}</Nm><Id><OrgId><Othr><Id>${options.customerId}</Id></Othr></OrgId></Id></MsgRcpt>` +
		'<MsgPgntn><PgNb>1</PgNb><LastPgInd>true</LastPgInd></MsgPgntn></GrpHdr>\n' +
		'    <Stmt>\n' +
		`      <Id>${stmtId}</Id><ElctrncSeqNb>${sequence}</ElctrncSeqNb><LglSeqNb>${sequence}</LglSeqNb><CreDtTm>${created}</CreDtTm>\n` +
		`      <FrToDt><FrDtTm>${dateText}T00:00:00</FrDtTm><ToDtTm>${dateText}T23:59:59</ToDtTm></FrToDt>\n` +
		`      <Acct><Id><IBAN>${account.iban}</IBAN></Id><Ccy>${account.currency}</Ccy><Ownr><Nm>${escapeText(options.customerName)}</Nm></Ownr>` +
		`<Svcr><FinInstnId><BIC>${BANK_BIC}</BIC></FinInstnId></Svcr></Acct>\n` +
		`      ${balance('OPBD', options.openingCents)}\n` +
		`      ${balance('CLBD', closing)}\n` +
		`      ${balance('CLAV', closing)}\n` +
		`      <TxsSummry><TtlNtries><NbOfNtries>${entries.length}</NbOfNtries><Sum>${money(creditSum + debitSum)}</Sum>` +
		`<TtlNetNtryAmt>${money(net)}</TtlNetNtryAmt><CdtDbtInd>${net >= 0 ? 'CRDT' : 'DBIT'}</CdtDbtInd></TtlNtries>` +
		`<TtlCdtNtries><NbOfNtries>${credits.length}</NbOfNtries><Sum>${money(creditSum)}</Sum></TtlCdtNtries>` +
		`<TtlDbtNtries><NbOfNtries>${debits.length}</NbOfNtries><Sum>${money(debitSum)}</Sum></TtlDbtNtries></TxsSummry>\n` +
		`      ${entriesXml}\n` +
		'    </Stmt>\n' +
		'  </BkToCstmrStmt>\n' +
		'</Document>\n';
	return { xml, closingCents: closing, entries: entries.length, totalCents: creditSum + debitSum };
}

export function pain002(options: {
	messageId: string;
	created: Date;
	originalMessageId: string;
	transactions: number;
	controlSum?: string;
	accepted: boolean;
}): string {
	const status = options.accepted
		? '<GrpSts>ACCP</GrpSts>'
		: '<GrpSts>RJCT</GrpSts><StsRsnInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Closed account number</AddtlInf></StsRsnInf>';
	return (
		'<?xml version="1.0" encoding="UTF-8"?>\n' +
		'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
		'  <CstmrPmtStsRpt>\n' +
		`    <GrpHdr><MsgId>${escapeText(options.messageId)}</MsgId><CreDtTm>${options.created.toISOString().slice(0, 19)}</CreDtTm>` +
		`<InitgPty><Id><OrgId><BICOrBEI>${BANK_BIC}</BICOrBEI></OrgId></Id></InitgPty></GrpHdr>\n` +
		`    <OrgnlGrpInfAndSts><OrgnlMsgId>${escapeText(options.originalMessageId)}</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.03</OrgnlMsgNmId>` +
		`<OrgnlNbOfTxs>${options.transactions}</OrgnlNbOfTxs>` +
		(options.controlSum ? `<OrgnlCtrlSum>${escapeText(options.controlSum)}</OrgnlCtrlSum>` : '') +
		`${status}</OrgnlGrpInfAndSts>\n` +
		'  </CstmrPmtStsRpt>\n' +
		'</Document>\n'
	);
}

/** Reads MsgId, NbOfTxs and CtrlSum from a pain.001 group header, if the content is one. */
export function pain001Summary(
	content: Buffer,
): { messageId: string; transactions: number; controlSum?: string } | undefined {
	const head = content.subarray(0, 64 * 1024).toString('utf8');
	if (!/urn:iso:std:iso:20022:tech:xsd:pain\.001/.test(head)) return undefined;
	const messageId = /<(?:\w+:)?MsgId>([^<]*)</.exec(head)?.[1] ?? 'UNKNOWN';
	const transactions = Number(/<(?:\w+:)?NbOfTxs>(\d+)</.exec(head)?.[1] ?? '0');
	const controlSum = /<(?:\w+:)?CtrlSum>([^<]*)</.exec(head)?.[1];
	return { messageId, transactions, controlSum };
}

/** The first `length` bytes of a file. */
export function readHead(path: string, length: number): Buffer {
	const fd = openSync(path, 'r');
	try {
		const buffer = Buffer.alloc(length);
		const read = readSync(fd, buffer, 0, length, 0);
		return buffer.subarray(0, read);
	} finally {
		closeSync(fd);
	}
}

interface StoredFile {
	descriptor: BankFileDescriptor;
	content: Buffer | { path: string };
}

/** Files above this size are kept on disk rather than in memory. */
const MEMORY_LIMIT = 8 * 1024 * 1024;

export interface FileStoreOptions {
	seed: number;
	days: number;
	customerId: string;
	customerName: string;
	targetId: string;
	now: () => Date;
}

export class FileStore implements FileStoreApi {
	private files = new Map<string, StoredFile>();
	private counter = 0;
	private spillCounter = 0;
	private spillDir?: string;

	constructor(private readonly options: FileStoreOptions) {
		this.reset();
	}

	private nextReference(date: Date): string {
		this.counter += 1;
		return `S${day(date).replace(/-/g, '')}${pad(this.counter, 6)}`;
	}

	reset(): void {
		for (const file of this.files.values()) this.removeSpilled(file);
		this.files.clear();
		this.counter = 0;
		const prng = new Prng(this.options.seed ^ 0xf11e5);
		const now = this.options.now();
		const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
		// Yesterday's statement is made early this morning; just after midnight that hour has not
		// come yet. A seeded file is never stamped later than an hour ago, so files that arrive
		// from now on are always the newest, at every hour of the day.
		const latest = now.getTime() - 60 * 60 * 1000;
		const stamped = (time: Date): Date => (time.getTime() > latest ? new Date(latest) : time);
		const balances = ACCOUNTS.map(() => prng.int(5_000_000, 90_000_000));
		let sequence = 300;
		const days: Date[] = [];
		for (
			let offset = 1;
			days.length < this.options.days && offset < this.options.days * 3;
			offset++
		) {
			const date = new Date(today.getTime() - offset * DAY_MS);
			const weekday = date.getUTCDay();
			if (weekday !== 0 && weekday !== 6) days.unshift(date);
		}
		for (const date of days) {
			sequence += 1;
			ACCOUNTS.forEach((account, index) => {
				const statement = camt053({
					prng,
					account,
					date,
					sequence,
					customerName: this.options.customerName,
					customerId: this.options.customerId,
					openingCents: balances[index],
				});
				balances[index] = statement.closingCents;
				const timestamp = new Date(date.getTime() + DAY_MS + 5 * 60 * 60 * 1000 + index * 1000);
				const ageDays = (today.getTime() - date.getTime()) / DAY_MS;
				this.insert({
					fileType: 'XT',
					content: Buffer.from(statement.xml, 'utf8'),
					fileTimestamp: stamped(timestamp),
					status: ageDays > 4 ? 'DLD' : 'NEW',
					serviceId: `${BANK_BIC}-FI-${account.currency}-${account.iban}`,
					userFilename: `camt053_${account.iban.slice(-6)}_${day(date)}.xml`,
					transactionCount: statement.entries,
					amountTotal: statement.totalCents / 100,
				});
			});
		}
		// A third account whose statements come as TITO, and the daily KTL reference payments of the first.
		let titoBalance = prng.int(1_000_000, 20_000_000);
		days.forEach((date, index) => {
			const ageDays = (today.getTime() - date.getTime()) / DAY_MS;
			const created = new Date(date.getTime() + DAY_MS + 4 * 60 * 60 * 1000);
			const tito = titoStatement({
				bban: TITO_ACCOUNT.bban,
				iban: TITO_ACCOUNT.iban,
				bic: BANK_BIC,
				number: (index % 999) + 1,
				from: date,
				to: date,
				created,
				customerId: this.options.customerId.slice(0, 17),
				owner: this.options.customerName,
				openingCents: titoBalance,
				entries: titoEntries(prng, date, prng.int(15, 40)),
			});
			titoBalance = tito.closingCents;
			this.insert({
				fileType: 'TITO',
				content: Buffer.from(tito.text, 'latin1'),
				fileTimestamp: stamped(created),
				status: ageDays > 4 ? 'DLD' : 'NEW',
				serviceId: `${BANK_BIC}-FI-EUR-${TITO_ACCOUNT.iban}`,
				userFilename: `tito_${TITO_ACCOUNT.iban.slice(-6)}_${day(date)}.txt`,
			});
			const payments = ktlPayments(prng, date, ACCOUNTS[0].iban.slice(4), prng.int(8, 30));
			const ktlTime = new Date(date.getTime() + 17 * 60 * 60 * 1000);
			this.insert({
				fileType: 'KTL',
				content: Buffer.from(ktlBatch({ created: ktlTime, serviceId: '000123456', payments }), 'latin1'),
				fileTimestamp: stamped(ktlTime),
				status: ageDays > 4 ? 'DLD' : 'NEW',
				userFilename: `ktl_${day(date)}.txt`,
				transactionCount: payments.length,
				amountTotal: payments.reduce((sum, p) => sum + (p.correction ? -p.cents : p.cents), 0) / 100,
			});
		});
		const reports = [
			{ daysAgo: 6, accepted: true, transactions: 12 },
			{ daysAgo: 3, accepted: false, transactions: 1 },
			{ daysAgo: 1, accepted: true, transactions: 4 },
		];
		for (const report of reports) {
			const created = new Date(today.getTime() - report.daysAgo * DAY_MS + 9 * 60 * 60 * 1000);
			const reference = `PAY${day(created).replace(/-/g, '')}${prng.int(1000, 9999)}`;
			this.insert({
				fileType: 'XP',
				content: Buffer.from(
					pain002({
						messageId: `STS-${reference}`,
						created,
						originalMessageId: reference,
						transactions: report.transactions,
						accepted: report.accepted,
					}),
					'utf8',
				),
				fileTimestamp: stamped(created),
				status: report.daysAgo > 4 ? 'DLD' : 'NEW',
				userFilename: `pain002_${reference}.xml`,
				transactionCount: report.transactions,
			});
		}
	}

	private insert(options: PutFileOptions): BankFileDescriptor {
		const timestamp = options.fileTimestamp ?? this.options.now();
		let content: Buffer | { path: string };
		let size: number;
		if (Buffer.isBuffer(options.content)) {
			content = options.content;
			size = content.length;
		} else if (typeof options.content === 'string') {
			content = Buffer.from(options.content, 'utf8');
			size = content.length;
		} else {
			content = { path: options.content.path };
			size = statSync(options.content.path).size;
		}
		const reference = this.nextReference(timestamp);
		if (Buffer.isBuffer(content) && content.length > MEMORY_LIMIT) {
			this.spillDir ??= mkdtempSync(join(tmpdir(), 'sandbox-bank-files-'));
			const path = join(this.spillDir, reference);
			writeFileSync(path, content);
			content = { path };
		}
		const descriptor: BankFileDescriptor = {
			fileReference: reference,
			targetId: this.options.targetId,
			serviceId: options.serviceId,
			userFilename: options.userFilename,
			parentFileReference: options.parentFileReference,
			fileType: options.fileType,
			fileTimestamp: timestamp.toISOString(),
			status: options.status ?? 'NEW',
			amountTotal: options.amountTotal,
			transactionCount: options.transactionCount,
			lastDownloadTimestamp:
				(options.status ?? 'NEW') === 'DLD'
					? new Date(timestamp.getTime() + 60 * 60 * 1000).toISOString()
					: undefined,
			deletable: options.deletable ?? true,
			direction: options.direction ?? 'download',
			size,
		};
		this.files.set(reference, { descriptor, content });
		return { ...descriptor };
	}

	put(options: PutFileOptions): BankFileDescriptor {
		return this.insert(options);
	}

	list(): BankFileDescriptor[] {
		return [...this.files.values()]
			.map((file) => ({ ...file.descriptor }))
			.sort((a, b) =>
				a.fileTimestamp === b.fileTimestamp
					? a.fileReference.localeCompare(b.fileReference)
					: a.fileTimestamp.localeCompare(b.fileTimestamp),
			);
	}

	/** Stored content source without reading it (for streaming). */
	source(fileReference: string): StoredFile | undefined {
		return this.files.get(fileReference);
	}

	get(fileReference: string): { descriptor: BankFileDescriptor; content: Buffer } | undefined {
		const file = this.files.get(fileReference);
		if (!file) return undefined;
		const content = Buffer.isBuffer(file.content) ? file.content : readFileSync(file.content.path);
		return { descriptor: { ...file.descriptor }, content };
	}

	markDownloaded(fileReference: string, when: Date): void {
		const file = this.files.get(fileReference);
		if (!file) return;
		if (file.descriptor.status === 'NEW') file.descriptor.status = 'DLD';
		file.descriptor.lastDownloadTimestamp = when.toISOString();
	}

	delete(fileReference: string): boolean {
		const file = this.files.get(fileReference);
		if (file) this.removeSpilled(file);
		return this.files.delete(fileReference);
	}

	/**
	 * A new path in the store's own folder on disk, for a large file being received (an upload
	 * streamed to disk). A file put with such a path is removed with the file, on reset and on
	 * dispose.
	 */
	spillFile(): string {
		this.spillDir ??= mkdtempSync(join(tmpdir(), 'sandbox-bank-files-'));
		this.spillCounter += 1;
		return join(this.spillDir, `incoming-${process.pid}-${this.spillCounter}`);
	}

	/** Whether a file on disk belongs to a stored file. */
	owns(path: string): boolean {
		for (const file of this.files.values()) if (!Buffer.isBuffer(file.content) && file.content.path === path) return true;
		return false;
	}

	/** The first bytes of a stored file (for sniffing its type), without reading it whole. */
	head(fileReference: string, length: number): Buffer | undefined {
		const file = this.files.get(fileReference);
		if (!file) return undefined;
		return Buffer.isBuffer(file.content) ? file.content.subarray(0, length) : readHead(file.content.path, length);
	}

	private removeSpilled(file: StoredFile): void {
		if (Buffer.isBuffer(file.content) || !this.spillDir) return;
		if (file.content.path.startsWith(`${this.spillDir}/`)) rmSync(file.content.path, { force: true });
	}

	dispose(): void {
		if (this.spillDir) rmSync(this.spillDir, { recursive: true, force: true });
		this.spillDir = undefined;
	}
}

// ---------------------------------------------------------------------------
// Finnish fixed-width files: TITO account statements and KTL reference payments
// (record layouts of Finance Finland's "Konekielinen tiliote" and "Viitesiirto" descriptions)
// ---------------------------------------------------------------------------

/** A fixed-width field: X = text, left-aligned and space-padded; 9 = digits, zero-padded. */
function fw(value: string | number, length: number, kind: 'X' | '9' = 'X'): string {
	const text = String(value);
	if (kind === '9') return text.replace(/\D/g, '').padStart(length, '0').slice(-length);
	return text.padEnd(length, ' ').slice(0, length);
}

const yymmdd = (date: Date): string => date.toISOString().slice(2, 10).replace(/-/g, '');
const signed = (cents: number, length: number): string => `${cents < 0 ? '-' : '+'}${fw(Math.abs(cents), length, '9')}`;

export interface TitoEntry {
	archiveId: string;
	bookingDate: Date;
	valueDate?: Date;
	/** 1 credit, 2 debit, 3 credit correction, 4 debit correction. */
	entryType: 1 | 2 | 3 | 4;
	/** Booking code (kirjausselite), e.g. 705 reference payment, 710 deposit, 720 withdrawal, 730 fee. */
	code: string;
	description: string;
	/** Signed: credits positive. */
	cents: number;
	name?: string;
	counterpartyAccount?: string;
	reference?: string;
	messages?: string[];
	sepa?: { endToEndId?: string; iban?: string; bic?: string; fullName?: string };
	fx?: { cents: number; currency: string; rate: number };
	/** Itemisation records belonging to this entry (level identifier 1). */
	items?: Array<{ cents: number; name: string; reference?: string }>;
}

/** One TITO statement (T00, T10/T11 per entry, T40 balance, T50 day totals); returns the text and closing balance. */
export function titoStatement(options: {
	bban: string;
	iban: string;
	bic: string;
	number: number;
	from: Date;
	to: Date;
	created: Date;
	customerId: string;
	owner: string;
	openingCents: number;
	entries: TitoEntry[];
}): { text: string; closingCents: number } {
	const records: string[] = [];
	const closingCents = options.openingCents + options.entries.reduce((sum, e) => sum + e.cents, 0);
	const created = options.created.toISOString();
	const t00 =
		'T00322100' +
		fw(options.bban, 14, '9') +
		fw(options.number, 3, '9') +
		yymmdd(options.from) +
		yymmdd(options.to) +
		yymmdd(options.created) +
		created.slice(11, 13) +
		created.slice(14, 16) +
		fw(options.customerId, 17) +
		yymmdd(new Date(options.from.getTime() - DAY_MS)) +
		signed(options.openingCents, 18) +
		fw(options.entries.length, 6, '9') +
		'EUR' +
		fw('Kayttotili', 30) +
		fw(0, 18, '9') +
		fw(options.owner, 35) +
		fw('Sandbox Bank', 40) +
		fw('', 40) +
		fw('', 30) +
		fw(`${options.iban} ${options.bic}`, 30);
	records.push(t00);
	let number = 0;
	const t10 = (entry: { archiveId: string; bookingDate: Date; valueDate?: Date; entryType: number; code: string; description: string; cents: number; name?: string; counterpartyAccount?: string; reference?: string }, level: string): string =>
		'T10188' +
		fw(++number, 6, '9') +
		fw(entry.archiveId, 18) +
		yymmdd(entry.bookingDate) +
		yymmdd(entry.valueDate ?? entry.bookingDate) +
		yymmdd(entry.bookingDate) +
		String(entry.entryType) +
		fw(entry.code, 3) +
		fw(entry.description, 35) +
		signed(entry.cents, 18) +
		'A' +
		'K' +
		fw(entry.name ?? '', 35) +
		(entry.name ? 'A' : ' ') +
		fw(entry.counterpartyAccount ?? '', 14) +
		' ' +
		fw(entry.reference ? entry.reference.padStart(20, '0') : '', 20) +
		fw('', 8) +
		level;
	for (const entry of options.entries) {
		records.push(t10(entry, ' '));
		if (entry.messages?.length) {
			const data = entry.messages.map((m) => fw(m, 35)).join('');
			records.push(`T11${fw(8 + data.length, 3, '9')}00${data}`);
		}
		if (entry.fx) {
			const data = signed(entry.fx.cents, 18) + ' ' + fw(entry.fx.currency, 3) + ' ' + fw(Math.round(entry.fx.rate * 1e6), 11, '9') + fw('', 6);
			records.push(`T11${fw(8 + data.length, 3, '9')}05${data}`);
		}
		if (entry.sepa) {
			const credit = entry.cents >= 0;
			const data =
				fw(entry.sepa.endToEndId ?? '', 35) +
				fw(entry.sepa.iban ?? '', 35) +
				fw(entry.sepa.bic ?? '', 35) +
				fw(credit ? '' : (entry.sepa.fullName ?? ''), 70) +
				fw(credit ? (entry.sepa.fullName ?? '') : '', 70) +
				fw('', 35) +
				fw(entry.archiveId, 35);
			records.push(`T11${fw(8 + data.length, 3, '9')}11${data}`);
		}
		if (entry.items?.length) {
			records.push(`T11016${'01'}${fw(entry.items.length, 8, '9')}`);
			for (const item of entry.items)
				records.push(t10({ ...entry, cents: item.cents, name: item.name, reference: item.reference, code: entry.code, description: entry.description }, '1'));
		}
	}
	const day = yymmdd(options.to);
	records.push(`T40050${day}${signed(closingCents, 18)}${signed(closingCents, 18)}`);
	const credits = options.entries.filter((e) => e.cents >= 0);
	const debits = options.entries.filter((e) => e.cents < 0);
	records.push(
		`T500671${day}${fw(credits.length, 8, '9')}${signed(credits.reduce((s, e) => s + e.cents, 0), 18)}${fw(debits.length, 8, '9')}${signed(debits.reduce((s, e) => s + e.cents, 0), 18)}`,
	);
	return { text: `${records.join('\r\n')}\r\n`, closingCents };
}

export interface KtlPayment {
	account: string;
	bookingDate: Date;
	paymentDate: Date;
	archiveId: string;
	reference: string;
	payerName: string;
	cents: number;
	correction?: boolean;
}

/** One KTL batch: header 0, a record 3 per payment, summary 9. */
export function ktlBatch(options: { created: Date; serviceId: string; payments: KtlPayment[] }): string {
	const created = options.created.toISOString();
	const lines = [
		fw(`0${yymmdd(options.created)}${created.slice(11, 13)}${created.slice(14, 16)}SB${fw(options.serviceId, 9)}1`, 90),
	];
	for (const p of options.payments)
		lines.push(
			'3' +
				fw(p.account, 14, '9') +
				yymmdd(p.bookingDate) +
				yymmdd(p.paymentDate) +
				fw(p.archiveId, 16) +
				fw(p.reference, 20, '9') +
				fw(p.payerName, 12) +
				'1' +
				'A' +
				fw(p.cents, 10, '9') +
				(p.correction ? '1' : '0') +
				'A' +
				' ',
		);
	const normal = options.payments.filter((p) => !p.correction);
	const corrections = options.payments.filter((p) => p.correction);
	lines.push(
		fw(
			'9' +
				fw(normal.length, 6, '9') +
				fw(normal.reduce((s, p) => s + p.cents, 0), 11, '9') +
				fw(corrections.length, 6, '9') +
				fw(corrections.reduce((s, p) => s + p.cents, 0), 11, '9'),
			90,
		),
	);
	return `${lines.join('\r\n')}\r\n`;
}

// ---------------------------------------------------------------------------
// The bank's answer to an uploaded payment file: a camt.054 debit notification of its payments
// ---------------------------------------------------------------------------

const asList = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The credit transfers of a pain.001 (any version), as the bank reads them. */
export function pain001Payments(xml: string): Array<{
	messageId: string;
	paymentInformationId: string;
	debtorIban: string;
	executionDate: string;
	endToEndId: string;
	instructionId?: string;
	amount: string;
	currency: string;
	creditorName: string;
	creditorIban: string;
	creditorBic?: string;
	reference?: string;
	text?: string;
}> {
	const parser = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, parseTagValue: false, attributeNamePrefix: '@' });
	type Node = Record<string, unknown>;
	const doc = parser.parse(xml) as Node;
	const root = (doc.Document as Node).CstmrCdtTrfInitn as Node;
	const messageId = String((root.GrpHdr as Node).MsgId);
	const text = (node: unknown): string | undefined => (node === undefined ? undefined : typeof node === 'object' ? String((node as Node)['#text'] ?? '') : String(node));
	return asList(root.PmtInf as Node[]).flatMap((block) => {
		const date = block.ReqdExctnDt as Node | string;
		const executionDate = typeof date === 'object' ? String(date.Dt ?? date.DtTm ?? '').slice(0, 10) : String(date);
		return asList(block.CdtTrfTxInf as Node[]).map((tx) => {
			const amount = (tx.Amt as Node).InstdAmt as Node;
			const remittance = tx.RmtInf as Node | undefined;
			const structured = asList(remittance?.Strd as Node[])[0];
			const agent = ((tx.CdtrAgt as Node | undefined)?.FinInstnId as Node | undefined) ?? {};
			return {
				messageId,
				paymentInformationId: String(block.PmtInfId),
				debtorIban: String((((block.DbtrAcct as Node).Id as Node).IBAN)),
				executionDate,
				endToEndId: String((tx.PmtId as Node).EndToEndId),
				instructionId: text((tx.PmtId as Node).InstrId),
				amount: String(amount['#text']),
				currency: String(amount['@Ccy']),
				creditorName: String((tx.Cdtr as Node).Nm ?? ((tx.Cdtr as Node).Pty as Node | undefined)?.Nm),
				creditorIban: String(((tx.CdtrAcct as Node).Id as Node).IBAN),
				creditorBic: text(agent.BIC ?? agent.BICFI),
				reference: text((structured?.CdtrRefInf as Node | undefined)?.Ref),
				text: asList(remittance?.Ustrd as string[]).map(String).join(' ') || undefined,
			};
		});
	});
}

/** A camt.054.001.02 debit notification booking each payment of a pain.001 as its own entry. */
export function camt054FromPain001(pain001: string, options: { notificationId: string; created: Date; bookingDate?: string }): string {
	const payments = pain001Payments(pain001);
	const account = payments[0]?.debtorIban ?? '';
	const created = options.created.toISOString().slice(0, 19);
	const entries = payments
		.map((p, index) => {
			const booked = options.bookingDate ?? p.executionDate;
			const reference = `${options.notificationId.slice(-10)}${pad(index + 1, 4)}`;
			const remittance = p.reference
				? `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry>${p.reference.startsWith('RF') ? '<Issr>ISO</Issr>' : ''}</Tp><Ref>${escapeText(p.reference)}</Ref></CdtrRefInf></Strd></RmtInf>`
				: p.text
					? `<RmtInf><Ustrd>${escapeText(p.text)}</Ustrd></RmtInf>`
					: '';
			return (
				`<Ntry><NtryRef>${index + 1}</NtryRef><Amt Ccy="${p.currency}">${p.amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>` +
				`<BookgDt><Dt>${booked}</Dt></BookgDt><ValDt><Dt>${booked}</Dt></ValDt><AcctSvcrRef>${reference}</AcctSvcrRef>` +
				'<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>' +
				'<NtryDtls><TxDtls>' +
				`<Refs><MsgId>${escapeText(p.messageId)}</MsgId><AcctSvcrRef>${reference}</AcctSvcrRef><PmtInfId>${escapeText(p.paymentInformationId)}</PmtInfId>` +
				`${p.instructionId ? `<InstrId>${escapeText(p.instructionId)}</InstrId>` : ''}<EndToEndId>${escapeText(p.endToEndId)}</EndToEndId></Refs>` +
				`<AmtDtls><TxAmt><Amt Ccy="${p.currency}">${p.amount}</Amt></TxAmt></AmtDtls>` +
				`<RltdPties><Cdtr><Nm>${escapeText(p.creditorName)}</Nm></Cdtr><CdtrAcct><Id><IBAN>${p.creditorIban}</IBAN></Id></CdtrAcct></RltdPties>` +
				(p.creditorBic ? `<RltdAgts><CdtrAgt><FinInstnId><BIC>${p.creditorBic}</BIC></FinInstnId></CdtrAgt></RltdAgts>` : '') +
				remittance +
				'</TxDtls></NtryDtls></Ntry>'
			);
		})
		.join('\n      ');
	return (
		'<?xml version="1.0" encoding="UTF-8"?>\n' +
		'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n' +
		'  <BkToCstmrDbtCdtNtfctn>\n' +
		`    <GrpHdr><MsgId>${escapeText(options.notificationId)}</MsgId><CreDtTm>${created}</CreDtTm></GrpHdr>\n` +
		`    <Ntfctn><Id>${escapeText(options.notificationId)}</Id><CreDtTm>${created}</CreDtTm>` +
		`<Acct><Id><IBAN>${account}</IBAN></Id><Svcr><FinInstnId><BIC>${BANK_BIC}</BIC></FinInstnId></Svcr></Acct>\n      ` +
		entries +
		'\n    </Ntfctn>\n  </BkToCstmrDbtCdtNtfctn>\n</Document>\n'
	);
}

const TITO_ACCOUNT = { bban: '15723500048531', iban: makeIban('FI', '15723500048531') };
const PAYERS = ['Meikalainen Matti', 'Korhonen Aino', 'Lahti Energia', 'Oulun Kiinteistot', 'Virtanen Juha', 'Kuopion Tukku'];

/** A day of TITO entries: reference payments in, SEPA payments out, fees, a salary batch now and then. */
function titoEntries(prng: Prng, date: Date, count: number): TitoEntry[] {
	const out: TitoEntry[] = [];
	for (let i = 0; i < count; i++) {
		const archiveId = `${day(date).replace(/-/g, '').slice(2)}TITO${pad(i + 1, 5)}`;
		const kind = prng.weighted([['reference', 40], ['payment', 35], ['fee', 5], ['salary', 5], ['fx', 5], ['correction', 3]] as const);
		const name = prng.pick(PARTIES);
		if (kind === 'reference') {
			const cents = prng.int(2000, 500000);
			out.push({ archiveId, bookingDate: date, entryType: 1, code: '705', description: 'Viitesiirto', cents, name: name.slice(0, 35), reference: finnishReference(String(prng.int(1000, 99999))) });
		} else if (kind === 'payment') {
			const cents = -prng.int(1500, 900000);
			out.push({ archiveId, bookingDate: date, entryType: 2, code: '710', description: 'SEPA-maksu', cents, name: name.slice(0, 35), messages: [`Lasku ${prng.int(1000, 9999)}`],
				sepa: { endToEndId: `PAY-${prng.int(10000, 99999)}`, iban: makeIban('FI', `${prng.int(100000, 999999)}${pad(prng.int(0, 99999999), 8)}`), bic: 'NDEAFIHH', fullName: name } });
		} else if (kind === 'fee') {
			out.push({ archiveId, bookingDate: date, entryType: 2, code: '730', description: 'Palvelumaksu', cents: -prng.int(100, 3000) });
		} else if (kind === 'salary') {
			const items = EMPLOYEES.slice(0, prng.int(2, 4)).map((employee) => ({ cents: -prng.int(200000, 450000), name: employee }));
			out.push({ archiveId, bookingDate: date, entryType: 2, code: '720', description: 'Palkat', cents: items.reduce((sum, item) => sum + item.cents, 0), name: 'Palkat', items });
		} else if (kind === 'fx') {
			const usd = prng.int(10000, 900000);
			const rate = prng.range(1.04, 1.12);
			out.push({ archiveId, bookingDate: date, entryType: 1, code: '710', description: 'Ulkomaan maksu', cents: Math.round(usd / rate), name: 'Hanse Metals GmbH', fx: { cents: usd, currency: 'USD', rate } });
		} else {
			out.push({ archiveId, bookingDate: date, entryType: 3, code: '710', description: 'Korjaus', cents: prng.int(1000, 50000), name: name.slice(0, 35) });
		}
	}
	return out;
}

/** A day of incoming reference payments (KTL), now and then a correction. */
function ktlPayments(prng: Prng, date: Date, account: string, count: number): KtlPayment[] {
	return Array.from({ length: count }, (_, i) => ({
		account,
		bookingDate: date,
		paymentDate: new Date(date.getTime() - prng.int(0, 2) * DAY_MS),
		archiveId: `${day(date).replace(/-/g, '').slice(2)}5KTL${pad(i + 1, 6)}`,
		reference: finnishReference(String(prng.int(1000, 999999))),
		payerName: prng.pick(PAYERS).slice(0, 12),
		cents: prng.int(500, 250000),
		correction: prng.chance(0.04),
	}));
}

let arrivals = 0;

export interface ArrivalOptions {
	/** How many files arrive (one after the other, a millisecond apart). */
	count: number;
	/** XT (camt.053 statement, the default) or XP (pain.002 status report). */
	fileType?: string;
	customerId: string;
	customerName: string;
	now: Date;
	seed?: number;
}

/**
 * New files arriving at the bank now, status NEW, as the bank delivers statements and status
 * reports during the day: each with its own reference, file name and content. For tests of
 * triggers (and `POST /__sandbox/files/arrive`).
 */
export function arriveFiles(store: FileStoreApi, options: ArrivalOptions): BankFileDescriptor[] {
	const fileType = (options.fileType ?? 'XT').toUpperCase();
	if (fileType !== 'XT' && fileType !== 'XP') throw new Error('fileType must be XT or XP.');
	const out: BankFileDescriptor[] = [];
	for (let index = 0; index < options.count; index++) {
		arrivals += 1;
		const prng = new Prng((options.seed ?? 42) ^ (arrivals * 0x9e3779b1));
		const timestamp = new Date(options.now.getTime() + index);
		const stamp = timestamp.toISOString().replace(/[-:.]/g, '').slice(0, 15);
		if (fileType === 'XT') {
			const account = ACCOUNTS[arrivals % ACCOUNTS.length];
			const statement = camt053({
				prng,
				account,
				date: timestamp,
				sequence: 1000 + arrivals,
				customerName: options.customerName,
				customerId: options.customerId,
				openingCents: prng.int(5_000_000, 90_000_000),
			});
			out.push(
				store.put({
					fileType,
					content: Buffer.from(statement.xml, 'utf8'),
					fileTimestamp: timestamp,
					status: 'NEW',
					serviceId: `${BANK_BIC}-FI-${account.currency}-${account.iban}`,
					userFilename: `camt053_${account.iban.slice(-6)}_${stamp}_${arrivals}.xml`,
					transactionCount: statement.entries,
					amountTotal: statement.totalCents / 100,
				}),
			);
		} else {
			const reference = `PAY${stamp}${arrivals}`;
			const transactions = prng.int(1, 20);
			out.push(
				store.put({
					fileType,
					content: Buffer.from(
						pain002({ messageId: `STS-${reference}`, created: timestamp, originalMessageId: reference, transactions, accepted: prng.chance(0.8) }),
						'utf8',
					),
					fileTimestamp: timestamp,
					status: 'NEW',
					userFilename: `pain002_${reference}.xml`,
					transactionCount: transactions,
				}),
			);
		}
	}
	return out;
}
