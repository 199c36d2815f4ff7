import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { storeStream } from '../../shared/common/binaryOutput';
import { open, spacedFingerprint } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { plainName } from '../../shared/sftp/node/receive';
import { inputFile } from '../helpers/input';

const show = { show: { resource: ['openpgp'], operation: ['decryptVerify'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The OpenPGP file to decrypt and verify; the content replaces it in the same field',
		displayOptions: show,
	},
	{
		displayName: 'Allow Unsigned Files',
		name: 'allowUnsigned',
		type: 'boolean',
		default: false,
		description:
			"Whether to accept a file the bank did not sign. A signature by a key that is not the bank's is refused either way.",
		displayOptions: show,
	},
];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const field = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	const file = inputFile(this, itemIndex, field);
	const verifyWith = await run.bankKeys();
	// The customer's key is needed only for an encrypted file; a signed-only one opens without it.
	const decryptWith = run.view.keySource === 'none' ? undefined : await run.customerKey();
	const opened = await open(await file.open(), {
		decryptWith,
		verifyWith,
		allowUnsigned: this.getNodeParameter('allowUnsigned', itemIndex, false) as boolean,
	});
	const stored = await storeStream(this, itemIndex, opened.stream, {
		userFilename: plainName(file.fileName ?? 'file'),
	});
	const result = await opened.result;
	const item = this.getInputData()[itemIndex];
	return [
		{
			json: {
				...item.json,
				fileName: stored.fileName,
				fileSize: stored.bytes,
				mimeType: stored.mimeType,
				decrypted: result.encrypted,
				signed: result.signed,
				signedBy: result.signedBy.map(spacedFingerprint),
			},
			binary: { ...item.binary, [field]: stored.binaryData },
			pairedItem: { item: itemIndex },
		},
	];
}
