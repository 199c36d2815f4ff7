/**
 * The outcome of a call that may throw, as a value (keeps error translation out of catch blocks).
 */
export type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function attempt<T>(fn: () => T): Attempt<T> {
	try {
		return { ok: true, value: fn() };
	} catch (error) {
		return { ok: false, error };
	}
}

/** attempt for a promise: its value or what it rejected with. */
export async function attemptAsync<T>(fn: () => Promise<T>): Promise<Attempt<T>> {
	try {
		return { ok: true, value: await fn() };
	} catch (error) {
		return { ok: false, error };
	}
}

/**
 * A promise settled later from outside (when a stream has ended, say), with the two functions that
 * settle it. A rejection nobody awaits yet is not reported as unhandled.
 */
export function pending<T, E extends Error = Error>(): {
	promise: Promise<T>;
	settle: (value: T) => void;
	fail: (error: E) => void;
} {
	let settle!: (value: T) => void;
	let fail!: (error: E) => void;
	const promise = new Promise<T>((resolve, reject) => {
		settle = resolve;
		fail = reject;
	});
	promise.catch(() => undefined);
	return { promise, settle, fail };
}
