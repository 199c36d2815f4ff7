/**
 * The upload journal of an EBICS credential: which payment uploads may be at the bank without
 * n8n having heard the bank's answer, so that running the same file again never submits it twice,
 * also after n8n was restarted or killed in the middle of an upload.
 *
 * An entry is written just before the last segment of an upload goes out (from then on the bank
 * may hold the order) and removed once the bank has answered it (accepted, or refused). An entry
 * left behind means the answer never came: the Upload operation then does not send the same file
 * again for the same order type or service, but asks the bank (HAC) whether it has the order.
 *
 * The journal lives in the credential's hidden field `ebicsUploadJournal`, written through the
 * credential's preAuthentication, the only path by which a node's run writes its credential: the
 * node hands n8n the credential with a write request in the hidden field `ebicsUploadJournalWrite`;
 * preAuthentication applies it to the journal it was given (read from storage just before) and
 * returns the new journal, the check field as it was and the request emptied; n8n stores them.
 * No request reaches the bank and no key state is touched. An entry holds no secret: the SHA-256
 * of the order data, the order type or service, the bank's order ID, times.
 *
 * The journal is small: entries expire after JOURNAL_DAYS days and at most JOURNAL_SIZE are kept
 * (the oldest go first).
 */
import type { IDataObject } from 'n8n-workflow';

import { EBICS_CHECK_FIELD } from '../credential/ebicsCredential';

/** Hidden credential field: the journal, as JSON. */
export const EBICS_UPLOAD_JOURNAL_FIELD = 'ebicsUploadJournal';

/** Hidden credential field the node sets for one preAuthentication run: the write asked for. */
export const EBICS_UPLOAD_JOURNAL_WRITE_FIELD = 'ebicsUploadJournalWrite';

/** Entries older than this many days are dropped. */
export const JOURNAL_DAYS = 14;

/** At most this many entries are kept. */
export const JOURNAL_SIZE = 50;

const DAY = 24 * 60 * 60 * 1000;

export interface UploadJournalEntry {
	/** The subscriber (host/partner/user) that sent it. */
	owner: string;
	/** The order as the node names it ("BTU SCT pain.001", "CCT"). */
	order: string;
	/** SHA-256 (hex) of the order data as given to the node. */
	sha256: string;
	/** The bank's order ID, when the bank gave one at the initialisation. */
	orderId?: string;
	/** When the last segment was about to go out (ISO). */
	at: string;
}

export interface UploadJournal {
	v: 1;
	entries: UploadJournalEntry[];
}

/** A write the node asks preAuthentication to apply. */
export interface UploadJournalWrite {
	/** Add (or replace) this entry; or remove the entry of this owner, order and SHA-256. */
	op: 'put' | 'remove';
	entry: UploadJournalEntry;
	/** The check field's value before the node emptied it, stored again unchanged. */
	check: string;
}

function isEntry(value: unknown): value is UploadJournalEntry {
	const e = value as UploadJournalEntry;
	return (
		!!e &&
		typeof e.owner === 'string' &&
		typeof e.order === 'string' &&
		typeof e.sha256 === 'string' &&
		/^[0-9a-f]{64}$/.test(e.sha256) &&
		typeof e.at === 'string' &&
		!Number.isNaN(Date.parse(e.at)) &&
		(e.orderId === undefined || typeof e.orderId === 'string')
	);
}

/** Reads the stored journal; a value that cannot be read counts as empty. */
export function readUploadJournal(value: unknown): UploadJournal {
	if (typeof value !== 'string' || !value.trim()) return { v: 1, entries: [] };
	try {
		const parsed = JSON.parse(value) as Partial<UploadJournal>;
		return {
			v: 1,
			entries: Array.isArray(parsed?.entries) ? parsed.entries.filter(isEntry) : [],
		};
	} catch {
		return { v: 1, entries: [] };
	}
}

/** Whether two entries speak of the same upload (subscriber, order, content). */
function same(a: UploadJournalEntry, b: UploadJournalEntry): boolean {
	return a.owner === b.owner && a.order === b.order && a.sha256 === b.sha256;
}

/** The entries still kept at `now`: not expired, at most JOURNAL_SIZE, newest kept. */
function kept(entries: UploadJournalEntry[], now: Date): UploadJournalEntry[] {
	const since = now.getTime() - JOURNAL_DAYS * DAY;
	return entries
		.filter((e) => Date.parse(e.at) >= since)
		.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
		.slice(-JOURNAL_SIZE);
}

/** The journal's entry for this upload, when one is kept. */
export function findUploadEntry(
	journal: UploadJournal,
	owner: string,
	order: string,
	sha256: string,
	now = new Date(),
): UploadJournalEntry | undefined {
	const wanted = { owner, order, sha256, at: '' };
	return kept(journal.entries, now).find((e) => same(e, wanted));
}

/** Whether the journal holds any entry for this subscriber and order (whatever the content). */
export function hasUploadEntries(
	journal: UploadJournal,
	owner: string,
	order: string,
	now = new Date(),
): boolean {
	return kept(journal.entries, now).some((e) => e.owner === owner && e.order === order);
}

/** Reads the write request of a preAuthentication run, or undefined for an ordinary run. */
export function readUploadJournalWrite(value: unknown): UploadJournalWrite | undefined {
	if (typeof value !== 'string' || !value) return undefined;
	try {
		const parsed = JSON.parse(value) as Partial<UploadJournalWrite>;
		if ((parsed.op !== 'put' && parsed.op !== 'remove') || !isEntry(parsed.entry)) return undefined;
		return {
			op: parsed.op,
			entry: parsed.entry,
			check: typeof parsed.check === 'string' ? parsed.check : '',
		};
	} catch {
		return undefined;
	}
}

/**
 * Applies a write to the journal the credential holds and returns the fields n8n stores: the new
 * journal, the check field as it was, the request emptied. Nothing else: no network, no key state.
 */
export function writeUploadJournal(
	stored: unknown,
	write: UploadJournalWrite,
	now = new Date(),
): IDataObject {
	const journal = readUploadJournal(stored);
	const others = journal.entries.filter((e) => !same(e, write.entry));
	const entries = kept(write.op === 'put' ? [...others, write.entry] : others, now);
	return {
		[EBICS_UPLOAD_JOURNAL_FIELD]: entries.length ? JSON.stringify({ v: 1, entries }) : '',
		[EBICS_UPLOAD_JOURNAL_WRITE_FIELD]: '',
		[EBICS_CHECK_FIELD]: write.check,
	};
}
