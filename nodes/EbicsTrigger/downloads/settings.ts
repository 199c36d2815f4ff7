import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { attempt } from '../../shared/attempt';
import type { BtfService } from '../../shared/ebics';
import { checkService, SERVICE_PRESETS } from '../../shared/ebics';
import type { ParseSettings } from '../../shared/delivery';
import { readParseOptions, text, wholeNumber } from '../../shared/delivery';
import { InputError } from '../../shared/errors';
import { PRESET_ORDER, typedService } from '../../Ebics/helpers/services';
import { ebicsFailure } from '../../Ebics/helpers/failures';
import { DEFAULTS } from '../description';

export type OutputMode = 'binary' | 'parse';

/** Everything one poll needs, read from the node's parameters and checked before the bank is asked. */
export interface EbicsTriggerSettings extends ParseSettings {
	/** The services to download, presets first, each checked. */
	services: BtfService[];
	output: OutputMode;
	rememberFiles: number;
}

/** A service checked by the EBICS library; a wrong value names the service and the field. */
function checked(where: string, service: BtfService): BtfService {
	const result = attempt(() => checkService(service));
	if (result.ok) return result.value;
	throw new InputError(`${where}: ${ebicsFailure(result.error).message}`, {
		description: 'Nothing was sent to the bank.',
	});
}

function presets(ctx: IPollFunctions): BtfService[] {
	const chosen = ctx.getNodeParameter('services', [...DEFAULTS.services]) as unknown;
	const keys = Array.isArray(chosen) ? chosen.map(String) : [];
	const scope = text(ctx.getNodeParameter('scope', ''));
	return [...new Set(keys)].map((key) => {
		const preset = SERVICE_PRESETS[key];
		if (!preset || !PRESET_ORDER.download.includes(key))
			throw new InputError(`Services: "${key}" is not one of the download services`);
		return checked(`Services: ${preset.label}`, { ...preset.service, scope });
	});
}

function others(ctx: IPollFunctions): BtfService[] {
	const given = ctx.getNodeParameter('otherServices', {}) as { service?: unknown };
	const entries = Array.isArray(given.service) ? (given.service as IDataObject[]) : [];
	return entries.map((entry, index) => {
		const service = typedService((name) => text(entry[name]) ?? '');
		if (service.container !== undefined && !['SVC', 'XML', 'ZIP'].includes(service.container))
			throw new InputError(
				`Other Services ${index + 1}: Container: "${service.container}" is not one of SVC, XML, ZIP`,
			);
		return checked(`Other Services ${index + 1}`, service);
	});
}

/** Reads and checks the node's parameters. */
export function readSettings(ctx: IPollFunctions): EbicsTriggerSettings {
	const output = ctx.getNodeParameter('output', 'binary') as string;
	if (output !== 'binary' && output !== 'parse')
		throw new InputError(`Output: "${output}" is not one of the offered choices`);
	const services = [...presets(ctx), ...others(ctx)];
	if (!services.length)
		throw new InputError('Services: choose at least one service (or add one under Other Services)');
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	return {
		services,
		output,
		binaryPropertyName: text(ctx.getNodeParameter('binaryPropertyName', 'data')) ?? 'data',
		parse: readParseOptions(ctx, output),
		rememberFiles: wholeNumber(
			'Remember Files',
			options.rememberFiles ?? DEFAULTS.rememberFiles,
			100,
		),
	};
}
