/**
 * Credentials for harness runs: a store standing in for n8n's database table,
 * and an ICredentialsHelper that behaves like the one in n8n's CLI for what
 * community nodes use (defaults, expressions, generic and function
 * authentication, expirable-token pre-authentication with persistence).
 */
import { Credentials, getAdditionalKeys } from 'n8n-core';
import {
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	UserError,
	Workflow,
	getCredentialOwnRequestAllowedDomains,
	isExpression,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type ICredentialsExpressionResolveValues,
	type IExecuteData,
	type IHttpRequestHelper,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeParameters,
	type INodeProperties,
	type IRequestOptionsSimplified,
	type IWorkflowDataProxyAdditionalKeys,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { HarnessNodeTypes, NO_OP_TYPE } from './node-types';

export interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: ICredentialDataDecryptedObject;
}

export interface CredentialInput {
	id: string;
	name?: string;
	type: string;
	data: ICredentialDataDecryptedObject;
}

/**
 * Persistent credential storage, like n8n's credentials table. Share one
 * store between several runs to see what n8n would have persisted in
 * between. Reads and writes copy the data, as a database would.
 */
export interface CredentialStore {
	get(id: string): StoredCredential | undefined;
	/** Inserts or replaces a credential (test setup; not counted). */
	set(credential: CredentialInput): void;
	/** Replaces a credential's data the way n8n's `updateCredentials` does; counted in `updates`. */
	update(id: string, data: ICredentialDataDecryptedObject): void;
	list(): StoredCredential[];
	/** Number of `updateCredentials` calls n8n made against this store. */
	readonly updates: number;
	/** Data written by each counted update, oldest first. */
	readonly history: ReadonlyArray<{ id: string; data: ICredentialDataDecryptedObject }>;
}

export function createCredentialStore(credentials: CredentialInput[] = []): CredentialStore {
	const rows = new Map<string, StoredCredential>();
	const history: Array<{ id: string; data: ICredentialDataDecryptedObject }> = [];
	let updates = 0;

	const store: CredentialStore = {
		get(id) {
			const row = rows.get(id);
			return row === undefined ? undefined : structuredClone(row);
		},
		set({ id, name, type, data }) {
			rows.set(id, { id, name: name ?? `${type} ${id}`, type, data: structuredClone(data) });
		},
		update(id, data) {
			const row = rows.get(id);
			if (row === undefined) throw new UnexpectedError(`Credential "${id}" is not in the store`);
			row.data = structuredClone(data);
			updates++;
			history.push({ id, data: structuredClone(data) });
		},
		list() {
			return [...rows.values()].map((row) => structuredClone(row));
		},
		get updates() {
			return updates;
		},
		get history() {
			return history.map((entry) => structuredClone(entry));
		},
	};
	for (const credential of credentials) store.set(credential);
	return store;
}

/**
 * Restricts the requests a credential's own `preAuthentication` may make to
 * the domains the credential allows, as n8n does.
 */
function restrictToCredentialDomains(
	helpers: IHttpRequestHelper,
	credentials: ICredentialDataDecryptedObject,
): IHttpRequestHelper {
	return {
		helpers: {
			httpRequest: async (requestOptions: IHttpRequestOptions) => {
				const allowedDomains = getCredentialOwnRequestAllowedDomains(credentials);
				if (allowedDomains === undefined) return await helpers.helpers.httpRequest(requestOptions);
				if (requestOptions.allowedDomains !== undefined) {
					throw new UserError(
						'This credential restricts requests to specific domains, which cannot be combined with the domains its authentication step asks for.',
					);
				}
				return await helpers.helpers.httpRequest({ ...requestOptions, allowedDomains });
			},
		},
	};
}

const credentialMockNode: INode = {
	id: 'harness-credential-node',
	name: '',
	type: NO_OP_TYPE,
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();

	constructor(
		readonly store: CredentialStore,
		credentialTypes: ICredentialType[] = [],
	) {
		super();
		for (const type of credentialTypes) this.types.set(type.name, type);
	}

	private getType(typeName: string): ICredentialType {
		const type = this.types.get(typeName);
		if (type === undefined) {
			throw new UnexpectedError(
				`Unknown credential type "${typeName}": pass it in credentialTypes`,
				{
					tags: { credentialType: typeName },
				},
			);
		}
		return type;
	}

	private findCredential(nodeCredentials: INodeCredentialsDetails, type: string): StoredCredential {
		let row: StoredCredential | undefined;
		if (nodeCredentials.id) {
			row = this.store.get(nodeCredentials.id);
		} else {
			const byName = this.store
				.list()
				.filter((c) => c.name === nodeCredentials.name && c.type === type);
			if (byName.length === 1) row = byName[0];
		}
		if (row === undefined || row.type !== type) {
			throw new UserError(
				`Credential with ID "${nodeCredentials.id ?? nodeCredentials.name}" does not exist for type "${type}".`,
			);
		}
		return row;
	}

	getParentTypes(typeName: string): string[] {
		const type = this.types.get(typeName);
		if (type?.extends === undefined) return [];
		const parents: string[] = [];
		for (const parent of type.extends) {
			parents.push(parent, ...this.getParentTypes(parent));
		}
		return parents;
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.types.get(credentialType);
		if (type === undefined || !type.restrictToSupportedNodes) return true;
		return (type.supportedNodes ?? []).some(
			(supported) => supported === nodeType || nodeType.endsWith(`.${supported}`),
		);
	}

	getCredentialsProperties(typeName: string): INodeProperties[] {
		const type = this.getType(typeName);
		if (type.extends === undefined) return type.properties;
		const combined: INodeProperties[] = [];
		for (const parent of type.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, type.properties);
		return combined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		const row = this.findCredential(nodeCredentials, type);
		const credentials = new Credentials({ id: row.id, name: row.name }, row.type);
		await credentials.setData(row.data);
		return credentials;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		// Round-trip through n8n's encrypted Credentials, as the database path does.
		const stored = await (await this.getCredentials(nodeCredentials, type)).getData();
		if (raw === true) return stored;
		return this.applyDefaultsAndResolve(
			additionalData,
			stored,
			type,
			mode,
			executeData,
			expressionResolveValues,
		);
	}

	/** Defaults from the credential type's properties, then expressions, as n8n does. */
	applyDefaultsAndResolve(
		additionalData: IWorkflowExecuteAdditionalData,
		stored: ICredentialDataDecryptedObject,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): ICredentialDataDecryptedObject {
		const properties = this.getCredentialsProperties(type);
		let data = NodeHelpers.getNodeParameters(
			properties,
			stored as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (stored.oauthTokenData !== undefined) data.oauthTokenData = stored.oauthTokenData;
		for (const field of ['allowedHttpRequestDomains', 'allowedDomains']) {
			if (data[field] === undefined && stored[field] !== undefined) data[field] = stored[field];
		}

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				data = expressionResolveValues.workflow.expression.getParameterValue(
					data as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					data,
				) as ICredentialDataDecryptedObject;
			} catch (error) {
				if (error instanceof Error) error.message += ' [Error resolving credentials]';
				throw error;
			}
		} else {
			const workflow = new Workflow({
				nodes: [{ ...credentialMockNode }],
				connections: {},
				active: false,
				nodeTypes: new HarnessNodeTypes({}),
			});
			data = workflow.expression.getComplexParameterValue(
				credentialMockNode,
				data as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				data,
			) as ICredentialDataDecryptedObject;
		}
		return data;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (typeof authenticate === 'object' && authenticate.type === 'generic') {
			if (!workflow || !node) {
				throw new UnexpectedError(
					'Workflow and node are required for declarative credential authentication',
				);
			}
			const target = requestOptions as unknown as Record<
				string,
				Record<string, unknown> | undefined
			>;
			if (target.headers === undefined) target.headers = {};
			for (const [section, entries] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
					const resolvedKey = this.resolveValue(key, { $credentials: credentials }, workflow, node);
					const resolvedValue = this.resolveValue(
						value as string,
						{ $credentials: credentials },
						workflow,
						node,
					);
					if (!target[section]) target[section] = {};
					(target[section] as Record<string, unknown>)[resolvedKey] = resolvedValue;
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	private resolveValue(
		value: string,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		return resolved ? resolved.toString() : '';
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		const expirable = this.getCredentialsProperties(typeName).find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (expirable === undefined || typeof type.preAuthentication !== 'function') return undefined;
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;

		const output = await type.preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		);
		// Nothing is persisted unless the hook returned the expirable field.
		if (output?.[expirable.name] === undefined) return undefined;
		const nodeCredentials = node.credentials?.[type.name];
		if (!nodeCredentials) return undefined;

		const stored = await (await this.getCredentials(nodeCredentials, type.name)).getData();
		const toPersist: ICredentialDataDecryptedObject = { ...stored };
		for (const [key, value] of Object.entries(output as ICredentialDataDecryptedObject)) {
			// A field the user stored as an expression keeps its expression.
			if (key === expirable.name || !isExpression(stored[key])) toPersist[key] = value;
		}
		await this.updateCredentials(nodeCredentials, type.name, toPersist);
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		const output = await type.preAuthentication.call(
			restrictToCredentialDomains(helpers, credentials),
			credentials,
		);
		return (output as ICredentialDataDecryptedObject | undefined) ?? undefined;
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const row = this.findCredential(nodeCredentials, type);
		// Encrypt and decrypt once, so data that n8n could not store fails here too.
		const credentials = new Credentials({ id: row.id, name: row.name }, type);
		await credentials.setData(data);
		this.store.update(row.id, await credentials.getData());
	}

	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const row = this.findCredential(nodeCredentials, type);
		this.store.set({ ...row, data: { ...row.data, oauthTokenData: data.oauthTokenData } });
	}
}
