import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { fxEndpoints, FX_CREDENTIAL } from '../../shared/fx/api';
import { bankTarget } from '../../shared/fx/target';
import { runForEachItem } from '../../shared/common/runItems';
import { executionOperations } from '../../shared/fx/execution/operations';

/**
 * Executes one trade per input item at the bank (the node has one operation), then says in the
 * output panel how many trades were placed and where.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const credentials = await this.getCredentials(FX_CREDENTIAL);
	const target = bankTarget(fxEndpoints(credentials).executionBaseUrl);
	const out = await runForEachItem(
		this,
		async (i) => await executionOperations.executeTrade.call(this, i, target),
	);
	const placed = out.filter((item) => item.json.error === undefined).length;
	if (placed) {
		const where =
			credentials.environment === 'production'
				? 'in Production'
				: credentials.environment === 'sandbox'
					? 'in the Sandbox environment'
					: `at ${new URL(target.baseUrl).host}`;
		this.addExecutionHints({
			message: `This run placed ${placed} trade${placed === 1 ? '' : 's'} at the bank ${where}. Running the node again places new trades.`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	return [out];
}
