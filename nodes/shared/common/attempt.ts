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
