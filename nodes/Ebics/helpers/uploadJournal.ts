/**
 * The Upload operation's side of the upload journal (nodes/shared/ebicsUploadJournal.ts): reading
 * it, writing an entry through the credential's preAuthentication (nothing is sent to the bank),
 * and asking the bank's customer acknowledgement (HAC) what became of an upload whose answer
 * never came.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { attemptAsync } from '../../shared/common/attempt';
import { readCustomerAcknowledgement, type EbicsClient, type HacEntry } from '../../shared/ebics';
import { EBICS_CHECK_FIELD, EBICS_CREDENTIAL } from '../../shared/ebics/credential/ebicsCredential';
import {
	EBICS_UPLOAD_JOURNAL_FIELD,
	EBICS_UPLOAD_JOURNAL_WRITE_FIELD,
	findUploadEntry,
	readUploadJournal,
	type UploadJournal,
	type UploadJournalEntry,
} from '../../shared/ebics/journal/ebicsUploadJournal';
import { InputError } from '../../shared/common/errors';
import { runPreAuthenticationNow } from '../../shared/keys';
import { preAuthenticationProbe } from '../../shared/ebics/node/context';
import { ebicsFailure } from '../../shared/ebics/node/failures';

/** The journal as the credential holds it now (read from storage). */
export async function currentJournal(ctx: IExecuteFunctions): Promise<UploadJournal> {
	const credentials = await ctx.getCredentials(EBICS_CREDENTIAL);
	return readUploadJournal(credentials[EBICS_UPLOAD_JOURNAL_FIELD]);
}

/**
 * Adds the entry to the journal (`put`) or removes it (`remove`), stored by n8n before this
 * resolves; throws when the credential does not hold the journal as asked afterwards.
 */
export async function writeJournal(
	ctx: IExecuteFunctions,
	op: 'put' | 'remove',
	entry: UploadJournalEntry,
	itemIndex: number,
): Promise<void> {
	const credentials = await ctx.getCredentials(EBICS_CREDENTIAL);
	const check = String(credentials[EBICS_CHECK_FIELD] ?? '');
	const run = await runPreAuthenticationNow(
		ctx,
		EBICS_CREDENTIAL,
		credentials,
		{
			[EBICS_UPLOAD_JOURNAL_WRITE_FIELD]: JSON.stringify({ op, entry, check }),
			[EBICS_CHECK_FIELD]: '',
		},
		preAuthenticationProbe(),
	);
	const after = readUploadJournal(run.credentials[EBICS_UPLOAD_JOURNAL_FIELD]);
	const held = findUploadEntry(after, entry.owner, entry.order, entry.sha256);
	const done = op === 'put' ? held?.at === entry.at : !held;
	if (!done)
		throw new InputError(
			`The upload journal in the EBICS credential could not be ${op === 'put' ? 'written' : 'cleared'}${run.error ? `: ${(run.error as Error)?.message ?? String(run.error)}` : ''}`,
			{
				itemIndex,
				description:
					op === 'put'
						? 'The upload stopped before its last segment: the bank does not process an incomplete order, so nothing was submitted. Send the file again.'
						: undefined,
			},
		);
}

export type BankVerdict =
	| { state: 'accepted' | 'refused'; events: HacEntry[] }
	| { state: 'unknown'; reason: string };

const DAY = 24 * 60 * 60 * 1000;

const day = (time: number): string => new Date(time).toISOString().slice(0, 10);

/**
 * What the bank's customer acknowledgement (HAC) says of the entry's order, for the days from the
 * day before it was sent to tomorrow (the bank's day may differ from UTC). The download is looked
 * at only: the negative receipt leaves the bank's delivery state as it was.
 */
export async function askBank(
	client: EbicsClient,
	entry: UploadJournalEntry,
	itemIndex: number,
	now = new Date(),
): Promise<BankVerdict> {
	if (!entry.orderId)
		return { state: 'unknown', reason: 'the bank gave no order ID for it, so HAC cannot name it' };
	const range = { start: day(Date.parse(entry.at) - DAY), end: day(now.getTime() + DAY) };
	const got = await attemptAsync(async () => await client.hac(range));
	if (!got.ok)
		return {
			state: 'unknown',
			reason: `the customer acknowledgement (HAC) could not be fetched: ${ebicsFailure(got.error, itemIndex).message}`,
		};
	const download = got.value;
	if (!download)
		return {
			state: 'unknown',
			reason: `the customer acknowledgement (HAC) of ${range.start} to ${range.end} is empty`,
		};
	const read = await attemptAsync(async () => readCustomerAcknowledgement(download.data));
	await attemptAsync(async () => await download.reject());
	if (!read.ok)
		return {
			state: 'unknown',
			reason: `the customer acknowledgement (HAC) could not be read: ${(read.error as Error).message}`,
		};
	const events = read.value.entries.filter((e) => e.orderId === entry.orderId);
	if (!events.length)
		return {
			state: 'unknown',
			reason: `the customer acknowledgement (HAC) of ${range.start} to ${range.end} does not list order ${entry.orderId}`,
		};
	return { state: events.some((e) => e.refused === true) ? 'refused' : 'accepted', events };
}
