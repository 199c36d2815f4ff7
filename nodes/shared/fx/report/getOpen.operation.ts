import type { INodeProperties } from 'n8n-workflow';

import { FX_PATHS } from '../api';
import type { FxOperation } from '../target';
import { listTrades } from './listTrades';

/**
 * Get Open has no fields of its own: its filter and paging fields, shared with Get Many, are in
 * helpers/listTrades.ts.
 */
export const description: INodeProperties[] = [];

/** Trades still open, by maturity or settlement date. */
export const execute: FxOperation = async function (itemIndex, target) {
	return await listTrades(this, itemIndex, target, {
		path: FX_PATHS.openTrades,
		operation: 'Get open trades',
		filters: {},
	});
};
