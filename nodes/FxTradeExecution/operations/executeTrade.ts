import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { FxTarget } from '../../shared/fx/target';
import { fxRequest, isJsonObject, shapeTrade } from '../../shared/fx/target';
import { FxValidator, TENORS } from '../../shared/fx/validation';
import { outcomeUnknown, toBankApiError } from '../../shared/transport/errors';

const SIDES = ['BUY', 'SELL'] as const;

/** Builds and validates the execution request body; throws before anything is sent. */
export function buildExecutionRequest(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const v = new FxValidator(ctx.getNode(), itemIndex, ctx.getTimezone());
	const param = (name: string) => ctx.getNodeParameter(name, itemIndex, '', { extractValue: true });
	const counterpart = v.requiredText('Counterpart', param('counterpart'), 64);
	const buyCurrency = v.currency('Buy Currency', param('buyCurrency'));
	const sellCurrency = v.currency('Sell Currency', param('sellCurrency'));
	const amountSide = v.oneOf('Amount Side', param('amountSide'), SIDES);
	const body: IDataObject = {
		counterpart,
		buyCurrency,
		sellCurrency,
		amount: v.positiveAmount(
			'Amount',
			param('amount'),
			amountSide === 'BUY' ? buyCurrency : sellCurrency,
		),
		amountSide,
		baseSide: v.oneOf('Base Side', param('baseSide'), SIDES),
	};
	if (body.buyCurrency === body.sellCurrency)
		v.fail(
			'Sell Currency',
			`must differ from the Buy Currency (both are ${String(body.buyCurrency)})`,
		);
	const maturityType = ctx.getNodeParameter('maturityType', itemIndex, 'tenor') as string;
	if (maturityType === 'date') {
		const raw = ctx.getNodeParameter('maturityDate', itemIndex, '');
		if (!raw) v.fail('Maturity Date', 'required when the maturity is given as a date');
		body.maturityDate = v.date('Maturity Date', raw, { notPast: true });
	} else if (maturityType === 'tenor') {
		const tenor = ctx.getNodeParameter('tenor', itemIndex, '');
		if (!tenor) v.fail('Tenor', 'required when the maturity is given as a tenor');
		body.tenor = v.oneOf('Tenor', tenor, TENORS);
	} else {
		v.fail('Maturity Given As', 'must be Date or Tenor');
	}
	const extra = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
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
		throw new NodeOperationError(
			node,
			'Settings > Retry On Fail: must be off for trade execution',
			{
				itemIndex,
				description: 'A retried execution could trade twice. Nothing was sent to the bank.',
			},
		);
	}
	const asTool = node.type.endsWith('Tool');
	if (asTool && ctx.getNodeParameter('allowAiAgentUse', itemIndex, false) !== true) {
		throw new NodeOperationError(
			node,
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
 * Executes one trade. The request is sent at most once: n8n's credential refresh may resend it
 * after a 401 (the bank refused it unread), nothing else does. When the outcome is unknown (a
 * timeout, a dropped connection, a 5xx) the error says so and carries the request that was sent.
 */
export async function executeTrade(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
): Promise<INodeExecutionData[]> {
	assertSingleExecution(ctx, itemIndex);
	const body = buildExecutionRequest(ctx, itemIndex);
	const extra = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const timeoutMs =
		extra.timeoutMs === undefined
			? 30000
			: new FxValidator(ctx.getNode(), itemIndex).integer(
					'Additional Fields > Timeout (Ms)',
					extra.timeoutMs,
					1000,
				);
	try {
		const response = await fxRequest<IDataObject>(ctx, target, {
			method: 'POST',
			url: `${target.baseUrl}/trade-execution/execute`,
			body,
			headers: { 'Content-Type': 'application/json' },
			idempotent: false,
			timeoutMs,
		});
		if (!isJsonObject(response.body)) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Execute trade: outcome unknown, the bank answered without an execution result',
				{
					itemIndex,
					description: `The trade may have been executed. Check the trade report before trying again.\nRequest sent: ${JSON.stringify(body)}`,
				},
			);
		}
		const json = shapeTrade(response.body);
		return [
			{
				json: target.decorate ? target.decorate(json, response) : json,
				pairedItem: { item: itemIndex },
			},
		];
	} catch (error) {
		if (error instanceof NodeOperationError) throw new NodeOperationError(ctx.getNode(), error);
		const request = `Request sent: ${JSON.stringify(body)}`;
		if (outcomeUnknown(error) && !target.writeRetry) {
			throw toBankApiError(ctx.getNode(), error, {
				operation: 'Execute trade: outcome unknown',
				itemIndex,
				hint: `The trade may have been executed. Check the trade report (FX Trade Report > Get Open) before trying again; it was not sent again automatically.\n${request}`,
			});
		}
		if (target.writeRetry) {
			throw toBankApiError(ctx.getNode(), error, {
				operation: 'Execute trade',
				itemIndex,
				hint: request,
			});
		}
		throw toBankApiError(ctx.getNode(), error, {
			operation: 'Execute trade: not executed',
			itemIndex,
			hint: `The bank refused the request; no trade was made.\n${request}`,
		});
	}
}
