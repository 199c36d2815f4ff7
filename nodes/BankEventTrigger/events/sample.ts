import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { editorFailure, keyResolver, requestEvents } from './bank';
import type { Outcome } from './items';
import { judgeSet } from './judge';
import type { TriggerSettings } from './settings';

/**
 * The editor's "Fetch Test Event": one request that acknowledges nothing and reports nothing, so
 * the bank delivers the same events to the active workflow later, and no static data is touched.
 * Shows the first event that passes the checks and the filter; when none does, the first refused
 * one on the Rejected output. Failures are thrown as BankFailures with the bank's own message.
 */
export async function fetchSample(
	ctx: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][]> {
	let answer;
	try {
		answer = await requestEvents(ctx, settings, {
			maxEvents: settings.maxEvents,
			returnImmediately: true,
			ack: [],
			setErrs: {},
		});
	} catch (error) {
		throw editorFailure(error, settings, 'Fetch events');
	}
	if (!answer.sets.length)
		return [[{ json: noEventWaiting('No events are waiting at the bank right now.') }], []];
	const keys = keyResolver(ctx, settings);
	let firstRefused: Outcome | undefined;
	const otherTypes = new Set<string>();
	for (const [jti, jws] of answer.sets) {
		let outcome: Outcome;
		try {
			outcome = await judgeSet(jti, jws, settings, keys);
		} catch (error) {
			throw editorFailure(error, settings, "Fetch the bank's JWKS");
		}
		if (outcome.kind === 'event') return [[outcome.item], []];
		if (outcome.kind === 'rejected') firstRefused ??= outcome;
		else for (const type of outcome.eventTypes) otherTypes.add(type);
	}
	if (firstRefused?.kind === 'rejected') return [[], [firstRefused.item]];
	return [
		[
			{
				json: {
					...noEventWaiting(
						`No events of the chosen types are waiting at the bank (${answer.sets.length} of other types are).`,
					),
					waitingEventTypes: [...otherTypes],
				},
			},
		],
		[],
	];
}

/**
 * What "Fetch Test Event" shows when the bank has nothing to show: an empty queue is the normal
 * state, not an error. The item says so and how to get a sample; nothing was acknowledged.
 */
function noEventWaiting(message: string) {
	return {
		noEventWaiting: true,
		message: `${message} Nothing was acknowledged; this item is only shown in the editor.`,
		howToGetASample:
			'Ask the bank to queue a test event and fetch again (with the sandbox bank: POST {"count": 1} to the events address under the admin URL that `npm run sandbox` or `npm run demo -- --ui` prints), or publish the workflow (the Publish button): it then starts once for every event as the bank delivers it.',
	};
}
