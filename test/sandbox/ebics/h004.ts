/**
 * EBICS 2.5 (H004) in the sandbox bank, for this project's H004 client and for clients written
 * by others (the npm package ebics-client 5.x speaks only H004): INI and HIA with bare RSA keys
 * (PubKeyValue/RSAKeyValue), with or without their certificates (X509Data must hold the same
 * key), HPB (bare keys), downloads by order type (STA, VMK, C52, C53, C54, Z52, Z53, Z54, Z01,
 * FDL by file format, HAC, PTK, HPD, and HTD, HKD, HAA in the H004 shape: OrderType, OrderTypes
 * lists) and uploads (CCT, CDD, CDB, XCT, FUL by file
 * format) with an A006 signature over the order data, and the distributed signature (HVU, HVZ,
 * HVD, HVT, HVE, HVS: veuH004.ts). Same checks as H005: every request against
 * the H004 schemas, state, X002 signature, nonce and timestamp, bank key digests (the H004 form:
 * SHA-256 of "exponent modulus"), the order attribute, segments, receipts.
 */
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { inflateSync } from 'node:zlib';

import { child, children, decryptE002, DSIG_NS, el, keyPairOrderData, leaf, orderDataDigest, parseDocument, path, publicKeyDigest, text, unwrapTransactionKey, verifyA006, type BtfService } from '../../../nodes/shared/ebics';
import { answerCodes, EbicsRefusal, schemaProblem, type EbicsAnswer, type RegisteredKey, type SandboxEbicsBank, type SandboxSubscriber } from './bank';
import { hpdData } from './hpd';
import { KEY_CHANGE_ORDERS } from './keyChange';
import { VEU_DOWNLOADS } from './veu';
import { veuCancelH004, veuDownloadH004, veuSignH004 } from './veuH004';

export const H004_NS = 'urn:org:ebics:H004';
const S001_NS = 'http://www.ebics.org/S001';

/** H004 order types and the H005 services they stand for (DK mapping of EBICS 3.0). */
const DOWNLOADS: Record<string, BtfService> = {
	STA: { serviceName: 'EOP', msgName: 'mt940' },
	C53: { serviceName: 'EOP', msgName: 'camt.053', container: 'ZIP' },
	C52: { serviceName: 'STM', msgName: 'camt.052', container: 'ZIP' },
	C54: { serviceName: 'REP', msgName: 'camt.054', container: 'ZIP' },
	Z53: { serviceName: 'EOP', msgName: 'camt.053', container: 'ZIP' },
	Z52: { serviceName: 'STM', msgName: 'camt.052', container: 'ZIP' },
	Z54: { serviceName: 'REP', msgName: 'camt.054', container: 'ZIP' },
	Z01: { serviceName: 'PSR', msgName: 'pain.002', container: 'ZIP' },
	VMK: { serviceName: 'STM', msgName: 'mt942' },
};

/** FDL and FUL: the services a file format names (its message name), as the bank's contract lists them. */
const FILE_FORMATS: Array<{ prefix: string; direction: 'download' | 'upload'; service: BtfService }> = [
	{ prefix: 'camt.053', direction: 'download', service: DOWNLOADS.C53 },
	{ prefix: 'camt.052', direction: 'download', service: DOWNLOADS.C52 },
	{ prefix: 'camt.054', direction: 'download', service: DOWNLOADS.C54 },
	{ prefix: 'pain.002', direction: 'download', service: DOWNLOADS.Z01 },
	{ prefix: 'mt940', direction: 'download', service: DOWNLOADS.STA },
	{ prefix: 'mt942', direction: 'download', service: DOWNLOADS.VMK },
	{ prefix: 'pain.001', direction: 'upload', service: { serviceName: 'SCT', msgName: 'pain.001' } },
	{ prefix: 'pain.008', direction: 'upload', service: { serviceName: 'SDD', serviceOption: 'COR', msgName: 'pain.008' } },
];

function fileService(details: Element | undefined, direction: 'download' | 'upload'): BtfService {
	const params = child(details, H004_NS, direction === 'download' ? 'FDLOrderParams' : 'FULOrderParams');
	const format = text(child(params, H004_NS, 'FileFormat')) ?? '';
	const found = FILE_FORMATS.find((f) => f.direction === direction && format.startsWith(f.prefix));
	if (!found) throw new EbicsRefusal('091112', 'technical', `File format ${format} is not in the contract`);
	return found.service;
}
const UPLOADS: Record<string, BtfService> = {
	CCT: { serviceName: 'SCT', msgName: 'pain.001' },
	CDD: { serviceName: 'SDD', serviceOption: 'COR', msgName: 'pain.008' },
	CDB: { serviceName: 'SDD', serviceOption: 'B2B', msgName: 'pain.008' },
	XCT: { serviceName: 'XCT', msgName: 'pain.001' },
};

/** The order types a subscriber's download and upload services stand for in H004 (with FDL and FUL by file format). */
function orderTypesOf(subscriber: SandboxSubscriber): { downloads: string[]; uploads: string[] } {
	const downloads = Object.entries(DOWNLOADS).filter(([, service]) => subscriber.downloadServices.includes(service.serviceName)).map(([type]) => type);
	const uploads = Object.entries(UPLOADS).filter(([, service]) => subscriber.uploadServices.includes(service.serviceName)).map(([type]) => type);
	return { downloads: downloads.length ? [...downloads, 'FDL'] : [], uploads: uploads.length ? [...uploads, 'FUL'] : [] };
}

const ADMIN_DOWNLOADS = ['HTD', 'HKD', 'HPD', 'HAA', 'HAC', 'PTK', 'HVU', 'HVZ', 'HVD', 'HVT'];
const ADMIN_UPLOADS = ['SPR', 'HVE', 'HVS'];
const DESCRIPTIONS: Record<string, string> = { HTD: 'Subscriber data', HKD: 'Customer data', HPD: 'Bank parameters', HAA: 'Available downloads', HAC: 'Customer acknowledgement', PTK: 'Customer protocol', FDL: 'Download by file format', FUL: 'Upload by file format', SPR: 'Suspend access', HVE: 'Add a VEU signature', HVS: 'Cancel a VEU order' };

/**
 * HTD and HKD as EBICS 2.5 writes them (ebics_orders_H004.xsd): the order types by OrderType with
 * TransferType, each user's permissions as OrderTypes lists (downloads without a signature class;
 * uploads with the user's class, for account ACC1).
 */
export function customerDataH004(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, orderType: 'HTD' | 'HKD'): string {
	const users = orderType === 'HTD' ? [subscriber] : [...bank.subscribers.values()].filter((s) => s.partnerId === subscriber.partnerId);
	const own = orderTypesOf(subscriber);
	const label = (type: string): string => DESCRIPTIONS[type] ?? `${[...Object.entries(DOWNLOADS), ...Object.entries(UPLOADS)].find(([t]) => t === type)?.[1].msgName ?? type} (${type})`;
	const stateNumber: Record<SandboxSubscriber['state'], number> = { new: 0, iniReceived: 2, hiaReceived: 3, initialised: 4, ready: 1, suspended: 9 };
	const orderInfo = (type: string, transfer: 'Upload' | 'Download'): string => el('OrderInfo', {}, leaf('OrderType', type), leaf('TransferType', transfer), leaf('Description', label(type)), transfer === 'Upload' ? leaf('NumSigRequired', 1) : undefined);
	const permissions = (s: SandboxSubscriber): string[] => {
		const types = orderTypesOf(s);
		return [
			el('Permission', {}, leaf('OrderTypes', [...types.downloads, ...ADMIN_DOWNLOADS].join(' '))),
			el('Permission', { AuthorisationLevel: s.authorisationLevel }, leaf('OrderTypes', [...types.uploads, ...ADMIN_UPLOADS].join(' ')), leaf('AccountID', 'ACC1')),
		];
	};
	return (
		'<?xml version="1.0" encoding="UTF-8"?>' +
		el(
			`${orderType}ResponseOrderData`,
			{ xmlns: H004_NS },
			el(
				'PartnerInfo',
				{},
				el('AddressInfo', {}, leaf('Name', 'Sandbox Customer GmbH'), leaf('Street', 'Musterstrasse 1'), leaf('PostCode', '60311'), leaf('City', 'Frankfurt am Main'), leaf('Country', 'DE')),
				el('BankInfo', {}, leaf('HostID', bank.hostId)),
				el('AccountInfo', { ID: 'ACC1', Currency: 'EUR', Description: 'Main account' }, leaf('AccountNumber', subscriber.iban, { international: 'true' }), leaf('BankCode', 'SBXBDEFF', { international: 'true' }), leaf('AccountHolder', 'Sandbox Customer GmbH')),
				[...own.downloads, ...ADMIN_DOWNLOADS].map((type) => orderInfo(type, 'Download')),
				[...own.uploads, ...ADMIN_UPLOADS].map((type) => orderInfo(type, 'Upload')),
			),
			users.map((s) => el('UserInfo', {}, leaf('UserID', s.userId, { Status: stateNumber[s.state] }), leaf('Name', s.name), permissions(s))),
		)
	);
}

/** HAA as EBICS 2.5 writes it: the order types whose download has data now (OrderTypes, possibly empty). */
export function availableOrderTypesH004(subscriber: SandboxSubscriber): string {
	const waiting = subscriber.files.filter((f) => !f.delivered && subscriber.downloadServices.includes(f.serviceName));
	const types = Object.entries(DOWNLOADS)
		.filter(([, service]) => waiting.some((f) => f.serviceName === service.serviceName && f.msgName === service.msgName))
		.map(([type]) => type);
	return `<?xml version="1.0" encoding="UTF-8"?>${el('HAAResponseOrderData', { xmlns: H004_NS }, leaf('OrderTypes', types.join(' ')))}`;
}

function rsaKey(info: Element | undefined, ns: string): KeyObject {
	const value = path(info, ns, 'PubKeyValue');
	const modulus = text(path(value, DSIG_NS, 'RSAKeyValue', 'Modulus'));
	const exponent = text(path(value, DSIG_NS, 'RSAKeyValue', 'Exponent'));
	if (!modulus || !exponent) throw new EbicsRefusal('090004', 'business', 'The key has no RSAKeyValue');
	let key: KeyObject;
	try {
		key = createPublicKey({ key: { kty: 'RSA', n: Buffer.from(modulus, 'base64').toString('base64url'), e: Buffer.from(exponent, 'base64').toString('base64url') }, format: 'jwk' });
	} catch {
		throw new EbicsRefusal('090004', 'business', 'The RSAKeyValue is not an RSA key');
	}
	// A certificate sent beside the bare key must hold that key.
	const der = text(path(info, DSIG_NS, 'X509Data', 'X509Certificate'));
	if (der) {
		let certificateKey: KeyObject;
		try {
			certificateKey = new X509Certificate(Buffer.from(der, 'base64')).publicKey;
		} catch {
			throw new EbicsRefusal('091208', 'business', 'The X509Certificate cannot be read');
		}
		const spki = (k: KeyObject): string => k.export({ type: 'spki', format: 'der' }).toString('base64');
		if (spki(certificateKey) !== spki(key)) throw new EbicsRefusal('091208', 'business', 'The certificate holds another key than the RSAKeyValue');
	}
	return key;
}

/** A subscriber key of INI, HIA, PUB, HCA or HCS: its version, its RSAKeyValue, at least 2048 bits (the sandbox's CertificateReader for H004). */
export function readH004Key(info: Element | undefined, versionElement: string, ns: string, expected: string, lengthCode: string, versionCode: string): RegisteredKey {
	if (text(child(info, ns, versionElement)) !== expected) throw new EbicsRefusal(versionCode, 'business');
	const publicKey = rsaKey(info, ns);
	if ((publicKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new EbicsRefusal(lengthCode, 'business');
	return { publicKey, version: expected };
}

/** The order attribute a request must carry: DZNNN (INI, HIA), DZHNN (HPB, downloads), OZHNN or DZHNN (uploads). */
function checkOrderAttribute(details: Element | undefined, allowed: string[]): string {
	const attribute = text(child(details, H004_NS, 'OrderAttribute')) ?? '';
	if (!allowed.includes(attribute)) throw new EbicsRefusal('091113', 'technical', `OrderAttribute ${attribute} is not ${allowed.join(' or ')} here`);
	return attribute;
}

function rsaKeyValue(key: KeyObject): string {
	const jwk = key.export({ format: 'jwk' });
	return el('PubKeyValue', {}, el('ds:RSAKeyValue', {}, leaf('ds:Modulus', Buffer.from(jwk.n as string, 'base64url').toString('base64')), leaf('ds:Exponent', Buffer.from(jwk.e as string, 'base64url').toString('base64'))));
}

function keyManagement(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, orderType: string, root: Element): string {
	checkOrderAttribute(path(root, H004_NS, 'header', 'static', 'OrderDetails'), ['DZNNN']);
	let data: Buffer;
	try {
		data = inflateSync(Buffer.from(text(path(root, H004_NS, 'body', 'DataTransfer', 'OrderData')) ?? '', 'base64'));
	} catch {
		throw new EbicsRefusal('090004', 'business');
	}
	const orderRoot = parseDocument(data, 'order data').documentElement;
	if (orderType === 'INI') {
		if (!['new', 'hiaReceived'].includes(subscriber.state)) throw new EbicsRefusal('091002', 'technical');
		if (orderRoot.namespaceURI !== S001_NS || orderRoot.localName !== 'SignaturePubKeyOrderData') throw new EbicsRefusal('090004', 'business');
		subscriber.keys.signature = readH004Key(child(orderRoot, S001_NS, 'SignaturePubKeyInfo'), 'SignatureVersion', S001_NS, 'A006', '091204', '091201');
		subscriber.state = subscriber.state === 'hiaReceived' ? 'initialised' : 'iniReceived';
	} else if (orderType === 'HIA') {
		if (!['new', 'iniReceived'].includes(subscriber.state)) throw new EbicsRefusal('091002', 'technical');
		if (orderRoot.namespaceURI !== H004_NS || orderRoot.localName !== 'HIARequestOrderData') throw new EbicsRefusal('090004', 'business');
		const authentication = readH004Key(child(orderRoot, H004_NS, 'AuthenticationPubKeyInfo'), 'AuthenticationVersion', H004_NS, 'X002', '091205', '091202');
		const encryption = readH004Key(child(orderRoot, H004_NS, 'EncryptionPubKeyInfo'), 'EncryptionVersion', H004_NS, 'E002', '091206', '091203');
		subscriber.keys.authentication = authentication;
		subscriber.keys.encryption = encryption;
		subscriber.state = subscriber.state === 'iniReceived' ? 'initialised' : 'hiaReceived';
	} else throw new EbicsRefusal('091006', 'technical');
	subscriber.protocol = 'H004';
	return bank.keyManagementResponse({ technical: '000000', business: '000000' }, { orderId: bank.newOrderId(), ns: H004_NS });
}

function hpb(bank: SandboxEbicsBank, subscriber: SandboxSubscriber): string {
	const orderData = keyPairOrderData('HPBResponseOrderData', H004_NS, { authentication: rsaKeyValue(bank.bankAuthentication.publicKey), encryption: rsaKeyValue(bank.bankEncryption.publicKey) }, [leaf('HostID', bank.hostId)]);
	const { encryptionInfo, segments } = bank.encryptFor(subscriber, Buffer.from(orderData), H004_NS, (key) => publicKeyDigest(key.publicKey), true);
	return bank.keyManagementResponse({ technical: '000000', business: '000000' }, { orderId: bank.newOrderId(), ns: H004_NS, dataTransfer: el('DataTransfer', {}, encryptionInfo, leaf('OrderData', segments.join(''))) });
}

function checkH004Digest(value: string | undefined, key: KeyObject): void {
	if (!publicKeyDigest(key).equals(Buffer.from(value ?? '', 'base64'))) throw new EbicsRefusal('091008', 'technical');
}

/** The subscriber's A006 signature from an upload's SignatureData (S001 UserSignatureData), and the transaction key. */
function uploadSignature(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, dataTransfer: Element | undefined): { signature: Buffer; transactionKey: Buffer } {
	const info = child(dataTransfer, H004_NS, 'DataEncryptionInfo');
	checkH004Digest(text(child(info, H004_NS, 'EncryptionPubKeyDigest')), bank.bankEncryption.publicKey);
	const transactionKey = unwrapTransactionKey(Buffer.from(text(child(info, H004_NS, 'TransactionKey')) ?? '', 'base64'), bank.bankEncryption.privateKey);
	let signatureRoot: Element;
	try {
		signatureRoot = parseDocument(inflateSync(decryptE002(Buffer.from(text(child(dataTransfer, H004_NS, 'SignatureData')) ?? '', 'base64'), transactionKey)), 'signature data').documentElement;
	} catch {
		throw new EbicsRefusal('091111', 'business');
	}
	const mine = children(signatureRoot, S001_NS, 'OrderSignatureData').find((s) => text(child(s, S001_NS, 'PartnerID')) === subscriber.partnerId && text(child(s, S001_NS, 'UserID')) === subscriber.userId);
	if (!mine) throw new EbicsRefusal('091304', 'business');
	return { signature: Buffer.from(text(child(mine, S001_NS, 'SignatureValue')) ?? '', 'base64'), transactionKey };
}

async function initialisation(bank: SandboxEbicsBank, doc: Document, subscriber: SandboxSubscriber, staticHeader: Element | undefined, root: Element): Promise<EbicsAnswer> {
	bank.authenticate(doc, subscriber, staticHeader, H004_NS);
	const digests = child(staticHeader, H004_NS, 'BankPubKeyDigests');
	checkH004Digest(text(child(digests, H004_NS, 'Authentication')), bank.bankAuthentication.publicKey);
	checkH004Digest(text(child(digests, H004_NS, 'Encryption')), bank.bankEncryption.publicKey);
	const details = child(staticHeader, H004_NS, 'OrderDetails');
	const orderType = text(child(details, H004_NS, 'OrderType')) ?? '';
	const dataTransfer = path(root, H004_NS, 'body', 'DataTransfer');
	if (child(dataTransfer, H004_NS, 'SignatureData') && orderType === 'HVE') {
		// The distributed signature: a signature only (UZHNN) over the DataDigest of a waiting order.
		checkOrderAttribute(details, ['UZHNN']);
		const { signature } = uploadSignature(bank, subscriber, dataTransfer);
		veuSignH004(bank, subscriber, details, text(child(staticHeader, H004_NS, 'NumSegments')), signature);
		return bank.response({ phase: 'Initialisation', technical: '000000', business: '000000', orderId: bank.newOrderId(), ns: H004_NS });
	}
	if (child(dataTransfer, H004_NS, 'SignatureData') && orderType === 'HVS') {
		// Cancelling in the distributed signature: the signature over the order's DataDigest, then
		// the HVSRequestOrderData naming that digest (OZHNN); the order is cancelled once it is in.
		checkOrderAttribute(details, ['OZHNN']);
		const { signature, transactionKey } = uploadSignature(bank, subscriber, dataTransfer);
		const dataDigest = veuCancelH004(bank, subscriber, details, signature);
		const numSegments = Number(text(child(staticHeader, H004_NS, 'NumSegments')) ?? '0');
		if (!Number.isInteger(numSegments) || numSegments < 1) throw new EbicsRefusal('091113', 'technical', 'HVS carries its HVSRequestOrderData: NumSegments must be at least 1');
		const orderId = bank.newOrderId();
		const tx = bank.openUpload(subscriber, 'H004', orderType, orderId, numSegments, transactionKey, { dataDigest, flag: 'authorise', signer: { partnerId: subscriber.partnerId, userId: subscriber.userId }, details });
		return bank.response({ phase: 'Initialisation', technical: '000000', business: '000000', transactionId: tx.id, orderId, ns: H004_NS });
	}
	if (child(dataTransfer, H004_NS, 'SignatureData')) {
		// A key change (PUB, HCA, HCS) is signed with the current signature key (OZHNN) and names no file.
		const keyChange = KEY_CHANGE_ORDERS.includes(orderType);
		const attribute = checkOrderAttribute(details, keyChange ? ['OZHNN'] : ['OZHNN', 'DZHNN']);
		const service = keyChange ? undefined : orderType === 'FUL' ? fileService(details, 'upload') : UPLOADS[orderType];
		if (!keyChange && !service) throw new EbicsRefusal('091006', 'technical');
		if (service && !subscriber.uploadServices.includes(service.serviceName)) throw new EbicsRefusal('090003', 'business');
		const { signature, transactionKey } = uploadSignature(bank, subscriber, dataTransfer);
		const signatureKey = subscriber.keys.signature?.publicKey;
		const numSegments = Number(text(child(staticHeader, H004_NS, 'NumSegments')) ?? '0');
		if (!Number.isInteger(numSegments) || numSegments < 1) throw new EbicsRefusal('091113', 'technical');
		const orderId = bank.newOrderId();
		const tx = bank.openUpload(subscriber, 'H004', orderType, orderId, numSegments, transactionKey, {
			service,
			dataDigest: Buffer.alloc(32),
			flag: attribute === 'OZHNN' ? 'authorise' : 'transport',
			signer: { partnerId: subscriber.partnerId, userId: subscriber.userId },
			verify: (data: Buffer) => !!signatureKey && verifyA006(orderDataDigest(data), signature, signatureKey),
		});
		return bank.response({ phase: 'Initialisation', technical: '000000', business: '000000', transactionId: tx.id, orderId, ns: H004_NS });
	}
	checkOrderAttribute(details, ['DZHNN']);
	if (VEU_DOWNLOADS.includes(orderType)) {
		const veu = await veuDownloadH004(bank, subscriber, orderType, details);
		if (!veu) throw new EbicsRefusal('090005', 'business');
		return bank.startDownload(subscriber, orderType, veu, 'H004', H004_NS);
	}
	const params = child(details, H004_NS, 'StandardOrderParams') ?? child(details, H004_NS, 'FDLOrderParams');
	const range = child(params, H004_NS, 'DateRange');
	const dateRange = range ? { start: text(child(range, H004_NS, 'Start')) ?? '', end: text(child(range, H004_NS, 'End')) ?? '' } : undefined;
	if (orderType === 'HPD') return bank.startDownload(subscriber, orderType, { data: Buffer.from(hpdData(bank, H004_NS)), fileIds: [] }, 'H004', H004_NS);
	if (orderType === 'HTD' || orderType === 'HKD') return bank.startDownload(subscriber, orderType, { data: Buffer.from(customerDataH004(bank, subscriber, orderType)), fileIds: [] }, 'H004', H004_NS);
	if (orderType === 'HAA') return bank.startDownload(subscriber, orderType, { data: Buffer.from(availableOrderTypesH004(subscriber)), fileIds: [] }, 'H004', H004_NS);
	const service = orderType === 'FDL' ? fileService(details, 'download') : DOWNLOADS[orderType];
	const found = bank.downloadData(subscriber, service ? 'BTD' : orderType, service, dateRange);
	if (!found) throw new EbicsRefusal('090005', 'business');
	return bank.startDownload(subscriber, orderType, found, 'H004', H004_NS);
}

/** Answers one H004 request; each is checked against the H004 schemas first (switch validateSchema). */
export async function handleH004(bank: SandboxEbicsBank, doc: Document, xml: string | Buffer): Promise<EbicsAnswer> {
	const root = doc.documentElement;
	const header = child(root, H004_NS, 'header');
	const staticHeader = child(header, H004_NS, 'static');
	const phase = text(path(header, H004_NS, 'mutable', 'TransactionPhase'));
	const info = {
		protocol: 'H004' as const,
		root: root.localName,
		orderType: text(path(staticHeader, H004_NS, 'OrderDetails', 'OrderType')),
		phase,
		partnerId: text(child(staticHeader, H004_NS, 'PartnerID')),
		userId: text(child(staticHeader, H004_NS, 'UserID')),
	};
	const keyManagementRoot = root.localName !== 'ebicsRequest';
	try {
		if (bank.switches.validateSchema) {
			const problem = await schemaProblem(xml, 'H004/ebics_H004.xsd');
			if (problem) throw new EbicsRefusal('091010', 'technical', `Request not valid against the H004 schema: ${problem.slice(0, 200)}`);
		}
		if (text(child(staticHeader, H004_NS, 'HostID')) !== bank.hostId) throw new EbicsRefusal('091011', 'technical');
		let answer: EbicsAnswer;
		const transactionId = text(child(staticHeader, H004_NS, 'TransactionID'));
		if (transactionId) answer = bank.continueTransaction(doc, root, transactionId.toUpperCase(), phase ?? '', H004_NS);
		else {
			const subscriber = bank.subscriber(info.partnerId ?? '', info.userId ?? '');
			if (!subscriber) throw new EbicsRefusal('091003', 'technical');
			if (root.localName === 'ebicsUnsecuredRequest') answer = keyManagement(bank, subscriber, info.orderType ?? '', root);
			else if (root.localName === 'ebicsNoPubKeyDigestsRequest') {
				checkOrderAttribute(child(staticHeader, H004_NS, 'OrderDetails'), ['DZHNN']);
				bank.authenticate(doc, subscriber, staticHeader, H004_NS);
				answer = hpb(bank, subscriber);
			} else answer = await initialisation(bank, doc, subscriber, staticHeader, root);
		}
		bank.record({ ...info, technical: answerCodes(answer).technical ?? '000000', business: '000000' });
		return answer;
	} catch (error) {
		if (!(error instanceof EbicsRefusal)) throw error;
		const codes = { technical: error.level === 'technical' ? error.code : '000000', business: error.level === 'business' ? error.code : '000000', text: error.message };
		bank.record({ ...info, technical: codes.technical, business: codes.business });
		return keyManagementRoot ? bank.keyManagementResponse(codes, { ns: H004_NS }) : bank.response({ phase: phase ?? 'Initialisation', ...codes, ns: H004_NS });
	}
}
