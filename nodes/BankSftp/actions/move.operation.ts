import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { checkFileName, joinRemote } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { incomingFile, incomingFileField, splitPath } from '../helpers/paths';

const show = { show: { resource: ['file'], operation: ['move'] } };

export const description: INodeProperties[] = [
	incomingFileField(show),
	{
		displayName: 'To Folder',
		name: 'toFolder',
		type: 'string',
		default: '',
		description: "Empty: the credential's Archive Folder",
		displayOptions: show,
	},
	{
		displayName: 'New Name',
		name: 'newName',
		type: 'string',
		default: '',
		description: 'Empty: the same name. A file of that name already there is never replaced.',
		displayOptions: show,
	},
];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const from = incomingFile(this, run, itemIndex);
	const folder =
		(this.getNodeParameter('toFolder', itemIndex, '') as string).trim() || run.view.folders.archive;
	const given = (this.getNodeParameter('newName', itemIndex, '') as string).trim();
	const name = checkFileName('New Name', given || splitPath(from).name);
	const to = joinRemote(folder, name);
	const session = await run.connect();
	await session.rename(from, to);
	return [{ json: { from, path: to, folder, name, moved: true }, pairedItem: { item: itemIndex } }];
}
