/**
 * One-time codes (a PIN, a transfer key, an activation code) sent to a bank to get the first
 * certificate. A code is spent only when the bank may have received it: the request carrying it
 * goes through a carrier that marks the code spent when the bank answered or the connection broke
 * after sending (outcome unknown); a connection that failed before anything was sent leaves it
 * usable. A spent code is never sent again by this process, and pasting it again says what became
 * of it. One enrolment per code runs at a time.
 */
import { createHash } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { attemptAsync } from '../common/attempt';
import { EnrolmentError } from './state';
import type { KeyServiceSender } from './sender';
import { KeyServiceUnreachable } from './sender';

/** A one-time code as the credential holds it. */
export interface OneTimeCode {
	/** The field's label, as the user knows it ("Transfer Key", "PIN"). */
	label: string;
	/** How messages name it: "code" or "PIN". */
	word: 'code' | 'PIN';
	/** The code (cleaned of the spaces people copy), empty when none was pasted. */
	value?: string;
	/** Whose code it is (the customer id): the same code of another customer is another code. */
	owner: string;
	/** The key service it is sent to, for messages. */
	url?: string;
}

/** SHA-256 of the owner and the code: kept with the enrolment so the code is never sent again. */
export function codeHash(owner: string, code: string): string {
	return createHash('sha256').update(`${owner}\u0000${code}`).digest('hex');
}

/**
 * Process memory of the codes this process spent: a code the bank may have received is never sent
 * again, and pasting it again says what became of it.
 */
const spentCodes = new Map<string, { at: string; outcome: string }>();
/** One enrolment per code at a time: concurrent runs wait for the first instead of sending it again. */
const inflight = new Map<string, Promise<IDataObject>>();

/** Forgets the codes spent by this process (tests). */
export function forgetSpentCodes(): void {
	spentCodes.clear();
}

/** The sender of the one request that carries a one-time code, and what became of the code. */
export interface CodeCarrier {
	/**
	 * Sends the request that carries the code. The code counts as spent once the bank may have
	 * received it: it answered, or the connection broke after the request went out.
	 */
	send: KeyServiceSender;
	/** Whether the request carrying the code may have reached the bank. */
	readonly spent: boolean;
	/** Records what the bank did with the code (said when the code is pasted again). */
	settle(outcome: string): void;
}

function codeCarrier(hash: string, send: KeyServiceSender, now: Date): CodeCarrier {
	const spend = (outcome: string) => spentCodes.set(hash, { at: now.toISOString(), outcome });
	const carrier = {
		spent: false,
		send: async (request: Parameters<KeyServiceSender>[0]) => {
			const reply = await attemptAsync(async () => await send(request));
			const unsent =
				!reply.ok &&
				reply.error instanceof KeyServiceUnreachable &&
				reply.error.delivered === false;
			if (!unsent) {
				carrier.spent = true;
				spend(
					reply.ok
						? 'the bank answered'
						: 'the connection broke after it was sent, so whether the bank used it is unknown',
				);
			}
			if (!reply.ok) throw reply.error;
			return reply.value;
		},
		settle: (outcome: string) => {
			if (carrier.spent) spend(outcome);
		},
	};
	return carrier;
}

/**
 * The rules every bank shares: a code is required, is sent to the bank once (a code the bank may
 * have received is refused before anything is sent), and one enrolment at a time runs per code (a
 * second caller waits for the first one's outcome). `start` gets the code's hash and its carrier.
 */
export async function oncePerCode(
	code: OneTimeCode,
	send: KeyServiceSender,
	now: Date,
	start: (hash: string, carrier: CodeCarrier) => Promise<IDataObject>,
): Promise<IDataObject> {
	if (!code.value) {
		throw new EnrolmentError(
			`${code.label}: required. Paste the one-time ${code.word} the bank gave you for the web services contract, then save the credential`,
		);
	}
	const hash = codeHash(code.owner, code.value);
	const running = inflight.get(hash);
	if (running) return await running;
	const spent = spentCodes.get(hash);
	if (spent) {
		throw new EnrolmentError(
			`${code.label}: this ${code.word} was already sent to the bank (${spent.at}: ${spent.outcome}). A ${code.word} works once: ask the bank for a new one and paste it into the credential`,
		);
	}
	const work = start(hash, codeCarrier(hash, send, now));
	inflight.set(hash, work);
	try {
		return await work;
	} finally {
		inflight.delete(hash);
	}
}

/**
 * The failure of an enrolment whose request with the code got no answer: the code is unspent when
 * nothing was sent, and its fate unknown when the connection broke after sending.
 */
export function unansweredEnrolment(
	code: OneTimeCode,
	request: string,
	error: KeyServiceUnreachable,
): EnrolmentError {
	return new EnrolmentError(
		error.delivered === false
			? `Enrolment failed: the certificate service at ${code.url} could not be reached: ${error.reason}. The ${code.label} was not sent and still works: correct the address or the connection and save the credential again. Nothing was stored`
			: `Enrolment failed: ${request} with the ${code.label} was sent to ${code.url}, but ${error.reason}, so whether the bank used the ${code.word} is unknown. Nothing was stored. A ${code.word} works once: ask the bank for a new one (and whether this one was used)`,
	);
}
