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
