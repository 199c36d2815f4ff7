import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { FxTarget } from '../../shared/fx/target';
import { listTrades, readPaging } from './list';

/** Trades still open, by maturity or settlement date. */
export async function getOpen(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
): Promise<INodeExecutionData[]> {
	const paging = readPaging(ctx, itemIndex);
	return await listTrades(
		ctx,
		itemIndex,
		target,
		{
			path: '/trade-reports/open',
			operation: 'Get open trades',
			filters: { counterparts: paging.counterparts.join(',') || undefined },
		},
		paging,
	);
}
