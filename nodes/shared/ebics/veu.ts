/**
 * Distributed signature (VEU, EDS in the English spec): orders an upload left at the bank until
 * further subscribers sign them. Order types (EBICS 3.0, chapter 8 and annex 2):
 * - HVU / HVZ: download the orders waiting for signatures (HVZ adds each order's DataDigest);
 * - HVD: download one order's details: its DataDigest (the A006 hash the signers sign), the
 *   display file (what the bank shows as the order's content), who has signed;
 * - HVT: download one order's transactions (amounts, accounts, execution date, remittance text,
 *   a page of them at a time) or the order's complete file as it was uploaded;
 * - HVE: upload this subscriber's A006 signature of that DataDigest (no order data);
 * - HVS: cancel the order (order data HVSRequestOrderData naming its DataDigest, signed the same
 *   way).
 * Order parameters of HVD, HVT, HVE and HVS name the order: the originator's PartnerID, the order's
 * Service and its OrderID (HVRequestStructure of ebics_orders_H005.xsd).
 *
 * EBICS 2.5 (H004, chapter 8 of its specification and ebics_orders_H004.xsd) has the same orders
 * with these differences: an order is named by its OrderType (and FileFormat for FUL) instead of a
 * Service, in HVRequestStructure as in the order details of HVU and HVZ; HVU and HVZ filter by
 * OrderTypes; HVT's transactions carry OrderFormat instead of MsgName; HVU has no
 * AdditionalOrderInfo; the order data are in urn:org:ebics:H004. HVU, HVZ, HVD and HVT are
 * downloads (OrderAttribute DZHNN). HVE is a signature only (UZHNN, NumSegments 0); HVS also
 * uploads its HVSRequestOrderData, in the H004 namespace (OZHNN), as the H004 schemas define it.
 * Both initialisations carry the S001 UserSignatureData with the A006 signature of the order's
 * DataDigest, and no DataDigest element.
 *
 * The signature of HVE and HVS is made over the DataDigest the bank reported in HVD, and only
 * after the caller has confirmed it (checkConfirmedDigest): a signer signs what they saw.
 */
import { deflateSync } from 'node:zlib';

import { signA006, userSignatureData } from './a006';
import { checkService, serviceLabel, serviceXml, type BtfService } from './btf';
import { type EbicsClient, type EbicsClientOptions } from './client';
import { H005, H005_NS, SIGNATURE_VERSION } from './constants';
import { keyDigest } from './digests';
import { E002Encryptor, encryptE002, newTransactionKey, wrapTransactionKey } from './e002';
import { EbicsFormatError, EbicsKeyError, EbicsValidationError, rethrowAs } from './errors';
import {
	loadBankKeys,
	loadSubscriberKeys,
	type LoadedBankKeys,
	type LoadedSubscriberKeys,
} from './keys';
import {
	checkFileFormat,
	checkOrderTypeH004,
	H004,
	H004_NS,
	orderTypeLabel,
	S001_NS,
	veuInitRequestH004,
} from './h004';
import {
	checkSubscriber,
	uploadInitRequest,
	uploadTransferRequest,
	type EbicsSubscriber,
	type EbicsVersion,
} from './requests';
import { bankText } from './protocol';
import { readResponse, type ReturnCodes } from './responses';
import { UploadSegmenter } from './segments';
import { child, children, el, elements, leaf, parseDocument, text } from './xml';

/**
 * Which order of the distributed signature: the originator's partner, the ID, and what the order
 * is: its BTF service in EBICS 3.0 (H005), its order type (and file format for FUL) in EBICS 2.5
 * (H004).
 */
export interface VeuOrderRef {
	partnerId: string;
	orderId: string;
	/** H005. */
	service?: BtfService;
	/** H004: CCT, CDD, FUL, ... */
	orderType?: string;
	/** H004, FUL orders: the file format (pain.001.001.03.sct, ...). */
	fileFormat?: string;
}

/** Someone who signed an order (SignerInfo), with the signature class they signed with. */
export interface VeuSigner {
	partnerId: string;
	userId: string;
	name?: string;
	at: string;
	/** E (single), A (first), B (second) or T (transport). */
	authorisationLevel: string;
}

/** One order waiting for signatures (HVU, HVZ). */
export interface VeuOrder {
	orderId: string;
	/** H005: the order's service. */
	service?: BtfService;
	/** H004: the order's type. */
	orderType?: string;
	/** H004: the file format of a FUL order. */
	fileFormat?: string;
	/** "SCT DE pain.001.09" (H005), "CCT (SEPA credit transfer pain.001)" (H004). */
	serviceLabel: string;
	orderDataSize: number;
	/** Whether this subscriber may sign it now. */
	readyToBeSigned: boolean;
	signaturesRequired: number;
	signaturesDone: number;
	signers: VeuSigner[];
	originator: { partnerId: string; userId: string; name?: string; at: string };
	additionalInfo?: string;
	/** HVZ only: the order's DataDigest (hex, upper case, as letters print hashes). */
	dataDigest?: string;
}

/** One order's details (HVD). */
export interface VeuOrderDetails {
	/** The A006 hash of the order data: what a signer signs. */
	dataDigest: Buffer;
	signatureVersion: string;
	/** The bank's display file of the order (its content for people to read), as text. */
	displayFile: string;
	orderDataAvailable: boolean;
	orderDataSize: number;
	orderDetailsAvailable: boolean;
	signers: VeuSigner[];
}

/** An account of a transaction in the distributed signature (HVT's AccountInfo). */
export interface VeuAccount {
	/** Originator, Recipient, Charges, Other (the role the bank gives the account). */
	role: string;
	/** The role's description when the role is Other. */
	roleDescription?: string;
	/** The IBAN, or a national account number. */
	accountNumber?: string;
	international?: boolean;
	/** The BIC, or a national bank code. */
	bankCode?: string;
	holder?: string;
	currency: string;
}

/** One transaction of an order in the distributed signature (HVT's OrderInfo). */
export interface VeuTransaction {
	/** MsgName in H005, OrderFormat in H004. */
	msgName?: string;
	accounts: VeuAccount[];
	executionDate?: string;
	/** The amount as the bank writes it (a decimal, no sign). */
	amount: string;
	currency?: string;
	/** true for a credit, false for a debit, undefined when the bank does not say. */
	isCredit?: boolean;
	/** Remittance information, order details and comments, in the bank's order. */
	descriptions: Array<{ type: string; text: string }>;
}

/** A page of an order's transactions (HVT) and how many the order has in all. */
export interface VeuTransactions {
	total: number;
	transactions: VeuTransaction[];
}

/** Which part of an order's transactions HVT fetches. */
export interface VeuTransactionPage {
	/** At most this many transactions; 0 for all. */
	limit: number;
	/** Skip this many first. */
	offset: number;
}

const ORDER_ID = /^[A-Z][A-Z0-9]{3}$/;

/**
 * Checks an order reference for the protocol version (a service in H005, an order type in H004);
 * EbicsValidationError names the field and the rule.
 */
export function checkOrderRef(ref: VeuOrderRef, version: EbicsVersion = H005): VeuOrderRef {
	const partnerId = String(ref?.partnerId ?? '').trim();
	if (!/^[a-zA-Z0-9,=]{1,35}$/.test(partnerId))
		throw new EbicsValidationError(
			'partnerId',
			`Originator Partner ID "${partnerId}" is not valid: 1 to 35 letters, digits, "," or "="`,
		);
	const orderId = String(ref?.orderId ?? '')
		.trim()
		.toUpperCase();
	if (!ORDER_ID.test(orderId))
		throw new EbicsValidationError(
			'orderId',
			`Order ID "${orderId}" is not valid: a letter then three letters or digits (e.g. A102), as HVU lists it`,
		);
	if (version !== H004) return { partnerId, orderId, service: checkService(ref.service!) };
	const orderType = String(ref.orderType ?? '')
		.trim()
		.toUpperCase();
	if (!orderType)
		throw new EbicsValidationError(
			'orderType',
			'Order Type is required with an EBICS 2.5 (H004) credential: the order type of the order as HVU lists it (orderType, e.g. CCT)',
		);
	checkOrderTypeH004(orderType);
	const fileFormat = String(ref.fileFormat ?? '').trim();
	if (fileFormat) checkFileFormat(fileFormat);
	return { partnerId, orderId, orderType, ...(fileFormat ? { fileFormat } : {}) };
}

/** HVRequestStructure: PartnerID, the Service (H005) or OrderType and FileFormat (H004), OrderID. */
function orderRefXml(checked: VeuOrderRef): string[] {
	return [
		leaf('PartnerID', checked.partnerId),
		checked.service ? serviceXml(checked.service) : leaf('OrderType', checked.orderType ?? ''),
		checked.service ? '' : (checked.fileFormat && leaf('FileFormat', checked.fileFormat)) || '',
		leaf('OrderID', checked.orderId),
	];
}

/**
 * HVU or HVZ order parameters: optionally only the orders of some services (H005) or of some order
 * types (H004, OrderTypes).
 */
export function hvListParams(
	orderType: 'HVU' | 'HVZ',
	services: BtfService[] = [],
	version: EbicsVersion = H005,
	orderTypes: string[] = [],
): string {
	if (version === H004)
		return el(
			`${orderType}OrderParams`,
			{},
			orderTypes.length
				? leaf('OrderTypes', orderTypes.map((type) => checkOrderTypeH004(type)).join(' '))
				: undefined,
		);
	return el(
		`${orderType}OrderParams`,
		{},
		services.map((service, index) =>
			serviceXml(checkService(service, `serviceFilter[${index}]`)).replace(
				/^<Service>([\s\S]*)<\/Service>$/,
				'<ServiceFilter>$1</ServiceFilter>',
			),
		),
	);
}

/** HVD, HVE or HVS order parameters: the order they are about. */
export function hvOrderParams(
	orderType: 'HVD' | 'HVE' | 'HVS',
	ref: VeuOrderRef,
	version: EbicsVersion = H005,
): string {
	return el(`${orderType}OrderParams`, {}, orderRefXml(checkOrderRef(ref, version)));
}

/** Up to 10 digits, as HVT's fetchLimit and fetchOffset allow. */
function pageNumber(value: number, field: string, label: string): number {
	if (!Number.isInteger(value) || value < 0 || value > 9_999_999_999)
		throw new EbicsValidationError(
			field,
			`${label} "${String(value)}" is not valid: a whole number from 0 to 9999999999`,
		);
	return value;
}

/**
 * HVT order parameters: the order, and either its transactions (completeOrderData="false", a page
 * of `limit` from `offset`) or its complete file (completeOrderData="true").
 */
export function hvtOrderParams(
	ref: VeuOrderRef,
	fetch: { completeOrderData: true } | ({ completeOrderData: false } & VeuTransactionPage),
	version: EbicsVersion = H005,
): string {
	const checked = checkOrderRef(ref, version);
	const limit = fetch.completeOrderData ? 0 : pageNumber(fetch.limit, 'limit', 'Limit');
	const offset = fetch.completeOrderData ? 0 : pageNumber(fetch.offset, 'offset', 'Offset');
	return el(
		'HVTOrderParams',
		{},
		orderRefXml(checked),
		el('OrderFlags', {
			completeOrderData: fetch.completeOrderData ? 'true' : 'false',
			fetchLimit: limit,
			fetchOffset: offset,
		}),
	);
}

/** The order data of HVS: the DataDigest of the order to cancel. */
export function hvsOrderData(dataDigest: Buffer, ns: string = H005_NS): string {
	return (
		'<?xml version="1.0" encoding="UTF-8"?>' +
		el(
			'HVSRequestOrderData',
			{ xmlns: ns },
			leaf('CancelledDataDigest', dataDigest.toString('base64'), {
				SignatureVersion: SIGNATURE_VERSION,
			}),
		)
	);
}

/** A hash as letters print it: upper-case hex in pairs. */
export function digestHex(digest: Buffer): string {
	return digest.toString('hex').toUpperCase().match(/.{2}/g)?.join(' ') ?? '';
}

/**
 * Reads a digest the user confirms: hex (spaces, colons and either case are fine) or base64.
 * EbicsValidationError when it is neither 32 bytes of hex nor of base64.
 */
export function readConfirmedDigest(value: string, field = 'confirmedDigest'): Buffer {
	const raw = String(value ?? '').trim();
	if (!raw)
		throw new EbicsValidationError(
			field,
			`${field} is required: the order's data digest as Order Details (HVD) shows it, so that you sign what you have seen`,
		);
	const hex = raw.replace(/[\s:]/g, '');
	if (/^[0-9a-fA-F]{64}$/.test(hex)) return Buffer.from(hex, 'hex');
	if (/^[A-Za-z0-9+/]{43}=$/.test(raw)) return Buffer.from(raw, 'base64');
	throw new EbicsValidationError(
		field,
		`${field} is not a SHA-256 digest: 64 hexadecimal digits (spaces allowed) or 44 characters of base64, as Order Details (HVD) shows it`,
	);
}

/**
 * Refuses a signature unless the digest the user confirmed is the one the bank reports for the
 * order now (HVD): nothing is signed or sent otherwise.
 */
export function checkConfirmedDigest(confirmed: Buffer, reported: Buffer, orderId: string): void {
	if (!confirmed.equals(reported))
		throw new EbicsValidationError(
			'confirmedDigest',
			`The confirmed digest ${digestHex(confirmed)} is not the data digest the bank reports for order ${orderId} (${digestHex(reported)}): nothing was signed or sent. Look at the order's details (HVD) again and confirm the digest shown there`,
		);
}

function bool(value: string | undefined): boolean {
	return value === 'true' || value === '1';
}

function count(value: string | null | undefined, what: string): number {
	if (!value || !/^\d+$/.test(value))
		throw new EbicsFormatError(`The bank's VEU data has a ${what} that is not a number`);
	return Number(value);
}

function readService(element: Element | undefined, ns = H005_NS): BtfService {
	const msg = child(element, ns, 'MsgName');
	const container = child(element, ns, 'Container')?.getAttribute('containerType');
	const service: BtfService = {
		serviceName: text(child(element, ns, 'ServiceName')) ?? '',
		scope: text(child(element, ns, 'Scope')),
		serviceOption: text(child(element, ns, 'ServiceOption')),
		container: (container || undefined) as BtfService['container'],
		msgName: text(msg) ?? '',
		msgVersion: msg?.getAttribute('version') || undefined,
		msgVariant: msg?.getAttribute('variant') || undefined,
		msgFormat: msg?.getAttribute('format') || undefined,
	};
	for (const key of Object.keys(service) as Array<keyof BtfService>)
		if (service[key] === undefined) delete service[key];
	return service;
}

function readSigners(parent: Element, ns: string): VeuSigner[] {
	return children(parent, ns, 'SignerInfo').map((info) => ({
		partnerId: text(child(info, ns, 'PartnerID')) ?? '',
		userId: text(child(info, ns, 'UserID')) ?? '',
		name: text(child(info, ns, 'Name')),
		at: text(child(info, ns, 'Timestamp')) ?? '',
		authorisationLevel: child(info, ns, 'Permission')?.getAttribute('AuthorisationLevel') ?? '',
	}));
}

/** The root of VEU order data, in the H005 or the H004 namespace, and that namespace. */
function orderRoot(xml: Buffer, rootName: string): { root: Element; ns: string } {
	const root = parseDocument(xml, `The bank's ${rootName}`).documentElement;
	const ns = root.namespaceURI ?? '';
	if ((ns !== H005_NS && ns !== H004_NS) || root.localName !== rootName)
		throw new EbicsFormatError(
			`The bank's answer is not a ${rootName} (the root is ${root.localName}${ns ? ` in ${ns}` : ''})`,
		);
	return { root, ns };
}

/**
 * What an order is, as HVU and HVZ list it: its Service (H005), or its OrderType and FileFormat
 * (H004), with the label items show.
 */
function readOrderKind(
	details: Element,
	ns: string,
): Pick<VeuOrder, 'service' | 'orderType' | 'fileFormat' | 'serviceLabel'> {
	if (ns === H005_NS) {
		const service = readService(child(details, ns, 'Service'));
		return { service, serviceLabel: serviceLabel(service) };
	}
	const orderType = text(child(details, ns, 'OrderType')) ?? '';
	const fileFormat = text(child(details, ns, 'FileFormat'));
	return {
		orderType,
		...(fileFormat ? { fileFormat } : {}),
		serviceLabel: orderTypeLabel(orderType, fileFormat),
	};
}

/**
 * Reads HVUResponseOrderData or HVZResponseOrderData (H005 or H004): the orders waiting for
 * signatures.
 */
export function readVeuOrders(xml: Buffer, orderType: 'HVU' | 'HVZ'): VeuOrder[] {
	const { root, ns } = orderRoot(xml, `${orderType}ResponseOrderData`);
	return children(root, ns, 'OrderDetails').map((details) => {
		const signing = child(details, ns, 'SigningInfo');
		const originator = child(details, ns, 'OriginatorInfo');
		const digest = text(child(details, ns, 'DataDigest'));
		const order: VeuOrder = {
			orderId: text(child(details, ns, 'OrderID')) ?? '',
			...readOrderKind(details, ns),
			orderDataSize: count(text(child(details, ns, 'OrderDataSize')), 'OrderDataSize'),
			readyToBeSigned: bool(signing?.getAttribute('readyToBeSigned') ?? undefined),
			signaturesRequired: count(signing?.getAttribute('NumSigRequired'), 'NumSigRequired'),
			signaturesDone: count(signing?.getAttribute('NumSigDone'), 'NumSigDone'),
			signers: readSigners(details, ns),
			originator: {
				partnerId: text(child(originator, ns, 'PartnerID')) ?? '',
				userId: text(child(originator, ns, 'UserID')) ?? '',
				name: text(child(originator, ns, 'Name')),
				at: text(child(originator, ns, 'Timestamp')) ?? '',
			},
			additionalInfo: text(child(details, ns, 'AdditionalOrderInfo')),
		};
		if (digest) order.dataDigest = digestHex(Buffer.from(digest, 'base64'));
		return order;
	});
}

/** Reads HVDResponseOrderData (H005 or H004): the order's DataDigest, display file and signers. */
export function readVeuDetails(xml: Buffer): VeuOrderDetails {
	const { root, ns } = orderRoot(xml, 'HVDResponseOrderData');
	const digestElement = child(root, ns, 'DataDigest');
	const dataDigest = Buffer.from(text(digestElement) ?? '', 'base64');
	if (dataDigest.length !== 32)
		throw new EbicsFormatError("The bank's HVD answer has no 32-byte DataDigest of the order");
	const display = Buffer.from(text(child(root, ns, 'DisplayFile')) ?? '', 'base64');
	return {
		dataDigest,
		signatureVersion: digestElement?.getAttribute('SignatureVersion') ?? '',
		// German banks write the display file in ISO-8859-1.
		displayFile: bankText(display),
		orderDataAvailable: bool(text(child(root, ns, 'OrderDataAvailable'))),
		orderDataSize: count(text(child(root, ns, 'OrderDataSize')), 'OrderDataSize'),
		orderDetailsAvailable: bool(text(child(root, ns, 'OrderDetailsAvailable'))),
		signers: readSigners(root, ns),
	};
}

function readAccount(info: Element): VeuAccount {
	const kids = elements(info);
	const number = kids.find(
		(e) => e.localName === 'AccountNumber' || e.localName === 'NationalAccountNumber',
	);
	const bank = kids.find((e) => e.localName === 'BankCode' || e.localName === 'NationalBankCode');
	const holder = kids.find((e) => e.localName === 'AccountHolder');
	const roled = number ?? holder ?? bank;
	const account: VeuAccount = {
		role: roled?.getAttribute('Role') || 'Other',
		roleDescription: roled?.getAttribute('Description') || undefined,
		accountNumber: text(number),
		international:
			number?.localName === 'AccountNumber'
				? bool(number.getAttribute('international') ?? undefined)
				: undefined,
		bankCode: text(bank),
		holder: text(holder),
		// The schema's default.
		currency: info.getAttribute('Currency') || 'EUR',
	};
	for (const key of Object.keys(account) as Array<keyof VeuAccount>)
		if (account[key] === undefined) delete account[key];
	return account;
}

/**
 * Reads HVTResponseOrderData (H005 or H004): a page of the order's transactions and their total
 * number. The message of a transaction is MsgName in H005, OrderFormat in H004.
 */
export function readVeuTransactions(xml: Buffer): VeuTransactions {
	const { root, ns } = orderRoot(xml, 'HVTResponseOrderData');
	return {
		total: count(text(child(root, ns, 'NumOrderInfos')), 'NumOrderInfos'),
		transactions: children(root, ns, 'OrderInfo').map((info) => {
			const amount = child(info, ns, 'Amount');
			const credit = amount?.getAttribute('isCredit');
			const transaction: VeuTransaction = {
				msgName: text(child(info, ns, ns === H005_NS ? 'MsgName' : 'OrderFormat')),
				accounts: children(info, ns, 'AccountInfo').map(readAccount),
				executionDate: text(child(info, ns, 'ExecutionDate')),
				amount: text(amount) ?? '',
				currency: amount?.getAttribute('Currency') || undefined,
				isCredit: credit ? bool(credit) : undefined,
				descriptions: children(info, ns, 'Description').map((d) => ({
					type: d.getAttribute('Type') ?? '',
					text: text(d) ?? '',
				})),
			};
			// xs:decimal without a minus sign: "+12.30", "1000." and ".50" are amounts too.
			if (!/^\+?(\d+(\.\d*)?|\.\d+)$/.test(transaction.amount))
				throw new EbicsFormatError(
					"The bank's HVT answer has a transaction without a valid Amount",
				);
			return transaction;
		}),
	};
}

/** What HVE or HVS answered. */
export interface VeuActionResult {
	orderId?: string;
	codes: ReturnCodes;
}

/**
 * The distributed signature orders of one subscriber. Downloads go through the EbicsClient;
 * HVE and HVS are sent here, signed with the subscriber's A006 key over the order's DataDigest.
 */
export class EbicsVeu {
	private readonly subscriber: EbicsSubscriber;
	private readonly keys: LoadedSubscriberKeys;
	private readonly bank: LoadedBankKeys;
	private readonly options: EbicsClientOptions;
	/** The protocol version of the client: H005, or H004 (EBICS 2.5). */
	private readonly version: EbicsVersion;

	constructor(
		private readonly client: EbicsClient,
		options: EbicsClientOptions,
	) {
		this.subscriber = checkSubscriber(options.subscriber);
		this.keys = loadSubscriberKeys(options.keys.subscriber);
		if (!options.keys.bank)
			throw new EbicsKeyError(
				"bank's keys",
				"The distributed signature needs the bank's keys: fetch them with HPB first",
			);
		this.bank = loadBankKeys(options.keys.bank);
		this.options = options;
		this.version = client.version;
	}

	/** A VEU download read before its receipt (EbicsClient.readDownload); undefined for 090005. */
	private async read<T>(
		orderType: string,
		params: string,
		parse: (data: Buffer) => T,
	): Promise<T | undefined> {
		return await this.client.readDownload(orderType, { kind: 'element', xml: params }, parse);
	}

	/**
	 * HVU (or HVZ with the digests): the orders waiting for signatures, optionally of some services
	 * (H005) or order types (H004) only; [] when none (090005).
	 */
	async orders(
		options: { withDigests?: boolean; services?: BtfService[]; orderTypes?: string[] } = {},
	): Promise<VeuOrder[]> {
		const orderType = options.withDigests ? 'HVZ' : 'HVU';
		const params = hvListParams(orderType, options.services, this.version, options.orderTypes);
		return (await this.read(orderType, params, (data) => readVeuOrders(data, orderType))) ?? [];
	}

	/** HVD: one order's DataDigest, display file and signers. */
	async details(ref: VeuOrderRef): Promise<VeuOrderDetails> {
		const details = await this.read('HVD', hvOrderParams('HVD', ref, this.version), readVeuDetails);
		if (!details)
			throw new EbicsFormatError(`The bank has no details of order ${ref.orderId} (HVD)`);
		return details;
	}

	/** HVT: a page of the order's transactions; none when the page is past the last (090005). */
	async transactions(ref: VeuOrderRef, page: VeuTransactionPage): Promise<VeuTransactions> {
		const params = hvtOrderParams(ref, { completeOrderData: false, ...page }, this.version);
		return (await this.read('HVT', params, readVeuTransactions)) ?? { total: 0, transactions: [] };
	}

	/** HVT with completeOrderData: the order's file as it was uploaded. */
	async orderFile(ref: VeuOrderRef): Promise<Buffer> {
		const file = await this.read(
			'HVT',
			hvtOrderParams(ref, { completeOrderData: true }, this.version),
			(data) => data,
		);
		if (!file) throw new EbicsFormatError(`The bank has no file of order ${ref.orderId} (HVT)`);
		return file;
	}

	/**
	 * HVE: signs the order. Fetches its details (HVD) first and refuses, before anything is signed
	 * or sent, unless `confirmedDigest` is the DataDigest the bank reports.
	 */
	async sign(
		ref: VeuOrderRef,
		confirmedDigest: Buffer,
	): Promise<VeuActionResult & { details: VeuOrderDetails }> {
		return await this.confirmed('HVE', ref, confirmedDigest);
	}

	/** HVS: cancels the order, after the same check of the confirmed digest as sign(). */
	async cancel(
		ref: VeuOrderRef,
		confirmedDigest: Buffer,
	): Promise<VeuActionResult & { details: VeuOrderDetails }> {
		return await this.confirmed('HVS', ref, confirmedDigest);
	}

	/** HVE or HVS once the confirmed digest is the one the bank reports (HVD). */
	private async confirmed(
		orderType: 'HVE' | 'HVS',
		ref: VeuOrderRef,
		confirmedDigest: Buffer,
	): Promise<VeuActionResult & { details: VeuOrderDetails }> {
		const checked = checkOrderRef(ref, this.version);
		const details = await this.details(checked);
		checkConfirmedDigest(confirmedDigest, details.dataDigest, checked.orderId);
		// HVS carries the cancelled digest as order data (HVSRequestOrderData, in the version's
		// namespace); HVE is the signature only.
		const orderData =
			orderType === 'HVS'
				? hvsOrderData(details.dataDigest, this.version === H004 ? H004_NS : H005_NS)
				: undefined;
		const result = await this.send(orderType, checked, details.dataDigest, orderData);
		return { ...result, details };
	}

	/**
	 * An HVE or HVS upload: the A006 signature of the order's digest (S002 in H005, S001 in H004),
	 * and H005 HVS's order data.
	 */
	private async send(
		orderType: 'HVE' | 'HVS',
		ref: VeuOrderRef,
		dataDigest: Buffer,
		orderData?: string,
	): Promise<VeuActionResult> {
		const label = `${orderType} order ${ref.orderId}`;
		const transactionKey = newTransactionKey();
		const signature = signA006(dataDigest, this.keys.signature.privateKey);
		const h004 = this.version === H004;
		const signatureXml = userSignatureData(
			signature,
			{ partnerId: this.subscriber.partnerId, userId: this.subscriber.userId },
			h004 ? S001_NS : undefined,
		);
		const segments: string[] = [];
		if (orderData !== undefined) {
			const encryptor = new E002Encryptor(transactionKey);
			const segmenter = new UploadSegmenter();
			segments.push(
				...segmenter.push(encryptor.update(deflateSync(Buffer.from(orderData, 'utf8')))),
				...segmenter.push(encryptor.final()),
				...segmenter.end(),
			);
		}
		// EBICS 2.5 names the bank's keys only by the hash of exponent and modulus.
		const form = h004 ? 'publicKey' : (this.options.bankKeyDigestForm ?? 'certificate');
		const digests = {
			authentication: keyDigest(this.bank.authentication, form),
			encryption: keyDigest(this.bank.encryption, form),
		};
		const params = hvOrderParams(orderType, ref, this.version);
		const data = {
			wrappedTransactionKey: wrapTransactionKey(transactionKey, this.bank.encryption.publicKey),
			encryptedSignatureData: encryptE002(
				deflateSync(Buffer.from(signatureXml, 'utf8')),
				transactionKey,
			),
			dataDigest,
		};
		const authenticationKey = this.keys.authentication.privateKey;
		const xml = h004
			? veuInitRequestH004(
					this.subscriber,
					orderType,
					params,
					digests,
					{ ...data, numSegments: segments.length },
					authenticationKey,
				)
			: uploadInitRequest(
					this.subscriber,
					orderType,
					{ kind: 'element', xml: params },
					digests,
					{ ...data, numSegments: segments.length },
					authenticationKey,
				);
		const verify = {
			bankAuthenticationKey: this.bank.authentication.publicKey,
			...(h004 ? { namespace: H004_NS } : {}),
		};
		const init = readResponse(
			await this.options.send(xml, `${label} initialisation`),
			`${label} initialisation`,
			verify,
		);
		let codes = init.codes;
		let orderId = init.orderId;
		for (let index = 0; index < segments.length; index++) {
			if (!init.transactionId)
				throw new EbicsFormatError(
					`The bank's answer to ${label} initialisation has no transaction ID`,
				);
			const step = `${label} transfer of segment ${index + 1} of ${segments.length}`;
			const answer = readResponse(
				await this.options.send(
					uploadTransferRequest(
						this.subscriber.hostId,
						init.transactionId,
						index + 1,
						index + 1 === segments.length,
						segments[index],
						authenticationKey,
						this.version,
					),
					step,
				),
				step,
				verify,
			);
			codes = answer.codes;
			orderId = answer.orderId ?? orderId;
		}
		return { orderId, codes };
	}
}

/**
 * For the sandbox bank and tests: the HVRequestStructure of an order parameters element, H005
 * (Service) or H004 (OrderType, FileFormat) by the element's namespace.
 */
export function readOrderRef(params: Element | undefined): VeuOrderRef | undefined {
	if (!params) return undefined;
	const ns = params.namespaceURI === H004_NS ? H004_NS : H005_NS;
	const orderId = text(child(params, ns, 'OrderID'));
	const partnerId = text(child(params, ns, 'PartnerID')) ?? '';
	if (ns === H004_NS) {
		const orderType = text(child(params, ns, 'OrderType'));
		const fileFormat = text(child(params, ns, 'FileFormat'));
		if (!orderType || !orderId) return undefined;
		return { partnerId, orderType, orderId, ...(fileFormat ? { fileFormat } : {}) };
	}
	const service = child(params, ns, 'Service');
	if (!service || !orderId) return undefined;
	return rethrowAs(
		() => ({ partnerId, service: readService(service), orderId }),
		() => new EbicsFormatError('The order parameters cannot be read'),
	);
}

/** For the sandbox bank: the service filters of HVU and HVZ order parameters. */
export function readServiceFilters(params: Element | undefined): BtfService[] {
	return params
		? elements(params)
				.filter((e) => e.localName === 'ServiceFilter')
				.map((e) => readService(e))
		: [];
}
