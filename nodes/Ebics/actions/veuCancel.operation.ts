import type { INodeProperties } from 'n8n-workflow';

import type { EbicsOperation } from '../../shared/ebics/node/context';
import { runVeuAction, veuActionProperties, veuCheck } from '../helpers/veuOrder';

export const description: INodeProperties[] = veuActionProperties(
	'veuCancel',
	'Cancelling (HVS) removes the order from the distributed signature: the bank never executes it. It is sent once and never repeated automatically.',
);

export const check = veuCheck(true);

/**
 * Cancel Order (HVS): fetches the order's details (HVD), refuses unless the confirmed digest is
 * the one the bank reports, then cancels the order, signed with this subscriber's A006 key.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) =>
	await runVeuAction(ctx, itemIndex, run, 'veuCancel');
