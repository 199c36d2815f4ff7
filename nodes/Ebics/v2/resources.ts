import type { ResourceDefinition } from '../../shared/common/resources';

/**
 * The EBICS node's operations in resources (version 2): what is sent or fetched (Order), the
 * distributed signature of orders waiting at the bank, the subscriber's own keys and rights, and
 * what the bank tells about itself and the customer's orders. The values are version 1's, which
 * the operation files' fields and the router name.
 */
export const EBICS_RESOURCES: ResourceDefinition[] = [
	{
		name: 'Order',
		value: 'order',
		description: 'Download bank files, upload payment files',
		default: 'download',
		operations: [
			{
				name: 'Download',
				value: 'download',
				action: 'Download bank files',
				description:
					'Download files (BTD, or an EBICS 2.5 order type): statements, reports, notifications, payment status; one item per file',
			},
			{
				name: 'Upload',
				value: 'upload',
				action: 'Upload a payment file',
				description:
					'Upload a payment file (BTU, or an EBICS 2.5 order type): SEPA credit transfer, instant, direct debit, foreign, or any service',
			},
		],
	},
	{
		name: 'Distributed Signature',
		value: 'distributedSignature',
		description: 'Orders waiting at the bank for further signatures (VEU)',
		default: 'veuOrders',
		operations: [
			{
				name: 'Get Orders Waiting (HVU)',
				value: 'veuOrders',
				action: 'Get orders waiting for signatures',
				description:
					'The uploads waiting at the bank for further signatures (VEU), one item per order',
			},
			{
				name: 'Get Order Details (HVD)',
				value: 'veuDetails',
				action: 'Get details of an order to sign',
				description:
					"An order's data digest (what a signer signs), the bank's display of its content and who has signed",
			},
			{
				name: 'Get Order Transactions (HVT)',
				value: 'veuTransactions',
				action: 'Get transactions of an order to sign',
				description:
					'The payments of an order waiting for signatures (amounts, accounts, dates), one item each, or its complete file',
			},
			{
				name: 'Sign Order (HVE)',
				value: 'veuSign',
				action: 'Sign an order waiting for signatures',
				description:
					"Sign an order waiting for signatures with this subscriber's electronic signature (A006), after confirming its data digest",
			},
			{
				name: 'Cancel Order (HVS)',
				value: 'veuCancel',
				action: 'Cancel an order waiting for signatures',
				description: 'Cancel an order waiting for signatures, after confirming its data digest',
			},
		],
	},
	{
		name: 'Subscriber',
		value: 'subscriber',
		description: "This subscriber's keys, letters and rights at the bank",
		default: 'initialisationLetters',
		operations: [
			{
				name: 'Get Initialisation Letters',
				value: 'initialisationLetters',
				action: 'Get initialisation letters',
				description:
					'The INI and HIA letters to sign and send to the bank (PDF and HTML), with the key hashes as fields',
			},
			{
				name: 'Change Keys (PUB, HCA, HCS)',
				value: 'changeKeys',
				action: 'Change the subscriber keys',
				description:
					"Replace the subscriber's keys at the bank with new keys made in n8n, sent signed with the current ones",
			},
			{
				name: 'Suspend (SPR)',
				value: 'suspend',
				action: 'Suspend the subscriber',
				description: 'Stop this subscriber at the bank (for a key that may be compromised)',
			},
			{
				name: 'Get Permissions (HTD)',
				value: 'subscriberPermissions',
				action: 'Get subscriber permissions',
				description: 'What this subscriber may do (services, accounts, signature class), as items',
			},
			{
				name: 'Get Customer Data (HKD)',
				value: 'customerData',
				action: 'Get customer data',
				description: "The customer's accounts and every user's permissions, as items",
			},
		],
	},
	{
		name: 'Bank',
		value: 'bank',
		description: 'What the bank speaks and offers, and what it did with the orders',
		default: 'bankVersions',
		operations: [
			{
				name: 'Get Versions (HEV)',
				value: 'bankVersions',
				action: 'Get bank versions',
				description: 'List the EBICS versions the bank speaks (needs no keys)',
			},
			{
				name: 'Get Parameters (HPD)',
				value: 'bankParameters',
				action: 'Get bank parameters',
				description:
					"The bank's EBICS parameters: its addresses, the versions it speaks and the features it offers (recovery, X.509 data, ...)",
			},
			{
				name: 'Get Available Downloads (HAA)',
				value: 'availableDownloads',
				action: 'Get available downloads',
				description: 'List the services that have data waiting at the bank',
			},
			{
				name: 'Get Customer Acknowledgement (HAC)',
				value: 'customerAcknowledgement',
				action: 'Get customer acknowledgement',
				description:
					'What the bank did with each order (why an upload was accepted or refused), one item per event',
			},
			{
				name: 'Get Customer Protocol (PTK)',
				value: 'customerProtocol',
				action: 'Get customer protocol',
				description: "The bank's text protocol of the orders, one item per line",
			},
		],
	},
];
