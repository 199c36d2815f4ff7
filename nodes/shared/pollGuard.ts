import type { IPollFunctions } from 'n8n-workflow';

/** Polls in progress in this process, by workflow and node. */
const running = new Set<string>();

/**
 * Runs a trigger's poll unless the previous poll of the same workflow and node is still running
 * (a slow bank, long retries): then the late one is skipped and returns `null`. The running poll
 * owns the workflow's static data; two at once would hand out the same work twice.
 */
export async function onePollAtATime<T>(
	ctx: IPollFunctions,
	poll: () => Promise<T | null>,
	onSkip?: () => void,
): Promise<T | null> {
	const key = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
	if (running.has(key)) {
		onSkip?.();
		return null;
	}
	running.add(key);
	try {
		return await poll();
	} finally {
		running.delete(key);
	}
}
