import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { fxEndpoints } from '../shared/credentialFields';
import { runForEachItem } from '../shared/runItems';
import { DEFAULT_RETRY } from '../shared/transport/retry';
import { fxReportProperties } from './description';
import { reportOperations } from './operations';

export class FxTradeReport implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'FX Trade Report',
		name: 'fxTradeReport',
		icon: { light: 'file:../../icons/fx-report.svg', dark: 'file:../../icons/fx-report.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description: "Read historical, open and single FX trades from the bank's trade report API",
		defaults: { name: 'FX Trade Report' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'corporateBankingClientCredentialsApi', required: true }],
		properties: fxReportProperties(),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const credentials = await this.getCredentials('corporateBankingClientCredentialsApi');
		const { reportBaseUrl } = fxEndpoints(credentials);
		const operation = this.getNodeParameter('operation', 0) as string;
		const run = reportOperations[operation];
		if (!run)
			throw new NodeOperationError(this.getNode(), `Operation: "${operation}" is not supported`);
		const target = {
			baseUrl: reportBaseUrl,
			credentialType: 'corporateBankingClientCredentialsApi',
			readRetry: DEFAULT_RETRY,
		};
		return [await runForEachItem(this, async (i) => await run(this, i, target))];
	}
}
