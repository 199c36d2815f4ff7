import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { BankFailure, InputError } from '../../common/errors';
import { currencyProperty } from '../currencies';
import { FX_PATHS } from '../api';
import type { FxOperation, FxTarget } from '../target';
import { isJsonObject, tradeJson } from '../trade';
import { FxValidator, TENOR_NAMES, TENORS } from '../validation';
import { bankFailure, outcomeUnknown } from '../../transport/errors';
import { dayProperties } from '../../common/properties';
import type { BankResponse } from '../../transport/request';

const SIDES = ['BUY', 'SELL'] as const;
const SIDE_OPTIONS = [
	{ name: 'Buy', value: 'BUY' },
	{ name: 'Sell', value: 'SELL' },
];

const maturity = (type: string) => ({ show: { maturityType: [type] } });

export const description: INodeProperties[] = [
	{
		displayName: 'Counterpart',
		name: 'counterpart',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. DEMOCP1',
		description: 'Counterpart identifier the trade is made for',
	},
	...currencyProperty({
		displayName: 'Buy Currency',
		name: 'buyCurrency',
		description: 'ISO 4217 code of the currency bought',
	}),
	...currencyProperty({
		displayName: 'Sell Currency',
		name: 'sellCurrency',
		description: 'ISO 4217 code of the currency sold',
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
	},
	{
		displayName:
			'Amount: not an amount the node sends. Write a number greater than zero with digits and a point as the decimal separator, such as 1500.50 (no sign, comma, space or thousands separator). Running the node stops before anything is sent and names every field to fix.',
		name: 'amountNotice',
		type: 'notice',
		default: '',
		// A number above zero as JavaScript reads the text: what FxValidator.positiveAmount takes,
		// but for the decimals the currency allows and JavaScript's own notations (1e3, 0x10, .5, 5.),
		// which the run refuses by name. No regular expression: n8n runs those in a vm with a 250 ms
		// wall-clock limit each time it loads the workflow, which fails runs on a busy machine.
		displayOptions: { hide: { amount: ['', { _cnd: { startsWith: '=' } }, { _cnd: { gt: 0 } }] } },
	},
	{
		displayName: 'Amount Side',
		name: 'amountSide',
		type: 'options',
		options: SIDE_OPTIONS,
		default: 'SELL',
		description: 'Whether the amount is what you buy or what you sell',
	},
	{
		displayName: 'Base Side',
		name: 'baseSide',
		type: 'options',
		options: SIDE_OPTIONS,
		default: 'SELL',
		description: 'Which currency is the base of the quoted price',
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
	},
	...dayProperties({
		displayName: 'Maturity Date',
		name: 'maturityDate',
		description: 'Maturity date of the contract (today or later), as YYYY-MM-DD',
		displayOptions: maturity('date'),
		required: true,
	}),
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
	},
];

/**
 * Builds and validates the execution request body; throws before anything is sent, naming every
 * field that is wrong at once (a wrong amount, currency and date are one error, not three runs).
 */
export function buildExecutionRequest(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const v = new FxValidator(itemIndex, ctx.getTimezone());
	const param = (name: string) => ctx.getNodeParameter(name, itemIndex, '', { extractValue: true });
	const counterpart = v.check(() => v.requiredText('Counterpart', param('counterpart'), 64));
	const buyCurrency = v.check(() => v.currency('Buy Currency', param('buyCurrency')));
	const sellCurrency = v.check(() => v.currency('Sell Currency', param('sellCurrency')));
	const amountSide = v.check(() => v.oneOf('Amount Side', param('amountSide'), SIDES));
	// The decimals allowed depend on the amount's currency; without a valid one, only the rest is checked.
	const amountCurrency =
		amountSide === 'SELL' ? sellCurrency : amountSide === 'BUY' ? buyCurrency : undefined;
	const amount = v.check(() => v.positiveAmount('Amount', param('amount'), amountCurrency));
	const baseSide = v.check(() => v.oneOf('Base Side', param('baseSide'), SIDES));
	if (buyCurrency && buyCurrency === sellCurrency)
		v.check(() =>
			v.fail('Sell Currency', `must differ from the Buy Currency (both are ${buyCurrency})`),
		);
	const body: IDataObject = {
		counterpart,
		buyCurrency,
		sellCurrency,
		amount,
		amountSide,
		baseSide,
	};
	const maturityType = ctx.getNodeParameter('maturityType', itemIndex, 'tenor') as string;
	if (maturityType === 'date') {
		const raw = ctx.getNodeParameter('maturityDate', itemIndex, '');
		body.maturityDate = v.check(() => {
			if (!raw) v.fail('Maturity Date', 'required when the maturity is given as a date');
			return v.date('Maturity Date', raw, { notPast: true });
		});
	} else if (maturityType === 'tenor') {
		const tenor = ctx.getNodeParameter('tenor', itemIndex, '');
		body.tenor = v.check(() => {
			if (!tenor) v.fail('Tenor', 'required when the maturity is given as a tenor');
			return v.oneOf('Tenor', tenor, TENORS);
		});
	} else {
		v.check(() => v.fail('Maturity Given As', 'must be Date or Tenor'));
	}
	const extra = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	if (extra.timeoutMs !== undefined)
		v.check(() => v.integer('Additional Fields > Timeout (Ms)', extra.timeoutMs, 1000));
	v.finish();
	if (typeof extra.comment === 'string' && extra.comment.trim())
		body.comment = extra.comment.trim();
	if (typeof extra.shortName === 'string' && extra.shortName.trim())
		body.shortName = extra.shortName.trim();
	return body;
}

/** Refuses to run where n8n itself could send the trade again. */
export function assertSingleExecution(ctx: IExecuteFunctions, itemIndex: number): void {
	const node = ctx.getNode();
	if (node.retryOnFail) {
		throw new InputError('Settings > Retry On Fail: must be off for trade execution', {
			itemIndex,
			description: 'A retried execution could trade twice. Nothing was sent to the bank.',
		});
	}
	const asTool = node.type.endsWith('Tool');
	if (asTool && ctx.getNodeParameter('allowAiAgentUse', itemIndex, false) !== true) {
		throw new InputError(
			'Allow Use by AI Agents: is off, so an AI agent may not execute trades with this node',
			{
				itemIndex,
				description:
					'Switch it on in the node only if the agent is meant to move money. Nothing was sent to the bank.',
			},
		);
	}
}

/**
 * What a failed execution request means. At the bank, whether a trade may have been made: it
 * may after a timeout, a dropped connection or a 5xx, it was not after a refusal. The request
 * sent is shown either way.
 */
function executionFailure(
	error: unknown,
	body: IDataObject,
	target: FxTarget,
	itemIndex: number,
): BankFailure {
	const request = `Request sent: ${JSON.stringify(body)}`;
	if (!target.realTrades)
		return bankFailure(error, { operation: 'Execute trade', itemIndex, hint: request });
	if (outcomeUnknown(error)) {
		return bankFailure(error, {
			operation: 'Execute trade: outcome unknown',
			itemIndex,
			hint: `The trade may have been executed. Check the trade report (FX Trade Report > Get Open) before trying again; it was not sent again automatically.\n${request}`,
		});
	}
	return bankFailure(error, {
		operation: 'Execute trade: not executed',
		itemIndex,
		hint: `The bank refused the request; no trade was made.\n${request}`,
	});
}

/**
 * Executes one trade. The request is sent at most once: n8n's credential refresh may resend it
 * after a 401 (the bank refused it unread), nothing else does. When the outcome is unknown (a
 * timeout, a dropped connection, a 5xx) the error says so and carries the request that was sent.
 */
export const execute: FxOperation = async function (itemIndex, target) {
	assertSingleExecution(this, itemIndex);
	const body = buildExecutionRequest(this, itemIndex);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	// Checked with the other fields in buildExecutionRequest.
	const timeoutMs = extra.timeoutMs === undefined ? 30000 : Number(extra.timeoutMs);
	let response: BankResponse<IDataObject>;
	try {
		response = await target.send<IDataObject>(this, {
			method: 'POST',
			url: `${target.baseUrl}${FX_PATHS.execute}`,
			body,
			headers: { 'Content-Type': 'application/json' },
			idempotent: false,
			timeoutMs,
		});
	} catch (error) {
		throw executionFailure(error, body, target, itemIndex);
	}
	if (!isJsonObject(response.body)) {
		throw new BankFailure(
			'Execute trade: outcome unknown, the bank answered without an execution result',
			{
				body: {},
				itemIndex,
				description: `The trade may have been executed. Check the trade report before trying again.\nRequest sent: ${JSON.stringify(body)}`,
			},
		);
	}
	return [{ json: tradeJson(target, response.body, response), pairedItem: { item: itemIndex } }];
};
