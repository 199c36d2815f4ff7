import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import type { IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BankFailure, InputError, toNodeError } from '../../nodes/shared/common/errors';
import { failedItem, runForEachItem } from '../../nodes/shared/common/runItems';
import { bankFailure } from '../../nodes/shared/transport/errors';

const node: INode = { id: '1', name: 'Bank', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} };
const root = path.resolve(__dirname, '../..');

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const full = path.join(dir, name);
		if (statSync(full).isDirectory()) return filesUnder(full);
		return full.endsWith('.ts') ? [full] : [];
	});
}

const productFiles = [...filesUnder(path.join(root, 'nodes')), ...filesUnder(path.join(root, 'credentials'))];

/** An execute context with the given input items that fails or continues as asked. */
function context(items: number, continueOnFail: boolean): IExecuteFunctions {
	return {
		getInputData: () => Array.from({ length: items }, (_, i): INodeExecutionData => ({ json: { i } })),
		getNode: () => node,
		continueOnFail: () => continueOnFail,
	} as unknown as IExecuteFunctions;
}

describe('the error boundary', () => {
	it('turns a BankFailure into a NodeApiError with the bank code, status, description, context and item', () => {
		const failure = new BankFailure('Get trade: The connection to the bank failed (ECONNRESET)', {
			body: { message: 'The connection to the bank failed (ECONNRESET)', networkCode: 'ECONNRESET' },
			description: 'Nothing was sent twice',
			httpCode: '503',
			context: { responseCode: '12' },
		});
		const error = toNodeError(node, failure, 3);
		expect(error).toBeInstanceOf(NodeApiError);
		// n8n would swap in its own text for a message naming ECONNRESET; the bank's words stay.
		expect(error.message).toBe('Get trade: The connection to the bank failed (ECONNRESET)');
		expect(error.description).toBe('Nothing was sent twice');
		expect((error as NodeApiError).httpCode).toBe('503');
		expect(error.context).toMatchObject({ responseCode: '12', itemIndex: 3 });
	});

	it('turns an InputError into a NodeOperationError naming the field, keeping an item index set where it was thrown', () => {
		const error = toNodeError(node, new InputError('Amount: must be above 0', { description: 'Use a dot', itemIndex: 2 }), 5);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Amount: must be above 0');
		expect(error.description).toBe('Use a dot');
		expect(error.context.itemIndex).toBe(2);
	});

	it("passes n8n's own errors through unchanged and wraps anything else with its message", () => {
		const own = new NodeOperationError(node, 'as n8n made it');
		expect(toNodeError(node, own, 1)).toBe(own);
		const other = toNodeError(node, new Error('unexpected'), 1);
		expect(other).toBeInstanceOf(NodeOperationError);
		expect(other.message).toBe('unexpected');
		expect(toNodeError(node, 'a thrown string').message).toBe('a thrown string');
	});

	it('builds a BankFailure from a failed request: the bank code and message, the status, secrets redacted', () => {
		const failure = bankFailure(
			{ response: { status: 400, data: { error: { exception: 'InvalidParameterException', message: 'token abc.def.ghi is bad' } } } },
			{ operation: 'Get trades', secrets: ['abc.def.ghi'] },
		);
		expect(failure).toBeInstanceOf(BankFailure);
		expect(failure.message).toBe('Get trades: token [redacted] is bad');
		expect(failure.body).toMatchObject({ code: 'InvalidParameterException', httpCode: '400' });
		expect(failure.httpCode).toBe('400');
	});
});

describe('the per-item runner', () => {
	it('stops at the first failed item with the n8n error for that item', async () => {
		const run = runForEachItem(context(3, false), async (i) => {
			if (i === 1) throw new InputError('Trade ID: must not be empty');
			return [{ json: { i }, pairedItem: { item: i } }];
		});
		await expect(run).rejects.toBeInstanceOf(NodeOperationError);
		await expect(run).rejects.toMatchObject({ message: 'Trade ID: must not be empty', context: { itemIndex: 1 } });
	});

	it('with Continue On Fail, gives the failed item its message and description and goes on', async () => {
		const out = await runForEachItem(context(3, true), async (i) => {
			if (i === 1) throw new BankFailure('Get trade: not found', { body: { message: 'not found' }, description: 'HTTP status: 404' });
			return [{ json: { i }, pairedItem: { item: i } }];
		});
		expect(out).toEqual([
			{ json: { i: 0 }, pairedItem: { item: 0 } },
			{ json: { error: 'Get trade: not found', description: 'HTTP status: 404' }, pairedItem: { item: 1 } },
			{ json: { i: 2 }, pairedItem: { item: 2 } },
		]);
	});

	it('makes the error item of a node that runs its items itself', () => {
		const item = failedItem(context(1, true), new InputError('Invalid payment: amount'), 4);
		expect(item.json).toEqual({ error: 'Invalid payment: amount' });
		expect(item.error).toBeInstanceOf(NodeOperationError);
		expect(item.pairedItem).toEqual({ item: 4 });
	});
});

describe('the layout', () => {
	it('builds n8n errors in nodes/shared/common/errors.ts only, and never rewrites an error message', () => {
		const offenders = productFiles
			.filter((file) => !file.endsWith(path.join('nodes', 'shared', 'common', 'errors.ts')))
			.filter((file) => /new (NodeApiError|NodeOperationError)\(|\.message = /.test(readFileSync(file, 'utf8')))
			.map((file) => path.relative(root, file));
		expect(offenders).toEqual([]);
	});

	it("gives every action node a router, and each operation file both its description and its execute", () => {
		const nodeDirs = readdirSync(path.join(root, 'nodes')).filter((d) => d !== 'shared');
		const withActions = nodeDirs.filter((d) => {
			try {
				return statSync(path.join(root, 'nodes', d, 'actions')).isDirectory();
			} catch {
				return false;
			}
		});
		expect(withActions).toEqual(
			expect.arrayContaining(['BankFile', 'BankMockService', 'CorporateFileService', 'FxTradeExecution', 'FxTradeReport']),
		);
		const operations: string[] = [];
		for (const dir of withActions) {
			const actions = path.join(root, 'nodes', dir, 'actions');
			expect(readdirSync(actions)).toContain('router.ts');
			for (const file of readdirSync(actions).filter((f) => f.endsWith('.operation.ts'))) {
				const source = readFileSync(path.join(actions, file), 'utf8');
				expect([file, /export const description\b/.test(source)]).toEqual([file, true]);
				expect([file, /export (const execute\b|(async )?function execute\b)/.test(source)]).toEqual([file, true]);
				operations.push(`${dir}/${file}`);
			}
		}
		// Operations two nodes run (the FX ones, which the Bank Mock Service runs too) live under
		// nodes/shared, with the same shape.
		for (const dir of ['report', 'execution']) {
			const shared = path.join(root, 'nodes', 'shared', 'fx', dir);
			for (const file of readdirSync(shared).filter((f) => f.endsWith('.operation.ts'))) {
				const source = readFileSync(path.join(shared, file), 'utf8');
				expect([file, /export const description\b/.test(source)]).toEqual([file, true]);
				expect([file, /export (const execute\b|(async )?function execute\b)/.test(source)]).toEqual([file, true]);
				operations.push(`shared/fx/${dir}/${file}`);
			}
		}
		expect(operations.length).toBeGreaterThanOrEqual(14);
	});
});
