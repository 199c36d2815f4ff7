import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { operationSubtitle } from '../../shared/common/resources';
import { EBICS_CREDENTIAL } from '../../shared/ebics/credential/ebicsCredential';
import { operationProperties } from '../actions/properties';
import { router } from '../actions/router';

/**
 * Version 1 of the EBICS node: every operation in one Operation list. Workflows saved with it
 * keep it and run as they did; new nodes get version 2 (the operations in resources).
 */
const properties: INodeProperties[] = [
	// A resource parameter listing no values: version 1 makes no actions in n8n's node panel
	// (which shows the newest version only). Saved workflows may hold it with its default.
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'hidden',
		noDataExpression: true,
		default: '',
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Change Keys (PUB, HCA, HCS)',
				value: 'changeKeys',
				description:
					"Replace the subscriber's keys at the bank with new keys made in n8n, sent signed with the current ones",
				action: 'Change the subscriber keys',
			},
			{
				name: 'Distributed Signature: Cancel Order (HVS)',
				value: 'veuCancel',
				description: 'Cancel an order waiting for signatures, after confirming its data digest',
				action: 'Cancel an order waiting for signatures',
			},
			{
				name: 'Distributed Signature: Get Order Details (HVD)',
				value: 'veuDetails',
				description:
					"An order's data digest (what a signer signs), the bank's display of its content and who has signed",
				action: 'Get the details of an order waiting for signatures',
			},
			{
				name: 'Distributed Signature: Get Order Transactions (HVT)',
				value: 'veuTransactions',
				description:
					'The payments of an order waiting for signatures (amounts, accounts, dates), one item each, or its complete file',
				action: 'Get the transactions of an order waiting for signatures',
			},
			{
				name: 'Distributed Signature: Get Orders Waiting (HVU)',
				value: 'veuOrders',
				description:
					'The uploads waiting at the bank for further signatures (VEU), one item per order',
				action: 'Get the orders waiting for signatures',
			},
			{
				name: 'Distributed Signature: Sign Order (HVE)',
				value: 'veuSign',
				description:
					"Sign an order waiting for signatures with this subscriber's electronic signature (A006), after confirming its data digest",
				action: 'Sign an order waiting for signatures',
			},
			{
				name: 'Download',
				value: 'download',
				description:
					'Download files (BTD, or an EBICS 2.5 order type): statements, reports, notifications, payment status; one item per file',
				action: 'Download files',
			},
			{
				name: 'Get Available Downloads (HAA)',
				value: 'availableDownloads',
				description: 'List the services that have data waiting at the bank',
				action: 'Get the available downloads',
			},
			{
				name: 'Get Bank Parameters (HPD)',
				value: 'bankParameters',
				description:
					"The bank's EBICS parameters: its addresses, the versions it speaks and the features it offers (recovery, X.509 data, ...)",
				action: 'Get the bank parameters',
			},
			{
				name: 'Get Bank Versions (HEV)',
				value: 'bankVersions',
				description: 'List the EBICS versions the bank speaks (needs no keys)',
				action: 'Get the bank versions',
			},
			{
				name: 'Get Customer Acknowledgement (HAC)',
				value: 'customerAcknowledgement',
				description:
					'What the bank did with each order (why an upload was accepted or refused), one item per event',
				action: 'Get the customer acknowledgement',
			},
			{
				name: 'Get Customer Data (HKD)',
				value: 'customerData',
				description: "The customer's accounts and every user's permissions, as items",
				action: 'Get the customer data',
			},
			{
				name: 'Get Customer Protocol (PTK)',
				value: 'customerProtocol',
				description: "The bank's text protocol of the orders, one item per line",
				action: 'Get the customer protocol',
			},
			{
				name: 'Get Subscriber Permissions (HTD)',
				value: 'subscriberPermissions',
				description: 'What this subscriber may do (services, accounts, signature class), as items',
				action: 'Get the subscriber permissions',
			},
			{
				name: 'Initialisation Letters',
				value: 'initialisationLetters',
				description:
					'The INI and HIA letters to sign and send to the bank (PDF and HTML), with the key hashes as fields',
				action: 'Get the initialisation letters',
			},
			{
				name: 'Suspend Subscriber (SPR)',
				value: 'suspend',
				description: 'Stop this subscriber at the bank (for a key that may be compromised)',
				action: 'Suspend the subscriber',
			},
			{
				name: 'Upload',
				value: 'upload',
				description:
					'Upload a payment file (BTU, or an EBICS 2.5 order type): SEPA credit transfer, instant, direct debit, foreign, or any service',
				action: 'Upload a payment file',
			},
		],
		default: 'download',
	},
];

const operation = properties.find((p) => p.name === 'operation')!;

// One version of the EBICS node (Ebics.node.ts), which n8n loads: the icon, name and
// description come from there, so n8n's lint does not take this class for a node of its own.
export class EbicsV1 {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 1,
			subtitle: operationSubtitle(operation.options as Array<{ name: string; value: string }>),
			defaults: { name: 'EBICS' },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: EBICS_CREDENTIAL, required: true }],
			properties: [...properties, ...operationProperties],
		};
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
