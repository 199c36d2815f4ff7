import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { readParseOptions, text, wholeNumber, type ParseSettings } from '../../shared/delivery';
import { attempt } from '../../shared/common/attempt';
import { InputError } from '../../shared/common/errors';
import type { SftpRun } from '../../shared/sftp/node/context';
import { DEFAULTS } from '../description';

export type AfterDelivery = 'leave' | 'move' | 'delete';

export interface SftpTriggerSettings extends ParseSettings {
	output: 'binary' | 'parse';
	decrypt: boolean;
	allowUnsigned: boolean;
	afterDelivery: AfterDelivery;
	maxFilesPerPoll: number;
	rememberFiles: number;
	folder: string;
	archiveFolder: string;
	pattern?: RegExp;
	settle: boolean;
	/** What the memory belongs to: the login and the folder. */
	scope: string;
}

export function readSettings(ctx: IPollFunctions, run: SftpRun): SftpTriggerSettings {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const output = ctx.getNodeParameter('output', 'binary') as string;
	if (output !== 'binary' && output !== 'parse')
		throw new InputError(`Output: "${output}" is not one of the offered choices`);
	const afterDelivery = ctx.getNodeParameter('afterDelivery', 'leave') as string;
	if (!['leave', 'move', 'delete'].includes(afterDelivery))
		throw new InputError(`After Delivery: "${afterDelivery}" is not one of the offered choices`);
	const given = text(options.pattern);
	const compiled = given ? attempt(() => new RegExp(given)) : undefined;
	if (compiled && !compiled.ok)
		throw new InputError(
			`File Name Pattern: not a regular expression (${(compiled.error as Error).message})`,
		);
	const pattern = compiled?.ok ? compiled.value : undefined;
	const folder = text(options.folder) ?? run.view.folders.incoming;
	return {
		output,
		binaryPropertyName: text(ctx.getNodeParameter('binaryPropertyName', 'data')) ?? 'data',
		parse: readParseOptions(ctx, output),
		decrypt: ctx.getNodeParameter('decrypt', true) as boolean,
		allowUnsigned: ctx.getNodeParameter('allowUnsigned', false) as boolean,
		afterDelivery: afterDelivery as AfterDelivery,
		maxFilesPerPoll: wholeNumber(
			'Max Files per Poll',
			ctx.getNodeParameter('maxFilesPerPoll', DEFAULTS.maxFilesPerPoll),
			1,
		),
		rememberFiles: wholeNumber(
			'Remember Files',
			options.rememberFiles ?? DEFAULTS.rememberFiles,
			100,
		),
		folder,
		archiveFolder: text(options.archiveFolder) ?? run.view.folders.archive,
		pattern,
		settle: options.settle !== false,
		scope: JSON.stringify([run.view.owner, folder]),
	};
}
