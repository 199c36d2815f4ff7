import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { FxTarget } from '../../shared/fx/target';
import {
	fxRequest,
	isJsonObject,
	notJsonError,
	sameOriginUrl,
	shapeTrade,
} from '../../shared/fx/target';
import { FxValidator } from '../../shared/fx/validation';
import { extractErrorInfo, toBankApiError } from '../../shared/transport/errors';

interface TradePage {
	items?: IDataObject[];
	next?: string | null;
	previous?: string | null;
}

export interface ListRequest {
	/** Path under the report base URL, e.g. '/trade-reports'. */
	path: string;
	/** Filters other than paging (startDate, endDate, counterparts). */
	filters: IDataObject;
	operation: string;
}

/** Reads the paging parameters every list operation shares. */
export function readPaging(ctx: IExecuteFunctions, itemIndex: number) {
	const v = new FxValidator(ctx.getNode(), itemIndex, ctx.getTimezone());
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? Infinity
		: v.integer('Limit', ctx.getNodeParameter('limit', itemIndex, 50), 1);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const offset = v.integer('Offset', options.offset ?? 0, 0);
	const pageSize = v.integer('Page Size (limit)', options.pageSize ?? 100, 1, 100);
	return {
		returnAll,
		limit,
		offset,
		pageSize,
		counterparts: v.counterparts(
			'Counterparts',
			ctx.getNodeParameter('counterparts', itemIndex, ''),
		),
	};
}

/**
 * Follows the bank's pages: Return All walks `next` links to the end; a Limit stops as soon as
 * that many trades are in, asking for pages no larger than needed. `next` links are followed
 * only on the base URL's origin. A 404 means "no trades" and gives no items.
 */
export async function listTrades(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
	req: ListRequest,
	paging: { limit: number; offset: number; pageSize: number },
): Promise<INodeExecutionData[]> {
	const out: INodeExecutionData[] = [];
	const firstQs: IDataObject = {
		...req.filters,
		offset: paging.offset,
		limit: Math.min(paging.pageSize, paging.limit),
	};
	let url = new URL(`${target.baseUrl}${req.path}`);
	for (const [k, v] of Object.entries(firstQs)) {
		if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
	}
	const seen = new Set<string>();
	// One pairing for every trade of this input item, as n8n's own helpers pair their items.
	const pairedItem = { item: itemIndex };
	while (true) {
		const href = url.toString();
		if (seen.has(href)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`${req.operation}: the bank returned the same next page twice; stopping to avoid a loop`,
				{ itemIndex },
			);
		}
		seen.add(href);
		let page: TradePage;
		let response;
		try {
			response = await fxRequest<TradePage>(ctx, target, {
				method: 'GET',
				url: href,
				idempotent: true,
			});
			page = response.body ?? {};
		} catch (error) {
			if (target.notFoundMeansEmpty !== false && extractErrorInfo(error).status === 404) break;
			throw toBankApiError(ctx.getNode(), error, { operation: req.operation, itemIndex });
		}
		if (!isJsonObject(page as unknown)) throw notJsonError(ctx, req.operation, page, itemIndex);
		if (!Array.isArray(page.items)) {
			throw new NodeOperationError(
				ctx.getNode(),
				`${req.operation}: the bank's answer has no "items" list`,
				{ itemIndex },
			);
		}
		for (const trade of page.items) {
			if (out.length >= paging.limit) break;
			if (!isJsonObject(trade)) {
				throw new NodeOperationError(
					ctx.getNode(),
					`${req.operation}: the bank's answer lists an item that is not a trade object`,
					{ itemIndex },
				);
			}
			const json = shapeTrade(trade);
			out.push({ json: target.decorate ? target.decorate(json, response) : json, pairedItem });
		}
		if (out.length >= paging.limit || !page.next) break;
		const next = sameOriginUrl(target.baseUrl, page.next);
		if (!next) {
			throw new NodeOperationError(
				ctx.getNode(),
				`${req.operation}: the bank's next-page link points to another host; it was not followed and no credential was sent there`,
				{ itemIndex, description: `Expected a link on ${new URL(target.baseUrl).origin}.` },
			);
		}
		const remaining = paging.limit - out.length;
		if (Number.isFinite(remaining) && next.searchParams.has('limit')) {
			next.searchParams.set('limit', String(Math.min(paging.pageSize, remaining)));
		}
		url = next;
	}
	return out;
}
