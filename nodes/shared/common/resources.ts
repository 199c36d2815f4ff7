import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { InputError } from './errors';

/**
 * A node's operations grouped in resources, the way n8n's own large nodes are organised: one
 * Resource parameter, one Operation parameter per resource, and every operation's fields shown
 * for its resource. The operations keep the values their descriptions' display rules name, each
 * value in one resource only, so one router runs an operation whichever resource lists it.
 */

/** One operation of a resource, as the Operation list and n8n's node panel show it. */
export interface ResourceOperation {
	/** Its name in the Operation list, and the node's subtitle on the canvas. */
	name: string;
	/** The operation's value: its fields' display rules name it. */
	value: string;
	/** What n8n's node panel lists it as ("Get initialisation letters"). */
	action: string;
	description: string;
}

export interface ResourceDefinition {
	name: string;
	value: string;
	description?: string;
	/** The operation a node starts with when this resource is chosen. */
	default: string;
	operations: ResourceOperation[];
}

const byName = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name);

/** Which resource each operation value belongs to; an operation in two resources is a mistake. */
function resourceOfOperation(resources: ResourceDefinition[]): Map<string, string> {
	const owner = new Map<string, string>();
	for (const resource of resources) {
		if (!resource.operations.some((operation) => operation.value === resource.default))
			throw new Error(
				`Resource "${resource.value}": its default operation "${resource.default}" is not one of its operations`,
			);
		for (const operation of resource.operations) {
			const other = owner.get(operation.value);
			if (other)
				throw new Error(
					`Operation "${operation.value}" is listed in two resources ("${other}", "${resource.value}")`,
				);
			owner.set(operation.value, resource.value);
		}
	}
	return owner;
}

/** The Resource parameter and, for each resource, its Operation parameter (options sorted by name). */
export function resourceParameters(
	resources: ResourceDefinition[],
	defaultResource: string,
): INodeProperties[] {
	resourceOfOperation(resources);
	return [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: resources
				.map(({ name, value, description }) => ({
					name,
					value,
					...(description ? { description } : {}),
				}))
				.sort(byName),
			default: defaultResource,
		},
		...resources.map(
			({ value, operations, default: first }): INodeProperties => ({
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: [value] } },
				options: operations
					.map(({ name, value, action, description }) => ({ name, value, action, description }))
					.sort(byName),
				default: first,
			}),
		),
	];
}

/**
 * The properties of the operations with the resource added to each display rule that shows a
 * property for some operations: shown for the resources those operations belong to. Properties
 * shown for every operation, hidden for some, or nested in a collection stay as they are (a
 * nested rule reaches the operation through '/operation').
 */
export function showForResources(
	properties: INodeProperties[],
	resources: ResourceDefinition[],
): INodeProperties[] {
	const owner = resourceOfOperation(resources);
	return properties.map((property) => {
		const show = property.displayOptions?.show;
		const operations = show?.operation;
		if (!show || !operations) return property;
		const shownFor = new Set<string>();
		for (const operation of operations) {
			const resource = typeof operation === 'string' ? owner.get(operation) : undefined;
			if (!resource)
				throw new Error(
					`Field "${property.name}": shown for operation ${JSON.stringify(operation)}, which no resource lists`,
				);
			shownFor.add(resource);
		}
		return {
			...property,
			displayOptions: { ...property.displayOptions, show: { resource: [...shownFor], ...show } },
		};
	});
}

/**
 * The canvas subtitle: the chosen operation's name (as the Operation list shows it), not its
 * value; an expression in an operation that is not listed shows as it is.
 */
export function operationSubtitle(operations: Array<{ name: string; value: string }>): string {
	const names: Record<string, string> = {};
	for (const { name, value } of operations) names[value] = name;
	return `={{ (${JSON.stringify(names)})[$parameter["operation"]] || $parameter["operation"] }}`;
}

/** Every operation of the resources, in the order they are listed. */
export function allOperations(resources: ResourceDefinition[]): ResourceOperation[] {
	return resources.flatMap((resource) => resource.operations);
}

/**
 * The node's resource and operation, checked before anything runs: the operation must be one the
 * resource lists (a workflow edited by hand, or an operation set by an expression, may pair them
 * otherwise). Gives the operation's value, which the node's router runs.
 */
export function resourceOperation(ctx: IExecuteFunctions, resources: ResourceDefinition[]): string {
	const resourceValue = ctx.getNodeParameter('resource', 0) as string;
	const operation = ctx.getNodeParameter('operation', 0) as string;
	const resource = resources.find((r) => r.value === resourceValue);
	if (!resource)
		throw new InputError(
			`Resource: "${resourceValue}" is not a resource of this node; choose one of ${resources.map((r) => r.name).join(', ')}`,
		);
	if (!resource.operations.some((o) => o.value === operation))
		throw new InputError(
			`Operation: "${operation}" is not an operation of the resource ${resource.name}; choose one of ${resource.operations.map((o) => o.name).join(', ')}`,
		);
	return operation;
}
