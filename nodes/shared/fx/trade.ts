import type { IDataObject } from 'n8n-workflow';

import { BankFailure } from '../common/errors';
import { parseBankErrorBody } from '../transport/errors';
import type { BankResponse } from '../transport/request';
import type { FxTarget } from './target';

/** Whether a response body is a JSON object. A body that does not parse as JSON arrives as text. */
export function isJsonObject(body: unknown): body is IDataObject {
	return !!body && typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body);
}

/**
 * The failure for a successful answer that is not the JSON the API promises (a gateway's
 * maintenance page, a proxy's login form): its text must never become items.
 */
export function notJsonError(operation: string, body: unknown, itemIndex: number): BankFailure {
	const seen = parseBankErrorBody(body).message;
	return new BankFailure(`${operation}: the bank's answer is not JSON`, {
		body: seen ? { message: seen } : {},
		itemIndex,
		description: `${seen ? `${seen}\n` : ''}Nothing was output. The bank, or something between n8n and the bank, answered with a page instead of data.`,
	});
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

/** A trade from the target's answer as an item's JSON, with the fields the target adds. */
export function tradeJson(target: FxTarget, raw: IDataObject, response: BankResponse): IDataObject {
	const json = shapeTrade(raw);
	return target.itemFields ? { ...json, ...target.itemFields(response) } : json;
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
