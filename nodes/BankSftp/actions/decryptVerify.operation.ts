import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { optionsCollection } from '../../shared/common/properties';
import { MAX_SIGNATURE_BYTES, PgpError } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { openAndStore } from '../../shared/sftp/node/receive';
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
	optionsCollection(
		[
			{
				displayName: 'Detached Signature Field',
				name: 'detachedSignatureField',
				type: 'string',
				default: '',
				placeholder: 'signature',
				description:
					"The input binary field holding a detached signature (.sig or .asc) of the bank's key over the file as given: a signature by another key, or one that does not match, refuses the file. With one, a file without a signature inside is accepted.",
			},
			{
				displayName: 'Decrypt',
				name: 'decrypt',
				type: 'boolean',
				default: true,
				description:
					'Whether the file is an OpenPGP message to decrypt (and verify inside). Off: the file is only checked against its detached signature and passes as it is.',
			},
		],
		{ placeholder: 'Add option', displayOptions: show },
	),
];

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const field = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const file = inputFile(this, itemIndex, field);
	const verifyWith = await run.bankKeys();
	const signatureField =
		typeof options.detachedSignatureField === 'string' ? options.detachedSignatureField.trim() : '';
	const decrypt = options.decrypt !== false;
	if (!decrypt && !signatureField)
		throw new PgpError(
			'unsigned',
			'Decrypt is off and no Detached Signature Field is given: the file would pass unchecked',
		);
	let detached: { name: string; signature: Buffer } | undefined;
	if (signatureField) {
		const signatureFile = inputFile(this, itemIndex, signatureField);
		const chunks: Buffer[] = [];
		for await (const chunk of await signatureFile.open()) {
			chunks.push(chunk as Buffer);
			if (chunks.reduce((n, c) => n + c.length, 0) > MAX_SIGNATURE_BYTES) break;
		}
		detached = { name: signatureFile.fileName ?? signatureField, signature: Buffer.concat(chunks) };
	}
	const { stored, json } = await openAndStore(this, itemIndex, await file.open(), {
		decrypt,
		allowUnsigned: this.getNodeParameter('allowUnsigned', itemIndex, false) as boolean,
		detached,
		verifyWith: async () => verifyWith,
		// The customer's key is needed only for an encrypted file; a signed-only one opens without it.
		decryptWith: async () => (run.view.keySource === 'none' ? undefined : await run.customerKey()),
		fileName: file.fileName ?? 'file',
		label: file.fileName ?? field,
	});
	const item = this.getInputData()[itemIndex];
	return [
		{
			json: {
				...item.json,
				fileName: stored.fileName,
				fileSize: stored.bytes,
				mimeType: stored.mimeType,
				...json,
			},
			binary: { ...item.binary, [field]: stored.binaryData },
			pairedItem: { item: itemIndex },
		},
	];
}
