import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { SetError, VerifiedSet } from './verify';

const isoDate = (seconds: number | undefined): string | null =>
	seconds === undefined ? null : new Date(Math.round(seconds * 1000)).toISOString();

/** Whether an event type is one the user asked for: the full URI or its last segment. */
function typeMatches(type: string, wanted: string): boolean {
	return type === wanted || type.endsWith(`:${wanted}`) || type.endsWith(`/${wanted}`);
}

/**
 * The event type of a SET that decides whether it is emitted: the first type of the SET when no
 * filter is set, else the first type of the SET the filter names; undefined when none matches.
 */
export function chooseEventType(set: VerifiedSet, filter: string[]): string | undefined {
	const types = Object.keys(set.events);
	if (!filter.length) return types[0];
	return types.find((type) => filter.some((wanted) => typeMatches(type, wanted)));
}

/**
 * One item per SET. A SET is the bank's unit of delivery, acknowledgement and deduplication (its
 * jti), and the events in one SET describe the same occurrence, so they stay together: `eventType`
 * and `event` hold the chosen event, `otherEvents` the rest when a SET carries more than one
 * (Open Banking SETs carry exactly one).
 */
export function eventItem(
	set: VerifiedSet,
	eventType: string,
	rawSet?: string,
): INodeExecutionData {
	const json: IDataObject = {
		jti: set.jti,
		iss: set.iss,
		aud: set.aud,
		sub: set.sub ?? null,
		txn: set.txn ?? null,
		iat: isoDate(set.iat),
		toe: isoDate(set.toe),
		eventType,
		event: set.events[eventType],
	};
	const types = Object.keys(set.events);
	if (types.length > 1) {
		const others: IDataObject = {};
		for (const type of types) if (type !== eventType) others[type] = set.events[type];
		json.otherEvents = others;
	}
	if (rawSet !== undefined) json.rawSet = rawSet;
	return { json };
}

/** One item on the Rejected output per refused SET. */
export function rejectedItem(jti: string, error: SetError, rawSet?: unknown): INodeExecutionData {
	const json: IDataObject = { jti, err: error.err, description: error.description };
	if (rawSet !== undefined)
		json.rawSet = typeof rawSet === 'string' ? rawSet : JSON.stringify(rawSet);
	return { json };
}

/** What becomes of one delivered SET. */
export type Outcome =
	| { kind: 'event'; item: INodeExecutionData }
	| { kind: 'skipped'; eventTypes: string[] }
	| { kind: 'rejected'; error: SetError; item: INodeExecutionData };
