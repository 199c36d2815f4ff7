/**
 * Holds of the sandbox EBICS bank: a test arms a hold on a kind of request (a BTD initialisation,
 * a receipt); the next matching request waits at the bank, unprocessed, until the test releases
 * it, either processed as usual or dropped (the connection closed, nothing done: the bank never
 * got it). So an end-to-end test can stop n8n in the middle of a poll, at a known step, and wait
 * for that step instead of for time.
 *
 * Steps: 'download' (a BTD initialisation), 'receipt', 'lastSegment' (the last segment of an
 * upload, before the bank reads it: released with process true the bank stores the order, as when
 * only its answer is lost; with false it never got it).
 *
 * Admin routes (JSON) under /__sandbox/ebics: POST holds {step} arms one;
 * GET holds answers {armed, waiting: [step, ...]}; POST holds/release {process: boolean} releases
 * every waiting request and disarms the rest.
 */
import { allElements, text } from '../../../nodes/shared/ebics';

import type { SandboxEbicsBank } from './bank';

export type HoldStep = 'download' | 'receipt' | 'lastSegment';
export const HOLD_STEPS: HoldStep[] = ['download', 'receipt', 'lastSegment'];

interface Waiting {
	step: HoldStep;
	release: (process: boolean) => void;
}

class Holds {
	armed: HoldStep[] = [];
	waiting: Waiting[] = [];
	/** Tests in the same process waiting for a request to be held. */
	watchers: Array<{ step: HoldStep; resolve: () => void }> = [];
}

const holdsOf = new WeakMap<SandboxEbicsBank, Holds>();

function holds(bank: SandboxEbicsBank): Holds {
	let found = holdsOf.get(bank);
	if (!found) {
		found = new Holds();
		holdsOf.set(bank, found);
	}
	return found;
}

/** The step of a request, as holds name them (from its DOM, before the bank reads it). */
function stepOf(doc: Document | undefined): HoldStep | undefined {
	if (!doc) return undefined;
	const all = allElements(doc.documentElement);
	const first = (name: string): Element | undefined => all.find((e) => e.localName === name);
	const phase = text(first('TransactionPhase'))?.trim();
	if (phase === 'Receipt') return 'receipt';
	if (phase === 'Transfer' && all.some((e) => e.localName === 'SegmentNumber' && e.getAttribute('lastSegment') === 'true') && first('OrderData')) return 'lastSegment';
	if (phase === 'Initialisation' && text(first('AdminOrderType'))?.trim() === 'BTD') return 'download';
	return undefined;
}

/**
 * Waits while a hold armed for this request's step keeps it; resolves whether the bank processes
 * it (else the caller drops the connection).
 */
export async function passHolds(bank: SandboxEbicsBank, doc: Document | undefined): Promise<boolean> {
	const h = holds(bank);
	const step = stepOf(doc);
	const index = step ? h.armed.indexOf(step) : -1;
	if (!step || index < 0) return true;
	h.armed.splice(index, 1);
	const held = new Promise<boolean>((resolve) => h.waiting.push({ step, release: resolve }));
	const watching = h.watchers.filter((w) => w.step === step);
	h.watchers = h.watchers.filter((w) => w.step !== step);
	for (const w of watching) w.resolve();
	return await held;
}

/** Resolves when a request of this step is held (at once when one waits already). */
export async function whenHeld(bank: SandboxEbicsBank, step: HoldStep): Promise<void> {
	const h = holds(bank);
	if (h.waiting.some((w) => w.step === step)) return;
	await new Promise<void>((resolve) => h.watchers.push({ step, resolve }));
}

export function armHold(bank: SandboxEbicsBank, step: unknown): void {
	if (!HOLD_STEPS.includes(step as HoldStep)) throw new Error(`step must be one of ${HOLD_STEPS.join(', ')}.`);
	holds(bank).armed.push(step as HoldStep);
}

export function holdState(bank: SandboxEbicsBank): { armed: HoldStep[]; waiting: HoldStep[] } {
	const h = holds(bank);
	return { armed: [...h.armed], waiting: h.waiting.map((w) => w.step) };
}

export function releaseHolds(bank: SandboxEbicsBank, process: boolean): void {
	const h = holds(bank);
	const waiting = h.waiting;
	h.waiting = [];
	h.armed = [];
	for (const w of waiting) w.release(process);
}
