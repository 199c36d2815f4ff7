import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { FX_CREDENTIAL } from '../shared/fx/api';
import { router } from './actions/router';
import { reportProperties } from '../shared/fx/report/description';

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
		credentials: [{ name: FX_CREDENTIAL, required: true }],
		properties: reportProperties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
