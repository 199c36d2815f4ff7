/**
 * The FX Trade Execution's panel marks an Amount or a currency code the node will refuse as soon
 * as it is typed (a notice under the field, which n8n shows by the same display rules in the
 * editor), without stopping the run: the run then names every field to fix in one error.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers, resetSafeRegexEngine, setSafeRegexEngine } from 'n8n-workflow';

import { FxTradeExecution } from '../../nodes/FxTradeExecution/FxTradeExecution.node';
import { BankMockService } from '../../nodes/BankMockService/BankMockService.node';
import { FxValidator } from '../../nodes/shared/fx/validation';

const properties = new FxTradeExecution().description.properties;
const notice = (name: string) => properties.find((p) => p.name === name)!;

const code = (value: string) => ({ __rl: true, mode: 'code', value });
const parameters = (values: INodeParameters): INodeParameters => ({
	amount: '1500.50',
	buyCurrency: { __rl: true, mode: 'list', value: 'DKK' },
	sellCurrency: { __rl: true, mode: 'list', value: 'EUR' },
	...values,
});
const shown = (property: INodeProperties, values: INodeParameters) =>
	NodeHelpers.displayParameter(parameters(values), property, null, null);

describe('FX Trade Execution: fields marked before the node runs', () => {
	it.each(['-5', '1,5', '1 000 000', '0', '0.00', 'abc', '+-3'])('an Amount of %j shows the amount notice', (amount) => {
		expect(shown(notice('amountNotice'), { amount })).toBe(true);
	});

	it.each(['', '1500.50', '100', ' 250000 ', '+7', '0.5', '={{ $json.amount }}'])(
		'an Amount of %j shows none (empty is marked by n8n as required; an expression is checked when it runs)',
		(amount) => {
			expect(shown(notice('amountNotice'), { amount })).toBe(false);
		},
	);

	it.each(['1e3', '0x10', '.5', '5.', 'Infinity'])(
		"an Amount of %j, a number in JavaScript's own notation, shows no notice; the run refuses it naming the field",
		(amount) => {
			expect(shown(notice('amountNotice'), { amount })).toBe(false);
			expect(() => new FxValidator(0).positiveAmount('Amount', amount, 'EUR')).toThrow(/^Amount: .* is not an amount/);
		},
	);

	it("no Amount reaches n8n's regular expression engine (its 250 ms limit fails runs on a busy machine)", () => {
		const refuse = (): never => {
			throw new Error('Regular expression execution timed out');
		};
		setSafeRegexEngine({ exec: refuse, test: refuse, replace: refuse, matchAll: refuse, split: refuse });
		try {
			for (const amount of ['1000', '-5', '1,5', 'abc', '1500.50', ''])
				expect([amount, shown(notice('amountNotice'), { amount })]).toEqual([amount, !['1000', '1500.50', ''].includes(amount)]);
		} finally {
			resetSafeRegexEngine();
		}
	});

	it.each(['EURO', 'XYZ', 'E', '€'])('a Buy Currency code of %j shows the currency notice, the Sell Currency none', (value) => {
		expect(shown(notice('buyCurrencyNotice'), { buyCurrency: code(value) })).toBe(true);
		expect(shown(notice('sellCurrencyNotice'), { buyCurrency: code(value) })).toBe(false);
	});

	it.each(['EUR', ' eur ', 'chf', '', '={{ $json.currency }}'])('a Sell Currency code of %j shows none', (value) => {
		expect(shown(notice('sellCurrencyNotice'), { sellCurrency: code(value) })).toBe(false);
	});

	it('a currency picked from the list shows none', () => {
		expect(shown(notice('buyCurrencyNotice'), {})).toBe(false);
	});

	it("a currency picked from the list or typed plainly never reaches n8n's regular expression engine (its 250 ms limit fails runs on a busy machine)", () => {
		const patterns: string[] = [];
		const refuse = (pattern: string): never => {
			patterns.push(pattern.slice(0, 20));
			throw new Error('Regular expression execution timed out');
		};
		setSafeRegexEngine({ exec: refuse, test: refuse, replace: refuse, matchAll: refuse, split: refuse });
		try {
			for (const value of ['EUR', 'DKK', 'usd', 'JPY'])
				expect([value, shown(notice('buyCurrencyNotice'), { buyCurrency: code(value), sellCurrency: code(value) })]).toEqual([value, false]);
			expect(shown(notice('sellCurrencyNotice'), {})).toBe(false);
			expect(patterns).toEqual([]);
			// A value that is not usual still goes through the pattern.
			expect(() => shown(notice('buyCurrencyNotice'), { buyCurrency: code(' eur ') })).toThrow('timed out');
		} finally {
			resetSafeRegexEngine();
		}
	});

	it('the notices never block a run: a code that is not ISO 4217 is not a field issue for n8n', () => {
		const node = {
			id: '1',
			name: 'FX Execute',
			type: 'n8n-nodes-corporate-banking.fxTradeExecution',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: parameters({ counterpart: 'CP', amount: '-5', buyCurrency: code('EURO') }),
		};
		expect(NodeHelpers.getNodeParametersIssues(properties, node, new FxTradeExecution().description)).toBeNull();
	});

	it.each([
		[1, 'api'],
		[2, 'resource'],
	])('the Bank Mock Service (version %d, API chosen by %s) shows the same notices for its execution API only', (typeVersion, selector) => {
		const mock = new BankMockService().description.properties.filter((p) => p.name === 'amountNotice');
		const node = { id: '1', name: 'Mock', type: 'n8n-nodes-corporate-banking.bankMockService', typeVersion, position: [0, 0] as [number, number], parameters: {} };
		const shownFor = (api: string) => mock.filter((p) => NodeHelpers.displayParameter(parameters({ [selector]: api, amount: '-5' }), p, node, null)).length;
		expect([shownFor('execution'), shownFor('report')]).toEqual([1, 0]);
	});
});
