/**
 * The order data of the EBICS 2.5 (H004) key changes: PUB (S001 SignaturePubKeyOrderData, as
 * INI's), HCA (HCARequestOrderData: authentication and encryption keys) and HCS
 * (HCSRequestOrderData: all three, the signature key as an S001 SignaturePubKeyInfo). Each new key
 * goes as INI and HIA send keys with the credential's key form: RSAKeyValue (modulus and
 * exponent), with its X.509 certificate before it when the form sends certificates. The order is
 * an upload (OZHNN, standard order parameters) signed with A006 by the current signature key.
 */
import { SIGNATURE_VERSION, type KeyChangeOrder } from '../constants';
import { keyPairOrderData, type EbicsSubscriber } from '../requests';
import { el, leaf } from '../xml';
import {
	H004_NS,
	iniOrderDataH004,
	keyXml,
	S001_NS,
	type H004KeyForm,
	type H004PublicKey,
} from './requests';

/** The order data of PUB, HCA or HCS in H004 carrying the new keys. */
export function keyChangeOrderDataH004(
	order: KeyChangeOrder,
	subscriber: Pick<EbicsSubscriber, 'partnerId' | 'userId'>,
	next: Record<'signature' | 'authentication' | 'encryption', H004PublicKey>,
	form: H004KeyForm = 'certificate',
): string {
	if (order === 'PUB') return iniOrderDataH004(subscriber as EbicsSubscriber, next.signature, form);
	// HCS: the signature key in the S001 namespace, between the encryption key and the owner.
	const signature =
		order === 'HCS'
			? el(
					'SignaturePubKeyInfo',
					{ xmlns: S001_NS },
					keyXml(next.signature, form),
					leaf('SignatureVersion', SIGNATURE_VERSION),
				)
			: '';
	return keyPairOrderData(
		`${order}RequestOrderData`,
		H004_NS,
		{
			authentication: keyXml(next.authentication, form),
			encryption: keyXml(next.encryption, form),
		},
		[signature, leaf('PartnerID', subscriber.partnerId), leaf('UserID', subscriber.userId)],
	);
}
