import { DateTime } from 'luxon';

import { CC, CREDENTIAL_IDS, sandboxCredentials, useSandbox } from '../helpers/bank';
import { NODE_NAME, runNode } from '../helpers/nodes';

const sandbox = useSandbox({ trades: 3000 });
const credentials = { [CC]: CREDENTIAL_IDS[CC] };
const today = DateTime.utc().toISODate()!;
const daysAgo = (n: number) => DateTime.utc().minus({ days: n }).toISODate()!;

async function report(parameters: Record<string, unknown>, store = sandboxCredentials(sandbox.bank())) {
	const result = await runNode({ type: 'fxTradeReport', parameters, credentials, store });
	return { result, store };
}

function expectedHistorical(start: string, end: string, counterparts: string[] = []) {
	return sandbox
		.bank()
		.trades.all()
		.filter((t) => t.tradeTime.slice(0, 10) >= start && t.tradeTime.slice(0, 10) <= end && (!counterparts.length || counterparts.includes(t.counterpart)));
}

describe('FX Trade Report: Get Many', () => {
	it('returns every historical trade in the range exactly once with Return All, asking for one token', async () => {
		const start = daysAgo(400);
		const expected = expectedHistorical(start, today);
		expect(expected.length).toBeGreaterThan(1000);
		const { result } = await report({ operation: 'getMany', startDate: start, returnAll: true });
		expect(result.status).toBe('success');
		const items = result.output(NODE_NAME);
		const ids = items.map((i) => i.json.tradeId);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids).toEqual(expected.map((t) => t.tradeId));
		expect(sandbox.bank().stats.tokenRequests).toBe(1);
		const pages = sandbox.bank().stats.requests.filter((r) => r.area === 'report');
		expect(pages).toHaveLength(Math.ceil(expected.length / 100));
	});

	it('keeps the fields of a trade with numbers as numbers and money objects', async () => {
		const { result } = await report({ operation: 'getMany', startDate: daysAgo(30), limit: 5 });
		const [first] = result.output(NODE_NAME);
		const trade = sandbox.bank().trades.get(first.json.tradeId as string)!;
		expect(first.json).toMatchObject({
			tradeId: trade.tradeId,
			tradeTime: trade.tradeTime,
			counterpart: trade.counterpart,
			maturityDate: trade.maturityDate,
			sold: { currency: trade.sold.currency, amount: trade.sold.amount },
			bought: { currency: trade.bought.currency, amount: trade.bought.amount },
		});
		expect(typeof first.json.allInPrice).toBe('number');
		expect(first.json.tradeTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
	});

	it('returns at most Limit trades, asking only for the pages needed', async () => {
		const { result } = await report({ operation: 'getMany', startDate: daysAgo(400), limit: 250 });
		const items = result.output(NODE_NAME);
		expect(items).toHaveLength(250);
		const pages = sandbox.bank().stats.requests.filter((r) => r.area === 'report');
		expect(pages.map((p) => new URL(p.path, 'https://x').searchParams.get('limit'))).toEqual(['100', '100', '50']);
		expect(items.map((i) => i.json.tradeId)).toEqual(expectedHistorical(daysAgo(400), today).slice(0, 250).map((t) => t.tradeId));
	});

	it('filters by counterparts sent comma-separated in one parameter, with offset', async () => {
		const cps = ['CP0001', 'CP0003'].filter((c) => sandbox.bank().trades.all().some((t) => t.counterpart === c));
		const fallback = [...new Set(sandbox.bank().trades.all().map((t) => t.counterpart))].slice(0, 2);
		const wanted = cps.length === 2 ? cps : fallback;
		const { result } = await report({
			operation: 'getMany',
			startDate: daysAgo(400),
			counterparts: ` ${wanted[0]} , ${wanted[1]} `,
			returnAll: true,
			options: { offset: 10, pageSize: 40 },
		});
		const expected = expectedHistorical(daysAgo(400), today, wanted).slice(10);
		expect(result.output(NODE_NAME).map((i) => i.json.tradeId)).toEqual(expected.map((t) => t.tradeId));
		const first = sandbox.bank().stats.requests.find((r) => r.area === 'report')!;
		const qs = new URL(first.path, 'https://x').searchParams;
		expect(qs.get('counterparts')).toBe(wanted.join(','));
		expect(qs.get('limit')).toBe('40');
		expect(qs.get('offset')).toBe('10');
	});

	it('treats a 404 from a list endpoint as no trades', async () => {
		const { result } = await report({ operation: 'getMany', startDate: today, counterparts: 'NOBODY', returnAll: true });
		expect(result.status).toBe('success');
		expect(result.output(NODE_NAME)).toEqual([]);
	});

	it('renews an expired token in the middle of pagination and misses or repeats nothing', async () => {
		const store = sandboxCredentials(sandbox.bank());
		const expected = expectedHistorical(daysAgo(400), today);
		const bank = sandbox.bank();
		// The third page is held at the bank; the token expires while it waits there.
		bank.faults.add({ kind: 'hold', area: 'report', pathRegex: '[?&]offset=200(&|$)' });
		void bank.faults.held().then((held) => {
			bank.tokens.expireAll();
			held.release();
		});
		const { result } = await report({ operation: 'getMany', startDate: daysAgo(400), returnAll: true }, store);
		expect(result.status).toBe('success');
		const ids = result.output(NODE_NAME).map((i) => i.json.tradeId);
		expect(ids).toEqual(expected.map((t) => t.tradeId));
		expect(bank.stats.tokenRequests).toBe(2);
		expect(bank.stats.requests.filter((r) => r.area === 'report' && r.status === 401).map((r) => /[?&]offset=200(&|$)/.test(r.path))).toEqual([true]);
		expect(store.updates).toBe(2);
	});

	it('refuses a next link to another origin and never sends the token there', async () => {
		sandbox.bank().switches.linkStyle = 'foreign';
		const { result } = await report({ operation: 'getMany', startDate: daysAgo(400), returnAll: true });
		expect(result.status).toBe('error');
		expect(result.nodeError(NODE_NAME)?.message).toMatch(/next-page link points to another host; it was not followed/);
		expect(sandbox.bank().stats.foreignRequests).toHaveLength(0);
	});

	it('follows absolute next links on the same origin', async () => {
		sandbox.bank().switches.linkStyle = 'absolute';
		const { result } = await report({ operation: 'getMany', startDate: daysAgo(100), returnAll: true });
		expect(result.output(NODE_NAME)).toHaveLength(expectedHistorical(daysAgo(100), today).length);
	});
});

describe('FX Trade Report: Get Open and Get', () => {
	it('returns open trades', async () => {
		const { result } = await report({ operation: 'getOpen', returnAll: true });
		const open = sandbox.bank().trades.all().filter((t) => t.maturityDate >= today);
		expect(result.output(NODE_NAME).map((i) => i.json.tradeId)).toEqual(open.map((t) => t.tradeId));
	});

	it('gets one trade by ID', async () => {
		const trade = sandbox.bank().trades.all()[7];
		const { result } = await report({ operation: 'get', tradeId: trade.tradeId });
		expect(result.output(NODE_NAME)).toHaveLength(1);
		expect(result.output(NODE_NAME)[0].json.tradeId).toBe(trade.tradeId);
	});

	it('says "trade not found" for an unknown ID', async () => {
		const { result } = await report({ operation: 'get', tradeId: 'XXXXXXXXXXXX' });
		const error = result.nodeError(NODE_NAME);
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe('Get trade: Trade not found: no trade with ID XXXXXXXXXXXX');
		expect(error?.description).toContain('Bank code: NotFound');
	});
});

describe('FX Trade Report: validation before any request', () => {
	const cases: Array<[string, Record<string, unknown>, RegExp]> = [
		['impossible date', { operation: 'getMany', startDate: '2025-02-30' }, /^Start Date: "2025-02-30" is not a real calendar date/],
		['malformed date', { operation: 'getMany', startDate: '31/01/2025' }, /^Start Date: "31\/01\/2025" is not a valid date/],
		['future start', { operation: 'getMany', startDate: DateTime.utc().plus({ days: 2 }).toISODate() }, /^Start Date: .* is in the future/],
		['future end', { operation: 'getMany', startDate: daysAgo(5), endDate: DateTime.utc().plus({ days: 1 }).toISODate() }, /^End Date: .* is in the future/],
		['end before start', { operation: 'getMany', startDate: daysAgo(5), endDate: daysAgo(6) }, /^End Date: .* is before the Start Date/],
		['limit 0', { operation: 'getMany', startDate: daysAgo(5), limit: 0 }, /^Limit: must be at least 1/],
		['page size 101', { operation: 'getOpen', options: { pageSize: 101 } }, /^Page Size \(limit\): must be from 1 to 100/],
		['page size 0', { operation: 'getOpen', options: { pageSize: 0 } }, /^Page Size \(limit\): must be from 1 to 100/],
		['negative offset', { operation: 'getOpen', options: { offset: -1 } }, /^Offset: must be at least 0/],
		['trade id of 11', { operation: 'get', tradeId: 'ABCDEFGHIJK' }, /^Trade ID: must be exactly 12 characters, got 11/],
		['trade id of 13', { operation: 'get', tradeId: 'ABCDEFGHIJKLM' }, /^Trade ID: must be exactly 12 characters, got 13/],
	];
	it.each(cases)('%s', async (_name, parameters, message) => {
		const { result } = await report(parameters);
		const error = result.nodeError(NODE_NAME);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(message);
		expect(sandbox.bank().stats.requests.filter((r) => r.area === 'report')).toHaveLength(0);
		expect(sandbox.bank().stats.tokenRequests).toBe(0);
	});
});
