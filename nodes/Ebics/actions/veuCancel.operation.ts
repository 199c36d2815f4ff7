import type { INodeProperties } from 'n8n-workflow';

import { readConfirmedDigest } from '../../shared/ebics';
import type { EbicsOperation } from '../helpers/context';
import {
	confirmedDigestNotice,
	confirmedDigestProperty,
	readVeuOrder,
	veuDetailsJson,
} from '../helpers/veuOrder';

export const description: INodeProperties[] = [
	{
		displayName:
			'Cancelling (HVS) removes the order from the distributed signature: the bank never executes it. It is sent once and never repeated automatically.',
		name: 'veuCancelNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { operation: ['veuCancel'] } },
	},
	confirmedDigestProperty('veuCancel', 'cancelled'),
	confirmedDigestNotice('veuCancel'),
];

/**
 * Cancel Order (HVS): fetches the order's details (HVD), refuses unless the confirmed digest is
 * the one the bank reports, then cancels the order, signed with this subscriber's A006 key.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const ref = readVeuOrder(ctx, itemIndex, run);
	const confirmed = readConfirmedDigest(
		ctx.getNodeParameter('confirmedDigest', itemIndex, '') as string,
	);
	const result = await run.veu!.cancel(ref, confirmed);
	return [
		{
			json: {
				cancelled: true,
				canceller: `${run.view.subscriber.partnerId}/${run.view.subscriber.userId}`,
				...veuDetailsJson(ref, result.details),
				returnCodes: { ...result.codes },
				cancelledAt: new Date().toISOString(),
			},
			pairedItem: { item: itemIndex },
		},
	];
};
