import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { FxTarget } from '../../shared/fx/target';
import { FxValidator } from '../../shared/fx/validation';
import { listTrades, readPaging } from './list';

/** Historical trades by execution date range. */
export async function getMany(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
): Promise<INodeExecutionData[]> {
	const v = new FxValidator(ctx.getNode(), itemIndex, ctx.getTimezone());
	const startDate = v.date('Start Date', ctx.getNodeParameter('startDate', itemIndex, ''), {
		notFuture: true,
	});
	const endRaw = ctx.getNodeParameter('endDate', itemIndex, '');
	const endDate = endRaw ? v.date('End Date', endRaw, { notFuture: true }) : undefined;
	if (endDate && endDate < startDate)
		v.fail('End Date', `${endDate} is before the Start Date ${startDate}`);
	const paging = readPaging(ctx, itemIndex);
	return await listTrades(
		ctx,
		itemIndex,
		target,
		{
			path: '/trade-reports',
			operation: 'Get many trades',
			filters: { startDate, endDate, counterparts: paging.counterparts.join(',') || undefined },
		},
		paging,
	);
}
