import type { INodeProperties } from 'n8n-workflow';

import { bankVersions, H005 } from '../../shared/ebics';
import type { EbicsOperation } from '../../shared/ebics/node/context';

export const description: INodeProperties[] = [];

/**
 * Get Bank Versions (HEV): one item per EBICS version the bank speaks, and whether the node speaks
 * it and the credential uses it; needs no keys.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const versions = await bankVersions(run.view.subscriber.hostId, run.send);
	const inUse = run.view.version;
	if (!versions.some((v) => v.protocol === inUse)) {
		const other = inUse === H005 ? 'H004' : H005;
		ctx.addExecutionHints({
			type: 'warning',
			location: 'outputPane',
			message: `The bank does not offer ${inUse === H005 ? 'EBICS 3.0 (H005)' : 'EBICS 2.5 (H004)'}, which this credential is set to: it offers ${versions.map((v) => `${v.protocol} (${v.version})`).join(', ') || 'nothing'}.${versions.some((v) => v.protocol === other) ? ` Set the credential's EBICS Version to ${other}.` : ''}`,
		});
	}
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
			spokenByThisNode: version.protocol === H005 || version.protocol === 'H004',
			usedByThisCredential: version.protocol === inUse,
		},
		pairedItem: { item: itemIndex },
	}));
};
