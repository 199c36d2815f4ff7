import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { BankFileFormat, ParseOptions } from '../../shared/bankfiles';
import { BANK_FILE_FORMATS } from '../../shared/bankfiles';
import { InputError } from '../../shared/errors';
import type { CommonOptions } from '../../CorporateFileService/helpers/readParameters';
import { commonOptionsFrom } from '../../CorporateFileService/helpers/readParameters';
import { DEFAULTS } from '../description';
import { textEncodingOption } from '../../BankFile/actions/parse.operation';
import type { OutputMode } from './outputs';
import { isOutputMode } from './outputs';

export { FILE_SERVICE_CREDENTIAL as CREDENTIAL_TYPE } from '../../shared/fileServiceCredential';

/**
 * Everything one poll needs, read from the node's parameters and checked before the bank is asked.
 */
export interface FileTriggerSettings {
	/** File type codes to list, each on its own; empty: every type. */
	fileTypes: string[];
	targetId?: string;
	serviceId?: string;
	output: OutputMode;
	binaryPropertyName: string;
	/** How Parsed Entries reads each file (the Bank File node's Parse settings). */
	parse: ParseOptions;
	maxFilesPerPoll: number;
	lookBackDays: number;
	rememberFiles: number;
	/** How requests are sent (endpoint, signature canonicalization, timeout, compression). */
	request: CommonOptions;
	/**
	 * What the baseline and the memory of emitted files belong to: file types, target and service.
	 */
	scope: string;
}

function wholeNumber(
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

function text(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const trimmed = String(value).trim();
	return trimmed ? trimmed : undefined;
}

/** The codes of the File Types collection (each a list pick or a typed code), without repeats. */
function fileTypesOf(value: unknown): string[] {
	const entries = (value as { types?: unknown } | undefined)?.types;
	if (!Array.isArray(entries)) return [];
	const codes = entries.map((entry) => {
		const fileType = (entry as IDataObject | undefined)?.fileType;
		return text(
			fileType && typeof fileType === 'object' ? (fileType as IDataObject).value : fileType,
		);
	});
	return [...new Set(codes.filter((code): code is string => code !== undefined))];
}

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

/** The Parse Options collection (used with Output Parsed Entries). */
function parseOptionsOf(ctx: IPollFunctions, output: OutputMode): ParseOptions {
	if (output !== 'parse') return {};
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

/** Reads and checks the node's parameters. */
export function readSettings(ctx: IPollFunctions): FileTriggerSettings {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const output = ctx.getNodeParameter('output', 'binary') as string;
	if (!isOutputMode(output))
		throw new InputError(`Output: "${output}" is not one of the offered choices`);
	const binaryPropertyName = text(ctx.getNodeParameter('binaryPropertyName', 'data')) ?? 'data';
	const fileTypes = fileTypesOf(ctx.getNodeParameter('fileTypes', {}));
	const targetId = text(ctx.getNodeParameter('targetId', ''));
	const serviceId = text(ctx.getNodeParameter('serviceId', ''));
	return {
		fileTypes,
		targetId,
		serviceId,
		output,
		binaryPropertyName,
		parse: parseOptionsOf(ctx, output),
		maxFilesPerPoll: wholeNumber(
			'Max Files per Poll',
			ctx.getNodeParameter('maxFilesPerPoll', DEFAULTS.maxFilesPerPoll),
			1,
		),
		lookBackDays: wholeNumber(
			'Look-Back Days',
			options.lookBackDays ?? DEFAULTS.lookBackDays,
			1,
			90,
		),
		rememberFiles: wholeNumber(
			'Remember Files',
			options.rememberFiles ?? DEFAULTS.rememberFiles,
			100,
		),
		request: commonOptionsFrom({
			...options,
			executionSerial: undefined,
			compress: undefined,
		}),
		scope: JSON.stringify([[...fileTypes].sort(), targetId ?? '', serviceId ?? '']),
	};
}
