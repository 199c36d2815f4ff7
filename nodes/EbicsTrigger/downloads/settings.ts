import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { attempt } from '../../shared/common/attempt';
import type { BtfService } from '../../shared/ebics';
import {
	checkService,
	ORDER_TYPE_PATTERN,
	ORDER_TYPE_RULE,
	SERVICE_PRESETS,
} from '../../shared/ebics';
import type { ParseSettings } from '../../shared/delivery';
import { readParseOptions, text, wholeNumber } from '../../shared/delivery';
import { InputError } from '../../shared/common/errors';
import { PRESET_ORDER, typedService } from '../../shared/ebics/node/services';
import { ebicsFailure } from '../../shared/ebics/node/failures';
import { DEFAULTS } from '../description';

export type OutputMode = 'binary' | 'parse';

/** Everything one poll needs, read from the node's parameters and checked before the bank is asked. */
export interface EbicsTriggerSettings extends ParseSettings {
	/** The services to download, presets first, each checked. */
	services: BtfService[];
	/** The presets chosen (SERVICE_PRESETS keys), in the order of `services`. */
	presets: string[];
	/** Whether services were typed under Other Services. */
	typedServices: boolean;
	/** EBICS 2.5 order types typed (H004 credentials). */
	h004OrderTypes: string[];
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

function presetKeys(ctx: IPollFunctions): string[] {
	const chosen = ctx.getNodeParameter('services', [...DEFAULTS.services]) as unknown;
	return [...new Set(Array.isArray(chosen) ? chosen.map(String) : [])];
}

function presets(ctx: IPollFunctions, keys: string[]): BtfService[] {
	const scope = text(ctx.getNodeParameter('scope', ''));
	return keys.map((key) => {
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

/** EBICS 2.5 order types, comma- or space-separated: three upper-case letters or digits each. */
function h004OrderTypes(ctx: IPollFunctions): string[] {
	const given = text(ctx.getNodeParameter('h004OrderTypes', '')) ?? '';
	const types = given.split(/[\s,;]+/).filter(Boolean);
	for (const type of types)
		if (!ORDER_TYPE_PATTERN.test(type))
			throw new InputError(
				`Order Types: "${type}" is not an order type: ${ORDER_TYPE_RULE}, as the bank contract names it (e.g. CRZ), several separated by commas`,
				{ description: 'Nothing was sent to the bank.' },
			);
	return [...new Set(types)];
}

/** Reads and checks the node's parameters. */
export function readSettings(ctx: IPollFunctions): EbicsTriggerSettings {
	const output = ctx.getNodeParameter('output', 'binary') as string;
	if (output !== 'binary' && output !== 'parse')
		throw new InputError(`Output: "${output}" is not one of the offered choices`);
	const keys = presetKeys(ctx);
	const typed = others(ctx);
	const services = [...presets(ctx, keys), ...typed];
	const orderTypes = h004OrderTypes(ctx);
	if (!services.length && !orderTypes.length)
		throw new InputError(
			'Services: choose at least one service (or add one under Other Services, or Order Types for an EBICS 2.5 credential)',
		);
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	return {
		services,
		presets: keys,
		typedServices: typed.length > 0,
		h004OrderTypes: orderTypes,
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
