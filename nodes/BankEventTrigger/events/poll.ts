import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { onePollAtATime, pollDeadline } from '../../shared/common/polling';
import { redactSecrets } from '../../shared/transport/redact';
import { describeError, keyResolver, requestEvents } from './bank';
import type { Outcome } from './items';
import { judgeSet } from './judge';
import type { TriggerSettings } from './settings';
import { DeliveryState } from './state';

/**
 * One scheduled poll: drains the bank's queue page by page while it says more events are
 * available, within the per-poll ceilings.
 *
 * Delivery: every request carries the acknowledgements and refusals of the SETs handled before it
 * (the previous page of this poll, or the previous poll, kept in static data), so an event is
 * acknowledged only once it is in this poll's output; the last page's acknowledgements go out with
 * the first request of the next poll. SETs already emitted (remembered by jti) are acknowledged
 * again and never emitted twice.
 *
 * Failures: a request that fails (after the transport's retries) ends the poll. What was gathered
 * before is still emitted, and nothing is marked as acknowledged that the bank did not confirm,
 * so the next poll sends it again. The failure is logged, never thrown: the trigger keeps polling.
 */
export async function pollEvents(
	ctx: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	// A poll still running when the next one is due owns the static data: the late one skips, or
	// both would hand out the same unacknowledged events.
	return await onePollAtATime(ctx, 'Bank Event Trigger', async () => await drain(ctx, settings));
}

async function drain(
	ctx: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	const start = Date.now();
	const stopAt = pollDeadline(ctx, start, settings.maxSecondsPerPoll * 1000);
	const state = new DeliveryState(ctx.getWorkflowStaticData('node'), settings.dedupeWindow);
	const keys = keyResolver(ctx, settings);
	const events: INodeExecutionData[] = [];
	const rejected: INodeExecutionData[] = [];
	let received = 0;
	let repeats = 0;
	let skipped = 0;
	let requests = 0;

	while (true) {
		const outgoing = state.outgoing();
		const body = {
			maxEvents: Math.max(1, Math.min(settings.maxEvents, settings.maxEventsPerPoll - received)),
			returnImmediately: settings.returnImmediately,
			...outgoing,
		};
		let more = false;
		try {
			const answer = await requestEvents(ctx, settings, body);
			requests++;
			state.delivered(outgoing);
			// The signatures of a page are checked at the same time (the checks run off the main
			// thread); the outcomes are then taken in the bank's order.
			const judged = new Map<string, Promise<Outcome>>();
			for (const [jti, jws] of answer.sets) {
				if (state.seen(jti) || judged.has(jti)) continue;
				const outcome = judgeSet(jti, jws, settings, keys);
				// Awaited below in order; a failure is handled there, not left unhandled meanwhile.
				outcome.catch(() => undefined);
				judged.set(jti, outcome);
			}
			for (const [jti] of answer.sets) {
				received++;
				if (state.seen(jti)) {
					state.repeated(jti);
					repeats++;
					continue;
				}
				const outcome = await judged.get(jti)!;
				if (outcome.kind === 'event') {
					events.push(outcome.item);
					state.emitted(jti);
				} else if (outcome.kind === 'skipped') {
					state.skipped(jti);
					skipped++;
				} else {
					rejected.push(outcome.item);
					state.refused(jti, outcome.error);
					ctx.logger.warn(
						redactSecrets(
							`Bank Event Trigger: refused event ${jti}: ${outcome.error.err}: ${outcome.error.description}`,
							settings.secrets,
						),
					);
				}
			}
			more = answer.moreAvailable && answer.sets.length > 0;
		} catch (error) {
			ctx.logger.error(
				`Bank Event Trigger: the event poll failed: ${describeError(error, settings).replace(/\.+$/, '')}. ` +
					`${events.length + rejected.length} events of this poll are handed over; ${state.pendingCount} acknowledgements wait for the next poll.`,
			);
			break;
		}
		if (!more || received >= settings.maxEventsPerPoll || Date.now() >= stopAt) break;
	}

	state.save();
	ctx.logger.debug(
		`Bank Event Trigger: ${requests} requests, ${events.length} events emitted, ${rejected.length} refused, ${repeats} repeats and ${skipped} other types acknowledged`,
	);
	if (!events.length && !rejected.length) return null;
	return [events, rejected];
}
