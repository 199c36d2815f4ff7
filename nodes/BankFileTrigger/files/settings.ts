import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { readParseOptions, text, wholeNumber } from '../../shared/delivery';
import { InputError } from '../../shared/common/errors';
import { commonOptionsFrom } from '../../shared/bxd/node/readParameters';
import { DEFAULTS } from '../description';
import type { OutputMode, OutputSettings } from './outputs';
import { isOutputMode } from './outputs';

export { FILE_SERVICE_CREDENTIAL as CREDENTIAL_TYPE } from '../../shared/bxd/credential/fileServiceCredential';

/**
 * Everything one poll needs, read from the node's parameters and checked before the bank is asked.
 */
export interface FileTriggerSettings extends OutputSettings {
	/** File type codes to list, each on its own; empty: every type. */
	fileTypes: string[];
	serviceId?: string;
	output: OutputMode;
	maxFilesPerPoll: number;
	lookBackDays: number;
	rememberFiles: number;
	/**
	 * What the baseline and the memory of emitted files belong to: file types, target and service.
	 */
	scope: string;
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
		parse: readParseOptions(ctx, output),
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
