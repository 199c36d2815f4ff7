import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { fxEndpoints } from '../shared/credentialFields';
import { runForEachItem } from '../shared/runItems';
import { fxExecutionProperties } from './description';
import { executeTrade } from './operations/executeTrade';

export class FxTradeExecution implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'FX Trade Execution',
		name: 'fxTradeExecution',
		icon: { light: 'file:../../icons/bank.svg', dark: 'file:../../icons/bank.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: 'Execute trade',
		description: 'Execute an FX trade with the bank (validated before anything is sent, never sent twice)',
		defaults: { name: 'FX Execute' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'corporateBankingClientCredentialsApi', required: true }],
		properties: fxExecutionProperties(),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials('corporateBankingClientCredentialsApi');
		const target = { baseUrl: fxEndpoints(credentials).executionBaseUrl, credentialType: 'corporateBankingClientCredentialsApi' };
		return [await runForEachItem(this, async (i) => await executeTrade(this, i, target))];
	}
}
