import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { searchFileTypes } from '../CorporateFileService/fileTypes';
import { toNodeError } from '../shared/errors';
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
		try {
			const settings = readSettings(this);
			if (this.getMode() === 'manual') return await fetchSample(this, settings);
			return await pollFiles(this, settings);
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
