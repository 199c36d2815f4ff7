import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import { BankFailure, toNodeError } from '../../shared/common/errors';
import type { MockTarget } from './target';
import { MOCK_NOTE } from './target';

const MOCK_ERROR_PREFIX = 'Mock service: ';
const MOCK_ERROR_NOTE =
	"This is the bank's mock service, not a bank: it answers errors at random on purpose, and they say nothing about the values sent.";

/**
 * What Random Errors > When Retries Run Out makes of a request that failed after every attempt:
 * an error item, the fallback JSON, or (the default) a failure that says it came from the mock.
 */
export function whenRetriesRunOut(
	ctx: IExecuteFunctions,
	itemIndex: number,
	mock: MockTarget,
	failure: BankFailure,
): INodeExecutionData[] {
	// The failure as n8n shows it for the FX nodes: its message, description and HTTP code.
	const shown = toNodeError(ctx.getNode(), failure, itemIndex);
	const httpCode = 'httpCode' in shown ? shown.httpCode : undefined;
	const info = mock.failed?.info;
	const attempts = mock.attempts;
	const fallback = (mock.handling.fallback as string) ?? 'fail';
	if (fallback === 'errorItem') {
		return [
			{
				json: {
					error: `${MOCK_ERROR_PREFIX}${shown.message}`,
					description: shown.description ?? undefined,
					httpCode: httpCode ?? undefined,
					mockService: MOCK_NOTE,
					mockDataInfo: info as IDataObject,
					mockAttempts: attempts,
				},
				pairedItem: { item: itemIndex },
			},
		];
	}
	if (fallback === 'fallbackJson') {
		const raw = mock.handling.fallbackJson ?? '{}';
		const json =
			typeof raw === 'string'
				? jsonParse<IDataObject>(raw, { errorMessage: 'Fallback JSON: is not valid JSON' })
				: (raw as IDataObject);
		return [
			{
				json: {
					...json,
					mockFallback: true,
					mockService: MOCK_NOTE,
					mockDataInfo: info as IDataObject,
					mockAttempts: attempts,
				},
				pairedItem: { item: itemIndex },
			},
		];
	}
	const header =
		info === undefined
			? ''
			: `\nx-mockdata-info: ${typeof info === 'string' ? info : JSON.stringify(info)}`;
	throw new BankFailure(`${MOCK_ERROR_PREFIX}${shown.message}`, {
		body: { message: shown.message, httpCode: httpCode ?? '' },
		description: `${MOCK_ERROR_NOTE} It failed ${attempts} time${attempts === 1 ? '' : 's'} (Random Errors > Attempts).${shown.description ? `\n${shown.description}` : ''}${header}`,
		httpCode: httpCode ?? undefined,
		itemIndex,
	});
}
