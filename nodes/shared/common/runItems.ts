import type {
	IExecuteFunctions,
	INodeExecutionData,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import { toNodeError } from './errors';

/**
 * Runs an operation once per input item, keeping item links. This is where an operation's
 * failure becomes an n8n error: with "Continue On Fail" a failed item becomes an error item and
 * the others go on; otherwise the first failure stops the node.
 */
export async function runForEachItem(
	ctx: IExecuteFunctions,
	operation: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	const items = ctx.getInputData();
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			out.push(...(await operation(i)));
		} catch (error) {
			const nodeError = toNodeError(ctx.getNode(), error, i);
			if (!ctx.continueOnFail()) throw nodeError;
			out.push({
				json: {
					error: nodeError.message,
					...(nodeError.description ? { description: nodeError.description } : {}),
				},
				pairedItem: { item: i },
			});
		}
	}
	return out;
}

/**
 * An input item that failed, as Continue On Fail shows it: the item's error as an n8n error, its
 * message in the JSON. For nodes whose operations handle their items themselves.
 */
export function failedItem(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): INodeExecutionData & { error: NodeApiError | NodeOperationError } {
	const nodeError = toNodeError(ctx.getNode(), error, itemIndex);
	return { json: { error: nodeError.message }, error: nodeError, pairedItem: { item: itemIndex } };
}
