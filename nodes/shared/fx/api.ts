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
