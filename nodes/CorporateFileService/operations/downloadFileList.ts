import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ServiceContext } from '../fileService';
import { dateParam, descriptorJson, exchange, fileTypeParam, readOptions, textParam } from './common';

/** List Files (downloadFileList): one item per file the bank offers; none when it has none (code 24). */
export async function downloadFileList(ctx: IExecuteFunctions, itemIndex: number, service: ServiceContext): Promise<INodeExecutionData[]> {
	const options = readOptions(ctx, itemIndex);
	const result = await exchange(
		ctx,
		itemIndex,
		service,
		'downloadFileList',
		{
			status: (ctx.getNodeParameter('status', itemIndex, 'NEW') as string) || 'NEW',
			fileType: fileTypeParam(ctx, itemIndex),
			startDate: dateParam(ctx, 'startDate', 'Start Date', itemIndex),
			endDate: dateParam(ctx, 'endDate', 'End Date', itemIndex),
			targetId: textParam(ctx, 'targetId', itemIndex),
			serviceId: textParam(ctx, 'serviceId', itemIndex),
		},
		options,
	);
	if (result.noData) return [];
	return (result.applicationResponse?.fileDescriptors ?? []).map((descriptor) => ({
		json: descriptorJson(descriptor),
		pairedItem: { item: itemIndex },
	}));
}
