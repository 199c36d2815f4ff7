import type { INodeProperties } from 'n8n-workflow';

import { TENOR_NAMES, TENORS } from '../shared/fx/validation';

const SIDES = [
	{ name: 'Buy', value: 'BUY' },
	{ name: 'Sell', value: 'SELL' },
];

/** The FX Trade Execution fields, shared with the Bank Mock Service node. */
export function fxExecutionProperties(show: Record<string, string[]> = {}): INodeProperties[] {
	const displayOptions = Object.keys(show).length ? { show } : undefined;
	const maturity = (type: string) => ({ show: { ...show, maturityType: [type] } });
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions,
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
		{
			displayName: 'Counterpart',
			name: 'counterpart',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'DEMOCP1',
			description: 'Counterpart identifier the trade is made for',
			displayOptions,
		},
		{
			displayName: 'Buy Currency',
			name: 'buyCurrency',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'DKK',
			description: 'ISO 4217 code of the currency bought',
			displayOptions,
		},
		{
			displayName: 'Sell Currency',
			name: 'sellCurrency',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'EUR',
			description: 'ISO 4217 code of the currency sold',
			displayOptions,
		},
		{
			displayName: 'Amount',
			name: 'amount',
			type: 'number',
			required: true,
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description: 'The amount, in the currency of the Amount Side',
			displayOptions,
		},
		{
			displayName: 'Amount Side',
			name: 'amountSide',
			type: 'options',
			options: SIDES,
			default: 'SELL',
			description: 'Whether the amount is what you buy or what you sell',
			displayOptions,
		},
		{
			displayName: 'Base Side',
			name: 'baseSide',
			type: 'options',
			options: SIDES,
			default: 'SELL',
			description: 'Which currency is the base of the quoted price',
			displayOptions,
		},
		{
			displayName: 'Maturity Given As',
			name: 'maturityType',
			type: 'options',
			options: [
				{ name: 'Date', value: 'date', description: 'A maturity date' },
				{ name: 'Tenor', value: 'tenor', description: 'A standard period such as SP or 1M' },
			],
			default: 'tenor',
			description: 'The bank takes either a maturity date or a tenor; a date wins when both are sent, so only the one chosen here is sent',
			displayOptions,
		},
		{
			displayName: 'Maturity Date',
			name: 'maturityDate',
			type: 'dateTime',
			required: true,
			default: '',
			description: 'Maturity date of the contract (today or later)',
			displayOptions: maturity('date'),
		},
		{
			displayName: 'Tenor',
			name: 'tenor',
			type: 'options',
			options: TENORS.map((t) => ({ name: TENOR_NAMES[t] ?? t, value: t })),
			default: 'SP',
			description: 'Length of time between the value (or spot) date and the expiry of the contract',
			displayOptions: maturity('tenor'),
		},
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			displayOptions,
			options: [
				{ displayName: 'Comment', name: 'comment', type: 'string', default: '' },
				{ displayName: 'Short Name', name: 'shortName', type: 'string', default: '' },
				{
					displayName: 'Timeout (Ms)',
					name: 'timeoutMs',
					type: 'number',
					typeOptions: { minValue: 1000 },
					default: 30000,
					description: 'How long to wait for the bank. After a timeout the trade may have been executed: check the trade report.',
				},
			],
		},
		{
			displayName: 'Allow Use by AI Agents',
			name: 'allowAiAgentUse',
			type: 'boolean',
			default: false,
			description: 'Whether an AI agent may execute trades with this node when it is connected as a tool. Trades move money: leave off unless the agent is meant to trade.',
			displayOptions,
		},
	];
}
