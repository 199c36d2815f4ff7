/**
 * The order data of the administrative downloads, read into plain objects (HPB: the bank's
 * certificates; HTD and HKD: the customer, the users and their permissions; HAA: the services
 * with data to fetch). HAC is a pain.002 customer acknowledgement and PTK a text protocol: both
 * come back as files.
 *
 * HTD, HKD and HAA are read in either version, by the namespace of their root: EBICS 3.0 (H005,
 * ebics_orders_H005.xsd) names orders by AdminOrderType and Service; EBICS 2.5 (H004,
 * ebics_orders_H004.xsd) by OrderType, and lists a permission's order types (and HAA's) as one
 * space-separated OrderTypes. Items have the same fields where the meaning is the same; H004 adds
 * what H005 has not (transfer type, file format, order format, an account's usage order types).
 * An answer holding an element of its version's namespace that the schema does not define where it
 * stands, or (H004) an order type that is not three letters or digits, is refused (EbicsFormatError
 * naming the order type and the element), never read as less than the bank said; elements of other
 * namespaces (the schema's extension points) are left aside.
 */
import { X509Certificate } from 'node:crypto';

import { BtfService } from './btf';
import { DSIG_NS, H005_NS } from './constants';
import { H004_NS } from './h004/requests';
import { EbicsFormatError, rethrowAs } from './errors';
import { child, children, elements, parseDocument, path, text } from './xml';

export interface HpbKeys {
	hostId?: string;
	authenticationVersion?: string;
	encryptionVersion?: string;
	authenticationCertificatePem: string;
	encryptionCertificatePem: string;
}

function certificatePem(info: Element | undefined, what: string): string {
	const der = text(path(info, DSIG_NS, 'X509Data', 'X509Certificate'))?.replace(/\s+/g, '');
	if (!der)
		throw new EbicsFormatError(
			`The bank's keys (HPB) have no X.509 certificate for its ${what} key`,
		);
	return rethrowAs(
		() => new X509Certificate(Buffer.from(der, 'base64')).toString(),
		() => new EbicsFormatError(`The bank's ${what} certificate (HPB) cannot be read`),
	);
}

/** Reads HPBResponseOrderData: the bank's X002 and E002 certificates. */
export function readHpbOrderData(xml: Buffer | string): HpbKeys {
	const root = parseDocument(xml, "The bank's keys (HPB)").documentElement;
	if (root.localName !== 'HPBResponseOrderData')
		throw new EbicsFormatError(
			`The bank's keys (HPB) are not an HPBResponseOrderData (the root is ${root.localName})`,
		);
	const authentication = child(root, H005_NS, 'AuthenticationPubKeyInfo');
	const encryption = child(root, H005_NS, 'EncryptionPubKeyInfo');
	return {
		hostId: text(child(root, H005_NS, 'HostID')),
		authenticationVersion: text(child(authentication, H005_NS, 'AuthenticationVersion')),
		encryptionVersion: text(child(encryption, H005_NS, 'EncryptionVersion')),
		authenticationCertificatePem: certificatePem(authentication, 'authentication (X002)'),
		encryptionCertificatePem: certificatePem(encryption, 'encryption (E002)'),
	};
}

function readService(element: Element | undefined): BtfService | undefined {
	if (!element) return undefined;
	const msg = child(element, H005_NS, 'MsgName');
	const service: Record<string, string | undefined> = {
		serviceName: text(child(element, H005_NS, 'ServiceName')),
		scope: text(child(element, H005_NS, 'Scope')),
		serviceOption: text(child(element, H005_NS, 'ServiceOption')),
		container: child(element, H005_NS, 'Container')?.getAttribute('containerType') ?? undefined,
		msgName: text(msg),
		msgVersion: msg?.getAttribute('version') || undefined,
		msgVariant: msg?.getAttribute('variant') || undefined,
		msgFormat: msg?.getAttribute('format') || undefined,
	};
	for (const key of Object.keys(service)) if (service[key] === undefined) delete service[key];
	return service as unknown as BtfService;
}

export interface AccountInfo {
	id: string;
	currency?: string;
	description?: string;
	iban?: string;
	accountNumber?: string;
	bic?: string;
	bankCode?: string;
	holder?: string;
	/**
	 * H004: the order types the account is limited to (UsageOrderTypes); left out when the bank
	 * sets no limit, empty when the account is blocked for every order type.
	 */
	usageOrderTypes?: string[];
	/** H005: the services the account is limited to (UsageOrderTypes), as usageOrderTypes. */
	usageServices?: BtfService[];
}

export interface OrderInfo {
	/** AdminOrderType (H005: BTD, BTU, HTD, ...) or OrderType (H004: C53, CCT, HTD, ...). */
	orderType: string;
	service?: BtfService;
	description?: string;
	numSigRequired?: number;
	/** H004: Upload or Download. */
	transferType?: 'Upload' | 'Download';
	/** H004, FUL and FDL: the file format (pain.001.001.03.sct, ...). */
	fileFormat?: string;
	/** H004: the order format the bank names (e.g. CAMT053, DTAZVJS). */
	orderFormat?: string;
}

export interface UserPermission {
	/**
	 * The order type (H005: the admin order type HTD, HVE, ..., empty for a service permission;
	 * H004: one entry per order type of the permission's OrderTypes, empty when that list is).
	 */
	orderType: string;
	service?: BtfService;
	/** H004, FUL and FDL: the file format the permission is for. */
	fileFormat?: string;
	accountId?: string;
	maxAmount?: string;
	currency?: string;
	/** Signature class: E (single), A, B (first/second of two), T (transport). */
	authorisationLevel?: string;
}

export interface UserInfo {
	userId: string;
	/** The user's state as the bank keeps it (a number, e.g. 1 ready). */
	status?: number;
	name?: string;
	permissions: UserPermission[];
}

export interface CustomerInfo {
	partner: {
		name?: string;
		street?: string;
		postCode?: string;
		city?: string;
		region?: string;
		country?: string;
		hostId?: string;
		accounts: AccountInfo[];
		orders: OrderInfo[];
	};
	users: UserInfo[];
}

/** What HAA lists: a service with data waiting (EBICS 3.0), or an order type (EBICS 2.5). */
export type AvailableDownload = BtfService | { orderType: string };

function dropUndefined<T extends object>(value: T): T {
	for (const key of Object.keys(value) as Array<keyof T>)
		if (value[key] === undefined) delete value[key];
	return value;
}

function readAccount(element: Element, ns: string): AccountInfo {
	const account: AccountInfo = {
		id: element.getAttribute('ID') ?? '',
		currency: element.getAttribute('Currency') || undefined,
		description: element.getAttribute('Description') || undefined,
		holder: text(child(element, ns, 'AccountHolder')),
	};
	for (const number of children(element, ns, 'AccountNumber')) {
		if (number.getAttribute('international') === 'true') account.iban = text(number);
		else account.accountNumber = text(number);
	}
	for (const code of children(element, ns, 'BankCode')) {
		if (code.getAttribute('international') === 'true') account.bic = text(code);
		else account.bankCode = text(code);
	}
	// The schema's other choice: a number in a national format the bank names.
	account.accountNumber ??= text(child(element, ns, 'NationalAccountNumber'));
	account.bankCode ??= text(child(element, ns, 'NationalBankCode'));
	return dropUndefined(account);
}

function readUser(element: Element): UserInfo {
	const id = child(element, H005_NS, 'UserID');
	// Some banks (the Zürcher Kantonalbank's test system) list the user's services directly under
	// UserInfo instead of in Permission elements: each is read as a permission of its own.
	const permissions = elements(element).filter(
		(e) =>
			e.namespaceURI === H005_NS && (e.localName === 'Permission' || e.localName === 'Service'),
	);
	return {
		userId: text(id) ?? '',
		status: id?.getAttribute('Status') ? Number(id.getAttribute('Status')) : undefined,
		name: text(child(element, H005_NS, 'Name')),
		permissions: permissions.map((permission) => {
			if (permission.localName === 'Service')
				return { orderType: '', service: readService(permission) };
			const amount = child(permission, H005_NS, 'MaxAmount');
			return dropUndefined<UserPermission>({
				orderType: text(child(permission, H005_NS, 'AdminOrderType')) ?? '',
				service: readService(child(permission, H005_NS, 'Service')),
				accountId: text(child(permission, H005_NS, 'AccountID')),
				maxAmount: text(amount),
				currency: amount?.getAttribute('Currency') || undefined,
				authorisationLevel: permission.getAttribute('AuthorisationLevel') || undefined,
			});
		}),
	};
}

/** The root of HTD, HKD or HAA order data, and its version by its namespace. */
function orderDataRoot(
	xml: Buffer | string,
	orderType: 'HTD' | 'HKD' | 'HAA',
): { root: Element; ns: string } {
	const root = parseDocument(xml, `The ${orderType} order data`).documentElement;
	if (root.localName !== `${orderType}ResponseOrderData`)
		throw new EbicsFormatError(`The ${orderType} order data has the root ${root.localName}`);
	const ns = root.namespaceURI ?? '';
	if (ns !== H005_NS && ns !== H004_NS)
		throw new EbicsFormatError(
			`The ${orderType} order data is in ${ns || 'no namespace'}, neither EBICS 3.0 (${H005_NS}) nor EBICS 2.5 (${H004_NS})`,
		);
	return { root, ns };
}

/** Reads HTDResponseOrderData or HKDResponseOrderData, EBICS 3.0 (H005) or 2.5 (H004). */
export function readCustomerInfo(xml: Buffer | string, orderType: 'HTD' | 'HKD'): CustomerInfo {
	const { root, ns } = orderDataRoot(xml, orderType);
	if (ns === H004_NS) return readCustomerInfoH004(root, orderType);
	checkTree(root, H005_NS, orderType);
	const partner = child(root, H005_NS, 'PartnerInfo');
	const address = child(partner, H005_NS, 'AddressInfo');
	return {
		partner: {
			name: text(child(address, H005_NS, 'Name')),
			street: text(child(address, H005_NS, 'Street')),
			postCode: text(child(address, H005_NS, 'PostCode')),
			city: text(child(address, H005_NS, 'City')),
			region: text(child(address, H005_NS, 'Region')),
			country: text(child(address, H005_NS, 'Country')),
			hostId: text(path(partner, H005_NS, 'BankInfo', 'HostID')),
			accounts: children(partner, H005_NS, 'AccountInfo').map((element) => {
				const account = readAccount(element, H005_NS);
				const usage = child(element, H005_NS, 'UsageOrderTypes');
				if (usage)
					account.usageServices = children(usage, H005_NS, 'Service').map(
						(service) => readService(service) as BtfService,
					);
				return account;
			}),
			orders: children(partner, H005_NS, 'OrderInfo').map((order) => ({
				orderType: text(child(order, H005_NS, 'AdminOrderType')) ?? '',
				service: readService(child(order, H005_NS, 'Service')),
				description: text(child(order, H005_NS, 'Description')),
				numSigRequired: text(child(order, H005_NS, 'NumSigRequired'))
					? Number(text(child(order, H005_NS, 'NumSigRequired')))
					: undefined,
			})),
		},
		users: children(root, H005_NS, 'UserInfo').map(readUser),
	};
}

/**
 * The elements of the HTD, HKD and HAA order data, by the element they stand in, in EBICS 2.5
 * (ebics_orders_H004.xsd: HTDReponseOrderDataType, HKDResponseOrderDataType, PartnerInfoType,
 * AddressInfoType, BankInfoType, AccountType with UsageOrderTypes, AuthOrderInfoType,
 * UserInfoType, UserPermissionType, HAAResponseOrderDataType) and in EBICS 3.0
 * (ebics_orders_H005.xsd, the same types with AdminOrderType and Service; a Service directly under
 * UserInfo, as the Zürcher Kantonalbank's test system writes it, is taken as a permission).
 */
const KNOWN_ELEMENTS: Record<string, Record<string, string[]>> = {
	[H004_NS]: {
		HTDResponseOrderData: ['PartnerInfo', 'UserInfo'],
		HKDResponseOrderData: ['PartnerInfo', 'UserInfo'],
		HAAResponseOrderData: ['OrderTypes'],
		PartnerInfo: ['AddressInfo', 'BankInfo', 'AccountInfo', 'OrderInfo'],
		AddressInfo: ['Name', 'Street', 'PostCode', 'City', 'Region', 'Country'],
		BankInfo: ['HostID', 'Parameter'],
		AccountInfo: [
			'AccountNumber',
			'NationalAccountNumber',
			'BankCode',
			'NationalBankCode',
			'AccountHolder',
			'UsageOrderTypes',
		],
		OrderInfo: [
			'OrderType',
			'FileFormat',
			'TransferType',
			'OrderFormat',
			'Description',
			'NumSigRequired',
		],
		UserInfo: ['UserID', 'Name', 'Permission'],
		Permission: ['OrderTypes', 'FileFormat', 'AccountID', 'MaxAmount'],
	},
	[H005_NS]: {
		HTDResponseOrderData: ['PartnerInfo', 'UserInfo'],
		HKDResponseOrderData: ['PartnerInfo', 'UserInfo'],
		HAAResponseOrderData: ['Service'],
		PartnerInfo: ['AddressInfo', 'BankInfo', 'AccountInfo', 'OrderInfo'],
		AddressInfo: ['Name', 'Street', 'PostCode', 'City', 'Region', 'Country'],
		BankInfo: ['HostID', 'Parameter'],
		AccountInfo: [
			'AccountNumber',
			'NationalAccountNumber',
			'BankCode',
			'NationalBankCode',
			'AccountHolder',
			'UsageOrderTypes',
		],
		OrderInfo: ['AdminOrderType', 'Service', 'Description', 'NumSigRequired'],
		UserInfo: ['UserID', 'Name', 'Permission', 'Service'],
		Permission: ['AdminOrderType', 'Service', 'AccountID', 'MaxAmount'],
	},
};

const VERSION_NAMES: Record<string, { name: string; schema: string }> = {
	[H004_NS]: { name: 'EBICS 2.5', schema: 'ebics_orders_H004.xsd' },
	[H005_NS]: { name: 'EBICS 3.0', schema: 'ebics_orders_H005.xsd' },
};

/**
 * The children of an element in its version's namespace, each one the schema defines there;
 * elements of other namespaces (the schema's `any namespace="##other"`) are left aside.
 */
function knownChildren(element: Element, ns: string, orderType: string): Element[] {
	const known = KNOWN_ELEMENTS[ns][element.localName] ?? [];
	return elements(element).filter((e) => {
		if (e.namespaceURI && e.namespaceURI !== ns) return false;
		if (e.namespaceURI !== ns || !known.includes(e.localName))
			throw new EbicsFormatError(
				`The ${orderType} order data (${VERSION_NAMES[ns].name}) cannot be read: ${element.localName} holds ${e.localName}${e.namespaceURI ? '' : ' without namespace'}, which ${VERSION_NAMES[ns].schema} does not define there`,
			);
		return true;
	});
}

/** Walks the elements below `element`, refusing any the version's schema does not define there. */
function checkTree(element: Element, ns: string, orderType: string): void {
	for (const e of knownChildren(element, ns, orderType))
		if (KNOWN_ELEMENTS[ns][e.localName]) checkTree(e, ns, orderType);
}

function h004Child(element: Element | undefined, localName: string): Element | undefined {
	return element ? child(element, H004_NS, localName) : undefined;
}

/** An H004 list of order types (OrderTListType): each three letters or digits. */
function h004OrderTypes(element: Element, orderType: string, where: string): string[] {
	const types = (text(element) ?? '').split(/\s+/).filter(Boolean);
	const bad = types.find((type) => !/^[A-Z0-9]{3}$/.test(type));
	if (bad !== undefined)
		throw new EbicsFormatError(
			`The ${orderType} order data (EBICS 2.5) cannot be read: ${where} lists "${bad}", which is not an order type (three capital letters or digits)`,
		);
	return types;
}

function h004Number(value: string | undefined, orderType: string, where: string): number {
	if (value === undefined || !/^\d+$/.test(value.trim()))
		throw new EbicsFormatError(
			`The ${orderType} order data (EBICS 2.5) cannot be read: ${where} "${value ?? ''}" is not a whole number`,
		);
	return Number(value);
}

function h004Required(
	element: Element | undefined,
	localName: string,
	orderType: string,
	where: string,
): Element {
	const found = h004Child(element, localName);
	if (!found)
		throw new EbicsFormatError(
			`The ${orderType} order data (EBICS 2.5) cannot be read: ${where} has no ${localName}`,
		);
	return found;
}

function readOrderInfoH004(order: Element, orderType: string): OrderInfo {
	const type = (text(h004Required(order, 'OrderType', orderType, 'OrderInfo')) ?? '').trim();
	if (!/^[A-Z0-9]{3}$/.test(type))
		throw new EbicsFormatError(
			`The ${orderType} order data (EBICS 2.5) cannot be read: OrderInfo/OrderType "${type}" is not an order type (three capital letters or digits)`,
		);
	const transfer = text(h004Child(order, 'TransferType'));
	if (transfer !== undefined && transfer !== 'Upload' && transfer !== 'Download')
		throw new EbicsFormatError(
			`The ${orderType} order data (EBICS 2.5) cannot be read: the TransferType of ${type} is "${transfer}", not Upload or Download`,
		);
	const numSig = text(h004Child(order, 'NumSigRequired'));
	return dropUndefined<OrderInfo>({
		orderType: type,
		transferType: transfer,
		fileFormat: text(h004Child(order, 'FileFormat')),
		orderFormat: text(h004Child(order, 'OrderFormat')),
		description: text(h004Child(order, 'Description')),
		numSigRequired:
			numSig === undefined
				? undefined
				: h004Number(numSig, orderType, `the NumSigRequired of ${type}`),
	});
}

/**
 * An H004 Permission as H005 writes permissions, one per order type of its OrderTypes (each with
 * the permission's file format, account, limit and signature class); one with no order type when
 * the list is empty, so that an account permission is kept.
 */
function readPermissionH004(permission: Element, orderType: string): UserPermission[] {
	const types = h004OrderTypes(
		h004Required(permission, 'OrderTypes', orderType, 'Permission'),
		orderType,
		'Permission/OrderTypes',
	);
	const amount = h004Child(permission, 'MaxAmount');
	const common: Omit<UserPermission, 'orderType'> = dropUndefined({
		fileFormat: text(h004Child(permission, 'FileFormat')),
		accountId: text(h004Child(permission, 'AccountID')),
		maxAmount: text(amount),
		currency: amount?.getAttribute('Currency') || undefined,
		authorisationLevel: permission.getAttribute('AuthorisationLevel') || undefined,
	});
	return (types.length ? types : ['']).map((type) => ({ orderType: type, ...common }));
}

function readUserH004(element: Element, orderType: string): UserInfo {
	const id = h004Required(element, 'UserID', orderType, 'UserInfo');
	const status = id.getAttribute('Status');
	return dropUndefined<UserInfo>({
		userId: text(id) ?? '',
		status: status ? h004Number(status, orderType, 'the Status of the user') : undefined,
		name: text(h004Child(element, 'Name')),
		permissions: children(element, H004_NS, 'Permission').flatMap((p) =>
			readPermissionH004(p, orderType),
		),
	});
}

/** Reads an EBICS 2.5 HTDResponseOrderData or HKDResponseOrderData (ebics_orders_H004.xsd). */
function readCustomerInfoH004(root: Element, orderType: 'HTD' | 'HKD'): CustomerInfo {
	checkTree(root, H004_NS, orderType);
	const partner = h004Required(root, 'PartnerInfo', orderType, `${orderType}ResponseOrderData`);
	const users = children(root, H004_NS, 'UserInfo');
	if (!users.length)
		throw new EbicsFormatError(
			`The ${orderType} order data (EBICS 2.5) cannot be read: ${orderType}ResponseOrderData has no UserInfo`,
		);
	const address = h004Child(partner, 'AddressInfo');
	return {
		partner: dropUndefined({
			name: text(h004Child(address, 'Name')),
			street: text(h004Child(address, 'Street')),
			postCode: text(h004Child(address, 'PostCode')),
			city: text(h004Child(address, 'City')),
			region: text(h004Child(address, 'Region')),
			country: text(h004Child(address, 'Country')),
			hostId: text(h004Child(h004Child(partner, 'BankInfo'), 'HostID')),
			accounts: children(partner, H004_NS, 'AccountInfo').map((element) => {
				const usage = h004Child(element, 'UsageOrderTypes');
				const account = readAccount(element, H004_NS);
				if (usage)
					account.usageOrderTypes = h004OrderTypes(
						usage,
						orderType,
						`the UsageOrderTypes of account ${account.id}`,
					);
				return account;
			}),
			orders: children(partner, H004_NS, 'OrderInfo').map((o) => readOrderInfoH004(o, orderType)),
		}),
		users: users.map((user) => readUserH004(user, orderType)),
	};
}

/**
 * Reads HAAResponseOrderData: what has data to download now, the services (EBICS 3.0) or the
 * order types (EBICS 2.5, its OrderTypes list). An element the version's schema does not define
 * there is refused by name: the answer is never read as "nothing waiting" when the bank said more.
 */
export function readAvailableDownloads(xml: Buffer | string): AvailableDownload[] {
	const { root, ns } = orderDataRoot(xml, 'HAA');
	if (ns === H004_NS) {
		knownChildren(root, H004_NS, 'HAA');
		return h004OrderTypes(
			h004Required(root, 'OrderTypes', 'HAA', 'HAAResponseOrderData'),
			'HAA',
			'OrderTypes',
		).map((orderType) => ({ orderType }));
	}
	const services = knownChildren(root, H005_NS, 'HAA');
	return services.map((e) => readService(e) as BtfService);
}

/** Reads an EBICS 3.0 HAAResponseOrderData: the services that have data to download. */
export function readAvailableServices(xml: Buffer | string): BtfService[] {
	const available = readAvailableDownloads(xml);
	if (available.some((entry) => 'orderType' in entry))
		throw new EbicsFormatError(
			'The HAA order data is EBICS 2.5: it lists order types, not services (readAvailableDownloads reads both)',
		);
	return available as BtfService[];
}
