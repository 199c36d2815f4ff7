import type { INodeProperties } from 'n8n-workflow';

import {
	H004_PRESET_ORDER_TYPES,
	orderTypeLabel,
	SERVICE_PRESETS,
	serviceLabel,
} from '../../shared/ebics';
import type { EbicsOperation } from '../../shared/ebics/node/context';

export const description: INodeProperties[] = [];

/**
 * Get Available Downloads (HAA): one item per service (EBICS 3.0) or order type (EBICS 2.5) with
 * data waiting at the bank.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const services = await run.client!.haa();
	if (!services.length)
		ctx.addExecutionHints({
			type: 'info',
			location: 'outputPane',
			message: 'The bank has nothing waiting to be downloaded: no items.',
		});
	return services.map((service) => {
		if ('orderType' in service) {
			// EBICS 2.5: the order type, and the preset that downloads by it.
			const key = Object.keys(H004_PRESET_ORDER_TYPES).find(
				(k) => H004_PRESET_ORDER_TYPES[k] === service.orderType,
			);
			return {
				json: {
					service: orderTypeLabel(service.orderType),
					orderType: service.orderType,
					preset: (key && SERVICE_PRESETS[key]?.label) || null,
				},
				pairedItem: { item: itemIndex },
			};
		}
		const preset = Object.values(SERVICE_PRESETS).find(
			(p) =>
				p.direction === 'download' &&
				p.service.serviceName === service.serviceName &&
				p.service.msgName === service.msgName,
		);
		return {
			json: {
				service: serviceLabel(service),
				...service,
				preset: preset?.label ?? null,
			},
			pairedItem: { item: itemIndex },
		};
	});
};
