/**
 * Builders of the H005 requests, one function per message. Each returns the XML text to send;
 * the ones that carry an X002 signature are signed here with the subscriber's authentication key.
 * Every request they build validates against the official H005 schemas (test/unit/ebicsRequests).
 *
 * Transactions (chapter 5 of the spec): an upload has an Initialisation (signature data, the
 * wrapped transaction key, the number of segments) and one Transfer per segment; a download has an
 * Initialisation (answered with the first segment), one Transfer per further segment and a
 * Receipt (0 positive: the bank marks the data as delivered; 1 negative: it delivers again).
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { deflateSync } from 'node:zlib';

import { checkService, serviceXml, type BtfService } from './btf';
import {
	AUTHENTICATION_VERSION,
	DEFAULT_SECURITY_MEDIUM,
	DSIG_NS,
	ENCRYPTION_VERSION,
	H000_NS,
	H005,
	H005_NS,
	S002_NS,
	SHA256_URI,
	SIGNATURE_VERSION,
} from './constants';
import { EbicsValidationError } from './errors';
import { authSignatureTemplate, signRequest } from './x002';
import { el, empty, leaf } from './xml';

/** Who sends: the subscriber as the bank's contract names it. */
export interface EbicsSubscriber {
	hostId: string;
	partnerId: string;
	userId: string;
	/** The technical subscriber that sends for the user, when there is one. */
	systemId?: string;
	/** The client product named in requests (Product element). */
	product?: { name: string; language?: string; instituteId?: string };
	/** Four digits (default 0000). */
	securityMedium?: string;
}

/** The digests of the bank's two keys, as the requests carry them (32 bytes each). */
export interface BankKeyDigests {
	authentication: Buffer;
	encryption: Buffer;
}

const ID_PATTERN = /^[a-zA-Z0-9,=]{1,35}$/;

/** Checks the subscriber's IDs against the H005 schema; EbicsValidationError names the field. */
export function checkSubscriber(subscriber: EbicsSubscriber): EbicsSubscriber {
	const hostId = (subscriber?.hostId ?? '').trim();
	if (!hostId || hostId.length > 35 || /\s/.test(hostId))
		throw new EbicsValidationError(
			'hostId',
			'Host ID is required: 1 to 35 characters without spaces, as the bank gives it',
		);
	for (const field of ['partnerId', 'userId', 'systemId'] as const) {
		const value = subscriber[field];
		if (value === undefined || (field === 'systemId' && value === '')) continue;
		const name = { partnerId: 'Partner ID', userId: 'User ID', systemId: 'System ID' }[field];
		if (!ID_PATTERN.test(value))
			throw new EbicsValidationError(
				field,
				`${name} "${value}" is not valid: 1 to 35 letters, digits, "," or "=" (EBICS ${field === 'partnerId' ? 'PartnerID' : 'UserID'})`,
			);
	}
	if (!subscriber.partnerId) throw new EbicsValidationError('partnerId', 'Partner ID is required');
	if (!subscriber.userId) throw new EbicsValidationError('userId', 'User ID is required');
	if (subscriber.securityMedium !== undefined && !/^\d{4}$/.test(subscriber.securityMedium))
		throw new EbicsValidationError('securityMedium', 'Security medium must be four digits');
	return { ...subscriber, hostId, systemId: subscriber.systemId || undefined };
}

/** A random 16-byte nonce in upper-case hex. */
export function newNonce(): string {
	return randomBytes(16).toString('hex').toUpperCase();
}

const ROOT_ATTRIBUTES = { xmlns: H005_NS, 'xmlns:ds': DSIG_NS, Version: H005, Revision: 1 };

/** The protocol version of a request: H005 (EBICS 3.0) or H004 (EBICS 2.5, h004/requests.ts). */
export type EbicsVersion = 'H005' | 'H004';

/** The root attributes of a request in a protocol version (namespace, Version, Revision). */
export function rootAttributes(version: EbicsVersion = H005): Record<string, string | number> {
	return version === H005
		? ROOT_ATTRIBUTES
		: { xmlns: `urn:org:ebics:${version}`, 'xmlns:ds': DSIG_NS, Version: version, Revision: 1 };
}
const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

function productXml(subscriber: EbicsSubscriber): string | undefined {
	const product = subscriber.product;
	if (!product?.name) return undefined;
	return leaf('Product', product.name.slice(0, 64), {
		Language: (product.language ?? 'en').slice(0, 2),
		InstituteID: product.instituteId,
	});
}

/** PartnerID, UserID, SystemID and Product of a static header. */
export function identityXml(subscriber: EbicsSubscriber): string[] {
	return [
		leaf('PartnerID', subscriber.partnerId),
		leaf('UserID', subscriber.userId),
		subscriber.systemId ? leaf('SystemID', subscriber.systemId) : '',
		productXml(subscriber) ?? '',
	];
}

/** HEV: which EBICS versions the bank speaks (no signature, version-independent namespace). */
export function hevRequest(hostId: string): string {
	return DECLARATION + el('ebicsHEVRequest', { xmlns: H000_NS }, leaf('HostID', hostId));
}

/**
 * A public key info element (SignaturePubKeyInfo, AuthenticationPubKeyInfo, EncryptionPubKeyInfo):
 * the key (an X509Data in H005, a PubKeyValue in H004) and its version element.
 */
export function pubKeyInfo(
	element: string,
	key: string,
	versionElement: string,
	version: string,
): string {
	return el(element, {}, key, leaf(versionElement, version));
}

/** The authentication and encryption key infos, then the owner, in a namespace (HIA, HPB). */
export function keyPairOrderData(
	root: string,
	ns: string,
	keys: { authentication: string; encryption: string },
	owner: string[],
): string {
	return (
		DECLARATION +
		el(
			root,
			{ xmlns: ns, 'xmlns:ds': DSIG_NS },
			pubKeyInfo(
				'AuthenticationPubKeyInfo',
				keys.authentication,
				'AuthenticationVersion',
				AUTHENTICATION_VERSION,
			),
			pubKeyInfo('EncryptionPubKeyInfo', keys.encryption, 'EncryptionVersion', ENCRYPTION_VERSION),
			owner,
		)
	);
}

/** An X509Data element holding one DER certificate. */
export function x509Data(certificateDer: Buffer): string {
	return el('ds:X509Data', {}, leaf('ds:X509Certificate', certificateDer.toString('base64')));
}

/** The order data of INI: the signature certificate (S002 SignaturePubKeyOrderData). */
export function iniOrderData(subscriber: EbicsSubscriber, signatureCertificateDer: Buffer): string {
	return signatureKeyOrderData(subscriber, x509Data(signatureCertificateDer), S002_NS);
}

/** SignaturePubKeyOrderData with the given key element(s), in S002 (H005) or S001 (H004). */
export function signatureKeyOrderData(
	subscriber: EbicsSubscriber,
	keyXml: string,
	namespace: string,
): string {
	return (
		DECLARATION +
		el(
			'SignaturePubKeyOrderData',
			{ xmlns: namespace, 'xmlns:ds': DSIG_NS },
			pubKeyInfo('SignaturePubKeyInfo', keyXml, 'SignatureVersion', SIGNATURE_VERSION),
			leaf('PartnerID', subscriber.partnerId),
			leaf('UserID', subscriber.userId),
		)
	);
}

/** The order data of HIA: the authentication and encryption certificates. */
export function hiaOrderData(
	subscriber: EbicsSubscriber,
	authenticationCertificateDer: Buffer,
	encryptionCertificateDer: Buffer,
): string {
	return keyPairOrderData(
		'HIARequestOrderData',
		H005_NS,
		{
			authentication: x509Data(authenticationCertificateDer),
			encryption: x509Data(encryptionCertificateDer),
		},
		[leaf('PartnerID', subscriber.partnerId), leaf('UserID', subscriber.userId)],
	);
}

/**
 * The OrderDetails of INI, HIA and HPB: AdminOrderType in H005; OrderType and OrderAttribute
 * (DZNNN unsigned and unencrypted for INI and HIA, DZHNN for HPB) in H004.
 */
function keyManagementOrderDetails(orderType: string, version: EbicsVersion): string {
	return version === H005
		? el('OrderDetails', {}, leaf('AdminOrderType', orderType))
		: el(
				'OrderDetails',
				{},
				leaf('OrderType', orderType),
				leaf('OrderAttribute', orderType === 'HPB' ? 'DZHNN' : 'DZNNN'),
			);
}

/** The header of INI, HIA (no nonce, no timestamp) and HPB (with them). */
function keyManagementHeader(
	s: EbicsSubscriber,
	orderType: string,
	version: EbicsVersion,
	time?: RequestTime,
): string {
	return el(
		'header',
		{ authenticate: 'true' },
		el(
			'static',
			{},
			leaf('HostID', s.hostId),
			time && leaf('Nonce', time.nonce ?? newNonce()),
			time && leaf('Timestamp', (time.timestamp ?? new Date()).toISOString()),
			identityXml(s),
			keyManagementOrderDetails(orderType, version),
			leaf('SecurityMedium', s.securityMedium ?? DEFAULT_SECURITY_MEDIUM),
		),
		empty('mutable'),
	);
}

/** INI or HIA: an unsigned key management request carrying compressed, base64 order data. */
export function unsecuredRequest(
	subscriber: EbicsSubscriber,
	orderType: 'INI' | 'HIA',
	orderDataXml: string,
	version: EbicsVersion = H005,
): string {
	const s = checkSubscriber(subscriber);
	return (
		DECLARATION +
		el(
			'ebicsUnsecuredRequest',
			rootAttributes(version),
			keyManagementHeader(s, orderType, version),
			el(
				'body',
				{},
				el(
					'DataTransfer',
					{},
					leaf('OrderData', deflateSync(Buffer.from(orderDataXml, 'utf8')).toString('base64')),
				),
			),
		)
	);
}

export interface RequestTime {
	/** Override for tests; default a fresh random nonce. */
	nonce?: string;
	/** Override for tests; default now. */
	timestamp?: Date;
}

/** HPB: fetch the bank's keys (signed with X002, no bank key digests yet). */
export function hpbRequest(
	subscriber: EbicsSubscriber,
	authenticationKey: KeyObject,
	time: RequestTime = {},
	version: EbicsVersion = H005,
): string {
	const s = checkSubscriber(subscriber);
	const xml = el(
		'ebicsNoPubKeyDigestsRequest',
		rootAttributes(version),
		keyManagementHeader(s, 'HPB', version, time),
		authSignatureTemplate(),
		empty('body'),
	);
	return signRequest(xml, authenticationKey);
}

/** The order parameters of an initialisation: BTF, or standard ones with an optional date range. */
export type OrderParams =
	| { kind: 'BTD'; service: BtfService; dateRange?: DateRange }
	| { kind: 'BTU'; service: BtfService; signatureFlag?: SignatureFlag; fileName?: string }
	| { kind: 'standard'; dateRange?: DateRange; signatureFlag?: SignatureFlag }
	/** An order parameters element built by its order type's module (veu.ts: HVU, HVD, HVE, ...). */
	| { kind: 'element'; xml: string }
	| FileOrderParams;

/** FDL and FUL of EBICS 2.5 (H004): a file format the bank names (h004/requests.ts). */
export interface FileOrderParams {
	kind: 'file';
	fileFormat: string;
	/** Two upper-case letters, when the bank's file format needs a country. */
	countryCode?: string;
	dateRange?: DateRange;
	/** FUL: how the ES authorises the order (as BTU's). */
	signatureFlag?: SignatureFlag;
}

/** A date range of a download, both ends included (YYYY-MM-DD). */
export interface DateRange {
	start: string;
	end: string;
}

/**
 * Whether the upload carries an ES that authorises it (the signature class of the signer E, A or
 * B does that), and whether it goes to the distributed signature (EDS/VEU) for further signers.
 * 'transport': no SignatureFlag: the order is authorised outside EBICS (class T, transport
 * signature).
 */
export type SignatureFlag = 'authorise' | 'distributed' | 'transport';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Checks a date range: two real dates, start not after end. */
export function checkDateRange(
	range: DateRange | undefined,
	field = 'dateRange',
): DateRange | undefined {
	if (!range) return undefined;
	for (const end of ['start', 'end'] as const) {
		const value = range[end];
		if (
			!DATE.test(value ?? '') ||
			Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
			new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value
		)
			throw new EbicsValidationError(
				`${field}.${end}`,
				`${field}.${end} must be a date written YYYY-MM-DD (got "${value ?? ''}")`,
			);
	}
	if (range.start > range.end)
		throw new EbicsValidationError(
			field,
			`${field}: the start ${range.start} is after the end ${range.end}`,
		);
	return { start: range.start, end: range.end };
}

/** The DateRange element of order parameters (both versions). */
export function dateRangeXml(range: DateRange | undefined): string | undefined {
	return range && el('DateRange', {}, leaf('Start', range.start), leaf('End', range.end));
}

function orderParamsXml(params: OrderParams): string {
	switch (params.kind) {
		case 'BTD':
			return el(
				'BTDOrderParams',
				{},
				serviceXml(checkService(params.service)),
				dateRangeXml(checkDateRange(params.dateRange)),
			);
		case 'BTU': {
			const flag = params.signatureFlag ?? 'authorise';
			return el(
				'BTUOrderParams',
				{ fileName: params.fileName ? params.fileName.slice(0, 256) : undefined },
				serviceXml(checkService(params.service)),
				flag !== 'transport' &&
					empty('SignatureFlag', { requestEDS: flag === 'distributed' ? 'true' : undefined }),
			);
		}
		case 'element':
			return params.xml;
		case 'file':
			throw new EbicsValidationError(
				'orderType',
				'FDL and FUL (file format parameters) are EBICS 2.5 order types: set the EBICS Version of the credential to H004, or use BTD and BTU',
			);
		default:
			return el('StandardOrderParams', {}, dateRangeXml(checkDateRange(params.dateRange)));
	}
}

/**
 * Checks an EBICS 3.0 order's parameters as its initialisation writes them (BTF service, date
 * range, ...), signing and sending nothing: EbicsValidationError names the field and the rule.
 */
export function checkOrderParams(params: OrderParams): void {
	orderParamsXml(params);
}

/** An order type (EBICS 2.5's, or an administrative one of EBICS 3.0): three upper-case letters or digits. */
export const ORDER_TYPE_PATTERN = /^[A-Z0-9]{3}$/;
export const ORDER_TYPE_RULE = 'three upper-case letters or digits';

function initialisationHeader(
	s: EbicsSubscriber,
	orderType: string,
	params: OrderParams,
	digests: BankKeyDigests,
	time: RequestTime,
	numSegments?: number,
): string {
	if (!ORDER_TYPE_PATTERN.test(orderType))
		throw new EbicsValidationError(
			'orderType',
			`Order type "${orderType}" is not valid: ${ORDER_TYPE_RULE}`,
		);
	return initialisationHeaderXml(
		s,
		el('OrderDetails', {}, leaf('AdminOrderType', orderType), orderParamsXml(params)),
		digests,
		time,
		numSegments,
	);
}

/**
 * The header of an initialisation in either version, around its OrderDetails element: host,
 * nonce, timestamp, the subscriber, the bank key digests, the security medium, NumSegments.
 */
export function initialisationHeaderXml(
	s: EbicsSubscriber,
	orderDetails: string,
	digests: BankKeyDigests,
	time: RequestTime,
	numSegments?: number,
): string {
	return el(
		'header',
		{ authenticate: 'true' },
		el(
			'static',
			{},
			leaf('HostID', s.hostId),
			leaf('Nonce', time.nonce ?? newNonce()),
			leaf('Timestamp', (time.timestamp ?? new Date()).toISOString()),
			identityXml(s),
			orderDetails,
			el(
				'BankPubKeyDigests',
				{},
				leaf('Authentication', digests.authentication.toString('base64'), {
					Version: AUTHENTICATION_VERSION,
					Algorithm: SHA256_URI,
				}),
				leaf('Encryption', digests.encryption.toString('base64'), {
					Version: ENCRYPTION_VERSION,
					Algorithm: SHA256_URI,
				}),
			),
			leaf('SecurityMedium', s.securityMedium ?? DEFAULT_SECURITY_MEDIUM),
			numSegments !== undefined && leaf('NumSegments', numSegments),
		),
		el('mutable', {}, leaf('TransactionPhase', 'Initialisation')),
	);
}

/** An ebicsRequest of a protocol version, signed with X002. */
export function ebicsRequest(
	header: string,
	body: string,
	authenticationKey: KeyObject,
	version: EbicsVersion = H005,
): string {
	return signRequest(
		el('ebicsRequest', rootAttributes(version), header, authSignatureTemplate(), body),
		authenticationKey,
	);
}

/** Initialisation of a download (BTD, or HTD, HKD, HAA, HAC, PTK with standard parameters). */
export function downloadInitRequest(
	subscriber: EbicsSubscriber,
	orderType: string,
	params: OrderParams,
	digests: BankKeyDigests,
	authenticationKey: KeyObject,
	time: RequestTime = {},
): string {
	const s = checkSubscriber(subscriber);
	return ebicsRequest(
		initialisationHeader(s, orderType, params, digests, time),
		empty('body'),
		authenticationKey,
	);
}

function transactionHeader(
	hostId: string,
	transactionId: string,
	phase: 'Transfer' | 'Receipt',
	segment?: { number: number; last: boolean },
): string {
	if (!/^[0-9A-Fa-f]{32}$/.test(transactionId))
		throw new EbicsValidationError(
			'transactionId',
			'The transaction ID must be 32 hexadecimal digits',
		);
	return el(
		'header',
		{ authenticate: 'true' },
		el('static', {}, leaf('HostID', hostId), leaf('TransactionID', transactionId)),
		el(
			'mutable',
			{},
			leaf('TransactionPhase', phase),
			segment &&
				leaf('SegmentNumber', segment.number, { lastSegment: segment.last ? 'true' : 'false' }),
		),
	);
}

function transferRequest(
	hostId: string,
	transactionId: string,
	segmentNumber: number,
	lastSegment: boolean,
	body: string,
	authenticationKey: KeyObject,
	version: EbicsVersion,
): string {
	return ebicsRequest(
		transactionHeader(hostId, transactionId, 'Transfer', {
			number: segmentNumber,
			last: lastSegment,
		}),
		body,
		authenticationKey,
		version,
	);
}

/** Transfer of a download: asks for segment `segmentNumber` (2 and up). */
export function downloadTransferRequest(
	hostId: string,
	transactionId: string,
	segmentNumber: number,
	lastSegment: boolean,
	authenticationKey: KeyObject,
	version: EbicsVersion = H005,
): string {
	return transferRequest(
		hostId,
		transactionId,
		segmentNumber,
		lastSegment,
		empty('body'),
		authenticationKey,
		version,
	);
}

/** Receipt of a download: 0 positive (the data is delivered), 1 negative (deliver again). */
export function receiptRequest(
	hostId: string,
	transactionId: string,
	receiptCode: 0 | 1,
	authenticationKey: KeyObject,
	version: EbicsVersion = H005,
): string {
	return ebicsRequest(
		transactionHeader(hostId, transactionId, 'Receipt'),
		el(
			'body',
			{},
			el('TransferReceipt', { authenticate: 'true' }, leaf('ReceiptCode', receiptCode)),
		),
		authenticationKey,
		version,
	);
}

/** What the initialisation of an upload carries besides the order parameters. */
export interface UploadInitData {
	/** The transaction key wrapped for the bank's E002 key. */
	wrappedTransactionKey: Buffer;
	/** UserSignatureData, compressed and encrypted with the transaction key. */
	encryptedSignatureData: Buffer;
	/** The A006 hash of the order data. */
	dataDigest: Buffer;
	numSegments: number;
}

/** DataEncryptionInfo and SignatureData of an upload's initialisation (both versions). */
export function uploadEncryptionXml(digests: BankKeyDigests, data: UploadInitData): string[] {
	return [
		el(
			'DataEncryptionInfo',
			{ authenticate: 'true' },
			leaf('EncryptionPubKeyDigest', digests.encryption.toString('base64'), {
				Version: ENCRYPTION_VERSION,
				Algorithm: SHA256_URI,
			}),
			leaf('TransactionKey', data.wrappedTransactionKey.toString('base64')),
		),
		leaf('SignatureData', data.encryptedSignatureData.toString('base64'), {
			authenticate: 'true',
		}),
	];
}

/** Initialisation of an upload (BTU, or SPR with no order data). */
export function uploadInitRequest(
	subscriber: EbicsSubscriber,
	orderType: string,
	params: OrderParams,
	digests: BankKeyDigests,
	data: UploadInitData,
	authenticationKey: KeyObject,
	time: RequestTime = {},
): string {
	const s = checkSubscriber(subscriber);
	return ebicsRequest(
		initialisationHeader(s, orderType, params, digests, time, data.numSegments),
		el(
			'body',
			{},
			el(
				'DataTransfer',
				{},
				uploadEncryptionXml(digests, data),
				leaf('DataDigest', data.dataDigest.toString('base64'), {
					SignatureVersion: SIGNATURE_VERSION,
				}),
			),
		),
		authenticationKey,
	);
}

/** Transfer of an upload: one segment of the encrypted order data (base64 text). */
export function uploadTransferRequest(
	hostId: string,
	transactionId: string,
	segmentNumber: number,
	lastSegment: boolean,
	orderDataBase64: string,
	authenticationKey: KeyObject,
	version: EbicsVersion = H005,
): string {
	if (!/^[A-Za-z0-9+/=]*$/.test(orderDataBase64))
		throw new RangeError('The OrderData of a segment must be base64');
	const { head, tail } = uploadTransferEnvelope(
		hostId,
		transactionId,
		segmentNumber,
		lastSegment,
		authenticationKey,
		version,
	);
	return head + orderDataBase64 + tail;
}

/**
 * The transfer request of an upload segment, signed, as the text before and after the segment's
 * base64 (which goes between them). OrderData is not authenticated (X002 covers the
 * authenticate="true" elements): the request is signed without it, so the segment is never parsed.
 */
export function uploadTransferEnvelope(
	hostId: string,
	transactionId: string,
	segmentNumber: number,
	lastSegment: boolean,
	authenticationKey: KeyObject,
	version: EbicsVersion = H005,
): { head: string; tail: string } {
	const signed = transferRequest(
		hostId,
		transactionId,
		segmentNumber,
		lastSegment,
		el('body', {}, el('DataTransfer', {}, `<OrderData>${ORDER_DATA_SLOT}</OrderData>`)),
		authenticationKey,
		version,
	);
	const at = signed.indexOf(ORDER_DATA_SLOT);
	return { head: signed.slice(0, at), tail: signed.slice(at + ORDER_DATA_SLOT.length) };
}

/** Where a segment goes into its signed transfer request (not base64, so it cannot be one). */
const ORDER_DATA_SLOT = '#segment#';
