import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { optionsCollection } from '../../shared/common/properties';
import { SftpFileError, SFTP_STATUS } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { receiveFile } from '../../shared/sftp/node/receive';
import { detachedSignatureAtBank, detachedSignatureCheck } from '../helpers/detached';
import { incomingFile, incomingFileField } from '../helpers/paths';

const show = { show: { resource: ['file'], operation: ['download'] } };

export const description: INodeProperties[] = [
	incomingFileField(show, 'statement-20261202.xml.pgp'),
	{
		displayName: 'Decrypt and Verify',
		name: 'decrypt',
		type: 'boolean',
		default: true,
		description:
			"Whether to decrypt the file with your OpenPGP key and verify the bank's signature. Off: the file as it is at the bank.",
		displayOptions: show,
	},
	{
		displayName: 'Allow Unsigned Files',
		name: 'allowUnsigned',
		type: 'boolean',
		default: false,
		description:
			"Whether to accept a file the bank did not sign. Off: refused, since anyone who can write to the folder could have put it there. A signature by a key that is not the bank's is refused either way.",
		displayOptions: { show: { ...show.show, decrypt: [true] } },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions: show,
	},
	optionsCollection(detachedSignatureCheck(), { placeholder: 'Add option', displayOptions: show }),
];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const path = incomingFile(this, run, itemIndex);
	const session = await run.connect();
	const entry = await session.stat(path);
	if (!entry || !entry.isFile)
		throw new SftpFileError(
			`${path} is not a file at the bank${entry ? ' (it is a folder)' : ''}`,
			path,
			SFTP_STATUS.NO_SUCH_FILE,
		);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const detached = await detachedSignatureAtBank(session, path, options);
	return [
		await receiveFile(this, run, entry, {
			detached,
			itemIndex,
			binaryPropertyName: this.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string,
			decrypt: this.getNodeParameter('decrypt', itemIndex, true) as boolean,
			allowUnsigned: this.getNodeParameter('allowUnsigned', itemIndex, false) as boolean,
		}),
	];
}
