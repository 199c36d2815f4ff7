import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * Runs an operation once per input item, keeping item links. With "Continue On Fail" a failed
 * item becomes an error item and the others go on; otherwise the first failure stops the node.
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
			if (ctx.continueOnFail()) {
				const e = error as Error & { description?: string };
				out.push({
					json: { error: e.message, ...(e.description ? { description: e.description } : {}) },
					pairedItem: { item: i },
				});
				continue;
			}
			// Both constructors hand back an error of their own kind unchanged.
			if (error instanceof NodeApiError)
				throw new NodeApiError(ctx.getNode(), error as unknown as JsonObject);
			throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
		}
	}
	return out;
}
