/**
 * The EBICS Trigger under n8n's polling engine against the sandbox EBICS bank (the subscriber
 * PARTNER2/READY1, its keys imported into the credential), and what the tests read back: the
 * files the bank has for it, which of them it marked delivered, the digests the trigger emitted.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { EbicsTrigger } from '../../nodes/EbicsTrigger/EbicsTrigger.node';
import { createPollHarness, type PollHarness } from '../harness/poll';
import type { SandboxBank } from '../sandbox';
import type { CredentialStore } from '../harness/engine';
import { ebicsStore, ebicsValues } from './ebicsNode';
import { EBICS, PACKAGE, packageCredentialTypes, triggerNodeOf } from './nodes';

export const EBICS_TRIGGER_TYPE = `${PACKAGE}.ebicsTrigger`;
export const PARTNER = 'PARTNER2';
export const USER = 'READY1';

export function ebicsTriggerNode(parameters: IDataObject = {}): INode {
	return triggerNodeOf('ebics-trigger', 'EBICS Trigger', EBICS_TRIGGER_TYPE, { services: ['camt053'], ...parameters }, EBICS, 'EBICS (sandbox)');
}

/** The EBICS Trigger with the sandbox's ready subscriber; static data saved after the activation poll. */
export function ebicsTriggerHarness(bank: SandboxBank, parameters: IDataObject = {}, store?: CredentialStore): PollHarness {
	return createPollHarness({
		node: ebicsTriggerNode(parameters),
		nodeType: new EbicsTrigger(),
		credentialTypes: packageCredentialTypes(),
		credentials: store ?? ebicsStore(ebicsValues(bank)),
		saveAfterActivation: true,
		binaryDataMode: 'filesystem',
	});
}

export const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** The sandbox subscriber's files of one service. */
export function bankFiles(bank: SandboxBank, msgName = 'camt.053', serviceName = 'EOP') {
	return bank.ebics.subscriber(PARTNER, USER)!.files.filter((f) => f.msgName === msgName && f.serviceName === serviceName);
}

/** Digests of the files of a service the bank has not delivered (no positive receipt yet). */
export function waiting(bank: SandboxBank, msgName = 'camt.053', serviceName = 'EOP'): string[] {
	return bankFiles(bank, msgName, serviceName).filter((f) => !f.delivered).map((f) => sha256(f.content));
}

/** A new camt.053 statement arriving at the bank (a copy of a seeded one with its own message ID). */
export function arrive(bank: SandboxBank, count: number, msgName = 'camt.053'): string[] {
	const template = bankFiles(bank, msgName)[0];
	const out: string[] = [];
	for (let i = 0; i < count; i++) {
		const id = `ARRIVED-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
		const content = Buffer.from(template.content.toString('utf8').replace(/<MsgId>[^<]*<\/MsgId>/, `<MsgId>${id}</MsgId>`));
		bank.ebics.addFile(PARTNER, USER, { serviceName: template.serviceName, msgName, name: `${id}.${msgName === 'mt940' ? 'txt' : 'xml'}`, content });
		out.push(sha256(content));
	}
	return out;
}

/** The digests of the files (kind file, or Files items) a harness emitted, in order. */
export function emittedDigests(h: PollHarness): string[] {
	return h.emitted.flatMap((run) => (run[0] ?? []).filter((i: INodeExecutionData) => i.json.kind === undefined || i.json.kind === 'file').map((i) => String(i.json.sha256)));
}

/** The receipts the bank received (the tests use one subscriber), as 'positive', 'negative' or the refusal's code. */
export function receipts(bank: SandboxBank): string[] {
	return bank.ebics.records.filter((r) => r.phase === 'Receipt').map((r) => (r.technical === '011000' ? 'positive' : r.technical === '011001' ? 'negative' : r.technical));
}

/** Every value at most once: those that appear more often. */
export function repeated(values: string[]): string[] {
	return values.filter((v, i) => values.indexOf(v) !== i);
}
