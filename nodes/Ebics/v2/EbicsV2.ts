import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { toNodeError } from '../../shared/common/errors';
import {
	allOperations,
	operationSubtitle,
	resourceOperation,
	resourceParameters,
	showForResources,
} from '../../shared/common/resources';
import { EBICS_CREDENTIAL } from '../../shared/ebics/credential/ebicsCredential';
import { operationProperties } from '../actions/properties';
import { router } from '../actions/router';
import { EBICS_RESOURCES } from './resources';

/**
 * Version 2 of the EBICS node: the operations in resources (Order, Distributed Signature,
 * Subscriber, Bank), each listed as an action in n8n's node panel. The same operations and
 * fields as version 1, run by the same router.
 *
 * One version of the node n8n loads (Ebics.node.ts): the icon, name and description come from
 * there, so n8n's lint does not take this class for a node of its own.
 */
export class EbicsV2 {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 2,
			subtitle: operationSubtitle(allOperations(EBICS_RESOURCES)),
			defaults: { name: 'EBICS' },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: EBICS_CREDENTIAL, required: true }],
			properties: [
				...resourceParameters(EBICS_RESOURCES, 'order'),
				...showForResources(operationProperties, EBICS_RESOURCES),
			],
		};
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		try {
			resourceOperation(this, EBICS_RESOURCES);
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
		return await router.call(this);
	}
}
