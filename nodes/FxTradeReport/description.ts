import type { INodeProperties } from 'n8n-workflow';

/** The FX Trade Report operations and fields, shared with the Bank Mock Service node. */
export function fxReportProperties(show: Record<string, string[]> = {}): INodeProperties[] {
	const when = (operations: string[]) => ({ show: { ...show, operation: operations } });
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: Object.keys(show).length ? { show } : undefined,
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
		{
			displayName: 'Trade ID',
			name: 'tradeId',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'T250711A8787',
			description: 'The 12-character identifier of the trade',
			displayOptions: when(['get']),
		},
		{
			displayName: 'Start Date',
			name: 'startDate',
			type: 'dateTime',
			typeOptions: { dateOnly: true },
			required: true,
			default: '',
			description: 'First trade execution date to include (not in the future)',
			displayOptions: when(['getMany']),
		},
		{
			displayName: 'End Date',
			name: 'endDate',
			type: 'dateTime',
			typeOptions: { dateOnly: true },
			default: '',
			description:
				'Last trade execution date to include (not in the future, not before the start date). Empty: up to today.',
			displayOptions: when(['getMany']),
		},
		{
			displayName: 'Counterparts',
			name: 'counterparts',
			type: 'string',
			default: '',
			placeholder: 'CP123, CP456',
			description: 'Only trades with these counterpart identifiers (comma-separated). Empty: all.',
			displayOptions: when(['getMany', 'getOpen']),
		},
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: when(['getMany', 'getOpen']),
		},
		// No minValue: n8n's number input would turn a typed 0 or -5 into another valid limit. The
		// node refuses anything but a whole number of at least 1, naming the field.
		// eslint-disable-next-line n8n-nodes-base/node-param-type-options-missing-from-limit
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, operation: ['getMany', 'getOpen'], returnAll: [false] } },
		},
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: when(['getMany', 'getOpen']),
			options: [
				{
					displayName: 'Offset',
					name: 'offset',
					type: 'number',
					default: 0,
					description: 'Skip this many trades before the first one returned (for paging yourself)',
				},
				{
					displayName: 'Page Size',
					name: 'pageSize',
					type: 'number',
					default: 100,
					description: "Trades asked for per request (the bank's limit parameter, 1 to 100)",
				},
			],
		},
	];
}
