/**
 * The order data of the administrative downloads, read into plain objects (HPB: the bank's
 * certificates; HTD and HKD: the customer, the users and their permissions; HAA: the services
 * with data to fetch). HAC is a pain.002 customer acknowledgement and PTK a text protocol: both
 * come back as files.
 */
import { X509Certificate } from 'node:crypto';

import { BtfService } from './btf';
import { DSIG_NS, H005_NS } from './constants';
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
}

export interface OrderInfo {
	orderType: string;
	service?: BtfService;
	description?: string;
	numSigRequired?: number;
}

export interface UserPermission {
	/** The admin order type (HTD, HVE, ...); empty for a service permission. */
	orderType: string;
	service?: BtfService;
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

function readAccount(element: Element): AccountInfo {
	const account: AccountInfo = {
		id: element.getAttribute('ID') ?? '',
		currency: element.getAttribute('Currency') || undefined,
		description: element.getAttribute('Description') || undefined,
		holder: text(child(element, H005_NS, 'AccountHolder')),
	};
	for (const number of children(element, H005_NS, 'AccountNumber')) {
		if (number.getAttribute('international') === 'true') account.iban = text(number);
		else account.accountNumber = text(number);
	}
	for (const code of children(element, H005_NS, 'BankCode')) {
		if (code.getAttribute('international') === 'true') account.bic = text(code);
		else account.bankCode = text(code);
	}
	// The schema's other choice: a number in a national format the bank names.
	account.accountNumber ??= text(child(element, H005_NS, 'NationalAccountNumber'));
	account.bankCode ??= text(child(element, H005_NS, 'NationalBankCode'));
	for (const key of Object.keys(account) as Array<keyof AccountInfo>)
		if (account[key] === undefined) delete account[key];
	return account;
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
			const out: UserPermission = {
				orderType: text(child(permission, H005_NS, 'AdminOrderType')) ?? '',
				service: readService(child(permission, H005_NS, 'Service')),
				accountId: text(child(permission, H005_NS, 'AccountID')),
				maxAmount: text(amount),
				currency: amount?.getAttribute('Currency') || undefined,
				authorisationLevel: permission.getAttribute('AuthorisationLevel') || undefined,
			};
			for (const key of Object.keys(out) as Array<keyof UserPermission>)
				if (out[key] === undefined) delete out[key];
			return out;
		}),
	};
}

/** Reads HTDResponseOrderData or HKDResponseOrderData. */
export function readCustomerInfo(xml: Buffer | string, orderType: 'HTD' | 'HKD'): CustomerInfo {
	const root = parseDocument(xml, `The ${orderType} order data`).documentElement;
	if (root.localName !== `${orderType}ResponseOrderData`)
		throw new EbicsFormatError(`The ${orderType} order data has the root ${root.localName}`);
	if (root.namespaceURI !== H005_NS)
		throw new EbicsFormatError(
			`The ${orderType} order data is in ${root.namespaceURI ?? 'no namespace'}, not EBICS 3.0 (${H005_NS})`,
		);
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
			accounts: children(partner, H005_NS, 'AccountInfo').map(readAccount),
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

/** Reads HAAResponseOrderData: the services that have data to download. */
export function readAvailableServices(xml: Buffer | string): BtfService[] {
	const root = parseDocument(xml, 'The HAA order data').documentElement;
	if (root.localName !== 'HAAResponseOrderData')
		throw new EbicsFormatError(`The HAA order data has the root ${root.localName}`);
	return elements(root)
		.filter((e) => e.localName === 'Service')
		.map((e) => readService(e) as BtfService);
}
