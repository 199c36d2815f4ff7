/**
 * The parse settings of bank files as n8n parameters: the Bank File node's Parse operation shows
 * them, and every file trigger's Output Parsed Entries offers them as its Parse Options
 * (nodes/shared/delivery/parseOptions.ts).
 */
import type { INodeProperties } from 'n8n-workflow';

/** File Format: which kind of bank file to parse. */
export const fileFormatOption: INodeProperties = {
	displayName: 'File Format',
	name: 'format',
	type: 'options',
	default: 'auto',
	description: 'The kind of bank file; detected from the content by default',
	options: [
		{ name: 'BAI2 Balance and Transaction Report', value: 'bai2' },
		{ name: 'Camt.052 Intraday Account Report', value: 'camt.052' },
		{ name: 'Camt.053 Account Statement', value: 'camt.053' },
		{ name: 'Camt.054 Debit/Credit Notification', value: 'camt.054' },
		{ name: 'Detect From Content', value: 'auto' },
		{ name: 'KTL Reference Payments (Viitesiirto)', value: 'ktl' },
		{ name: 'MT940 Account Statement (SWIFT)', value: 'mt940' },
		{ name: 'MT942 Interim Transaction Report (SWIFT)', value: 'mt942' },
		{ name: 'Pain.002 Payment Status Report', value: 'pain.002' },
		{ name: 'TITO Account Statement (Konekielinen Tiliote)', value: 'tito' },
	],
};

export const itemPerOption: INodeProperties = {
	displayName: 'Item Per',
	name: 'split',
	type: 'options',
	default: 'entry',
	description:
		'Whether a batch entry (several transactions booked as one) gives one item or one item per transaction',
	options: [
		{ name: 'Booking Entry', value: 'entry' },
		{ name: 'Transaction Detail', value: 'transaction' },
	],
};

export const keepXmlOption: INodeProperties = {
	displayName: 'Keep Original XML',
	name: 'keepXml',
	type: 'boolean',
	default: false,
	description: 'Whether to add each entry\'s XML element (Ntry) to its item, in the field "xml"',
};

export const onInvalidRecordOption: INodeProperties = {
	displayName: 'On Invalid Entry or Record',
	name: 'onInvalidRecord',
	type: 'options',
	default: 'fail',
	description:
		'What to do with an entry without amount, an entry in another currency than its account, an MT940 entry line that cannot be read, an unknown MT940 field or TITO / KTL record, or a BAI2 detail that cannot be read or trailer totals that do not add up',
	options: [
		{ name: 'Fail', value: 'fail', description: 'Stop with an error naming the entry or line' },
		{
			name: 'Skip With a Warning',
			value: 'warn',
			description: 'Leave it out and put a warning item on the Statements output',
		},
	],
};

export const textEncodingOption: INodeProperties = {
	displayName: 'Text Encoding (MT940, MT942, BAI2, TITO, KTL)',
	name: 'encoding',
	type: 'options',
	default: 'auto',
	options: [
		{ name: 'Detect (UTF-8 or ISO-8859-1)', value: 'auto' },
		{ name: 'ISO-8859-1', value: 'latin1' },
		{ name: 'UTF-8', value: 'utf-8' },
	],
};
