/**
 * Runs a polling trigger the way an active n8n workflow does.
 *
 * n8n keeps one Workflow instance per active workflow; its static data lives
 * in memory between polls. When a poll returns items, n8n starts an execution
 * and saves the static data to the database, but only if it changed
 * (`workflow.staticData.__dataChanged`). A poll that returns null saves
 * nothing, though what it changed stays in memory and is saved with the next
 * poll that emits. After a restart the workflow starts again from the saved
 * copy. The editor's "Fetch Test Event" runs the poll in 'manual' mode on a
 * separate Workflow built from the saved data and saves nothing.
 *
 * Here `poll()` is n8n's PollContext run through n8n-core's
 * PollTriggerExecutor and TriggersAndPollers; `__emit` plays the part of
 * the CLI's (save static data if changed, record the items).
 */
import './logger';

import { Container } from '@n8n/di';
import { PollContext, PollTriggerExecutor, TriggersAndPollers } from 'n8n-core';
import {
	UnexpectedError,
	Workflow,
	type ICredentialType,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeType,
	type IVersionedNodeType,
	type WorkflowActivateMode,
} from 'n8n-workflow';

import {
	HarnessCredentialsHelper,
	createCredentialStore,
	type CredentialStore,
} from './credentials';
import { logMark, logsSince, withConsoleCaptured } from './logger';
import { HarnessNodeTypes } from './node-types';
import { createAdditionalData, useBinaryDataMode, type BinaryDataMode } from './runtime';

export interface PollHarnessOptions {
	/** The trigger node as it appears in workflow JSON. */
	node: INode;
	nodeType: INodeType | IVersionedNodeType;
	credentialTypes?: ICredentialType[];
	credentials?: CredentialStore;
	/** Saved static data of the whole workflow, as n8n stores it: `{ 'node:<name>': {...} }`. */
	staticData?: IDataObject;
	workflowId?: string;
	/** Activation mode the polls report (default 'activate'; `reload()` uses 'init', like an n8n restart). */
	activation?: WorkflowActivateMode;
	binaryDataMode?: BinaryDataMode;
	/**
	 * Save changed static data after the first poll (the activation poll) succeeded, even when it
	 * returned null, as n8n's ActiveWorkflowManager.add does once the triggers are registered.
	 * Off by default: a harness then saves only when a poll emits.
	 */
	saveAfterActivation?: boolean;
}

export interface PollHarness {
	/** One scheduled poll ('trigger' mode). Static data stays in memory; it is saved only when items are returned and it changed. */
	poll(): Promise<INodeExecutionData[][] | null>;
	/** The editor's "Fetch Test Event" ('manual' mode), on a copy of the saved data: nothing is kept. */
	pollManual(): Promise<INodeExecutionData[][] | null>;
	/** The saved copy of the workflow's static data (what n8n would have in its database). */
	staticData(): IDataObject;
	/** The saved static data of this node (`staticData()['node:<name>']`, or {}). */
	savedNodeStaticData(): IDataObject;
	/** The in-memory static data of the running workflow. */
	liveStaticData(): IDataObject;
	/** The in-memory static data of this node. */
	liveNodeStaticData(): IDataObject;
	/** A new harness started from the saved static data (or `saved`): an n8n restart. */
	reload(saved?: IDataObject): PollHarness;
	/** How many times the static data was saved. */
	readonly saves: number;
	/** Items of every poll that emitted, in order. */
	readonly emitted: INodeExecutionData[][][];
	readonly credentials: CredentialStore;
	/** Everything logged by this harness's polls. */
	readonly logs: string[];
}

/** Plain copy without the observable wrappers and the `__dataChanged` marker. */
function plain(data: IDataObject): IDataObject {
	return JSON.parse(JSON.stringify(data ?? {})) as IDataObject;
}

function nodeKey(node: INode): string {
	return `node:${node.name}`;
}

export function createPollHarness(opts: PollHarnessOptions): PollHarness {
	const nodeTypes = new HarnessNodeTypes({ [opts.node.type]: opts.nodeType });
	const credentials = opts.credentials ?? createCredentialStore([]);
	const credentialsHelper = new HarnessCredentialsHelper(credentials, opts.credentialTypes ?? []);
	const workflowId = opts.workflowId ?? 'harness-poll-workflow';
	const activation = opts.activation ?? 'activate';

	let saved = plain(opts.staticData ?? {});
	let saves = 0;
	const emitted: INodeExecutionData[][][] = [];
	const logs: string[] = [];

	const buildWorkflow = (staticData: IDataObject, active: boolean) =>
		new Workflow({
			id: workflowId,
			name: 'Harness poll workflow',
			nodes: [structuredClone(opts.node)],
			connections: {},
			active,
			nodeTypes,
			// ObservableObject wraps the object it is given in place: hand it a copy.
			staticData: plain(staticData),
		});

	const live = buildWorkflow(saved, true);
	const liveNode = live.getNode(opts.node.name);
	if (!liveNode) throw new UnexpectedError('Poll node missing from its workflow');
	const additionalData = createAdditionalData({ credentialsHelper, workflowId });

	const last: { result: INodeExecutionData[][] | null; error?: Error } = { result: null };

	const context = new PollContext(
		live,
		liveNode,
		additionalData,
		'trigger',
		activation,
		(data) => {
			// What the CLI does when a poll emits: save changed static data, then run the workflow.
			if (live.staticData.__dataChanged === true) {
				saved = plain(live.staticData);
				live.staticData.__dataChanged = false;
				saves++;
			}
			last.result = data;
			emitted.push(data);
		},
		(error) => {
			last.error = error;
		},
	);
	let polls = 0;

	const recordLogs = async <T>(fn: () => Promise<T>): Promise<T> => {
		const mark = logMark();
		try {
			return await withConsoleCaptured(fn);
		} finally {
			logs.push(...logsSince(mark));
		}
	};

	const harness: PollHarness = {
		async poll() {
			await useBinaryDataMode(opts.binaryDataMode ?? 'default');
			last.result = null;
			last.error = undefined;
			// n8n's first poll at activation reports errors to the activator; later ones go to __emitError.
			const atActivation = polls++ === 0;
			const execute = Container.get(PollTriggerExecutor).create(
				live,
				liveNode,
				context,
				() => true,
			);
			await recordLogs(async () => await execute(atActivation));
			if (last.error) throw last.error;
			if (atActivation && opts.saveAfterActivation && live.staticData.__dataChanged === true) {
				saved = plain(live.staticData);
				live.staticData.__dataChanged = false;
				saves++;
			}
			return last.result;
		},

		async pollManual() {
			await useBinaryDataMode(opts.binaryDataMode ?? 'default');
			const testWorkflow = buildWorkflow(saved, false);
			const testNode = testWorkflow.getNode(opts.node.name);
			if (!testNode) throw new UnexpectedError('Poll node missing from its workflow');
			const manualContext = new PollContext(
				testWorkflow,
				testNode,
				createAdditionalData({ credentialsHelper, workflowId }),
				'manual',
				'manual',
			);
			return await recordLogs(
				async () =>
					await Container.get(TriggersAndPollers).runPollFunction(
						testWorkflow,
						testNode,
						manualContext,
					),
			);
		},

		staticData: () => plain(saved),
		savedNodeStaticData: () => plain((saved[nodeKey(opts.node)] as IDataObject | undefined) ?? {}),
		liveStaticData: () => plain(live.staticData),
		liveNodeStaticData: () => plain(live.getStaticData('node', liveNode)),

		reload(from) {
			return createPollHarness({
				...opts,
				credentials,
				staticData: from ?? saved,
				activation: opts.activation ?? 'init',
			});
		},

		get saves() {
			return saves;
		},
		get emitted() {
			return emitted;
		},
		credentials,
		logs,
	};
	return harness;
}
