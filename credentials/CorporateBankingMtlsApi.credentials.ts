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
	MTLS_AUTH,
	mtlsTokenUrl,
	tlsProperties,
	tokenCacheProperties,
} from '../nodes/shared/common/credentialFields';

export class CorporateBankingMtlsApi implements ICredentialType {
	name = 'corporateBankingMtlsApi';

	displayName = 'Corporate Banking Mutual TLS API';

	icon: Icon = { light: 'file:../icons/bank.svg', dark: 'file:../icons/bank.dark.svg' };

	documentationUrl = 'https://unpkg.com/n8n-nodes-corporate-banking/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://mtls-api.bank.example',
			description:
				'The mutual-TLS host of the bank. The token endpoint is {Base URL}[/{Country Code}]/oauth2/token.',
		},
		{
			displayName: 'Other Allowed URLs',
			name: 'otherAllowedUrls',
			type: 'string',
			default: '',
			placeholder: 'https://events.bank.example',
			description:
				"The credential sends its token only to its Base URL's host. If the bank's event endpoint is on another host, give that URL here; several are separated by commas.",
		},
		{
			displayName: 'Country Code',
			name: 'countryCode',
			type: 'string',
			default: '',
			placeholder: 'gb',
			description:
				'Two-letter country code some regulated APIs put before /oauth2/token. Leave empty when the bank does not use one.',
		},
		...clientProperties(
			'The client ID registered with the network certificate at onboarding (tls_client_auth)',
		),
		...tlsProperties({ clientCertificate: 'required' }),
		...tokenCacheProperties,
	];

	async preAuthentication(
		this: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
	): Promise<IDataObject> {
		const country =
			typeof credentials.countryCode === 'string' ? credentials.countryCode.trim() : '';
		if (country && !/^[A-Za-z]{2}$/.test(country))
			throw new Error('Country Code: must be two letters, or empty');
		return await fetchTokenFields(this.helpers, credentials, mtlsTokenUrl(credentials), {
			requireClientCertificate: true,
			tokenUrlField: 'Base URL',
		});
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return MTLS_AUTH.authenticate(credentials, requestOptions);
	}

	test: ICredentialTestRequest = {
		request: {
			method: 'POST',
			url: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}/events',
			body: { maxEvents: 0, returnImmediately: true },
			json: true,
		},
	};
}
