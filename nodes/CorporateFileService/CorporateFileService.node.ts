import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { FILE_SERVICE_CREDENTIAL } from '../shared/bxd/credential/fileServiceCredential';
import * as deleteFile from './actions/deleteFile.operation';
import * as downloadFile from './actions/downloadFile.operation';
import * as downloadFileList from './actions/downloadFileList.operation';
import * as getBankCertificates from './actions/getBankCertificates.operation';
import * as getUserInfo from './actions/getUserInfo.operation';
import * as rawRequest from './actions/rawRequest.operation';
import * as renewCertificate from './actions/renewCertificate.operation';
import { router } from './actions/router';
import * as uploadFile from './actions/uploadFile.operation';
import { searchFileTypes } from '../shared/bxd/node/fileTypes';
import { optionsProperty } from '../shared/bxd/node/sharedProperties';

export class CorporateFileService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Corporate File Service',
		name: 'corporateFileService',
		icon: {
			light: 'file:../../icons/file-service.svg',
			dark: 'file:../../icons/file-service.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description:
			"Upload, list, download and delete files with the bank's SOAP file service (bxd Web Services)",
		defaults: { name: 'Corporate File Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: FILE_SERVICE_CREDENTIAL, required: true }],
		properties: [
			// Operation values are the WSDL operation names.
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Delete File',
						value: 'deleteFile',
						description: 'Delete a file held by the bank',
						action: 'Delete a file',
					},
					{
						name: 'Download File',
						value: 'downloadFile',
						description: 'Download one file by its file reference, as binary data',
						action: 'Download a file',
					},
					{
						name: 'Get Bank Certificates',
						value: 'getBankCertificates',
						description:
							"Fetch the bank's own certificates from its certificate service (GetServiceCertificates)",
						action: 'Get the bank certificates',
					},
					{
						name: 'Get User Info',
						value: 'getUserInfo',
						description: 'List the file types this user may upload and download',
						action: 'Get user info',
					},
					{
						name: 'List Files',
						value: 'downloadFileList',
						description: 'List the files available for download',
						action: 'List files',
					},
					{
						name: 'Renew Certificate',
						value: 'renewCertificate',
						description:
							'Renew the signing certificate the credential enrolled, now instead of in its renewal window',
						action: 'Renew the signing certificate',
					},
					{
						name: 'Upload File',
						value: 'uploadFile',
						description: 'Upload a file (for example a pain.001 payment file) from binary data',
						action: 'Upload a file',
					},
				],
				default: 'downloadFileList',
			},
			{
				displayName: 'Request',
				name: 'mode',
				type: 'options',
				noDataExpression: true,
				displayOptions: { hide: { operation: ['renewCertificate', 'getBankCertificates'] } },
				options: [
					{
						name: 'Build From Parameters',
						value: 'build',
						description: 'Build the ApplicationRequest from the fields below',
					},
					{
						name: 'Raw ApplicationRequest',
						value: 'raw',
						description:
							'Send an ApplicationRequest you write yourself, for banks with their own content. The node still signs and wraps it.',
					},
				],
				default: 'build',
			},
			...rawRequest.description,
			...uploadFile.description,
			...downloadFileList.description,
			...downloadFile.description,
			...deleteFile.description,
			...getUserInfo.description,
			...getBankCertificates.description,
			...renewCertificate.description,
			optionsProperty,
		],
	};

	methods = {
		listSearch: { searchFileTypes },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
