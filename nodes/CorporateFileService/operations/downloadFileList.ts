import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ServiceContext } from '../fileService';
import { dateParam, descriptorJson, exchange, fileTypeParam, readOptions, textParam } from './common';

/** List Files (downloadFileList): one item per file the bank offers; none when it has none (code 24). */
export async function downloadFileList(ctx: IExecuteFunctions, itemIndex: number, service: ServiceContext): Promise<INodeExecutionData[]> {
	const options = readOptions(ctx, itemIndex);
	const status = (ctx.getNodeParameter('status', itemIndex, 'NEW') as string) || 'NEW';
	const fileType = fileTypeParam(ctx, itemIndex);
	const result = await exchange(
		ctx,
		itemIndex,
		service,
		'downloadFileList',
		{
			status,
			fileType,
			startDate: dateParam(ctx, 'startDate', 'Start Date', itemIndex),
			endDate: dateParam(ctx, 'endDate', 'End Date', itemIndex),
			targetId: textParam(ctx, 'targetId', itemIndex),
			serviceId: textParam(ctx, 'serviceId', itemIndex),
		},
		options,
	);
	const files = result.noData ? [] : (result.applicationResponse?.fileDescriptors ?? []);
	if (!files.length) {
		const which = `${status === 'NEW' ? 'new ' : status === 'DLD' ? 'downloaded ' : ''}files${fileType ? ` of type ${fileType}` : ''}`;
		ctx.addExecutionHints({
			message:
				`The bank has no ${which} for these settings, so this step output nothing.` +
				(status === 'NEW' ? ' A file stops being New once it has been downloaded: choose Status "All" to list those too.' : ''),
			type: 'info',
			location: 'outputPane',
		});
	}
	return files.map((descriptor) => ({
		json: descriptorJson(descriptor),
		pairedItem: { item: itemIndex },
	}));
}
