import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { editorError, keyResolver, requestEvents } from './bank';
import type { Outcome } from './items';
import { judgeSet } from './judge';
import type { TriggerSettings } from './settings';

/**
 * The editor's "Fetch Test Event": one request that acknowledges nothing and reports nothing, so
 * the bank delivers the same events to the active workflow later, and no static data is touched.
 * Shows the first event that passes the checks and the filter; when none does, the first refused
 * one on the Rejected output. Failures are thrown with the bank's own message.
 */
export async function fetchSample(ctx: IPollFunctions, settings: TriggerSettings): Promise<INodeExecutionData[][]> {
	let answer;
	try {
		answer = await requestEvents(ctx, settings, { maxEvents: settings.maxEvents, returnImmediately: true, ack: [], setErrs: {} });
	} catch (error) {
		throw editorError(ctx, error, settings, 'Fetch events');
	}
	if (!answer.sets.length) {
		throw new NodeOperationError(ctx.getNode(), 'No events waiting at the bank. Nothing was acknowledged.', {
			description: 'Try again once the bank has queued an event, or activate the workflow to receive events as they come.',
			level: 'warning',
		});
	}
	const keys = keyResolver(ctx, settings);
	let firstRefused: Outcome | undefined;
	const otherTypes = new Set<string>();
	for (const [jti, jws] of answer.sets) {
		let outcome: Outcome;
		try {
			outcome = await judgeSet(jti, jws, settings, keys);
		} catch (error) {
			throw editorError(ctx, error, settings, "Fetch the bank's JWKS");
		}
		if (outcome.kind === 'event') return [[outcome.item], []];
		if (outcome.kind === 'rejected') firstRefused ??= outcome;
		else for (const type of outcome.eventTypes) otherTypes.add(type);
	}
	if (firstRefused?.kind === 'rejected') return [[], [firstRefused.item]];
	throw new NodeOperationError(
		ctx.getNode(),
		`No events of the chosen types waiting at the bank (${answer.sets.length} events of other types are waiting). Nothing was acknowledged.`,
		{ description: `Waiting types: ${[...otherTypes].join(', ')}`, level: 'warning' },
	);
}
