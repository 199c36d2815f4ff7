import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { tlsProperties } from '../nodes/shared/common/credentialFields';
import {
	planCheck,
	CHECK_HEADER,
	CHECK_PLACEHOLDER_URL,
	FILE_SERVICE_AUTH,
	FILE_SERVICE_KEY_FIELDS,
} from '../nodes/shared/bxd/credential/fileServiceCredential';
import { runEnrolment } from '../nodes/shared/bxd/enrolment/fileServiceEnrolment';
import { keyServicePreAuthentication, keyStateProperties } from '../nodes/shared/keys';

export class CorporateBankingFileServiceApi implements ICredentialType {
	name = 'corporateBankingFileServiceApi';

	displayName = 'Corporate Banking File Service API';

	icon: Icon = { light: 'file:../icons/bank.svg', dark: 'file:../icons/bank.dark.svg' };

	documentationUrl = 'https://unpkg.com/n8n-nodes-corporate-banking/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Bank',
			name: 'bank',
			type: 'options',
			// Values and their public sources: nodes/shared/bxd/bankProfiles.ts and docs/banks.md.
			options: [
				{ name: 'Aktia (Samlink)', value: 'aktia' },
				{
					name: 'Custom',
					value: 'custom',
					description: 'Any other bxd bank: every address and setting below is yours to give',
				},
				{
					name: 'Danske Bank',
					value: 'danske',
					description: 'Encrypts every request; enrols through its PKIFactoryService',
				},
				{ name: 'Handelsbanken Finland (Samlink)', value: 'handelsbanken' },
				{ name: 'Nordea', value: 'nordea' },
				{ name: 'OP Financial Group', value: 'op' },
				{ name: 'POP Bank (Samlink)', value: 'pop' },
				{ name: 'Samlink', value: 'samlink' },
				{ name: 'Säästöpankki (Samlink)', value: 'saastopankki' },
			],
			default: 'custom',
			description:
				"Fills in the bank's addresses, signature algorithm and quirks. Addresses given below take precedence.",
		},
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Production', value: 'PRODUCTION' },
				{ name: 'Test', value: 'TEST' },
			],
			default: 'PRODUCTION',
			description:
				"Which of the bank's environments to use (its test addresses and Environment TEST)",
		},
		{
			displayName: 'Service URL',
			name: 'url',
			type: 'string',
			default: '',
			placeholder: 'https://wsk.bank.example/services/CorporateFileService',
			description:
				"The file service address for messages under 20 MB. Required for Custom; for a bank, leave empty to use the bank's address.",
		},
		{
			displayName: 'Large File Service URL',
			name: 'largeFileUrl',
			type: 'string',
			default: '',
			placeholder: 'https://wsk-large.bank.example/services/CorporateFileService',
			description:
				'The address that handles messages over 20 MB. Leave empty if the bank has only one.',
		},
		{
			displayName: 'Sender ID',
			name: 'senderId',
			type: 'string',
			default: '',
			description:
				'RequestHeader SenderId: the user ID the bank gave you. Leave empty to use the Customer ID.',
		},
		{
			displayName: 'Customer ID',
			name: 'customerId',
			type: 'string',
			default: '',
			required: true,
			description:
				'ApplicationRequest CustomerId (1 to 16 characters): the user ID of the web services contract',
		},
		{
			displayName: 'Receiver ID',
			name: 'receiverId',
			type: 'string',
			default: '',
			required: true,
			description: "RequestHeader ReceiverId: the bank's identifier (for example its BIC)",
		},
		{
			displayName: 'Software ID',
			name: 'softwareId',
			type: 'string',
			default: 'n8n-nodes-corporate-banking',
			description: 'ApplicationRequest SoftwareId: names the client software to the bank',
		},
		{
			displayName: 'Language',
			name: 'language',
			type: 'options',
			options: [
				{ name: 'English', value: 'EN' },
				{ name: 'Finnish', value: 'FI' },
				{ name: 'Swedish', value: 'SV' },
			],
			default: 'EN',
			description: 'Language of the texts the bank returns',
		},
		{
			displayName: 'Certificate',
			name: 'signingMode',
			type: 'options',
			options: [
				{
					name: 'Paste a Certificate I Have',
					value: 'paste',
					description: 'A signing certificate and key the bank already issued to you',
				},
				{
					name: 'Enrol With a PIN From the Bank',
					value: 'enrol',
					description:
						'The credential makes its own key pair, gets the certificate from the bank and renews it before it expires',
				},
			],
			default: 'paste',
		},
		// The one-time code proves the contract to the bank's certificate service: a secret until it
		// is used, so it is hidden like a password.
		// eslint-disable-next-line @n8n/community-nodes/credential-unnecessary-password
		{
			displayName: 'PIN or Transfer Key',
			name: 'pin',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { signingMode: ['enrol'] } },
			description:
				'The one-time code from the bank (Nordea: activation code; OP: 16-digit transfer key; Samlink banks: transfer key; Danske Bank: PIN). Save or test the credential to enrol: the code is sent once, then cleared.',
		},
		{
			displayName: 'Certificate Service URL',
			name: 'certificateServiceUrl',
			type: 'string',
			default: '',
			displayOptions: { show: { signingMode: ['enrol'] } },
			placeholder: 'https://wsk.bank.example/services/CertificateService',
			description:
				"The bank's certificate service (Danske Bank: its PKIFactoryService). Required for Custom; for a bank, leave empty to use the bank's address.",
		},
		{
			displayName: 'Certificate Service Dialect',
			name: 'enrolmentDialect',
			type: 'options',
			options: [
				{ name: 'Nordea (HMAC of the Request)', value: 'nordea' },
				{ name: 'OP (Transfer Key, Service MATU)', value: 'op' },
				{ name: 'Samlink (Transfer Key)', value: 'samlink' },
			],
			default: 'op',
			displayOptions: { show: { signingMode: ['enrol'], bank: ['custom'] } },
			description: 'Which of the bxd certificate-service variants the bank speaks',
		},
		{
			displayName: 'Renew Days Before Expiry',
			name: 'renewalWindowDays',
			type: 'number',
			default: 30,
			displayOptions: { show: { signingMode: ['enrol'] } },
			description:
				'The certificate is renewed automatically by the first run within this many days of its expiry; a failed renewal keeps the current certificate',
		},
		{
			displayName: 'Certificate Status',
			name: 'enrolmentStatus',
			type: 'string',
			default: '',
			displayOptions: { show: { signingMode: ['enrol'] } },
			description:
				'Written by the enrolment and each renewal: when the certificate was issued, until when it is valid and how the bank signed its answer; or, when a check failed after the bank issued it, what failed and what to correct (saving again completes it without a new PIN)',
		},
		// A certificate is public: shown, so the user can see which one is set.
		// eslint-disable-next-line @n8n/community-nodes/credential-password-field
		{
			displayName: 'Signing Certificate',
			name: 'signingCertificate',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '-----BEGIN CERTIFICATE-----',
			displayOptions: { show: { signingMode: ['paste'] } },
			description:
				'The PEM certificate the bank issued for signing requests. Leave empty if the bank does not require signing.',
		},
		{
			displayName: 'Signing Private Key',
			name: 'signingPrivateKey',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			placeholder: '-----BEGIN PRIVATE KEY-----',
			displayOptions: { show: { signingMode: ['paste'] } },
		},
		{
			displayName: 'Signing Key Passphrase',
			name: 'signingKeyPassphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { signingMode: ['paste'] } },
		},
		{
			displayName: 'Signature Algorithm',
			name: 'signatureAlgorithm',
			type: 'options',
			options: [
				{ name: "As the Bank's Profile Says", value: 'profile' },
				{ name: 'RSA-SHA256', value: 'sha256' },
				{ name: 'RSA-SHA1 (Old Deployments Only)', value: 'sha1' },
			],
			default: 'profile',
			description: 'How requests are signed. Custom banks get RSA-SHA256 unless set here.',
		},
		// A certificate is public: shown, so the user can see which one is set.
		// eslint-disable-next-line @n8n/community-nodes/credential-password-field
		{
			displayName: 'Bank Certificate',
			name: 'bankCertificate',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '-----BEGIN CERTIFICATE-----',
			description:
				"The bank's PEM signing certificate (or its CA). When set, signed responses are verified and a response that fails verification is rejected.",
		},
		// A certificate is public: shown, so the user can see which one is set.
		// eslint-disable-next-line @n8n/community-nodes/credential-password-field
		{
			displayName: 'Bank Encryption Certificate',
			name: 'bankEncryptionCertificate',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '-----BEGIN CERTIFICATE-----',
			displayOptions: { show: { bank: ['danske'], signingMode: ['paste'] } },
			description:
				"The bank's encryption certificate (DanskeBankCryptCERT): every request is encrypted to it. It must be issued by the Bank Certificate when that is the bank's root. Enrolling with a PIN fetches it for you.",
		},
		// A certificate is public: shown, so the user can see which one is set.
		// eslint-disable-next-line @n8n/community-nodes/credential-password-field
		{
			displayName: 'Encryption Certificate',
			name: 'encryptionCertificate',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '-----BEGIN CERTIFICATE-----',
			displayOptions: { show: { bank: ['danske'], signingMode: ['paste'] } },
			description: 'Your encryption certificate from the bank: answers are encrypted to it',
		},
		{
			displayName: 'Encryption Private Key',
			name: 'encryptionPrivateKey',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			placeholder: '-----BEGIN PRIVATE KEY-----',
			displayOptions: { show: { bank: ['danske'], signingMode: ['paste'] } },
			description: 'The private key of your encryption certificate: decrypts the answers',
		},
		{
			displayName: 'Encryption Key Passphrase',
			name: 'encryptionKeyPassphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { bank: ['danske'], signingMode: ['paste'] } },
		},
		{
			displayName: 'Accept SHA-1 Signatures From the Bank',
			name: 'acceptSha1',
			type: 'boolean',
			default: false,
			description:
				"Whether to accept the file service's answers (file lists, files, user info) that the bank signed with RSA-SHA1. SHA-1 is broken: forged signatures are within reach of a well-funded attacker. Switch it on only for a bank that still signs with SHA-1 (its Signature Algorithm is RSA-SHA1), and ask the bank when it moves to SHA-256. Enrolment does not need it: the certificate service's answers are verified whatever their algorithm, and the certificate it issues must chain to the Bank Certificate.",
		},
		...tlsProperties({ clientCertificate: 'optional' }),
		...keyStateProperties(FILE_SERVICE_KEY_FIELDS, {
			check: 'Enrolment Check',
			state: 'Enrolment',
		}),
	];

	/**
	 * Enrols (GetCertificate with the PIN) or renews (RenewCertificate signed with the current
	 * certificate) when due, or completes one kept pending; n8n stores what it returns, encrypted,
	 * in this credential (in a credential test too). Once the bank issued a certificate for the key
	 * made here, it returns the fields in every case (pending, with the check field empty, when a
	 * check failed; authenticate then fails the test saying what to correct). Returns nothing to
	 * store when nothing is due or the credential holds a pasted certificate.
	 */
	preAuthentication = keyServicePreAuthentication(runEnrolment);

	/**
	 * Adds the client TLS material. A request marked as the credential's check becomes a signed
	 * getUserInfo (List Files where the bank has none); for the credential test it is sent and
	 * judged here, so a failure says what was sent and what the bank answered, and what n8n sends
	 * afterwards only carries the verdict (the bank gets the check once).
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const plan = planCheck(credentials, requestOptions);
		const authenticated = FILE_SERVICE_AUTH.authenticate(credentials, plan.options);
		return plan.judge ? await plan.judge(authenticated) : authenticated;
	}

	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			url: CHECK_PLACEHOLDER_URL,
			headers: { [CHECK_HEADER]: 'test' },
			json: false,
		},
	};
}
