import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { EBICS_CREDENTIAL } from '../shared/ebics/credential/ebicsCredential';
import * as availableDownloads from './actions/availableDownloads.operation';
import * as bankParameters from './actions/bankParameters.operation';
import * as bankVersions from './actions/bankVersions.operation';
import * as changeKeys from './actions/changeKeys.operation';
import * as customerAcknowledgement from './actions/customerAcknowledgement.operation';
import * as customerData from './actions/customerData.operation';
import * as customerProtocol from './actions/customerProtocol.operation';
import * as download from './actions/download.operation';
import * as initialisationLetters from './actions/initialisationLetters.operation';
import { router } from './actions/router';
import * as subscriberPermissions from './actions/subscriberPermissions.operation';
import * as suspend from './actions/suspend.operation';
import * as upload from './actions/upload.operation';
import * as veuCancel from './actions/veuCancel.operation';
import * as veuDetails from './actions/veuDetails.operation';
import * as veuOrders from './actions/veuOrders.operation';
import * as veuSign from './actions/veuSign.operation';
import * as veuTransactions from './actions/veuTransactions.operation';
import { customerInfoOutput } from './helpers/customerInfo';
import { veuOrderProperties } from './helpers/veuOrder';

export class Ebics implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'EBICS',
		name: 'ebics',
		icon: { light: 'file:../../icons/ebics.svg', dark: 'file:../../icons/ebics.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description:
			'Download statements and upload payment files over EBICS 3.0 (H005) or 2.5 (H004): initialisation letters, BTD, BTU or EBICS 2.5 order types, the distributed signature and the administrative orders',
		defaults: { name: 'EBICS' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: EBICS_CREDENTIAL, required: true }],
		properties: [
			// n8n's node panel merges a node with its "... Trigger" (ebics, ebicsTrigger) into one
			// entry when the node's operations make actions; a resource parameter listing no values
			// makes none, so EBICS and EBICS Trigger are two entries (as Bank File, see there).
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
						description:
							'What this subscriber may do (services, accounts, signature class), as items',
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
			...initialisationLetters.description,
			...download.description,
			...upload.description,
			...bankParameters.description,
			...bankVersions.description,
			...subscriberPermissions.description,
			...customerData.description,
			customerInfoOutput,
			...availableDownloads.description,
			...customerAcknowledgement.description,
			...customerProtocol.description,
			...suspend.description,
			...veuOrders.description,
			...veuOrderProperties,
			...veuDetails.description,
			...veuTransactions.description,
			...veuSign.description,
			...veuCancel.description,
			...changeKeys.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
