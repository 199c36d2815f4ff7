/** EBICS 2.5 (H004) as the client speaks it (see dialect.ts). */
import type { EbicsDialect } from '../dialect';
import { readHpbOrderDataH004 } from './orderData';
import {
	checkOrderH004,
	downloadInitRequestH004,
	H004,
	H004_NS,
	hiaOrderDataH004,
	hpbRequestH004,
	iniOrderDataH004,
	S001_NS,
	unsecuredRequestH004,
	uploadInitRequestH004,
	type H004KeyForm,
} from './requests';

/** H004, sending the subscriber's keys in INI and HIA in the given form. */
export function h004Dialect(keyForm: H004KeyForm = 'certificate'): EbicsDialect {
	return {
		version: H004,
		namespace: H004_NS,
		signatureNamespace: S001_NS,
		keyHashForm: 'publicKey',
		iniRequest: (subscriber, keys) =>
			unsecuredRequestH004(
				subscriber,
				'INI',
				iniOrderDataH004(subscriber, keys.signature, keyForm),
			),
		hiaRequest: (subscriber, keys) =>
			unsecuredRequestH004(
				subscriber,
				'HIA',
				hiaOrderDataH004(subscriber, keys.authentication, keys.encryption, keyForm),
			),
		hpbRequest: (subscriber, authenticationKey) => hpbRequestH004(subscriber, authenticationKey),
		readHpb: readHpbOrderDataH004,
		downloadInitRequest: downloadInitRequestH004,
		uploadInitRequest: uploadInitRequestH004,
		checkOrder: checkOrderH004,
	};
}
