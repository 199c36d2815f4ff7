import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { executionOperations } from '../../shared/fx/execution/operations';
import { reportOperations } from '../../shared/fx/report/operations';
import { BankFailure, InputError, toNodeError } from '../../shared/common/errors';
import { runForEachItem } from '../../shared/common/runItems';
import type { MockApi } from '../description';
import { MOCK_APIS } from '../description';
import { whenRetriesRunOut } from '../helpers/retriesRunOut';
import { mockTarget } from '../helpers/target';

/**
 * Runs the chosen FX operation for every input item against the mock service: the FX nodes'
 * own operations, with the mock as their target.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	// Version 1 of the node chooses the API with `api`, later versions with `resource`.
	const api = this.getNodeParameter(
		this.getNode().typeVersion >= 2 ? 'resource' : 'api',
		0,
	) as MockApi;
	if (!MOCK_APIS[api])
		throw toNodeError(this.getNode(), new InputError(`API: "${String(api)}" is not supported`));
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = (api === 'execution' ? executionOperations : reportOperations)[operation];
	if (!execute) {
		throw toNodeError(
			this.getNode(),
			new InputError(`Operation: "${operation}" is not supported for this API`),
		);
	}
	return [
		await runForEachItem(this, async (i) => {
			const mock = mockTarget(this, i, api);
			const outcome = await execute.call(this, i, mock.target).then(
				(items) => ({ ok: true as const, items }),
				(error: unknown) => ({ ok: false as const, error }),
			);
			if (outcome.ok) return outcome.items;
			// Only a request that failed after every attempt is the mock's random error; a value
			// refused before sending or an unusable answer fails as in the FX nodes.
			if (!mock.failed || !(outcome.error instanceof BankFailure)) throw outcome.error;
			return whenRetriesRunOut(this, i, mock, outcome.error);
		}),
	];
}
