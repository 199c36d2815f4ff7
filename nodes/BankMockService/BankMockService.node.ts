import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { jsonParse, NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { executeTrade } from '../FxTradeExecution/operations/executeTrade';
import { reportOperations } from '../FxTradeReport/operations';
import type { FxTarget } from '../shared/fx/target';
import { trimUrl } from '../shared/credentialFields';
import { searchCurrencies } from '../shared/fx/currencies';
import { FxValidator } from '../shared/fx/validation';
import { runForEachItem } from '../shared/runItems';
import { extractErrorInfo, isNetworkFailure } from '../shared/transport/errors';
import type { BankResponse } from '../shared/transport/request';
import type { RetryPolicy } from '../shared/transport/retry';
import { buildTlsOptions } from '../shared/transport/tls';
import type { MockApi } from './description';
import { MOCK_APIS, mockProperties } from './description';

/** The x-mockdata-info header, parsed when it is JSON. */
export function mockDataInfo(
	headers: BankResponse['headers'] | Record<string, unknown> | undefined,
): unknown {
	const raw = headers?.['x-mockdata-info'] as string | string[] | undefined;
	const text = Array.isArray(raw) ? raw.join(',') : raw;
	if (text === undefined) return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/** Added to every item: what the mock answers is example data, whatever was sent. */
const MOCK_NOTE =
	"Example answer from the bank's mock service: canned data from the API's examples, not a real trade and not made from the values sent";
const MOCK_ERROR_PREFIX = 'Mock service: ';
const MOCK_ERROR_NOTE =
	"This is the bank's mock service, not a bank: it answers errors at random on purpose, and they say nothing about the values sent.";

/** The mock service errors at random on purpose: any error status or dropped connection is worth another try. */
function mockRetryable(error: unknown): boolean {
	const info = extractErrorInfo(error);
	return info.status !== undefined ? info.status >= 400 : isNetworkFailure(info);
}

export class BankMockService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bank Mock Service',
		name: 'bankMockService',
		icon: {
			light: 'file:../../icons/mock-service.svg',
			dark: 'file:../../icons/mock-service.dark.svg',
		},
		group: ['input'],
		version: 1,
		subtitle: '={{$parameter["api"] + ": " + $parameter["operation"]}}',
		description:
			"Call the bank's mock FX APIs without authentication, surviving their random errors",
		defaults: { name: 'Bank Mock Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: mockProperties,
	};

	methods = { listSearch: { searchCurrencies } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const api = this.getNodeParameter('api', 0) as MockApi;
		const defaults = MOCK_APIS[api];
		if (!defaults)
			throw new NodeOperationError(this.getNode(), `API: "${String(api)}" is not supported`);
		const operation = this.getNodeParameter('operation', 0) as string;
		const run =
			api === 'execution'
				? operation === 'executeTrade'
					? executeTrade
					: undefined
				: reportOperations[operation];
		if (!run)
			throw new NodeOperationError(
				this.getNode(),
				`Operation: "${operation}" is not supported for this API`,
			);

		return [
			await runForEachItem(this, async (i) => {
				const base = trimUrl(this.getNodeParameter('mockBaseUrl', i));
				if (!/^https?:\/\/[^/]+/i.test(base)) {
					throw new NodeOperationError(
						this.getNode(),
						'Mock Base URL: must be an absolute http(s) URL',
						{ itemIndex: i },
					);
				}
				const version =
					String(this.getNodeParameter('apiVersion', i, defaults.version)).trim() ||
					defaults.version;
				const name =
					String(this.getNodeParameter('apiName', i, defaults.name)).trim() || defaults.name;
				if (!/^[\w.-]+$/.test(version))
					throw new NodeOperationError(
						this.getNode(),
						'API Version: may contain only letters, digits, dots and dashes',
						{ itemIndex: i },
					);
				if (!/^[\w.-]+$/.test(name))
					throw new NodeOperationError(
						this.getNode(),
						'API Name: may contain only letters, digits, dots and dashes',
						{ itemIndex: i },
					);
				const handling = this.getNodeParameter('errorHandling', i, {}) as IDataObject;
				const connection = this.getNodeParameter('connection', i, {}) as IDataObject;
				let tls;
				try {
					tls = buildTlsOptions({
						caCertificate: connection.caCertificate,
						allowUnauthorizedCerts: connection.allowUnauthorizedCerts,
					});
				} catch (error) {
					throw new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex: i });
				}
				const v = new FxValidator(this.getNode(), i, this.getTimezone());
				const policy: RetryPolicy = {
					attempts: v.integer('Random Errors > Attempts', handling.attempts ?? 5, 1, 20),
					baseDelayMs: v.integer('Random Errors > Backoff (Ms)', handling.baseDelayMs ?? 200, 0),
					maxDelayMs: v.integer('Random Errors > Max Backoff (Ms)', handling.maxDelayMs ?? 3000, 0),
					jitter: true,
				};
				const timeoutMs =
					connection.timeoutMs === undefined
						? undefined
						: v.integer('Connection > Timeout (Ms)', connection.timeoutMs, 1000);
				let attempts = 1;
				let failedInfo: unknown;
				const target: FxTarget = {
					baseUrl: `${base}/mock/sandbox/${version}/${name}${defaults.path}`,
					tls,
					timeoutMs,
					readRetry: policy,
					writeRetry: policy,
					retryable: mockRetryable,
					notFoundMeansEmpty: false,
					onRetry: (_error, attempt) => {
						attempts = attempt + 1;
						this.logger.debug(
							`Mock service error, retrying (attempt ${attempt + 1} of ${policy.attempts})`,
						);
					},
					onError: (error) => {
						failedInfo = mockDataInfo(extractErrorInfo(error).headers);
					},
					decorate: (json, response) => ({
						...json,
						mockService: MOCK_NOTE,
						mockDataInfo: mockDataInfo(response.headers) as IDataObject,
						mockAttempts: response.attempts,
					}),
				};
				try {
					return await run(this, i, target);
				} catch (error) {
					if (!(error instanceof NodeApiError))
						throw error instanceof NodeOperationError
							? error
							: new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
					const fallback = (handling.fallback as string) ?? 'fail';
					if (fallback === 'errorItem') {
						return [
							{
								json: {
									error: `${MOCK_ERROR_PREFIX}${error.message}`,
									description: error.description ?? undefined,
									httpCode: error.httpCode ?? undefined,
									mockService: MOCK_NOTE,
									mockDataInfo: failedInfo as IDataObject,
									mockAttempts: attempts,
								},
								pairedItem: { item: i },
							},
						];
					}
					if (fallback === 'fallbackJson') {
						const raw = handling.fallbackJson ?? '{}';
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
									mockDataInfo: failedInfo as IDataObject,
									mockAttempts: attempts,
								},
								pairedItem: { item: i },
							},
						];
					}
					const info =
						failedInfo === undefined
							? ''
							: `\nx-mockdata-info: ${typeof failedInfo === 'string' ? failedInfo : JSON.stringify(failedInfo)}`;
					throw new NodeApiError(
						this.getNode(),
						{ message: error.message, httpCode: error.httpCode ?? '' },
						{
							message: `${MOCK_ERROR_PREFIX}${error.message}`,
							description: `${MOCK_ERROR_NOTE} It failed ${attempts} time${attempts === 1 ? '' : 's'} (Random Errors > Attempts).${error.description ? `\n${error.description}` : ''}${info}`,
							httpCode: error.httpCode ?? undefined,
							itemIndex: i,
						},
					);
				}
			}),
		];
	}
}
