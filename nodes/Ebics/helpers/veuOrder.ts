/**
 * The order of the distributed signature (VEU) the Order Details, Order Transactions, Sign and
 * Cancel operations work on: its Order ID, the originator's Partner ID and its service (EBICS 3.0)
 * or its order type (EBICS 2.5), as Get Orders Waiting (HVU) gives them in each item (map them
 * with expressions), and what the operations return about an order. Items have the same fields
 * in both versions: `service` is the service's label in EBICS 3.0 and the order type's in EBICS
 * 2.5 (e.g. "CCT (SEPA credit transfer pain.001)"); the BTF fields are null in EBICS 2.5,
 * `orderType` and `fileFormat` null in EBICS 3.0.
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
import {
	checkOrderRef,
	digestHex,
	EbicsValidationError,
	orderTypeLabel,
	readConfirmedDigest,
	serviceLabel,
} from '../../shared/ebics';
import type { EbicsCredentialView } from '../../shared/ebics/credential/ebicsCredential';
import type { EbicsInputCheck, EbicsRun } from '../../shared/ebics/node/context';
import { unlessValid } from '../../shared/common/properties';
import { param, textFields } from '../../shared/ebics/node/services';

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
		"EBICS 3.0 (H005): the order's BTF ServiceName (serviceName in HVU's items). Required with an EBICS 3.0 credential.",
		'SCT',
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
		"EBICS 3.0 (H005): the order's BTF MsgName (msgName in HVU's items). Required with an EBICS 3.0 credential.",
		'pain.001',
	),
	text(
		'Message Version',
		'veuMsgVersion',
		'The MsgName version, when it has one (msgVersion)',
		'09',
	),
	text('Container', 'veuContainer', 'The BTF Container, when the order has one (container)', ''),
	text(
		'Order Type (EBICS 2.5)',
		'veuOrderType',
		"EBICS 2.5 (H004): the order's type (orderType in HVU's items, e.g. CCT); EBICS 2.5 names orders by order type instead of a BTF service. Required with an EBICS 2.5 credential, ignored with EBICS 3.0.",
		'CCT',
	),
	text(
		'File Format (EBICS 2.5)',
		'veuFileFormat',
		"EBICS 2.5 (H004), FUL orders: the file format (fileFormat in HVU's items)",
		'',
	),
];

/** The order the parameters name; checked by the EBICS library before anything is sent. */
export function readVeuOrder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	view: EbicsCredentialView,
): VeuOrderRef {
	const orderId = param(ctx, 'veuOrderId', itemIndex);
	const partnerId = param(ctx, 'veuPartnerId', itemIndex) || view.subscriber.partnerId;
	if (view.version === 'H004')
		return {
			orderId,
			partnerId,
			orderType: param(ctx, 'veuOrderType', itemIndex),
			fileFormat: param(ctx, 'veuFileFormat', itemIndex) || undefined,
		};
	const container = param(ctx, 'veuContainer', itemIndex).toUpperCase();
	for (const [name, label] of [
		['veuServiceName', 'Service Name'],
		['veuMsgName', 'Message Name'],
	])
		if (!param(ctx, name, itemIndex))
			throw new EbicsValidationError(
				name,
				`${label} is required with an EBICS 3.0 (H005) credential: the order's ${label === 'Service Name' ? 'serviceName' : 'msgName'} as Get Orders Waiting (HVU) lists it`,
			);
	return {
		orderId,
		partnerId,
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

/** What the order is: its service (EBICS 3.0) or its order type (EBICS 2.5), same fields in both. */
function serviceFields(
	order: Pick<VeuOrderRef, 'service' | 'orderType' | 'fileFormat'>,
): IDataObject {
	const service: Partial<BtfService> = order.service ?? {};
	return {
		service: order.service
			? serviceLabel(order.service)
			: orderTypeLabel(order.orderType ?? '', order.fileFormat),
		serviceName: service.serviceName ?? null,
		scope: service.scope ?? null,
		serviceOption: service.serviceOption ?? null,
		msgName: service.msgName ?? null,
		msgVersion: service.msgVersion ?? null,
		container: service.container ?? null,
		orderType: order.orderType ?? null,
		fileFormat: order.fileFormat ?? null,
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
		...serviceFields(order),
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
		...serviceFields(ref),
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
function confirmedDigest(ctx: IExecuteFunctions, itemIndex: number): Buffer {
	return readConfirmedDigest(ctx.getNodeParameter('confirmedDigest', itemIndex, '') as string);
}

/**
 * The check of an order's fields before anything is sent (the order reference as the request
 * will name it, and for signing or cancelling the confirmed digest's form).
 */
export function veuCheck(confirming: boolean): EbicsInputCheck {
	return (ctx, itemIndex, view) => {
		checkOrderRef(readVeuOrder(ctx, itemIndex, view), view.version);
		if (confirming) confirmedDigest(ctx, itemIndex);
	};
}

export async function runVeuAction(
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: EbicsRun,
	operation: VeuAction,
): Promise<INodeExecutionData[]> {
	const ref = readVeuOrder(ctx, itemIndex, run.view);
	const confirmed = confirmedDigest(ctx, itemIndex);
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
