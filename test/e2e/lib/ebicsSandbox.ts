/**
 * What the EBICS end-to-end tests read from the sandbox EBICS bank's admin API, and waiting for a
 * state of it (an event at the bank, never a time).
 */
import { sleep } from './n8n';
import type { Stack } from './stack';

export interface EbicsBankFile {
	id?: number;
	serviceName: string;
	msgName: string;
	name: string;
	delivered: boolean;
}

/** A subscriber's end-of-day statements (camt.053) at the bank. */
export async function statementsAt(stack: Stack, partnerId: string, userId: string): Promise<EbicsBankFile[]> {
	const { subscribers } = await stack.bank.admin<{ subscribers: Array<{ partnerId: string; userId: string; files: EbicsBankFile[] }> }>('GET', '/ebics/subscribers');
	const subscriber = subscribers.find((s) => s.partnerId === partnerId && s.userId === userId)!;
	return subscriber.files.filter((f) => f.serviceName === 'EOP' && f.msgName === 'camt.053');
}

/** Reads until `check` holds; fails naming `what` (and the last value read) after 3 minutes. */
export async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
	const deadline = Date.now() + 180_000;
	for (;;) {
		const value = await read();
		if (check(value)) return value;
		if (Date.now() > deadline) throw new Error(`waited 180 s for ${what}; last: ${JSON.stringify(value)}`);
		await sleep(500);
	}
}
