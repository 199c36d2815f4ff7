import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { FxTarget } from '../../shared/fx/target';
import { fxRequest, isJsonObject, notJsonError, shapeTrade } from '../../shared/fx/target';
import { FxValidator } from '../../shared/fx/validation';
import { toBankApiError } from '../../shared/transport/errors';

/** One trade by its 12-character trade ID. A 404 is an error: the trade does not exist. */
export async function get(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
): Promise<INodeExecutionData[]> {
	const v = new FxValidator(ctx.getNode(), itemIndex, ctx.getTimezone());
	const tradeId = v.tradeId('Trade ID', ctx.getNodeParameter('tradeId', itemIndex, ''));
	let response;
	try {
		response = await fxRequest<IDataObject>(ctx, target, {
			method: 'GET',
			url: `${target.baseUrl}/trade-reports/trade/${encodeURIComponent(tradeId)}`,
			idempotent: true,
		});
	} catch (error) {
		throw toBankApiError(ctx.getNode(), error, {
			operation: 'Get trade',
			itemIndex,
			statusMessages: { 404: `Trade not found: no trade with ID ${tradeId}` },
		});
	}
	// A 200 that is not JSON (a maintenance page) arrives as text; spread into an item it would
	// become one field per character.
	if (!isJsonObject(response.body)) throw notJsonError(ctx, 'Get trade', response.body, itemIndex);
	const json = shapeTrade(response.body);
	return [
		{
			json: target.decorate ? target.decorate(json, response) : json,
			pairedItem: { item: itemIndex },
		},
	];
}
