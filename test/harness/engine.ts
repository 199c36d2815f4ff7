/**
 * Runs workflow JSON through n8n's real execution engine (WorkflowExecute
 * from n8n-core), with our node types, credential types and a credential
 * store, and returns what happened.
 */
import './logger';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	UnexpectedError,
	Workflow,
	createRunExecutionData,
	type ExecutionBaseError,
	type ICredentialType,
	type IConnections,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type IRun,
	type IRunData,
	type IVersionedNodeType,
	type IWorkflowBase,
	type IWorkflowSettings,
} from 'n8n-workflow';
import { readFileSync } from 'node:fs';

import {
	HarnessCredentialsHelper,
	createCredentialStore,
	type CredentialStore,
} from './credentials';
import { logMark, logsSince, withConsoleCaptured } from './logger';
import { HarnessNodeTypes, MANUAL_TRIGGER_TYPE } from './node-types';
import { createAdditionalData, useBinaryDataMode, type BinaryDataMode } from './runtime';

export {
	createCredentialStore,
	HarnessCredentialsHelper,
	type CredentialInput,
	type CredentialStore,
	type StoredCredential,
} from './credentials';
export { allLogs, recordingLogger } from './logger';
export { HarnessNodeTypes, MANUAL_TRIGGER_TYPE, NO_OP_TYPE, STICKY_NOTE_TYPE } from './node-types';
export { binaryDataStoragePath, useBinaryDataMode, type BinaryDataMode } from './runtime';

/** The time zone of a harness workflow that names none. */
export const HARNESS_TIMEZONE = 'UTC';

/** Workflow JSON as the n8n editor exports it (extra fields are ignored). */
export interface HarnessWorkflow {
	id?: string;
	name?: string;
	nodes: INode[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	staticData?: IDataObject | null;
}

/** One node of a chain: a name, a type, its parameters. */
export interface ChainStep {
	name: string;
	type: string;
	parameters: IDataObject;
}

/**
 * Manual Trigger -> the steps, each connected to the next. `credentials` gives the credentials of
 * the steps of a node type (by type).
 */
export function chainWorkflow(steps: ChainStep[], credentials: Record<string, INode['credentials']> = {}): HarnessWorkflow {
	const nodes: INode[] = [
		{ id: 'start', name: 'Start', type: MANUAL_TRIGGER_TYPE, typeVersion: 1, position: [0, 0], parameters: {} },
		...steps.map((step, index) => ({
			id: `n${index}`,
			name: step.name,
			type: step.type,
			typeVersion: 1,
			position: [200 * (index + 1), 0] as [number, number],
			parameters: step.parameters as INode['parameters'],
			...(credentials[step.type] ? { credentials: credentials[step.type] } : {}),
		})),
	];
	const connections: IConnections = {};
	for (let i = 0; i < nodes.length - 1; i++) connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { nodes, connections };
}

export interface RunWorkflowOptions {
	workflow: HarnessWorkflow;
	/** Node type name -> instance, e.g. `{ 'n8n-nodes-corporate-banking.fxTradeReport': new FxTradeReport() }`. */
	nodeTypes: Record<string, INodeType | IVersionedNodeType>;
	credentialTypes?: ICredentialType[];
	credentials?: CredentialStore;
	/** 'filesystem': binary data goes to files under a temp folder, as in n8n 2.x by default. */
	binaryDataMode?: BinaryDataMode;
	/** Items the Manual Trigger start node emits (default: one empty item). */
	inputItems?: INodeExecutionData[];
	/** Name of the node to start from (default: the Manual Trigger, else n8n's choice). */
	startNode?: string;
}

export type NodeRunError = Error & { description?: string; httpCode?: string; context?: object };

export interface RunResult {
	status: 'success' | 'error';
	/** The run's error: resultData.error, else the first error found in runData. */
	error?: ExecutionBaseError | Error;
	/** Items a node emitted on an output. Throws if the node never ran (the message lists the run's errors). */
	output(nodeName: string, outputIndex?: number, runIndex?: number): INodeExecutionData[];
	/** The error a node failed with, if any. */
	nodeError(nodeName: string): NodeRunError | undefined;
	/** Names of the nodes that ran, in order of their first run. */
	executedNodes(): string[];
	runData: IRunData;
	raw: IRun;
	/** Everything n8n's loggers, the nodes' `this.logger` and `console` received during the run. */
	logs: string[];
}

let executionCounter = 0;

/** Reads a workflow exported from the n8n editor (Download / copy to a .json file). */
export function loadWorkflow(file: string): HarnessWorkflow {
	return JSON.parse(readFileSync(file, 'utf8')) as HarnessWorkflow;
}

function pickStartNode(workflow: Workflow, requested?: string): INode {
	if (requested !== undefined) {
		const node = workflow.getNode(requested);
		if (!node) throw new UnexpectedError(`Start node "${requested}" is not in the workflow`);
		return node;
	}
	const manual = Object.values(workflow.nodes).find(
		(n) => n.type === MANUAL_TRIGGER_TYPE && !n.disabled,
	);
	const node = manual ?? workflow.getStartNode();
	if (!node) throw new UnexpectedError('The workflow has no start node');
	return node;
}

function firstError(runData: IRunData): ExecutionBaseError | undefined {
	for (const runs of Object.values(runData)) {
		for (const task of runs) if (task.error) return task.error;
	}
	return undefined;
}

function describeErrors(runData: IRunData, raw: IRun): string {
	const errors: string[] = [];
	const top = raw.data.resultData.error;
	if (top) errors.push(`workflow: ${top.message}`);
	for (const [name, runs] of Object.entries(runData)) {
		for (const task of runs) if (task.error) errors.push(`${name}: ${task.error.message}`);
	}
	return errors.length ? errors.join('; ') : 'none';
}

export async function runWorkflow(opts: RunWorkflowOptions): Promise<RunResult> {
	await useBinaryDataMode(opts.binaryDataMode ?? 'default');

	const nodeTypes = new HarnessNodeTypes(opts.nodeTypes);
	const store = opts.credentials ?? createCredentialStore([]);
	const credentialsHelper = new HarnessCredentialsHelper(store, opts.credentialTypes ?? []);

	// The Workflow writes parameter defaults into the nodes: work on a copy.
	const nodes = structuredClone(opts.workflow.nodes);
	const connections = structuredClone(opts.workflow.connections);
	const workflowId = opts.workflow.id ?? 'harness-workflow';
	// n8n reads dates in the workflow's time zone and falls back to its own default
	// (America/New_York). The harness runs workflows in UTC, the sandbox bank's zone, so "today"
	// in a test is the bank's today at every hour; a test of another zone sets it in the settings.
	const settings: IWorkflowSettings = { timezone: HARNESS_TIMEZONE, ...opts.workflow.settings };
	const workflow = new Workflow({
		id: workflowId,
		name: opts.workflow.name ?? 'Harness workflow',
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings,
		staticData: opts.workflow.staticData ? structuredClone(opts.workflow.staticData) : undefined,
	});

	const executionId = String(++executionCounter);
	const workflowData: IWorkflowBase = {
		id: workflowId,
		name: workflow.name ?? '',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes,
		connections,
		settings,
	};
	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowData);
	let finished: IRun | undefined;
	hooks.addHandler('workflowExecuteAfter', (run) => {
		finished = run;
	});

	const additionalData = createAdditionalData({
		credentialsHelper,
		workflowId,
		executionId,
		hooks,
	});
	const startNode = pickStartNode(workflow, opts.startNode);
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: startNode, data: { main: [opts.inputItems ?? [{ json: {} }]] }, source: null },
			],
		},
	});

	const mark = logMark();
	const returned = await withConsoleCaptured(
		async () =>
			await new WorkflowExecute(additionalData, 'manual', runExecutionData).processRunExecutionData(
				workflow,
			),
	);
	const raw = finished ?? returned;
	const runData = raw.data.resultData.runData;
	const error = raw.data.resultData.error ?? firstError(runData);

	return {
		status: raw.status === 'success' && error === undefined ? 'success' : 'error',
		error,
		output(nodeName, outputIndex = 0, runIndex = 0) {
			const runs = runData[nodeName];
			if (runs === undefined) {
				throw new UnexpectedError(
					`Node "${nodeName}" did not run. Ran: ${Object.keys(runData).join(', ') || 'nothing'}. Errors: ${describeErrors(runData, raw)}`,
				);
			}
			const task = runs[runIndex];
			if (task === undefined)
				throw new UnexpectedError(`Node "${nodeName}" has no run ${runIndex}`);
			return task.data?.main?.[outputIndex] ?? [];
		},
		nodeError(nodeName) {
			return runData[nodeName]?.find((task) => task.error)?.error as NodeRunError | undefined;
		},
		executedNodes() {
			return Object.entries(runData)
				.sort(([, a], [, b]) => (a[0]?.executionIndex ?? 0) - (b[0]?.executionIndex ?? 0))
				.map(([name]) => name);
		},
		runData,
		raw,
		logs: logsSince(mark),
	};
}
