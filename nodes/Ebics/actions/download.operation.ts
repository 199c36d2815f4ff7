import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { outputFileField } from '../../shared/common/properties';
import {
	checkOrder,
	checkService,
	serviceLabel,
	streamContainer,
	type DateRange,
	type EbicsVersion,
	type OrderParams,
} from '../../shared/ebics';
import { storeStream } from '../../shared/common/binaryOutput';
import type { EbicsInputCheck, EbicsOperation } from '../../shared/ebics/node/context';
import {
	deliver,
	downloadProperties,
	keepAtBank,
	nothingToDownload,
	readRange,
} from '../helpers/downloads';
import {
	h004Order,
	orderTypeProperties,
	refuseOrderTypeChoice,
} from '../../shared/ebics/node/orderTypes';
import {
	chosenService,
	HAC_PRESET,
	readService,
	serviceProperties,
} from '../../shared/ebics/node/services';

const displayOptions = { show: { operation: ['download'] } };

export const description: INodeProperties[] = [
	...serviceProperties('download', 'download'),
	...orderTypeProperties('download', 'download'),
	...downloadProperties(displayOptions, [outputFileField(displayOptions)]),
];

/** What an item asks the bank for, read and checked as the initialisation will write it. */
interface DownloadOrder {
	label: string;
	orderType: string;
	params: OrderParams & { kind: 'BTD' | 'standard' | 'file' };
	range: DateRange | undefined;
}

function downloadOrder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	version: EbicsVersion,
): DownloadOrder {
	const chosen = chosenService(ctx, 'download', itemIndex);
	const range = readRange(ctx, itemIndex);
	let order: DownloadOrder;
	if (chosen === HAC_PRESET) {
		order = {
			label: 'HAC (customer acknowledgement)',
			orderType: 'HAC',
			params: { kind: 'standard', dateRange: range },
			range,
		};
	} else if (version === 'H004') {
		const h004 = h004Order(ctx, 'download', chosen, itemIndex, { dateRange: range });
		order = { label: h004.label, orderType: h004.orderType, params: h004.params, range };
	} else {
		refuseOrderTypeChoice(chosen, itemIndex);
		const service = checkService(readService(ctx, 'download', itemIndex));
		order = {
			label: `BTD ${serviceLabel(service)}`,
			orderType: 'BTD',
			params: { kind: 'BTD', service, dateRange: range },
			range,
		};
	}
	checkOrder(version, order.orderType, order.params, false);
	return order;
}

export const check: EbicsInputCheck = (ctx, itemIndex, view) => {
	downloadOrder(ctx, itemIndex, view.version);
};

/**
 * Download (BTD, or the EBICS 2.5 order type with an H004 credential): one item per file the bank
 * delivers, a ZIP container opened into its files; the positive receipt goes to the bank once n8n
 * holds every file. No data (090005): no items. The data streams segment by segment into n8n's
 * binary storage (a ZIP entry by entry), so a file of any size is held about one segment at a time.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const client = run.client!;
	const { label, orderType, params, range } = downloadOrder(ctx, itemIndex, client.version);
	const propertyName =
		(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string).trim() || 'data';
	const download = await client.openDownload(orderType, params);
	if (!download)
		return nothingToDownload(
			ctx,
			`${label} data${range ? ` from ${range.start} to ${range.end}` : ''}`,
			range,
		);
	const got = download;
	const downloadedAt = new Date().toISOString();
	const { value: items, receipt } = await deliver(
		ctx,
		got,
		keepAtBank(ctx, itemIndex),
		itemIndex,
		async () => {
			const files = await streamContainer(
				got.stream(),
				{ container: got.service?.container, name: got.fileName },
				async (file) => await storeStream(ctx, itemIndex, file.stream, { userFilename: file.name }),
			);
			return files.map(
				(file, index): INodeExecutionData => ({
					json: {
						service: label,
						...(got.service
							? { serviceName: got.service.serviceName, msgName: got.service.msgName }
							: {}),
						orderType: got.orderType,
						orderId: got.orderId ?? null,
						transactionId: got.transactionId,
						segments: got.numSegments,
						fileIndex: index + 1,
						fileCount: files.length,
						downloadedAt,
						fileName: file.fileName,
						mimeType: file.mimeType,
						fileSize: file.bytes,
					},
					binary: { [propertyName]: file.binaryData },
					pairedItem: { item: itemIndex },
				}),
			);
		},
	);
	for (const item of items) item.json.receipt = receipt;
	return items;
};
