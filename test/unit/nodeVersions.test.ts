/**
 * The EBICS and Corporate File Service nodes in two versions, as n8n keeps a node's versions:
 * version 1 (one Operation list) exactly as workflows saved with it know it, version 2 (the
 * operations in resources, each an action of n8n's node panel) showing, for each operation, the
 * very fields version 1 shows. The Bank File's operations are actions of the panel too. The canvas
 * subtitle is the chosen operation's name, evaluated as n8n's editor evaluates it.
 */
import type {
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
	INodeTypeDescription,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { BankFile } from '../../nodes/BankFile/BankFile.node';
import { CorporateFileService } from '../../nodes/CorporateFileService/CorporateFileService.node';
import { Ebics } from '../../nodes/Ebics/Ebics.node';
import { HarnessNodeTypes } from '../harness/engine';

/** The operation values of version 1, from the Operation list of the node as it was released. */
const V1_OPERATIONS = {
	ebics: [
		'changeKeys',
		'veuCancel',
		'veuDetails',
		'veuTransactions',
		'veuOrders',
		'veuSign',
		'download',
		'availableDownloads',
		'bankParameters',
		'bankVersions',
		'customerAcknowledgement',
		'customerData',
		'customerProtocol',
		'subscriberPermissions',
		'initialisationLetters',
		'suspend',
		'upload',
	],
	corporateFileService: ['deleteFile', 'downloadFile', 'getBankCertificates', 'getUserInfo', 'downloadFileList', 'renewCertificate', 'uploadFile'],
};

/** The resources the issue asks for, each with the operations it holds. */
const RESOURCES = {
	ebics: {
		order: ['download', 'upload'],
		distributedSignature: ['veuOrders', 'veuDetails', 'veuTransactions', 'veuSign', 'veuCancel'],
		subscriber: ['initialisationLetters', 'changeKeys', 'suspend', 'subscriberPermissions', 'customerData'],
		bank: ['bankVersions', 'bankParameters', 'availableDownloads', 'customerAcknowledgement', 'customerProtocol'],
	},
	corporateFileService: {
		file: ['uploadFile', 'downloadFileList', 'downloadFile', 'deleteFile'],
		user: ['getUserInfo'],
		certificate: ['getBankCertificates', 'renewCertificate'],
	},
} as Record<string, Record<string, string[]>>;

const NODES: Array<[keyof typeof V1_OPERATIONS, IVersionedNodeType]> = [
	['ebics', new Ebics()],
	['corporateFileService', new CorporateFileService()],
];

const TYPE = (name: string) => `n8n-nodes-corporate-banking.${name}`;

function descriptionOf(node: IVersionedNodeType, version: number): INodeTypeDescription {
	return node.getNodeType(version).description;
}

/** The Operation parameters of a description (one per resource in version 2). */
const operationParameters = (d: INodeTypeDescription) => d.properties.filter((p) => p.name === 'operation');
const optionsOf = (p: INodeProperties) => p.options as INodePropertyOptions[];

/** The names of the fields n8n shows for these values, as the editor decides it. */
function shownFields(d: INodeTypeDescription, values: INodeParameters): string[] {
	const node: INode = { id: '1', name: 'n', type: TYPE(d.name), typeVersion: d.version as number, position: [0, 0], parameters: values };
	const full = NodeHelpers.getNodeParameters(d.properties, values, true, false, node, d) ?? {};
	return d.properties
		.filter((p) => p.type !== 'hidden' && NodeHelpers.displayParameter(full, p, node, d))
		.map((p) => `${p.name}:${p.type}`);
}

/** The canvas subtitle of a node with these parameters, evaluated as n8n's editor evaluates it. */
function subtitle(node: IVersionedNodeType, version: number, parameters: INodeParameters): unknown {
	const d = descriptionOf(node, version);
	const workflowNode: INode = { id: '1', name: 'n', type: TYPE(d.name), typeVersion: version, position: [0, 0], parameters };
	const workflow = new Workflow({
		nodes: [workflowNode],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ [TYPE(d.name)]: node }),
	});
	return workflow.expression.getSimpleParameterValue(workflowNode, d.subtitle!, 'internal', {});
}

describe.each(NODES)('%s: version 1 kept, version 2 in resources', (name, node) => {
	const v1 = descriptionOf(node, 1);
	const v2 = descriptionOf(node, 2);

	it('n8n loads both versions; a new node gets version 2, a saved node the version it names', () => {
		expect(Object.keys(node.nodeVersions).map(Number)).toEqual([1, 2]);
		expect(node.description.defaultVersion).toBe(2);
		expect(node.getNodeType().description.version).toBe(2);
		expect(node.getNodeType(1).description.version).toBe(1);
		for (const d of [v1, v2]) {
			expect(d.name).toBe(name);
			expect(d.icon).toEqual(node.description.icon);
			expect(d.credentials).toEqual(v1.credentials);
			expect(d.usableAsTool).toBe(true);
		}
	});

	it('version 1 keeps its one Operation list with every value and default of the released node', () => {
		const [operation] = operationParameters(v1);
		expect(operationParameters(v1)).toHaveLength(1);
		expect(operation.displayOptions).toBeUndefined();
		expect(optionsOf(operation).map((o) => o.value)).toEqual(V1_OPERATIONS[name]);
		expect(operation.default).toBe(name === 'ebics' ? 'download' : 'downloadFileList');
		// The node panel lists actions of the newest version only; version 1 has a resource
		// parameter listing nothing (EBICS) or none.
		expect(v1.properties.filter((p) => p.name === 'resource' && p.type === 'options')).toEqual([]);
	});

	it('version 2 holds each operation of version 1 in exactly one resource, each with an action for the node panel', () => {
		const resource = v2.properties.find((p) => p.name === 'resource')!;
		expect(resource.type).toBe('options');
		expect(optionsOf(resource).map((o) => o.value).sort()).toEqual(Object.keys(RESOURCES[name]).sort());
		const listed: string[] = [];
		for (const operation of operationParameters(v2)) {
			const [owner] = operation.displayOptions!.show!.resource as string[];
			expect(operation.displayOptions!.show!.resource).toHaveLength(1);
			const values = optionsOf(operation).map((o) => o.value as string);
			expect(values.sort()).toEqual([...RESOURCES[name][owner]].sort());
			expect(values).toContain(operation.default);
			for (const option of optionsOf(operation)) {
				expect([option.value, option.action]).toEqual([option.value, expect.stringMatching(/^[A-Z][a-z]+ \S/)]);
				expect(option.description).toBeTruthy();
			}
			listed.push(...values);
		}
		expect(listed.sort()).toEqual([...V1_OPERATIONS[name]].sort());
	});

	it('version 2 shows for each operation exactly the fields version 1 shows for it, and hides them for another resource', () => {
		for (const [resource, operations] of Object.entries(RESOURCES[name])) {
			for (const operation of operations) {
				const inV1 = shownFields(v1, { operation });
				const inV2 = shownFields(v2, { resource, operation }).filter((f) => f !== 'resource:options');
				expect([operation, inV2]).toEqual([operation, inV1]);
			}
		}
		// An operation paired with a resource that does not list it (a workflow edited by hand)
		// shows none of its own fields.
		const [resource, operations] = Object.entries(RESOURCES[name])[0];
		const other = Object.keys(RESOURCES[name]).find((r) => r !== resource)!;
		const own = shownFields(v2, { resource, operation: operations[0] });
		const elsewhere = shownFields(v2, { resource: other, operation: operations[0] });
		expect(own.filter((f) => !f.startsWith('operation:') && !f.startsWith('resource:') && !elsewhere.includes(f)).length).toBeGreaterThan(0);
	});

	it("the canvas subtitle is the chosen operation's name in either version, not its value", () => {
		const [operation] = operationParameters(v1);
		for (const option of optionsOf(operation)) expect(subtitle(node, 1, { operation: option.value })).toBe(option.name);
		for (const parameter of operationParameters(v2)) {
			const resource = (parameter.displayOptions!.show!.resource as string[])[0];
			for (const option of optionsOf(parameter)) expect(subtitle(node, 2, { resource, operation: option.value })).toBe(option.name);
		}
		// A node saved without an operation shows the default's name.
		expect(subtitle(node, 1, {})).toBe(optionsOf(operation).find((o) => o.value === operation.default)!.name);
	});
});

describe('Bank File: its operations are actions of the node panel', () => {
	const description = new BankFile().description;

	it('each operation has an action, and no resource parameter keeps the panel from listing them', () => {
		const [operation] = operationParameters(description);
		expect(optionsOf(operation).map((o) => [o.value, o.action])).toEqual([
			['parse', 'Parse a bank file into items'],
			['buildPaymentFile', 'Build a payment file from items'],
			['buildDirectDebitFile', 'Build a direct debit file from items'],
		]);
		expect(description.properties.find((p) => p.name === 'resource')).toBeUndefined();
	});
});
