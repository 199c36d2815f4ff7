/**
 * The sandbox bank's distributed signature for EBICS 2.5 (H004) clients: the orders veu.ts holds,
 * named by their order type. HVU, HVZ, HVD and HVT are downloads (DZHNN) with H004 order
 * parameters; their answers (veu.ts writes them: OrderType where H005 has a Service, OrderFormat
 * where H005 has MsgName) are each checked against ebics_orders_H004.xsd before they are sent
 * when the bank validates schemas. HVE is a signature only (UZHNN, NumSegments 0); HVS (OZHNN) also
 * uploads its HVSRequestOrderData, and the order is cancelled once that is in (bank.ts). Either way
 * the A006 signature of the subscriber is verified over the DataDigest of the order the parameters
 * name, at the initialisation.
 */
import { child, H004_NS, verifyA006 } from '../../../nodes/shared/ebics';
import { EbicsRefusal, schemaProblem, type SandboxEbicsBank, type SandboxSubscriber } from './bank';

/** HVU, HVZ, HVD or HVT of an H004 client (veu.ts writes them); undefined (090005) when there is nothing to give. */
export async function veuDownloadH004(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, orderType: string, details: Element | undefined): Promise<{ data: Buffer; fileIds: number[] } | undefined> {
	const found = bank.veu.download(subscriber, orderType, details, H004_NS);
	if (found?.answer && bank.switches.validateSchema) {
		const problem = await schemaProblem(found.data.toString('utf8'), 'H004/ebics_orders_H004.xsd');
		if (problem) throw new Error(`The sandbox's H004 ${orderType} answer is not valid against ebics_orders_H004.xsd: ${problem}`);
	}
	return found;
}

/**
 * The A006 signature of an H004 HVE or HVS, verified over the DataDigest of the order its
 * parameters name; the order's DataDigest.
 */
function signedOrder(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, orderType: 'HVE' | 'HVS', details: Element | undefined, signature: Buffer): { params: Element; order: ReturnType<SandboxEbicsBank['veu']['find']> } {
	const params = child(details, H004_NS, `${orderType}OrderParams`);
	if (!params) throw new EbicsRefusal('091113', 'technical', `${orderType} needs ${orderType}OrderParams`);
	const order = bank.veu.find(subscriber, params);
	const key = subscriber.keys.signature?.publicKey;
	if (!key || !verifyA006(order.dataDigest, signature, key)) throw new EbicsRefusal('091301', 'business', `The signature is not a signature of the DataDigest of order ${order.orderId}`);
	return { params, order };
}

/** HVE of an H004 client (UZHNN, no order data): the signature is added; the order is executed once it has enough. */
export function veuSignH004(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, details: Element | undefined, numSegments: string | undefined, signature: Buffer): void {
	if (numSegments !== '0') throw new EbicsRefusal('091113', 'technical', 'HVE is a signature only: NumSegments must be 0');
	const { params, order } = signedOrder(bank, subscriber, 'HVE', details, signature);
	const { executed } = bank.veu.sign(subscriber, params, order.dataDigest);
	bank.logOrder(subscriber, { orderId: order.orderId, orderType: 'HVE', service: order.service, accepted: true, text: executed ? `signature of ${subscriber.userId} verified: the order has its signatures and is executed` : `signature of ${subscriber.userId} verified, waiting for further signers` });
}

/** HVS of an H004 client (OZHNN): the signature checked at once; the digest its order data must name. */
export function veuCancelH004(bank: SandboxEbicsBank, subscriber: SandboxSubscriber, details: Element | undefined, signature: Buffer): Buffer {
	return signedOrder(bank, subscriber, 'HVS', details, signature).order.dataDigest;
}
