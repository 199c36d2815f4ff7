import type { INodeProperties } from 'n8n-workflow';

import { FX_PATHS } from '../api';
import type { FxOperation } from '../target';
import { FxValidator } from '../validation';
import { dayProperties } from '../../common/properties';
import { listTrades } from './listTrades';

/**
 * Get Many's own fields; the filter and paging fields it shares with Get Open are in
 * helpers/listTrades.ts.
 */
export const description: INodeProperties[] = [
	...dayProperties({
		displayName: 'Start Date',
		name: 'startDate',
		description: 'First trade execution date to include (not in the future), as YYYY-MM-DD',
		displayOptions: { show: { operation: ['getMany'] } },
		required: true,
	}),
	...dayProperties({
		displayName: 'End Date',
		name: 'endDate',
		description:
			'Last trade execution date to include (not in the future, not before the start date), as YYYY-MM-DD. Empty: up to today.',
		displayOptions: { show: { operation: ['getMany'] } },
	}),
];

/** Historical trades by execution date range. */
export const execute: FxOperation = async function (itemIndex, target) {
	const v = new FxValidator(itemIndex, this.getTimezone());
	const startDate = v.date('Start Date', this.getNodeParameter('startDate', itemIndex, ''), {
		notFuture: true,
	});
	const endRaw = this.getNodeParameter('endDate', itemIndex, '');
	const endDate = endRaw ? v.date('End Date', endRaw, { notFuture: true }) : undefined;
	if (endDate && endDate < startDate)
		v.fail('End Date', `${endDate} is before the Start Date ${startDate}`);
	return await listTrades(this, itemIndex, target, {
		path: FX_PATHS.trades,
		operation: 'Get many trades',
		filters: { startDate, endDate },
	});
};
