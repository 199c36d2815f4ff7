import type { INodeProperties } from 'n8n-workflow';

import { currencyProperty } from '../shared/fx/currencies';
import { TENOR_NAMES, TENORS } from '../shared/fx/validation';

const SIDES = [
	{ name: 'Buy', value: 'BUY' },
	{ name: 'Sell', value: 'SELL' },
];

/** Shown at the top of the panel: running this step is trading. */
const REAL_TRADE_NOTICE: INodeProperties = {
	displayName:
		'Running this node places a real FX trade at the bank for every input item, also when you click "Execute step" in the editor. Check the credential\'s environment (Sandbox or Production) before you run it.',
	name: 'realTradeNotice',
	type: 'notice',
	default: '',
};

/** The FX Trade Execution fields, shared with the Bank Mock Service node. */
export function fxExecutionProperties(
	show: Record<string, string[]> = {},
	options: { realTrades: boolean } = { realTrades: true },
): INodeProperties[] {
	const displayOptions = Object.keys(show).length ? { show } : undefined;
	const maturity = (type: string) => ({ show: { ...show, maturityType: [type] } });
	return [
		...(options.realTrades ? [REAL_TRADE_NOTICE] : []),
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
			placeholder: 'e.g. DEMOCP1',
			description: 'Counterpart identifier the trade is made for',
			displayOptions,
		},
		currencyProperty({
			displayName: 'Buy Currency',
			name: 'buyCurrency',
			description: 'ISO 4217 code of the currency bought',
			displayOptions,
		}),
		currencyProperty({
			displayName: 'Sell Currency',
			name: 'sellCurrency',
			description: 'ISO 4217 code of the currency sold',
			displayOptions,
		}),
		{
			displayName: 'Amount',
			name: 'amount',
			type: 'string',
			required: true,
			default: '',
			placeholder: '1500000.00',
			description:
				'The amount, in the currency of the Amount Side: digits with a point as the decimal separator, no sign and no thousands separators. Sent exactly as typed; anything else is refused before the bank is called.',
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
			description:
				'The bank takes either a maturity date or a tenor; a date wins when both are sent, so only the one chosen here is sent',
			displayOptions,
		},
		{
			displayName: 'Maturity Date',
			name: 'maturityDate',
			type: 'dateTime',
			typeOptions: { dateOnly: true },
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
					default: 30000,
					description:
						'How long to wait for the bank. After a timeout the trade may have been executed: check the trade report.',
				},
			],
		},
		{
			displayName: 'Allow Use by AI Agents',
			name: 'allowAiAgentUse',
			type: 'boolean',
			default: false,
			description:
				'Whether an AI agent may execute trades with this node when it is connected as a tool. Trades move money: leave off unless the agent is meant to trade.',
			displayOptions,
		},
	];
}
