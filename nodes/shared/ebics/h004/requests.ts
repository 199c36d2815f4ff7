/**
 * Builders of the EBICS 2.5 (H004) requests that differ from H005: INI and HIA (keys as
 * RSAKeyValue, with or without their X.509 certificates), HPB, and the initialisations of
 * downloads and uploads (OrderDetails with OrderType, OrderAttribute and order parameters instead
 * of BTF services; no DataDigest in an upload). Transfers and receipts are built by requests.ts
 * with version H004: their elements are the same in both versions. Every request validates
 * against the official H004 schemas (test/unit/ebicsH004.test.ts).
 *
 * Order attributes (H004 OrderAttributeType): DZNNN for INI and HIA (unsigned, not encrypted),
 * DZHNN for HPB and downloads (no ES, encrypted), OZHNN for an upload with an ES that authorises
 * it, DZHNN for an upload with a transport signature only.
 */
import type { KeyObject } from 'node:crypto';

import { EbicsValidationError } from '../errors';
import {
	checkDateRange,
	checkSubscriber,
	dateRangeXml,
	ebicsRequest,
	hpbRequest,
	initialisationHeaderXml,
	keyPairOrderData,
	ORDER_TYPE_PATTERN,
	ORDER_TYPE_RULE,
	signatureKeyOrderData,
	unsecuredRequest,
	uploadEncryptionXml,
	x509Data,
	type BankKeyDigests,
	type EbicsSubscriber,
	type OrderParams,
	type RequestTime,
	type UploadInitData,
} from '../requests';
import { el, empty, leaf } from '../xml';

export const H004 = 'H004';
export const H004_NS = 'urn:org:ebics:H004';
/** The signature namespace of EBICS 2.5 (ebics_signature.xsd): INI order data, UserSignatureData. */
export const S001_NS = 'http://www.ebics.org/S001';

/**
 * How INI and HIA carry the subscriber's keys: 'certificate' the X.509 certificate and the bare
 * key (X509Data and PubKeyValue, what banks that check certificates need), 'key' the bare key
 * only (PubKeyValue: RSAKeyValue with modulus and exponent), for banks that take only that.
 */
export type H004KeyForm = 'certificate' | 'key';

/** A subscriber key as H004 order data carries it: the certificate (when sent) and the key. */
export interface H004PublicKey {
	publicKey: KeyObject;
	certificateDer?: Buffer;
}

/** ds:RSAKeyValue of a public key: modulus and exponent, base64 of their big-endian bytes. */
export function rsaKeyValue(publicKey: KeyObject): string {
	const jwk = publicKey.export({ format: 'jwk' });
	if (!jwk.n || !jwk.e)
		throw new EbicsValidationError('publicKey', 'The key is not an RSA public key');
	const base64 = (value: string): string => Buffer.from(value, 'base64url').toString('base64');
	return el(
		'ds:RSAKeyValue',
		{},
		leaf('ds:Modulus', base64(jwk.n)),
		leaf('ds:Exponent', base64(jwk.e)),
	);
}

/** X509Data (when the form sends certificates) then PubKeyValue. */
export function keyXml(key: H004PublicKey, form: H004KeyForm): string {
	return [
		form === 'certificate' && key.certificateDer ? x509Data(key.certificateDer) : '',
		el('PubKeyValue', {}, rsaKeyValue(key.publicKey)),
	].join('');
}

/** The order data of INI in H004: the signature key (S001 SignaturePubKeyOrderData). */
export function iniOrderDataH004(
	subscriber: EbicsSubscriber,
	signature: H004PublicKey,
	form: H004KeyForm = 'certificate',
): string {
	return signatureKeyOrderData(subscriber, keyXml(signature, form), S001_NS);
}

/** The order data of HIA in H004: the authentication and encryption keys. */
export function hiaOrderDataH004(
	subscriber: EbicsSubscriber,
	authentication: H004PublicKey,
	encryption: H004PublicKey,
	form: H004KeyForm = 'certificate',
): string {
	return keyPairOrderData(
		'HIARequestOrderData',
		H004_NS,
		{ authentication: keyXml(authentication, form), encryption: keyXml(encryption, form) },
		[leaf('PartnerID', subscriber.partnerId), leaf('UserID', subscriber.userId)],
	);
}

function orderDetails(orderType: string, orderAttribute: string, params?: string): string {
	return el(
		'OrderDetails',
		{},
		leaf('OrderType', orderType),
		leaf('OrderAttribute', orderAttribute),
		params,
	);
}

/** INI or HIA in H004: unsigned, the order data compressed and base64. */
export function unsecuredRequestH004(
	subscriber: EbicsSubscriber,
	orderType: 'INI' | 'HIA',
	orderDataXml: string,
): string {
	return unsecuredRequest(subscriber, orderType, orderDataXml, H004);
}

/** HPB in H004: signed with X002, no bank key digests yet. */
export function hpbRequestH004(
	subscriber: EbicsSubscriber,
	authenticationKey: KeyObject,
	time: RequestTime = {},
): string {
	return hpbRequest(subscriber, authenticationKey, time, H004);
}

/** A file format as banks name them (pain.001.001.03.sct, camt.053.001.02, dtazv, ...). */
const FILE_FORMAT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;

/** Checks an H004 order type; BTD and BTU belong to EBICS 3.0. */
export function checkOrderTypeH004(orderType: string): string {
	if (orderType === 'BTD' || orderType === 'BTU')
		throw new EbicsValidationError(
			'orderType',
			`${orderType} is an EBICS 3.0 order type: an EBICS 2.5 (H004) bank takes the order type of the file (e.g. C53, CCT, FDL, FUL)`,
		);
	if (!ORDER_TYPE_PATTERN.test(orderType ?? ''))
		throw new EbicsValidationError(
			'orderType',
			`Order type "${orderType ?? ''}" is not valid: ${ORDER_TYPE_RULE} (e.g. C53, STA, CCT)`,
		);
	return orderType;
}

/** Checks FDL/FUL parameters: the file format and the country code. */
export function checkFileFormat(fileFormat: string, countryCode?: string): void {
	if (!FILE_FORMAT.test((fileFormat ?? '').trim()))
		throw new EbicsValidationError(
			'fileFormat',
			`File format "${fileFormat ?? ''}" is not valid: the format name the bank gives (e.g. pain.001.001.03.sct or camt.053.001.02): letters, digits, ".", "_" and "-", up to 80 characters`,
		);
	if (countryCode !== undefined && countryCode !== '' && !/^[A-Z]{2}$/.test(countryCode))
		throw new EbicsValidationError(
			'countryCode',
			`Country code "${countryCode}" is not valid: two upper-case letters (ISO 3166, e.g. FR)`,
		);
}

/**
 * Checks an H004 order's type and parameters as its initialisation writes them, signing and
 * sending nothing: EbicsValidationError names the field and the rule.
 */
export function checkOrderH004(orderType: string, params: OrderParams, upload: boolean): void {
	orderParamsH004(checkOrderTypeH004(orderType), params, upload);
}

function orderParamsH004(orderType: string, params: OrderParams, upload: boolean): string {
	switch (params.kind) {
		case 'file': {
			const expected = upload ? 'FUL' : 'FDL';
			if (orderType !== expected)
				throw new EbicsValidationError(
					'orderType',
					`A file format goes with order type ${expected}, not ${orderType}`,
				);
			checkFileFormat(params.fileFormat, params.countryCode);
			return el(
				`${expected}OrderParams`,
				{},
				upload ? undefined : dateRangeXml(checkDateRange(params.dateRange)),
				leaf('FileFormat', params.fileFormat.trim(), {
					CountryCode: params.countryCode || undefined,
				}),
			);
		}
		case 'standard':
			if (orderType === 'FDL' || orderType === 'FUL')
				throw new EbicsValidationError(
					'fileFormat',
					`${orderType} needs the file format the bank names (e.g. pain.001.001.03.sct)`,
				);
			return el(
				'StandardOrderParams',
				{},
				upload ? undefined : dateRangeXml(checkDateRange(params.dateRange)),
			);
		case 'element':
			// Order parameters written whole, in the H004 namespace (HVUOrderParams, HVEOrderParams, ...).
			return params.xml;
		default:
			throw new EbicsValidationError(
				'orderType',
				'BTF services (BTD, BTU) belong to EBICS 3.0: an EBICS 2.5 (H004) bank takes the order type of the file (e.g. C53, CCT, FDL, FUL)',
			);
	}
}

/** Initialisation of an H004 download (C53, STA, FDL, HAC, PTK, HPD, ...). */
export function downloadInitRequestH004(
	subscriber: EbicsSubscriber,
	orderType: string,
	params: OrderParams,
	digests: BankKeyDigests,
	authenticationKey: KeyObject,
	time: RequestTime = {},
): string {
	const s = checkSubscriber(subscriber);
	const type = checkOrderTypeH004(orderType);
	return ebicsRequest(
		initialisationHeaderXml(
			s,
			orderDetails(type, 'DZHNN', orderParamsH004(type, params, false)),
			digests,
			time,
		),
		empty('body'),
		authenticationKey,
		H004,
	);
}

/**
 * Initialisation of an H004 upload (CCT, CDD, CDB, FUL, ...): OZHNN when the ES authorises the
 * order, DZHNN with a transport signature (signatureFlag 'transport').
 */
export function uploadInitRequestH004(
	subscriber: EbicsSubscriber,
	orderType: string,
	params: OrderParams,
	digests: BankKeyDigests,
	data: UploadInitData,
	authenticationKey: KeyObject,
	time: RequestTime = {},
): string {
	const type = checkOrderTypeH004(orderType);
	const signatureFlag = 'signatureFlag' in params ? params.signatureFlag : undefined;
	return uploadInit(
		subscriber,
		orderDetails(
			type,
			signatureFlag === 'transport' ? 'DZHNN' : 'OZHNN',
			orderParamsH004(type, params, true),
		),
		digests,
		data,
		authenticationKey,
		time,
	);
}

/**
 * Initialisation of an H004 order of the distributed signature, its order parameters written
 * whole and the subscriber's signature in SignatureData: HVE is the signature only (UZHNN,
 * NumSegments 0); HVS also carries its order data, the HVSRequestOrderData (OZHNN, its segments
 * follow in the transfer phase).
 */
export function veuInitRequestH004(
	subscriber: EbicsSubscriber,
	orderType: string,
	paramsXml: string,
	digests: BankKeyDigests,
	data: UploadInitData,
	authenticationKey: KeyObject,
	time: RequestTime = {},
): string {
	const attribute = data.numSegments > 0 ? 'OZHNN' : 'UZHNN';
	return uploadInit(
		subscriber,
		orderDetails(checkOrderTypeH004(orderType), attribute, paramsXml),
		digests,
		data,
		authenticationKey,
		time,
	);
}

function uploadInit(
	subscriber: EbicsSubscriber,
	details: string,
	digests: BankKeyDigests,
	data: UploadInitData,
	authenticationKey: KeyObject,
	time: RequestTime,
): string {
	return ebicsRequest(
		initialisationHeaderXml(checkSubscriber(subscriber), details, digests, time, data.numSegments),
		el('body', {}, el('DataTransfer', {}, uploadEncryptionXml(digests, data))),
		authenticationKey,
		H004,
	);
}
