import type { ICredentialType, IDataObject, INode, INodeExecutionData, INodeType, IVersionedNodeType } from 'n8n-workflow';

import { CorporateBankingClientCredentialsApi } from '../../credentials/CorporateBankingClientCredentialsApi.credentials';
import { CorporateBankingEbicsApi } from '../../credentials/CorporateBankingEbicsApi.credentials';
import { CorporateBankingFileServiceApi } from '../../credentials/CorporateBankingFileServiceApi.credentials';
import { CorporateBankingMtlsApi } from '../../credentials/CorporateBankingMtlsApi.credentials';
import { CorporateBankingSftpApi } from '../../credentials/CorporateBankingSftpApi.credentials';
import { BankEventTrigger } from '../../nodes/BankEventTrigger/BankEventTrigger.node';
import { BankFile } from '../../nodes/BankFile/BankFile.node';
import { BankFileTrigger } from '../../nodes/BankFileTrigger/BankFileTrigger.node';
import { BankSftp } from '../../nodes/BankSftp/BankSftp.node';
import { BankSftpTrigger } from '../../nodes/BankSftpTrigger/BankSftpTrigger.node';
import { EbicsTrigger } from '../../nodes/EbicsTrigger/EbicsTrigger.node';
import { BankMockService } from '../../nodes/BankMockService/BankMockService.node';
import { CorporateFileService } from '../../nodes/CorporateFileService/CorporateFileService.node';
import { Ebics } from '../../nodes/Ebics/Ebics.node';
import { FxTradeExecution } from '../../nodes/FxTradeExecution/FxTradeExecution.node';
import { FxTradeReport } from '../../nodes/FxTradeReport/FxTradeReport.node';
import type { ChainStep, CredentialStore, RunResult } from '../harness/engine';
import { chainWorkflow, MANUAL_TRIGGER_TYPE, runWorkflow } from '../harness/engine';

export const PACKAGE = 'n8n-nodes-corporate-banking';
export const FILE_SERVICE_TYPE = `${PACKAGE}.corporateFileService`;

export const CC = 'corporateBankingClientCredentialsApi';
export const MTLS = 'corporateBankingMtlsApi';
export const FILES = 'corporateBankingFileServiceApi';
export const EBICS = 'corporateBankingEbicsApi';
export const SFTP = 'corporateBankingSftpApi';

/** Credential ids used in tests: one credential of each type, pointing at the sandbox. */
export const CREDENTIAL_IDS = { [CC]: 'cc-1', [MTLS]: 'mtls-1', [FILES]: 'files-1', [EBICS]: 'ebics-1', [SFTP]: 'sftp-1' } as const;

/**
 * Every node type of the package, under the names n8n gives them when the package is installed
 * (a node with versions, as EBICS, as n8n loads it: all its versions in one).
 */
export function packageNodeTypes(): Record<string, INodeType | IVersionedNodeType> {
	const list: Array<INodeType | IVersionedNodeType> = [new CorporateFileService(), new FxTradeReport(), new FxTradeExecution(), new BankEventTrigger(), new BankFileTrigger(), new BankMockService(), new BankFile(), new Ebics(), new EbicsTrigger(), new BankSftp(), new BankSftpTrigger()];
	const out: Record<string, INodeType | IVersionedNodeType> = {};
	for (const t of list) out[`${PACKAGE}.${t.description.name}`] = t;
	return out;
}

export function packageCredentialTypes(): ICredentialType[] {
	return [new CorporateBankingClientCredentialsApi(), new CorporateBankingMtlsApi(), new CorporateBankingFileServiceApi(), new CorporateBankingEbicsApi(), new CorporateBankingSftpApi()];
}

/** A trigger of the package as a saved workflow holds it, with the tests' credential of `credentialType`. */
export function triggerNodeOf(
	id: string,
	name: string,
	type: string,
	parameters: IDataObject,
	credentialType: keyof typeof CREDENTIAL_IDS,
	credentialName: string,
): INode {
	return {
		id,
		name,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INode['parameters'],
		credentials: { [credentialType]: { id: CREDENTIAL_IDS[credentialType], name: credentialName } },
	};
}

export interface RunNodeOptions {
	/** Node type name without the package prefix, e.g. 'fxTradeReport'. */
	type: string;
	parameters: Record<string, unknown>;
	/** Credential type -> credential id in the store. */
	credentials?: Record<string, string>;
	store?: CredentialStore;
	inputItems?: INodeExecutionData[];
	settings?: Partial<INode>;
	nodeTypes?: Record<string, INodeType | IVersionedNodeType>;
	binaryDataMode?: 'default' | 'filesystem';
	/** The workflow's time zone (workflow settings); the harness's UTC when not given. */
	timezone?: string;
}

export const NODE_NAME = 'Bank';

/** Runs Manual Trigger -> one of our nodes through the real n8n engine. */
export async function runNode(opts: RunNodeOptions): Promise<RunResult> {
	const credentials: INode['credentials'] = {};
	for (const [type, id] of Object.entries(opts.credentials ?? {})) credentials[type] = { id, name: id };
	const nodes: INode[] = [
		{ id: 'start', name: 'Start', type: MANUAL_TRIGGER_TYPE, typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'bank',
			name: NODE_NAME,
			type: `${PACKAGE}.${opts.type}`,
			typeVersion: 1,
			position: [200, 0],
			parameters: opts.parameters as INode['parameters'],
			credentials,
			...(opts.settings ?? {}),
		},
	];
	return await runWorkflow({
		workflow: {
			nodes,
			connections: { Start: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
			settings: opts.timezone ? { timezone: opts.timezone } : undefined,
		},
		nodeTypes: opts.nodeTypes ?? packageNodeTypes(),
		credentialTypes: packageCredentialTypes(),
		credentials: opts.store,
		inputItems: opts.inputItems,
		binaryDataMode: opts.binaryDataMode,
	});
}

export interface FileServiceChainOptions {
	store: CredentialStore;
	/** The test nodes of the chain besides the Corporate File Service, by type name. */
	nodeTypes: Record<string, INodeType>;
	/** The File Service credential of `store` every Corporate File Service step uses. */
	credentialId?: string;
	inputItems?: INodeExecutionData[];
}

/**
 * Manual Trigger -> `steps` through the real n8n engine with binary data on the filesystem, as
 * n8n 2.x stores it.
 */
export async function runFileServiceChain(steps: ChainStep[], options: FileServiceChainOptions): Promise<RunResult> {
	const credential = { id: options.credentialId ?? CREDENTIAL_IDS[FILES], name: 'files' };
	return await runWorkflow({
		workflow: chainWorkflow(steps, { [FILE_SERVICE_TYPE]: { [FILES]: credential } }),
		nodeTypes: { [FILE_SERVICE_TYPE]: new CorporateFileService(), ...options.nodeTypes },
		credentialTypes: packageCredentialTypes(),
		credentials: options.store,
		binaryDataMode: 'filesystem',
		inputItems: options.inputItems,
	});
}
