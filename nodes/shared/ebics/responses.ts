/**
 * Reading the bank's answers: ebicsResponse (transactions), ebicsKeyManagementResponse (INI, HIA,
 * HPB) and ebicsHEVResponse. Parsing refuses a DOCTYPE or ENTITY; an ebicsResponse with success
 * codes must carry the bank's X002 signature, verified with the bank's authentication key.
 *
 * Return codes are read at both levels: the header's (technical) and the body's (business). A
 * code of kind success, note or warning passes (the order was processed); an error is an
 * EbicsReturnCodeError, the technical one first. Some French banks put the error in the body while the header says 000000
 * (ebics-client-php issue #29): the body is always checked. 090005 (no download data) is not an
 * error for downloads: `noData` says so.
 */
import type { KeyObject } from 'node:crypto';

import { H000_NS, H005_NS } from './constants';
import { EbicsFormatError, EbicsReturnCodeError } from './errors';
import { NO_DOWNLOAD_DATA, returnCodeInfo, returnCodeKind } from './returnCodes';
import { verifyAuthSignature } from './x002';
import {
	child,
	parseDocument,
	parseKeepingOrderDataOut,
	path,
	restoreOrderData,
	text,
} from './xml';

export interface ReturnCodes {
	technical: string;
	business: string;
	reportText?: string;
}

export interface EbicsResponse {
	root: 'ebicsResponse' | 'ebicsKeyManagementResponse';
	codes: ReturnCodes;
	transactionId?: string;
	numSegments?: number;
	phase?: string;
	segmentNumber?: number;
	lastSegment?: boolean;
	orderId?: string;
	/** DataEncryptionInfo of a download's first answer (or HPB's). */
	transactionKey?: Buffer;
	encryptionPubKeyDigest?: Buffer;
	/** The OrderData text (base64) of this answer's segment (unless read as bytes). */
	orderData?: string;
	/**
	 * With `orderDataAsBytes`: the OrderData of this answer's segment as it came, bytes when the
	 * answer was bytes (the base64 never turned into text), else text.
	 */
	orderDataRaw?: string | Buffer;
	/** 090005 at either level: no download data. */
	noData: boolean;
	/** Whether the X002 signature was verified. */
	signed: boolean;
}

function integer(value: string | undefined, what: string): number | undefined {
	if (value === undefined) return undefined;
	if (!/^\d+$/.test(value))
		throw new EbicsFormatError(`The bank's answer has a ${what} that is not a number: "${value}"`);
	return Number(value);
}

/** Throws EbicsReturnCodeError for the first non-success code (technical, then business). */
export function checkReturnCodes(
	codes: ReturnCodes,
	step: string,
	options: { allowNoData?: boolean } = {},
): void {
	for (const level of ['technical', 'business'] as const) {
		const code = codes[level];
		const kind = returnCodeKind(code);
		// A warning (03xxxx, e.g. 031001 order parameters ignored) means the order was processed:
		// throwing would invite a second submission. It stays visible in the codes returned.
		if (kind !== 'error') continue;
		if (options.allowNoData && code === NO_DOWNLOAD_DATA) continue;
		// The header's ReportText speaks of the technical code: "[EBICS_OK] OK" does not describe
		// an error in the body.
		const reportText =
			level === 'business' && /^\[EBICS_OK\]/.test(codes.reportText ?? '')
				? undefined
				: codes.reportText;
		throw new EbicsReturnCodeError(code, level, returnCodeInfo(code, level), reportText, step);
	}
}

export interface ReadOptions {
	/** The bank's X002 public key: required for ebicsResponse, not used for key management. */
	bankAuthenticationKey?: KeyObject;
	/** Download initialisation: 090005 is an empty result. */
	allowNoData?: boolean;
	/** The protocol's namespace (default H005; urn:org:ebics:H004 for EBICS 2.5). */
	namespace?: string;
	/** Give a segment's OrderData as it came (`orderDataRaw`), out of the DOM. */
	orderDataAsBytes?: boolean;
}

/** Whether an element or one of its ancestors is covered by the X002 signature. */
function authenticated(element: Element): boolean {
	for (let node: Node | null = element; node && node.nodeType === 1; node = node.parentNode)
		if ((node as Element).getAttribute('authenticate') === 'true') return true;
	return false;
}

/**
 * Parses and checks an answer: XML safety, the root, the return codes (both levels), then the
 * bank's signature when the codes say success. EbicsFormatError, EbicsReturnCodeError or
 * EbicsSignatureError name what is wrong.
 */
export function readResponse(
	xml: string | Buffer,
	step: string,
	options: ReadOptions = {},
): EbicsResponse {
	const ns = options.namespace ?? H005_NS;
	const parsed = parseKeepingOrderDataOut(xml, `The bank's answer to ${step}`);
	// The segment stays out of the DOM unless asked for as text or covered by the signature.
	if (
		!options.orderDataAsBytes ||
		(parsed.orderDataElement && authenticated(parsed.orderDataElement))
	)
		restoreOrderData(parsed);
	const kept = options.orderDataAsBytes && parsed.orderDataElement?.firstChild === null;
	const doc = parsed.doc;
	const root = doc.documentElement;
	if (
		root.namespaceURI !== ns ||
		(root.localName !== 'ebicsResponse' && root.localName !== 'ebicsKeyManagementResponse')
	) {
		throw new EbicsFormatError(
			`The bank's answer to ${step} is not an ${ns === H005_NS ? 'EBICS 3.0' : 'EBICS 2.5'} response: its root is ${root.localName}${root.namespaceURI ? ` in ${root.namespaceURI}` : ' without namespace'}${/^urn:org:ebics:H00/.test(root.namespaceURI ?? '') ? ` (the bank answers in ${root.namespaceURI?.slice(-4)}: set the credential's EBICS Version to what the bank offers, see Bank Versions)` : ''}`,
		);
	}
	const header = child(root, ns, 'header');
	const body = child(root, ns, 'body');
	const mutable = child(header, ns, 'mutable');
	const staticHeader = child(header, ns, 'static');
	const technical = text(child(mutable, ns, 'ReturnCode'));
	const business = text(child(body, ns, 'ReturnCode'));
	if (!technical || !/^\d{6}$/.test(technical))
		throw new EbicsFormatError(
			`The bank's answer to ${step} has no technical return code (header/mutable/ReturnCode)`,
		);
	const reportText = text(child(mutable, ns, 'ReportText'));
	// A technical error may come with an empty body: the bank's code is the answer.
	if (returnCodeKind(technical) === 'error')
		checkReturnCodes({ technical, business: '000000', reportText }, step, {
			allowNoData: options.allowNoData,
		});
	if (!business || !/^\d{6}$/.test(business))
		throw new EbicsFormatError(
			`The bank's answer to ${step} has no business return code (body/ReturnCode)`,
		);
	const codes: ReturnCodes = { technical, business, reportText };
	checkReturnCodes(codes, step, { allowNoData: options.allowNoData });
	let signed = false;
	if (root.localName === 'ebicsResponse') {
		if (!options.bankAuthenticationKey)
			throw new EbicsFormatError(
				`${step}: the bank's authentication key is needed to check its answer (fetch the bank keys with HPB first)`,
			);
		verifyAuthSignature(doc, options.bankAuthenticationKey, `The bank's answer to ${step}`);
		signed = true;
	}
	const segment = child(mutable, ns, 'SegmentNumber');
	const dataTransfer = child(body, ns, 'DataTransfer');
	const encryptionInfo = child(dataTransfer, ns, 'DataEncryptionInfo');
	const transactionKey = text(child(encryptionInfo, ns, 'TransactionKey'));
	const keyDigest = text(child(encryptionInfo, ns, 'EncryptionPubKeyDigest'));
	const orderData = child(dataTransfer, ns, 'OrderData');
	return {
		root: root.localName,
		codes,
		transactionId: text(child(staticHeader, ns, 'TransactionID')),
		numSegments: integer(text(child(staticHeader, ns, 'NumSegments')), 'NumSegments'),
		phase: text(child(mutable, ns, 'TransactionPhase')),
		segmentNumber: integer(text(segment), 'SegmentNumber'),
		lastSegment: segment ? segment.getAttribute('lastSegment') === 'true' : undefined,
		orderId: text(child(mutable, ns, 'OrderID')),
		transactionKey: transactionKey ? Buffer.from(transactionKey, 'base64') : undefined,
		encryptionPubKeyDigest: keyDigest ? Buffer.from(keyDigest, 'base64') : undefined,
		orderData: orderData && !options.orderDataAsBytes ? (orderData.textContent ?? '') : undefined,
		...(options.orderDataAsBytes && orderData
			? { orderDataRaw: kept ? parsed.orderData : (orderData.textContent ?? '') }
			: {}),
		noData: technical === NO_DOWNLOAD_DATA || business === NO_DOWNLOAD_DATA,
		signed,
	};
}

export interface HevVersion {
	/** The protocol version, e.g. H005. */
	protocol: string;
	/** The spec version, e.g. 03.00. */
	version: string;
}

/** Reads an ebicsHEVResponse: the versions the bank speaks; a return code other than 000000 throws. */
export function readHevResponse(xml: string | Buffer): HevVersion[] {
	const doc = parseDocument(xml, "The bank's answer to HEV");
	const root = doc.documentElement;
	if (root.namespaceURI !== H000_NS || root.localName !== 'ebicsHEVResponse')
		throw new EbicsFormatError(
			`The bank's answer to HEV is not an ebicsHEVResponse (its root is ${root.localName})`,
		);
	const code = text(path(root, H000_NS, 'SystemReturnCode', 'ReturnCode')) ?? '';
	const report = text(path(root, H000_NS, 'SystemReturnCode', 'ReportText'));
	checkReturnCodes({ technical: code, business: '000000', reportText: report }, 'HEV');
	const out: HevVersion[] = [];
	for (let node = root.firstChild; node; node = node.nextSibling) {
		const element = node as Element;
		if (node.nodeType === 1 && element.localName === 'VersionNumber')
			out.push({
				protocol: element.getAttribute('ProtocolVersion') ?? '',
				version: text(element) ?? '',
			});
	}
	return out;
}
