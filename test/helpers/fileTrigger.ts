import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { BankFileTrigger } from '../../nodes/BankFileTrigger/BankFileTrigger.node';
import { createPollHarness, type PollHarness } from '../harness/poll';
import type { SandboxBank } from '../sandbox';
import { arriveFiles } from '../sandbox/bankfiles';
import type { BankFileDescriptor } from '../sandbox/types';
import { FILES, sandboxCredentials } from './bank';
import { PACKAGE, packageCredentialTypes, triggerNodeOf } from './nodes';

export const FILE_TRIGGER_TYPE = `${PACKAGE}.bankFileTrigger`;

/** The File Types parameter as the editor saves it: typed codes. */
export function fileTypesParameter(...codes: string[]): IDataObject {
	return { types: codes.map((value) => ({ fileType: { __rl: true, mode: 'id', value } })) };
}

export function fileTriggerNode(parameters: IDataObject = {}, name = 'Bank File Trigger'): INode {
	return triggerNodeOf('bank-file-trigger', name, FILE_TRIGGER_TYPE, { fileTypes: fileTypesParameter('XT'), ...parameters }, FILES, 'Sandbox file service');
}

/**
 * The Bank File Trigger under n8n's polling engine with the sandbox's File Service credential;
 * static data is saved after the activation poll, as n8n does when it activates a workflow.
 */
export function fileTriggerHarness(bank: SandboxBank, parameters: IDataObject = {}, staticData?: IDataObject): PollHarness {
	return createPollHarness({
		node: fileTriggerNode(parameters),
		nodeType: new BankFileTrigger(),
		credentialTypes: packageCredentialTypes(),
		credentials: sandboxCredentials(bank),
		staticData,
		saveAfterActivation: true,
		binaryDataMode: 'filesystem',
	});
}

/** New statements (or status reports) arriving at the sandbox bank now. */
export function arrive(bank: SandboxBank, count: number, fileType = 'XT'): BankFileDescriptor[] {
	return arriveFiles(bank.files, { count, fileType, customerId: bank.clients.fileService.customerId, customerName: 'Sandbox Customer Oy', now: new Date() });
}

/** File references of every item a harness emitted, in order. */
export function emittedReferences(h: PollHarness): string[] {
	return h.emitted.flatMap((run) => (run[0] ?? []).map((item: INodeExecutionData) => String(item.json.fileReference)));
}

/** The bytes of an item's binary field as n8n stored them (in its binary storage, or in the item). */
export async function storedBytes(item: INodeExecutionData, field = 'data'): Promise<Buffer> {
	const data = item.binary![field];
	if (!data.id) return Buffer.from(data.data, 'base64');
	const chunks: Buffer[] = [];
	for await (const chunk of await Container.get(BinaryDataService).getAsStream(data.id)) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}
