import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { SftpRun } from '../../shared/sftp/node/context';
import { remotePath } from '../helpers/paths';

const show = { show: { resource: ['file'], operation: ['delete'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'File',
		name: 'path',
		type: 'string',
		default: '',
		required: true,
		description: "A name in the credential's Incoming Folder, or a path with its folder",
		displayOptions: show,
	},
];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const path = remotePath(
		this.getNodeParameter('path', itemIndex) as string,
		run.view.folders.incoming,
	);
	const session = await run.connect();
	await session.remove(path);
	return [{ json: { path, deleted: true }, pairedItem: { item: itemIndex } }];
}
