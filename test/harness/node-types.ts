/**
 * The node types a harness run knows about: the project's nodes given by the
 * test, plus small stand-ins for the n8n-nodes-base nodes that workflows
 * exported from the editor usually contain (Manual Trigger, No Op, sticky
 * notes, Edit Fields in JSON mode, Split Out, Read Files from Disk), so that those workflows run
 * unchanged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

import { DirectoryLoader } from 'n8n-core';
import {
	commonCORSParameters,
	commonPollingParameters,
} from 'n8n-core/dist/nodes-loader/constants';
import {
	NodeConnectionTypes,
	NodeHelpers,
	UnexpectedError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type INodeTypes,
	type IVersionedNodeType,
} from 'n8n-workflow';

export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';
export const NO_OP_TYPE = 'n8n-nodes-base.noOp';
export const STICKY_NOTE_TYPE = 'n8n-nodes-base.stickyNote';
export const SET_TYPE = 'n8n-nodes-base.set';
export const SPLIT_OUT_TYPE = 'n8n-nodes-base.splitOut';
export const READ_WRITE_FILE_TYPE = 'n8n-nodes-base.readWriteFile';

/**
 * A node type description for a test node: one main input and output, version 1, the display
 * name as its description and default name; `extra` overrides any of it.
 */
export function nodeDescription(
	name: string,
	displayName: string,
	extra: Partial<INodeTypeDescription> = {},
): INodeTypeDescription {
	return {
		displayName,
		name,
		group: ['transform'],
		version: 1,
		description: displayName,
		defaults: { name: displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
		...extra,
	};
}

/** The versions n8n's own nodes declare, unless a stand-in names its own. */
function baseDescription(
	name: string,
	displayName: string,
	extra: Partial<INodeTypeDescription>,
): INodeTypeDescription {
	return nodeDescription(name, displayName, { version: [1, 1.1, 2], ...extra });
}

/**
 * Stand-in for n8n's Manual Trigger. The run puts the start items on the
 * execution stack; this node emits them unchanged (one empty item by default).
 */
export class HarnessManualTrigger implements INodeType {
	description = baseDescription(MANUAL_TRIGGER_TYPE, 'When clicking ‘Execute workflow’', {
		group: ['trigger'],
		inputs: [],
		eventTriggerDescription: '',
		maxNodes: 1,
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/** Stand-in for n8n's No Operation node: passes its input through. */
export class HarnessNoOp implements INodeType {
	description = baseDescription(NO_OP_TYPE, 'No Operation, do nothing', {});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/** Sticky notes are never executed; they only need to be a known type. */
export class HarnessStickyNote implements INodeType {
	description = baseDescription(STICKY_NOTE_TYPE, 'Sticky Note', {
		group: ['input'],
		inputs: [],
		outputs: [],
		properties: [
			{ displayName: 'Content', name: 'content', type: 'string', default: '' },
			{ displayName: 'Height', name: 'height', type: 'number', default: 160 },
			{ displayName: 'Width', name: 'width', type: 'number', default: 240 },
			{ displayName: 'Color', name: 'color', type: 'number', default: 1 },
		],
	});
}

/**
 * Stand-in for n8n's Edit Fields (Set) node in its "JSON" mode (`mode: 'raw'`): each item becomes
 * the JSON the (already resolved) `jsonOutput` parameter holds. Other modes are not supported.
 */
export class HarnessSet implements INodeType {
	description = baseDescription(SET_TYPE, 'Edit Fields (Set)', {
		version: [3, 3.1, 3.2, 3.3, 3.4],
		properties: [
			{ displayName: 'Mode', name: 'mode', type: 'options', options: [{ name: 'JSON', value: 'raw' }], default: 'raw' },
			{ displayName: 'JSON', name: 'jsonOutput', type: 'json', default: '{}' },
			{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [] },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, i) => {
				if (this.getNodeParameter('mode', i) !== 'raw') throw new UnexpectedError('The harness Set stand-in supports only JSON mode');
				const value = this.getNodeParameter('jsonOutput', i) as unknown;
				const json = (typeof value === 'string' ? JSON.parse(value) : value) as IDataObject;
				return { json, pairedItem: { item: i } };
			}),
		];
	}
}

/** Stand-in for n8n's Split Out node: one item per element of the array field (objects become the item). */
export class HarnessSplitOut implements INodeType {
	description = baseDescription(SPLIT_OUT_TYPE, 'Split Out', {
		version: 1,
		properties: [
			{ displayName: 'Field To Split Out', name: 'fieldToSplitOut', type: 'string', default: '' },
			{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [] },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		this.getInputData().forEach((item, i) => {
			const field = this.getNodeParameter('fieldToSplitOut', i) as string;
			const values = item.json[field];
			for (const value of Array.isArray(values) ? values : [values]) {
				out.push({ json: value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as IDataObject) : { [field]: value as IDataObject }, pairedItem: { item: i } });
			}
		});
		return [out];
	}
}

/**
 * Stand-in for n8n's Read/Write Files from Disk node, reading only: every file of a folder whose
 * name matches the selector's last part (`*` for any characters), in name order, one item each with
 * the file in the binary field `data`. (n8n's own node also applies n8n's allowed folders; the
 * end-to-end tests run that one.)
 */
export class HarnessReadFiles implements INodeType {
	description = baseDescription(READ_WRITE_FILE_TYPE, 'Read/Write Files from Disk', {
		version: [1, 1.1],
		properties: [
			{ displayName: 'File(s) Selector', name: 'fileSelector', type: 'string', default: '' },
			{ displayName: 'Options', name: 'options', type: 'collection', default: {}, options: [] },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			const selector = this.getNodeParameter('fileSelector', i) as string;
			const folder = dirname(selector);
			const escaped = basename(selector).replace(/[.+?^${}()|[\]\\]/g, '\\$&');
			const pattern = new RegExp(`^${escaped.replace(/\*/g, '.*')}$`);
			for (const name of readdirSync(folder).filter((n) => pattern.test(n)).sort()) {
				const file = join(folder, name);
				const data = await this.helpers.prepareBinaryData(readFileSync(file), file);
				out.push({ json: { fileName: data.fileName, fileSize: data.fileSize }, binary: { data }, pairedItem: { item: i } });
			}
		}
		return [out];
	}
}

export function builtinNodeTypes(): Record<string, INodeType> {
	return {
		[MANUAL_TRIGGER_TYPE]: new HarnessManualTrigger(),
		[NO_OP_TYPE]: new HarnessNoOp(),
		[STICKY_NOTE_TYPE]: new HarnessStickyNote(),
		[SET_TYPE]: new HarnessSet(),
		[SPLIT_OUT_TYPE]: new HarnessSplitOut(),
		[READ_WRITE_FILE_TYPE]: new HarnessReadFiles(),
	};
}

const prepared = new WeakSet<INodeTypeDescription>();

/**
 * What n8n's node loader adds to a node type when it loads a package: the
 * "Poll Times" parameter of polling nodes, the CORS option of webhooks and
 * the request options of declarative nodes. Done once per description.
 */
function applyLoaderParameters(nodeType: INodeType): void {
	const { description } = nodeType;
	if (prepared.has(description)) return;
	prepared.add(description);
	if (description.polling)
		description.properties.unshift(...structuredClone(commonPollingParameters));
	if (nodeType.webhook && description.supportsCORS) {
		const options = description.properties.find(({ name }) => name === 'options');
		if (options)
			options.options = [...structuredClone(commonCORSParameters), ...(options.options ?? [])];
		else description.properties.push(...structuredClone(commonCORSParameters));
	}
	DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
}

/** INodeTypes over a plain map; versioned node types resolve to the requested version. */
export class HarnessNodeTypes implements INodeTypes {
	private readonly types: Record<string, INodeType | IVersionedNodeType>;

	constructor(types: Record<string, INodeType | IVersionedNodeType>) {
		this.types = { ...builtinNodeTypes(), ...types };
		for (const type of Object.values(this.types)) {
			if ('nodeVersions' in type) Object.values(type.nodeVersions).forEach(applyLoaderParameters);
			else applyLoaderParameters(type);
		}
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (type === undefined) {
			throw new UnexpectedError(`Unknown node type "${nodeType}": pass it in nodeTypes`, {
				extra: { known: Object.keys(this.types) },
			});
		}
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		const known: IDataObject = {};
		for (const name of Object.keys(this.types)) {
			known[name] = { className: this.types[name].constructor.name, sourcePath: '' };
		}
		return known;
	}
}
