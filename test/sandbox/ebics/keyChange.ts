/**
 * The sandbox bank's key changes of an activated subscriber (PUB: signature key; HCA:
 * authentication and encryption keys; HCS: all three). They arrive as uploads authenticated and
 * signed with the keys the bank knows, verified like any upload; here the order data is read, its
 * certificates checked as INI's and HIA's are, and the subscriber's keys replaced at once: from
 * then on the old keys are refused (061001 for X002, 091301 for A006).
 */
import { child, H005_NS, parseDocument, S002_NS } from '../../../nodes/shared/ebics';
import { EbicsRefusal, type RegisteredKey, type SandboxSubscriber } from './bank';

export const KEY_CHANGE_ORDERS = ['PUB', 'HCA', 'HCS'];

/** The bank's reading of a key info element (version, X.509, validity, length). */
export type CertificateReader = (info: Element | undefined, versionElement: string, ns: string, expected: string, lengthCode: string, versionCode: string) => RegisteredKey;

export function changeKeys(subscriber: SandboxSubscriber, orderType: string, data: Buffer, read: CertificateReader): void {
	let root: Element;
	try {
		root = parseDocument(data, 'order data').documentElement;
	} catch {
		throw new EbicsRefusal('090004', 'business', 'The order data is not XML');
	}
	const expected = orderType === 'PUB' ? { ns: S002_NS, name: 'SignaturePubKeyOrderData' } : { ns: H005_NS, name: `${orderType}RequestOrderData` };
	if (root.namespaceURI !== expected.ns || root.localName !== expected.name) throw new EbicsRefusal('090004', 'business', `${orderType} order data must be a ${expected.name}`);
	const ns = expected.ns;
	const partnerId = child(root, ns, 'PartnerID')?.textContent;
	const userId = child(root, ns, 'UserID')?.textContent;
	if (partnerId !== subscriber.partnerId || userId !== subscriber.userId) throw new EbicsRefusal('091120', 'technical', 'The order data names another subscriber');
	const next = { ...subscriber.keys };
	if (orderType === 'PUB') next.signature = read(child(root, S002_NS, 'SignaturePubKeyInfo'), 'SignatureVersion', S002_NS, 'A006', '091204', '091201');
	else {
		next.authentication = read(child(root, H005_NS, 'AuthenticationPubKeyInfo'), 'AuthenticationVersion', H005_NS, 'X002', '091205', '091202');
		next.encryption = read(child(root, H005_NS, 'EncryptionPubKeyInfo'), 'EncryptionVersion', H005_NS, 'E002', '091206', '091203');
		if (orderType === 'HCS') next.signature = read(child(root, S002_NS, 'SignaturePubKeyInfo'), 'SignatureVersion', S002_NS, 'A006', '091204', '091201');
	}
	const spki = (key?: RegisteredKey): string => key?.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') ?? '';
	if (new Set([spki(next.signature), spki(next.authentication), spki(next.encryption)]).size < 3) throw new EbicsRefusal('091218', 'business');
	subscriber.keys = next;
}
