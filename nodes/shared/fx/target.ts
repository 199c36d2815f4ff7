import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { BankRequestOptions, BankResponse } from '../transport/request';
import { bankRequest } from '../transport/request';
import { DEFAULT_RETRY } from '../transport/retry';
import { CLIENT_CREDENTIALS_AUTH } from './api';

/** What an FX operation sends; the target decides how (credential, TLS, timeout, retries). */
export type FxRequest = Pick<
	BankRequestOptions,
	'method' | 'url' | 'body' | 'headers' | 'idempotent' | 'timeoutMs'
>;

/** Sends one request to a target's API and returns its answer. */
export type FxSend = <T>(ctx: IExecuteFunctions, req: FxRequest) => Promise<BankResponse<T>>;

/**
 * Where an FX operation sends its requests: the bank's API with the node's credential
 * (`bankTarget` below), or the bank's mock service (nodes/BankMockService/helpers/target.ts).
 * Operations are written once against it and serve both.
 */
export interface FxTarget {
	/** Base URL of the API, e.g. https://api.bank.example/v1/open-trades-service */
	baseUrl: string;
	/** Sends a request with the target's credential, TLS, timeout and retry policy. */
	send: FxSend;
	/**
	 * Whether an execution sent here is a real trade. A failed one then says whether a trade may
	 * have been made; where nothing is traded, it says only what failed.
	 */
	realTrades: boolean;
	/** Whether a 404 from a list endpoint means "no trades" rather than a failure. */
	notFoundMeansEmpty: boolean;
	/** Fields the target adds to each output item, read from the answer the item came in. */
	itemFields?: (response: BankResponse) => IDataObject;
}

/** An FX operation: one input item against a target. */
export type FxOperation = (
	this: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
) => Promise<INodeExecutionData[]>;

/**
 * The bank's FX API at `baseUrl`, with the FX credential. Reads are retried after a 5xx, a 408,
 * a 429 or a network failure; the transport never retries a request that is not idempotent, so
 * an execution is sent once.
 */
export function bankTarget(baseUrl: string): FxTarget {
	return {
		baseUrl,
		send: async <T>(ctx: IExecuteFunctions, req: FxRequest) =>
			await bankRequest<T>(ctx, CLIENT_CREDENTIALS_AUTH, { ...req, retry: DEFAULT_RETRY }),
		realTrades: true,
		notFoundMeansEmpty: true,
	};
}
