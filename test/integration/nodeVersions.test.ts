/**
 * Workflows saved with version 1 of the EBICS and Corporate File Service nodes (copies of the
 * examples as released, test/harness/workflows/v1-*.json) run unchanged through n8n's engine
 * against the sandbox bank, and the examples in version 2 (resources) run the same operations:
 * each node gives as many items of the same shape, and the bank records requests of the same shape.
 */
import path from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { clearTokenMemo } from '../../nodes/shared/transport/token';
import type { RunResult } from '../harness/engine';
import { useSandbox } from '../helpers/bank';
import { bankRecords, ebicsStore, ebicsValues, errorText, runEbics } from '../helpers/ebicsNode';
import { runExample } from '../helpers/examples';
import { PACKAGE } from '../helpers/nodes';

const sandbox = useSandbox({ seed: 42 });
const V1_DIR = path.resolve(__dirname, '../harness/workflows');
const VERSIONED = [`${PACKAGE}.ebics`, `${PACKAGE}.corporateFileService`];

/**
 * A value's shape: its keys and the types of its values, arrays item by item. Two runs of a
 * workflow differ in what the bank makes up each time (order and transaction ids, message ids
 * with the time, digests of those files), never in their shape.
 */
function shape(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(shape);
	if (value && typeof value === 'object')
		return Object.fromEntries(
			Object.entries(value)
				.sort(([a], [b]) => a.localeCompare(b))
				.map(([k, v]) => [k, shape(v)]),
		);
	return value === null ? 'null' : typeof value;
}

/** Each of the workflow's package nodes: its items (the JSON's shape, the binary fields' types). */
function outputs(result: RunResult & { workflow: { nodes: Array<{ name: string; type: string }> } }): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const node of result.workflow.nodes.filter((n) => n.type.startsWith(`${PACKAGE}.`))) {
		out[node.name] = result.output(node.name).map((item: INodeExecutionData) => ({
			json: shape(item.json),
			binary: Object.fromEntries(Object.entries(item.binary ?? {}).map(([k, b]) => [k, b.mimeType])),
		}));
	}
	return out;
}

/** What the bank received: its EBICS orders (type, phase, return codes) and its file service calls. */
function requests(): { ebics: unknown[]; soap: unknown[]; stats: unknown } {
	const bank = sandbox.bank();
	return {
		ebics: bankRecords(bank),
		soap: bank.stats.soapCalls.map((c) => [c.operation, c.command, c.responseCode, c.signature]),
		stats: shape(bank.stats),
	};
}

describe('workflows saved with version 1 run unchanged; version 2 runs the same operations', () => {
	it.each(['ebics-statements.json', 'ebics-payments.json', 'ebics-approve.json', 'file-service-statements.json'])('%s', async (file) => {
		const saved = await runExample(`v1-${file}`, sandbox.bank(), V1_DIR);
		const versioned = saved.workflow.nodes.filter((n) => VERSIONED.includes(n.type));
		expect(versioned.length).toBeGreaterThan(0);
		for (const node of versioned) {
			expect([node.name, node.typeVersion, node.parameters.resource]).toEqual([node.name, 1, undefined]);
			expect(saved.nodeError(node.name)).toBeUndefined();
		}
		expect(saved.status).toBe('success');
		const savedRequests = requests();
		expect(savedRequests.ebics.length + savedRequests.soap.length).toBeGreaterThan(0);
		const savedOutputs = outputs(saved);

		sandbox.bank().resetAll();
		clearTokenMemo();
		const example = await runExample(file, sandbox.bank());
		for (const node of example.workflow.nodes.filter((n) => VERSIONED.includes(n.type))) {
			expect([node.name, node.typeVersion, typeof node.parameters.resource]).toEqual([node.name, 2, 'string']);
		}
		expect(example.status).toBe('success');
		expect(outputs(example)).toEqual(savedOutputs);
		expect(requests()).toEqual(savedRequests);
	});
});

describe('one operation in either version', () => {
	const values = () => ebicsValues(sandbox.bank());

	it('Bank → Get Versions (HEV) in version 2 gives what Get Bank Versions (HEV) gives in version 1', async () => {
		const v1 = await runEbics(ebicsStore(values()), { operation: 'bankVersions' });
		const v2 = await runEbics(ebicsStore(values()), { resource: 'bank', operation: 'bankVersions' }, undefined, { typeVersion: 2 });
		expect(v1.status).toBe('success');
		expect(v2.status).toBe('success');
		const json = (r: RunResult) => r.output('Bank').map((i) => i.json as IDataObject);
		expect(json(v1).map((v) => v.protocol)).toEqual(expect.arrayContaining(['H005']));
		expect(json(v2)).toEqual(json(v1));
	});

	it('version 2 refuses an operation its resource does not list, naming both, before anything is sent', async () => {
		const before = JSON.stringify(sandbox.bank().stats);
		const result = await runEbics(ebicsStore(values()), { resource: 'bank', operation: 'download' }, undefined, { typeVersion: 2 });
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(/^Operation: "download" is not an operation of the resource Bank; choose one of Get Versions \(HEV\), /);
		expect(JSON.stringify(sandbox.bank().stats)).toBe(before);
	});
});
