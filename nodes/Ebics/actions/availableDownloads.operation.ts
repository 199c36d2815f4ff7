import type { INodeProperties } from 'n8n-workflow';

import { SERVICE_PRESETS, serviceLabel } from '../../shared/ebics';
import type { EbicsOperation } from '../../shared/ebics/node/context';

export const description: INodeProperties[] = [];

/** Get Available Downloads (HAA): one item per service with data waiting at the bank. */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const services = await run.client!.haa();
	if (!services.length)
		ctx.addExecutionHints({
			type: 'info',
			location: 'outputPane',
			message: 'The bank has nothing waiting to be downloaded: no items.',
		});
	return services.map((service) => {
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
