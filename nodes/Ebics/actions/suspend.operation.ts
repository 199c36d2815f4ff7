import type { INodeProperties } from 'n8n-workflow';

import { attemptAsync } from '../../shared/common/attempt';
import {
	EBICS_CREDENTIAL,
	readEbicsCredential,
	statusText,
} from '../../shared/ebics/credential/ebicsCredential';
import { InputError } from '../../shared/common/errors';
import type { EbicsInputCheck, EbicsOperation } from '../../shared/ebics/node/context';
import { refreshInitialisation } from '../../shared/ebics/node/context';

const displayOptions = { show: { operation: ['suspend'] } };

export const description: INodeProperties[] = [
	{
		displayName:
			'Suspending (SPR) stops this subscriber at the bank at once: it can no longer download, upload or sign until the bank activates it again, which many banks do only after a new initialisation with new letters. Use it when a key may be in the wrong hands.',
		name: 'suspendNotice',
		type: 'notice',
		default: '',
		displayOptions,
	},
	{
		displayName: 'Confirm Suspension',
		name: 'confirmSuspend',
		type: 'boolean',
		default: false,
		required: true,
		description: 'Whether to really suspend the subscriber at the bank',
		displayOptions,
	},
];

export const check: EbicsInputCheck = (ctx, itemIndex) => {
	if (ctx.getNodeParameter('confirmSuspend', itemIndex, false) !== true)
		throw new InputError(
			'Confirm Suspension: switch it on to suspend the subscriber. Nothing was sent to the bank',
			{ itemIndex },
		);
};

/** Suspend Subscriber (SPR): the bank stops accepting the subscriber's keys. */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	check(ctx, itemIndex, run.view);
	const result = await run.client!.spr();
	// The credential learns it from the bank (HPB is refused now), so its status says "suspended".
	const refreshed = await attemptAsync(
		async () => await refreshInitialisation(ctx, await ctx.getCredentials(EBICS_CREDENTIAL)),
	);
	const view = refreshed.ok ? readEbicsCredential(refreshed.value, false) : undefined;
	return [
		{
			json: {
				suspended: true,
				subscriber: run.view.owner,
				orderId: result.orderId ?? null,
				returnCodes: { ...result.codes },
				status: view ? statusText(view, view.state) : null,
			},
			pairedItem: { item: itemIndex },
		},
	];
};
