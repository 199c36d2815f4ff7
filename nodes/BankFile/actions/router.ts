import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { BankFileError } from '../../shared/bankfiles';
import * as buildPaymentFile from './buildPaymentFile.operation';
import * as parse from './parse.operation';

/** Runs the chosen operation; bank file errors become NodeOperationErrors naming the item here, in one place. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const operation = this.getNodeParameter('operation', 0) as string;
	if (operation === 'buildPaymentFile') return await buildPaymentFile.execute.call(this);
	if (operation !== 'parse')
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported`);
	const entries: INodeExecutionData[] = [];
	const statements: INodeExecutionData[] = [];
	const items = this.getInputData();
	for (let i = 0; i < items.length; i++) {
		try {
			const [itemEntries, itemStatements] = await parse.execute.call(this, i);
			entries.push(...itemEntries);
			statements.push(...itemStatements);
		} catch (error) {
			const failure =
				error instanceof NodeOperationError
					? error
					: new NodeOperationError(this.getNode(), (error as Error).message, {
							itemIndex: i,
							description:
								error instanceof BankFileError
									? `Error code ${error.code}${error.location ? ` at ${error.location}` : ''}`
									: undefined,
						});
			if (this.continueOnFail()) {
				entries.push({ json: { error: failure.message }, error: failure, pairedItem: { item: i } });
				continue;
			}
			throw failure;
		}
	}
	return [entries, statements];
}
