import type { INodeProperties } from 'n8n-workflow';

import type { EbicsOperation } from '../../shared/ebics/node/context';
import { veuOrderJson } from '../helpers/veuOrder';

const displayOptions = { show: { operation: ['veuOrders'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Include Data Digests (HVZ)',
		name: 'veuWithDigests',
		type: 'boolean',
		default: false,
		description:
			"Whether to ask with HVZ instead of HVU, which adds each order's data digest (dataDigest)",
		displayOptions,
	},
];

/**
 * Get Orders Waiting (HVU, or HVZ with the digests): one item per order of the distributed
 * signature waiting for signatures; none when no order waits.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const withDigests = ctx.getNodeParameter('veuWithDigests', itemIndex, false) === true;
	const orders = await run.veu!.orders({ withDigests });
	if (!orders.length) {
		ctx.addExecutionHints({
			type: 'info',
			location: 'outputPane',
			message: `No order waits for signatures in the distributed signature (${withDigests ? 'HVZ' : 'HVU'}): no items. Set "Always Output Data" in the node's settings to continue the workflow with an empty item.`,
		});
		return [];
	}
	return orders.map((order) => ({ json: veuOrderJson(order), pairedItem: { item: itemIndex } }));
};
