import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { tlsProperties } from '../nodes/shared/common/credentialFields';
import { unlessValid } from '../nodes/shared/common/properties';
import {
	EBICS_CHECK_HEADER,
	EBICS_CHECK_URL,
	EBICS_CREDENTIAL,
	EBICS_NEW_STATUS,
	EBICS_STATUS_FIELD,
	EBICS_KEY_FIELDS,
} from '../nodes/shared/ebics/credential/ebicsCredential';
import {
	authenticateEbics,
	runEbicsInitialisation,
} from '../nodes/shared/ebics/initialisation/ebicsInitialisation';
import { EBICS_KEY_CHANGE_FIELD } from '../nodes/shared/ebics/initialisation/ebicsKeyChange';
import {
	EBICS_UPLOAD_JOURNAL_FIELD,
	EBICS_UPLOAD_JOURNAL_WRITE_FIELD,
	readUploadJournalWrite,
	writeUploadJournal,
} from '../nodes/shared/ebics/journal/ebicsUploadJournal';
import { keyServicePreAuthentication, keyStateProperties } from '../nodes/shared/keys';

const generate = { show: { keySource: ['generate'] } };
const imported = { show: { keySource: ['import'] } };

/** The new keys Change Keys sends instead of making them in n8n (imported keys only). */
const replacement = { show: { keySource: ['import'], replacementKeys: [true] } };

/**
 * A hash as parseHash takes it: 64 hexadecimal digits with spaces, line breaks, colons or dashes
 * between them, or the 44-character base64 form (spaces around it).
 */
const HASH_PATTERN = '^[\\s:-]*(?:[0-9a-fA-F][\\s:-]*){64}$|^\\s*[A-Za-z0-9+/]{43}=\\s*$';

/**
 * The notice under a hash field while what is typed there is not a hash the credential takes,
 * until the subscriber is ready. n8n checks a credential's display rules each time it loads it to
 * run a node, and a rule with a regular expression can fail that run on a busy machine (n8n stops
 * a regular expression after 250 ms of wall time); n8n checks `show` first, so for a ready
 * subscriber (its check field holds a time) the pattern is never tried.
 */
function hashNotice(field: string, label: string): INodeProperties {
	return {
		displayName: `${label}: not a hash yet. The bank's letter prints it as 32 byte pairs (64 hexadecimal digits, 0-9 and A-F), e.g. 3F 9A 0C ... on two lines; spaces, line breaks and colons between them are fine, either case.`,
		name: `${field}Notice`,
		type: 'notice',
		default: '',
		displayOptions: {
			show: { [EBICS_KEY_FIELDS.check]: [''] },
			...unlessValid(field, HASH_PATTERN),
		},
	};
}

/** A pasted certificate: public, so shown, and the user can see which one is set. */
function certificateField(
	displayName: string,
	name: string,
	description: string,
	displayOptions = imported,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		placeholder: '-----BEGIN CERTIFICATE-----',
		displayOptions,
		description,
	};
}

function privateKeyField(
	displayName: string,
	name: string,
	displayOptions = imported,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		typeOptions: { password: true, rows: 4 },
		default: '',
		placeholder: '-----BEGIN PRIVATE KEY-----',
		displayOptions,
	};
}

export class CorporateBankingEbicsApi implements ICredentialType {
	name = EBICS_CREDENTIAL;

	displayName = 'Corporate Banking EBICS API';

	icon: Icon = { light: 'file:../icons/ebics.svg', dark: 'file:../icons/ebics.dark.svg' };

	documentationUrl = 'https://unpkg.com/n8n-nodes-corporate-banking/docs/ebics.md';

	properties: INodeProperties[] = [
		{
			displayName:
				'Saving this credential tests it. For a new subscriber the test makes the keys and sends them to the bank (INI and HIA); then print the letters with the EBICS node and send them signed to the bank. Once the bank has activated you, test again: it fetches the bank\'s keys (HPB). Where the subscriber stands shows above this notice after each test (on opening, on Save and on Retry): "Connection tested successfully" once it is ready, otherwise the step it has reached and what to do next (under More details); the EBICS node\'s Get Initialisation Letters gives it too, as status.',
			// n8n's dialog keeps the values it opened with and never shows what a test writes, so the
			// status is the test's own answer at the top of the dialog, not a field.
			name: 'initialisationNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'EBICS URL',
			name: 'url',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://ebics.bank.example/ebicsweb/ebicsweb',
			description: "The bank's EBICS address, as the bank's EBICS contract or access data gives it",
		},
		{
			displayName: 'Host ID',
			name: 'hostId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'BANKHOST',
			description: "The bank's EBICS host ID (up to 35 characters)",
		},
		{
			displayName: 'Partner ID',
			name: 'partnerId',
			type: 'string',
			default: '',
			required: true,
			description: 'Your customer ID in the EBICS contract (Kunden-ID, PartnerID)',
		},
		{
			displayName: 'User ID',
			name: 'userId',
			type: 'string',
			default: '',
			required: true,
			description: 'The user (subscriber) ID in the EBICS contract (Teilnehmer-ID, UserID)',
		},
		{
			displayName: 'System ID',
			name: 'systemId',
			type: 'string',
			default: '',
			description: 'Only when the bank gave you a technical subscriber that sends for the user',
		},
		{
			displayName: 'EBICS Version',
			name: 'ebicsVersion',
			type: 'options',
			options: [
				{
					name: 'EBICS 3.0 (H005)',
					value: 'H005',
					description: 'Downloads and uploads by BTF service (BTD, BTU)',
				},
				{
					name: 'EBICS 2.5 (H004)',
					value: 'H004',
					description:
						'For a bank that still offers only EBICS 2.5: order types such as C53, STA, CCT, FDL and FUL',
				},
			],
			default: 'H005',
			description:
				"The EBICS version in the bank's contract; the EBICS node's Bank Versions operation lists what the bank speaks",
		},
		{
			displayName: 'Keys in INI and HIA',
			name: 'h004KeyForm',
			type: 'options',
			options: [
				{
					name: 'Certificates and Keys',
					value: 'certificate',
					description:
						'The X.509 certificates beside the keys (modulus and exponent): for banks that register certificates',
				},
				{
					name: 'Bare Keys Only',
					value: 'key',
					description:
						'Only modulus and exponent (RSAKeyValue), for banks that take no certificates',
				},
			],
			default: 'certificate',
			displayOptions: { show: { ebicsVersion: ['H004'] } },
			description: 'How EBICS 2.5 sends your public keys to the bank',
		},
		{
			displayName: 'Bank Authentication Key Hash (X002)',
			name: 'bankAuthenticationHash',
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			placeholder: '3F 9A 0C ... (32 byte pairs)',
			description:
				"The SHA-256 hash of the bank's authentication key as its letter (or its EBICS page) prints it (EBICS 3.0: of the certificate; EBICS 2.5: of exponent and modulus): spaces, line breaks, colons and either case are fine. The bank's keys are used only when they match.",
		},
		hashNotice('bankAuthenticationHash', 'Bank Authentication Key Hash (X002)'),
		{
			displayName: 'Bank Encryption Key Hash (E002)',
			name: 'bankEncryptionHash',
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			placeholder: 'A1 07 5E ... (32 byte pairs)',
			description: "The SHA-256 hash of the bank's encryption key, as its letter prints it",
		},
		hashNotice('bankEncryptionHash', 'Bank Encryption Key Hash (E002)'),
		{
			displayName: 'Subscriber Keys',
			name: 'keySource',
			type: 'options',
			options: [
				{
					name: 'Generate in N8n (New Subscriber)',
					value: 'generate',
					description:
						'n8n makes the signature, authentication and encryption keys and keeps them encrypted in this credential',
				},
				{
					name: 'Import Keys',
					value: 'import',
					description:
						'Paste the keys and certificates of a subscriber another EBICS client initialised. After a key change from the EBICS node, n8n uses the new keys it keeps instead of the pasted ones (the status that Get Initialisation Letters gives says so)',
				},
			],
			default: 'generate',
		},
		{
			displayName: 'Key Length',
			name: 'keyBits',
			type: 'options',
			options: [
				{ name: '2048 Bits', value: 2048 },
				{ name: '3072 Bits', value: 3072 },
				{ name: '4096 Bits', value: 4096 },
			],
			default: 2048,
			displayOptions: generate,
			description: 'RSA key length of the three keys; EBICS 3.0 needs 2048 bits at least',
		},
		{
			displayName: 'Name on the Letters',
			name: 'subscriberName',
			type: 'string',
			default: '',
			placeholder: 'Erika Mustermann, Example GmbH',
			description:
				"Who signs the initialisation letters; also the name in the keys' certificates. Empty: the Partner ID and User ID.",
		},
		{
			displayName: "Bank's Name on the Letters",
			name: 'bankName',
			type: 'string',
			default: '',
			description: 'The recipient printed on the letters. Empty: the Host ID.',
		},
		{
			displayName: 'Already Initialised at the Bank',
			name: 'alreadyInitialised',
			type: 'boolean',
			default: true,
			displayOptions: imported,
			description:
				'Whether the bank already has these keys (INI and HIA sent by the other client). Switch off to send them from here.',
		},
		certificateField(
			'Signature Certificate (A006)',
			'signatureCertificate',
			'The X.509 certificate of the key that signs orders (electronic signature, A006)',
		),
		privateKeyField('Signature Private Key (A006)', 'signaturePrivateKey'),
		certificateField(
			'Authentication Certificate (X002)',
			'authenticationCertificate',
			'The X.509 certificate of the key that signs every request (X002)',
		),
		privateKeyField('Authentication Private Key (X002)', 'authenticationPrivateKey'),
		certificateField(
			'Encryption Certificate (E002)',
			'encryptionCertificate',
			'The X.509 certificate of the key the bank encrypts downloads to (E002)',
		),
		privateKeyField('Encryption Private Key (E002)', 'encryptionPrivateKey'),
		{
			displayName: 'Private Key Passphrase',
			name: 'keyPassphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: imported,
			description: 'The passphrase of the private keys, when they are encrypted',
		},
		{
			displayName: 'New Keys for Change Keys',
			name: 'replacementKeys',
			type: 'boolean',
			default: false,
			displayOptions: imported,
			description:
				"Whether Change Keys (PUB, HCA, HCS) sends new keys pasted here instead of making them in n8n: for keys whose certificates a bank or a certification authority issues. Leave a key's fields empty to have n8n make it (self-signed certificates only).",
		},
		certificateField(
			'New Signature Certificate (A006)',
			'newSignatureCertificate',
			'The certificate of the new signature key, sent by Change Keys PUB or HCS',
			replacement,
		),
		privateKeyField('New Signature Private Key (A006)', 'newSignaturePrivateKey', replacement),
		certificateField(
			'New Authentication Certificate (X002)',
			'newAuthenticationCertificate',
			'The certificate of the new authentication key, sent by Change Keys HCA or HCS',
			replacement,
		),
		privateKeyField(
			'New Authentication Private Key (X002)',
			'newAuthenticationPrivateKey',
			replacement,
		),
		certificateField(
			'New Encryption Certificate (E002)',
			'newEncryptionCertificate',
			'The certificate of the new encryption key, sent by Change Keys HCA or HCS',
			replacement,
		),
		privateKeyField('New Encryption Private Key (E002)', 'newEncryptionPrivateKey', replacement),
		{
			displayName: 'New Keys Passphrase',
			name: 'newKeyPassphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: replacement,
			description: 'The passphrase of the new private keys, when they are encrypted',
		},
		{
			// Written by the credential's preAuthentication, read by the nodes; never typed.
			displayName: 'Status',
			name: EBICS_STATUS_FIELD,
			type: 'hidden',
			default: EBICS_NEW_STATUS,
		},
		{
			displayName: 'Bank Key Digests in Requests',
			name: 'bankKeyDigestForm',
			type: 'options',
			options: [
				{
					name: 'Certificate Hash (EBICS 3.0)',
					value: 'certificate',
					description: 'SHA-256 of the bank certificates, as EBICS 3.0 specifies',
				},
				{
					name: 'Key Hash (EBICS 2.5 Form)',
					value: 'publicKey',
					description: 'For a bank still migrating that answers 091008 to the 3.0 form',
				},
			],
			default: 'certificate',
			displayOptions: { show: { ebicsVersion: ['H005'] } },
			description: "How requests name the bank's keys (BankPubKeyDigests)",
		},
		...tlsProperties({ clientCertificate: 'optional' }),
		...keyStateProperties(
			EBICS_KEY_FIELDS,
			{ check: 'Initialisation Check', state: 'Subscriber State' },
			{ checkInForm: true },
		),
		{
			displayName: 'Key Change Step',
			name: EBICS_KEY_CHANGE_FIELD,
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Upload Journal',
			name: EBICS_UPLOAD_JOURNAL_FIELD,
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Upload Journal Write',
			name: EBICS_UPLOAD_JOURNAL_WRITE_FIELD,
			type: 'hidden',
			default: '',
		},
	];

	/**
	 * Makes the keys, sends INI and HIA once, or fetches the bank's keys (HPB) once the bank has
	 * activated the subscriber; n8n stores what it returns, encrypted, in this credential. n8n runs
	 * it while the check field is empty (so at every test until the subscriber is ready) and when
	 * the EBICS node asks for it. A write to the upload journal (nodes/shared/ebicsUploadJournal.ts)
	 * is only stored: nothing is sent, the keys stay as they are.
	 */
	preAuthentication = keyServicePreAuthentication(async (credentials, send) => {
		const journalWrite = readUploadJournalWrite(credentials[EBICS_UPLOAD_JOURNAL_WRITE_FIELD]);
		if (journalWrite)
			return writeUploadJournal(credentials[EBICS_UPLOAD_JOURNAL_FIELD], journalWrite);
		return await runEbicsInitialisation(credentials, send);
	});

	/**
	 * Adds the TLS settings. The credential test's request is judged here from the state
	 * preAuthentication has just written (ready, or where the subscriber stands and what to do
	 * next); what n8n sends after it stays on this machine, so nothing reaches the bank twice.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return await authenticateEbics(credentials, requestOptions);
	}

	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			url: EBICS_CHECK_URL,
			headers: { [EBICS_CHECK_HEADER]: 'test' },
			json: false,
		},
	};
}
