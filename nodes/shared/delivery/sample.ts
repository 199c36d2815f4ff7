/**
 * The sample file of a file trigger's "Fetch Test Event", when the bank has no file the test can
 * show without changing what the bank delivers: a small file of the chosen format made by the
 * node, as the Output makes a file into items, every item marked `sample: true`.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { BankFileFormat } from '../bankfiles';
import type { ParseSettings } from './parsed';
import { parsedItems } from './parsed';
import type { SampleFile } from './samples';
import { SAMPLE_FILES } from './samples';

/** The file reference of a sample file: never one a bank gives. */
export const SAMPLE_REFERENCE = 'SAMPLE';

/** What a file type, service or message name holds. */
const FORMAT_OF_NAME: Array<[RegExp, BankFileFormat]> = [
	[/camt\.?052/i, 'camt.052'],
	[/camt\.?054/i, 'camt.054'],
	[/camt\.?053|^XT$/i, 'camt.053'],
	[/pain\.?002|^XP$/i, 'pain.002'],
	[/\bTITO\b/i, 'tito'],
	[/\bKTL\b/i, 'ktl'],
	[/\bBAI2?\b/i, 'bai2'],
	[/\bMT\s?942\b/i, 'mt942'],
	[/\bMT\s?940\b|\bSTA\b/i, 'mt940'],
];

/** The format the first of these names (a file type code and its label, a BTF MsgName) names. */
export function formatNamed(names: string[]): BankFileFormat | undefined {
	return FORMAT_OF_NAME.find(([pattern]) => names.some((name) => pattern.test(name)))?.[1];
}

const FORMAT_NAMES: Record<BankFileFormat, string> = {
	'camt.052': 'camt.052 intraday account report',
	mt940: 'MT940 account statement',
	mt942: 'MT942 intraday report',
	'camt.053': 'camt.053 account statement',
	'camt.054': 'camt.054 debit/credit notification',
	'pain.002': 'pain.002 payment status report',
	tito: 'TITO account statement',
	ktl: 'KTL reference payment file',
	bai2: 'BAI2 balance and transaction report',
};

export interface SampleRequest extends ParseSettings {
	/** The format to show. */
	format: BankFileFormat;
	/** Whether the Output parses the file (Parsed Entries) or gives it as it is (Files). */
	parsed: boolean;
	/** The trigger's name, for the log. */
	trigger: string;
	/** Fields the trigger's own file items have, with sample values (file type, service). */
	fields?: Record<string, string | null>;
}

/**
 * The sample file as the Output makes a file into items; every item says in `testEvent` what it
 * is (`description`, then `why` the bank's own file is not shown).
 */
export async function sampleItems(
	ctx: IPollFunctions,
	request: SampleRequest,
	testEvent: (description: string) => string,
): Promise<INodeExecutionData[]> {
	const sample: SampleFile = SAMPLE_FILES[request.format];
	const data = await ctx.helpers.prepareBinaryData(
		Buffer.from(sample.content, 'utf8'),
		sample.fileName,
		sample.mimeType,
	);
	const stored: INodeExecutionData = {
		json: {
			fileReference: SAMPLE_REFERENCE,
			...request.fields,
			userFilename: sample.fileName,
			status: SAMPLE_REFERENCE,
			fileName: sample.fileName,
			mimeType: sample.mimeType,
			fileSize: Buffer.byteLength(sample.content, 'utf8'),
		},
		binary: { [request.binaryPropertyName]: data },
	};
	const items = request.parsed
		? await parsedItems(
				ctx,
				stored,
				{ fileReference: SAMPLE_REFERENCE, fileName: sample.fileName },
				request,
				request.trigger,
			)
		: [stored];
	const text = testEvent(`A sample ${FORMAT_NAMES[sample.format]} made by the node`);
	for (const item of items) {
		item.json.sample = true;
		item.json.testEvent = text;
	}
	return items;
}
