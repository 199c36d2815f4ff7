/** Reading the node's parameters into checked values; a value to fix is an InputError naming it. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Canonicalization } from '../index';
import { InputError } from '../../common/errors';
import { readDay } from '../../common/properties';

export type Endpoint = 'auto' | 'standard' | 'large';

export interface CommonOptions {
	endpoint: Endpoint;
	timeoutMs: number;
	canonicalization: Canonicalization;
	compress: boolean;
	requestCompression: boolean;
	executionSerial?: string;
}

/**
 * The Options collection as the request settings; an unknown Endpoint is refused naming the
 * field.
 */
export function commonOptionsFrom(options: IDataObject, itemIndex?: number): CommonOptions {
	const endpoint = (options.endpoint as Endpoint | undefined) ?? 'auto';
	if (!['auto', 'standard', 'large'].includes(endpoint)) {
		throw new InputError(`Endpoint must be Auto, Standard or Large (got "${String(endpoint)}")`, {
			itemIndex,
		});
	}
	const timeout = options.timeout ?? 120;
	if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1) {
		throw new InputError(
			`Options > Timeout (Seconds): must be a whole number of at least 1, got ${JSON.stringify(timeout)}`,
			{
				itemIndex,
				description: 'Nothing was sent to the bank.',
			},
		);
	}
	return {
		endpoint,
		timeoutMs: timeout * 1000,
		canonicalization: options.canonicalization === 'exclusive' ? 'exclusive' : 'inclusive',
		compress: options.compress !== false,
		requestCompression: options.requestCompression === true,
		executionSerial:
			typeof options.executionSerial === 'string' && options.executionSerial.trim()
				? options.executionSerial.trim()
				: undefined,
	};
}

export function readOptions(ctx: IExecuteFunctions, itemIndex: number): CommonOptions {
	return commonOptionsFrom(
		ctx.getNodeParameter('options', itemIndex, {}) as IDataObject,
		itemIndex,
	);
}

/** Optional text parameter, trimmed; undefined when empty. */
export function textParam(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
): string | undefined {
	const value = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text ? text : undefined;
}

/** The File Type parameter (a list pick or a typed code). */
export function fileTypeParam(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const value = ctx.getNodeParameter('fileType', itemIndex, '', { extractValue: true }) as unknown;
	if (value && typeof value === 'object' && 'value' in (value as IDataObject)) {
		return String((value as IDataObject).value ?? '').trim() || undefined;
	}
	return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** One file at the bank: its reference, and the type and target folder some banks want with it. */
export interface NamedFile {
	fileReference: string;
	fileType?: string;
	targetId?: string;
}

/** The File Reference, File Type and Target ID parameters; an empty reference is refused. */
export function namedFileParams(ctx: IExecuteFunctions, itemIndex: number): NamedFile {
	const fileReference = textParam(ctx, 'fileReference', itemIndex);
	if (!fileReference) throw new InputError('File Reference is empty', { itemIndex });
	return {
		fileReference,
		fileType: fileTypeParam(ctx, itemIndex),
		targetId: textParam(ctx, 'targetId', itemIndex),
	};
}

/** A date parameter as YYYY-MM-DD (the day as written, whatever time it carries). */
export function dateParam(
	ctx: IExecuteFunctions,
	name: string,
	label: string,
	itemIndex: number,
): string | undefined {
	const read = readDay(ctx.getNodeParameter(name, itemIndex, '') as unknown, ctx.getTimezone());
	if (!read.problem) return read.day;
	if (read.problem === 'empty') return undefined;
	throw new InputError(`${label}: "${read.text}" is not a date (use YYYY-MM-DD)`, { itemIndex });
}
