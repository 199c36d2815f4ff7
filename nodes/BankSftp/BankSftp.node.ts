import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { SFTP_CREDENTIAL } from '../shared/sftp/credential/sftpCredential';
import * as decryptVerify from './actions/decryptVerify.operation';
import * as deleteFile from './actions/delete.operation';
import * as download from './actions/download.operation';
import * as encryptSign from './actions/encryptSign.operation';
import * as keyInformation from './actions/keyInformation.operation';
import * as list from './actions/list.operation';
import * as move from './actions/move.operation';
import { router } from './actions/router';
import * as upload from './actions/upload.operation';

export class BankSftp implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bank SFTP',
		name: 'bankSftp',
		icon: { light: 'file:../../icons/sftp.svg', dark: 'file:../../icons/sftp.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			"Exchange files with a bank's host-to-host SFTP server: upload signed and encrypted payment files, list, download (decrypted, the bank's signature verified), archive and delete; OpenPGP sign, encrypt, decrypt and verify",
		defaults: { name: 'Bank SFTP' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: SFTP_CREDENTIAL, required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'File at the Bank', value: 'file' },
					{ name: 'OpenPGP (Local)', value: 'openpgp' },
				],
				default: 'file',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['file'] } },
				options: [
					{
						name: 'Delete',
						value: 'delete',
						action: 'Delete a file at the bank',
						description: "Delete a file from the bank's server",
					},
					{
						name: 'Download',
						value: 'download',
						action: 'Download a file from the bank',
						description: "Download a file, decrypted and with the bank's signature verified",
					},
					{
						name: 'List',
						value: 'list',
						action: 'List files at the bank',
						description: 'List the files of a folder',
					},
					{
						name: 'Move',
						value: 'move',
						action: 'Move a file at the bank',
						description: 'Move a file to another folder, the archive by default',
					},
					{
						name: 'Upload',
						value: 'upload',
						action: 'Upload a file to the bank',
						description: 'Sign, encrypt and upload a file, never twice',
					},
				],
				default: 'upload',
			},
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: ['openpgp'] } },
				options: [
					{
						name: 'Decrypt and Verify',
						value: 'decryptVerify',
						action: 'Decrypt and verify a file',
						description: "Decrypt a file and verify the bank's signature, here in n8n",
					},
					{
						name: 'Encrypt and Sign',
						value: 'encryptSign',
						action: 'Encrypt and sign a file',
						description: 'Sign and encrypt a file for the bank, here in n8n',
					},
					{
						name: 'Key Information',
						value: 'keyInformation',
						action: 'Show the open pgp keys',
						description: 'Your public key for the bank and the fingerprints of the keys',
					},
				],
				default: 'encryptSign',
			},
			...upload.description,
			...list.description,
			...download.description,
			...move.description,
			...deleteFile.description,
			...encryptSign.description,
			...decryptVerify.description,
			...keyInformation.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
