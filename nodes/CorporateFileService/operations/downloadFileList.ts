import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { FileDescriptor } from '../../shared/bxd';
import type { BankContext } from '../../shared/transport/request';
import type { ServiceContext } from '../fileService';
import type { CommonOptions } from './common';
import {
	dateParam,
	descriptorJson,
	exchange,
	fileTypeParam,
	readOptions,
	textParam,
} from './common';

/** What a file list asks the bank for (every field optional but the status). */
export interface FileListQuery {
	/** NEW, DLD, ALL or another status the bank knows. */
	status: string;
	fileType?: string;
	/** YYYY-MM-DD */
	startDate?: string;
	/** YYYY-MM-DD */
	endDate?: string;
	targetId?: string;
	serviceId?: string;
}

/**
 * The files the bank offers (downloadFileList), as typed descriptors; none when it has none
 * (code 24). Used by List Files and by the Bank File Trigger.
 */
export async function listFiles(
	ctx: BankContext,
	service: ServiceContext,
	query: FileListQuery,
	options: CommonOptions,
	itemIndex = 0,
): Promise<FileDescriptor[]> {
	const result = await exchange(ctx, itemIndex, service, 'downloadFileList', { ...query }, options);
	if (result.noData) return [];
	return result.applicationResponse?.fileDescriptors ?? [];
}

/** List Files (downloadFileList): one item per file the bank offers; none when it has none (code 24). */
export async function downloadFileList(
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: ServiceContext,
): Promise<INodeExecutionData[]> {
	const status = (ctx.getNodeParameter('status', itemIndex, 'NEW') as string) || 'NEW';
	const fileType = fileTypeParam(ctx, itemIndex);
	const descriptors = await listFiles(
		ctx,
		service,
		{
			status,
			fileType,
			startDate: dateParam(ctx, 'startDate', 'Start Date', itemIndex),
			endDate: dateParam(ctx, 'endDate', 'End Date', itemIndex),
			targetId: textParam(ctx, 'targetId', itemIndex),
			serviceId: textParam(ctx, 'serviceId', itemIndex),
		},
		readOptions(ctx, itemIndex),
		itemIndex,
	);
	if (!descriptors.length) {
		const which = `${status === 'NEW' ? 'new ' : status === 'DLD' ? 'downloaded ' : ''}files${fileType ? ` of type ${fileType}` : ''}`;
		ctx.addExecutionHints({
			message:
				`The bank has no ${which} for these settings, so this step output nothing.` +
				(status === 'NEW'
					? ' A file stops being New once it has been downloaded: choose Status "All" to list those too.'
					: ''),
			type: 'info',
			location: 'outputPane',
		});
	}
	return descriptors.map((descriptor) => ({
		json: descriptorJson(descriptor),
		pairedItem: { item: itemIndex },
	}));
}
