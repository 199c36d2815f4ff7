import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CommonOptions } from '../../CorporateFileService/operations/common';
import { commonOptionsFrom } from '../../CorporateFileService/operations/common';
import { DEFAULTS } from '../description';
import type { OutputMode } from './outputs';
import { isOutputMode } from './outputs';

export { CREDENTIAL_TYPE } from '../../CorporateFileService/fileService';

/** Everything one poll needs, read from the node's parameters and checked before the bank is asked. */
export interface FileTriggerSettings {
	/** File type codes to list, each on its own; empty: every type. */
	fileTypes: string[];
	targetId?: string;
	serviceId?: string;
	output: OutputMode;
	binaryPropertyName: string;
	maxFilesPerPoll: number;
	lookBackDays: number;
	rememberFiles: number;
	/** How requests are sent (endpoint, signature canonicalization, timeout, compression). */
	request: CommonOptions;
	/** What the baseline and the memory of emitted files belong to: file types, target and service. */
	scope: string;
}

function wholeNumber(ctx: IPollFunctions, field: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isFinite(n) || Math.floor(n) !== n || n < min || n > max) {
		const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
		throw new NodeOperationError(ctx.getNode(), `${field}: must be a whole number ${range}`);
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
		return text(fileType && typeof fileType === 'object' ? (fileType as IDataObject).value : fileType);
	});
	return [...new Set(codes.filter((code): code is string => code !== undefined))];
}

/** Reads and checks the node's parameters. */
export function readSettings(ctx: IPollFunctions): FileTriggerSettings {
	const node = ctx.getNode();
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const output = ctx.getNodeParameter('output', 'binary') as string;
	if (!isOutputMode(output)) throw new NodeOperationError(node, `Output: "${output}" is not one of the offered choices`);
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
		maxFilesPerPoll: wholeNumber(ctx, 'Max Files per Poll', ctx.getNodeParameter('maxFilesPerPoll', DEFAULTS.maxFilesPerPoll), 1),
		lookBackDays: wholeNumber(ctx, 'Look-Back Days', options.lookBackDays ?? DEFAULTS.lookBackDays, 1, 90),
		rememberFiles: wholeNumber(ctx, 'Remember Files', options.rememberFiles ?? DEFAULTS.rememberFiles, 100),
		request: commonOptionsFrom(node, { ...options, executionSerial: undefined, compress: undefined }),
		scope: JSON.stringify([[...fileTypes].sort(), targetId ?? '', serviceId ?? '']),
	};
}
