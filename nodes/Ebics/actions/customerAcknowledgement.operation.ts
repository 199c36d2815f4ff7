import type { INodeProperties } from 'n8n-workflow';

import { readCustomerAcknowledgement } from '../../shared/ebics';
import { optionsCollection } from '../../shared/properties';
import type { EbicsOperation } from '../helpers/context';
import {
	deliver,
	keepAtBankOption,
	nothingToDownload,
	rangeProperties,
	readRange,
} from '../helpers/downloads';

const displayOptions = { show: { operation: ['customerAcknowledgement'] } };

export const description: INodeProperties[] = [
	...rangeProperties(displayOptions),
	optionsCollection([keepAtBankOption], { placeholder: 'Add option', displayOptions }),
];

/**
 * Get Customer Acknowledgement (HAC): what the bank did with each order, one item per event
 * (upload received, signature checked, order accepted or refused, with the reason and the bank's
 * text). The receipt goes to the bank once the items are built.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const range = readRange(ctx, itemIndex);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as { keepAtBank?: boolean };
	const download = await run.client!.hac(range);
	if (!download) return nothingToDownload(ctx, 'customer acknowledgement (HAC)');
	const { value, receipt } = await deliver(
		ctx,
		download,
		options.keepAtBank === true,
		itemIndex,
		async () => readCustomerAcknowledgement(download.data),
	);
	return value.entries.map((entry) => ({
		json: {
			orderId: entry.orderId ?? null,
			action: entry.action,
			actionText: entry.actionText ?? null,
			timestamp: entry.timestamp ?? null,
			reasonCode: entry.reasonCode ?? null,
			bankText: entry.additionalInfo ?? null,
			refused: entry.refused ?? null,
			...entry.details,
			reportId: value.messageId ?? null,
			receipt,
		},
		pairedItem: { item: itemIndex },
	}));
};
