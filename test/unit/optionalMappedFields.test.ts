/**
 * An optional field mapped from an input field that an item may not have (`{{ $json.bic }}`)
 * resolves to undefined, and the editor shows it as a red "[undefined]" under the field, as if
 * something were wrong. Optional fields of the package's nodes and of the examples read an absent
 * input field as empty instead (`{{ $json.bic ?? "" }}`).
 */
import type { INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { exampleFiles, loadExample, PACKAGE_NAME } from '../e2e/lib/workflows';
import { packageNodeTypes } from '../helpers/nodes';

/** An expression that is only one input field, which is undefined where the item lacks it. */
const BARE_FIELD = /^=\{\{\s*\$json(?:\.[A-Za-z_$][\w$]*|\[['"][^'"]+['"]\])+\s*\}\}$/;

const types = packageNodeTypes();

/** A node's optional string fields, of the version given or of every version it has. */
function optionalProperties(type: string, version?: number): INodeProperties[] {
	const type_ = types[type];
	const versions = version !== undefined || !('nodeVersions' in type_) ? [version] : Object.keys(type_.nodeVersions).map(Number);
	return versions.flatMap((v) =>
		NodeHelpers.getVersionedNodeType(type_, v).description.properties.filter((p) => !p.required && p.type === 'string'),
	);
}

describe('optional fields never map to undefined', () => {
	for (const [type, node] of Object.entries(types)) {
		const bare = optionalProperties(type).filter((p) => typeof p.default === 'string' && BARE_FIELD.test(p.default));
		it(`${node.description.displayName}: no optional field defaults to a bare input field`, () => {
			expect(bare.map((p) => `${p.displayName}: ${String(p.default)}`)).toEqual([]);
		});
	}

	for (const file of exampleFiles()) {
		it(`examples/${file}: no optional field is mapped to a bare input field`, () => {
			const found: string[] = [];
			for (const node of loadExample(file).nodes.filter((n) => n.type.startsWith(`${PACKAGE_NAME}.`))) {
				const optional = optionalProperties(node.type, node.typeVersion).map((p) => p.name);
				for (const [name, value] of Object.entries(node.parameters)) {
					if (optional.includes(name) && typeof value === 'string' && BARE_FIELD.test(value)) found.push(`${node.name} > ${name}: ${value}`);
				}
			}
			expect(found).toEqual([]);
		});
	}
});
