/**
 * What the sandbox EBICS bank holds for each subscriber: files to download by BTF service
 * (generated camt.053, camt.052, camt.054, pain.002 and MT940, plus whatever tests add) and the
 * uploads it received. A file is delivered until a positive receipt acknowledges it.
 */
import { camt053, makeIban } from '../bankfiles';
import { Prng } from '../prng';
import type { BtfService } from '../../../nodes/shared/ebics';

export interface DownloadFile {
	id: number;
	/** The file's service: ServiceName and MsgName decide which BTD gets it. */
	serviceName: string;
	msgName: string;
	/** Name inside a ZIP container. */
	name: string;
	content: Buffer;
	/** The business date, for BTD date ranges (YYYY-MM-DD). */
	date: string;
	delivered: boolean;
}

export interface StoredUpload {
	orderId: string;
	service?: BtfService;
	orderType: string;
	fileName?: string;
	/** The order data; empty for one larger than the bank keeps (transfers.ts KEEP_BYTES). */
	data: Buffer;
	/** Size and SHA-256 of the order data (H005 uploads). */
	bytes?: number;
	sha256?: string;
	signatureFlag: 'authorise' | 'distributed' | 'transport';
	signer: { partnerId: string; userId: string };
	receivedAt: string;
}

/**
 * One event of an order in the customer protocol (HAC and PTK): an upload received, its signature
 * checked, the order accepted or refused. HAC and PTK each deliver an event once (a positive
 * receipt marks it), or again with a date range.
 */
export interface ProtocolEvent {
	orderId: string;
	orderType: string;
	service?: BtfService;
	userId: string;
	/** HAC action: FILE_UPLOAD, ES_VERIFICATION, ORDER_HAC_FINAL_POS, ORDER_HAC_FINAL_NEG. */
	action: string;
	/** ISO 20022 status reason (TS01 transfer succeeded, DS01 signatures correct, DS0B signature refused, ...). */
	reasonCode?: string;
	/** The bank's words. */
	text?: string;
	at: string;
	delivered: { HAC: boolean; PTK: boolean };
}

const DAY_MS = 24 * 60 * 60 * 1000;

function day(date: Date): string {
	return date.toISOString().slice(0, 10);
}

function businessDays(now: Date, count: number): Date[] {
	const out: Date[] = [];
	for (let offset = 1; out.length < count; offset++) {
		const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - offset * DAY_MS);
		if (date.getUTCDay() !== 0 && date.getUTCDay() !== 6) out.unshift(date);
	}
	return out;
}

function mt940(iban: string, date: Date, sequence: number, openingCents: number, prng: Prng): string {
	const yymmdd = day(date).slice(2).replace(/-/g, '');
	const amount = (cents: number): string => (Math.abs(cents) / 100).toFixed(2).replace('.', ',');
	const lines = [`:20:STMT${yymmdd}${sequence}`, `:25:${iban}`, `:28C:${sequence}/1`, `:60F:${openingCents >= 0 ? 'C' : 'D'}${yymmdd}EUR${amount(openingCents)}`];
	let balance = openingCents;
	for (let i = 0; i < 3; i++) {
		const cents = prng.int(-250000, 400000);
		balance += cents;
		lines.push(`:61:${yymmdd}${yymmdd.slice(2)}${cents >= 0 ? 'C' : 'D'}${amount(cents)}NTRFNONREF`, `:86:166?00SEPA-GUTSCHRIFT?20Rechnung ${sequence}-${i + 1}`);
	}
	lines.push(`:62F:${balance >= 0 ? 'C' : 'D'}${yymmdd}EUR${amount(balance)}`, '-');
	return `${lines.join('\r\n')}\r\n`;
}

/** The seeded files of a subscriber: statements of the last `days` business days. */
export function seedFiles(options: { seed: number; now: Date; days: number; customerName: string; customerId: string; nextId: () => number }): DownloadFile[] {
	const prng = new Prng(options.seed);
	const iban = makeIban('DE', `5001051${String(options.seed % 1000).padStart(3, '0')}0012345678`.slice(0, 18));
	const files: DownloadFile[] = [];
	let opening = 1_250_000_00;
	businessDays(options.now, options.days).forEach((date, index) => {
		const statement = camt053({ prng, account: { iban, currency: 'EUR' }, date, sequence: index + 1, customerName: options.customerName, customerId: options.customerId, openingCents: opening, entries: prng.int(5, 12) });
		const add = (serviceName: string, msgName: string, name: string, content: string): void => {
			files.push({ id: options.nextId(), serviceName, msgName, name, content: Buffer.from(content, 'utf8'), date: day(date), delivered: false });
		};
		add('EOP', 'camt.053', `camt053_${day(date)}_${iban.slice(-4)}.xml`, statement.xml);
		add(
			'STM',
			'camt.052',
			`camt052_${day(date)}_${iban.slice(-4)}.xml`,
			statement.xml
				.replace(/camt\.053\.001\.02/g, 'camt.052.001.02')
				.replace(/BkToCstmrStmt/g, 'BkToCstmrAcctRpt')
				.replace(/<Stmt>/g, '<Rpt>')
				.replace(/<\/Stmt>/g, '</Rpt>'),
		);
		add('EOP', 'mt940', `mt940_${day(date)}.txt`, mt940(iban, date, index + 1, opening, prng));
		opening = statement.closingCents;
	});
	return files;
}
