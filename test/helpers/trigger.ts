import type { IDataObject, INode } from 'n8n-workflow';

import { BankEventTrigger } from '../../nodes/BankEventTrigger/BankEventTrigger.node';
import type { CredentialStore } from '../harness/engine';
import { createPollHarness, type PollHarness } from '../harness/poll';
import type { SandboxBank } from '../sandbox';
import { allowEventsUrl, MTLS, sandboxCredentials } from './bank';
import { PACKAGE, packageCredentialTypes, triggerNodeOf } from './nodes';

export const TRIGGER_TYPE = `${PACKAGE}.bankEventTrigger`;

/** The Bank Event Trigger set up for the sandbox's events, JWKS, issuer and audience. */
export function triggerNode(bank: SandboxBank, parameters: IDataObject = {}, name = 'Bank Event Trigger'): INode {
	const s = bank.eventSettings();
	const settings = { eventsUrl: s.eventsUrl, keySource: 'jwks', jwksUrl: s.jwksUrl, issuer: s.issuer, audience: s.audience };
	return triggerNodeOf('bank-event-trigger', name, TRIGGER_TYPE, { ...settings, ...parameters }, MTLS, 'Sandbox mTLS');
}

export interface TriggerHarnessOptions {
	parameters?: IDataObject;
	/** Overrides of the sandbox's Mutual TLS credential values. */
	credential?: Record<string, unknown>;
	/** A credential store to use instead of the sandbox's credentials. */
	store?: CredentialStore;
	staticData?: IDataObject;
	name?: string;
}

/**
 * The trigger under n8n's polling engine with the sandbox's credentials. An Events URL on another
 * host (a stand-in in front of the bank) is allowed in the credential, as a user would set it.
 */
export function triggerHarness(bank: SandboxBank, options: TriggerHarnessOptions = {}): PollHarness {
	return createPollHarness({
		node: triggerNode(bank, options.parameters, options.name),
		nodeType: new BankEventTrigger(),
		credentialTypes: packageCredentialTypes(),
		credentials: options.store ?? sandboxCredentials(bank, { [MTLS]: { ...allowEventsUrl(options.parameters), ...(options.credential ?? {}) } }),
		staticData: options.staticData,
	});
}
