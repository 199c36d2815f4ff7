import type { INodeProperties } from 'n8n-workflow';

import { readCustomerAcknowledgement } from '../../shared/ebics';
import type { EbicsOperation } from '../../shared/ebics/node/context';
import { downloadProperties, rangeCheck, readDownload } from '../helpers/downloads';

export const description: INodeProperties[] = downloadProperties({
	show: { operation: ['customerAcknowledgement'] },
});

export const check = rangeCheck('HAC');

/**
 * Get Customer Acknowledgement (HAC): what the bank did with each order, one item per event
 * (upload received, signature checked, order accepted or refused, with the reason and the bank's
 * text). The receipt goes to the bank once the items are built.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const got = await readDownload(
		ctx,
		itemIndex,
		'customer acknowledgement (HAC)',
		async (range) => await run.client!.hac(range),
		readCustomerAcknowledgement,
	);
	if (!got) return [];
	return got.value.entries.map((entry) => ({
		json: {
			orderId: entry.orderId ?? null,
			action: entry.action,
			actionText: entry.actionText ?? null,
			timestamp: entry.timestamp ?? null,
			reasonCode: entry.reasonCode ?? null,
			bankText: entry.additionalInfo ?? null,
			refused: entry.refused ?? null,
			...entry.details,
			reportId: got.value.messageId ?? null,
			receipt: got.receipt,
		},
		pairedItem: { item: itemIndex },
	}));
};
