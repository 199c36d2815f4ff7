import type { INodeProperties } from 'n8n-workflow';

import { readCustomerProtocol } from '../../shared/ebics';
import type { EbicsOperation } from '../../shared/ebics/node/context';
import { downloadProperties, rangeCheck, readDownload } from '../helpers/downloads';

export const description: INodeProperties[] = downloadProperties({
	show: { operation: ['customerProtocol'] },
});

export const check = rangeCheck('PTK');

/**
 * Get Customer Protocol (PTK): the bank's text protocol, one item per line (with the order it
 * names, when it names one). The receipt goes to the bank once the items are built.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const got = await readDownload(
		ctx,
		itemIndex,
		'customer protocol (PTK)',
		async (range) => await run.client!.ptk(range),
		readCustomerProtocol,
	);
	if (!got) return [];
	return got.value.map((line) => ({
		json: { line: line.line, text: line.text, orderId: line.orderId ?? null, receipt: got.receipt },
		pairedItem: { item: itemIndex },
	}));
};
