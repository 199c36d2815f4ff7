/**
 * Key changes of a subscriber the bank has activated: new keys sent as an upload authenticated
 * (X002) and signed (A006) with the keys the bank knows now. EBICS 3.0 (H005) here; EBICS 2.5
 * (H004) order data in h004/keyChange.ts, chosen by the client's version.
 * - PUB: a new signature key (order data SignaturePubKeyOrderData, S002, as INI's);
 * - HCA: new authentication and encryption keys (HCARequestOrderData);
 * - HCS: all three (HCSRequestOrderData).
 * Once the bank has accepted the order it knows only the new keys: the caller keeps them at once
 * (the credential's key change records them as pending before sending, see
 * nodes/shared/ebicsKeyChange.ts).
 */
import { H005_NS, S002_NS, SIGNATURE_VERSION, type KeyChangeOrder } from './constants';
import { type EbicsClient, type KeyManagementResult } from './client';
import { loadSubscriberKeys, type EbicsSubscriberKeys } from './keys';
import { keyChangeOrderDataH004, type H004KeyForm } from './h004';
import { iniOrderData, keyPairOrderData, x509Data, type EbicsSubscriber } from './requests';
import { el, leaf } from './xml';

/** Which keys each order replaces. */
export const KEY_CHANGE_KEYS: Record<KeyChangeOrder, Array<keyof EbicsSubscriberKeys>> = {
	PUB: ['signature'],
	HCA: ['authentication', 'encryption'],
	HCS: ['signature', 'authentication', 'encryption'],
};

/** The order data of PUB, HCA or HCS in H005 carrying the new keys' certificates. */
export function keyChangeOrderData(
	order: KeyChangeOrder,
	subscriber: Pick<EbicsSubscriber, 'partnerId' | 'userId'>,
	next: EbicsSubscriberKeys,
): string {
	const keys = loadSubscriberKeys(next);
	if (order === 'PUB')
		return iniOrderData(subscriber as EbicsSubscriber, keys.signature.certificateDer);
	const signature =
		order === 'HCS'
			? el(
					'esig:SignaturePubKeyInfo',
					{ 'xmlns:esig': S002_NS },
					x509Data(keys.signature.certificateDer),
					leaf('esig:SignatureVersion', SIGNATURE_VERSION),
				)
			: '';
	return keyPairOrderData(
		`${order}RequestOrderData`,
		H005_NS,
		{
			authentication: x509Data(keys.authentication.certificateDer),
			encryption: x509Data(keys.encryption.certificateDer),
		},
		[signature, leaf('PartnerID', subscriber.partnerId), leaf('UserID', subscriber.userId)],
	);
}

/**
 * The keys after the change: the new ones for what the order replaces, the current ones for the
 * rest.
 */
export function keysAfterChange(
	order: KeyChangeOrder,
	current: EbicsSubscriberKeys,
	next: EbicsSubscriberKeys,
): EbicsSubscriberKeys {
	const out = { ...current };
	for (const key of KEY_CHANGE_KEYS[order]) out[key] = next[key];
	return out;
}

/**
 * Sends PUB, HCA or HCS with `client` (the keys the bank knows now) carrying the new keys of
 * `after` (keysAfterChange), in the client's protocol version; an H004 client sends the keys in
 * `h004KeyForm`, the form its INI and HIA used. Resolves when the bank has accepted them.
 */
export async function sendKeyChange(
	client: EbicsClient,
	order: KeyChangeOrder,
	after: EbicsSubscriberKeys,
	h004KeyForm: H004KeyForm = 'certificate',
): Promise<KeyManagementResult> {
	const data =
		client.version === 'H004'
			? keyChangeOrderDataH004(order, client.subscriber, loadSubscriberKeys(after), h004KeyForm)
			: keyChangeOrderData(order, client.subscriber, after);
	const result = await client.upload(order, { kind: 'standard' }, Buffer.from(data, 'utf8'));
	return { orderId: result.orderId, codes: result.codes };
}
