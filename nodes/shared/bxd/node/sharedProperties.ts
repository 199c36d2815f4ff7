/** Parameter definitions used by several operations (and by the Bank File Trigger). */
import type { INodeProperties } from 'n8n-workflow';

/** The File Type field: any code, the common ones and the bank's own offered as suggestions. */
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

/**
 * Options shared by every node that downloads files: where to send, how to sign, how long to
 * wait.
 */
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

/**
 * The fields that name one file at the bank (Download File, Delete File): its reference, and the
 * type and target folder some banks ask for with it.
 */
export const fileReferenceField: INodeProperties = {
	displayName: 'File Reference',
	name: 'fileReference',
	type: 'string',
	default: '',
	required: true,
	placeholder: '={{ $json.fileReference }}',
};

export const referenceFileTypeField: INodeProperties = {
	...fileTypeLocator,
	required: false,
	description: "The file's type, for banks that ask for it with the reference",
};

export const referenceTargetIdField: INodeProperties = {
	displayName: 'Target ID',
	name: 'targetId',
	type: 'string',
	default: '',
	description: 'The target folder of the file, for banks that ask for it',
};
