import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { trimUrl, withCredentialAuth } from '../common/credentialFields';
import type { BankCredential } from '../transport/request';

/** The credential type the FX nodes use: OAuth2 client credentials with optional client TLS. */
export const FX_CREDENTIAL = 'corporateBankingClientCredentialsApi';

/**
 * The FX operations' paths under their API's base URL: the bank's report and execution APIs and
 * the mock service's copies of them answer on the same paths.
 */
export const FX_PATHS = {
	/** Historical trades by execution date (Get Many). */
	trades: '/trade-reports',
	/** Trades still open (Get Open). */
	openTrades: '/trade-reports/open',
	/** One trade, followed by its URL-encoded trade ID (Get). */
	trade: '/trade-reports/trade',
	/** Executes one trade (Execute Trade). */
	execute: '/trade-execution/execute',
} as const;

/** Endpoints of the FX APIs from a client-credentials credential. */
export interface FxEndpoints {
	tokenUrl: string;
	reportBaseUrl: string;
	executionBaseUrl: string;
}

export const REPORT_PATH = '/v1/open-trades-service';
export const EXECUTION_PATH = '/v1/trade-service';

export function fxEndpoints(credentials: ICredentialDataDecryptedObject): FxEndpoints {
	if (credentials.environment === 'custom') {
		return {
			tokenUrl: trimUrl(credentials.tokenUrl),
			reportBaseUrl: trimUrl(credentials.reportBaseUrl),
			executionBaseUrl: trimUrl(credentials.executionBaseUrl),
		};
	}
	const api = trimUrl(credentials.apiUrl);
	const tokenUrl = trimUrl(credentials.tokenUrl);
	return {
		tokenUrl: tokenUrl || `${api}/oauth2/token`,
		reportBaseUrl: `${api}${REPORT_PATH}`,
		executionBaseUrl: `${api}${EXECUTION_PATH}`,
	};
}

/** The credential of the FX APIs: the bearer token, and the client certificate if there is one. */
export const CLIENT_CREDENTIALS_AUTH: BankCredential = {
	type: FX_CREDENTIAL,
	authenticate(credentials, requestOptions) {
		const endpoints = fxEndpoints(credentials);
		return withCredentialAuth(credentials, requestOptions, {
			bearer: true,
			allowedUrls: [endpoints.reportBaseUrl, endpoints.executionBaseUrl, endpoints.tokenUrl],
			what: 'bank credential',
		});
	},
};
