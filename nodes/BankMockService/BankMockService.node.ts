import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { searchCurrencies } from '../shared/fx/currencies';
import { router } from './actions/router';
import { mockProperties } from './description';

export class BankMockService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bank Mock Service',
		name: 'bankMockService',
		icon: {
			light: 'file:../../icons/mock-service.svg',
			dark: 'file:../../icons/mock-service.dark.svg',
		},
		group: ['input'],
		// Version 2 names the API parameter `resource`, so that n8n's node panel offers the
		// operations of both APIs (Get a trade ... Execute an FX trade) as actions.
		version: [1, 2],
		subtitle: '={{($parameter["resource"] ?? $parameter["api"]) + ": " + $parameter["operation"]}}',
		description:
			"Call the bank's mock FX APIs without authentication, surviving their random errors",
		defaults: { name: 'Bank Mock Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: mockProperties,
	};

	methods = { listSearch: { searchCurrencies } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
