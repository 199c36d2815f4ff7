import { DateTime } from 'luxon';

import { CC, CREDENTIAL_IDS, sandboxCredentials, TRADE, TRADE_BODY, useSandbox } from '../helpers/bank';
import { NODE_NAME, runNode } from '../helpers/nodes';

const sandbox = useSandbox();
const credentials = { [CC]: CREDENTIAL_IDS[CC] };
const inDays = (n: number) => DateTime.utc().plus({ days: n }).toISODate()!;

const base = { ...TRADE, additionalFields: { comment: 'hedge', shortName: 'H1' } };

async function execute(parameters: Record<string, unknown>, extra: Partial<Parameters<typeof runNode>[0]> = {}) {
	return await runNode({ type: 'fxTradeExecution', parameters, credentials, store: sandboxCredentials(sandbox.bank()), ...extra });
}

const executions = () => sandbox.bank().stats.executions;

describe('FX Trade Execution', () => {
	it('executes a trade with a tenor and returns the execution result', async () => {
		const result = await execute(base);
		expect(result.status).toBe('success');
		const [item] = result.output(NODE_NAME);
		expect(item.json).toMatchObject({ tradeId: expect.any(String), executionId: expect.any(String), counterpart: 'DEMOCP1', autoSettle: expect.any(Boolean) });
		expect(typeof item.json.allInPrice).toBe('number');
		expect(executions()).toBe(1);
		expect(sandbox.bank().stats.executionBodies[0]).toEqual({ ...TRADE_BODY, comment: 'hedge', shortName: 'H1' });
	});

	it('takes the amount as typed in the editor and currencies picked from the list or typed as a code', async () => {
		const result = await execute({
			...base,
			amount: '1500.50',
			buyCurrency: { __rl: true, mode: 'list', value: 'DKK' },
			sellCurrency: { __rl: true, mode: 'code', value: ' eur ' },
		});
		expect(result.status).toBe('success');
		expect(sandbox.bank().stats.executionBodies[0]).toMatchObject({ buyCurrency: 'DKK', sellCurrency: 'EUR', amount: 1500.5 });
		// The output pane says that the run traded, and where.
		expect(result.runData[NODE_NAME][0].hints).toEqual([
			expect.objectContaining({ type: 'warning', message: expect.stringMatching(/^This run placed 1 trade at the bank in the Sandbox environment\./) }),
		]);
	});

	it.each([
		['-5', /^Amount: must be greater than zero, got -5$/],
		['1,5', /^Amount: "1,5" uses a comma/],
		['1 000', /^Amount: "1 000" is not an amount/],
		['={{ "" }}', /^Amount: required/],
		['0', /^Amount: must be greater than zero, got 0$/],
		['100.5', /^Amount: JPY amounts have no decimals, got "100.5"$/],
	])('refuses the amount %j as typed, sending nothing', async (amount, message) => {
		const result = await execute({ ...base, amount, sellCurrency: 'JPY', buyCurrency: 'EUR' });
		expect(result.status).toBe('error');
		expect(result.nodeError(NODE_NAME)?.message).toMatch(message);
		expect(executions()).toBe(0);
	});

	it('an Amount left empty in the editor stops the workflow before the node runs', async () => {
		await expect(execute({ ...base, amount: '' })).rejects.toThrow('Parameter "Amount" is required.');
		expect(executions()).toBe(0);
	});

	it('sends the maturity date and not the tenor when the maturity is a date', async () => {
		const date = inDays(30);
		await execute({ ...base, maturityType: 'date', maturityDate: `${date}T00:00:00`, tenor: '1Y' });
		const body = sandbox.bank().stats.executionBodies[0] as Record<string, unknown>;
		expect(body.maturityDate).toBe(date);
		expect(body).not.toHaveProperty('tenor');
	});

	it('outputs one result per input item, paired with it', async () => {
		const result = await execute(
			{ ...base, counterpart: '={{ $json.cp }}', amount: '={{ $json.amount }}' },
			{ inputItems: [{ json: { cp: 'CP-A', amount: 100 } }, { json: { cp: 'CP-B', amount: 200 } }] },
		);
		const items = result.output(NODE_NAME);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(items.map((i) => i.json.counterpart)).toEqual(['CP-A', 'CP-B']);
		expect(executions()).toBe(2);
	});

	describe('never executes twice', () => {
		it('after a timeout: one execution at the bank, an "outcome unknown" error carrying the request', async () => {
			// The bank executes the trade and holds its answer until the node gives up waiting.
			sandbox.bank().faults.add({ kind: 'hold', area: 'execution', phase: 'after' });
			const held = sandbox.bank().faults.held();
			const result = await execute({ ...base, additionalFields: { timeoutMs: 1000 } });
			const error = result.nodeError(NODE_NAME)!;
			expect(error.message).toMatch(/^Execute trade: outcome unknown/);
			expect(error.description).toContain('The trade may have been executed. Check the trade report');
			expect(error.description).toContain('"counterpart":"DEMOCP1"');
			expect(error.description).not.toMatch(/Bearer|access_token|sandbox-client/);
			await (await held).gaveUp;
			expect(executions()).toBe(1);
			expect(sandbox.bank().stats.requests.filter((r) => r.area === 'execution')).toHaveLength(1);
		});

		it('after a 500 once the trade was processed: one execution, outcome unknown, no retry', async () => {
			sandbox.bank().faults.add({ kind: 'status', status: 500, area: 'execution', phase: 'after' });
			const result = await execute(base);
			expect(result.nodeError(NODE_NAME)?.message).toMatch(/^Execute trade: outcome unknown/);
			expect(result.nodeError(NODE_NAME)?.httpCode).toBe('500');
			expect(executions()).toBe(1);
			expect(sandbox.bank().stats.requests.filter((r) => r.area === 'execution')).toHaveLength(1);
		});

		it('after a dropped connection once the trade was processed: one execution, outcome unknown', async () => {
			sandbox.bank().faults.add({ kind: 'drop', area: 'execution', phase: 'after' });
			const result = await execute(base);
			expect(result.nodeError(NODE_NAME)?.message).toMatch(/^Execute trade: outcome unknown: The connection to the bank failed/);
			expect(executions()).toBe(1);
		});

		it('after a 401: zero executions, then the token is renewed and exactly one', async () => {
			const store = sandboxCredentials(sandbox.bank());
			await runNode({ type: 'fxTradeReport', parameters: { operation: 'getOpen', limit: 1 }, credentials, store });
			sandbox.bank().tokens.expireAll();
			const result = await runNode({ type: 'fxTradeExecution', parameters: base, credentials, store });
			expect(result.status).toBe('success');
			const calls = sandbox.bank().stats.requests.filter((r) => r.area === 'execution');
			expect(calls.map((c) => c.status)).toEqual([401, 200]);
			expect(executions()).toBe(1);
			expect(sandbox.bank().stats.tokenRequests).toBe(2);
		});

		it('a refusal by the bank says nothing was executed', async () => {
			sandbox.bank().faults.add({ kind: 'status', status: 400, area: 'execution' });
			const result = await execute(base);
			expect(result.nodeError(NODE_NAME)?.message).toMatch(/^Execute trade: not executed/);
			expect(executions()).toBe(0);
		});

		it('refuses to run with n8n\'s Retry On Fail switched on', async () => {
			const result = await execute(base, { settings: { retryOnFail: true, maxTries: 3 } });
			expect(result.nodeError(NODE_NAME)?.message).toBe('Settings > Retry On Fail: must be off for trade execution');
			expect(executions()).toBe(0);
			expect(sandbox.bank().stats.tokenRequests).toBe(0);
		});

		it('refuses an AI agent unless allowed in the node', async () => {
			const { FxTradeExecution } = await import('../../nodes/FxTradeExecution/FxTradeExecution.node');
			const nodeTypes = { 'n8n-nodes-corporate-banking.fxTradeExecutionTool': new FxTradeExecution() };
			const result = await execute(base, { type: 'fxTradeExecutionTool', nodeTypes });
			expect(result.nodeError(NODE_NAME)?.message).toMatch(/^Allow Use by AI Agents: is off/);
			expect(executions()).toBe(0);
			const allowed = await execute({ ...base, allowAiAgentUse: true }, { type: 'fxTradeExecutionTool', nodeTypes });
			expect(allowed.status).toBe('success');
			expect(executions()).toBe(1);
		});
	});

	describe("dates are the workflow's calendar days", () => {
		// Kiritimati is 14 hours ahead of UTC: its yesterday is, for ten hours a day, the bank's
		// today. The node judges a date by the workflow's calendar, at every hour.
		const zone = 'Pacific/Kiritimati';
		const dayThere = (n: number) => DateTime.now().setZone(zone).plus({ days: n }).toISODate()!;

		it("refuses the workflow's yesterday as a maturity date, whatever the hour in UTC", async () => {
			const result = await execute({ ...base, maturityType: 'date', maturityDate: dayThere(-1) }, { timezone: zone });
			expect(result.nodeError(NODE_NAME)?.message).toBe(`Maturity Date: ${dayThere(-1)} is in the past; it must be today or later`);
			expect(executions()).toBe(0);
		});

		it('reads a date object from an expression as the calendar day it is in the workflow zone', async () => {
			// 23:30 UTC two days ahead is already the third day in Kiritimati.
			const instant = DateTime.utc().plus({ days: 2 }).set({ hour: 23, minute: 30 });
			const result = await execute({ ...base, maturityType: 'date', maturityDate: `={{ new Date('${instant.toISO()}') }}` }, { timezone: zone });
			expect(result.status).toBe('success');
			expect(sandbox.bank().stats.executionBodies[0]).toMatchObject({ maturityDate: instant.setZone(zone).toISODate() });
			expect(instant.setZone(zone).toISODate()).toBe(instant.plus({ days: 1 }).toISODate());
		});
	});

	describe('validation before sending', () => {
		const cases: Array<[string, Record<string, unknown>, RegExp]> = [
			['unknown currency', { buyCurrency: 'XYZ' }, /^Buy Currency: "XYZ" is not an ISO 4217 currency code/],
			['three letters but not a currency', { sellCurrency: 'ABC' }, /^Sell Currency: "ABC" is not an ISO 4217 currency code/],
			['same buy and sell', { buyCurrency: 'EUR', sellCurrency: 'eur' }, /^Sell Currency: must differ from the Buy Currency/],
			['zero amount', { amount: 0 }, /^Amount: must be greater than zero/],
			['negative amount', { amount: -5 }, /^Amount: must be greater than zero/],
			['NaN amount', { amount: '={{ NaN }}' }, /^Amount: must be a number/],
			['missing maturity date', { maturityType: 'date', maturityDate: '={{ "" }}' }, /^Maturity Date: required/],
			['past maturity date', { maturityType: 'date', maturityDate: DateTime.utc().minus({ days: 1 }).toISODate() }, /^Maturity Date: .* is in the past/],
			['impossible maturity date', { maturityType: 'date', maturityDate: '2031-02-29' }, /^Maturity Date: "2031-02-29" is not a real calendar date/],
			['unknown tenor', { tenor: '7M7' }, /^Tenor: must be one of ON, TOM/],
			['missing counterpart', { counterpart: '={{ $json.nothing }}' }, /^Counterpart: required/],
			['bad amount side', { amountSide: 'HOLD' }, /^Amount Side: must be one of BUY, SELL/],
		];
		it.each(cases)('%s', async (_name, overrides, message) => {
			const result = await execute({ ...base, ...overrides });
			const error = result.nodeError(NODE_NAME);
			expect(error?.name).toBe('NodeOperationError');
			expect(error?.message).toMatch(message);
			expect(sandbox.bank().stats.requests.filter((r) => r.area === 'execution')).toHaveLength(0);
		});

		it('names every wrong field in one error: a negative amount, a currency that is not a code and a past date in one run', async () => {
			const past = DateTime.utc().minus({ days: 3 }).toISODate()!;
			const result = await execute({
				...base,
				amount: '-5',
				buyCurrency: { __rl: true, mode: 'code', value: 'EURO' },
				maturityType: 'date',
				maturityDate: past,
			});
			const error = result.nodeError(NODE_NAME)!;
			expect(error.name).toBe('NodeOperationError');
			expect(error.message).toBe(
				`3 fields to fix: (1) Buy Currency: "EURO" is not an ISO 4217 currency code (2) Amount: must be greater than zero, got -5 (3) Maturity Date: ${past} is in the past; it must be today or later`,
			);
			expect(error.description).toBe(
				[
					'Buy Currency: "EURO" is not an ISO 4217 currency code',
					'Amount: must be greater than zero, got -5',
					`Maturity Date: ${past} is in the past; it must be today or later`,
					'Nothing was sent to the bank.',
				].join('\n'),
			);
			expect(sandbox.bank().stats.requests.filter((r) => r.area === 'execution')).toHaveLength(0);
			expect(sandbox.bank().stats.tokenRequests).toBe(0);
		});

		it('with Continue On Fail, the error item of each input item lists its own problems', async () => {
			const result = await execute(
				{ ...base, amount: '={{ $json.amount }}', buyCurrency: { __rl: true, mode: 'code', value: '={{ $json.currency }}' } },
				{
					settings: { continueOnFail: true },
					inputItems: [{ json: { amount: '1,5', currency: 'XYZ' } }, { json: { amount: '100', currency: 'DKK' } }],
				},
			);
			const [bad, good] = result.output(NODE_NAME);
			expect(bad.json.error).toBe('2 fields to fix: (1) Buy Currency: "XYZ" is not an ISO 4217 currency code (2) Amount: "1,5" uses a comma: write the amount with digits and a point as the decimal separator, such as 1500.50 (no thousands separators)');
			expect(good.json.tradeId).toEqual(expect.any(String));
			expect(executions()).toBe(1);
		});
	});
});
