import type { INodeProperties } from 'n8n-workflow';

/** Operation values are the WSDL operation names. */
export const operationProperty: INodeProperties = {
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

export const modeProperty: INodeProperties = {
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
};

export const rawProperties: INodeProperties[] = [
	{
		displayName: 'ApplicationRequest',
		name: 'applicationRequest',
		type: 'string',
		typeOptions: { rows: 10 },
		required: true,
		default: '',
		placeholder: '<ApplicationRequest xmlns="http://bxd.fi/xmldata/">…</ApplicationRequest>',
		description:
			"The ApplicationRequest document as XML, or its base64. It is signed with the credential's signing key unless it already carries a signature.",
		displayOptions: { show: { mode: ['raw'] } },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		description:
			'The name of the output binary field for the Content of the answer, when it has one',
		displayOptions: { show: { mode: ['raw'] } },
	},
];

/** The File Type field: any code, with the common ones and the bank's own offered as suggestions. */
export const fileTypeLocator: INodeProperties = {
	displayName: 'File Type',
	name: 'fileType',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select or type a file type…',
			typeOptions: { searchListMethod: 'searchFileTypes', searchable: true },
		},
		{
			displayName: 'Code',
			// Not "id": n8n labels a mode of that name "By ID" whatever its display name.
			name: 'code',
			type: 'string',
			placeholder: 'e.g. XT or camt.053.001.02',
		},
	],
};

/** File type: any text, with the common codes offered as suggestions (banks use their own). */
export function fileTypeProperty(
	operations: string[],
	required: boolean,
	description: string,
): INodeProperties {
	return {
		...fileTypeLocator,
		required,
		description,
		displayOptions: { show: { mode: ['build'], operation: operations } },
	};
}

/** Options shared by every node that downloads files: where to send, how to sign, how long to wait. */
export const endpointOption: INodeProperties = {
	displayName: 'Endpoint',
	name: 'endpoint',
	type: 'options',
	options: [
		{
			name: 'Auto',
			value: 'auto',
			description:
				'Messages over 20 MB go to the Large File Service URL, others to the Service URL',
		},
		{ name: 'Large', value: 'large', description: 'Always the Large File Service URL' },
		{ name: 'Standard', value: 'standard', description: 'Always the Service URL' },
	],
	default: 'auto',
	description: 'Which of the two file service addresses of the credential to use',
};

export const requestCompressionOption: INodeProperties = {
	displayName: 'Request Compressed Download',
	name: 'requestCompression',
	type: 'boolean',
	default: false,
	description:
		'Whether to ask the bank to gzip the file in transit. It is unpacked here either way.',
};

export const canonicalizationOption: INodeProperties = {
	displayName: 'Signature Canonicalization',
	name: 'canonicalization',
	type: 'options',
	options: [
		{
			name: 'Inclusive (C14N 1.0)',
			value: 'inclusive',
			description: 'What most bxd banks use for the ApplicationRequest signature',
		},
		{ name: 'Exclusive (Exc-C14N)', value: 'exclusive' },
	],
	default: 'inclusive',
	description:
		'How the signed ApplicationRequest is canonicalized, when the credential has a signing key',
};

export const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	default: 120,
	description: 'How long to wait for the bank to answer',
};

export const optionsProperty: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Compress',
			name: 'compress',
			type: 'boolean',
			default: true,
			description: 'Whether to gzip the file before sending it (the bank unpacks it)',
			displayOptions: { show: { '/operation': ['uploadFile'], '/mode': ['build'] } },
		},
		endpointOption,
		{
			displayName: 'Execution Serial',
			name: 'executionSerial',
			type: 'string',
			default: '',
			description:
				'An identifier of your own (up to 32 characters) that the bank returns in its answer, for banks that use it',
			displayOptions: { show: { '/mode': ['build'] } },
		},
		{
			...requestCompressionOption,
			displayOptions: { show: { '/operation': ['downloadFile'], '/mode': ['build'] } },
		},
		canonicalizationOption,
		timeoutOption,
	],
};

/** The fields that name one file at the bank: its reference, and the type and target folder some banks ask for with it. */
export function fileReferenceProperties(
	operation: string,
	referenceDescription: string,
): INodeProperties[] {
	const show = { mode: ['build'], operation: [operation] };
	return [
		{
			displayName: 'File Reference',
			name: 'fileReference',
			type: 'string',
			default: '',
			required: true,
			placeholder: '={{ $json.fileReference }}',
			description: referenceDescription,
			displayOptions: { show },
		},
		fileTypeProperty(
			[operation],
			false,
			"The file's type, for banks that ask for it with the reference",
		),
		{
			displayName: 'Target ID',
			name: 'targetId',
			type: 'string',
			default: '',
			description: 'The target folder of the file, for banks that ask for it',
			displayOptions: { show },
		},
	];
}
