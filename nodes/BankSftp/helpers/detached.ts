/** The detached signature choices of the operations that make or check a signature file. */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	MAX_SIGNATURE_BYTES,
	PgpError,
	signatureCandidates,
	type DetachedForm,
	type SftpSession,
} from '../../shared/sftp';
import { remotePath, splitPath } from './paths';

/** The option (in an Options collection) for a detached signature made by your key. */
export function detachedSignatureOption(description: string): INodeProperties {
	return {
		displayName: 'Detached Signature',
		name: 'detachedSignature',
		type: 'options',
		options: [
			{ name: 'None', value: 'none' },
			{
				name: 'Binary (.sig)',
				value: 'binary',
				description: 'An OpenPGP signature file, binary',
			},
			{
				name: 'ASCII Armoured (.asc)',
				value: 'armoured',
				description: 'An OpenPGP signature file as text',
			},
		],
		default: 'none',
		description,
	};
}

/** The form chosen, or undefined for None. */
export function detachedFormOf(value: unknown): DetachedForm | undefined {
	return value === 'binary' || value === 'armoured' ? value : undefined;
}

/** The options (in an Options collection) of a detached signature the bank put beside a file. */
export function detachedSignatureCheck(): INodeProperties[] {
	return [
		{
			displayName: 'Detached Signature',
			name: 'detachedSignature',
			type: 'options',
			options: [
				{
					name: 'None',
					value: 'none',
					description: 'Only a signature inside the OpenPGP message is verified',
				},
				{
					name: 'Beside the File (.Sig or .Asc)',
					value: 'beside',
					description:
						"The bank's signature file next to it: its name with .sig, or else .asc, added",
				},
				{
					name: 'Given by Name',
					value: 'named',
					description: 'The signature file named in Signature File',
				},
			],
			default: 'none',
			description:
				"A signature file of the bank's key over the file as it is at the bank. A missing one, one by another key or one that does not match refuses the file. With one, a file without a signature inside is accepted.",
		},
		{
			displayName: 'Signature File',
			name: 'signatureFile',
			type: 'string',
			default: '',
			placeholder: 'statement-20261202.xml.sig',
			description:
				"With Detached Signature Given by Name: a name in the file's folder, or a path with its folder",
		},
	];
}

/** Reads a signature file at the bank (a few hundred bytes; a larger one is not a signature). */
async function readSignature(session: SftpSession, path: string, size: number): Promise<Buffer> {
	if (size > MAX_SIGNATURE_BYTES)
		throw new PgpError(
			'format',
			`${path} holds ${size} bytes: it is not a detached signature (a few hundred bytes)`,
		);
	const chunks: Buffer[] = [];
	for await (const chunk of session.read(path)) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/**
 * The detached signature the options ask for, read from the bank: the one beside the file
 * (`.sig`, else `.asc`) or the one named. Undefined when none is asked for; a PgpError naming
 * what is missing when it is not there (the file is refused, as an unsigned one is).
 */
export async function detachedSignatureAtBank(
	session: SftpSession,
	filePath: string,
	options: IDataObject,
): Promise<{ name: string; signature: Buffer } | undefined> {
	const how = options.detachedSignature;
	if (how !== 'beside' && how !== 'named') return undefined;
	const { folder, name } = splitPath(filePath);
	if (how === 'named') {
		const given = typeof options.signatureFile === 'string' ? options.signatureFile.trim() : '';
		if (!given)
			throw new PgpError(
				'unsigned',
				'Signature File is empty: name the detached signature file, or choose Beside the File',
			);
		const path = remotePath(given, folder);
		const entry = await session.stat(path);
		if (!entry?.isFile)
			throw new PgpError(
				'unsigned',
				`The detached signature ${path} is not at the bank: the file ${filePath} is refused`,
			);
		return { name: given, signature: await readSignature(session, path, entry.size) };
	}
	const candidates = signatureCandidates(name);
	for (const candidate of candidates) {
		const path = remotePath(candidate, folder);
		const entry = await session.stat(path);
		if (entry?.isFile)
			return { name: candidate, signature: await readSignature(session, path, entry.size) };
	}
	throw new PgpError(
		'unsigned',
		`No detached signature beside ${filePath}: neither ${candidates.join(' nor ')} is at the bank. The file is refused`,
	);
}
