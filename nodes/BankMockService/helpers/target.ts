import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { trimUrl } from '../../shared/common/credentialFields';
import { InputError } from '../../shared/common/errors';
import type { FxRequest, FxTarget } from '../../shared/fx/target';
import { FxValidator } from '../../shared/fx/validation';
import { extractErrorInfo, isNetworkFailure } from '../../shared/transport/errors';
import { webAddressProblem } from '../../shared/transport/origin';
import type { BankResponse } from '../../shared/transport/request';
import { bankRequest } from '../../shared/transport/request';
import type { RetryPolicy } from '../../shared/transport/retry';
import type { ClientTlsOptions } from '../../shared/transport/tls';
import { buildTlsOptions } from '../../shared/transport/tls';
import type { MockApi } from '../description';
import { MOCK_APIS } from '../description';

/** Added to every item: what the mock answers is example data, whatever was sent. */
export const MOCK_NOTE =
	"Example answer from the bank's mock service: canned data from the API's examples, not a real trade and not made from the values sent";

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

/**
 * The mock service errors at random on purpose: any error status or dropped connection is worth
 * another try.
 */
function mockRetryable(error: unknown): boolean {
	const info = extractErrorInfo(error);
	return info.status !== undefined ? info.status >= 400 : isNetworkFailure(info);
}

/** The mock service as the target of the FX operations for one input item. */
export interface MockTarget {
	target: FxTarget;
	/** The Random Errors settings (attempts, backoff, what to do when retries run out). */
	handling: IDataObject;
	/** How many times the request that failed last was sent. */
	attempts: number;
	/** Set when a request failed after every attempt, with that answer's x-mockdata-info. */
	failed?: { info: unknown };
}

function mockTls(connection: IDataObject, itemIndex: number): ClientTlsOptions | undefined {
	try {
		return buildTlsOptions({
			caCertificate: connection.caCertificate,
			allowUnauthorizedCerts: connection.allowUnauthorizedCerts,
		});
	} catch (error) {
		throw asInputError(error, itemIndex);
	}
}

function asInputError(error: unknown, itemIndex: number): InputError {
	return new InputError((error as Error).message, { itemIndex });
}

/** A path segment of the mock URL: letters, digits, dots and dashes only. */
function checkSegment(field: string, value: string, itemIndex: number): void {
	if (!/^[\w.-]+$/.test(value))
		throw new InputError(`${field}: may contain only letters, digits, dots and dashes`, {
			itemIndex,
		});
}

/**
 * Reads the node's settings for one item into the mock service's target: requests go without a
 * credential to {Mock Base URL}/mock/sandbox/{API Version}/{API Name}{API path}, with the
 * connection's TLS and timeout. Every request, executions included (the mock moves no money), is
 * retried after any error status or dropped connection as Random Errors says.
 */
export function mockTarget(ctx: IExecuteFunctions, itemIndex: number, api: MockApi): MockTarget {
	const defaults = MOCK_APIS[api];
	const base = trimUrl(ctx.getNodeParameter('mockBaseUrl', itemIndex));
	const problem = webAddressProblem('Mock Base URL', base);
	if (problem) throw new InputError(problem, { itemIndex });
	const version =
		String(ctx.getNodeParameter('apiVersion', itemIndex, defaults.version)).trim() ||
		defaults.version;
	const name =
		String(ctx.getNodeParameter('apiName', itemIndex, defaults.name)).trim() || defaults.name;
	checkSegment('API Version', version, itemIndex);
	checkSegment('API Name', name, itemIndex);
	const handling = ctx.getNodeParameter('errorHandling', itemIndex, {}) as IDataObject;
	const connection = ctx.getNodeParameter('connection', itemIndex, {}) as IDataObject;
	const tls = mockTls(connection, itemIndex);
	const v = new FxValidator(itemIndex, ctx.getTimezone());
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
	const mock: MockTarget = {
		handling,
		attempts: 1,
		target: {
			baseUrl: `${base}/mock/sandbox/${version}/${name}${defaults.path}`,
			send: async <T>(ctx: IExecuteFunctions, req: FxRequest) => {
				const outcome = await bankRequest<T>(ctx, undefined, {
					...req,
					idempotent: true,
					retry: policy,
					retryable: mockRetryable,
					onRetry: (_error, attempt) => {
						mock.attempts = attempt + 1;
						ctx.logger.debug(
							`Mock service error, retrying (attempt ${attempt + 1} of ${policy.attempts})`,
						);
					},
					timeoutMs: req.timeoutMs ?? timeoutMs,
					tls,
				}).then(
					(response) => ({ ok: true as const, response }),
					(error: unknown) => ({ ok: false as const, error }),
				);
				if (outcome.ok) return outcome.response;
				mock.failed = { info: mockDataInfo(extractErrorInfo(outcome.error).headers) };
				throw outcome.error;
			},
			// Nothing the mock answers is a trade, and it answers 404 at random.
			realTrades: false,
			notFoundMeansEmpty: false,
			itemFields: (response) => ({
				mockService: MOCK_NOTE,
				mockDataInfo: mockDataInfo(response.headers) as IDataObject,
				mockAttempts: response.attempts,
			}),
		},
	};
	return mock;
}
