import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { VeuAccount, VeuOrderRef, VeuTransaction } from '../../shared/ebics';
import { EbicsValidationError, H004_ORDER_TYPES } from '../../shared/ebics';
import { outputFileField } from '../../shared/common/properties';
import type { EbicsOperation } from '../../shared/ebics/node/context';
import { readVeuOrder, veuCheck } from '../helpers/veuOrder';

const show = (more: Record<string, unknown[]> = {}) => ({
	show: { operation: ['veuTransactions'], ...more },
});

/** The order's fields are shared with Details, Sign and Cancel (helpers/veuOrder.ts). */
export const description: INodeProperties[] = [
	{
		displayName: 'Return',
		name: 'veuTransactionsOutput',
		type: 'options',
		default: 'transactions',
		options: [
			{
				name: 'Transactions as Items',
				value: 'transactions',
				description:
					'One item per payment of the order: amount, accounts, execution date, remittance text',
			},
			{
				name: 'Complete Order File',
				value: 'file',
				description: 'The file as it was uploaded (for example the pain.001), as binary data',
			},
		],
		displayOptions: show(),
	},
	{
		displayName: 'Return All',
		name: 'veuReturnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		displayOptions: show({ veuTransactionsOutput: ['transactions'] }),
	},
	// No minValue: n8n's number input would turn a typed 0 or -5 into another valid limit. The
	// operation refuses anything but a whole number of at least 1, naming the field.
	{
		displayName: 'Limit',
		name: 'veuLimit',
		type: 'number',
		default: 50,
		description: 'Max number of results to return',
		displayOptions: show({ veuTransactionsOutput: ['transactions'], veuReturnAll: [false] }),
	},
	outputFileField(show({ veuTransactionsOutput: ['file'] })),
];

function limitOf(value: unknown): number {
	if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 9_999_999_999)
		return value;
	throw new EbicsValidationError(
		'veuLimit',
		`Limit: must be a whole number of at least 1, got ${value === '' || value === undefined || value === null ? 'nothing' : JSON.stringify(value)}`,
	);
}

function accountJson(account: VeuAccount | undefined): IDataObject | null {
	if (!account) return null;
	return {
		accountNumber: account.accountNumber ?? null,
		bankCode: account.bankCode ?? null,
		holder: account.holder ?? null,
		currency: account.currency,
	};
}

function descriptions(transaction: VeuTransaction, type: string): string | null {
	const texts = transaction.descriptions.filter((d) => d.type === type).map((d) => d.text);
	return texts.length ? texts.join(' ') : null;
}

/** One item per transaction: the order it belongs to, the amount and the parties. */
function transactionJson(
	ref: VeuOrderRef,
	transaction: VeuTransaction,
	position: number,
	total: number,
): IDataObject {
	const role = (name: string) => transaction.accounts.find((a) => a.role === name);
	return {
		orderId: ref.orderId.toUpperCase(),
		partnerId: ref.partnerId,
		position,
		transactionsInOrder: total,
		msgName: transaction.msgName ?? null,
		amount: Number(transaction.amount),
		amountText: transaction.amount,
		currency: transaction.currency ?? null,
		isCredit: transaction.isCredit ?? null,
		executionDate: transaction.executionDate ?? null,
		originator: accountJson(role('Originator')),
		recipient: accountJson(role('Recipient')),
		purpose: descriptions(transaction, 'Purpose'),
		details: descriptions(transaction, 'Details'),
		comment: descriptions(transaction, 'Comment'),
		accounts: transaction.accounts.map((a) => ({ ...a })),
	};
}

const XML_MESSAGES = /^(pain|camt|pacs|head|auth|acmt|remt)\./i;

export const check = veuCheck(false);

/**
 * Get Order Transactions (HVT): what an order waiting for signatures pays, one item per
 * transaction, or the order's complete file; a second signer sees the payments before signing.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const ref = readVeuOrder(ctx, itemIndex, run.view);
	const output = ctx.getNodeParameter('veuTransactionsOutput', itemIndex, 'transactions');
	if (output === 'file') {
		const propertyName =
			(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string).trim() || 'data';
		const file = await run.veu!.orderFile(ref);
		// EBICS 3.0 names the message; EBICS 2.5 the order type (and a FUL order's file format).
		const name = ref.service?.msgName ?? ref.fileFormat ?? ref.orderType?.toUpperCase() ?? '';
		const xml =
			XML_MESSAGES.test(name) || H004_ORDER_TYPES[name]?.fileName.endsWith('.xml') === true;
		const orderId = ref.orderId.toUpperCase();
		const binary = await ctx.helpers.prepareBinaryData(
			file,
			`${orderId}_${name}${xml ? '.xml' : '.txt'}`,
			xml ? 'application/xml' : 'text/plain',
		);
		return [
			{
				json: { orderId, partnerId: ref.partnerId, fileName: binary.fileName, size: file.length },
				binary: { [propertyName]: binary },
				pairedItem: { item: itemIndex },
			},
		];
	}
	const returnAll = ctx.getNodeParameter('veuReturnAll', itemIndex, false) === true;
	const limit = returnAll ? 0 : limitOf(ctx.getNodeParameter('veuLimit', itemIndex, 50));
	const page = await run.veu!.transactions(ref, { limit, offset: 0 });
	if (!page.transactions.length) {
		ctx.addExecutionHints({
			type: 'info',
			location: 'outputPane',
			message: `The bank lists no transactions for order ${ref.orderId.toUpperCase()} (HVT): no items`,
		});
		return [];
	}
	return page.transactions.map((transaction, index) => ({
		json: transactionJson(ref, transaction, index + 1, page.total),
		pairedItem: { item: itemIndex },
	}));
};
