import type { INodeProperties } from 'n8n-workflow';

import type { EbicsOperation } from '../../shared/ebics/node/context';
import { readVeuOrder, veuCheck, veuDetailsJson } from '../helpers/veuOrder';

/** Its fields are shared with Sign and Cancel (helpers/veuOrder.ts). */
export const description: INodeProperties[] = [];

export const check = veuCheck(false);

/**
 * Get Order Details (HVD): the order's data digest (what a signer signs), the bank's display file
 * (the order in words) and who has signed.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const ref = readVeuOrder(ctx, itemIndex, run.view);
	const details = await run.veu!.details(ref);
	return [{ json: veuDetailsJson(ref, details), pairedItem: { item: itemIndex } }];
};
