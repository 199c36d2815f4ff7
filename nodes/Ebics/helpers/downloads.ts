/**
 * What the download operations share (Download, Customer Acknowledgement, Customer Protocol):
 * which data (what is new, or a date range again), the receipt, and the note a failure adds.
 *
 * The receipt is the bank's delivery state, and it comes only after the last segment (the spec
 * orders the phases: transfer, then receipt). The positive one (the bank marks the data
 * delivered) is sent only after n8n holds what was downloaded (the files in its binary data, or
 * the items built); when n8n got every segment but cannot keep or read the data, the negative one
 * is sent, so the bank delivers the same data again. A download that broke off before its last
 * segment gets no receipt at all: the bank keeps the data and offers it again. A receipt whose
 * answer does not come leaves the items as they are (nothing n8n holds is dropped) with a warning
 * that the bank may deliver them again.
 */
import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { attemptAsync } from '../../shared/common/attempt';
import {
	checkOrder,
	EbicsTransferInterrupted,
	type DateRange,
	type Download,
} from '../../shared/ebics';
import { BankFailure, clause, InputError } from '../../shared/common/errors';
import { dayProperties, optionsCollection, readDay } from '../../shared/common/properties';
import type { EbicsInputCheck } from '../../shared/ebics/node/context';
import { ebicsFailure } from '../../shared/ebics/node/failures';

/** Which data a download asks for: what the bank has not delivered yet, or a date range. */
function rangeProperties(displayOptions: IDisplayOptions): INodeProperties[] {
	const range = { show: { ...displayOptions.show, which: ['dateRange'] } };
	return [
		{
			displayName: 'Which Data',
			name: 'which',
			type: 'options',
			default: 'new',
			options: [
				{
					name: 'New (Not Downloaded Yet)',
					value: 'new',
					description:
						'What the bank has not delivered yet; once n8n has it, the bank marks it delivered',
				},
				{
					name: 'Date Range (Again, Delivered or Not)',
					value: 'dateRange',
					description: 'Everything of these days, also what was downloaded before',
				},
			],
			displayOptions,
		},
		...dayProperties({
			displayName: 'Start Date',
			name: 'startDate',
			description: 'First day of the range, as YYYY-MM-DD',
			displayOptions: range,
			required: true,
		}),
		...dayProperties({
			displayName: 'End Date',
			name: 'endDate',
			description: 'Last day of the range (included), as YYYY-MM-DD',
			displayOptions: range,
			required: true,
		}),
	];
}

/** The "Keep at the Bank" option of a download. */
const keepAtBankOption: INodeProperties = {
	displayName: 'Keep at the Bank',
	name: 'keepAtBank',
	type: 'boolean',
	default: false,
	description:
		'Whether to send the negative receipt after the download, so the bank delivers the same data again next time (to look without taking it)',
};

function day(ctx: IExecuteFunctions, name: string, label: string, itemIndex: number): string {
	const read = readDay(ctx.getNodeParameter(name, itemIndex, '') as unknown, ctx.getTimezone());
	if (!read.problem) return read.day;
	const message =
		read.problem === 'calendar'
			? `${label}: "${read.day}" is not a day of the calendar`
			: `${label}: must be a date (YYYY-MM-DD)${read.problem === 'format' ? `, got "${read.text}"` : ''}`;
	throw new InputError(message, { itemIndex, description: 'Nothing was sent to the bank.' });
}

/** The date range of the parameters, or undefined for new data. */
export function readRange(ctx: IExecuteFunctions, itemIndex: number): DateRange | undefined {
	if (ctx.getNodeParameter('which', itemIndex, 'new') !== 'dateRange') return undefined;
	return {
		start: day(ctx, 'startDate', 'Start Date', itemIndex),
		end: day(ctx, 'endDate', 'End Date', itemIndex),
	};
}

/**
 * The check of an administrative download (HAC, PTK) before anything is sent: its date range, as
 * the initialisation will write it.
 */
export function rangeCheck(orderType: string): EbicsInputCheck {
	return (ctx, itemIndex, view) =>
		checkOrder(
			view.version,
			orderType,
			{ kind: 'standard', dateRange: readRange(ctx, itemIndex) },
			false,
		);
}

/** An error with a sentence added to its description (what became of the download). */
export function withNote(error: Error, note: string): Error {
	if (error instanceof BankFailure)
		return new BankFailure(error.message, {
			description: [error.description, note].filter(Boolean).join('\n'),
			body: error.body,
			httpCode: error.httpCode,
			context: error.context,
			itemIndex: error.itemIndex,
		});
	if (error instanceof InputError)
		return new InputError(error.message, {
			description: [error.description, note].filter(Boolean).join('\n'),
			itemIndex: error.itemIndex,
		});
	return error;
}

export type Receipt = 'positive' | 'negative' | 'unconfirmed';

/** What a download gives `deliver`: its receipts, and how far its transfer came. */
export type Deliverable = Pick<Download, 'orderType' | 'numSegments' | 'acknowledge' | 'reject'> & {
	/** Segments the bank answered (a streamed download); a download held whole has them all. */
	readonly segmentsReceived?: number;
};

/**
 * Builds what n8n keeps of a download, then sends the receipt: positive (or negative when the
 * user keeps the data at the bank). When building failed, the failure is thrown: after the last
 * segment with the negative receipt sent; before it (the transfer broke off, or n8n stopped
 * reading) with no receipt, as the spec allows none before the transfer is complete.
 */
export async function deliver<T>(
	ctx: IExecuteFunctions,
	download: Deliverable,
	keepAtBank: boolean,
	itemIndex: number,
	build: () => Promise<T>,
): Promise<{ value: T; receipt: Receipt }> {
	const built = await attemptAsync(build);
	if (!built.ok) {
		const failure = ebicsFailure(built.error, itemIndex);
		const received = download.segmentsReceived ?? download.numSegments;
		if (received < download.numSegments) {
			// Its own description says where the transfer broke off and that no receipt went out.
			if (built.error instanceof EbicsTransferInterrupted) throw failure;
			throw withNote(
				failure,
				`The download stopped after segment ${received} of ${download.numSegments}, before the last one, so n8n sent no receipt (a receipt comes only after the last segment): the bank keeps the data and offers it again on the next download.`,
			);
		}
		const rejected = await attemptAsync(async () => await download.reject());
		throw withNote(
			failure,
			rejected.ok
				? 'n8n got every segment and sent the negative receipt: the bank keeps the data and delivers it again on the next download.'
				: `n8n got every segment, but the negative receipt did not go through (${clause(ebicsFailure(rejected.error, itemIndex).message)}): the bank keeps the data and delivers it again on the next download.`,
		);
	}
	const sent = await attemptAsync(async () =>
		keepAtBank ? await download.reject() : await download.acknowledge(),
	);
	if (sent.ok) return { value: built.value, receipt: keepAtBank ? 'negative' : 'positive' };
	const why = clause(ebicsFailure(sent.error, itemIndex).message);
	ctx.logger?.warn(`EBICS: the receipt of ${download.orderType} was not confirmed: ${why}`);
	ctx.addExecutionHints({
		type: 'warning',
		location: 'outputPane',
		message: `n8n has the data, but the bank did not confirm the receipt (${why}), so it may deliver the same data again.`,
	});
	return { value: built.value, receipt: 'unconfirmed' };
}

/** The Which Data choices by value, as the panel names them (for the messages that name them). */
const WHICH_DATA = Object.fromEntries(
	((rangeProperties({})[0].options ?? []) as Array<{ name: string; value: string }>).map((o) => [
		o.value,
		o.name,
	]),
) as Record<'new' | 'dateRange', string>;

/**
 * The output when the bank has no data (090005): no items, and a hint saying so. Asked for new
 * data, the hint says that what was downloaded before (a test step too) is delivered and how to
 * fetch it again (Which Data: Date Range).
 */
export function nothingToDownload(ctx: IExecuteFunctions, what: string, range?: DateRange): [] {
	const again = range
		? ''
		: ` Which Data is "${WHICH_DATA.new}": the bank gives only what it has not delivered yet, and what an earlier run downloaded (a test step too) is delivered. To download it again, set Which Data to "${WHICH_DATA.dateRange}" with its Start Date and End Date.`;
	ctx.addExecutionHints({
		type: 'info',
		location: 'outputPane',
		message: `The bank has no ${what} to download (EBICS 090005 EBICS_NO_DOWNLOAD_DATA_AVAILABLE): no items.${again} Set "Always Output Data" in the node's settings to continue the workflow with an empty item.`,
	});
	return [];
}

/** The fields of a download operation: which data, `extra`, and the Keep at the Bank option. */
export function downloadProperties(
	displayOptions: IDisplayOptions,
	extra: INodeProperties[] = [],
): INodeProperties[] {
	return [
		...rangeProperties(displayOptions),
		...extra,
		optionsCollection([keepAtBankOption], { placeholder: 'Add option', displayOptions }),
	];
}

/** Whether the user keeps the download at the bank (the option). */
export function keepAtBank(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return (
		(ctx.getNodeParameter('options', itemIndex, {}) as { keepAtBank?: boolean }).keepAtBank === true
	);
}

/**
 * An administrative download (HAC, PTK) of the parameters' range, read into what `read` makes of
 * it, then the receipt; undefined (and a note in the output) when the bank has none.
 */
export async function readDownload<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	what: string,
	fetch: (range: DateRange | undefined) => Promise<Download | undefined>,
	read: (data: Buffer) => T,
): Promise<{ value: T; receipt: Receipt } | undefined> {
	const range = readRange(ctx, itemIndex);
	const download = await fetch(range);
	if (!download) {
		nothingToDownload(ctx, what, range);
		return undefined;
	}
	return await deliver(ctx, download, keepAtBank(ctx, itemIndex), itemIndex, async () =>
		read(download.data),
	);
}
