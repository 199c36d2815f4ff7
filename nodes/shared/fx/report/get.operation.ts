import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { FX_PATHS } from '../api';
import type { FxOperation } from '../target';
import { isJsonObject, notJsonError, tradeJson } from '../trade';
import { FxValidator } from '../validation';
import { bankFailure } from '../../transport/errors';

export const description: INodeProperties[] = [
	{
		displayName: 'Trade ID',
		name: 'tradeId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'T250711A8787',
		description: 'The 12-character identifier of the trade',
		displayOptions: { show: { operation: ['get'] } },
	},
];

/** One trade by its 12-character trade ID. A 404 is an error: the trade does not exist. */
export const execute: FxOperation = async function (itemIndex, target) {
	const v = new FxValidator(itemIndex, this.getTimezone());
	const tradeId = v.tradeId('Trade ID', this.getNodeParameter('tradeId', itemIndex, ''));
	let response;
	try {
		response = await target.send<IDataObject>(this, {
			method: 'GET',
			url: `${target.baseUrl}${FX_PATHS.trade}/${encodeURIComponent(tradeId)}`,
			idempotent: true,
		});
	} catch (error) {
		throw bankFailure(error, {
			operation: 'Get trade',
			itemIndex,
			statusMessages: { 404: `Trade not found: no trade with ID ${tradeId}` },
		});
	}
	// A 200 that is not JSON (a maintenance page) arrives as text; spread into an item it would
	// become one field per character.
	if (!isJsonObject(response.body)) throw notJsonError('Get trade', response.body, itemIndex);
	return [{ json: tradeJson(target, response.body, response), pairedItem: { item: itemIndex } }];
};
