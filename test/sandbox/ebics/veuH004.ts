/**
 * The sandbox bank's distributed signature for EBICS 2.5 (H004) clients: the orders veu.ts holds,
 * named by their order type. HVU, HVZ, HVD and HVT are downloads (DZHNN) with H004 order
 * parameters; their answers are H004 order data (OrderType where H005 has a Service, OrderFormat
 * where H005 has MsgName), each checked against ebics_orders_H004.xsd before it is sent when the
 * bank validates schemas. HVE and HVS are signatures only (UZHNN, NumSegments 0): the A006
 * signature of the subscriber is verified over the DataDigest of the order the parameters name.
 */
import { child, el, H004_NS, leaf, verifyA006 } from '../../../nodes/shared/ebics';
import { EbicsRefusal, schemaProblem, type SandboxEbicsBank, type SandboxSubscriber } from './bank';
import { h004OrderType, pain001OrderInfos, type HeldOrder } from './veu';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** An answer's order data, refused by the bank itself (a sandbox defect) when not valid against the H004 schema. */
async function checked(bank: SandboxEbicsBank, xml: string): Promise<Buffer> {
	const document = DECLARATION + xml;
	if (bank.switches.validateSchema) {
		const problem = await schemaProblem(document, 'H004/ebics_orders_H004.xsd');
		if (problem) throw new Error(`The sandbox's H004 VEU answer is not valid against ebics_orders_H004.xsd: ${problem}`);
	}
	return Buffer.from(document);
}

function orderKind(order: HeldOrder): string[] {
	return [leaf('OrderType', h004OrderType(order) ?? '')];
}

/** HVU, HVZ, HVD or HVT of an H004 client; undefined (090005) when there is nothing to give. */
export async function veuDownloadH004(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, orderType: string, details: Element | undefined): Promise<{ data: Buffer; fileIds: number[] } | undefined> {
	const veu = bank.veu;
	const params = child(details, H004_NS, `${orderType}OrderParams`);
	if (!params) throw new EbicsRefusal('091113', 'technical', `${orderType} needs ${orderType}OrderParams`);
	if (orderType === 'HVD') {
		const order = veu.find(subscriber, params);
		const xml = el(
			'HVDResponseOrderData',
			{ xmlns: H004_NS },
			leaf('DataDigest', order.dataDigest.toString('base64'), { SignatureVersion: 'A006' }),
			leaf('DisplayFile', Buffer.from(veu.displayFile(order)).toString('base64')),
			leaf('OrderDataAvailable', 'true'),
			leaf('OrderDataSize', order.data.length),
			leaf('OrderDetailsAvailable', 'true'),
			veu.signersXml(order),
		);
		return { data: await checked(bank, xml), fileIds: [] };
	}
	if (orderType === 'HVT') {
		const order = veu.find(subscriber, params);
		const flags = child(params, H004_NS, 'OrderFlags');
		if (!flags) throw new EbicsRefusal('091113', 'technical', 'HVT needs OrderFlags');
		if (flags.getAttribute('completeOrderData') === 'true') return { data: order.data, fileIds: [] };
		// OrderFormat: up to 8 characters, the message (pain.001).
		const infos = pain001OrderInfos(order.data, order.service.msgName.slice(0, 8), true);
		const limit = Number(flags.getAttribute('fetchLimit'));
		const offset = Number(flags.getAttribute('fetchOffset'));
		const page = infos.slice(offset, limit ? offset + limit : undefined);
		// The schema needs at least one OrderInfo: an empty page is no data.
		if (!page.length) return undefined;
		return { data: await checked(bank, el('HVTResponseOrderData', { xmlns: H004_NS }, leaf('NumOrderInfos', infos.length), page)), fileIds: [] };
	}
	const filter = (child(params, H004_NS, 'OrderTypes')?.textContent ?? '').split(/\s+/).filter(Boolean);
	const orders = veu.waiting(subscriber).filter((o) => h004OrderType(o) && (!filter.length || filter.includes(h004OrderType(o)!)));
	if (!orders.length) return undefined;
	const withDigests = orderType === 'HVZ';
	const xml = el(
		`${orderType}ResponseOrderData`,
		{ xmlns: H004_NS },
		orders.map((o) =>
			el(
				'OrderDetails',
				{},
				orderKind(o),
				leaf('OrderID', o.orderId),
				withDigests && leaf('DataDigest', o.dataDigest.toString('base64'), { SignatureVersion: 'A006' }),
				withDigests && leaf('OrderDataAvailable', 'true'),
				leaf('OrderDataSize', o.data.length),
				withDigests && leaf('OrderDetailsAvailable', 'true'),
				el('SigningInfo', { readyToBeSigned: veu.maySign(subscriber, o) ? 'true' : 'false', NumSigRequired: o.required, NumSigDone: o.signatures.length }),
				veu.signersXml(o),
				el('OriginatorInfo', {}, leaf('PartnerID', o.originator.partnerId), leaf('UserID', o.originator.userId), leaf('Name', o.originator.name), leaf('Timestamp', o.receivedAt)),
			),
		),
	);
	return { data: await checked(bank, xml), fileIds: [] };
}

/**
 * HVE or HVS of an H004 client (UZHNN, no order data): the subscriber's A006 signature must be
 * over the DataDigest of the order its parameters name. HVE adds the signature (the order is
 * executed once it has enough), HVS cancels the order.
 */
export function veuSignatureH004(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, orderType: 'HVE' | 'HVS', details: Element | undefined, numSegments: string | undefined, signature: Buffer): void {
	if (numSegments !== '0') throw new EbicsRefusal('091113', 'technical', `${orderType} is a signature only: NumSegments must be 0`);
	const params = child(details, H004_NS, `${orderType}OrderParams`);
	if (!params) throw new EbicsRefusal('091113', 'technical', `${orderType} needs ${orderType}OrderParams`);
	const order = bank.veu.find(subscriber, params);
	const key = subscriber.keys.signature?.publicKey;
	if (!key || !verifyA006(order.dataDigest, signature, key)) throw new EbicsRefusal('091301', 'business', `The signature is not a signature of the DataDigest of order ${order.orderId}`);
	if (orderType === 'HVE') {
		const { executed } = bank.veu.sign(subscriber, params, order.dataDigest);
		bank.logOrder(subscriber, { orderId: order.orderId, orderType: 'HVE', service: order.service, accepted: true, text: executed ? `signature of ${subscriber.userId} verified: the order has its signatures and is executed` : `signature of ${subscriber.userId} verified, waiting for further signers` });
		return;
	}
	bank.veu.cancel(subscriber, params, order.dataDigest, 'h004');
	bank.logOrder(order.originator, { orderId: order.orderId, orderType: order.orderType, service: order.service, accepted: false, reasonCode: 'DS02', text: `cancelled in the distributed signature by ${subscriber.userId} (HVS)` });
}
