import { MOCK_EXAMPLE_TRADES } from '../sandbox';
import { useSandbox } from '../helpers/bank';
import { NODE_NAME, runNode } from '../helpers/nodes';

const sandbox = useSandbox();

async function mock(parameters: Record<string, unknown>, inputs = 1, typeVersion = 1) {
	return await runNode({
		type: 'bankMockService',
		parameters: { mockBaseUrl: sandbox.bank().urls.mockBase, connection: { caCertificate: sandbox.bank().tls.caPem }, ...parameters },
		inputItems: Array.from({ length: inputs }, (_, i) => ({ json: { i } })),
		store: undefined,
		settings: { typeVersion },
	});
}

describe('Bank Mock Service', () => {
	it('survives 100 calls at an error rate of 0.3: every call answered or handled, retries matching injected errors', async () => {
		sandbox.bank().mock.configure({ seed: 1234, errorRate: 0.3 });
		const result = await mock(
			{
				api: 'report',
				operation: 'get',
				tradeId: MOCK_EXAMPLE_TRADES[1].tradeId,
				errorHandling: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0, fallback: 'errorItem' },
			},
			100,
		);
		expect(result.status).toBe('success');
		const items = result.output(NODE_NAME);
		expect(items).toHaveLength(100);
		expect(items.map((i) => (i.pairedItem as { item: number }).item)).toEqual(Array.from({ length: 100 }, (_, i) => i));
		const answered = items.filter((i) => !i.json.error);
		const handled = items.filter((i) => i.json.error);
		expect(answered.length + handled.length).toBe(100);
		expect(handled.length).toBeGreaterThan(0); // 0.3^3 over 100 calls: a few exhaust their attempts
		for (const item of answered) expect(item.json.tradeId).toBe(MOCK_EXAMPLE_TRADES[1].tradeId);
		for (const item of handled) expect(item.json.mockAttempts).toBe(3);
		const stats = sandbox.bank().stats;
		const attempts = items.reduce((n, i) => n + (i.json.mockAttempts as number), 0);
		expect(attempts).toBe(stats.mockCalls);
		const retriesAfterErrors = answered.reduce((n, i) => n + (i.json.mockAttempts as number) - 1, 0) + handled.length * 3;
		expect(retriesAfterErrors).toBe(stats.mockErrors);
		expect(stats.mockErrorLog).toHaveLength(stats.mockErrors);
		for (const item of items) expect(item.json.mockDataInfo).toEqual(expect.any(Object));
	});

	it('outputs the fallback JSON when retries run out', async () => {
		sandbox.bank().mock.configure({ seed: 1, errorRate: 1 });
		const result = await mock({
			api: 'report',
			operation: 'getOpen',
			returnAll: true,
			errorHandling: { attempts: 2, baseDelayMs: 0, maxDelayMs: 0, fallback: 'fallbackJson', fallbackJson: '{"items":[],"source":"fallback"}' },
		});
		expect(result.output(NODE_NAME)).toEqual([
			expect.objectContaining({ json: expect.objectContaining({ source: 'fallback', mockFallback: true, mockAttempts: 2, mockDataInfo: expect.any(Object) }) }),
		]);
		expect(sandbox.bank().stats.mockCalls).toBe(2);
	});

	it('fails the node when asked to, with the mock error', async () => {
		sandbox.bank().mock.configure({ seed: 1, errorRate: 1 });
		const result = await mock({ api: 'report', operation: 'getOpen', errorHandling: { attempts: 1, fallback: 'fail' } });
		expect(result.nodeError(NODE_NAME)?.name).toBe('NodeApiError');
		expect(sandbox.bank().stats.mockCalls).toBe(1);
	});

	it('executes against the mock execution API at its default version and name, with the header parsed', async () => {
		sandbox.bank().mock.configure({ seed: 1, errorRate: 0 });
		const result = await mock({
			api: 'execution',
			operation: 'executeTrade',
			counterpart: 'DEMOCP1',
			buyCurrency: 'DKK',
			sellCurrency: 'EUR',
			amount: 1000,
			amountSide: 'SELL',
			baseSide: 'SELL',
			maturityType: 'tenor',
			tenor: 'SP',
		});
		const [item] = result.output(NODE_NAME);
		expect(item.json).toMatchObject({ tradeId: expect.any(String), mockAttempts: 1, mockDataInfo: expect.any(Object) });
		expect(sandbox.bank().stats.requests.at(-1)?.path).toBe('/mock/sandbox/1.0.1/fx-trade-execution-api/v1/trade-service/trade-execution/execute');
		expect(sandbox.bank().stats.requests.at(-1)?.authorization).toBe(false);
	});

	it('lists trades from the mock with the report defaults', async () => {
		sandbox.bank().mock.configure({ seed: 1, errorRate: 0 });
		const result = await mock({ api: 'report', operation: 'getMany', startDate: '2025-01-01', returnAll: true });
		expect(result.output(NODE_NAME).map((i) => i.json.tradeId)).toEqual(MOCK_EXAMPLE_TRADES.map((t) => t.tradeId));
		expect(sandbox.bank().stats.requests.at(-1)?.path).toMatch(/^\/mock\/sandbox\/1\.0\.0\/fx-open-and-historical-trades-api\/v1\/open-trades-service\/trade-reports\?/);
	});

	it('validates input as the FX nodes do, before any call', async () => {
		const result = await mock({ api: 'execution', operation: 'executeTrade', counterpart: 'X', buyCurrency: 'EUR', sellCurrency: 'EUR', amount: 5, maturityType: 'tenor', tenor: 'SP' });
		expect(result.nodeError(NODE_NAME)?.message).toMatch(/^Sell Currency: must differ/);
		expect(sandbox.bank().stats.mockCalls).toBe(0);
		const bad = await mock({ api: 'report', operation: 'get', tradeId: 'SHORT', errorHandling: { fallback: 'errorItem' } });
		expect(bad.nodeError(NODE_NAME)?.message).toMatch(/^Trade ID: must be exactly 12 characters/);
	});

	describe('version 2 chooses the API with `resource` (what n8n\'s node panel lists as actions); version 1 keeps `api`', () => {
		const trade = { counterpart: 'DEMOCP1', buyCurrency: 'DKK', sellCurrency: 'EUR', amount: 1000, maturityType: 'tenor', tenor: 'SP' };

		it('version 2 executes against the mock execution API', async () => {
			sandbox.bank().mock.configure({ seed: 1, errorRate: 0 });
			const result = await mock({ resource: 'execution', operation: 'executeTrade', ...trade }, 1, 2);
			expect(result.output(NODE_NAME)[0].json).toMatchObject({ tradeId: expect.any(String), mockAttempts: 1 });
			expect(sandbox.bank().stats.requests.at(-1)?.path).toBe('/mock/sandbox/1.0.1/fx-trade-execution-api/v1/trade-service/trade-execution/execute');
		});

		it('version 2 reads the report API by default, and ignores an `api` left in its parameters', async () => {
			sandbox.bank().mock.configure({ seed: 1, errorRate: 0 });
			const result = await mock({ api: 'execution', operation: 'getOpen', returnAll: true }, 1, 2);
			expect(result.nodeError(NODE_NAME)?.message).toBeUndefined();
			expect(result.status).toBe('success');
			expect(sandbox.bank().stats.requests.at(-1)?.path).toMatch(/^\/mock\/sandbox\/1\.0\.0\/fx-open-and-historical-trades-api\//);
		});

		it('version 1 ignores a `resource` left in its parameters', async () => {
			sandbox.bank().mock.configure({ seed: 1, errorRate: 0 });
			const result = await mock({ api: 'execution', resource: 'report', operation: 'executeTrade', ...trade }, 1, 1);
			expect(result.output(NODE_NAME)[0].json).toMatchObject({ tradeId: expect.any(String) });
		});
	});
});
