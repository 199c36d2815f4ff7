import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseBankErrorBody } from '../transport/errors';
import { cachedOriginOf } from '../transport/origin';
import type { BankRequestOptions, BankResponse } from '../transport/request';
import { bankRequest } from '../transport/request';
import type { RetryPolicy } from '../transport/retry';
import type { ClientTlsOptions } from '../transport/tls';

/**
 * Where an FX operation sends its requests: the bank's API with a credential, or the bank's mock
 * service without one. Operations are written once against this and serve both nodes.
 */
export interface FxTarget {
	/** Base URL of the API, e.g. https://api.bank.example/v1/open-trades-service */
	baseUrl: string;
	/** The credential type adding token and TLS; none for the mock service. */
	credentialType?: string;
	/** Retry policy for idempotent requests (reads). */
	readRetry?: RetryPolicy;
	/**
	 * Retry policy for requests that change state. Only the mock service sets it: it moves no
	 * money. For the real bank an execution is never sent twice.
	 */
	writeRetry?: RetryPolicy;
	/** Adds target-specific fields to each output item (the mock's x-mockdata-info header). */
	decorate?: (json: IDataObject, response: BankResponse) => IDataObject;
	/** Which failures may be retried; default: 5xx, 408, 429 and network failures. */
	retryable?: (error: unknown) => boolean;
	/**
	 * Whether a 404 from a list endpoint means "no trades" (the bank's API). The mock service
	 * answers 404 at random, so there it stays an error.
	 */
	notFoundMeansEmpty?: boolean;
	/** Called with the raw error when a request finally fails (after any retries). */
	onError?: (error: unknown) => void;
	/** Called before each retry. */
	onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
	random?: () => number;
	timeoutMs?: number;
	/** TLS settings for a target without a credential (the mock service). */
	tls?: ClientTlsOptions;
}

export async function fxRequest<T>(
	ctx: IExecuteFunctions,
	target: FxTarget,
	req: Omit<BankRequestOptions, 'retry' | 'onRetry' | 'random' | 'retryable'>,
): Promise<BankResponse<T>> {
	const retry = req.idempotent ? target.readRetry : target.writeRetry;
	const outcome = await bankRequest<T>(ctx, target.credentialType, {
		...req,
		idempotent: req.idempotent || !!target.writeRetry,
		retry,
		retryable: target.retryable,
		onRetry: target.onRetry,
		random: target.random,
		timeoutMs: req.timeoutMs ?? target.timeoutMs,
		tls: target.tls,
	}).then(
		(response) => ({ ok: true as const, response }),
		(error: unknown) => ({ ok: false as const, error }),
	);
	if (outcome.ok) return outcome.response;
	target.onError?.(outcome.error);
	throw outcome.error;
}

/** Whether a response body is a JSON object. A body that does not parse as JSON arrives as text. */
export function isJsonObject(body: unknown): body is IDataObject {
	return !!body && typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body);
}

/**
 * The error for a successful answer that is not the JSON the API promises (a gateway's maintenance
 * page, a proxy's login form): its text must never become items.
 */
export function notJsonError(
	ctx: IExecuteFunctions,
	operation: string,
	body: unknown,
	itemIndex: number,
): NodeOperationError {
	const seen = parseBankErrorBody(body).message;
	return new NodeOperationError(ctx.getNode(), `${operation}: the bank's answer is not JSON`, {
		itemIndex,
		description: `${seen ? `${seen}\n` : ''}Nothing was output. The bank, or something between n8n and the bank, answered with a page instead of data.`,
	});
}

/** Origin check for links the bank hands back: never follow one to another host. */
export function sameOriginUrl(base: string, link: string): URL | undefined {
	let resolved: URL;
	try {
		resolved = new URL(link, base);
	} catch {
		return undefined;
	}
	return resolved.origin === cachedOriginOf(base) ? resolved : undefined;
}

/** A number sent as text, as a number; anything else as it is. */
function num(value: string): unknown {
	return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
}

const PRICE_KEYS = ['allInPrice', 'spotPrice', 'forwardPrice'] as const;
const MONEY_KEYS = ['sold', 'bought'] as const;

/**
 * A trade or execution result as an n8n item: numbers as numbers, money objects kept. The object
 * is the one just parsed from the bank's answer and is changed in place, only where a value sent
 * as text needs converting (writing into every parsed trade costs time on large reports).
 */
export function shapeTrade(raw: IDataObject): IDataObject {
	for (const key of PRICE_KEYS) {
		const value = raw[key];
		if (typeof value === 'string') raw[key] = num(value) as IDataObject[string];
	}
	for (const key of MONEY_KEYS) {
		const money = raw[key];
		if (money && typeof money === 'object' && !Array.isArray(money)) {
			const amount = (money as IDataObject).amount;
			if (typeof amount === 'string')
				(money as IDataObject).amount = num(amount) as IDataObject[string];
		}
	}
	if (typeof raw.autoSettle === 'string') raw.autoSettle = raw.autoSettle === 'true';
	if (typeof raw.product === 'string') raw.productType = productType(raw.product);
	return raw;
}

const PRODUCT_TYPES: Record<string, 'Spot' | 'Forward' | 'Swap'> = {
	spot: 'Spot',
	sp: 'Spot',
	forward: 'Forward',
	fwd: 'Forward',
	outright: 'Forward',
	outrightforward: 'Forward',
	swap: 'Swap',
	sw: 'Swap',
};

/**
 * The bank's product name as one of Spot, Forward or Swap ("FWD", "FX Forward" and "Forward" are
 * the same product); null for a name not known to be one of them. The bank's own value stays in
 * `product`.
 */
export function productType(product: string): 'Spot' | 'Forward' | 'Swap' | null {
	const key = product
		.toLowerCase()
		.replace(/[^a-z]/g, '')
		.replace(/^fx/, '');
	return PRODUCT_TYPES[key] ?? null;
}
