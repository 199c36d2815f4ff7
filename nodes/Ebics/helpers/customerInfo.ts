/**
 * HTD and HKD (what the subscriber, or every user of the customer, may do) as items: one per
 * permission (the default), per account, per order type the customer has, or the whole answer.
 * EBICS 2.5 answers give the same fields, a permission per order type of its list, and add the
 * transfer type, file format and order format where the bank gives them.
 */
import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { BtfService, CustomerInfo } from '../../shared/ebics';
import { serviceLabel } from '../../shared/ebics';

const CLASSES: Record<string, string> = {
	E: 'single signature',
	A: 'first of two signatures',
	B: 'second of two signatures',
	T: 'transport signature only',
};

export const customerInfoOutput: INodeProperties = {
	displayName: 'Output',
	name: 'infoOutput',
	type: 'options',
	default: 'permissions',
	options: [
		{
			name: 'Permissions',
			value: 'permissions',
			description:
				'One item per permission: order type or service, account, limit, signature class',
		},
		{ name: 'Accounts', value: 'accounts', description: 'One item per account of the customer' },
		{
			name: 'Order Types',
			value: 'orders',
			description: 'One item per order type or service the customer has at the bank',
		},
		{ name: 'Whole Answer', value: 'whole', description: 'One item with everything the bank said' },
	],
	displayOptions: { show: { operation: ['subscriberPermissions', 'customerData'] } },
};

function serviceFields(service: BtfService | undefined): IDataObject {
	if (!service) return {};
	return {
		service: serviceLabel(service),
		serviceName: service.serviceName,
		...(service.scope ? { scope: service.scope } : {}),
		...(service.serviceOption ? { serviceOption: service.serviceOption } : {}),
		msgName: service.msgName,
		...(service.msgVersion ? { msgVersion: service.msgVersion } : {}),
		...(service.container ? { container: service.container } : {}),
	};
}

/** The items of an HTD or HKD answer for the chosen output. */
export function customerInfoItems(
	info: CustomerInfo,
	output: string,
	itemIndex: number,
): INodeExecutionData[] {
	const item = (json: IDataObject): INodeExecutionData => ({
		json,
		pairedItem: { item: itemIndex },
	});
	const accounts = new Map(info.partner.accounts.map((a) => [a.id, a]));
	switch (output) {
		case 'accounts':
			return info.partner.accounts.map((account) => item({ ...account }));
		case 'orders':
			return info.partner.orders.map((order) =>
				item({
					orderType: order.orderType,
					...serviceFields(order.service),
					...(order.fileFormat ? { fileFormat: order.fileFormat } : {}),
					...(order.transferType ? { transferType: order.transferType } : {}),
					...(order.orderFormat ? { orderFormat: order.orderFormat } : {}),
					...(order.description ? { description: order.description } : {}),
					...(order.numSigRequired !== undefined
						? { signaturesRequired: order.numSigRequired }
						: {}),
				}),
			);
		case 'whole':
			return [item(JSON.parse(JSON.stringify(info)) as IDataObject)];
		default:
			return info.users.flatMap((user) =>
				user.permissions.map((permission) => {
					const account = permission.accountId ? accounts.get(permission.accountId) : undefined;
					return item({
						userId: user.userId,
						...(user.name ? { userName: user.name } : {}),
						...(user.status !== undefined ? { userStatus: user.status } : {}),
						...(permission.orderType ? { orderType: permission.orderType } : {}),
						...serviceFields(permission.service),
						...(permission.fileFormat ? { fileFormat: permission.fileFormat } : {}),
						...(permission.accountId ? { accountId: permission.accountId } : {}),
						...(account?.iban ? { iban: account.iban } : {}),
						...(permission.maxAmount
							? { maxAmount: permission.maxAmount, currency: permission.currency }
							: {}),
						...(permission.authorisationLevel
							? {
									signatureClass: permission.authorisationLevel,
									signatureClassText: CLASSES[permission.authorisationLevel] ?? null,
								}
							: {}),
					});
				}),
			);
	}
}
