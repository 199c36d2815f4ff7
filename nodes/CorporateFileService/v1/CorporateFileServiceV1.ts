import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { FILE_SERVICE_CREDENTIAL } from '../../shared/bxd/credential/fileServiceCredential';
import { searchFileTypes } from '../../shared/bxd/node/fileTypes';
import { operationSubtitle } from '../../shared/common/resources';
import { operationProperties } from '../actions/properties';
import { router } from '../actions/router';

/**
 * Version 1 of the Corporate File Service node: every operation in one Operation list. Workflows
 * saved with it keep it and run as they did; new nodes get version 2 (the operations in
 * resources).
 */
// Operation values are the WSDL operation names.
const operation: INodeProperties = {
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
};

// One version of the Corporate File Service node (CorporateFileService.node.ts), which n8n loads:
// the icon, name and description come from there, so n8n's lint does not take this class for a
// node of its own.
export class CorporateFileServiceV1 {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 1,
			subtitle: operationSubtitle(operation.options as Array<{ name: string; value: string }>),
			defaults: { name: 'Corporate File Service' },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: FILE_SERVICE_CREDENTIAL, required: true }],
			properties: [operation, ...operationProperties],
		};
	}

	methods = {
		listSearch: { searchFileTypes },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
