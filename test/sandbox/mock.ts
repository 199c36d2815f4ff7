import { queryParams, readBody, send, statusLabel, type RequestContext } from './http';
import { Prng } from './prng';
import type { ExecutionResult, MockControl, SandboxStats, Trade } from './types';

export const MOCK_REPORT_API = {
	version: '1.0.0',
	name: 'fx-open-and-historical-trades-api',
} as const;
export const MOCK_EXECUTION_API = { version: '1.0.1', name: 'fx-trade-execution-api' } as const;

const ERROR_STATUSES = [400, 401, 403, 404, 500, 503] as const;

const RANDOM_ERRORS: Record<number, { exceptionType: string; details: string }> = {
	400: {
		exceptionType: 'InvalidParameterException',
		details: 'Randomly generated mock error: request parameters are not valid.',
	},
	401: {
		exceptionType: 'AuthenticationException',
		details: 'Randomly generated mock error: authentication token is missing or invalid.',
	},
	403: {
		exceptionType: 'AccessDeniedException',
		details: 'Randomly generated mock error: access to the resource is not allowed.',
	},
	404: {
		exceptionType: 'ResourceNotFoundException',
		details: 'Randomly generated mock error: the requested resource does not exist.',
	},
	500: {
		exceptionType: 'TradeServiceException',
		details: 'Randomly generated mock error: an unexpected error occurred.',
	},
	503: {
		exceptionType: 'ServiceUnavailableException',
		details: 'Randomly generated mock error: the service is temporarily unavailable.',
	},
};

/** Fixed example trades served by the mock report API. */
export const MOCK_EXAMPLE_TRADES: readonly Trade[] = [
	{
		tradeId: 'T250711A8787',
		tradeTime: '2025-07-11T06:53:28.541Z',
		product: 'Forward',
		counterpart: 'DEMOCP1',
		counterpartName: 'DEMOCP',
		allInPrice: 7.4570824,
		spotPrice: 7.46372,
		forwardPrice: -0.0066376,
		maturityDate: '2025-10-10',
		sold: { currency: 'EUR', amount: 1000000 },
		bought: { currency: 'DKK', amount: 7457082.4 },
		autoSettle: true,
		comment: 'Urgent client request',
	},
	{
		tradeId: 'W250429A1139',
		tradeTime: '2025-04-29T13:57:59.523Z',
		product: 'FWD',
		counterpart: 'DBDEMO1',
		counterpartName: 'DEMO BANK CUSTOMER AA',
		allInPrice: 1.0816,
		spotPrice: 1.081,
		forwardPrice: 0.0006,
		maturityDate: '2025-05-23',
		sold: { currency: 'USD', amount: 540800 },
		bought: { currency: 'EUR', amount: 500000 },
		autoSettle: false,
		comment: '',
	},
	{
		tradeId: 'F250903B0042',
		tradeTime: '2025-09-03T09:12:01.007Z',
		product: 'Spot',
		counterpart: 'DEMOCP1',
		counterpartName: 'DEMOCP',
		allInPrice: 11.1532,
		spotPrice: 11.1532,
		forwardPrice: 0,
		maturityDate: '2025-09-05',
		sold: { currency: 'EUR', amount: 25000 },
		bought: { currency: 'SEK', amount: 278830 },
		autoSettle: true,
		comment: null,
	},
];

const MOCK_EXECUTIONS: Record<'withMaturityDate' | 'withTenor', ExecutionResult> = {
	withMaturityDate: {
		tradeId: 'T251007A0001',
		executionId: 'EXEC0000000000000000000000000001',
		counterpart: 'DEMOCP1',
		bought: { currency: 'DKK', amount: 7457082.4 },
		sold: { currency: 'EUR', amount: 1000000 },
		maturityDate: '2026-08-31',
		product: 'FX Forward',
		tradeTime: '2025-10-07T10:41:00.000Z',
		spotPrice: 7.46372,
		forwardPrice: -0.0066376,
		allInPrice: 7.4570824,
		autoSettle: true,
		comment: 'Example execution',
	},
	withTenor: {
		tradeId: 'T251007A0002',
		executionId: 'EXEC0000000000000000000000000002',
		counterpart: 'DEMOCP1',
		bought: { currency: 'EUR', amount: 500000 },
		sold: { currency: 'USD', amount: 540800 },
		maturityDate: '2025-10-14',
		product: 'FX Forward',
		tradeTime: '2025-10-07T11:05:12.000Z',
		spotPrice: 1.081,
		forwardPrice: 0.0006,
		allInPrice: 1.0816,
		autoSettle: false,
		comment: '',
	},
};

export class MockService implements MockControl {
	private prng: Prng;
	private currentSeed: number;
	private rate: number;

	constructor(
		seed: number,
		errorRate: number,
		private readonly stats: SandboxStats,
	) {
		this.currentSeed = seed;
		this.rate = errorRate;
		this.prng = new Prng(seed);
	}

	get seed(): number {
		return this.currentSeed;
	}

	get errorRate(): number {
		return this.rate;
	}

	configure(options: { seed?: number; errorRate?: number }): void {
		if (options.errorRate !== undefined) {
			if (!(options.errorRate >= 0 && options.errorRate <= 1))
				throw new Error('errorRate must be between 0 and 1');
			this.rate = options.errorRate;
		}
		if (options.seed !== undefined) {
			if (!Number.isInteger(options.seed)) throw new Error('seed must be an integer');
			this.currentSeed = options.seed;
		}
		this.prng = new Prng(this.currentSeed);
	}

	private respond(
		ctx: RequestContext,
		status: number,
		info: Record<string, unknown>,
		body: unknown,
	): void {
		send(
			ctx,
			status,
			{
				'content-type': 'application/json',
				'x-mockdata-info': JSON.stringify({ ...info, call: this.stats.mockCalls }),
			},
			JSON.stringify(body),
		);
	}

	private error(ctx: RequestContext, status: number, exceptionType: string, details: string): void {
		this.respond(
			ctx,
			status,
			{ example: null, random: false, validation: true },
			{
				status: statusLabel(status),
				exceptionType,
				details,
			},
		);
	}

	/** Handles {mockBase}/mock/sandbox/{version}/{api}/{operation}. `rest` starts after /mock/sandbox. */
	async handle(ctx: RequestContext, rest: string): Promise<void> {
		this.stats.mockCalls += 1;
		const body = ctx.req.method === 'POST' ? await readBody(ctx.req, 256 * 1024) : Buffer.alloc(0);
		if (this.prng.next() < this.rate) {
			const status = this.prng.pick(ERROR_STATUSES);
			this.stats.mockErrors += 1;
			this.stats.mockErrorLog.push({
				call: this.stats.mockCalls,
				status,
				method: ctx.req.method ?? 'GET',
				path: ctx.url.pathname,
			});
			const template = RANDOM_ERRORS[status];
			this.respond(
				ctx,
				status,
				{ example: `error${status}`, random: true, status },
				{
					status: statusLabel(status),
					exceptionType: template.exceptionType,
					details: template.details,
				},
			);
			return;
		}
		const match = /^\/([^/]+)\/([^/]+)(\/.*)?$/.exec(rest);
		if (!match) {
			this.error(
				ctx,
				404,
				'ResourceNotFoundException',
				'Unknown mock URL. Use /mock/sandbox/{api-version}/{api-name}/{operation-path}.',
			);
			return;
		}
		const [, version, api, operation = '/'] = match;
		if (api === MOCK_REPORT_API.name && version === MOCK_REPORT_API.version) {
			this.report(ctx, operation);
			return;
		}
		if (api === MOCK_EXECUTION_API.name && version === MOCK_EXECUTION_API.version) {
			this.execution(ctx, operation, body);
			return;
		}
		this.error(
			ctx,
			404,
			'ResourceNotFoundException',
			`API ${api} version ${version} is not available in the mock service (regulatory APIs are not served).`,
		);
	}

	private report(ctx: RequestContext, operation: string): void {
		if (ctx.req.method !== 'GET') {
			this.error(ctx, 405, 'MethodNotAllowedException', 'Only GET is supported.');
			return;
		}
		const params = queryParams(ctx.url);
		if (/^\/v1\/open-trades-service\/trade-reports\/?$/.test(operation)) {
			if (!params.get('startdate')?.[0]) {
				this.error(ctx, 400, 'InvalidParameterException', 'The startDate parameter is required.');
				return;
			}
			this.respond(
				ctx,
				200,
				{ example: 'example1', random: false },
				{ items: MOCK_EXAMPLE_TRADES, next: null, previous: null },
			);
			return;
		}
		if (/^\/v1\/open-trades-service\/trade-reports\/open\/?$/.test(operation)) {
			this.respond(
				ctx,
				200,
				{ example: 'example2', random: false },
				{ items: MOCK_EXAMPLE_TRADES.slice(0, 2), next: null, previous: null },
			);
			return;
		}
		const single = /^\/v1\/open-trades-service\/trade-reports\/trade\/([^/]+)\/?$/.exec(operation);
		if (single) {
			const tradeId = decodeURIComponent(single[1]);
			const trade =
				MOCK_EXAMPLE_TRADES.find((item) => item.tradeId === tradeId) ?? MOCK_EXAMPLE_TRADES[0];
			this.respond(
				ctx,
				200,
				{ example: trade === MOCK_EXAMPLE_TRADES[0] ? 'example1' : trade.tradeId, random: false },
				trade,
			);
			return;
		}
		this.error(
			ctx,
			404,
			'ResourceNotFoundException',
			`Operation ${operation} is not part of the API.`,
		);
	}

	private execution(ctx: RequestContext, operation: string, raw: Buffer): void {
		if (!/^\/v1\/trade-service\/trade-execution\/execute\/?$/.test(operation)) {
			this.error(
				ctx,
				404,
				'ResourceNotFoundException',
				'The requested trade execution endpoint does not exist.',
			);
			return;
		}
		if (ctx.req.method !== 'POST') {
			this.error(ctx, 405, 'MethodNotAllowedException', 'Only POST is supported.');
			return;
		}
		let body: unknown;
		try {
			body = JSON.parse(raw.toString('utf8') || 'null');
		} catch {
			this.error(ctx, 400, 'InvalidParameterException', 'Request body is not valid JSON.');
			return;
		}
		// Partial validation: only the presence of an amount is checked.
		const record =
			typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
		if (record.amount === undefined) {
			this.error(ctx, 400, 'InvalidParameterException', "Field 'amount' is required.");
			return;
		}
		const example = record.maturityDate ? 'withMaturityDate' : 'withTenor';
		this.respond(ctx, 200, { example, random: false }, MOCK_EXECUTIONS[example]);
	}
}
