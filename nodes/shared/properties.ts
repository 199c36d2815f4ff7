import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

/**
 * A node's (or an operation's) "Options" collection: the settings a user adds only when the
 * defaults do not fit.
 */
export function optionsCollection(
	options: INodeProperties[],
	settings: { placeholder: 'Add Option' | 'Add option'; displayOptions?: IDisplayOptions },
): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: settings.placeholder,
		default: {},
		...(settings.displayOptions ? { displayOptions: settings.displayOptions } : {}),
		options,
	};
}

/** The field naming the input binary field a node reads a file from. */
export function inputBinaryField(hint: string, displayOptions: IDisplayOptions): INodeProperties {
	return {
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint,
		displayOptions,
	};
}

/** The field naming the output binary field a node puts a downloaded file in. */
export function outputFileField(displayOptions: IDisplayOptions): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
		displayOptions,
	};
}
