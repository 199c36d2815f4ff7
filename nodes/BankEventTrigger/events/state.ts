import type { IDataObject } from 'n8n-workflow';

import { RememberedIds, stringList } from '../../shared/common/polling';
import type { SetError } from './verify';

/**
 * What the trigger keeps in the workflow's static data (per workflow and node):
 * - `ack`: jti of SETs handled (emitted, repeated or filtered out) whose acknowledgement has not
 *   reached the bank yet; sent with the next request.
 * - `setErrs`: refused SETs not yet reported to the bank; sent with the next request.
 * - `recent`: jti of the SETs most recently emitted or refused, oldest first, at most the dedupe
 *   window. A SET the bank delivers again is recognised here and only acknowledged.
 */
export interface StoredDeliveryState {
	ack?: string[];
	setErrs?: Record<string, SetError>;
	recent?: string[];
}

function errorMap(value: unknown): Map<string, SetError> {
	const out = new Map<string, SetError>();
	if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
	for (const [jti, error] of Object.entries(value as Record<string, unknown>)) {
		const e = error as Partial<SetError> | null;
		if (e && typeof e.err === 'string')
			out.set(jti, { err: e.err, description: String(e.description ?? '') });
	}
	return out;
}

/**
 * The delivery bookkeeping of one poll, read from static data at the start and written back at the
 * end with new values (never changed in place: n8n notices assignments only).
 */
export class DeliveryState {
	private readonly pendingAcks: Set<string>;
	private readonly pendingErrs: Map<string, SetError>;
	private readonly recent: RememberedIds;

	constructor(
		private readonly data: IDataObject,
		private readonly window: number,
	) {
		this.pendingAcks = new Set(stringList(data.ack));
		this.pendingErrs = errorMap(data.setErrs);
		this.recent = new RememberedIds(data.recent);
	}

	/** What the next request carries. */
	outgoing(): { ack: string[]; setErrs: Record<string, SetError> } {
		return { ack: [...this.pendingAcks], setErrs: Object.fromEntries(this.pendingErrs) };
	}

	/** The bank answered a request that carried these: they are done. */
	delivered(sent: { ack: string[]; setErrs: Record<string, SetError> }): void {
		for (const jti of sent.ack) this.pendingAcks.delete(jti);
		for (const jti of Object.keys(sent.setErrs)) this.pendingErrs.delete(jti);
	}

	/** Whether a SET was already emitted or refused (within the dedupe window). */
	seen(jti: string): boolean {
		return this.recent.has(jti);
	}

	/** A SET delivered again: acknowledge it once more, unless its refusal is still to be sent. */
	repeated(jti: string): void {
		if (!this.pendingErrs.has(jti)) this.pendingAcks.add(jti);
	}

	/** A SET emitted as an item: remember it and acknowledge it with the next request. */
	emitted(jti: string): void {
		this.recent.add(jti);
		this.pendingAcks.add(jti);
	}

	/** A SET of a type the user did not ask for: acknowledged, not emitted, not remembered. */
	skipped(jti: string): void {
		this.pendingAcks.add(jti);
	}

	/** A SET refused: report it with the next request and remember it. */
	refused(jti: string, error: SetError): void {
		this.recent.add(jti);
		this.pendingAcks.delete(jti);
		this.pendingErrs.set(jti, error);
	}

	get pendingCount(): number {
		return this.pendingAcks.size + this.pendingErrs.size;
	}

	/** Writes the state back to static data. */
	save(): void {
		this.data.ack = [...this.pendingAcks];
		this.data.setErrs = Object.fromEntries(this.pendingErrs) as IDataObject;
		if (this.recent.changed) {
			const all = this.recent.all();
			this.data.recent = all.length > this.window ? all.slice(all.length - this.window) : all;
		}
	}
}
