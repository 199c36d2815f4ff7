import type { INodeProperties } from 'n8n-workflow';

import { dayProperties } from '../../shared/common/properties';
import { descriptorJson, listFiles } from '../../shared/bxd/node/bankFiles';
import {
	dateParam,
	fileTypeParam,
	readOptions,
	textParam,
} from '../../shared/bxd/node/readParameters';
import type { FileServiceOperation } from '../../shared/bxd/node/serviceContext';
import { fileTypeLocator } from '../../shared/bxd/node/sharedProperties';

const displayOptions = { show: { mode: ['build'], operation: ['downloadFileList'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: [
			{ name: 'All', value: 'ALL', description: 'Every file' },
			{ name: 'Downloaded', value: 'DLD', description: 'Files already downloaded' },
			{ name: 'New', value: 'NEW', description: 'Files not downloaded yet' },
		],
		default: 'NEW',
		description: 'Which files to list',
		displayOptions,
	},
	{
		...fileTypeLocator,
		required: false,
		description: 'Only files of this type, for example XT or camt.053.001.02. Empty: every type.',
		displayOptions,
	},
	...dayProperties({
		displayName: 'Start Date',
		name: 'startDate',
		description: 'Only files from this day on, as YYYY-MM-DD. Empty: no lower limit.',
		displayOptions,
	}),
	...dayProperties({
		displayName: 'End Date',
		name: 'endDate',
		description: 'Only files up to this day, as YYYY-MM-DD. Empty: no upper limit.',
		displayOptions,
	}),
	{
		displayName: 'Target ID',
		name: 'targetId',
		type: 'string',
		default: '',
		description: 'Only files in this target folder',
		displayOptions,
	},
	{
		displayName: 'Service ID',
		name: 'serviceId',
		type: 'string',
		default: '',
		description: 'Only files of this service (for example one account)',
		displayOptions,
	},
];

/**
 * List Files (downloadFileList): one item per file the bank offers; none when it has none
 * (code 24).
 */
export const execute: FileServiceOperation = async (ctx, itemIndex, service) => {
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
};
