import type { INodeProperties } from 'n8n-workflow';

import type { EbicsOperation } from '../../shared/ebics/node/context';
import { customerInfoItems } from '../helpers/customerInfo';

/** Its Output field is shared with Get Subscriber Permissions (helpers/customerInfo.ts). */
export const description: INodeProperties[] = [];

/** Get Customer Data (HKD): the customer's accounts and every user's permissions, as items. */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const info = await run.client!.hkd();
	return customerInfoItems(
		info,
		ctx.getNodeParameter('infoOutput', itemIndex, 'permissions') as string,
		itemIndex,
	);
};
