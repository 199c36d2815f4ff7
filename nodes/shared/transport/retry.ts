export interface RetryPolicy {
	/** Total attempts including the first (1 = no retry). */
	attempts: number;
	/** First backoff in milliseconds; doubles each attempt. */
	baseDelayMs: number;
	/** Upper bound of one backoff. */
	maxDelayMs: number;
	/** Full jitter: each delay is drawn uniformly from [delay/2, delay]. */
	jitter: boolean;
}

export const DEFAULT_RETRY: RetryPolicy = {
	attempts: 3,
	baseDelayMs: 300,
	maxDelayMs: 5000,
	jitter: true,
};
export const NO_RETRY: RetryPolicy = { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, jitter: false };

export function backoffDelay(
	policy: RetryPolicy,
	attempt: number,
	random: () => number = Math.random,
): number {
	const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	if (!policy.jitter) return exp;
	return Math.round(exp / 2 + (random() * exp) / 2);
}

export interface RetryHooks {
	/** Decides whether the error may be retried. */
	retryable: (error: unknown) => boolean;
	/** Called before waiting for the next attempt. */
	onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
	random?: () => number;
	sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = async (ms: number) =>
	await new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `fn` until it succeeds, the error is not retryable, or the attempts are used up. */
export async function withRetry<T>(
	policy: RetryPolicy,
	hooks: RetryHooks,
	fn: (attempt: number) => Promise<T>,
): Promise<T> {
	const attempts = Math.max(1, Math.floor(policy.attempts));
	const sleep = hooks.sleep ?? defaultSleep;
	for (let attempt = 1; ; attempt++) {
		const outcome = await fn(attempt).then(
			(value) => ({ ok: true as const, value }),
			(error: unknown) => ({ ok: false as const, error }),
		);
		if (outcome.ok) return outcome.value;
		if (attempt >= attempts || !hooks.retryable(outcome.error)) throw outcome.error;
		const delay = backoffDelay(policy, attempt, hooks.random);
		hooks.onRetry?.(outcome.error, attempt, delay);
		if (delay > 0) await sleep(delay);
	}
}
