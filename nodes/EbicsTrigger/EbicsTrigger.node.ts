import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { toNodeError } from '../shared/common/errors';
import { EBICS_CREDENTIAL } from '../shared/ebics/credential/ebicsCredential';
import { ebicsTriggerProperties } from './description';
import { pollDownloads } from './downloads/poll';
import { fetchSample } from './downloads/sample';
import { readSettings } from './downloads/settings';

export class EbicsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'EBICS Trigger',
		name: 'ebicsTrigger',
		icon: { light: 'file:../../icons/ebics.svg', dark: 'file:../../icons/ebics.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["output"] === "parse" ? "New files, parsed" : "New files"}}',
		description:
			'Starts the workflow when the bank has new files for the chosen EBICS services (BTD), each file exactly once',
		defaults: { name: 'EBICS Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: EBICS_CREDENTIAL, required: true }],
		properties: ebicsTriggerProperties,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		// What a poll throws (a parameter, the credential, a failed test event) becomes an n8n error here.
		try {
			const settings = readSettings(this);
			if (this.getMode() === 'manual') return await fetchSample(this, settings);
			return await pollDownloads(this, settings);
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
