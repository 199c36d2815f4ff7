import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { FX_CREDENTIAL } from '../shared/fx/api';
import { searchCurrencies } from '../shared/fx/currencies';
import { router } from './actions/router';
import { executionProperties, realTradeNotice } from '../shared/fx/execution/description';

export class FxTradeExecution implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'FX Trade Execution',
		name: 'fxTradeExecution',
		icon: {
			light: 'file:../../icons/fx-execution.svg',
			dark: 'file:../../icons/fx-execution.dark.svg',
		},
		group: ['output'],
		version: 1,
		subtitle: 'Execute trade',
		description:
			'Execute an FX trade with the bank (validated before anything is sent, never sent twice)',
		defaults: { name: 'FX Execute' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: FX_CREDENTIAL, required: true }],
		properties: [realTradeNotice, ...executionProperties],
		hints: [
			{
				message:
					'Executing this node trades: each input item is sent to the bank as one real FX trade.',
				type: 'warning',
				location: 'ndv',
				whenToDisplay: 'beforeExecution',
			},
		],
	};

	methods = { listSearch: { searchCurrencies } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
