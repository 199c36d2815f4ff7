import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { toNodeError } from '../shared/common/errors';
import { bankEventTriggerProperties } from './description';
import { pollEvents } from './events/poll';
import { fetchSample } from './events/sample';
import { CREDENTIAL_TYPE, readSettings } from './events/settings';

export class BankEventTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bank Event Trigger',
		name: 'bankEventTrigger',
		icon: {
			light: 'file:../../icons/event-trigger.svg',
			dark: 'file:../../icons/event-trigger.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{$parameter["eventTypes"].length ? "Event types: " + $parameter["eventTypes"].length : "All event types"}}',
		description:
			"Starts the workflow when the bank signals events: signed event notifications fetched from the bank's event polling API",
		defaults: { name: 'Bank Event Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Events', 'Rejected'],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: bankEventTriggerProperties,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		try {
			const settings = await readSettings(this);
			if (this.getMode() === 'manual') return await fetchSample(this, settings);
			return await pollEvents(this, settings);
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
