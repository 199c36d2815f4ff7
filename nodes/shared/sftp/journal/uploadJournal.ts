/**
 * The upload journal of an SFTP credential: which files went to the bank (or may have), by the
 * SHA-256 of the bytes given to the node, so that running the same file again never sends it
 * twice, also after n8n was restarted or killed in the middle of an upload.
 *
 * An upload writes the file under a temporary name first. Just before the rename that hands it
 * to the bank, the entry is put as `renaming`; once the rename is done it becomes `sent`. On the
 * next upload of the same bytes to the same folder:
 * - `sent`: refused, naming when and under which name it was sent (Send Again allows it);
 * - `renaming`: n8n stopped between the two; the node looks at the server: the temporary file
 *   still there means the rename never happened, and the node finishes it (the bank gets the file
 *   once); the file under its own name means it was sent; neither means the bank may have taken
 *   it, and it is refused with that said.
 *
 * The journal lives in the credential's hidden field `sftpUploadJournal`, written through the
 * credential's preAuthentication (the only way a node's run writes its credential, stored by n8n
 * in its database, encrypted): the node hands n8n the credential with a write request in
 * `sftpUploadJournalWrite`; preAuthentication applies it to the journal as stored and returns the
 * new journal and the request emptied. An entry holds no secret: the SHA-256, the folder and
 * names, times. Entries expire after JOURNAL_DAYS days; at most JOURNAL_SIZE are kept.
 */
import type { IDataObject } from 'n8n-workflow';

/** Hidden credential field: the journal, as JSON. */
export const SFTP_UPLOAD_JOURNAL_FIELD = 'sftpUploadJournal';

/** Hidden credential field the node sets for one preAuthentication run: the write asked for. */
export const SFTP_UPLOAD_JOURNAL_WRITE_FIELD = 'sftpUploadJournalWrite';

export const JOURNAL_DAYS = 30;
export const JOURNAL_SIZE = 200;

const DAY = 24 * 60 * 60 * 1000;

export interface SftpJournalEntry {
	/** The login (user@host:port) that sent it. */
	owner: string;
	/** The folder it went to. */
	folder: string;
	/** SHA-256 (hex) of the file as given to the node (before signing and encryption). */
	sha256: string;
	/** The name at the bank, and the temporary name it was written under. */
	name: string;
	temporaryName: string;
	state: 'renaming' | 'sent';
	/** When the state was written (ISO). */
	at: string;
}

export interface SftpJournalWrite {
	op: 'put' | 'remove';
	entry: SftpJournalEntry;
}

function isEntry(value: unknown): value is SftpJournalEntry {
	const e = value as SftpJournalEntry;
	return (
		!!e &&
		typeof e.owner === 'string' &&
		typeof e.folder === 'string' &&
		typeof e.sha256 === 'string' &&
		/^[0-9a-f]{64}$/.test(e.sha256) &&
		typeof e.name === 'string' &&
		typeof e.temporaryName === 'string' &&
		(e.state === 'renaming' || e.state === 'sent') &&
		typeof e.at === 'string' &&
		!Number.isNaN(Date.parse(e.at))
	);
}

/** The stored journal's entries; a value that cannot be read counts as empty. */
export function readSftpJournal(value: unknown): SftpJournalEntry[] {
	if (typeof value !== 'string' || !value.trim()) return [];
	try {
		const parsed = JSON.parse(value) as { entries?: unknown };
		return Array.isArray(parsed?.entries) ? parsed.entries.filter(isEntry) : [];
	} catch {
		return [];
	}
}

const same = (a: SftpJournalEntry, b: Pick<SftpJournalEntry, 'owner' | 'folder' | 'sha256'>) =>
	a.owner === b.owner && a.folder === b.folder && a.sha256 === b.sha256;

function kept(entries: SftpJournalEntry[], now: Date): SftpJournalEntry[] {
	const since = now.getTime() - JOURNAL_DAYS * DAY;
	return entries
		.filter((e) => Date.parse(e.at) >= since)
		.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
		.slice(-JOURNAL_SIZE);
}

/** The entry for these bytes to this folder by this login, when one is kept. */
export function findSftpEntry(
	entries: SftpJournalEntry[],
	key: Pick<SftpJournalEntry, 'owner' | 'folder' | 'sha256'>,
	now = new Date(),
): SftpJournalEntry | undefined {
	return kept(entries, now).find((e) => same(e, key));
}

/** Reads the write request of a preAuthentication run, or undefined for an ordinary run. */
export function readSftpJournalWrite(value: unknown): SftpJournalWrite | undefined {
	if (typeof value !== 'string' || !value) return undefined;
	try {
		const parsed = JSON.parse(value) as Partial<SftpJournalWrite>;
		if ((parsed.op !== 'put' && parsed.op !== 'remove') || !isEntry(parsed.entry)) return undefined;
		return { op: parsed.op, entry: parsed.entry };
	} catch {
		return undefined;
	}
}

/** Applies a write to the stored journal: the fields n8n stores (journal, request emptied). */
export function writeSftpJournal(
	stored: unknown,
	write: SftpJournalWrite,
	now = new Date(),
): IDataObject {
	const others = readSftpJournal(stored).filter((e) => !same(e, write.entry));
	const entries = kept(write.op === 'put' ? [...others, write.entry] : others, now);
	return {
		[SFTP_UPLOAD_JOURNAL_FIELD]: entries.length ? JSON.stringify({ v: 1, entries }) : '',
		[SFTP_UPLOAD_JOURNAL_WRITE_FIELD]: '',
	};
}
