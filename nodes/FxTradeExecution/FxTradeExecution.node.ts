import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { fxEndpoints } from '../shared/credentialFields';
import { searchCurrencies } from '../shared/fx/currencies';
import { runForEachItem } from '../shared/runItems';
import { fxExecutionProperties } from './description';
import { executeTrade } from './operations/executeTrade';

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
		credentials: [{ name: 'corporateBankingClientCredentialsApi', required: true }],
		properties: fxExecutionProperties(),
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
		const credentials = await this.getCredentials('corporateBankingClientCredentialsApi');
		const target = {
			baseUrl: fxEndpoints(credentials).executionBaseUrl,
			credentialType: 'corporateBankingClientCredentialsApi',
		};
		const out = await runForEachItem(this, async (i) => await executeTrade(this, i, target));
		const placed = out.filter((item) => item.json.error === undefined).length;
		if (placed) {
			const where =
				credentials.environment === 'production'
					? 'in Production'
					: credentials.environment === 'sandbox'
						? 'in the Sandbox environment'
						: `at ${new URL(target.baseUrl).host}`;
			this.addExecutionHints({
				message: `This run placed ${placed} trade${placed === 1 ? '' : 's'} at the bank ${where}. Running the node again places new trades.`,
				type: 'warning',
				location: 'outputPane',
			});
		}
		return [out];
	}
}
