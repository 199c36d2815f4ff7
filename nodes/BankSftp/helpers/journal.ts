/**
 * The Upload operation's side of the upload journal (nodes/shared/sftp/journal): reading it, and
 * writing an entry through the credential's preAuthentication (nothing goes to the server).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { InputError } from '../../shared/common/errors';
import { runPreAuthenticationNow } from '../../shared/keys';
import { SFTP_CREDENTIAL, sftpProbe } from '../../shared/sftp/credential/sftpCredential';
import {
	findSftpEntry,
	readSftpJournal,
	SFTP_UPLOAD_JOURNAL_FIELD,
	SFTP_UPLOAD_JOURNAL_WRITE_FIELD,
	type SftpJournalEntry,
} from '../../shared/sftp/journal/uploadJournal';

/** The journal as the credential holds it now (read from storage). */
export async function journalEntries(ctx: IExecuteFunctions): Promise<SftpJournalEntry[]> {
	const credentials = await ctx.getCredentials(SFTP_CREDENTIAL);
	return readSftpJournal(credentials[SFTP_UPLOAD_JOURNAL_FIELD]);
}

/** Puts the entry into the journal, stored by n8n before this resolves; throws when it is not. */
export async function putJournal(
	ctx: IExecuteFunctions,
	entry: SftpJournalEntry,
	itemIndex: number,
): Promise<void> {
	const credentials = await ctx.getCredentials(SFTP_CREDENTIAL);
	const run = await runPreAuthenticationNow(
		ctx,
		SFTP_CREDENTIAL,
		credentials,
		{ [SFTP_UPLOAD_JOURNAL_WRITE_FIELD]: JSON.stringify({ op: 'put', entry }) },
		sftpProbe(),
	);
	const held = findSftpEntry(readSftpJournal(run.credentials[SFTP_UPLOAD_JOURNAL_FIELD]), entry);
	if (held?.at !== entry.at || held.state !== entry.state)
		throw new InputError(
			`The upload journal in the Bank SFTP credential could not be written${run.error ? `: ${(run.error as Error)?.message ?? String(run.error)}` : ''}`,
			{
				itemIndex,
				description:
					entry.state === 'renaming'
						? `The file is at the bank under its temporary name ${entry.temporaryName} only, which the bank does not pick up; run the node again to finish or redo it.`
						: `The file was handed to the bank as ${entry.name}; do not send it again.`,
			},
		);
}
