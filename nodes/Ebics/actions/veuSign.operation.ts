import type { INodeProperties } from 'n8n-workflow';

import { readConfirmedDigest } from '../../shared/ebics';
import type { EbicsOperation } from '../helpers/context';
import {
	confirmedDigestNotice,
	confirmedDigestProperty,
	readVeuOrder,
	veuDetailsJson,
} from '../helpers/veuOrder';

export const description: INodeProperties[] = [
	{
		displayName:
			"Signing (HVE) adds this subscriber's electronic signature (A006) to the order: with enough signatures the bank executes it. It is sent once and never repeated automatically.",
		name: 'veuSignNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { operation: ['veuSign'] } },
	},
	confirmedDigestProperty('veuSign', 'signed'),
	confirmedDigestNotice('veuSign'),
];

/**
 * Sign Order (HVE): fetches the order's details (HVD), refuses unless the confirmed digest is the
 * one the bank reports, then signs that digest with this subscriber's A006 key. The item shows
 * what was signed.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const ref = readVeuOrder(ctx, itemIndex, run);
	const confirmed = readConfirmedDigest(
		ctx.getNodeParameter('confirmedDigest', itemIndex, '') as string,
	);
	const result = await run.veu!.sign(ref, confirmed);
	return [
		{
			json: {
				signed: true,
				signer: `${run.view.subscriber.partnerId}/${run.view.subscriber.userId}`,
				...veuDetailsJson(ref, result.details),
				signaturesBefore: result.details.signers.length,
				returnCodes: { ...result.codes },
				signedAt: new Date().toISOString(),
			},
			pairedItem: { item: itemIndex },
		},
	];
};
