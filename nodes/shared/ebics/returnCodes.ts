/**
 * The return codes of EBICS (Annex 1 of the EBICS 3.0 specification, "Return codes"): technical
 * codes arrive in header/mutable/ReturnCode, business codes in body/ReturnCode. The first two
 * digits give the kind: 00 success, 01 note, 03 warning, 06 and 09 errors. The names are the
 * spec's (H005 wording; H004 names differ for 090003 and 091005, noted below); the meanings and
 * actions are written for the people who run the workflows.
 */

export type ReturnCodeLevel = 'technical' | 'business';
export type ReturnCodeKind = 'success' | 'note' | 'warning' | 'error';

export interface ReturnCodeInfo {
	code: string;
	/** The symbolic name in the spec, e.g. EBICS_AUTHENTICATION_FAILED. */
	name: string;
	level: ReturnCodeLevel;
	/** What the code means. */
	meaning: string;
	/** What the user should do. */
	action: string;
}

type Row = [code: string, name: string, meaning: string, action: string];

const TECHNICAL: Row[] = [
	['000000', 'EBICS_OK', 'The request was processed without technical errors.', 'Nothing.'],
	[
		'011000',
		'EBICS_DOWNLOAD_POSTPROCESS_DONE',
		'The positive receipt of a download was received and processed: the bank marks the data as delivered.',
		'Nothing.',
	],
	[
		'011001',
		'EBICS_DOWNLOAD_POSTPROCESS_SKIPPED',
		'The negative receipt of a download was received: the bank keeps the data and delivers it again.',
		'Nothing; the next download brings the same data again.',
	],
	[
		'011101',
		'EBICS_TX_SEGMENT_NUMBER_UNDERRUN',
		'The bank expected further segments of the transaction.',
		'Run the transfer again; if it repeats, report it to the bank.',
	],
	[
		'031001',
		'EBICS_ORDER_PARAMS_IGNORED',
		'The bank ignored order parameters it does not know.',
		'Check the service parameters (BTF) against what the bank documents.',
	],
	[
		'061001',
		'EBICS_AUTHENTICATION_FAILED',
		"The bank could not verify the request's authentication signature (X002).",
		'Check that the authentication key in the credential is the one sent with HIA and that the bank has activated it.',
	],
	[
		'061002',
		'EBICS_INVALID_REQUEST',
		'The request does not conform to EBICS.',
		'Report it to the bank with the time of the request.',
	],
	[
		'061099',
		'EBICS_INTERNAL_ERROR',
		'An internal error occurred at the bank.',
		'Try again later; if it persists, contact the bank.',
	],
	[
		'061101',
		'EBICS_TX_RECOVERY_SYNC',
		'The bank asks to resume the transaction from the segment it names (recovery).',
		'Run the transfer again from the start.',
	],
	[
		'091002',
		'EBICS_INVALID_USER_OR_USER_STATE',
		'The subscriber is unknown or not in a state that allows this request (for example not yet activated, or suspended).',
		'The bank has not activated the subscriber yet: send the signed initialisation letters and wait for the bank; if it was active before, ask the bank whether it was suspended.',
	],
	[
		'091003',
		'EBICS_USER_UNKNOWN',
		'The bank does not know the user ID.',
		'Check the Partner ID and User ID against the bank contract.',
	],
	[
		'091004',
		'EBICS_INVALID_USER_STATE',
		'The subscriber is known but in a state that does not allow this request.',
		'Ask the bank for the subscriber state (for example keys received, not activated, suspended).',
	],
	[
		'091005',
		'EBICS_INVALID_ORDER_IDENTIFIER',
		'The order type or the BTF service is not allowed (H004: EBICS_INVALID_ORDER_TYPE).',
		'Check the service parameters (ServiceName, Scope, Option, MsgName, Container) against the bank contract.',
	],
	[
		'091006',
		'EBICS_UNSUPPORTED_ORDER_TYPE',
		'The bank does not support this order type.',
		'Use an order type or service the bank offers (see HAA and HTD).',
	],
	[
		'091007',
		'EBICS_DISTRIBUTED_SIGNATURE_AUTHORISATION_FAILED',
		'The subscriber may not use distributed signature for this order.',
		'Ask the bank for the signature permissions of the subscriber.',
	],
	[
		'091008',
		'EBICS_BANK_PUBKEY_UPDATE_REQUIRED',
		"The bank's key digests in the request are not those of the bank's current keys.",
		"Fetch the bank's keys again (HPB) and compare them with the bank's letter.",
	],
	[
		'091009',
		'EBICS_SEGMENT_SIZE_EXCEEDED',
		'A segment is larger than the bank allows.',
		'Report it: segments are cut at 1 MB as the spec says.',
	],
	[
		'091010',
		'EBICS_INVALID_XML',
		'The request is not valid against the EBICS schema.',
		'Report it with the request time; check the values for unusual characters.',
	],
	[
		'091011',
		'EBICS_INVALID_HOST_ID',
		'The bank does not know the Host ID.',
		'Check the Host ID against the bank contract.',
	],
	[
		'091101',
		'EBICS_TX_UNKNOWN_TXID',
		'The bank does not know the transaction ID (expired or never started).',
		'Run the whole request again.',
	],
	[
		'091102',
		'EBICS_TX_ABORT',
		'The bank cancelled the transaction.',
		'Run the whole request again; if it repeats, contact the bank.',
	],
	[
		'091103',
		'EBICS_TX_MESSAGE_REPLAY',
		'The bank suspects a replayed message: the nonce was used before or the timestamp is outside its window.',
		'Check the clock of the n8n machine and run the request again.',
	],
	[
		'091104',
		'EBICS_TX_SEGMENT_NUMBER_EXCEEDED',
		'A segment number beyond the declared number of segments was sent.',
		'Run the whole request again.',
	],
	[
		'091112',
		'EBICS_INVALID_ORDER_PARAMS',
		'The order parameters are not valid.',
		'Check the service parameters and the date range.',
	],
	[
		'091113',
		'EBICS_INVALID_REQUEST_CONTENT',
		'The request content is not semantically compliant with EBICS.',
		'Report it to the bank with the request time.',
	],
	[
		'091117',
		'EBICS_MAX_ORDER_DATA_SIZE_EXCEEDED',
		'The order data is larger than the bank accepts.',
		'Split the file into smaller files.',
	],
	[
		'091118',
		'EBICS_MAX_SEGMENTS_EXCEEDED',
		'The number of segments is larger than the bank accepts.',
		'Split the file into smaller files.',
	],
	[
		'091119',
		'EBICS_MAX_TRANSACTIONS_EXCEEDED',
		'Too many transactions are open for the subscriber.',
		'Wait and try again later.',
	],
	[
		'091120',
		'EBICS_PARTNER_ID_MISMATCH',
		'The Partner ID does not belong to the user.',
		'Check the Partner ID and User ID.',
	],
	[
		'091121',
		'EBICS_INCOMPATIBLE_ORDER_ATTRIBUTE',
		'The order attribute does not fit the order type (EBICS 2.5).',
		'Report it to the bank.',
	],
	[
		'091122',
		'EBICS_ORDER_ALREADY_EXISTS',
		'The bank already has this order (the same order was submitted before).',
		'Do not submit it again: check the customer protocol (HAC or PTK) for the first submission.',
	],
	[
		'091219',
		'EBICS_CERTIFICATES_VALIDATION_ERROR',
		"The bank could not validate the subscriber's certificates.",
		'Check the certificates in the credential; ask the bank which certificates it expects.',
	],
];

const BUSINESS: Row[] = [
	['000000', 'EBICS_OK', 'The order was processed without business errors.', 'Nothing.'],
	[
		'011301',
		'EBICS_NO_ONLINE_CHECKS',
		'The bank does not support the optional pre-validation; the order is still accepted.',
		'Nothing.',
	],
	[
		'090003',
		'EBICS_AUTHORISATION_ORDER_IDENTIFIER_FAILED',
		'The subscriber is not allowed to submit or fetch this order type or service (H004: EBICS_AUTHORISATION_ORDER_TYPE_FAILED).',
		'Ask the bank to grant the service to the subscriber (see HTD for what is granted).',
	],
	[
		'090004',
		'EBICS_INVALID_ORDER_DATA_FORMAT',
		'The order data does not have the format the service expects.',
		'Check the file against the service (for example the pain.001 version the bank takes).',
	],
	[
		'090005',
		'EBICS_NO_DOWNLOAD_DATA_AVAILABLE',
		'There is no data to download for this service.',
		'Nothing: an empty result.',
	],
	[
		'090006',
		'EBICS_UNSUPPORTED_REQUEST_FOR_ORDER_INSTANCE',
		'The request is not supported for this order.',
		'Report it to the bank.',
	],
	[
		'091001',
		'EBICS_DOWNLOAD_SIGNED_ONLY',
		'The bank only delivers signed downloads.',
		'Contact the bank.',
	],
	[
		'091002',
		'EBICS_DOWNLOAD_UNSIGNED_ONLY',
		'The bank only delivers unsigned downloads.',
		'Contact the bank.',
	],
	[
		'091105',
		'EBICS_RECOVERY_NOT_SUPPORTED',
		'The bank does not support recovery of transactions.',
		'Run the whole request again.',
	],
	[
		'091111',
		'EBICS_INVALID_SIGNATURE_FILE_FORMAT',
		'The signature data (UserSignatureData) has not the format the bank expects.',
		'Report it to the bank.',
	],
	[
		'091114',
		'EBICS_ORDERID_UNKNOWN',
		'The bank does not know the order ID.',
		'Check the order ID.',
	],
	[
		'091115',
		'EBICS_ORDERID_ALREADY_EXISTS',
		'The order ID is already used.',
		'Submit again (a new order ID is given).',
	],
	[
		'091116',
		'EBICS_PROCESSING_ERROR',
		'The bank could not process the order.',
		'Check the file, then ask the bank (the customer protocol HAC or PTK tells why).',
	],
	[
		'091201',
		'EBICS_KEYMGMT_UNSUPPORTED_VERSION_SIGNATURE',
		'The bank does not support this signature version.',
		'The bank needs another signature version than A006: ask the bank.',
	],
	[
		'091202',
		'EBICS_KEYMGMT_UNSUPPORTED_VERSION_AUTHENTICATION',
		'The bank does not support this authentication version.',
		'Ask the bank which authentication version it supports.',
	],
	[
		'091203',
		'EBICS_KEYMGMT_UNSUPPORTED_VERSION_ENCRYPTION',
		'The bank does not support this encryption version.',
		'Ask the bank which encryption version it supports.',
	],
	[
		'091204',
		'EBICS_KEYMGMT_KEYLENGTH_ERROR_SIGNATURE',
		'The signature key has a length the bank does not accept.',
		'Generate new keys with a length the bank accepts.',
	],
	[
		'091205',
		'EBICS_KEYMGMT_KEYLENGTH_ERROR_AUTHENTICATION',
		'The authentication key has a length the bank does not accept.',
		'Generate new keys with a length the bank accepts.',
	],
	[
		'091206',
		'EBICS_KEYMGMT_KEYLENGTH_ERROR_ENCRYPTION',
		'The encryption key has a length the bank does not accept.',
		'Generate new keys with a length the bank accepts.',
	],
	[
		'091207',
		'EBICS_KEYMGMT_NO_X509_SUPPORT',
		'The bank does not support X.509 data.',
		'Contact the bank.',
	],
	[
		'091208',
		'EBICS_X509_CERTIFICATE_EXPIRED',
		'A certificate has expired.',
		'Renew the keys and certificates.',
	],
	[
		'091209',
		'EBICS_X509_CERTIFICATE_NOT_VALID_YET',
		'A certificate is not valid yet.',
		'Check the clock of the n8n machine; wait until the certificate is valid.',
	],
	[
		'091210',
		'EBICS_X509_WRONG_KEY_USAGE',
		'A certificate has a key usage that does not fit its use.',
		'Generate the certificates again.',
	],
	[
		'091211',
		'EBICS_X509_WRONG_ALGORITHM',
		'A certificate uses an algorithm the bank does not accept.',
		'Generate the certificates again.',
	],
	[
		'091212',
		'EBICS_X509_INVALID_THUMBPRINT',
		'A certificate thumbprint is not valid.',
		'Contact the bank.',
	],
	[
		'091213',
		'EBICS_X509_CTL_INVALID',
		'The certificate trust list is not valid.',
		'Contact the bank.',
	],
	[
		'091214',
		'EBICS_X509_UNKNOWN_CERTIFICATE_AUTHORITY',
		'The certificate authority is unknown to the bank.',
		'Use certificates the bank accepts (some banks require CA-issued signature certificates).',
	],
	[
		'091215',
		'EBICS_X509_INVALID_POLICY',
		'A certificate policy is not valid.',
		'Contact the bank.',
	],
	[
		'091216',
		'EBICS_X509_INVALID_BASIC_CONSTRAINTS',
		'The basic constraints of a certificate are not valid.',
		'Generate the certificates again.',
	],
	[
		'091217',
		'EBICS_ONLY_X509_SUPPORT',
		'The bank only accepts X.509 certificates.',
		'Send certificates, not bare keys.',
	],
	[
		'091218',
		'EBICS_KEYMGMT_DUPLICATE_KEY',
		'The same key was sent for two purposes.',
		'Use three different keys for signature, authentication and encryption.',
	],
	[
		'091219',
		'EBICS_CERTIFICATES_VALIDATION_ERROR',
		"The bank could not validate the subscriber's certificates.",
		'Check the certificates; ask the bank which certificates it expects.',
	],
	[
		'091301',
		'EBICS_SIGNATURE_VERIFICATION_FAILED',
		'The electronic signature (A006) of the order does not verify.',
		'Check that the signature key in the credential is the one sent with INI and activated by the bank.',
	],
	[
		'091302',
		'EBICS_ACCOUNT_AUTHORISATION_FAILED',
		'The subscriber may not sign for an account in the order.',
		'Ask the bank for the account permissions of the subscriber.',
	],
	[
		'091303',
		'EBICS_AMOUNT_CHECK_FAILED',
		'An amount is above the limit of the signature permission.',
		'Ask the bank for the limits, or have another signer approve.',
	],
	[
		'091304',
		'EBICS_SIGNER_UNKNOWN',
		'The signer is not known to the bank as a signer of this order.',
		'Check the Partner ID and User ID of the signer.',
	],
	[
		'091305',
		'EBICS_INVALID_SIGNER_STATE',
		'The signer is not in a state that allows signing.',
		'Ask the bank for the state of the signer.',
	],
	[
		'091306',
		'EBICS_DUPLICATE_SIGNATURE',
		'The signer has already signed this order.',
		'Nothing: the order already carries this signature.',
	],
];

const table = (rows: Row[], level: ReturnCodeLevel): Map<string, ReturnCodeInfo> =>
	new Map(
		rows.map(([code, name, meaning, action]) => [code, { code, name, level, meaning, action }]),
	);

export const TECHNICAL_RETURN_CODES: ReadonlyMap<string, ReturnCodeInfo> = table(
	TECHNICAL,
	'technical',
);
export const BUSINESS_RETURN_CODES: ReadonlyMap<string, ReturnCodeInfo> = table(
	BUSINESS,
	'business',
);

/** The spec's entry for a code at a level; a code of the other level when only that one knows it. */
export function returnCodeInfo(code: string, level: ReturnCodeLevel): ReturnCodeInfo | undefined {
	const own = (level === 'technical' ? TECHNICAL_RETURN_CODES : BUSINESS_RETURN_CODES).get(code);
	return own ?? (level === 'technical' ? BUSINESS_RETURN_CODES : TECHNICAL_RETURN_CODES).get(code);
}

/** The kind of a code from its first two digits. */
export function returnCodeKind(code: string): ReturnCodeKind {
	const head = code.slice(0, 2);
	if (code === '000000') return 'success';
	if (head === '01') return 'note';
	if (head === '03') return 'warning';
	return 'error';
}

/** The code that means "no download data": an empty result, not an error. */
export const NO_DOWNLOAD_DATA = '090005';
