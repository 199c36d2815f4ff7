import type { INodeProperties } from 'n8n-workflow';

import { bankVersions, H005 } from '../../shared/ebics';
import type { EbicsOperation } from '../helpers/context';

export const description: INodeProperties[] = [];

/** Get Bank Versions (HEV): one item per EBICS version the bank speaks; needs no keys. */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const versions = await bankVersions(run.view.subscriber.hostId, run.send);
	if (!versions.some((v) => v.protocol === H005))
		ctx.addExecutionHints({
			type: 'warning',
			location: 'outputPane',
			message: `The bank does not offer EBICS 3.0 (H005), which this node speaks: it offers ${versions.map((v) => `${v.protocol} (${v.version})`).join(', ') || 'nothing'}.`,
		});
	return versions.map((version) => ({
		json: {
			hostId: run.view.subscriber.hostId,
			protocol: version.protocol,
			version: version.version,
			ebics:
				version.protocol === 'H005'
					? '3.0'
					: version.protocol === 'H004'
						? '2.5'
						: version.protocol === 'H003'
							? '2.4'
							: null,
			spokenByThisNode: version.protocol === H005,
		},
		pairedItem: { item: itemIndex },
	}));
};
