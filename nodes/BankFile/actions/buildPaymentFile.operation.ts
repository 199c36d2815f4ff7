import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { DateTime } from 'luxon';

import type { PaymentFileVersion, PaymentInput, PaymentProblem } from '../../shared/bankfiles';
import { buildPaymentFile, PaymentValidationError, validatePayment } from '../../shared/bankfiles';
import { InputError } from '../../shared/errors';
import { failedItem } from '../../shared/runItems';
import { optionsCollection } from '../../shared/properties';

const show = { show: { operation: ['buildPaymentFile'] } };

/**
 * A payment field, mapped per item; the default reads the input field of the same name. An
 * optional field reads an absent input field as empty, so the editor shows no "undefined" for it.
 */
const mapped = (
	displayName: string,
	name: string,
	description: string,
	required = false,
	placeholder?: string,
): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	default: `={{ $json.${name}${required ? '' : ' ?? ""'} }}`,
	required,
	description,
	...(placeholder ? { placeholder } : {}),
	displayOptions: show,
});

export const description: INodeProperties[] = [
	{
		displayName: 'Message Version',
		name: 'version',
		type: 'options',
		default: 'pain.001.001.03',
		options: [
			{ name: 'Pain.001.001.03 (SEPA 2009 Rulebook, Widely Accepted)', value: 'pain.001.001.03' },
			{ name: 'Pain.001.001.09 (ISO 20022 2019, SEPA 2023 Rulebook)', value: 'pain.001.001.09' },
		],
		displayOptions: show,
	},
	{
		displayName: 'Initiating Party Name',
		name: 'initiatingPartyName',
		type: 'string',
		default: '',
		required: true,
		description: 'The company sending the payments (GrpHdr/InitgPty/Nm)',
		displayOptions: show,
	},
	{
		displayName: 'Initiating Party ID',
		name: 'initiatingPartyId',
		type: 'string',
		default: '',
		description:
			"Optional: the ID the bank knows the sender by (for example a Finnish business ID or the bank's customer ID)",
		displayOptions: show,
	},
	mapped('Debtor Name', 'debtorName', 'Name of the account holder paying', true),
	mapped('Debtor IBAN', 'debtorIban', 'The account the payments are taken from', true),
	mapped('Debtor BIC', 'debtorBic', "Optional BIC of the debtor's bank"),
	mapped('Creditor Name', 'creditorName', 'Name of the payee', true),
	mapped('Creditor IBAN', 'creditorIban', "The payee's account", true),
	mapped('Creditor BIC', 'creditorBic', "Optional BIC of the payee's bank"),
	mapped('Amount', 'amount', "More than 0, at most 2 decimals (the currency's minor units)", true),
	{
		...mapped('Currency', 'currency', 'ISO 4217 code; EUR when empty'),
		default: '={{ $json.currency || "EUR" }}',
	},
	mapped('Requested Execution Date', 'requestedExecutionDate', 'YYYY-MM-DD, today or later', true),
	mapped(
		'Creditor Reference',
		'creditorReference',
		'RF creditor reference (ISO 11649) or Finnish reference number; leave empty to send a message instead',
	),
	mapped(
		'Message to Payee',
		'remittanceText',
		'Free text up to 140 characters, when there is no creditor reference',
	),
	mapped(
		'End-to-End ID',
		'endToEndId',
		'Your ID of the payment, returned in statements and status reports; generated when empty',
	),
	optionsCollection(
		[
			{
				displayName: 'Batch Booking',
				name: 'batchBooking',
				type: 'options',
				default: 'bank',
				options: [
					{ name: 'As the Bank Decides', value: 'bank' },
					{ name: 'One Entry per Block', value: 'true' },
					{ name: 'One Entry per Payment', value: 'false' },
				],
			},
			{
				displayName: 'Category Purpose',
				name: 'categoryPurpose',
				type: 'string',
				default: '',
				placeholder: 'SUPP',
				description:
					'ISO category purpose code for all payments, such as SALA (salaries) or SUPP (supplier payments)',
			},
			{
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
			},
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
		],
		{ placeholder: 'Add option', displayOptions: show },
	),
];

const text = (ctx: IExecuteFunctions, name: string, i: number): string => {
	const value = ctx.getNodeParameter(name, i, '') as unknown;
	return value === undefined || value === null ? '' : String(value).trim();
};

function describe(problems: PaymentProblem[]): string {
	return problems.map((p) => `${p.field}: ${p.message}`).join('; ');
}

/** Why the file cannot be built: the problems the builder found, or what else went wrong. */
function cannotBuild(error: unknown): InputError {
	const message =
		error instanceof PaymentValidationError
			? `The payment file cannot be built: ${describe(error.problems)}`
			: error instanceof Error
				? error.message
				: String(error);
	return new InputError(message, { itemIndex: 0 });
}

/**
 * One pain.001 file from all input items. Every item is checked first; an invalid item stops the
 * node (no file), or with Continue On Fail goes to the error output while the file holds the
 * valid ones and says which were left out.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const version = this.getNodeParameter('version', 0) as PaymentFileVersion;
	const options = this.getNodeParameter('options', 0, {}) as {
		messageId?: string;
		categoryPurpose?: string;
		batchBooking?: 'bank' | 'true' | 'false';
		characterSet?: 'unicode' | 'sepa';
		fileName?: string;
		binaryPropertyName?: string;
	};
	const today = DateTime.now().setZone(this.getTimezone()).toISODate()!;
	const payments: PaymentInput[] = [];
	const good: number[] = [];
	const bad: Array<{ index: number; problems: PaymentProblem[] }> = [];
	for (let i = 0; i < items.length; i++) {
		const payment: PaymentInput = {
			debtorName: text(this, 'debtorName', i),
			debtorIban: text(this, 'debtorIban', i),
			debtorBic: text(this, 'debtorBic', i),
			creditorName: text(this, 'creditorName', i),
			creditorIban: text(this, 'creditorIban', i),
			creditorBic: text(this, 'creditorBic', i),
			amount: text(this, 'amount', i),
			currency: text(this, 'currency', i) || 'EUR',
			requestedExecutionDate: text(this, 'requestedExecutionDate', i).slice(0, 10),
			creditorReference: text(this, 'creditorReference', i),
			remittanceText: text(this, 'remittanceText', i),
			endToEndId: text(this, 'endToEndId', i),
			categoryPurpose: options.categoryPurpose?.trim() || null,
		};
		const problems = validatePayment(payment, i, { today, characterSet: options.characterSet });
		if (problems.length) bad.push({ index: i, problems });
		else {
			payments.push(payment);
			good.push(i);
		}
	}
	const continueOnFail = this.continueOnFail();
	if (bad.length && !continueOnFail) {
		const first = bad[0];
		const all = bad.flatMap((b) =>
			b.problems.map((p) => `item ${p.index}: ${p.field}: ${p.message}`),
		);
		throw new InputError(`Invalid payment in item ${first.index}: ${describe(first.problems)}`, {
			itemIndex: first.index,
			description: `No file was produced. ${bad.length} of ${items.length} item(s) are invalid:\n${all.join('\n')}`,
		});
	}
	const errorItems: INodeExecutionData[] = bad.map(({ index, problems }) =>
		failedItem(
			this,
			new InputError(`Invalid payment: ${describe(problems)}`, {
				description: `Item ${index} was left out of the payment file. ${problems.map((p) => `${p.field}: ${p.message}`).join('\n')}`,
			}),
			index,
		),
	);
	if (!payments.length) {
		if (continueOnFail) return [errorItems];
		throw new InputError('There are no payments to put in the file: the input has no items');
	}
	const messageId =
		options.messageId?.trim() || `PAY${DateTime.now().toUTC().toFormat('yyyyMMddHHmmssSSS')}`;
	let built;
	try {
		built = buildPaymentFile(payments, {
			version,
			messageId,
			initiatingPartyName: text(this, 'initiatingPartyName', 0),
			initiatingPartyId: text(this, 'initiatingPartyId', 0),
			today,
			characterSet: options.characterSet,
			batchBooking:
				options.batchBooking === 'true'
					? true
					: options.batchBooking === 'false'
						? false
						: undefined,
		});
	} catch (error) {
		throw cannotBuild(error);
	}
	const fileName = options.fileName?.trim() || `${messageId}.xml`;
	const binary = await this.helpers.prepareBinaryData(
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
			paymentInformation: built.paymentInformation as unknown as IDataObject[],
			endToEndIds: built.endToEndIds,
			includedItems: good,
			leftOutItems: leftOut,
			complete: leftOut.length === 0,
			notice: leftOut.length
				? `${leftOut.length} of ${items.length} payments were left out of the file (items ${leftOut.join(', ')}): see the error output`
				: `All ${items.length} payments are in the file`,
		},
		binary: { [options.binaryPropertyName?.trim() || 'data']: binary },
		pairedItem: good.map((item) => ({ item })),
	};
	return [[fileItem, ...errorItems]];
}
