import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

import type { INodeProperties } from 'n8n-workflow';

import { checkService, serviceLabel, type SignatureFlag } from '../../shared/ebics';
import { InputError } from '../../shared/errors';
import { inputBinaryField, optionsCollection } from '../../shared/properties';
import type { EbicsOperation } from '../helpers/context';
import { storedFileSize } from '../../shared/binaryInput';
import {
	checkPaymentFile,
	checkStoredPaymentFile,
	HEAD_BYTES,
	type PaymentCheck,
} from '../helpers/paymentFile';
import { h004Order, orderTypeProperties, refuseOrderTypeChoice } from '../helpers/orderTypes';
import { chosenService, CUSTOM, readService, serviceProperties } from '../helpers/services';

const displayOptions = { show: { operation: ['upload'] } };

const SIGNATURE_CLASSES: Record<SignatureFlag, string> = {
	authorise: 'authorising signature (E, A or B)',
	distributed: 'distributed signature (VEU): further signers release it',
	transport: 'transport signature (T): released outside EBICS',
};

export const description: INodeProperties[] = [
	{
		displayName:
			'Running this node sends the file to the bank as an order, signed with your electronic signature. It is sent once and never repeated automatically.',
		name: 'uploadNotice',
		type: 'notice',
		default: '',
		displayOptions,
	},
	...serviceProperties('upload', 'upload'),
	...orderTypeProperties('upload', 'upload'),
	inputBinaryField('The name of the input binary field holding the payment file', displayOptions),
	{
		displayName: 'Signature',
		name: 'signature',
		type: 'options',
		default: 'authorise',
		options: [
			{
				name: 'Authorise (Signature Class E, A or B)',
				value: 'authorise',
				description:
					'Your electronic signature releases the order, as far as your signature class allows',
			},
			{
				name: 'Distributed Signature (VEU)',
				value: 'distributed',
				description: 'The order waits at the bank for the signatures of further signers',
			},
			{
				name: 'Transport Only (Class T)',
				value: 'transport',
				description: 'The signature only proves who sent it; the order is released outside EBICS',
			},
		],
		description: 'What your electronic signature (A006) does for the order',
		displayOptions,
	},
	optionsCollection(
		[
			{
				displayName: 'Check Against Schema',
				name: 'checkSchema',
				type: 'boolean',
				default: true,
				description:
					'Whether to check the file against its ISO 20022 schema (EPC SEPA schema for SEPA credit transfers) before anything is sent',
			},
			{
				displayName: 'File Name at the Bank',
				name: 'fileName',
				type: 'string',
				default: '',
				description: 'The name the bank shows for the order. Empty: the name of the binary file.',
			},
		],
		{ placeholder: 'Add option', displayOptions },
	),
];

/** Stored files larger than this are streamed from n8n's binary storage while they are sent. */
const STREAM_ABOVE_BYTES = 4 * 1024 * 1024;

/**
 * Upload (BTU, or the EBICS 2.5 order type with an H004 credential): the input binary file,
 * checked against its schema, signed with A006, compressed, encrypted and sent in segments;
 * returns the bank's order ID. Sent once: a segment whose answer does not come is sent again in
 * the same transaction (the bank's recovery), never as a new order. A large file stored on disk
 * streams from it, so any size is held about one segment.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const field =
		(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string).trim() || 'data';
	const chosen = chosenService(ctx, 'upload', itemIndex);
	const flag = ctx.getNodeParameter('signature', itemIndex, 'authorise') as SignatureFlag;
	if (!SIGNATURE_CLASSES[flag])
		throw new InputError(
			`Signature: "${String(flag)}" is not one of authorise, distributed, transport`,
			{
				itemIndex,
			},
		);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as {
		checkSchema?: boolean;
		fileName?: string;
	};
	const binary = ctx.helpers.assertBinaryData(itemIndex, field);
	const empty = () =>
		new InputError(
			`The file in the binary field "${field}" is empty. Nothing was sent to the bank`,
			{ itemIndex },
		);
	const client = run.client!;
	const order =
		client.version === 'H004'
			? h004Order(ctx, 'upload', chosen, itemIndex, { signatureFlag: flag })
			: (refuseOrderTypeChoice(chosen, itemIndex), undefined);
	const checkAs = order ? (order.checkAs ?? CUSTOM) : chosen;
	const check = options.checkSchema !== false;
	const size = binary.id ? await storedFileSize(ctx, binary.id, binary.bytes) : undefined;
	let checked: PaymentCheck;
	let source: Buffer | Readable;
	const sha256 = createHash('sha256');
	if (binary.id && size !== undefined && size > STREAM_ABOVE_BYTES) {
		// A large file stored on disk: checked, then read once more as a stream while it is sent.
		const id = binary.id;
		checked = await checkStoredPaymentFile(
			size,
			async () => await ctx.helpers.getBinaryDataBuffer(itemIndex, field),
			async () => await ctx.helpers.getBinaryStream(id, HEAD_BYTES),
			checkAs,
			field,
			itemIndex,
			check,
		);
		const stream = await ctx.helpers.getBinaryStream(id, 256 * 1024);
		source = stream.pipe(
			new Transform({
				transform(chunk: Buffer, _encoding, done) {
					sha256.update(chunk);
					done(null, chunk);
				},
			}),
		);
		stream.once('error', (error) => (source as Readable).destroy(error));
	} else {
		const data = await ctx.helpers.getBinaryDataBuffer(itemIndex, field);
		if (!data.length) throw empty();
		checked = await checkPaymentFile(data, checkAs, field, itemIndex, check);
		sha256.update(data);
		source = data;
	}
	const service = order
		? undefined
		: checkService(readService(ctx, 'upload', itemIndex, { msgVersion: checked.message?.version }));
	const fileName = options.fileName?.trim() || binary.fileName || undefined;
	const result = order
		? await client.upload(order.orderType, order.params, source)
		: await client.btu(service!, source, flag, { fileName });
	return [
		{
			json: {
				orderId: result.orderId ?? null,
				transactionId: result.transactionId,
				...(service
					? {
							service: `BTU ${serviceLabel(service)}`,
							serviceName: service.serviceName,
							scope: service.scope ?? null,
							msgName: service.msgName,
							msgVersion: service.msgVersion ?? null,
						}
					: {
							service: order!.label,
							orderType: order!.orderType,
							fileFormat: order!.params.kind === 'file' ? order!.params.fileFormat : null,
						}),
				signature: flag,
				signatureClass: SIGNATURE_CLASSES[flag],
				fileName: fileName ?? null,
				fileSize: result.orderDataBytes ?? null,
				sha256: sha256.digest('hex'),
				message: checked.message?.id ?? null,
				schema: checked.schema ?? null,
				...(checked.notChecked ? { schemaNotChecked: checked.notChecked } : {}),
				segments: result.numSegments,
				...(result.recovered ? { recovered: result.recovered } : {}),
				returnCodes: { ...result.codes },
				uploadedAt: new Date().toISOString(),
			},
			pairedItem: { item: itemIndex },
		},
	];
};
