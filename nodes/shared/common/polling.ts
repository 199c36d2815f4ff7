/**
 * What the polling triggers share: one poll at a time, a deadline within n8n's budget, a memory
 * of what was handed out.
 */
import type { IPollFunctions } from 'n8n-workflow';

/** Polls in progress in this process, by workflow and node. */
const running = new Set<string>();

/**
 * Runs a trigger's poll unless the previous poll of the same workflow and node is still running
 * (a slow bank, long retries): then the late one is skipped, says so in the log under the
 * trigger's name, and returns `null`. The running poll owns the workflow's static data; two at
 * once would hand out the same work twice.
 */
export async function onePollAtATime<T>(
	ctx: IPollFunctions,
	trigger: string,
	poll: () => Promise<T | null>,
): Promise<T | null> {
	const key = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
	if (running.has(key)) {
		ctx.logger.debug(`${trigger}: the previous poll is still running; this one is skipped`);
		return null;
	}
	running.add(key);
	try {
		return await poll();
	} finally {
		running.delete(key);
	}
}

/** Part of n8n's poll budget spent asking the bank; the rest is kept for handing the items over. */
const BUDGET_SHARE = 0.8;

/**
 * When a poll that started at `start` asks for nothing more: after `limitMs`, and within n8n's
 * poll budget.
 */
export function pollDeadline(
	ctx: IPollFunctions,
	start: number,
	limitMs = Number.POSITIVE_INFINITY,
): number {
	let limit = limitMs;
	const budget = typeof ctx.getPollBudgetMs === 'function' ? ctx.getPollBudgetMs() : undefined;
	if (typeof budget === 'number' && Number.isFinite(budget) && budget > 0)
		limit = Math.min(limit, budget * BUDGET_SHARE);
	return start + limit;
}

/** The strings of a list read from static data (anything else is left out). */
export function stringList(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * IDs a trigger remembers in static data, oldest first: those stored before this poll and those
 * added by it. How many are kept is up to the trigger when it writes them back.
 */
export class RememberedIds {
	private readonly before: string[];
	private readonly known: Set<string>;
	private readonly added: string[] = [];

	constructor(stored: unknown) {
		this.before = stringList(stored);
		this.known = new Set(this.before);
	}

	has(id: string): boolean {
		return this.known.has(id);
	}

	add(id: string): void {
		if (this.known.has(id)) return;
		this.known.add(id);
		this.added.push(id);
	}

	/** Whether this poll added any. */
	get changed(): boolean {
		return this.added.length > 0;
	}

	/** How many were stored before this poll. */
	get storedCount(): number {
		return this.before.length;
	}

	/** All of them, oldest first. */
	all(): string[] {
		return this.before.length ? this.before.concat(this.added) : this.added;
	}
}
