/** SOAP 1.1 envelope namespace. */
export const SOAP_ENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
/** WSDL target namespace: operation elements `<op>in`, `<op>out` and FileServiceFaultElement. */
export const SERVICE_NS = 'http://bxd.fi/CorporateFileService';
/** Types namespace: RequestHeader, ResponseHeader, FileServiceFaultDetail. */
export const MODEL_NS = 'http://model.bxd.fi';
/** Namespace of the ApplicationRequest and ApplicationResponse documents. */
export const XMLDATA_NS = 'http://bxd.fi/xmldata/';

export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const WSSE_NS =
	'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
export const WSU_NS =
	'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
export const WSS_BASE64_ENCODING =
	'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';
export const WSS_X509_TOKEN =
	'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';

export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
/** RSA-SHA1 and SHA-1: still used by some bank deployments; verified only on the user's opt-in. */
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const SHA512 = 'http://www.w3.org/2001/04/xmlenc#sha512';
export const ENVELOPED_SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';

/** The five operations of the file service, as named in the WSDL. */
export type BxdOperation =
	| 'uploadFile'
	| 'downloadFileList'
	| 'downloadFile'
	| 'deleteFile'
	| 'getUserInfo';

export const BXD_OPERATIONS: readonly BxdOperation[] = [
	'uploadFile',
	'downloadFileList',
	'downloadFile',
	'deleteFile',
	'getUserInfo',
];

/** ApplicationRequest Command for each operation. */
export const COMMANDS: Record<BxdOperation, string> = {
	uploadFile: 'UploadFile',
	downloadFileList: 'DownloadFileList',
	downloadFile: 'DownloadFile',
	deleteFile: 'DeleteFile',
	getUserInfo: 'GetUserInfo',
};

/**
 * Messages above this size go to the large-file address. Banks state the limit as "20 MB";
 * the decimal value is the smaller reading, so a message between the two readings is sent to
 * the address that takes both.
 */
export const STANDARD_MESSAGE_LIMIT = 20 * 1000 * 1000;

/** How long a WS-Security timestamp is valid. */
export const WS_SECURITY_TTL_MS = 5 * 60 * 1000;
