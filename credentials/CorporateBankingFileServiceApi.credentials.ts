import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { authenticateRequest, tlsProperties } from '../nodes/shared/credentialFields';

export class CorporateBankingFileServiceApi implements ICredentialType {
	name = 'corporateBankingFileServiceApi';

	displayName = 'Corporate Banking File Service API';

	icon: Icon = { light: 'file:../icons/bank.svg', dark: 'file:../icons/bank.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-corporate-banking#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Service URL',
			name: 'url',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://wsk.bank.example/services/CorporateFileService',
			description: 'The file service address for messages under 20 MB',
		},
		{
			displayName: 'Large File Service URL',
			name: 'largeFileUrl',
			type: 'string',
			default: '',
			placeholder: 'https://wsk-large.bank.example/services/CorporateFileService',
			description: 'The address that handles messages over 20 MB. Leave empty if the bank has only one.',
		},
		{
			displayName: 'Sender ID',
			name: 'senderId',
			type: 'string',
			default: '',
			required: true,
			description: 'RequestHeader SenderId: the user ID the bank gave you',
		},
		{
			displayName: 'Customer ID',
			name: 'customerId',
			type: 'string',
			default: '',
			required: true,
			description: 'ApplicationRequest CustomerId (1 to 16 characters); often the same as the Sender ID',
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
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Production', value: 'PRODUCTION' },
				{ name: 'Test', value: 'TEST' },
			],
			default: 'PRODUCTION',
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
		// A certificate is public: shown, so the user can see which one is set.
		// eslint-disable-next-line @n8n/community-nodes/credential-password-field
		{
			displayName: 'Signing Certificate',
			name: 'signingCertificate',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '-----BEGIN CERTIFICATE-----',
			description: 'The PEM certificate the bank issued for signing requests. Leave empty if the bank does not require signing.',
		},
		{
			displayName: 'Signing Private Key',
			name: 'signingPrivateKey',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			placeholder: '-----BEGIN PRIVATE KEY-----',
		},
		{
			displayName: 'Signing Key Passphrase',
			name: 'signingKeyPassphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
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
			description: "The bank's PEM signing certificate (or its CA). When set, signed responses are verified and a response that fails verification is rejected.",
		},
		...tlsProperties({ clientCertificate: 'optional' }),
	];

	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		return authenticateRequest('corporateBankingFileServiceApi', credentials, requestOptions);
	}

	test: ICredentialTestRequest = {
		request: {
			method: 'GET',
			url: '={{$credentials.url}}',
			qs: { wsdl: '' },
			json: false,
		},
	};
}
