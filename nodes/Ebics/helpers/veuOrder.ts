/**
 * The order of the distributed signature (VEU) the Order Details, Order Transactions, Sign and
 * Cancel operations work on: its Order ID, the originator's Partner ID and its service, as Get
 * Orders Waiting (HVU) gives them in each item (map them with expressions), and what the
 * operations return about an order.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type {
	BtfService,
	VeuOrder,
	VeuOrderDetails,
	VeuOrderRef,
	VeuSigner,
} from '../../shared/ebics';
import { digestHex, readConfirmedDigest, serviceLabel } from '../../shared/ebics';
import type { EbicsRun } from './context';
import { unlessValid } from '../../shared/properties';
import { param, textFields } from './services';

export const VEU_ORDER_OPERATIONS = ['veuDetails', 'veuTransactions', 'veuSign', 'veuCancel'];

const text = textFields({ show: { operation: VEU_ORDER_OPERATIONS } });

/** The order's fields; Get Orders Waiting (HVU) gives each of them in its items. */
export const veuOrderProperties: INodeProperties[] = [
	text(
		'Order ID',
		'veuOrderId',
		'The order ID the bank gave the upload, as Get Orders Waiting (HVU) lists it (orderId)',
		'A1B2',
		true,
	),
	text(
		'Originator Partner ID',
		'veuPartnerId',
		"The Partner ID of the subscriber who uploaded the order (partnerId in HVU's items). Empty: this credential's Partner ID.",
		'PARTNER1',
	),
	text(
		'Service Name',
		'veuServiceName',
		"The order's BTF ServiceName (serviceName in HVU's items)",
		'SCT',
		true,
	),
	text('Scope', 'veuScope', "The order's BTF Scope, when it has one (scope)", 'DE'),
	text(
		'Service Option',
		'veuServiceOption',
		"The order's BTF ServiceOption, when it has one (serviceOption)",
		'',
	),
	text(
		'Message Name',
		'veuMsgName',
		"The order's BTF MsgName (msgName in HVU's items)",
		'pain.001',
		true,
	),
	text(
		'Message Version',
		'veuMsgVersion',
		'The MsgName version, when it has one (msgVersion)',
		'09',
	),
	text('Container', 'veuContainer', 'The BTF Container, when the order has one (container)', ''),
];

/** The order the parameters name; checked by the EBICS library before anything is sent. */
export function readVeuOrder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: EbicsRun,
): VeuOrderRef {
	const container = param(ctx, 'veuContainer', itemIndex).toUpperCase();
	return {
		orderId: param(ctx, 'veuOrderId', itemIndex),
		partnerId: param(ctx, 'veuPartnerId', itemIndex) || run.view.subscriber.partnerId,
		service: {
			serviceName: param(ctx, 'veuServiceName', itemIndex),
			scope: param(ctx, 'veuScope', itemIndex) || undefined,
			serviceOption: param(ctx, 'veuServiceOption', itemIndex) || undefined,
			msgName: param(ctx, 'veuMsgName', itemIndex),
			msgVersion: param(ctx, 'veuMsgVersion', itemIndex) || undefined,
			container: (container || undefined) as BtfService['container'],
		},
	};
}

function serviceFields(service: BtfService): IDataObject {
	return {
		service: serviceLabel(service),
		serviceName: service.serviceName,
		scope: service.scope ?? null,
		serviceOption: service.serviceOption ?? null,
		msgName: service.msgName,
		msgVersion: service.msgVersion ?? null,
		container: service.container ?? null,
	};
}

function signers(list: VeuSigner[]): IDataObject[] {
	return list.map((s) => ({
		partnerId: s.partnerId,
		userId: s.userId,
		name: s.name ?? null,
		signedAt: s.at,
		signatureClass: s.authorisationLevel,
	}));
}

/** One item of Get Orders Waiting (HVU, HVZ). */
export function veuOrderJson(order: VeuOrder): IDataObject {
	return {
		orderId: order.orderId,
		partnerId: order.originator.partnerId,
		...serviceFields(order.service),
		originator: {
			partnerId: order.originator.partnerId,
			userId: order.originator.userId,
			name: order.originator.name ?? null,
			submittedAt: order.originator.at,
		},
		readyToBeSigned: order.readyToBeSigned,
		signaturesRequired: order.signaturesRequired,
		signaturesDone: order.signaturesDone,
		signers: signers(order.signers),
		orderDataSize: order.orderDataSize,
		additionalInfo: order.additionalInfo ?? null,
		...(order.dataDigest ? { dataDigest: order.dataDigest } : {}),
	};
}

/** What Order Details (HVD) shows, and what Sign and Cancel report as signed. */
export function veuDetailsJson(ref: VeuOrderRef, details: VeuOrderDetails): IDataObject {
	return {
		orderId: ref.orderId.toUpperCase(),
		partnerId: ref.partnerId,
		...serviceFields(ref.service),
		dataDigest: digestHex(details.dataDigest),
		dataDigestBase64: details.dataDigest.toString('base64'),
		signatureVersion: details.signatureVersion,
		displayFile: details.displayFile,
		orderDataSize: details.orderDataSize,
		orderDataAvailable: details.orderDataAvailable,
		orderDetailsAvailable: details.orderDetailsAvailable,
		signers: signers(details.signers),
	};
}

/** The digest the user confirms, for Sign and Cancel. */
function confirmedDigestProperty(operation: string, action: string): INodeProperties {
	return {
		displayName: 'Confirmed Data Digest',
		name: 'confirmedDigest',
		type: 'string',
		default: '',
		required: true,
		placeholder: '3F 9A 0C ... (the dataDigest of Get Order Details)',
		description: `The order's data digest as Get Order Details (HVD) shows it (dataDigest): the order is ${action} only when it is the digest the bank reports now, so that you ${action === 'signed' ? 'sign' : 'cancel'} the order you have seen`,
		displayOptions: { show: { operation: [operation] } },
	};
}

/**
 * The notice under the Confirmed Data Digest while it is not a SHA-256 digest as HVD shows it
 * (64 hexadecimal digits, spaces, colons and either case allowed, or base64): the node refuses it
 * before any request; this says so as typed.
 */
function confirmedDigestNotice(operation: string): INodeProperties {
	return {
		displayName:
			'Confirmed Data Digest: not a SHA-256 digest. Copy the dataDigest of Get Order Details (HVD): 64 hexadecimal digits in pairs (spaces and either case are fine) or its 44 characters of base64.',
		name: 'confirmedDigestNotice',
		type: 'notice',
		default: '',
		displayOptions: {
			...unlessValid(
				'confirmedDigest',
				'^(?:[\\s:]*(?:[0-9a-fA-F][\\s:]*){64}|\\s*[A-Za-z0-9+/]{43}=\\s*)$',
			),
			show: { operation: [operation] },
		},
	};
}

type VeuAction = 'veuSign' | 'veuCancel';

/** Sign's and Cancel's fields: what the action does, and the digest the user confirms. */
export function veuActionProperties(operation: VeuAction, notice: string): INodeProperties[] {
	return [
		{
			displayName: notice,
			name: `${operation}Notice`,
			type: 'notice',
			default: '',
			displayOptions: { show: { operation: [operation] } },
		},
		confirmedDigestProperty(operation, operation === 'veuSign' ? 'signed' : 'cancelled'),
		confirmedDigestNotice(operation),
	];
}

/**
 * Sign (HVE) or Cancel (HVS) of the order the parameters name, over the digest the user confirmed
 * (refused before anything is signed unless the bank reports that digest now): one item saying
 * who did it and what was signed.
 */
export async function runVeuAction(
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: EbicsRun,
	operation: VeuAction,
): Promise<INodeExecutionData[]> {
	const ref = readVeuOrder(ctx, itemIndex, run);
	const confirmed = readConfirmedDigest(
		ctx.getNodeParameter('confirmedDigest', itemIndex, '') as string,
	);
	const signing = operation === 'veuSign';
	const result = signing
		? await run.veu!.sign(ref, confirmed)
		: await run.veu!.cancel(ref, confirmed);
	const actor = `${run.view.subscriber.partnerId}/${run.view.subscriber.userId}`;
	return [
		{
			json: {
				...(signing ? { signed: true, signer: actor } : { cancelled: true, canceller: actor }),
				...veuDetailsJson(ref, result.details),
				...(signing ? { signaturesBefore: result.details.signers.length } : {}),
				returnCodes: { ...result.codes },
				[signing ? 'signedAt' : 'cancelledAt']: new Date().toISOString(),
			},
			pairedItem: { item: itemIndex },
		},
	];
}
