import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { BankFailure } from '../../common/errors';
import type { FxTarget } from '../target';
import { isJsonObject, notJsonError, tradeJson } from '../trade';
import { FxValidator } from '../validation';
import { bankFailure, extractErrorInfo } from '../../transport/errors';
import { cachedOriginOf } from '../../transport/origin';
import type { BankResponse } from '../../transport/request';

/** Shown for the list operations (and, for Limit, when Return All is off). */
const forLists = (show: Record<string, boolean[]> = {}) => ({
	show: { operation: ['getMany', 'getOpen'], ...show },
});

/** The filter and paging fields of the two list operations, Get Many and Get Open. */
export const listDescription: INodeProperties[] = [
	{
		displayName: 'Counterparts',
		name: 'counterparts',
		type: 'string',
		default: '',
		placeholder: 'CP123, CP456',
		description: 'Only trades with these counterpart identifiers (comma-separated). Empty: all.',
		displayOptions: forLists(),
	},
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		displayOptions: forLists(),
	},
	// No minValue: n8n's number input would turn a typed 0 or -5 into another valid limit. The
	// node refuses anything but a whole number of at least 1, naming the field.
	// eslint-disable-next-line n8n-nodes-base/node-param-type-options-missing-from-limit
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		description: 'Max number of results to return',
		displayOptions: forLists({ returnAll: [false] }),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: forLists(),
		options: [
			{
				displayName: 'Offset',
				name: 'offset',
				type: 'number',
				default: 0,
				description: 'Skip this many trades before the first one returned (for paging yourself)',
			},
			{
				displayName: 'Page Size',
				name: 'pageSize',
				type: 'number',
				default: 100,
				description: "Trades asked for per request (the bank's limit parameter, 1 to 100)",
			},
		],
	},
];

interface TradePage {
	items?: IDataObject[];
	next?: string | null;
	previous?: string | null;
}

export interface ListRequest {
	/** Path under the report base URL, e.g. '/trade-reports'. */
	path: string;
	/** The operation's own filters (startDate, endDate); Counterparts and paging are added. */
	filters: IDataObject;
	operation: string;
}

/** Reads the filter and paging parameters every list operation shares. */
function readPaging(ctx: IExecuteFunctions, itemIndex: number) {
	const v = new FxValidator(itemIndex, ctx.getTimezone());
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll
		? Infinity
		: v.integer('Limit', ctx.getNodeParameter('limit', itemIndex, 50), 1);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const offset = v.integer('Offset', options.offset ?? 0, 0);
	const pageSize = v.integer('Page Size (limit)', options.pageSize ?? 100, 1, 100);
	return {
		limit,
		offset,
		pageSize,
		counterparts: v.counterparts(
			'Counterparts',
			ctx.getNodeParameter('counterparts', itemIndex, ''),
		),
	};
}

/** Origin check for links the bank hands back: never follow one to another host. */
function sameOriginUrl(base: string, link: string): URL | undefined {
	let resolved: URL;
	try {
		resolved = new URL(link, base);
	} catch {
		return undefined;
	}
	return resolved.origin === cachedOriginOf(base) ? resolved : undefined;
}

/**
 * Reads Counterparts and the paging fields, then follows the bank's pages: Return All walks
 * `next` links to the end; a Limit stops as soon as that many trades are in, asking for pages no
 * larger than needed. `next` links are followed only on the base URL's origin. A 404 means "no
 * trades" and gives no items where the target says so.
 */
export async function listTrades(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
	req: ListRequest,
): Promise<INodeExecutionData[]> {
	const paging = readPaging(ctx, itemIndex);
	const out: INodeExecutionData[] = [];
	const firstQs: IDataObject = {
		...req.filters,
		counterparts: paging.counterparts.join(',') || undefined,
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
	const unusable = (problem: string, description?: string) =>
		new BankFailure(`${req.operation}: ${problem}`, { body: {}, itemIndex, description });
	while (true) {
		const href = url.toString();
		if (seen.has(href)) {
			throw unusable('the bank returned the same next page twice; stopping to avoid a loop');
		}
		seen.add(href);
		let page: TradePage;
		let response: BankResponse<TradePage>;
		try {
			response = await target.send<TradePage>(ctx, { method: 'GET', url: href, idempotent: true });
			page = response.body ?? {};
		} catch (error) {
			if (target.notFoundMeansEmpty && extractErrorInfo(error).status === 404) break;
			throw bankFailure(error, { operation: req.operation, itemIndex });
		}
		if (!isJsonObject(page as unknown)) throw notJsonError(req.operation, page, itemIndex);
		if (!Array.isArray(page.items)) throw unusable('the bank\'s answer has no "items" list');
		for (const trade of page.items) {
			if (out.length >= paging.limit) break;
			if (!isJsonObject(trade)) {
				throw unusable("the bank's answer lists an item that is not a trade object");
			}
			out.push({ json: tradeJson(target, trade, response), pairedItem });
		}
		if (out.length >= paging.limit || !page.next) break;
		const next = sameOriginUrl(target.baseUrl, page.next);
		if (!next) {
			throw unusable(
				"the bank's next-page link points to another host; it was not followed and no credential was sent there",
				`Expected a link on ${cachedOriginOf(target.baseUrl)}.`,
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
