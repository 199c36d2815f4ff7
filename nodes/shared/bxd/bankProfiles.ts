/**
 * What each bank of the bxd family needs, as data. Every value names its public source next to it
 * (docs/banks.md lists them too). "sepafm" is the Ruby client devlab-oy/sepa
 * (https://github.com/devlab-oy/sepa), whose WSDL files, XML templates and sample answers are the
 * most complete public record of these services; "pankkiyhteys" is hyrsky/pankkiyhteys and
 * "banking-ws" is norkator/banking-ws. Custom keeps every field editable in the credential.
 *
 * Danske Bank has its own certificate service (PKIFactoryService, see danskePki.ts), separate
 * signing and encryption certificates, and encrypts every request and answer (encryption.ts).
 */
import type { SignatureAlgorithm } from './signature';

/** The dialect of the certificate service: namespaces and how the PIN is proven. */
export type CertDialect = 'nordea' | 'op' | 'samlink';

/**
 * How the bank enrols certificates: the bxd certificate service, or Danske Bank's
 * PKIFactoryService.
 */
export type EnrolmentService = 'certificateService' | 'danskePki';

export type BankId =
	| 'nordea'
	| 'op'
	| 'samlink'
	| 'danske'
	| 'aktia'
	| 'pop'
	| 'saastopankki'
	| 'handelsbanken'
	| 'custom';

export interface EnvironmentUrls {
	production: string;
	test: string;
}

export interface BankProfile {
	id: BankId;
	name: string;
	/** The platform the bank's service runs on (the member banks of Samlink share its addresses). */
	platform: 'nordea' | 'op' | 'samlink' | 'danske' | 'custom';
	fileService: EnvironmentUrls;
	/** Absent for Custom: the credential gives the address. */
	certificateService?: EnvironmentUrls;
	certDialect?: CertDialect;
	/** Which enrolment service the bank runs (default: the bxd certificate service). */
	enrolment?: EnrolmentService;
	/** Every ApplicationRequest is encrypted and answers come encrypted (XML Encryption). */
	encrypts?: boolean;
	/** ReceiverId to send when the credential leaves it empty. */
	receiverId?: string;
	/** PKI service Environment values, where they differ from the file service's. */
	pkiEnvironments?: { production: string; test: string };
	/** How the one-time code is proven: an HMAC of the request (Nordea) or sent as TransferKey. */
	pin?: { kind: 'hmac' | 'transferKey' | 'pin'; label: string; pattern: RegExp; rule: string };
	/**
	 * The root certificate the bank's signing certificates chain to (paste it as Bank Certificate).
	 */
	rootCertificate?: { subject: string; publishedAt: string };
	signatureAlgorithm: SignatureAlgorithm;
	/** Whether file requests carry TargetId. */
	sendsTargetId: boolean;
	/** Whether the service has getUserInfo (else the credential test lists files instead). */
	hasGetUserInfo: boolean;
	/** The SOAPAction header value (HTTP header, quotes included). */
	soapAction: string;
	/** ApplicationRequest Environment values. */
	environments: { production: string; test: string };
	/** File types offered as suggestions (free text stays possible). */
	fileTypes: Array<{ code: string; label: string }>;
}

/**
 * OP, Samlink: a 16-digit transfer key (sepafm xml_schemas/op/CertApplicationRequest_200812.xsd,
 * TransferKey).
 */
const TRANSFER_KEY = {
	kind: 'transferKey' as const,
	label: 'Transfer Key',
	pattern: /^\d{16}$/,
	rule: 'must be the 16 digits the bank gave (spaces are ignored)',
};
/**
 * Samlink: sepafm xml_schemas/samlink/CertApplicationRequest.xsd (TransferKey, no fixed length).
 */
const SAMLINK_KEY = {
	kind: 'transferKey' as const,
	label: 'Transfer Key',
	pattern: /^[0-9A-Za-z]{4,64}$/,
	rule: 'must be the letters and digits the bank gave (spaces are ignored)',
};
/**
 * Nordea: a 10-digit activation code keyed into an HMAC-SHA1 of the PKCS#10 request (sepafm
 * lib/sepa/application_request.rb, utilities.rb#hmac).
 */
const NORDEA_PIN = {
	kind: 'hmac' as const,
	label: 'Activation Code (PIN)',
	pattern: /^[0-9A-Za-z]{4,32}$/,
	rule: 'must be the letters and digits the bank gave (spaces are ignored)',
};

/**
 * Danske Bank: the PIN of CreateCertificateRequest (sepafm lib/sepa/xml_schemas/danske_pki.xsd: PIN
 * is string10).
 */
const DANSKE_PIN = {
	kind: 'pin' as const,
	label: 'PIN',
	pattern: /^[0-9A-Za-z]{4,10}$/,
	rule: 'must be the 4 to 10 letters and digits the bank gave (spaces are ignored)',
};

/**
 * ISO 20022 names every bank of the family offers (sepafm test/sepa/banks/*\/responses dfl.xml).
 */
const ISO_TYPES = [
	{ code: 'pain.001.001.03', label: 'Credit Transfer Initiation (pain.001), upload' },
	{ code: 'pain.002.001.03', label: 'Payment Status Report (pain.002), download' },
	{ code: 'camt.053.001.02', label: 'Account Statement (camt.053), download' },
	{ code: 'camt.054.001.02', label: 'Debit/Credit Notification (camt.054), download' },
];

/** The Finnish formats besides ISO 20022: TITO account statements, KTL reference payments. */
const FINNISH_TYPES = [
	{ code: 'TITO', label: 'Account statement (TITO), download' },
	{ code: 'KTL', label: 'Reference payments (KTL), download' },
];

/**
 * Samlink platform (sepafm lib/sepa/wsdl/wsdl_samlink_production.xml, wsdl_samlink_test.xml,
 * wsdl_samlink_cert_*.xml).
 */
const SAMLINK_BASE: Omit<BankProfile, 'id' | 'name'> = {
	platform: 'samlink',
	fileService: {
		production: 'https://ws.samlink.fi/services/CorporateFileService',
		test: 'https://194.240.69.243/services/CorporateFileService',
	},
	certificateService: {
		production: 'https://ws.samlink.fi/wsdl/CertificateService.xml',
		test: 'https://194.240.69.243/wsdl/CertificateService.xml',
	},
	certDialect: 'samlink',
	pin: SAMLINK_KEY,
	// sepafm lib/sepa/certificates/samlink_root_certificate.pem and samlink_test_certificate.pem.
	rootCertificate: {
		subject: 'CN=Samlink Customer CA, O=Samlink, C=FI (test: Samlink System Test Customer CA)',
		publishedAt:
			'Samlink Web Services instructions; sepafm lib/sepa/certificates/samlink_root_certificate.pem',
	},
	// sepafm xml_templates/application_request/samlink/renew_certificate.xml and the bank's own
	// answers in test/sepa/banks/samlink/responses/*.xml are signed with RSA-SHA1.
	signatureAlgorithm: 'sha1',
	// sepafm lib/sepa/application_request.rb adds TargetId only for Nordea.
	sendsTargetId: false,
	// REFERENCES "Bank quirks": Samlink has no getUserInfo (sepafm
	// lib/sepa/wsdl/wsdl_samlink_production.xml has it, but sepafm never calls it for Samlink).
	hasGetUserInfo: false,
	// sepafm wsdl_samlink_*.xml: soapAction="".
	soapAction: '""',
	environments: { production: 'PRODUCTION', test: 'TEST' },
	// Samlink's short codes (banking-ws README, Samlink "Web Services" file types).
	fileTypes: [...ISO_TYPES, ...FINNISH_TYPES],
};

export const BANK_PROFILES: Record<Exclude<BankId, 'custom'>, BankProfile> & {
	custom: BankProfile;
} = {
	nordea: {
		id: 'nordea',
		name: 'Nordea',
		platform: 'nordea',
		// sepafm lib/sepa/wsdl/wsdl_nordea_sha2.xml (commit f1879bf, 2024: Nordea's SHA-256 addresses).
		// Nordea's test environment is the same address with Environment TEST (sepafm
		// application_request.rb).
		fileService: {
			production: 'https://filetransfer.nordea.com/services/CorporateFileService/sha2',
			test: 'https://filetransfer.nordea.com/services/CorporateFileService/sha2',
		},
		// sepafm lib/sepa/wsdl/wsdl_nordea_cert_sha2.xml.
		certificateService: {
			production: 'https://filetransfer.nordea.com/services/CertificateService/sha2',
			test: 'https://filetransfer.nordea.com/services/CertificateService/sha2',
		},
		certDialect: 'nordea',
		pin: NORDEA_PIN,
		// sepafm lib/sepa/certificates/nordea_root_certificate.pem (its 2012 copy expired in 2022:
		// fetch the current one from Nordea).
		rootCertificate: {
			subject: 'CN=Nordea Corporate Server CA 01, O=Nordea Bank AB (publ), C=SE',
			publishedAt:
				'Nordea "Web Services" certificate page; sepafm lib/sepa/certificates/nordea_root_certificate.pem',
		},
		// The /sha2 addresses above take RSA-SHA256 (sepafm commit f1879bf).
		signatureAlgorithm: 'sha256',
		// sepafm lib/sepa/application_request.rb: TargetId only for Nordea.
		sendsTargetId: true,
		// sepafm test/sepa/banks/nordea/responses/gui.xml: Nordea answers getUserInfo.
		hasGetUserInfo: true,
		// sepafm lib/sepa/wsdl/wsdl_nordea_sha2.xml: soapAction="".
		soapAction: '""',
		environments: { production: 'PRODUCTION', test: 'TEST' },
		// sepafm test/sepa/banks/nordea/responses/dfl.xml and df_tito.xml, df_ktl.xml.
		fileTypes: [
			...ISO_TYPES,
			...FINNISH_TYPES,
			{ code: 'NDCORPAYS', label: 'Payments (NDCORPAYS), upload' },
		],
	},
	op: {
		id: 'op',
		name: 'OP Financial Group',
		platform: 'op',
		// sepafm lib/sepa/wsdl/wsdl_op_production.xml, wsdl_op_test.xml; pankkiyhteys
		// src/cert-services.ts.
		fileService: {
			production: 'https://wsk.op.fi/services/CorporateFileService',
			test: 'https://wsk.asiakastesti.op.fi/services/CorporateFileService',
		},
		// sepafm lib/sepa/wsdl/wsdl_op_cert_production.xml, wsdl_op_cert_test.xml.
		certificateService: {
			production: 'https://wsk.op.fi/services/OPCertificateService',
			test: 'https://wsk.asiakastesti.op.fi/services/OPCertificateService',
		},
		certDialect: 'op',
		pin: TRANSFER_KEY,
		// sepafm lib/sepa/certificates/op_root_certificate.pem (that copy expired in 2024);
		// pankkiyhteys src/cacerts/OP-Pohjola.ts.
		rootCertificate: {
			subject: 'CN=OP Services CA V2 (now its successor), C=FI',
			publishedAt:
				'OP "Web Services" certificate instructions; GetServiceCertificates answers the current intermediates',
		},
		// REFERENCES A: OP signs and expects RSA-SHA256 with SHA-256 digests.
		signatureAlgorithm: 'sha256',
		sendsTargetId: false,
		// sepafm lib/sepa/wsdl/wsdl_op_production.xml has getUserInfo.
		hasGetUserInfo: true,
		// sepafm lib/sepa/wsdl/wsdl_op_production.xml: soapAction="".
		soapAction: '""',
		environments: { production: 'PRODUCTION', test: 'TEST' },
		fileTypes: [...ISO_TYPES, ...FINNISH_TYPES],
	},
	danske: {
		id: 'danske',
		name: 'Danske Bank',
		platform: 'danske',
		// sepafm lib/sepa/wsdl/wsdl_danske.xml (the Finnish service, formerly Sampo Pankki); test and
		// production share it, the Environment tells them apart.
		fileService: {
			production: 'https://businessws.sampopankki.fi/edifileservice/edifileservice.asmx',
			test: 'https://businessws.sampopankki.fi/edifileservice/edifileservice.asmx',
		},
		// sepafm lib/sepa/wsdl/wsdl_danske_cert.xml: PKIFactoryService.
		certificateService: {
			production: 'https://businessws.danskebank.com/ra/pkiservice.asmx',
			test: 'https://businessws.danskebank.com/ra/pkiservice.asmx',
		},
		enrolment: 'danskePki',
		encrypts: true,
		pin: DANSKE_PIN,
		// sepafm lib/sepa/banks/danske/soap_danske.rb#set_receiver_id.
		receiverId: 'DABAFIHH',
		// sepafm lib/sepa/certificates/danske_root_certificate.pem (DBGROOT, valid to 2038-06-09).
		rootCertificate: {
			subject: 'CN=DBGROOT, O=Danske Bank Group, C=DK (serialNumber 611262281110003)',
			publishedAt:
				'Danske Bank "Web Services" instructions; sepafm lib/sepa/certificates/danske_root_certificate.pem',
		},
		// sepafm's Danske requests and the bank's own answers in test/sepa/banks/danske/responses/ use
		// RSA-SHA1.
		signatureAlgorithm: 'sha1',
		sendsTargetId: false,
		// REFERENCES "Bank quirks": Danske has no getUserInfo (sepafm soap_danske.rb's own todo says
		// so).
		hasGetUserInfo: false,
		// sepafm lib/sepa/wsdl/wsdl_danske.xml: soapAction="".
		soapAction: '""',
		environments: { production: 'PRODUCTION', test: 'TEST' },
		// sepafm soap_danske.rb#set_cert_contents: test becomes customertest; danske_pki.xsd
		// EnvironmentType.
		pkiEnvironments: { production: 'production', test: 'customertest' },
		fileTypes: ISO_TYPES,
	},
	samlink: { id: 'samlink', name: 'Samlink', ...SAMLINK_BASE },
	// TatuUlmanen/BankWS lists Aktia, Säästöpankki, POP Pankki and Handelsbanken as reached through
	// Samlink.
	aktia: { id: 'aktia', name: 'Aktia (Samlink)', ...SAMLINK_BASE },
	pop: { id: 'pop', name: 'POP Bank (Samlink)', ...SAMLINK_BASE },
	saastopankki: { id: 'saastopankki', name: 'Säästöpankki (Samlink)', ...SAMLINK_BASE },
	handelsbanken: {
		id: 'handelsbanken',
		name: 'Handelsbanken Finland (Samlink)',
		...SAMLINK_BASE,
		// REFERENCES "Bank quirks": Handelsbanken has its own file-type codes; ISO names work
		// everywhere.
		fileTypes: ISO_TYPES,
	},
	custom: {
		id: 'custom',
		name: 'Custom',
		platform: 'custom',
		fileService: { production: '', test: '' },
		signatureAlgorithm: 'sha256',
		sendsTargetId: false,
		hasGetUserInfo: true,
		soapAction: '""',
		environments: { production: 'PRODUCTION', test: 'TEST' },
		// Custom adds nothing to the node's common suggestions.
		fileTypes: [],
	},
};

export function bankProfile(id: unknown): BankProfile {
	return typeof id === 'string' && id in BANK_PROFILES
		? BANK_PROFILES[id as BankId]
		: BANK_PROFILES.custom;
}
