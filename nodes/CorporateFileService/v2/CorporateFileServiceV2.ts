import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { FILE_SERVICE_CREDENTIAL } from '../../shared/bxd/credential/fileServiceCredential';
import { searchFileTypes } from '../../shared/bxd/node/fileTypes';
import { toNodeError } from '../../shared/common/errors';
import {
	allOperations,
	operationSubtitle,
	resourceOperation,
	resourceParameters,
	showForResources,
} from '../../shared/common/resources';
import { operationProperties } from '../actions/properties';
import { router } from '../actions/router';
import { FILE_SERVICE_RESOURCES } from './resources';

/**
 * Version 2 of the Corporate File Service node: the operations in resources (File, User,
 * Certificate), each listed as an action in n8n's node panel. The same operations and fields as
 * version 1, run by the same router. One version of the node n8n loads
 * (CorporateFileService.node.ts): the icon, name and description come from there, so n8n's lint
 * does not take this class for a node of its own.
 */
export class CorporateFileServiceV2 {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 2,
			subtitle: operationSubtitle(allOperations(FILE_SERVICE_RESOURCES)),
			defaults: { name: 'Corporate File Service' },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: FILE_SERVICE_CREDENTIAL, required: true }],
			properties: [
				...resourceParameters(FILE_SERVICE_RESOURCES, 'file'),
				...showForResources(operationProperties, FILE_SERVICE_RESOURCES),
			],
		};
	}

	methods = {
		listSearch: { searchFileTypes },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		try {
			resourceOperation(this, FILE_SERVICE_RESOURCES);
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
		return await router.call(this);
	}
}
