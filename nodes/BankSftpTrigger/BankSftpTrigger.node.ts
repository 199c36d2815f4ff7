import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { toNodeError } from '../shared/common/errors';
import { SFTP_CREDENTIAL } from '../shared/sftp/credential/sftpCredential';
import { loadSftpRun, type SftpRun } from '../shared/sftp/node/context';
import { sftpFailure } from '../shared/sftp/node/failures';
import { bankSftpTriggerProperties } from './description';
import { pollFiles } from './files/poll';
import { fetchSample } from './files/sample';
import { readSettings } from './files/settings';

export class BankSftpTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bank SFTP Trigger',
		name: 'bankSftpTrigger',
		icon: { light: 'file:../../icons/sftp.svg', dark: 'file:../../icons/sftp.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["output"] === "parse" ? "New files, parsed" : "New files"}}',
		description:
			'Starts the workflow when the bank puts new files in its host-to-host SFTP folder (decrypted and verified), each file exactly once',
		defaults: { name: 'Bank SFTP Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: SFTP_CREDENTIAL, required: true }],
		properties: bankSftpTriggerProperties,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		let run: SftpRun | undefined;
		try {
			run = await loadSftpRun(this);
			const settings = readSettings(this, run);
			if (this.getMode() === 'manual') return await fetchSample(this, run, settings);
			return await pollFiles(this, run, settings);
		} catch (error) {
			throw toNodeError(this.getNode(), sftpFailure(error));
		} finally {
			run?.close();
		}
	}
}
