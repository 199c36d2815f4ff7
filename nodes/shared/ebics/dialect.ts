/**
 * What differs between the protocol versions the client speaks, in one object per version: the
 * requests of INI, HIA, HPB and the initialisations, the reading of HPB's keys, the namespaces,
 * and the form of the key hashes (certificate hash in EBICS 3.0, hash of exponent and modulus in
 * EBICS 2.5). H005 is here; H004 in h004/dialect.ts. Transfers, receipts, X002, E002 and the
 * segments are the same in both (requests.ts builds them with the version's root attributes).
 */
import type { KeyObject } from 'node:crypto';

import { H005, H005_NS, S002_NS } from './constants';
import type { BankKeyDigestForm } from './digests';
import type { EbicsBankKeys, LoadedSubscriberKeys } from './keys';
import { readHpbOrderData } from './orderData';
import {
	checkOrderParams,
	downloadInitRequest,
	hiaOrderData,
	hpbRequest,
	iniOrderData,
	unsecuredRequest,
	uploadInitRequest,
	type EbicsSubscriber,
	type EbicsVersion,
	type OrderParams,
} from './requests';

export interface EbicsDialect {
	version: EbicsVersion;
	/** The namespace of requests and responses. */
	namespace: string;
	/** The namespace of UserSignatureData (S002, S001). */
	signatureNamespace: string;
	/** The hash of a key that letters print and requests carry by default. */
	keyHashForm: BankKeyDigestForm;
	iniRequest(subscriber: EbicsSubscriber, keys: LoadedSubscriberKeys): string;
	hiaRequest(subscriber: EbicsSubscriber, keys: LoadedSubscriberKeys): string;
	hpbRequest(subscriber: EbicsSubscriber, authenticationKey: KeyObject): string;
	/** The bank's keys from HPB's order data. */
	readHpb(data: Buffer): { hostId?: string; keys: EbicsBankKeys };
	downloadInitRequest: typeof downloadInitRequest;
	uploadInitRequest: typeof uploadInitRequest;
	/**
	 * Checks an order's type and parameters as its initialisation writes them, signing and
	 * sending nothing (EbicsValidationError names the field and the rule).
	 */
	checkOrder(orderType: string, params: OrderParams, upload: boolean): void;
}

/** EBICS 3.0 (H005). */
export const H005_DIALECT: EbicsDialect = {
	version: H005,
	namespace: H005_NS,
	signatureNamespace: S002_NS,
	keyHashForm: 'certificate',
	iniRequest: (subscriber, keys) =>
		unsecuredRequest(subscriber, 'INI', iniOrderData(subscriber, keys.signature.certificateDer)),
	hiaRequest: (subscriber, keys) =>
		unsecuredRequest(
			subscriber,
			'HIA',
			hiaOrderData(subscriber, keys.authentication.certificateDer, keys.encryption.certificateDer),
		),
	hpbRequest: (subscriber, authenticationKey) => hpbRequest(subscriber, authenticationKey),
	readHpb: (data) => {
		const read = readHpbOrderData(data);
		return {
			hostId: read.hostId,
			keys: {
				authenticationCertificatePem: read.authenticationCertificatePem,
				encryptionCertificatePem: read.encryptionCertificatePem,
			},
		};
	},
	downloadInitRequest,
	uploadInitRequest,
	checkOrder: (_orderType, params) => checkOrderParams(params),
};
