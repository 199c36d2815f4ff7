import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { storeStream } from '../../shared/common/binaryOutput';
import { optionsCollection } from '../../shared/common/properties';
import { detachedSigner, signatureNameFor, spacedFingerprint } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import { detachedFormOf, detachedSignatureOption } from '../helpers/detached';
import { inputFile } from '../helpers/input';
import { protectFile, signEncryptFields } from '../helpers/pgpFields';

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
	optionsCollection(
		[
			detachedSignatureOption(
				'A signature file of your key over the output file, in its own binary field (the output name with .sig or .asc added). Besides Sign, or instead of it: with Sign and Encrypt both off, the output file is the input file as it is.',
			),
			{
				displayName: 'Put Signature in Field',
				name: 'signatureBinaryPropertyName',
				type: 'string',
				default: 'signature',
				description: 'The output binary field the detached signature goes in',
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
	const armour = this.getNodeParameter('armour', itemIndex, false) as boolean;
	const signWith = (this.getNodeParameter('sign', itemIndex, true) as boolean)
		? await run.customerKey()
		: undefined;
	const encryptTo = (this.getNodeParameter('encrypt', itemIndex, true) as boolean)
		? await run.bankKeys()
		: undefined;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const detachedForm = detachedFormOf(options.detachedSignature);
	const signatureField =
		(typeof options.signatureBinaryPropertyName === 'string' &&
			options.signatureBinaryPropertyName.trim()) ||
		'signature';
	const detachedKey = detachedForm ? await run.customerKey() : undefined;
	const file = inputFile(this, itemIndex, field);
	const sealing = !!signWith || !!encryptTo?.length || !detachedKey;
	const sealed = sealing
		? await protectFile(run, await file.open(), {
				signWith,
				encryptTo,
				armour,
				fileName: file.fileName,
			})
		: await file.open();
	const name = sealing
		? `${file.fileName ?? 'file'}${armour ? '.asc' : '.pgp'}`
		: (file.fileName ?? 'file');
	const signer = detachedKey
		? await detachedSigner(detachedKey, { form: detachedForm!, hash: run.view.hash })
		: undefined;
	if (signer) sealed.once('error', (error) => signer.tap.destroy(error));
	const stored = await storeStream(this, itemIndex, signer ? sealed.pipe(signer.tap) : sealed, {
		userFilename: name,
	});
	const item = this.getInputData()[itemIndex];
	const signatureBinary: IDataObject = {};
	let detachedSignature: IDataObject | null = null;
	if (signer && detachedKey) {
		const signatureName = signatureNameFor(name, detachedForm!);
		const signatureFile = await this.helpers.prepareBinaryData(
			await signer.signature,
			signatureName,
			detachedForm === 'armoured' ? 'text/plain' : 'application/pgp-signature',
		);
		signatureBinary[signatureField] = signatureFile;
		detachedSignature = {
			name: signatureName,
			field: signatureField,
			form: detachedForm,
			signedBy: spacedFingerprint(detachedKey.getFingerprint()),
		};
	}
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
				detachedSignature,
			},
			binary: {
				...item.binary,
				[field]: sealing
					? {
							...stored.binaryData,
							mimeType: armour ? 'text/plain' : 'application/pgp-encrypted',
						}
					: stored.binaryData,
				...(signatureBinary as INodeExecutionData['binary']),
			},
			pairedItem: { item: itemIndex },
		},
	];
}
