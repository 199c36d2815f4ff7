/**
 * Process-wide pieces shared by workflow runs and poll harnesses: the
 * additional data n8n hands to every node context, and the binary data mode.
 */
import './logger';

import { Container } from '@n8n/di';
import {
	BinaryDataConfig,
	BinaryDataService,
	Cipher,
	EncryptionKeyProxy,
	ExternalSecretsProxy,
	InstanceSettings,
	type ExecutionLifecycleHooks,
	type KeyInfo,
} from 'n8n-core';
import {
	UnexpectedError,
	type ICredentialsHelper,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type BinaryDataMode = 'default' | 'filesystem';

const BASE_URL = 'http://localhost:5678';

/**
 * n8n 2.x encrypts credentials with data keys served by a key provider that
 * the CLI backs with its database. Without one, `Credentials.setData` fails
 * ("Encryption key provider is not configured"). This provider serves one
 * current data key, wrapped with the instance key as n8n does, plus the
 * legacy key (the instance key itself) for data without a key prefix.
 */
function installEncryptionKeys(): void {
	const cipher = Container.get(Cipher);
	const { encryptionKey } = Container.get(InstanceSettings);
	const active: KeyInfo = {
		id: 'harness-key-1',
		value: cipher.encryptDEKWithInstanceKey(randomBytes(32).toString('hex')),
		algorithm: 'aes-256-gcm',
		format: 'prefixed',
	};
	const legacy: KeyInfo = {
		id: 'legacy',
		value: cipher.encryptDEKWithInstanceKey(encryptionKey),
		algorithm: 'aes-256-cbc',
		format: 'no-prefix',
	};
	Container.get(EncryptionKeyProxy).setProvider({
		getActiveKey: async () => active,
		getKeyById: async (id) => (id === active.id ? active : null),
		getLegacyKey: async () => legacy,
	});
}

installEncryptionKeys();

export function createAdditionalData(opts: {
	credentialsHelper: ICredentialsHelper;
	workflowId: string;
	executionId?: string;
	hooks?: ExecutionLifecycleHooks;
}): IWorkflowExecuteAdditionalData {
	const notAvailable = (what: string) => async (): Promise<never> => {
		throw new UnexpectedError(`${what} is not available in the test harness`);
	};
	const additionalData: IWorkflowExecuteAdditionalData = {
		credentialsHelper: opts.credentialsHelper,
		hooks: opts.hooks,
		executionId: opts.executionId,
		workflowId: opts.workflowId,
		restartExecutionId: undefined,
		currentNodeExecutionIndex: 0,
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
		userId: undefined,
		projectId: undefined,
		variables: {},
		restApiUrl: `${BASE_URL}/rest`,
		instanceBaseUrl: `${BASE_URL}/`,
		formBaseUrl: `${BASE_URL}/form`,
		formWaitingBaseUrl: `${BASE_URL}/form-waiting`,
		formTestBaseUrl: `${BASE_URL}/form-test`,
		webhookBaseUrl: `${BASE_URL}/webhook`,
		webhookWaitingBaseUrl: `${BASE_URL}/webhook-waiting`,
		webhookTestBaseUrl: `${BASE_URL}/webhook-test`,
		mcpBaseUrl: `${BASE_URL}/mcp`,
		mcpTestBaseUrl: `${BASE_URL}/mcp-test`,
		externalSecretsProxy: new ExternalSecretsProxy(),
		executionContext: undefined,
		encryptedRunnerIdentity: undefined,
		evalLlmMockHandler: undefined,
		ssrfBridge: undefined,
		executeWorkflow: notAvailable('Executing sub-workflows'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: notAvailable('The task runner'),
	};
	return additionalData;
}

let storagePath: string | undefined;

/** Where filesystem-mode binary data is written (undefined until first used). */
export function binaryDataStoragePath(): string | undefined {
	return storagePath;
}

/**
 * Switches n8n's BinaryDataService between inline base64 ('default') and
 * files under a temporary folder ('filesystem'). The service is a singleton,
 * so the choice applies to everything that runs afterwards in this test file.
 */
export async function useBinaryDataMode(mode: BinaryDataMode): Promise<void> {
	const config = Container.get(BinaryDataConfig);
	const service = Container.get(BinaryDataService);
	// The active mode is a private field; it is what decides where `store()` writes.
	const setServiceMode = (value: string) => {
		(service as unknown as { mode: string }).mode = value;
	};
	if (mode === 'filesystem') {
		if (storagePath === undefined) {
			const base = process.env.N8N_HARNESS_TMP ?? tmpdir();
			storagePath = mkdtempSync(join(base, 'binary-data-'));
			config.mode = 'filesystem';
			config.localStoragePath = storagePath;
			await service.init();
		}
		config.mode = 'filesystem';
		setServiceMode('filesystem-v2');
	} else if (storagePath !== undefined) {
		// With no manager registered for 'default', the service keeps data inline.
		config.mode = 'default';
		setServiceMode('default');
	}
}
