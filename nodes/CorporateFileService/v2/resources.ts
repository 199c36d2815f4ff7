import type { ResourceDefinition } from '../../shared/common/resources';

/**
 * The Corporate File Service node's operations in resources (version 2): the files at the bank,
 * the user's rights, and the certificates. The values are version 1's (the WSDL operation
 * names), which the operation files' fields and the router name.
 */
export const FILE_SERVICE_RESOURCES: ResourceDefinition[] = [
	{
		name: 'File',
		value: 'file',
		description: 'Upload, list, download and delete files at the bank',
		default: 'downloadFileList',
		operations: [
			{
				name: 'Upload File',
				value: 'uploadFile',
				action: 'Upload a file',
				description: 'Upload a file (for example a pain.001 payment file) from binary data',
			},
			{
				name: 'List Files',
				value: 'downloadFileList',
				action: 'List files',
				description: 'List the files available for download',
			},
			{
				name: 'Download File',
				value: 'downloadFile',
				action: 'Download a file',
				description: 'Download one file by its file reference, as binary data',
			},
			{
				name: 'Delete File',
				value: 'deleteFile',
				action: 'Delete a file',
				description: 'Delete a file held by the bank',
			},
		],
	},
	{
		name: 'User',
		value: 'user',
		description: 'What this user may do at the bank',
		default: 'getUserInfo',
		operations: [
			{
				name: 'Get User Info',
				value: 'getUserInfo',
				action: 'Get user info',
				description: 'List the file types this user may upload and download',
			},
		],
	},
	{
		name: 'Certificate',
		value: 'certificate',
		description: "The bank's certificates and the signing certificate the credential enrolled",
		default: 'getBankCertificates',
		operations: [
			{
				name: 'Get Bank Certificates',
				value: 'getBankCertificates',
				action: 'Get the bank certificates',
				description:
					"Fetch the bank's own certificates from its certificate service (GetServiceCertificates)",
			},
			{
				name: 'Renew Certificate',
				value: 'renewCertificate',
				action: 'Renew the signing certificate',
				description:
					'Renew the signing certificate the credential enrolled, now instead of in its renewal window',
			},
		],
	},
];
