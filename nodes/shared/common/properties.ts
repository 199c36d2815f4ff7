import { DateTime } from 'luxon';
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

/**
 * Hides a notice while the watched field is empty, one of the usual good values, an expression
 * (checked when the node runs) or matches the pattern of a good value: n8n shows it the moment the
 * field holds anything else. n8n tries the rules in order and stops at the first that holds, so a
 * usual value never reaches n8n's regular expression engine. That engine runs each pattern in a vm
 * with a 250 ms wall-clock limit every time n8n loads the workflow (for a run too), and fails the
 * whole run past it, which a busy machine's pause can cause with any pattern: the usual values
 * keep the patterns for what is rarely typed.
 */
export function unlessValid(
	field: string,
	pattern: string,
	usual: string[] = [],
): INodeProperties['displayOptions'] {
	return {
		hide: {
			[field]: ['', { _cnd: { startsWith: '=' } }, ...usual, { _cnd: { regex: pattern } }],
		},
	};
}

/**
 * The pattern for `unlessValid` of a rule the node checks on the trimmed value (an anchored regular
 * expression): the same rule, with the spaces around the value the node trims.
 */
export function trimmedPattern(rule: RegExp): string {
	return `^\\s*${rule.source.replace(/^\^/, '').replace(/\$$/, '')}\\s*$`;
}

/** A day written YYYY-MM-DD (with a month and day that can exist), or a day and time as stored. */
const DAY_PATTERN =
	'^\\s*\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(?:[T ][\\d:.]+(?:Z|[+-]\\d{2}:?\\d{2})?)?\\s*$';

/** A day as `dayProperties` takes it: the day, or why the value is not one. */
export type DayReading =
	| { problem?: undefined; day: string }
	/** Nothing given (or a date object that holds no date). */
	| { problem: 'empty' }
	/** Not written YYYY-MM-DD (or as a day and time), or something after it. */
	| { problem: 'format'; text: string }
	/** Written so, but no day of the calendar (2026-13-01, 2026-11-31). */
	| { problem: 'calendar'; text: string; day: string };

/**
 * Reads a day field the way its notice (DAY_PATTERN) describes it: text YYYY-MM-DD, or a day and
 * time as an older date picker stored it, nothing after it; a date object (an expression's) is
 * taken as its day in `zone`. The day is never moved to another one.
 */
export function readDay(value: unknown, zone?: string): DayReading {
	let text: string | undefined;
	if (value instanceof Date)
		text = Number.isNaN(value.getTime())
			? undefined
			: (DateTime.fromJSDate(value, { zone }).toISODate() ?? undefined);
	else if (DateTime.isDateTime(value))
		text = value.isValid ? (value.toISODate() ?? undefined) : undefined;
	else if (typeof value === 'string') text = value.trim();
	else if (typeof value === 'number') text = String(value);
	if (!text) return { problem: 'empty' };
	const match = /^(\d{4}-\d{2}-\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
	if (!match) return { problem: 'format', text };
	if (!DateTime.fromISO(match[1], { zone: 'utc' }).isValid)
		return { problem: 'calendar', text, day: match[1] };
	return { day: match[1] };
}

/**
 * A day typed as YYYY-MM-DD, and the notice shown under it while the value is not written so. A
 * text field, not n8n's date picker: the picker turns a day that does not exist into another one
 * (2026-13-01 into 2027-01-01, 2026-11-31 into 2026-12-01) and drops what follows a date
 * (2026-01-05, into 2026-01-05); the node refuses such a value naming the field instead, before
 * anything is sent. What an older version's picker stored (a day with a time) is taken as its day.
 */
export function dayProperties(field: {
	displayName: string;
	name: string;
	description: string;
	displayOptions?: IDisplayOptions;
	required?: boolean;
}): INodeProperties[] {
	return [
		{
			displayName: field.displayName,
			name: field.name,
			type: 'string',
			default: '',
			...(field.required ? { required: true } : {}),
			placeholder: 'YYYY-MM-DD',
			description: field.description,
			...(field.displayOptions ? { displayOptions: field.displayOptions } : {}),
		},
		{
			displayName: `${field.displayName}: not a day written YYYY-MM-DD (such as 2026-01-31). The node refuses it before it sends a request.`,
			name: `${field.name}Notice`,
			type: 'notice',
			default: '',
			displayOptions: { ...field.displayOptions, ...unlessValid(field.name, DAY_PATTERN) },
		},
	];
}
