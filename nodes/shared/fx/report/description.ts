import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getOpen from './getOpen.operation';
import { listDescription } from './listTrades';

/**
 * The FX Trade Report's fields: the operation, then each operation's own fields and the fields
 * the list operations share. The Bank Mock Service shows the same fields for its report API.
 */
export const reportProperties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get one trade by its trade ID',
				action: 'Get a trade',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'Get historical trades executed within a date range',
				action: 'Get many historical trades',
			},
			{
				name: 'Get Open',
				value: 'getOpen',
				description: 'Get the trades that are still open (by maturity date)',
				action: 'Get open trades',
			},
		],
		default: 'getMany',
	},
	...get.description,
	...getMany.description,
	...getOpen.description,
	...listDescription,
];
