import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { cachedOriginOf, originOf, webAddressProblem } from '../transport/origin';
import type { BankCredential } from '../transport/request';
import type { ClientTlsOptions } from '../transport/tls';
import { buildTlsOptions } from '../transport/tls';
import { getClientCredentialsToken } from '../transport/token';

/** A credential field is missing or breaks its rule; the message starts with the field's name. */
export class CredentialFieldError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CredentialFieldError';
	}
}

/** The CA certificate field: the authority that signed the server's certificate, when private. */
export function caCertificateField(signed: string): INodeProperties {
	return {
		displayName: 'CA Certificate',
		name: 'caCertificate',
		type: 'string',
		// A certificate is public: shown, so the user can see which one is set.
		typeOptions: { rows: 4 },
		default: '',
		placeholder: '-----BEGIN CERTIFICATE-----',
		description: `PEM certificate(s) of the authority that signed ${signed}, when it is not a public one`,
	};
}

/**
 * Credential fields for TLS: the bank's CA, an optional client certificate, and the explicit
 * opt-out.
 */
export function tlsProperties(options: {
	clientCertificate: 'optional' | 'required';
}): INodeProperties[] {
	const showClient =
		options.clientCertificate === 'optional'
			? { displayOptions: { show: { useClientCertificate: [true] } } }
			: {};
	const props: INodeProperties[] = [];
	if (options.clientCertificate === 'optional') {
		props.push({
			displayName: 'Use Client Certificate',
			name: 'useClientCertificate',
			type: 'boolean',
			default: false,
			description: 'Whether to present a TLS client certificate (mutual TLS) on every connection',
		});
	}
	props.push(
		{
			displayName: 'Client Certificate',
			name: 'certificate',
			type: 'string',
			// A certificate is public: shown, so the user can see which one is set.
			typeOptions: { rows: 4 },
			default: '',
			required: options.clientCertificate === 'required',
			placeholder: '-----BEGIN CERTIFICATE-----',
			description:
				'The PEM certificate registered with the bank (with its chain, if the bank asks for it)',
			...showClient,
		},
		{
			displayName: 'Private Key',
			name: 'privateKey',
			type: 'string',
			typeOptions: { password: true, rows: 4 },
			default: '',
			required: options.clientCertificate === 'required',
			placeholder: '-----BEGIN PRIVATE KEY-----',
			description: 'The PEM private key of the client certificate',
			...showClient,
		},
		{
			displayName: 'Passphrase',
			name: 'passphrase',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'The passphrase of the private key, if it is encrypted',
			...showClient,
		},
		caCertificateField("the bank's server certificate"),
		{
			displayName: 'Ignore TLS Certificate Errors',
			name: 'allowUnauthorizedCerts',
			type: 'boolean',
			default: false,
			description: 'Whether to connect even if SSL certificate validation is not possible',
		},
		{
			displayName:
				'Turning off certificate verification exposes tokens, files and trades to anyone on the network path. Use it only against a local test server.',
			name: 'allowUnauthorizedCertsNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { allowUnauthorizedCerts: [true] } },
		},
	);
	return props;
}

/** Client TLS options from the credential fields above (validated; errors name the field). */
export function tlsFromCredentials(
	credentials: ICredentialDataDecryptedObject,
): ClientTlsOptions | undefined {
	// One credential object is read once per node run and used for every page: check it once.
	const known = tlsByCredentials.get(credentials);
	const now = Date.now();
	if (known && now - known.at < 60_000 && now >= known.at) return known.options;
	const options = checkedTls(credentials);
	tlsByCredentials.set(credentials, { at: now, options });
	return options;
}

const tlsByCredentials = new WeakMap<
	ICredentialDataDecryptedObject,
	{ at: number; options: ClientTlsOptions | undefined }
>();

function checkedTls(credentials: ICredentialDataDecryptedObject): ClientTlsOptions | undefined {
	return tlsOptionsOf(
		credentials,
		credentials.useClientCertificate === undefined || credentials.useClientCertificate === true,
	);
}

/** Client TLS options from the TLS fields, with the client certificate only when `useClient`. */
export function tlsOptionsOf(
	credentials: ICredentialDataDecryptedObject,
	useClient: boolean,
): ClientTlsOptions | undefined {
	return buildTlsOptions({
		caCertificate: credentials.caCertificate,
		certificate: useClient ? credentials.certificate : '',
		privateKey: useClient ? credentials.privateKey : '',
		passphrase: useClient ? credentials.passphrase : '',
		allowUnauthorizedCerts: credentials.allowUnauthorizedCerts,
	});
}

/** The client of the client-credentials grant: its ID (described per credential) and the scope. */
export function clientProperties(clientIdDescription: string): INodeProperties[] {
	return [
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: clientIdDescription,
		},
		{
			displayName: 'Scope',
			name: 'scope',
			type: 'string',
			default: 'accounts',
			description: 'Space-separated scopes; must contain "accounts"',
		},
	];
}

/** Hidden fields where n8n keeps the current access token (expirable) and its expiry. */
export const tokenCacheProperties: INodeProperties[] = [
	{
		displayName: 'Access Token',
		name: 'accessToken',
		type: 'hidden',
		typeOptions: { expirable: true, password: true },
		default: '',
	},
	{
		displayName: 'Token Expires At',
		name: 'tokenExpiresAt',
		type: 'hidden',
		default: 0,
	},
];

export function trimUrl(value: unknown): string {
	return typeof value === 'string' ? value.trim().replace(/\/+$/, '') : '';
}

/** The mutual-TLS token URL: `{base}[/{country}]/oauth2/token`. */
export function mtlsTokenUrl(credentials: ICredentialDataDecryptedObject): string {
	const base = trimUrl(credentials.baseUrl);
	const country =
		typeof credentials.countryCode === 'string' ? credentials.countryCode.trim().toLowerCase() : '';
	return `${base}${country ? `/${country}` : ''}/oauth2/token`;
}

/**
 * The client-credentials grant behind a credential's preAuthentication: checks the fields, gets
 * the token (over mutual TLS when the credential has a client certificate) and returns the hidden
 * fields n8n stores in the credential.
 */
export async function fetchTokenFields(
	helpers: IHttpRequestHelper['helpers'],
	credentials: ICredentialDataDecryptedObject,
	tokenUrl: string,
	options: { requireClientCertificate: boolean; tokenUrlField: string },
): Promise<IDataObject> {
	const problem = webAddressProblem(options.tokenUrlField, tokenUrl);
	if (problem) throw new Error(problem);
	const clientId = String(credentials.clientId ?? '').trim();
	if (!clientId) throw new Error('Client ID: required');
	const scope = String(credentials.scope ?? '').trim() || 'accounts';
	if (!scope.split(/\s+/).includes('accounts')) throw new Error('Scope: must contain "accounts"');
	const tls = tlsFromCredentials(credentials);
	if (options.requireClientCertificate && !tls?.cert)
		throw new Error('Client Certificate: required for tls_client_auth');
	const token = await getClientCredentialsToken(
		helpers,
		{ tokenUrl, clientId, scope, tls },
		typeof credentials.accessToken === 'string' ? credentials.accessToken : undefined,
	);
	return { accessToken: token.accessToken, tokenExpiresAt: token.expiresAt };
}

/**
 * What a credential's authenticate adds to a request: the client TLS material and, for token
 * credentials, the bearer token. With `allowedUrls`, a request to any other origin is refused
 * before anything is sent.
 */
export function withCredentialAuth(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
	options: { bearer: boolean; allowedUrls?: string[]; what: string; hint?: string },
): IHttpRequestOptions {
	if (options.allowedUrls) {
		const target = requestOptions.baseURL
			? originOf(new URL(requestOptions.url, requestOptions.baseURL).toString())
			: originOf(requestOptions.url);
		const allowed = options.allowedUrls.filter(Boolean).map(cachedOriginOf);
		if (!target || !allowed.includes(target)) {
			throw new Error(
				`Refusing to send the ${options.what} to ${target ?? 'an invalid URL'}: it is not one of the credential's URLs${options.hint ? `. ${options.hint}` : ''}`,
			);
		}
	}
	const tls = tlsFromCredentials(credentials);
	return {
		...requestOptions,
		...(options.bearer
			? {
					headers: {
						...(requestOptions.headers ?? {}),
						Authorization: `Bearer ${String(credentials.accessToken ?? '')}`,
					},
				}
			: {}),
		...(tls ? { agentOptions: { ...(requestOptions.agentOptions ?? {}), ...tls } } : {}),
	};
}

/** The mutual-TLS credential: the client certificate and the bearer token. */
export const MTLS_AUTH: BankCredential = {
	type: 'corporateBankingMtlsApi',
	authenticate(credentials, requestOptions) {
		return withCredentialAuth(credentials, requestOptions, {
			bearer: true,
			allowedUrls: [
				trimUrl(credentials.baseUrl),
				...String(credentials.otherAllowedUrls ?? '')
					.split(',')
					.map(trimUrl),
			],
			what: 'bank credential',
			hint: "If the bank's event endpoint is there, add its URL to Other Allowed URLs in the credential.",
		});
	},
};
