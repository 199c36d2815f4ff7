import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { InputError } from '../../shared/common/errors';
import { optionsCollection } from '../../shared/common/properties';
import { Readable } from 'node:stream';

import {
	DEFAULT_TEMPORARY_NAME,
	SftpFileError,
	SFTP_STATUS,
	checkFileName,
	detachedSigner,
	joinRemote,
	spacedFingerprint,
	temporaryNameFor,
	signatureNameFor,
	uploadStream,
	type UploadResult,
} from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';
import type { SftpJournalEntry } from '../../shared/sftp/journal/uploadJournal';
import { findSftpEntry } from '../../shared/sftp/journal/uploadJournal';
import { detachedFormOf, detachedSignatureOption } from '../helpers/detached';
import { inputFile, sha256Of } from '../helpers/input';
import { journalEntries, putJournal } from '../helpers/journal';
import { protectFile, signEncryptFields } from '../helpers/pgpFields';

const show = { show: { resource: ['file'], operation: ['upload'] } };

export const description: INodeProperties[] = [
	{
		displayName:
			'The file is written under a temporary name and renamed when complete, so the bank never takes half a file. The same bytes are never sent twice to the same folder: a second run is refused (or, after n8n stopped mid-upload, finished) unless Send Again is on.',
		name: 'uploadNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field holding the file to send',
		displayOptions: show,
	},
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		placeholder: 'payments-2026-12-02.xml.pgp',
		description:
			"The name at the bank. Empty: the input file's name, with .pgp added when encrypted.",
		displayOptions: show,
	},
	...signEncryptFields(show),
	optionsCollection(
		[
			{
				displayName: 'Folder',
				name: 'folder',
				type: 'string',
				default: '',
				description: "Where to put the file. Empty: the credential's Outgoing Folder.",
			},
			{
				displayName: 'ASCII Armour',
				name: 'armour',
				type: 'boolean',
				default: false,
				description: 'Whether to write the OpenPGP message as text (.asc) instead of binary',
			},
			detachedSignatureOption(
				'A signature file of your key beside the file (its name with .sig or .asc added), over the file as the bank gets it; written under a temporary name and renamed before the file is. Besides Sign, or instead of it.',
			),
			{
				displayName: 'Temporary Name',
				name: 'temporaryName',
				type: 'string',
				default: DEFAULT_TEMPORARY_NAME,
				description:
					'The name the file is written under before the rename; {name} is its own name. Pick one your bank does not pick up.',
			},
			{
				displayName: 'Send Again',
				name: 'sendAgain',
				type: 'boolean',
				default: false,
				description:
					'Whether to send a file whose bytes were already sent to this folder (within 30 days). Off: such a file is refused, so that a payment file is never sent twice.',
			},
		],
		{ placeholder: 'Add option', displayOptions: show },
	),
];

function defaultName(given: string | undefined, encrypted: boolean, armour: boolean): string {
	const base = given?.trim() || 'file';
	if (!encrypted) return base;
	return armour ? `${base}.asc` : `${base}.pgp`;
}

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const field = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	const sign = this.getNodeParameter('sign', itemIndex, true) as boolean;
	const encrypt = this.getNodeParameter('encrypt', itemIndex, true) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const armour = options.armour === true;
	const file = inputFile(this, itemIndex, field);
	const name = checkFileName(
		'File Name',
		(this.getNodeParameter('fileName', itemIndex, '') as string).trim() ||
			defaultName(file.fileName, encrypt, armour),
	);
	const folder =
		(typeof options.folder === 'string' && options.folder.trim()) || run.view.folders.outgoing;
	const temporaryName = temporaryNameFor(
		typeof options.temporaryName === 'string' ? options.temporaryName : DEFAULT_TEMPORARY_NAME,
		name,
	);
	const detachedForm = detachedFormOf(options.detachedSignature);
	const signatureName = detachedForm
		? checkFileName('File Name', signatureNameFor(name, detachedForm))
		: undefined;
	// Keys first: a key problem is told before anything is read or sent.
	const signWith = sign ? await run.customerKey() : undefined;
	const encryptTo = encrypt ? await run.bankKeys() : undefined;
	const detachedKey = detachedForm ? await run.customerKey() : undefined;

	const sha256 = await sha256Of(await file.open());
	const key = { owner: run.view.owner, folder, sha256 };
	const earlier = findSftpEntry(await journalEntries(this), key);
	const session = await run.connect();
	const base: IDataObject = { folder, name, path: joinRemote(folder, name), sha256 };
	if (earlier && options.sendAgain !== true) {
		const when = `${earlier.at.slice(0, 19).replace('T', ' ')} UTC`;
		if (earlier.state === 'sent')
			throw new InputError(
				`This file (SHA-256 ${sha256.slice(0, 16)}…) was sent to ${folder} on ${when} as ${earlier.name}: it is not sent twice`,
				{
					itemIndex,
					description: 'Turn on Send Again in the options if the bank asked for it once more.',
				},
			);
		// n8n stopped between the temporary file and the rename: finish what that run started.
		const leftover = await session.stat(joinRemote(folder, earlier.temporaryName));
		const landed = await session.stat(joinRemote(folder, earlier.name));
		if (leftover && !landed) {
			await session.rename(
				joinRemote(folder, earlier.temporaryName),
				joinRemote(folder, earlier.name),
			);
			await putJournal(
				this,
				{ ...earlier, state: 'sent', at: new Date().toISOString() },
				itemIndex,
			);
			return [
				{
					json: {
						...base,
						name: earlier.name,
						path: joinRemote(folder, earlier.name),
						completed: 'renamed',
						sentAt: new Date().toISOString(),
					},
					pairedItem: { item: itemIndex },
				},
			];
		}
		if (landed) {
			await putJournal(this, { ...earlier, state: 'sent', at: earlier.at }, itemIndex);
			return [
				{
					json: {
						...base,
						name: earlier.name,
						path: joinRemote(folder, earlier.name),
						completed: 'alreadySent',
						sentAt: earlier.at,
					},
					pairedItem: { item: itemIndex },
				},
			];
		}
		throw new InputError(
			`This file (SHA-256 ${sha256.slice(0, 16)}…) was being handed to the bank in ${folder} as ${earlier.name} on ${when} when n8n stopped, and it is no longer there under either name: the bank may have taken it. It is not sent again`,
			{
				itemIndex,
				description: 'Ask the bank whether it got the file; turn on Send Again only if it did not.',
			},
		);
	}

	if (signatureName && (await session.stat(joinRemote(folder, signatureName))))
		throw new SftpFileError(
			`A file named ${joinRemote(folder, signatureName)} is already at the bank (not picked up yet): nothing was written. Give the file another name, or wait until the bank has taken the earlier one`,
			joinRemote(folder, signatureName),
			SFTP_STATUS.FAILURE,
		);
	const signer = detachedKey
		? await detachedSigner(detachedKey, { form: detachedForm!, hash: run.view.hash })
		: undefined;
	const source = await file.open();
	const protectedStream =
		signWith || encryptTo?.length
			? await protectFile(run, source, {
					signWith,
					encryptTo,
					armour,
					fileName: file.fileName,
				})
			: source;
	// The detached signature is made over the bytes as they go to the bank.
	if (signer) protectedStream.once('error', (error) => signer.tap.destroy(error));
	const sealed = signer ? protectedStream.pipe(signer.tap) : protectedStream;
	const temporaryPattern =
		typeof options.temporaryName === 'string' ? options.temporaryName : undefined;
	let entry: SftpJournalEntry | undefined;
	let signatureSent: UploadResult | undefined;
	const result = await uploadStream(
		session,
		sealed,
		{ folder, name, temporaryName: temporaryPattern },
		async () => {
			// The signature is at the bank under its own name before the file is: a bank that
			// takes the file finds its signature beside it.
			if (signer && signatureName)
				signatureSent = await uploadStream(session, Readable.from([await signer.signature]), {
					folder,
					name: signatureName,
					temporaryName: temporaryPattern,
				});
			entry = { ...key, name, temporaryName, state: 'renaming', at: new Date().toISOString() };
			await putJournal(this, entry, itemIndex);
		},
	);
	await putJournal(this, { ...entry!, state: 'sent', at: new Date().toISOString() }, itemIndex);
	return [
		{
			json: {
				...base,
				path: result.path,
				bytes: result.bytes,
				signed: !!signWith,
				signedBy: signWith ? spacedFingerprint(signWith.getFingerprint()) : null,
				encrypted: !!encryptTo?.length,
				encryptedTo: (encryptTo ?? []).map((k) => spacedFingerprint(k.getFingerprint())),
				detachedSignature:
					signatureSent && detachedKey
						? {
								name: signatureName,
								path: signatureSent.path,
								form: detachedForm,
								bytes: signatureSent.bytes,
								signedBy: spacedFingerprint(detachedKey.getFingerprint()),
							}
						: null,
				removedLeftover: result.removedLeftover,
				sentAt: new Date().toISOString(),
			},
			pairedItem: { item: itemIndex },
		},
	];
}
