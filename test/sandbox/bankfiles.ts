import { mkdtempSync, readFileSync, readSync, openSync, closeSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

interface GeneratedEntry {
	cents: number;
	party: string;
	partyIban: string;
	remittance: string;
	reference: string;
}

export function camt053(options: {
	prng: Prng;
	account: { iban: string; currency: string };
	date: Date;
	sequence: number;
	customerName: string;
	customerId: string;
	openingCents: number;
}): { xml: string; closingCents: number; entries: number; totalCents: number } {
	const { prng, account, date, sequence } = options;
	const entries: GeneratedEntry[] = [];
	const count = prng.int(3, 9);
	for (let index = 0; index < count; index++) {
		const credit = prng.chance(0.45);
		const cents = (credit ? 1 : -1) * prng.int(1500, 2500000);
		const month = date.toISOString().slice(0, 7);
		entries.push({
			cents,
			party: prng.pick(PARTIES),
			partyIban: makeIban('FI', `${prng.int(100000, 999999)}${pad(prng.int(0, 99999999), 8)}`),
			remittance: prng
				.pick(REMITTANCES)
				.replace('{n}', String(prng.int(100, 9999)))
				.replace('{m}', month),
			reference: `${day(date).replace(/-/g, '')}${pad(sequence, 4)}${pad(index + 1, 3)}`,
		});
	}
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
	const entryXml = entries
		.map((entry, index) => {
			const credit = entry.cents > 0;
			const related = credit
				? `<RltdPties><Dbtr><Nm>${escapeText(entry.party)}</Nm></Dbtr><DbtrAcct><Id><IBAN>${entry.partyIban}</IBAN></Id></DbtrAcct></RltdPties>`
				: `<RltdPties><Cdtr><Nm>${escapeText(entry.party)}</Nm></Cdtr><CdtrAcct><Id><IBAN>${entry.partyIban}</IBAN></Id></CdtrAcct></RltdPties>`;
			return (
				`<Ntry><NtryRef>${index + 1}</NtryRef><Amt Ccy="${account.currency}">${money(entry.cents)}</Amt>` +
				`<CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts>BOOK</Sts>` +
				`<BookgDt><Dt>${dateText}</Dt></BookgDt><ValDt><Dt>${dateText}</Dt></ValDt>` +
				`<AcctSvcrRef>${entry.reference}</AcctSvcrRef>` +
				`<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${credit ? 'RCDT' : 'ICDT'}</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>` +
				`<NtryDtls><TxDtls><Refs><AcctSvcrRef>${entry.reference}</AcctSvcrRef><EndToEndId>E2E${entry.reference}</EndToEndId></Refs>` +
				`<AmtDtls><TxAmt><Amt Ccy="${account.currency}">${money(entry.cents)}</Amt></TxAmt></AmtDtls>` +
				related +
				`<RmtInf><Ustrd>${escapeText(entry.remittance)}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`
			);
		})
		.join('\n      ');
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
		`      <TxsSummry><TtlNtries><NbOfNtries>${entries.length}</NbOfNtries><Sum>${money(creditSum + debitSum)}</Sum>` +
		`<TtlNetNtryAmt>${money(net)}</TtlNetNtryAmt><CdtDbtInd>${net >= 0 ? 'CRDT' : 'DBIT'}</CdtDbtInd></TtlNtries>` +
		`<TtlCdtNtries><NbOfNtries>${credits.length}</NbOfNtries><Sum>${money(creditSum)}</Sum></TtlCdtNtries>` +
		`<TtlDbtNtries><NbOfNtries>${debits.length}</NbOfNtries><Sum>${money(debitSum)}</Sum></TtlDbtNtries></TxsSummry>\n` +
		`      ${entryXml}\n` +
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
					fileTimestamp: timestamp,
					status: ageDays > 4 ? 'DLD' : 'NEW',
					serviceId: `${BANK_BIC}-FI-${account.currency}-${account.iban}`,
					userFilename: `camt053_${account.iban.slice(-6)}_${day(date)}.xml`,
					transactionCount: statement.entries,
					amountTotal: statement.totalCents / 100,
				});
			});
		}
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
				fileTimestamp: created,
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
