import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { BankFileError } from '../../shared/bankfiles';
import { InputError, toNodeError } from '../../shared/common/errors';
import { failedItem } from '../../shared/common/runItems';
import * as buildDirectDebitFile from './buildDirectDebitFile.operation';
import * as buildPaymentFile from './buildPaymentFile.operation';
import * as parse from './parse.operation';

/** A bank file problem as the error the node shows: its message, with its code and place. */
function bankFileProblem(error: unknown): unknown {
	if (!(error instanceof BankFileError)) return error;
	return new InputError(error.message, {
		description: `Error code ${error.code}${error.location ? ` at ${error.location}` : ''}`,
	});
}

/**
 * Parses the file of each input item; with Continue On Fail a failed item goes to the entries
 * output.
 */
async function parseEachItem(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const entries: INodeExecutionData[] = [];
	const statements: INodeExecutionData[] = [];
	const items = ctx.getInputData();
	for (let i = 0; i < items.length; i++) {
		try {
			const [itemEntries, itemStatements] = await parse.execute.call(ctx, i);
			entries.push(...itemEntries);
			statements.push(...itemStatements);
		} catch (error) {
			const failed = failedItem(ctx, bankFileProblem(error), i);
			if (!ctx.continueOnFail()) throw failed.error;
			entries.push(failed);
		}
	}
	return [entries, statements];
}

/** Runs the chosen operation; its failures become n8n errors naming the item here, in one place. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const operation = this.getNodeParameter('operation', 0) as string;
	if (operation === 'parse') return await parseEachItem(this);
	try {
		if (operation === 'buildPaymentFile') return await buildPaymentFile.execute.call(this);
		if (operation === 'buildDirectDebitFile') return await buildDirectDebitFile.execute.call(this);
		throw new InputError(`The operation "${operation}" is not supported`);
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
}
