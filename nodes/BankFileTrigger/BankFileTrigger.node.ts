import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { toNodeError } from '../shared/common/errors';
import { searchFileTypes } from '../shared/bxd/node/fileTypes';
import { bankFileTriggerProperties } from './description';
import { pollFiles } from './files/poll';
import { fetchSample } from './files/sample';
import { CREDENTIAL_TYPE, readSettings } from './files/settings';

export class BankFileTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bank File Trigger',
		name: 'bankFileTrigger',
		icon: { light: 'file:../../icons/bankFile.svg', dark: 'file:../../icons/bankFile.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{$parameter["output"] === "report" ? "New file descriptors" : $parameter["output"] === "parse" ? "New files, parsed" : "New files"}}',
		description:
			"Starts the workflow when new files arrive at the bank's file service (bxd Web Services), each file exactly once",
		defaults: { name: 'Bank File Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: bankFileTriggerProperties,
	};

	methods = {
		listSearch: { searchFileTypes },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		// What a poll throws (a credential field, a failed test event) becomes an n8n error here.
		try {
			const settings = readSettings(this);
			if (this.getMode() === 'manual') return await fetchSample(this, settings);
			return await pollFiles(this, settings);
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
