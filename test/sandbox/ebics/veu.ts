/**
 * The sandbox bank's distributed signature (VEU): an upload whose signer may not release it alone
 * (signature class A or B with an authorising signature, or any class with requestEDS) waits here
 * until enough further subscribers of the same partner sign it with HVE; it is executed (its
 * pain.002 and camt.054 appear) only then. HVU and HVZ list the waiting orders, HVD gives one
 * order's DataDigest, display file and signers, HVT its payments (a page of them, read from the
 * pain.001) or its complete file, HVS cancels. Every HVE and HVS signature is
 * verified (A006, over the order's DataDigest) by the bank's upload initialisation before it
 * reaches here; here the DataDigest must be the order's. EBICS 2.5 (H004) clients see the same
 * orders by their order type (download with H004's namespace; veuH004.ts takes their HVE and HVS); an order sent with BTU has no
 * EBICS 2.5 order type here and only EBICS 3.0 clients see it.
 */
import {
	child,
	el,
	elements,
	H004_NS,
	H005_NS,
	leaf,
	parseDocument,
	orderDataDigest,
	readOrderRef,
	readServiceFilters,
	text,
	type BtfService,
} from '../../../nodes/shared/ebics';
import { pain001Summary } from '../bankfiles';
import { EbicsRefusal, type SandboxSubscriber } from './bank';

export interface VeuSignature {
	partnerId: string;
	userId: string;
	name: string;
	at: string;
	level: SandboxSubscriber['authorisationLevel'];
}

export interface HeldOrder {
	orderId: string;
	partnerId: string;
	orderType: string;
	service: BtfService;
	fileName?: string;
	data: Buffer;
	dataDigest: Buffer;
	originator: SandboxSubscriber;
	receivedAt: string;
	required: number;
	signatures: VeuSignature[];
	state: 'waiting' | 'executed' | 'cancelled';
	/** Runs the order once it has its signatures. */
	execute: () => void;
}

export const VEU_DOWNLOADS = ['HVU', 'HVZ', 'HVD', 'HVT'];

/** The first descendant of `parent` with this local name (pain.001 of any version). */
function find(parent: Element | undefined, ...names: string[]): Element | undefined {
	let current = parent;
	for (const name of names) {
		if (!current) return undefined;
		const queue = elements(current);
		let found: Element | undefined;
		while (queue.length && !found) {
			const next = queue.shift()!;
			if (next.localName === name) found = next;
			else queue.push(...elements(next));
		}
		current = found;
	}
	return current;
}

function value(parent: Element | undefined, ...names: string[]): string | undefined {
	return find(parent, ...names)?.textContent?.trim() || undefined;
}

/** The IBAN's German bank code (BLZ), a bank code H004's accounts may carry without a BIC. */
function blz(iban: string | undefined): string | undefined {
	return iban && /^DE\d{2}\d{8}/.test(iban) ? iban.slice(4, 12) : undefined;
}

/**
 * HVT's OrderInfo of each payment of a pain.001 (its credit transfers, in file order). H005 names
 * the message (MsgName); H004 its format (OrderFormat) and needs a bank code in every account.
 */
function pain001OrderInfos(data: Buffer, msgName: string, h004 = false): string[] {
	let document: Document;
	try {
		document = parseDocument(data, 'The order');
	} catch {
		return [];
	}
	const infos: string[] = [];
	const account = (role: string, iban?: string, bic?: string, name?: string, currency?: string) =>
		el(
			'AccountInfo',
			{ Currency: currency },
			h004 && !iban ? leaf('NationalAccountNumber', 'UNKNOWN', { Role: role, format: 'other' }) : leaf('AccountNumber', iban ?? 'UNKNOWN', { Role: role, international: 'true' }),
			bic ? leaf('BankCode', bic, { Role: role, international: 'true' }) : h004 && (blz(iban) ? leaf('BankCode', blz(iban) ?? '', { Role: role, international: 'false' }) : leaf('NationalBankCode', 'UNKNOWN', { Role: role, format: 'other' })),
			name && leaf('AccountHolder', name.slice(0, 140), { Role: role }),
		);
	for (const payment of elements(document.documentElement).flatMap((e) => elements(e)).filter((e) => e.localName === 'PmtInf')) {
		const execution = find(payment, 'ReqdExctnDt');
		const date = (execution && (value(execution, 'Dt') ?? execution.textContent?.trim())) || undefined;
		const debtor = account('Originator', value(payment, 'DbtrAcct', 'IBAN'), value(payment, 'DbtrAgt', 'BIC') ?? value(payment, 'DbtrAgt', 'BICFI'), value(payment, 'Dbtr', 'Nm'), value(payment, 'DbtrAcct', 'Ccy'));
		for (const tx of elements(payment).filter((e) => e.localName === 'CdtTrfTxInf')) {
			const amount = find(tx, 'InstdAmt');
			const purpose = value(tx, 'RmtInf', 'Ustrd');
			const endToEnd = value(tx, 'PmtId', 'EndToEndId');
			infos.push(
				el(
					'OrderInfo',
					{},
					leaf(h004 ? 'OrderFormat' : 'MsgName', msgName),
					debtor,
					account('Recipient', value(tx, 'CdtrAcct', 'IBAN'), value(tx, 'CdtrAgt', 'BIC') ?? value(tx, 'CdtrAgt', 'BICFI'), value(tx, 'Cdtr', 'Nm')),
					date && leaf('ExecutionDate', date),
					leaf('Amount', amount?.textContent?.trim() ?? '0', { isCredit: 'false', Currency: amount?.getAttribute('Ccy') || undefined }),
					purpose && leaf('Description', purpose, { Type: 'Purpose' }),
					endToEnd && leaf('Description', `End-to-end ID ${endToEnd}`, { Type: 'Details' }),
				),
			);
		}
	}
	return infos;
}

/** The order type an EBICS 2.5 client sees for an order: its own (CCT, ...); none for a BTU order. */
export function h004OrderType(order: HeldOrder): string | undefined {
	return order.orderType === 'BTU' ? undefined : order.orderType;
}

function sameService(a: BtfService, b: BtfService): boolean {
	return a.serviceName === b.serviceName && a.msgName === b.msgName && (a.scope ?? '') === (b.scope ?? '');
}

/** What a signer reads before signing: the order in words (a pain.001: its payments). */
function displayFile(order: HeldOrder): string {
	const summary = pain001Summary(order.data);
	const lines = [
		`Order ${order.orderId} (${order.orderType} ${order.service.serviceName} ${order.service.msgName})`,
		`Submitted by ${order.originator.partnerId}/${order.originator.userId} (${order.originator.name}) on ${order.receivedAt.slice(0, 19).replace('T', ' ')}`,
		order.fileName ? `File: ${order.fileName}` : '',
		`Size: ${order.data.length} bytes`,
	];
	if (summary) {
		lines.push(`Message ${summary.messageId}: ${summary.transactions} payment(s)${summary.controlSum ? `, control sum ${summary.controlSum}` : ''}`);
		const xml = order.data.toString('utf8');
		for (const match of xml.matchAll(/<CdtTrfTxInf>([\s\S]*?)<\/CdtTrfTxInf>/g)) {
			const block = match[1];
			const amount = /<InstdAmt Ccy="([A-Z]{3})">([^<]+)</.exec(block);
			const name = /<Cdtr>\s*<Nm>([^<]+)</.exec(block)?.[1];
			const iban = /<CdtrAcct>[\s\S]*?<IBAN>([^<]+)</.exec(block)?.[1];
			lines.push(`  ${amount ? `${amount[2]} ${amount[1]}` : '?'} to ${name ?? '?'} ${iban ?? ''}`.trimEnd());
		}
	}
	return lines.filter(Boolean).join('\n') + '\n';
}

export class SandboxVeu {
	readonly orders: HeldOrder[] = [];

	constructor(private readonly now: () => Date) {}

	reset(): void {
		this.orders.length = 0;
	}

	/** Whether an upload waits for further signatures; if so it is held (not executed yet). */
	hold(upload: { subscriber: SandboxSubscriber; orderId: string; orderType: string; service?: BtfService; fileName?: string; data: Buffer; flag: string; receivedAt: string; execute: () => void }): boolean {
		const level = upload.subscriber.authorisationLevel;
		const needsMore = upload.flag === 'distributed' || (upload.flag === 'authorise' && (level === 'A' || level === 'B'));
		if (!needsMore || !upload.service) return false;
		this.orders.push({
			orderId: upload.orderId,
			partnerId: upload.subscriber.partnerId,
			orderType: upload.orderType,
			service: upload.service,
			fileName: upload.fileName,
			data: upload.data,
			dataDigest: orderDataDigest(upload.data),
			originator: upload.subscriber,
			receivedAt: upload.receivedAt,
			required: 2,
			signatures: [{ partnerId: upload.subscriber.partnerId, userId: upload.subscriber.userId, name: upload.subscriber.name, at: upload.receivedAt, level }],
			state: 'waiting',
			execute: upload.execute,
		});
		return true;
	}

	waiting(subscriber: SandboxSubscriber): HeldOrder[] {
		return this.orders.filter((o) => o.state === 'waiting' && o.partnerId === subscriber.partnerId);
	}

	/** The order an HVD, HVE or HVS names; 091114 when there is none waiting. */
	find(subscriber: SandboxSubscriber, params: Element | undefined): HeldOrder {
		const ref = readOrderRef(params);
		if (!ref) throw new EbicsRefusal('091113', 'technical', 'The order parameters must name PartnerID, Service (H005) or OrderType (H004) and OrderID');
		const order = this.orders.find((o) => o.orderId === ref.orderId && o.partnerId === ref.partnerId);
		if (!order || order.partnerId !== subscriber.partnerId) throw new EbicsRefusal('091114', 'business', `No order ${ref.orderId} of partner ${ref.partnerId} in the distributed signature`);
		if (ref.service && !sameService(order.service, ref.service)) throw new EbicsRefusal('091114', 'business', `Order ${ref.orderId} is not an order of service ${ref.service.serviceName} ${ref.service.msgName}`);
		if (ref.orderType && h004OrderType(order) !== ref.orderType) throw new EbicsRefusal('091114', 'business', `Order ${ref.orderId} is not an order of order type ${ref.orderType}`);
		if (order.state !== 'waiting') throw new EbicsRefusal('091114', 'business', `Order ${ref.orderId} was ${order.state} already`);
		return order;
	}

	private signersXml(order: HeldOrder): string[] {
		return order.signatures.map((s) => el('SignerInfo', {}, leaf('PartnerID', s.partnerId), leaf('UserID', s.userId), leaf('Name', s.name), leaf('Timestamp', s.at), el('Permission', { AuthorisationLevel: s.level })));
	}

	private serviceXml(service: BtfService): string {
		return el('Service', {}, leaf('ServiceName', service.serviceName), service.scope && leaf('Scope', service.scope), service.container && el('Container', { containerType: service.container }), leaf('MsgName', service.msgName, { version: service.msgVersion }));
	}

	/**
	 * HVU, HVZ, HVD and HVT order data, in H005 or (with `ns` H004's) in H004: the order named by
	 * its OrderType instead of a Service, OrderTypes instead of ServiceFilter, OrderFormat instead
	 * of MsgName, no AdditionalOrderInfo. `answer` marks order data written here (not the order's
	 * own file); undefined (090005) when no order waits.
	 */
	download(subscriber: SandboxSubscriber, orderType: string, details: Element | undefined, ns = H005_NS): { data: Buffer; fileIds: number[]; answer: boolean } | undefined {
		const h004 = ns === H004_NS;
		const params = child(details, ns, `${orderType}OrderParams`);
		if (!params) throw new EbicsRefusal('091113', 'technical', `${orderType} needs ${orderType}OrderParams`);
		const answer = (xml: string) => ({ data: Buffer.from('<?xml version="1.0" encoding="UTF-8"?>' + xml), fileIds: [], answer: true });
		if (orderType === 'HVD') {
			const order = this.find(subscriber, params);
			return answer(
				el(
					'HVDResponseOrderData',
					{ xmlns: ns },
					leaf('DataDigest', order.dataDigest.toString('base64'), { SignatureVersion: 'A006' }),
					leaf('DisplayFile', Buffer.from(displayFile(order)).toString('base64')),
					leaf('OrderDataAvailable', 'true'),
					leaf('OrderDataSize', order.data.length),
					leaf('OrderDetailsAvailable', 'true'),
					this.signersXml(order),
				),
			);
		}
		if (orderType === 'HVT') {
			const order = this.find(subscriber, params);
			const flags = child(params, ns, 'OrderFlags');
			if (!flags) throw new EbicsRefusal('091113', 'technical', 'HVT needs OrderFlags');
			if (flags.getAttribute('completeOrderData') === 'true') return { data: order.data, fileIds: [], answer: false };
			// H004's OrderFormat has up to 8 characters: the message (pain.001).
			const infos = pain001OrderInfos(order.data, h004 ? order.service.msgName.slice(0, 8) : order.service.msgName, h004);
			const limit = Number(flags.getAttribute('fetchLimit'));
			const offset = Number(flags.getAttribute('fetchOffset'));
			const page = infos.slice(offset, limit ? offset + limit : undefined);
			// The schema needs at least one OrderInfo: an empty page is no data.
			if (!page.length) return undefined;
			return answer(el('HVTResponseOrderData', { xmlns: ns }, leaf('NumOrderInfos', infos.length), page));
		}
		const filters = readServiceFilters(params);
		const types = (child(params, ns, 'OrderTypes')?.textContent ?? '').split(/\s+/).filter(Boolean);
		const orders = this.waiting(subscriber).filter((o) => (h004 ? !!h004OrderType(o) && (!types.length || types.includes(h004OrderType(o)!)) : !filters.length || filters.some((f) => sameService(o.service, f))));
		if (!orders.length) return undefined;
		return answer(
			el(
				`${orderType}ResponseOrderData`,
				{ xmlns: ns },
				orders.map((o) =>
					el(
						'OrderDetails',
						{},
						h004 ? leaf('OrderType', h004OrderType(o) ?? '') : this.serviceXml(o.service),
						leaf('OrderID', o.orderId),
						orderType === 'HVZ' && leaf('DataDigest', o.dataDigest.toString('base64'), { SignatureVersion: 'A006' }),
						orderType === 'HVZ' && leaf('OrderDataAvailable', 'true'),
						leaf('OrderDataSize', o.data.length),
						orderType === 'HVZ' && leaf('OrderDetailsAvailable', 'true'),
						el('SigningInfo', { readyToBeSigned: this.maySign(subscriber, o) ? 'true' : 'false', NumSigRequired: o.required, NumSigDone: o.signatures.length }),
						this.signersXml(o),
						el('OriginatorInfo', {}, leaf('PartnerID', o.originator.partnerId), leaf('UserID', o.originator.userId), leaf('Name', o.originator.name), leaf('Timestamp', o.receivedAt)),
						!h004 && o.fileName && leaf('AdditionalOrderInfo', o.fileName.slice(0, 255)),
					),
				),
			),
		);
	}

	private maySign(subscriber: SandboxSubscriber, order: HeldOrder): boolean {
		return subscriber.authorisationLevel !== 'T' && !order.signatures.some((s) => s.userId === subscriber.userId);
	}

	/** HVE: the signature (verified over `dataDigest` already) of `subscriber`, for the order its HVEOrderParams name. */
	sign(subscriber: SandboxSubscriber, params: Element | undefined, dataDigest: Buffer): { order: HeldOrder; executed: boolean } {
		const order = this.find(subscriber, params);
		if (!order.dataDigest.equals(dataDigest)) throw new EbicsRefusal('091301', 'business', `The signed DataDigest is not the digest of order ${order.orderId}`);
		if (subscriber.authorisationLevel === 'T') throw new EbicsRefusal('091007', 'technical', 'A transport signature (class T) cannot sign in the distributed signature');
		if (order.signatures.some((s) => s.userId === subscriber.userId)) throw new EbicsRefusal('091306', 'business');
		order.signatures.push({ partnerId: subscriber.partnerId, userId: subscriber.userId, name: subscriber.name, at: this.now().toISOString(), level: subscriber.authorisationLevel });
		const executed = order.signatures.length >= order.required && order.signatures.some((s) => s.level !== 'B');
		if (executed) {
			order.state = 'executed';
			order.execute();
		}
		return { order, executed };
	}

	/**
	 * HVS: cancels the order its HVSOrderParams name, signed over the order's DataDigest: in H005
	 * with the order data's CancelledDataDigest, in H004 (a signature only) without order data.
	 */
	cancel(subscriber: SandboxSubscriber, params: Element | undefined, signedDigest: Buffer, orderData: Document, ns: string = H005_NS): HeldOrder {
		const order = this.find(subscriber, params);
		const root = orderData.documentElement;
		if (root.namespaceURI !== ns || root.localName !== 'HVSRequestOrderData') throw new EbicsRefusal('090004', 'business', `HVS order data must be an HVSRequestOrderData in ${ns}`);
		const cancelled = Buffer.from(text(child(root, ns, 'CancelledDataDigest')) ?? '', 'base64');
		if (!cancelled.equals(order.dataDigest)) throw new EbicsRefusal('091301', 'business', `The cancelled DataDigest is not the digest of order ${order.orderId}`);
		if (!signedDigest.equals(order.dataDigest)) throw new EbicsRefusal('091301', 'business', `The signed DataDigest is not the digest of order ${order.orderId}`);
		if (subscriber.authorisationLevel === 'T') throw new EbicsRefusal('091007', 'technical', 'A transport signature (class T) cannot cancel');
		order.state = 'cancelled';
		return order;
	}
}
