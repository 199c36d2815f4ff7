import type { INodeProperties } from 'n8n-workflow';

import type { EbicsOperation } from '../../shared/ebics/node/context';
import { runVeuAction, veuActionProperties, veuCheck } from '../helpers/veuOrder';

export const description: INodeProperties[] = veuActionProperties(
	'veuSign',
	"Signing (HVE) adds this subscriber's electronic signature (A006) to the order: with enough signatures the bank executes it. It is sent once and never repeated automatically.",
);

export const check = veuCheck(true);

/**
 * Sign Order (HVE): fetches the order's details (HVD), refuses unless the confirmed digest is the
 * one the bank reports, then signs that digest with this subscriber's A006 key. The item shows
 * what was signed.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) =>
	await runVeuAction(ctx, itemIndex, run, 'veuSign');
