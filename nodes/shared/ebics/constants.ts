/** Namespaces, algorithm identifiers and limits of EBICS 3.0 (H005). */

/** The protocol version this library speaks. */
export const H005 = 'H005';
/** The EBICS 3.0 request/response namespace (ebics_H005.xsd). */
export const H005_NS = 'urn:org:ebics:H005';
/** The signature namespace of A006 UserSignatureData and INI order data (ebics_signature_S002.xsd). */
export const S002_NS = 'http://www.ebics.org/S002';
/** The namespace of HEV, version-independent (ebics_hev.xsd). */
export const H000_NS = 'http://www.ebics.org/H000';
export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';

/** Inclusive canonical XML 1.0 without comments: the X002 SignedInfo and reference transform. */
export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
/** Digest method URI, also the Algorithm of BankPubKeyDigests and EncryptionPubKeyDigest. */
export const SHA256_URI = 'http://www.w3.org/2001/04/xmlenc#sha256';
/** The X002 reference: every element marked authenticate="true", in document order. */
export const AUTHENTICATE_XPOINTER = "#xpointer(//*[@authenticate='true'])";

export const SIGNATURE_VERSION = 'A006';
export const AUTHENTICATION_VERSION = 'X002';
export const ENCRYPTION_VERSION = 'E002';

/**
 * Most bytes of one segment's OrderData: the order data is compressed, encrypted and base64-coded,
 * then cut "sequentially and in a base64-conformant manner into segments that each have a maximum
 * of 1,048,576 bytes" (EBICS specification, chapter 7 "Segmentation of the order data").
 */
export const SEGMENT_MAX_BASE64 = 1_048_576;
/** Encrypted bytes per full segment: 1,048,576 base64 characters carry 786,432 bytes. */
export const SEGMENT_MAX_BYTES = (SEGMENT_MAX_BASE64 / 4) * 3;

/** Default security medium of a key file held by software (EBICS: "0000" unspecified). */
export const DEFAULT_SECURITY_MEDIUM = '0000';

/** The key changes: PUB (signature key), HCA (authentication and encryption keys), HCS (all three). */
export type KeyChangeOrder = 'PUB' | 'HCA' | 'HCS';
