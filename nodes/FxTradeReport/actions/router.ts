import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { fxEndpoints, FX_CREDENTIAL } from '../../shared/fx/api';
import { InputError, toNodeError } from '../../shared/common/errors';
import { bankTarget } from '../../shared/fx/target';
import { runForEachItem } from '../../shared/common/runItems';
import { reportOperations } from '../../shared/fx/report/operations';

/** Runs the chosen operation for every input item against the bank's report API. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const credentials = await this.getCredentials(FX_CREDENTIAL);
	const target = bankTarget(fxEndpoints(credentials).reportBaseUrl);
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = reportOperations[operation];
	if (!execute)
		throw toNodeError(this.getNode(), new InputError(`Operation: "${operation}" is not supported`));
	return [await runForEachItem(this, async (i) => await execute.call(this, i, target))];
}
