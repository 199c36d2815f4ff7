import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import {
	authenticateSftp,
	SFTP_CHECK_FIELD,
	SFTP_CHECK_HEADER,
	SFTP_CHECK_URL,
	SFTP_CREDENTIAL,
	SFTP_GENERATED_KEY_FIELD,
	SFTP_KEYS_FIELD,
	SFTP_KEYS_UNTESTED,
	sftpPreAuthentication,
} from '../nodes/shared/sftp/credential/sftpCredential';
import {
	SFTP_UPLOAD_JOURNAL_FIELD,
	SFTP_UPLOAD_JOURNAL_WRITE_FIELD,
} from '../nodes/shared/sftp/journal/uploadJournal';
import { SFTP_PROFILES } from '../nodes/shared/sftp/profiles';

const sshKey = { show: { authentication: ['privateKey'] } };
const password = { show: { authentication: ['password'] } };
const importedKey = { show: { pgpKeySource: ['imported'] } };
const generatedKey = { show: { pgpKeySource: ['generated'] } };
const customFolders = { show: { bankProfile: ['custom'] } };

export class CorporateBankingSftpApi implements ICredentialType {
	name = SFTP_CREDENTIAL;

	displayName = 'Bank SFTP (Host-to-Host)';

	icon: Icon = { light: 'file:../icons/sftp.svg', dark: 'file:../icons/sftp.dark.svg' };

	documentationUrl = 'https://unpkg.com/n8n-nodes-corporate-banking/docs/sftp.md';

	properties: INodeProperties[] = [
		{
			displayName:
				"Saving this credential tests it: it connects, checks the server's host key against the fingerprint below, logs in and lists the incoming folder. With the fingerprint empty the test shows the server's fingerprint and refuses: compare it with the one your bank gave you before pasting it.",
			name: 'sftpNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Host',
			name: 'host',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'sftp.bank.example',
			description: "The bank's SFTP server, as its host-to-host onboarding gives it",
		},
		{
			// Text, not n8n's number box: that box puts back the previous number when letters are
			// typed, so a typo would become another port; the credential's test names the field.
			displayName: 'Port',
			name: 'port',
			type: 'string',
			default: '22',
			placeholder: '22',
			description: 'The port of the SFTP server, digits only (22 when empty)',
		},
		{
			displayName: 'User',
			name: 'username',
			type: 'string',
			default: '',
			required: true,
		},
		{
			displayName: 'Authentication',
			name: 'authentication',
			type: 'options',
			options: [
				{ name: 'SSH Key', value: 'privateKey' },
				{ name: 'Password', value: 'password' },
			],
			default: 'privateKey',
		},
		{
			displayName: 'SSH Private Key',
			name: 'privateKey',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			placeholder: '-----BEGIN OPENSSH PRIVATE KEY-----',
			displayOptions: sshKey,
			description: 'The key whose public half the bank registered for your user',
		},
		{
			displayName: 'SSH Key Passphrase',
			name: 'passphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: sshKey,
			description: 'Only for a protected key',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: password,
		},
		{
			displayName: 'Host Key Fingerprint',
			name: 'hostKeyFingerprint',
			type: 'string',
			default: '',
			placeholder: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
			description:
				"The server's host key fingerprint as OpenSSH prints it (SHA256:...), from your bank. Several may be given, separated by spaces, while the bank changes its key. Empty: the test shows the server's and refuses.",
		},
		{
			displayName: 'Bank Profile',
			name: 'bankProfile',
			type: 'options',
			options: [
				{
					name: 'Custom',
					value: 'custom',
					description: "Every folder typed in, as the bank's host-to-host onboarding gives it",
				},
				...Object.values(SFTP_PROFILES).map((p) => ({
					name: p.name,
					value: p.id,
					description: `Files to the bank in ${p.outgoing}, from the bank in ${p.incoming} (the bank's public SFTP page)`,
				})),
			],
			default: 'custom',
			description:
				'The folders of a bank whose public host-to-host page names them; Custom for any other bank, or for folders the bank set up otherwise for you',
		},
		...Object.values(SFTP_PROFILES).map(
			(p): INodeProperties => ({
				displayName: `${p.name}: files to the bank go to ${p.outgoing}, the bank's files are read from ${p.incoming}, as ${p.source.url} names them. If your bank set up other folders for you, choose Custom.`,
				name: `${p.id}ProfileNotice`,
				type: 'notice',
				default: '',
				displayOptions: { show: { bankProfile: [p.id] } },
			}),
		),
		{
			displayName: 'Outgoing Folder',
			name: 'outgoingFolder',
			type: 'string',
			default: 'outgoing',
			description: 'Where files to the bank are put (payments)',
			displayOptions: customFolders,
		},
		{
			displayName: 'Incoming Folder',
			name: 'incomingFolder',
			type: 'string',
			default: 'incoming',
			description: 'Where the bank puts its files (statements, acknowledgements)',
			displayOptions: customFolders,
		},
		{
			displayName: 'Archive Folder',
			name: 'archiveFolder',
			type: 'string',
			default: 'archive',
			description: 'Where files taken from the incoming folder are moved, when chosen',
		},
		{
			displayName: 'Your OpenPGP Key',
			name: 'pgpKeySource',
			type: 'options',
			options: [
				{
					name: 'None',
					value: 'none',
					description: 'Files are neither signed nor decrypted',
				},
				{
					name: 'Paste a Key',
					value: 'imported',
					description: 'Your signing and decryption key, armoured',
				},
				{
					name: 'Make a Key in N8n',
					value: 'generated',
					description:
						"The test makes it once; the Bank SFTP node's Key Information shows the public key to send to the bank",
				},
			],
			default: 'none',
		},
		{
			displayName: 'Your OpenPGP Private Key',
			name: 'pgpPrivateKey',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			placeholder: '-----BEGIN PGP PRIVATE KEY BLOCK-----',
			displayOptions: importedKey,
		},
		{
			displayName: 'Your OpenPGP Private Key Passphrase',
			name: 'pgpPassphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: importedKey,
		},
		{
			displayName: 'Key Type',
			name: 'pgpKeyType',
			type: 'options',
			options: [
				{ name: 'RSA 4096', value: 'rsa4096' },
				{ name: 'RSA 3072', value: 'rsa3072' },
				{ name: 'RSA 2048', value: 'rsa2048' },
				{ name: 'ECC (Ed25519 / Curve25519)', value: 'ecc' },
			],
			default: 'rsa4096',
			displayOptions: generatedKey,
			description: 'What your bank asks for; most host-to-host guides ask for RSA 2048 to 4096',
		},
		{
			displayName: 'Key Name',
			name: 'pgpUserName',
			type: 'string',
			default: '',
			displayOptions: generatedKey,
			description: "The key's user ID name, usually your company",
		},
		{
			displayName: 'Key Email',
			name: 'pgpUserEmail',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			displayOptions: generatedKey,
		},
		{
			displayName: "Bank's OpenPGP Public Keys",
			name: 'bankPublicKeys',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '-----BEGIN PGP PUBLIC KEY BLOCK-----',
			description:
				"The bank's public key (or keys, one block after another): files to the bank are encrypted to them, files from the bank must be signed by one of them. The Bank SFTP node's Key Information shows their fingerprints to compare with the bank's.",
		},
		{
			// Written by the credential's test, never typed: n8n shows it as text to read and copy.
			displayName: 'Key Fingerprints',
			name: SFTP_KEYS_FIELD,
			type: 'string',
			typeOptions: { copyButton: true },
			default: SFTP_KEYS_UNTESTED,
			description:
				"The fingerprints of the bank's keys and of yours, as gpg prints them, as the credential's last test read them when this window was opened: compare them with what the bank gave you",
		},
		{
			displayName: 'Signature Hash',
			name: 'hashAlgorithm',
			type: 'options',
			options: [
				{ name: 'SHA-256', value: 'sha256' },
				{ name: 'SHA-384', value: 'sha384' },
				{ name: 'SHA-512', value: 'sha512' },
			],
			default: 'sha256',
		},
		{
			displayName: 'Cipher',
			name: 'cipherAlgorithm',
			type: 'options',
			options: [
				{ name: 'AES-256', value: 'aes256' },
				{ name: 'AES-192', value: 'aes192' },
				{ name: 'AES-128', value: 'aes128' },
			],
			default: 'aes256',
		},
		{
			displayName: 'Check',
			name: SFTP_CHECK_FIELD,
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			displayName: 'OpenPGP Key Made in N8n',
			name: SFTP_GENERATED_KEY_FIELD,
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Upload Journal',
			name: SFTP_UPLOAD_JOURNAL_FIELD,
			type: 'hidden',
			default: '',
		},
		{
			displayName: 'Upload Journal Write',
			name: SFTP_UPLOAD_JOURNAL_WRITE_FIELD,
			type: 'hidden',
			default: '',
		},
	];

	/**
	 * Writes the upload journal when the node asks for it (nothing else), or makes the customer's
	 * OpenPGP key once when it is to be made in n8n. n8n stores what it returns, encrypted.
	 */
	async preAuthentication(credentials: ICredentialDataDecryptedObject): Promise<IDataObject> {
		return await sftpPreAuthentication(credentials);
	}

	/** The credential test is judged here (login, host key, incoming folder); nothing else goes out. */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return await authenticateSftp(credentials, requestOptions);
	}

	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			url: SFTP_CHECK_URL,
			headers: { [SFTP_CHECK_HEADER]: 'test' },
			json: false,
		},
	};
}
