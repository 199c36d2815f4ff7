import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { SftpRun } from '../../shared/sftp/node/context';
import { incomingFile, incomingFileField } from '../helpers/paths';

const show = { show: { resource: ['file'], operation: ['delete'] } };

export const description: INodeProperties[] = [incomingFileField(show)];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const path = incomingFile(this, run, itemIndex);
	const session = await run.connect();
	await session.remove(path);
	return [{ json: { path, deleted: true }, pairedItem: { item: itemIndex } }];
}
