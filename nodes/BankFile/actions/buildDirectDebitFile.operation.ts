import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type {
	BuiltDirectDebitFile,
	DirectDebitFileVersion,
	DirectDebitInput,
} from '../../shared/bankfiles';
import { buildDirectDebitFile, validateDirectDebit } from '../../shared/bankfiles';
import { optionsCollection } from '../../shared/common/properties';
import type { FileKind } from '../helpers/paymentFile';
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

const show = { show: { operation: ['buildDirectDebitFile'] } };

export const description: INodeProperties[] = [
	versionParameter(
		[
			{ name: 'Pain.008.001.02 (SEPA 2009 Rulebook)', value: 'pain.008.001.02' },
			{ name: 'Pain.008.001.08 (ISO 20022 2019, SEPA 2023 Rulebook)', value: 'pain.008.001.08' },
		],
		'pain.008.001.08',
		show,
	),
	{
		displayName: 'Scheme',
		name: 'scheme',
		type: 'options',
		default: 'CORE',
		description: 'The SEPA direct debit scheme the mandates were signed for',
		options: [
			{
				name: 'SEPA Core',
				value: 'CORE',
				description: 'Consumers and businesses; the debtor may ask for a refund for 8 weeks',
			},
			{
				name: 'SEPA Business to Business (B2B)',
				value: 'B2B',
				description: "Businesses only; the debtor's bank checks the mandate, no refund",
			},
		],
		displayOptions: show,
	},
	...initiatingPartyFields(show),
	{
		displayName: 'Creditor Name',
		name: 'creditorName',
		type: 'string',
		default: '',
		required: true,
		description: 'Your company, collecting the money (the creditor of the mandates)',
		displayOptions: show,
	},
	{
		displayName: 'Creditor IBAN',
		name: 'creditorIban',
		type: 'string',
		default: '',
		required: true,
		description: 'The account the collected money goes to',
		displayOptions: show,
	},
	{
		displayName: 'Creditor BIC',
		name: 'creditorBic',
		type: 'string',
		default: '',
		description: 'Optional BIC of your bank',
		displayOptions: show,
	},
	{
		displayName: 'Creditor Identifier',
		name: 'creditorId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'DE98ZZZ09999999999',
		description:
			'Your SEPA creditor identifier (Gläubiger-ID), as your bank or central bank gave it; its check digits are verified',
		displayOptions: show,
	},
	mappedField('Debtor Name', 'debtorName', 'Name of the account holder who pays', show, {
		required: true,
	}),
	mappedField('Debtor IBAN', 'debtorIban', 'The account the money is collected from', show, {
		required: true,
	}),
	mappedField('Debtor BIC', 'debtorBic', "Optional BIC of the debtor's bank", show),
	mappedField('Amount', 'amount', 'In euro: more than 0, at most 2 decimals', show, {
		required: true,
	}),
	mappedField('Mandate ID', 'mandateId', 'The reference of the mandate the debtor signed', show, {
		required: true,
	}),
	mappedField(
		'Mandate Signature Date',
		'mandateSignatureDate',
		'The date the debtor signed the mandate, YYYY-MM-DD',
		show,
		{ required: true },
	),
	mappedField(
		'Sequence Type',
		'sequenceType',
		'FRST (first collection of a mandate), RCUR (recurring), FNAL (last one) or OOFF (one-off)',
		show,
		{ required: true, placeholder: 'RCUR' },
	),
	mappedField(
		'Collection Date',
		'requestedCollectionDate',
		'The date the money is to be collected, YYYY-MM-DD, today or later (your bank needs it some days ahead)',
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
		'Message to Debtor',
		'remittanceText',
		'Free text up to 140 characters, when there is no creditor reference',
		show,
	),
	mappedField(
		'End-to-End ID',
		'endToEndId',
		'Your ID of the collection, returned in statements and returns; generated when empty',
		show,
	),
	optionsCollection([batchBookingOption, characterSetOption, ...fileOptions], {
		placeholder: 'Add option',
		displayOptions: show,
	}),
];

/** SEPA direct debits in the chosen pain.008 version. */
const directDebits = (
	version: DirectDebitFileVersion,
): FileKind<DirectDebitInput, BuiltDirectDebitFile> => ({
	noun: 'direct debit',
	idPrefix: 'DD',
	read(ctx, i) {
		const text = (name: string) => textParameter(ctx, name, i);
		return {
			creditorName: text('creditorName'),
			creditorIban: text('creditorIban'),
			creditorBic: text('creditorBic'),
			creditorId: text('creditorId'),
			debtorName: text('debtorName'),
			debtorIban: text('debtorIban'),
			debtorBic: text('debtorBic'),
			amount: text('amount'),
			mandateId: text('mandateId'),
			mandateSignatureDate: text('mandateSignatureDate').slice(0, 10),
			sequenceType: text('sequenceType'),
			requestedCollectionDate: text('requestedCollectionDate').slice(0, 10),
			scheme: text('scheme'),
			creditorReference: text('creditorReference'),
			remittanceText: text('remittanceText'),
			endToEndId: text('endToEndId'),
		};
	},
	validate: (debit, i, settings) => validateDirectDebit(debit, i, settings),
	build: async (inputs, settings) => await buildDirectDebitFile(inputs, { ...settings, version }),
});

/** One pain.008 SEPA direct debit file from all input items. */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const version = this.getNodeParameter('version', 0) as DirectDebitFileVersion;
	return await buildFileFromItems(this, directDebits(version));
}
