import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import {
	clientProperties,
	fetchTokenFields,
	tlsProperties,
	tokenCacheProperties,
} from '../nodes/shared/common/credentialFields';
import {
	CLIENT_CREDENTIALS_AUTH,
	fxEndpoints,
	REPORT_PATH,
	FX_PATHS,
} from '../nodes/shared/fx/api';

export class CorporateBankingClientCredentialsApi implements ICredentialType {
	name = 'corporateBankingClientCredentialsApi';

	displayName = 'Corporate Banking Client Credentials API';

	icon: Icon = { light: 'file:../icons/bank.svg', dark: 'file:../icons/bank.dark.svg' };

	documentationUrl = 'https://unpkg.com/n8n-nodes-corporate-banking/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Sandbox', value: 'sandbox', description: 'Mocked data and simulated trades' },
				{ name: 'Production', value: 'production', description: 'Real data and real trades' },
				{
					name: 'Custom URLs',
					value: 'custom',
					description: 'Give the token, report and execution URLs one by one',
				},
			],
			default: 'sandbox',
		},
		{
			displayName: 'API Base URL',
			name: 'apiUrl',
			type: 'string',
			default: '',
			placeholder: 'https://sandbox-api.bank.example',
			description:
				"The host of the bank's APIs for this environment. The report API is under /v1/open-trades-service, execution under /v1/trade-service, the token endpoint at /oauth2/token.",
			displayOptions: { show: { environment: ['sandbox', 'production'] } },
		},
		{
			displayName: 'Token URL',
			name: 'tokenUrl',
			type: 'string',
			default: '',
			placeholder: 'https://auth.bank.example/oauth2/token',
			description: 'The OAuth2 token endpoint. Leave empty to use {API Base URL}/oauth2/token.',
		},
		{
			displayName: 'Trade Report Base URL',
			name: 'reportBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://api.bank.example/v1/open-trades-service',
			displayOptions: { show: { environment: ['custom'] } },
		},
		{
			displayName: 'Trade Execution Base URL',
			name: 'executionBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://api.bank.example/v1/trade-service',
			displayOptions: { show: { environment: ['custom'] } },
		},
		...clientProperties('The client ID received at onboarding'),
		...tlsProperties({ clientCertificate: 'optional' }),
		...tokenCacheProperties,
	];

	async preAuthentication(
		this: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
	): Promise<IDataObject> {
		return await fetchTokenFields(this.helpers, credentials, fxEndpoints(credentials).tokenUrl, {
			requireClientCertificate: false,
			tokenUrlField: 'Token URL (or API Base URL)',
		});
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return CLIENT_CREDENTIALS_AUTH.authenticate(credentials, requestOptions);
	}

	test: ICredentialTestRequest = {
		request: {
			method: 'GET',
			url:
				'={{$credentials.environment === "custom" ? $credentials.reportBaseUrl.replace(/\\/+$/, "")' +
				` : $credentials.apiUrl.replace(/\\/+$/, "") + "${REPORT_PATH}"}}${FX_PATHS.openTrades}`,
			qs: { limit: 1 },
		},
	};
}
