import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { isPartialName } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { entryJson } from '../../shared/sftp/node/receive';

const show = { show: { resource: ['file'], operation: ['list'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Folder',
		name: 'folder',
		type: 'string',
		default: '',
		description: "The folder to list. Empty: the credential's Incoming Folder.",
		displayOptions: show,
	},
	{
		displayName: 'Include Files Being Written',
		name: 'includePartial',
		type: 'boolean',
		default: false,
		description:
			'Whether to list files whose names say they are still being written (.part, .tmp, .filepart, names starting with a dot)',
		displayOptions: show,
	},
];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const folder =
		(this.getNodeParameter('folder', itemIndex, '') as string).trim() || run.view.folders.incoming;
	const includePartial = this.getNodeParameter('includePartial', itemIndex, false) as boolean;
	const session = await run.connect();
	const entries = (await session.list(folder))
		.filter((e) => includePartial || !isPartialName(e.name))
		.sort((a, b) => a.modifiedAt - b.modifiedAt || a.name.localeCompare(b.name));
	return entries.map((entry) => ({
		json: { ...entryJson(entry), folder },
		pairedItem: { item: itemIndex },
	}));
}
