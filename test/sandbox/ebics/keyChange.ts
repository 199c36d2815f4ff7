/**
 * The sandbox bank's key changes of an activated subscriber (PUB: signature key; HCA:
 * authentication and encryption keys; HCS: all three), in EBICS 3.0 (H005) and 2.5 (H004). They
 * arrive as uploads authenticated and signed with the keys the bank knows, verified like any
 * upload; here the order data is read in the namespaces of its version, its keys checked as INI's
 * and HIA's are (H005: certificates; H004: RSAKeyValue, with a certificate holding the same key
 * when one comes), and the subscriber's keys replaced at once: from then on the old keys are
 * refused (061001 for X002, 091301 for A006).
 */
import { child, H004_NS, H005_NS, parseDocument, S001_NS, S002_NS } from '../../../nodes/shared/ebics';
import { EbicsRefusal, type RegisteredKey, type SandboxSubscriber } from './bank';

export const KEY_CHANGE_ORDERS = ['PUB', 'HCA', 'HCS'];

/** The bank's reading of a key info element (version, X.509, validity, length). */
export type CertificateReader = (info: Element | undefined, versionElement: string, ns: string, expected: string, lengthCode: string, versionCode: string) => RegisteredKey;

export function changeKeys(subscriber: SandboxSubscriber, orderType: string, data: Buffer, read: CertificateReader, protocol: 'H004' | 'H005' = 'H005'): void {
	const [ordersNs, signatureNs] = protocol === 'H004' ? [H004_NS, S001_NS] : [H005_NS, S002_NS];
	let root: Element;
	try {
		root = parseDocument(data, 'order data').documentElement;
	} catch {
		throw new EbicsRefusal('090004', 'business', 'The order data is not XML');
	}
	const expected = orderType === 'PUB' ? { ns: signatureNs, name: 'SignaturePubKeyOrderData' } : { ns: ordersNs, name: `${orderType}RequestOrderData` };
	if (root.namespaceURI !== expected.ns || root.localName !== expected.name) throw new EbicsRefusal('090004', 'business', `${orderType} order data must be a ${expected.name}`);
	const ns = expected.ns;
	const partnerId = child(root, ns, 'PartnerID')?.textContent;
	const userId = child(root, ns, 'UserID')?.textContent;
	if (partnerId !== subscriber.partnerId || userId !== subscriber.userId) throw new EbicsRefusal('091120', 'technical', 'The order data names another subscriber');
	const next = { ...subscriber.keys };
	if (orderType === 'PUB') next.signature = read(child(root, signatureNs, 'SignaturePubKeyInfo'), 'SignatureVersion', signatureNs, 'A006', '091204', '091201');
	else {
		next.authentication = read(child(root, ordersNs, 'AuthenticationPubKeyInfo'), 'AuthenticationVersion', ordersNs, 'X002', '091205', '091202');
		next.encryption = read(child(root, ordersNs, 'EncryptionPubKeyInfo'), 'EncryptionVersion', ordersNs, 'E002', '091206', '091203');
		if (orderType === 'HCS') next.signature = read(child(root, signatureNs, 'SignaturePubKeyInfo'), 'SignatureVersion', signatureNs, 'A006', '091204', '091201');
	}
	const spki = (key?: RegisteredKey): string => key?.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') ?? '';
	if (new Set([spki(next.signature), spki(next.authentication), spki(next.encryption)]).size < 3) throw new EbicsRefusal('091218', 'business');
	subscriber.keys = next;
}
