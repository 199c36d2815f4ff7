/**
 * Runs one node of the package through the real n8n engine (or its polling engine, for the
 * trigger) against the sandbox bank and gathers what a user would see: the node's error, its
 * output items, and every text to scan for secrets.
 */
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import type { CredentialStore, RunResult } from '../../harness/engine';
import { renderValue } from '../../harness/logger';
import type { PollHarness } from '../../harness/poll';
import { CC, CREDENTIAL_IDS, FILES, MTLS, sandboxCredentials } from '../../helpers/bank';
import { NODE_NAME, runNode } from '../../helpers/nodes';
import { triggerHarness as sharedTriggerHarness, triggerNode } from '../../helpers/trigger';
import type { SandboxBank } from '../../sandbox';
import { withoutExpectedAudience } from './secrets';

/** The error as the editor shows it: message, description and context. */
export interface ShownError {
	name?: string;
	message: string;
	description?: string | null;
	context?: IDataObject;
	httpCode?: string | null;
}

export interface Outcome {
	status: 'success' | 'error';
	error?: ShownError;
	/** Items of the node under test, by output (the trigger: [events, rejected] of every poll). */
	items: INodeExecutionData[][];
	/** Everything the run showed: items, errors, logs. */
	texts: Array<{ where: string; text: string }>;
	stores: CredentialStore[];
	/** Event items whose `aud` (the expected audience) was taken out of the scan. */
	excludedAudiences: number;
}

export type NodeKind = 'fxTradeReport' | 'fxTradeExecution' | 'bankMockService' | 'corporateFileService' | 'bankEventTrigger';

/** The nodes run from a Manual Trigger. */
export type ActionKind = Exclude<NodeKind, 'bankEventTrigger'>;

export const CREDENTIAL_OF: Partial<Record<NodeKind, string>> = {
	fxTradeReport: CC,
	fxTradeExecution: CC,
	corporateFileService: FILES,
	bankEventTrigger: MTLS,
};

export interface ActionOptions {
	parameters: IDataObject;
	/** Credential field overrides, by credential type. */
	credential?: Partial<Record<string, Record<string, unknown>>>;
	store?: CredentialStore;
	inputItems?: INodeExecutionData[];
	settings?: Partial<INode>;
}

function shown(error: unknown): ShownError | undefined {
	if (!error) return undefined;
	const e = error as ShownError & { context?: IDataObject };
	return { name: e.name, message: e.message, description: e.description, context: e.context, httpCode: e.httpCode };
}

export function outcomeOfRun(result: RunResult, store: CredentialStore | undefined, label: string): Outcome {
	const runs = result.runData[NODE_NAME] ?? [];
	const items = runs[0]?.data?.main?.map((output) => output ?? []) ?? [];
	return {
		status: result.status,
		error: shown(result.nodeError(NODE_NAME) ?? result.error),
		items,
		texts: [
			{ where: `${label}: run data (items and errors)`, text: renderValue(result.raw.data.resultData) },
			{ where: `${label}: logs`, text: result.logs.join('\n') },
		],
		stores: store ? [store] : [],
		excludedAudiences: 0,
	};
}

/** Manual Trigger -> the node, with the sandbox's credentials (plus overrides). */
export async function runAction(bank: SandboxBank, type: ActionKind, options: ActionOptions): Promise<Outcome> {
	const credentialType = CREDENTIAL_OF[type];
	const store = credentialType ? (options.store ?? sandboxCredentials(bank, options.credential ?? {})) : undefined;
	const parameters =
		type === 'bankMockService'
			? { mockBaseUrl: bank.urls.mockBase, connection: { caCertificate: bank.tls.caPem }, ...options.parameters }
			: options.parameters;
	const result = await runNode({
		type,
		parameters,
		credentials: credentialType ? { [credentialType]: CREDENTIAL_IDS[credentialType as keyof typeof CREDENTIAL_IDS] } : {},
		store,
		inputItems: options.inputItems,
		settings: options.settings,
		binaryDataMode: type === 'corporateFileService' ? 'filesystem' : undefined,
	});
	return outcomeOfRun(result, store, type);
}

export interface TriggerOptions {
	parameters?: IDataObject;
	credential?: Record<string, unknown>;
	/** 'trigger': scheduled polls of an active workflow; 'manual': the editor's Fetch Test Event. */
	mode?: 'trigger' | 'manual';
	/** How many scheduled polls (trigger mode). */
	polls?: number;
	/** Called before each poll (arm faults, queue events). */
	beforePoll?: (poll: number) => void;
}

export function triggerHarness(bank: SandboxBank, options: TriggerOptions = {}, store?: CredentialStore): PollHarness {
	return sharedTriggerHarness(bank, { parameters: options.parameters, credential: options.credential, store, name: NODE_NAME });
}

/** Runs the Bank Event Trigger: one or more scheduled polls, or one Fetch Test Event. */
export async function runTrigger(bank: SandboxBank, options: TriggerOptions = {}): Promise<Outcome & { harness: PollHarness }> {
	const harness = triggerHarness(bank, options);
	const audience = String(triggerNode(bank, options.parameters, NODE_NAME).parameters.audience);
	const events: INodeExecutionData[] = [];
	const rejected: INodeExecutionData[] = [];
	let error: unknown;
	const polls = options.mode === 'manual' ? 1 : (options.polls ?? 1);
	for (let i = 0; i < polls && !error; i++) {
		options.beforePoll?.(i);
		try {
			const result = options.mode === 'manual' ? await harness.pollManual() : await harness.poll();
			events.push(...(result?.[0] ?? []));
			rejected.push(...(result?.[1] ?? []));
		} catch (e) {
			error = e;
		}
	}
	const scanned = withoutExpectedAudience(events, audience);
	return {
		status: error ? 'error' : 'success',
		error: shown(error),
		items: [events, rejected],
		texts: [
			{ where: 'bankEventTrigger: emitted items', text: renderValue([scanned.items, rejected]) },
			{ where: 'bankEventTrigger: thrown error', text: error ? renderValue(error) : '' },
			{ where: 'bankEventTrigger: poll logs', text: harness.logs.join('\n') },
		],
		stores: [harness.credentials],
		excludedAudiences: scanned.excluded,
		harness,
	};
}

/** Requests the sandbox received in an area. */
export function requestsIn(bank: SandboxBank, ...areas: string[]): number {
	return bank.stats.requests.filter((r) => areas.includes(r.area)).length;
}

/** Token requests of both kinds the sandbox received. */
export function tokenRequests(bank: SandboxBank): number {
	return bank.stats.tokenRequests + bank.stats.mtlsTokenRequests;
}
