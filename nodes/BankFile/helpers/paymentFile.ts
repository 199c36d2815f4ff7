/**
 * What the two operations that build a file from the input items share (Build Payment File,
 * pain.001; Build Direct Debit File, pain.008): the parameters every file has, reading a payment
 * field of an item, and the run itself: every item is checked first; an invalid item stops the
 * node (no file), or with the error output goes there while the file holds the valid ones and says
 * which were left out.
 */
import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { DateTime } from 'luxon';

import type { PaymentProblem } from '../../shared/bankfiles';
import { PaymentValidationError } from '../../shared/bankfiles';
import { InputError } from '../../shared/common/errors';
import { failedItem } from '../../shared/common/runItems';

/** A payment field, mapped per item; the default reads the input field of the same name. */
export function mappedField(
	displayName: string,
	name: string,
	description: string,
	displayOptions: IDisplayOptions,
	settings: { required?: boolean; placeholder?: string } = {},
): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		// An optional field reads an absent input field as empty, so the editor shows no "undefined".
		default: `={{ $json.${name}${settings.required ? '' : ' ?? ""'} }}`,
		required: settings.required ?? false,
		description,
		...(settings.placeholder ? { placeholder: settings.placeholder } : {}),
		displayOptions,
	};
}

/** The message version of the file: its choices, the first one the default. */
export function versionParameter(
	choices: Array<{ name: string; value: string }>,
	defaultVersion: string,
	displayOptions: IDisplayOptions,
): INodeProperties {
	return {
		displayName: 'Message Version',
		name: 'version',
		type: 'options',
		default: defaultVersion,
		options: choices,
		displayOptions,
	};
}

/** The sender of the file, as its group header names it. */
export function initiatingPartyFields(displayOptions: IDisplayOptions): INodeProperties[] {
	return [
		{
			displayName: 'Initiating Party Name',
			name: 'initiatingPartyName',
			type: 'string',
			default: '',
			required: true,
			description: 'The company sending the file (GrpHdr/InitgPty/Nm)',
			displayOptions,
		},
		{
			displayName: 'Initiating Party ID',
			name: 'initiatingPartyId',
			type: 'string',
			default: '',
			description:
				"Optional: the ID the bank knows the sender by (for example a Finnish business ID or the bank's customer ID)",
			displayOptions,
		},
	];
}

export const batchBookingOption: INodeProperties = {
	displayName: 'Batch Booking',
	name: 'batchBooking',
	type: 'options',
	default: 'bank',
	options: [
		{ name: 'As the Bank Decides', value: 'bank' },
		{ name: 'One Entry per Block', value: 'true' },
		{ name: 'One Entry per Payment', value: 'false' },
	],
};

export const characterSetOption: INodeProperties = {
	displayName: 'Character Set',
	name: 'characterSet',
	type: 'options',
	default: 'unicode',
	options: [
		{
			name: 'Any Text Character',
			value: 'unicode',
			description: 'Letters such as ä, ö and å are kept',
		},
		{
			name: 'SEPA Basic Latin Only',
			value: 'sepa',
			description: "Refuse texts outside a-z A-Z 0-9 / - ? : ( ) . , ' + and space.",
		},
	],
};

/** File name, message ID and output field, the last options of either file. */
export const fileOptions: INodeProperties[] = [
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		description: 'Name of the output file; the message ID with .xml when empty',
	},
	{
		displayName: 'Message ID',
		name: 'messageId',
		type: 'string',
		default: '',
		description:
			'Unique ID of the file (at most 35 characters); generated from the time when empty',
	},
	{
		displayName: 'Output Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
	},
];

export interface FileRunOptions {
	messageId?: string;
	batchBooking?: 'bank' | 'true' | 'false';
	characterSet?: 'unicode' | 'sepa';
	fileName?: string;
	binaryPropertyName?: string;
}

/** The settings every built file gets from the node, the same for all items. */
export interface FileSettings {
	messageId: string;
	initiatingPartyName: string;
	initiatingPartyId: string;
	today: string;
	characterSet?: 'unicode' | 'sepa';
	batchBooking?: boolean;
}

/** A parameter of item i as trimmed text. */
export function textParameter(ctx: IExecuteFunctions, name: string, i: number): string {
	const value = ctx.getNodeParameter(name, i, '') as unknown;
	return value === undefined || value === null ? '' : String(value).trim();
}

/** How one kind of file is read from the items, checked and built. */
export interface FileKind<Input, Built extends BuiltFile> {
	/** "payment" / "direct debit": what one item is called in messages. */
	noun: string;
	/** Prefix of a generated message ID. */
	idPrefix: string;
	read(ctx: IExecuteFunctions, itemIndex: number, options: FileRunOptions): Input;
	validate(input: Input, itemIndex: number, settings: FileSettings): PaymentProblem[];
	build(inputs: Input[], settings: FileSettings): Built | Promise<Built>;
}

/** What every built file says of itself. */
interface BuiltFile {
	xml: string;
	messageId: string;
	version: string;
	numberOfTransactions: number;
	controlSum: string;
	paymentInformation: object[];
	endToEndIds: string[];
}

function describeProblems(problems: PaymentProblem[]): string {
	return problems.map((p) => `${p.field}: ${p.message}`).join('; ');
}

/** Why the file cannot be built: the problems the builder found, or what else went wrong. */
function cannotBuild(noun: string, error: unknown): InputError {
	const message =
		error instanceof PaymentValidationError
			? `The ${noun} file cannot be built: ${describeProblems(error.problems)}`
			: error instanceof Error
				? error.message
				: String(error);
	return new InputError(message, { itemIndex: 0 });
}

/** Builds one file from all input items: the file item first, then one error item per bad item. */
export async function buildFileFromItems<Input, Built extends BuiltFile>(
	ctx: IExecuteFunctions,
	kind: FileKind<Input, Built>,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const options = ctx.getNodeParameter('options', 0, {}) as FileRunOptions;
	const settings: FileSettings = {
		messageId:
			options.messageId?.trim() ||
			`${kind.idPrefix}${DateTime.now().toUTC().toFormat('yyyyMMddHHmmssSSS')}`,
		initiatingPartyName: textParameter(ctx, 'initiatingPartyName', 0),
		initiatingPartyId: textParameter(ctx, 'initiatingPartyId', 0),
		today: DateTime.now().setZone(ctx.getTimezone()).toISODate()!,
		characterSet: options.characterSet,
		batchBooking:
			options.batchBooking === 'true' ? true : options.batchBooking === 'false' ? false : undefined,
	};
	const inputs: Input[] = [];
	const good: number[] = [];
	const bad: Array<{ index: number; problems: PaymentProblem[] }> = [];
	for (let i = 0; i < items.length; i++) {
		const input = kind.read(ctx, i, options);
		const problems = kind.validate(input, i, settings);
		if (problems.length) bad.push({ index: i, problems });
		else {
			inputs.push(input);
			good.push(i);
		}
	}
	const continueOnFail = ctx.continueOnFail();
	if (bad.length && !continueOnFail) {
		const first = bad[0];
		const all = bad.flatMap((b) =>
			b.problems.map((p) => `item ${p.index}: ${p.field}: ${p.message}`),
		);
		throw new InputError(
			`Invalid ${kind.noun} in item ${first.index}: ${describeProblems(first.problems)}`,
			{
				itemIndex: first.index,
				description: `No file was produced. ${bad.length} of ${items.length} item(s) are invalid:\n${all.join('\n')}`,
			},
		);
	}
	const errorItems: INodeExecutionData[] = bad.map(({ index, problems }) =>
		failedItem(
			ctx,
			new InputError(`Invalid ${kind.noun}: ${describeProblems(problems)}`, {
				description: `Item ${index} was left out of the file. ${problems.map((p) => `${p.field}: ${p.message}`).join('\n')}`,
			}),
			index,
		),
	);
	if (!inputs.length) {
		if (continueOnFail) return [errorItems];
		throw new InputError(`There are no ${kind.noun}s to put in the file: the input has no items`);
	}
	let built: Built;
	try {
		built = await kind.build(inputs, settings);
	} catch (error) {
		throw cannotBuild(kind.noun, error);
	}
	const fileName = options.fileName?.trim() || `${built.messageId}.xml`;
	const binary = await ctx.helpers.prepareBinaryData(
		Buffer.from(built.xml, 'utf8'),
		fileName,
		'application/xml',
	);
	const leftOut = bad.map((b) => b.index);
	const fileItem: INodeExecutionData = {
		json: {
			messageId: built.messageId,
			version: built.version,
			fileName,
			numberOfTransactions: built.numberOfTransactions,
			controlSum: built.controlSum,
			paymentInformation: built.paymentInformation as IDataObject[],
			endToEndIds: built.endToEndIds,
			includedItems: good,
			leftOutItems: leftOut,
			complete: leftOut.length === 0,
			notice: leftOut.length
				? `${leftOut.length} of ${items.length} ${kind.noun}s were left out of the file (items ${leftOut.join(', ')}): see the error output`
				: `All ${items.length} ${kind.noun}s are in the file`,
		},
		binary: { [options.binaryPropertyName?.trim() || 'data']: binary },
		pairedItem: good.map((item) => ({ item })),
	};
	return [[fileItem, ...errorItems]];
}
