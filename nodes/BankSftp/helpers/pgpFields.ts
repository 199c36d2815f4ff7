/** The OpenPGP choices of the operations that send or make a file for the bank. */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

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
