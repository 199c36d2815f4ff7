import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { storeStream } from '../../shared/common/binaryOutput';
import { protect, spacedFingerprint } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { inputFile } from '../helpers/input';
import { signEncryptFields } from '../helpers/pgpFields';

const show = { show: { resource: ['openpgp'], operation: ['encryptSign'] } };

export const description: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The file to sign and encrypt; the result replaces it in the same field',
		displayOptions: show,
	},
	...signEncryptFields(show),
	{
		displayName: 'ASCII Armour',
		name: 'armour',
		type: 'boolean',
		default: false,
		description: 'Whether to write the OpenPGP message as text (.asc) instead of binary (.pgp)',
		displayOptions: show,
	},
];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const field = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	const armour = this.getNodeParameter('armour', itemIndex, false) as boolean;
	const signWith = (this.getNodeParameter('sign', itemIndex, true) as boolean)
		? await run.customerKey()
		: undefined;
	const encryptTo = (this.getNodeParameter('encrypt', itemIndex, true) as boolean)
		? await run.bankKeys()
		: undefined;
	const file = inputFile(this, itemIndex, field);
	const sealed = await protect(await file.open(), {
		signWith,
		encryptTo,
		armour,
		hash: run.view.hash,
		cipher: run.view.cipher,
		fileName: file.fileName,
	});
	const name = `${file.fileName ?? 'file'}${armour ? '.asc' : '.pgp'}`;
	const stored = await storeStream(this, itemIndex, sealed, { userFilename: name });
	const item = this.getInputData()[itemIndex];
	return [
		{
			json: {
				...item.json,
				fileName: stored.fileName,
				fileSize: stored.bytes,
				signed: !!signWith,
				signedBy: signWith ? spacedFingerprint(signWith.getFingerprint()) : null,
				encrypted: !!encryptTo?.length,
				encryptedTo: (encryptTo ?? []).map((k) => spacedFingerprint(k.getFingerprint())),
			},
			binary: {
				...item.binary,
				[field]: {
					...stored.binaryData,
					mimeType: armour ? 'text/plain' : 'application/pgp-encrypted',
				},
			},
			pairedItem: { item: itemIndex },
		},
	];
}
