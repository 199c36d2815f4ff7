import type { INodeProperties } from 'n8n-workflow';

import { readCustomerProtocol } from '../../shared/ebics';
import { optionsCollection } from '../../shared/properties';
import type { EbicsOperation } from '../helpers/context';
import {
	deliver,
	keepAtBankOption,
	nothingToDownload,
	rangeProperties,
	readRange,
} from '../helpers/downloads';

const displayOptions = { show: { operation: ['customerProtocol'] } };

export const description: INodeProperties[] = [
	...rangeProperties(displayOptions),
	optionsCollection([keepAtBankOption], { placeholder: 'Add option', displayOptions }),
];

/**
 * Get Customer Protocol (PTK): the bank's text protocol, one item per line (with the order it
 * names, when it names one). The receipt goes to the bank once the items are built.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const range = readRange(ctx, itemIndex);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as { keepAtBank?: boolean };
	const download = await run.client!.ptk(range);
	if (!download) return nothingToDownload(ctx, 'customer protocol (PTK)');
	const { value, receipt } = await deliver(
		ctx,
		download,
		options.keepAtBank === true,
		itemIndex,
		async () => readCustomerProtocol(download.data),
	);
	return value.map((line) => ({
		json: { line: line.line, text: line.text, orderId: line.orderId ?? null, receipt },
		pairedItem: { item: itemIndex },
	}));
};
