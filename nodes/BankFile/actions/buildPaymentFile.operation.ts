import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { BuiltPaymentFile, PaymentFileVersion, PaymentInput } from '../../shared/bankfiles';
import { buildPaymentFile, validatePayment } from '../../shared/bankfiles';
import { optionsCollection } from '../../shared/common/properties';
import type { FileKind, FileRunOptions } from '../helpers/paymentFile';
import {
	batchBookingOption,
	buildFileFromItems,
	characterSetOption,
	fileOptions,
	initiatingPartyFields,
	mappedField,
	textParameter,
	versionParameter,
} from '../helpers/paymentFile';

const show = { show: { operation: ['buildPaymentFile'] } };

export const description: INodeProperties[] = [
	versionParameter(
		[
			{ name: 'Pain.001.001.03 (SEPA 2009 Rulebook, Widely Accepted)', value: 'pain.001.001.03' },
			{ name: 'Pain.001.001.09 (ISO 20022 2019, SEPA 2023 Rulebook)', value: 'pain.001.001.09' },
		],
		'pain.001.001.03',
		show,
	),
	...initiatingPartyFields(show),
	mappedField('Debtor Name', 'debtorName', 'Name of the account holder paying', show, {
		required: true,
	}),
	mappedField('Debtor IBAN', 'debtorIban', 'The account the payments are taken from', show, {
		required: true,
	}),
	mappedField('Debtor BIC', 'debtorBic', "Optional BIC of the debtor's bank", show),
	mappedField('Creditor Name', 'creditorName', 'Name of the payee', show, { required: true }),
	mappedField('Creditor IBAN', 'creditorIban', "The payee's account", show, { required: true }),
	mappedField('Creditor BIC', 'creditorBic', "Optional BIC of the payee's bank", show),
	mappedField(
		'Amount',
		'amount',
		"More than 0, at most 2 decimals (the currency's minor units)",
		show,
		{ required: true },
	),
	{
		...mappedField('Currency', 'currency', 'ISO 4217 code; EUR when empty', show),
		default: '={{ $json.currency || "EUR" }}',
	},
	mappedField(
		'Requested Execution Date',
		'requestedExecutionDate',
		'YYYY-MM-DD, today or later',
		show,
		{ required: true },
	),
	mappedField(
		'Creditor Reference',
		'creditorReference',
		'RF creditor reference (ISO 11649) or Finnish reference number; leave empty to send a message instead',
		show,
	),
	mappedField(
		'Message to Payee',
		'remittanceText',
		'Free text up to 140 characters, when there is no creditor reference',
		show,
	),
	mappedField(
		'End-to-End ID',
		'endToEndId',
		'Your ID of the payment, returned in statements and status reports; generated when empty',
		show,
	),
	optionsCollection(
		[
			batchBookingOption,
			{
				displayName: 'Category Purpose',
				name: 'categoryPurpose',
				type: 'string',
				default: '',
				placeholder: 'SUPP',
				description:
					'ISO category purpose code for all payments, such as SALA (salaries) or SUPP (supplier payments)',
			},
			characterSetOption,
			...fileOptions,
		],
		{ placeholder: 'Add option', displayOptions: show },
	),
];

/** Credit transfers in the chosen pain.001 version. */
const payments = (version: PaymentFileVersion): FileKind<PaymentInput, BuiltPaymentFile> => ({
	noun: 'payment',
	idPrefix: 'PAY',
	read(ctx, i, options: FileRunOptions & { categoryPurpose?: string }) {
		const text = (name: string) => textParameter(ctx, name, i);
		return {
			debtorName: text('debtorName'),
			debtorIban: text('debtorIban'),
			debtorBic: text('debtorBic'),
			creditorName: text('creditorName'),
			creditorIban: text('creditorIban'),
			creditorBic: text('creditorBic'),
			amount: text('amount'),
			currency: text('currency') || 'EUR',
			requestedExecutionDate: text('requestedExecutionDate').slice(0, 10),
			creditorReference: text('creditorReference'),
			remittanceText: text('remittanceText'),
			endToEndId: text('endToEndId'),
			categoryPurpose: options.categoryPurpose?.trim() || null,
		};
	},
	validate: (payment, i, settings) => validatePayment(payment, i, settings),
	build: (inputs, settings) => buildPaymentFile(inputs, { ...settings, version }),
});

/** One pain.001 credit transfer file from all input items. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const version = this.getNodeParameter('version', 0) as PaymentFileVersion;
	return await buildFileFromItems(this, payments(version));
}
