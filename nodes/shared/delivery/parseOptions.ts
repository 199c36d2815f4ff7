/**
 * The Parse Options of a file trigger's Output Parsed Entries: the Bank File node's Parse
 * settings, offered and read the same way by every file trigger.
 */
import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import type { BankFileFormat, ParseOptions } from '../bankfiles';
import { BANK_FILE_FORMATS } from '../bankfiles';
import { InputError } from '../common/errors';
import {
	fileFormatOption,
	itemPerOption,
	keepXmlOption,
	onInvalidRecordOption,
	textEncodingOption,
} from '../bankfiles/node/parseProperties';

/** The Output value that parses each file. */
export const PARSE_OUTPUT = 'parse';

/** The Parse Options collection, shown with Output Parsed Entries. */
export const parseOptionsProperty: INodeProperties = {
	displayName: 'Parse Options',
	name: 'parseOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show: { output: [PARSE_OUTPUT] } },
	options: [
		{
			...fileFormatOption,
			description: 'The kind of bank file; detected from the content of each file by default',
		},
		itemPerOption,
		keepXmlOption,
		{
			...onInvalidRecordOption,
			options: [
				{
					name: 'Fail',
					value: 'fail',
					description: 'Emit the file with the error instead of its entries',
				},
				{
					name: 'Skip With a Warning',
					value: 'warn',
					description: 'Leave it out and emit a warning item (kind "warning")',
				},
			],
		},
		textEncodingOption,
	],
};

const FORMATS: Array<BankFileFormat | 'auto'> = ['auto', ...BANK_FILE_FORMATS];

/** One choice of the Parse Options, checked against the offered values. */
function choice<T extends string>(
	field: string,
	value: unknown,
	allowed: readonly T[],
	fallback: T,
): T {
	if (value === undefined || value === null || value === '') return fallback;
	if (typeof value === 'string' && (allowed as readonly string[]).includes(value))
		return value as T;
	throw new InputError(`${field}: "${String(value)}" is not one of ${allowed.join(', ')}`);
}

/** The Parse Options as the parser takes them (empty unless the Output parses). */
export function readParseOptions(ctx: IPollFunctions, output: string): ParseOptions {
	if (output !== PARSE_OUTPUT) return {};
	const given = ctx.getNodeParameter('parseOptions', {}) as IDataObject;
	return {
		format: choice('File Format', given.format, FORMATS, 'auto'),
		split: choice('Item Per', given.split, ['entry', 'transaction'] as const, 'entry'),
		keepXml: given.keepXml === true,
		onInvalidRecord: choice(
			'On Invalid Entry or Record',
			given.onInvalidRecord,
			['fail', 'warn'] as const,
			'fail',
		),
		encoding: choice(
			textEncodingOption.displayName,
			given.encoding,
			['auto', 'utf-8', 'latin1'] as const,
			'auto',
		),
	};
}

/** A whole number parameter within its range, or an error naming the field and the range. */
export function wholeNumber(
	field: string,
	value: unknown,
	min: number,
	max = Number.MAX_SAFE_INTEGER,
): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n) || Math.floor(n) !== n || n < min || n > max) {
		const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
		throw new InputError(`${field}: must be a whole number ${range}`);
	}
	return n;
}

/** A text parameter trimmed, or undefined when empty. */
export function text(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const trimmed = String(value).trim();
	return trimmed ? trimmed : undefined;
}
