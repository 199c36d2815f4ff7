import type { INodeProperties } from 'n8n-workflow';

import type { EbicsOperation } from '../../shared/ebics/node/context';
import { customerInfoItems } from '../helpers/customerInfo';

/** Its Output field is shared with Get Customer Data (helpers/customerInfo.ts). */
export const description: INodeProperties[] = [];

/** Get Subscriber Permissions (HTD): what this subscriber may do, as items. */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const info = await run.client!.htd();
	return customerInfoItems(
		info,
		ctx.getNodeParameter('infoOutput', itemIndex, 'permissions') as string,
		itemIndex,
	);
};
