/** The OpenPGP choices of the operations that send or make a file for the bank. */
import type { Readable } from 'node:stream';

import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { protect, type ProtectOptions } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';

/** Sign and Encrypt, both on by default: what banks ask for. */
export function signEncryptFields(displayOptions: IDisplayOptions): INodeProperties[] {
	return [
		{
			displayName: 'Sign',
			name: 'sign',
			type: 'boolean',
			default: true,
			description: 'Whether to sign the file with your OpenPGP key',
			displayOptions,
		},
		{
			displayName: 'Encrypt',
			name: 'encrypt',
			type: 'boolean',
			default: true,
			description: "Whether to encrypt the file to the bank's OpenPGP key",
			displayOptions,
		},
	];
}

/** The file signed and/or encrypted as chosen, with the hash and cipher of the run's credential. */
export async function protectFile(
	run: SftpRun,
	source: Readable,
	options: Pick<ProtectOptions, 'signWith' | 'encryptTo' | 'armour' | 'fileName'>,
): Promise<Readable> {
	return await protect(source, { ...options, hash: run.view.hash, cipher: run.view.cipher });
}
