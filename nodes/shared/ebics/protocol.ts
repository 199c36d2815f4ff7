/**
 * The customer protocol, the bank's record of what happened to each order: why an upload was
 * accepted or refused.
 *
 * - HAC (customer acknowledgement) is a pain.002 document in which each OrgnlPmtInfAndSts is one
 *   event of an order: OrgnlPmtInfId names the action (FILE_UPLOAD, ES_VERIFICATION,
 *   ORDER_HAC_FINAL_POS, ORDER_HAC_FINAL_NEG, ...), StsRsnInf carries the reason code (TS01,
 *   DS01, ...), the bank's own words (AddtlInf) and, under Orgtr/Id/OrgId/Othr, key/value pairs
 *   whose SchmeNm/Prtry names the value (TimeStamp, OrderID, ...). This is the layout libeufin
 *   reads from real banks (nexus, ebics/XmlCustomerAck: `parseCustomerAck`).
 * - PTK is plain text the bank lays out itself (often German, ISO-8859-1, CRLF); it is read line
 *   by line, naming the order a line speaks of when it does.
 */
import { EbicsFormatError } from './errors';
import { child, children, parseDocument, path, text } from './xml';

/** What the actions of a HAC entry mean. */
export const HAC_ACTIONS: Record<string, string> = {
	FILE_UPLOAD: 'File uploaded to the bank',
	FILE_DOWNLOAD: 'File downloaded from the bank',
	ES_UPLOAD: 'Signature uploaded',
	ES_DOWNLOAD: 'Signature downloaded',
	ES_VERIFICATION: 'Signature checked',
	VEU_FORWARDING: 'Order sent to the distributed signature (VEU)',
	VEU_VERIFICATION: 'Distributed signature checked',
	VEU_VERIFICATION_END: 'Distributed signature complete',
	VEU_CANCEL_ORDER: 'Order cancelled in the distributed signature',
	ADDITIONAL: 'Additional information',
	ORDER_HAC_FINAL_POS: 'Order finished: accepted',
	ORDER_HAC_FINAL_NEG: 'Order finished: refused',
};

export interface HacEntry {
	/** The action (OrgnlPmtInfId), e.g. ORDER_HAC_FINAL_NEG. */
	action: string;
	/** What the action means, when it is one of the spec's. */
	actionText?: string;
	/** The order the entry belongs to (Othr with SchmeNm/Prtry OrderID). */
	orderId?: string;
	/** When it happened (Othr with SchmeNm/Prtry TimeStamp). */
	timestamp?: string;
	/** The reason code (Rsn/Cd, or Rsn/Prtry), e.g. DS01, TD03. */
	reasonCode?: string;
	/** The bank's own text (every AddtlInf, joined). */
	additionalInfo?: string;
	/** Whether the entry ends the order refused (true), accepted (false), or neither (undefined). */
	refused?: boolean;
	/** The other key/value pairs the bank gave (Othr), by their name. */
	details: Record<string, string>;
}

export interface CustomerAcknowledgement {
	messageId?: string;
	createdAt?: string;
	entries: HacEntry[];
}

/** Reads a HAC (pain.002 customer acknowledgement) into its entries, in the bank's order. */
export function readCustomerAcknowledgement(xml: Buffer | string): CustomerAcknowledgement {
	const root = parseDocument(xml, 'The customer acknowledgement (HAC)').documentElement;
	const ns = root.namespaceURI ?? '';
	const report = child(root, ns, 'CstmrPmtStsRpt');
	if (root.localName !== 'Document' || !report || !/pain\.002/.test(ns))
		throw new EbicsFormatError(
			`The customer acknowledgement (HAC) is not a pain.002 status report (its root is ${root.localName}${ns ? ` in ${ns}` : ''})`,
		);
	const entries: HacEntry[] = children(report, ns, 'OrgnlPmtInfAndSts').map((event) => {
		const action = text(child(event, ns, 'OrgnlPmtInfId')) ?? '';
		const reason = child(event, ns, 'StsRsnInf');
		const details: Record<string, string> = {};
		for (const other of children(path(reason, ns, 'Orgtr', 'Id', 'OrgId'), ns, 'Othr')) {
			const name =
				text(path(other, ns, 'SchmeNm', 'Prtry')) ?? text(path(other, ns, 'SchmeNm', 'Cd'));
			const value = text(child(other, ns, 'Id'));
			if (name && value !== undefined) details[name] = value;
		}
		const orderId = details.OrderID;
		const timestamp = details.TimeStamp;
		delete details.OrderID;
		delete details.TimeStamp;
		const info = children(reason, ns, 'AddtlInf')
			.map((e) => text(e))
			.filter((t): t is string => !!t)
			.join(' ');
		const entry: HacEntry = {
			action,
			actionText: HAC_ACTIONS[action],
			orderId,
			timestamp,
			reasonCode: text(path(reason, ns, 'Rsn', 'Cd')) ?? text(path(reason, ns, 'Rsn', 'Prtry')),
			additionalInfo: info || undefined,
			refused:
				action === 'ORDER_HAC_FINAL_NEG'
					? true
					: action === 'ORDER_HAC_FINAL_POS'
						? false
						: undefined,
			details,
		};
		for (const key of Object.keys(entry) as Array<keyof HacEntry>)
			if (entry[key] === undefined) delete entry[key];
		return entry;
	});
	const header = child(report, ns, 'GrpHdr');
	return {
		messageId: text(child(header, ns, 'MsgId')),
		createdAt: text(child(header, ns, 'CreDtTm')),
		entries,
	};
}

export interface ProtocolLine {
	/** 1-based line number in the protocol. */
	line: number;
	text: string;
	/** The order the line names, when it names one ("Order A1B2", "Auftragsnummer: A1B2"). */
	orderId?: string;
}

/** "Order A1B2", "Order ID: A1B2", "Auftragsnummer A1B2", "Auftrags-Nr. A1B2", "Ordre A1B2". */
const ORDER_ID =
	/\b(?:[Oo]rder(?: ?ID)?|[Aa]uftrag(?:snummer|s-?[Nn]r\.?)?|[Oo]rdre)\s*[:#]?\s*([A-Z][A-Z0-9]{3})\b/;

/** A bank's text (PTK, an HVD display file): UTF-8 when it is valid UTF-8, else ISO-8859-1. */
export function bankText(data: Buffer): string {
	const utf8 = data.toString('utf8');
	return utf8.includes('\uFFFD') ? data.toString('latin1') : utf8;
}

/**
 * Reads a PTK customer protocol into its non-empty lines. The text is UTF-8 when it is valid
 * UTF-8, otherwise ISO-8859-1 (what banks send).
 */
export function readCustomerProtocol(data: Buffer): ProtocolLine[] {
	const textOf = bankText(data);
	const out: ProtocolLine[] = [];
	textOf.split(/\r\n|\r|\n/).forEach((raw, index) => {
		const line = raw.replace(/\s+$/, '');
		if (!line.trim()) return;
		const orderId = ORDER_ID.exec(line)?.[1];
		out.push({ line: index + 1, text: line, ...(orderId ? { orderId } : {}) });
	});
	return out;
}
