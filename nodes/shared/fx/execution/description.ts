import type { INodeProperties } from 'n8n-workflow';

import * as executeTrade from './executeTrade.operation';

/** Shown at the top of the panel: running this step is trading. */
export const realTradeNotice: INodeProperties = {
	displayName:
		'Running this node places a real FX trade at the bank for every input item, also when you click "Execute step" in the editor. Check the credential\'s environment (Sandbox or Production) before you run it.',
	name: 'realTradeNotice',
	type: 'notice',
	default: '',
};

/**
 * The FX Trade Execution's operation and its fields. The Bank Mock Service shows them too (all
 * but Allow Use by AI Agents) for its execution API.
 */
export const executionProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Execute Trade',
				value: 'executeTrade',
				description: 'Execute one FX trade',
				action: 'Execute an FX trade',
			},
		],
		default: 'executeTrade',
	},
	...executeTrade.description,
];
