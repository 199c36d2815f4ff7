import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	checkOrder,
	checkService,
	EbicsReturnCodeError,
	EbicsTransferInterrupted,
	serviceLabel,
	type EbicsVersion,
	type SignatureFlag,
} from '../../shared/ebics';
import {
	findUploadEntry,
	hasUploadEntries,
	type UploadJournalEntry,
} from '../../shared/ebics/journal/ebicsUploadJournal';
import { attemptAsync } from '../../shared/common/attempt';
import { clause, InputError } from '../../shared/common/errors';
import { inputBinaryField, optionsCollection } from '../../shared/common/properties';
import type { EbicsInputCheck, EbicsOperation } from '../../shared/ebics/node/context';
import { storedFileSize } from '../../shared/common/binaryInput';
import {
	checkPaymentFile,
	checkStoredPaymentFile,
	HEAD_BYTES,
	type PaymentCheck,
} from '../helpers/paymentFile';
import {
	h004Order,
	orderTypeProperties,
	refuseOrderTypeChoice,
	type H004Order,
} from '../../shared/ebics/node/orderTypes';
import {
	chosenService,
	CUSTOM,
	readService,
	serviceProperties,
} from '../../shared/ebics/node/services';
import { withNote } from '../helpers/downloads';
import { ebicsFailure } from '../../shared/ebics/node/failures';
import { askBank, currentJournal, writeJournal, type BankVerdict } from '../helpers/uploadJournal';

const displayOptions = { show: { operation: ['upload'] } };

const SIGNATURE_CLASSES: Record<SignatureFlag, string> = {
	authorise: 'authorising signature (E, A or B)',
	distributed: 'distributed signature (VEU): further signers release it',
	transport: 'transport signature (T): released outside EBICS',
};

export const description: INodeProperties[] = [
	{
		displayName:
			'Running this node sends the file to the bank as an order, signed with the electronic signature of the subscriber of the credential chosen above: its Partner ID and User ID at its Host ID (a new node starts with the EBICS credential saved last, so check it before a run). The output names that subscriber (partnerId, userId, hostId). The file is sent once and never repeated automatically.',
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
			{
				displayName: 'Send Again After an Interrupted Upload',
				name: 'sendAgainAfterInterruption',
				type: 'boolean',
				default: false,
				description:
					"Whether to send the file even though an earlier upload of the same file (same order type or service) went out without the bank's answer. Switch on only after checking HAC or PTK that the bank does not have that order.",
			},
		],
		{ placeholder: 'Add option', displayOptions },
	),
];

/** Stored files larger than this are streamed from n8n's binary storage while they are sent. */
const STREAM_ABOVE_BYTES = 4 * 1024 * 1024;

/** The SHA-256 (hex) of a stream, read to its end. */
async function streamDigest(stream: Readable): Promise<string> {
	const hash = createHash('sha256');
	for await (const chunk of stream) hash.update(chunk as Buffer);
	return hash.digest('hex');
}

/** What HAC said of an earlier attempt, as the item shows it. */
function hacEvents(verdict: BankVerdict): IDataObject[] {
	if (verdict.state === 'unknown') return [];
	return verdict.events.map((e) => ({
		action: e.action,
		actionText: e.actionText ?? null,
		timestamp: e.timestamp ?? null,
		reasonCode: e.reasonCode ?? null,
		bankText: e.additionalInfo ?? null,
	}));
}

/** The error of a file whose earlier upload may be at the bank, HAC not telling. */
function interruptedBefore(
	entry: UploadJournalEntry,
	reason: string,
	itemIndex: number,
): InputError {
	const order = entry.orderId ? `order ${entry.orderId}` : 'an order';
	return new InputError(
		`Not sent: this file was sent as ${order} (${entry.order}) on ${entry.at} and the bank's answer to its last segment never came, so the bank may have it`,
		{
			itemIndex,
			description: [
				`n8n did not send the file again: ${clause(reason)}.`,
				`Check the Customer Protocol (PTK) or the Customer Acknowledgement (HAC) of ${entry.at.slice(0, 10)} for ${order}, or ask the bank. When the bank has it, do not send the file again.`,
				'When it does not, switch on "Send Again After an Interrupted Upload" (Options) and run again: the file is then sent as a new order.',
			].join('\n'),
		},
	);
}

/**
 * The item's upload fields, read and checked as the initialisation will write them; the file's
 * content is checked when it is read for sending.
 */
function uploadFields(ctx: IExecuteFunctions, itemIndex: number, version: EbicsVersion) {
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
		sendAgainAfterInterruption?: boolean;
	};
	const binary = ctx.helpers.assertBinaryData(itemIndex, field);
	let order: H004Order | undefined;
	if (version === 'H004') {
		order = h004Order(ctx, 'upload', chosen, itemIndex, { signatureFlag: flag });
		checkOrder(version, order.orderType, order.params, true);
	} else {
		refuseOrderTypeChoice(chosen, itemIndex);
		const service = checkService(readService(ctx, 'upload', itemIndex));
		checkOrder(version, 'BTU', { kind: 'BTU', service, signatureFlag: flag }, true);
	}
	return { field, chosen, flag, options, binary, order };
}

export const check: EbicsInputCheck = (ctx, itemIndex, view) => {
	uploadFields(ctx, itemIndex, view.version);
};

/**
 * Upload (BTU, or the EBICS 2.5 order type with an H004 credential): the input binary file,
 * checked against its schema, signed with A006, compressed, encrypted and sent in segments;
 * returns the bank's order ID. Sent once: a segment whose answer does not come is sent again in
 * the same transaction (the bank's recovery), never as a new order. A large file stored on disk
 * streams from it, so any size is held about one segment.
 *
 * Never submitted twice, also across restarts: just before the last segment goes out the upload
 * is written into the credential's upload journal, and removed once the bank has answered. When
 * the journal still holds the same file for the same order (its answer never came), the file is
 * not sent: the bank's customer acknowledgement (HAC) is asked for the order; listed there, the
 * item reports it as already submitted; refused there, the file is sent as a new order; not
 * listed, the item fails saying what to check, unless "Send Again After an Interrupted Upload" is
 * on.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const client = run.client!;
	const { field, chosen, flag, options, binary, order } = uploadFields(
		ctx,
		itemIndex,
		client.version,
	);
	const empty = () =>
		new InputError(
			`The file in the binary field "${field}" is empty. Nothing was sent to the bank`,
			{ itemIndex },
		);
	const checkAs = order ? (order.checkAs ?? CUSTOM) : chosen;
	const check = options.checkSchema !== false;
	const size = binary.id ? await storedFileSize(ctx, binary.id, binary.bytes) : undefined;
	let checked: PaymentCheck;
	let data: Buffer | undefined;
	/** The SHA-256 of the whole file before anything is sent (undefined: read while it is sent). */
	let known: string | undefined;
	const sha256 = createHash('sha256');
	let digest: string | undefined;
	const contentDigest = (): string => (digest ??= known ?? sha256.digest('hex'));
	const streamed = binary.id && size !== undefined && size > STREAM_ABOVE_BYTES;
	if (streamed) {
		// A large file stored on disk: checked here, then streamed from storage while it is sent.
		const id = binary.id!;
		checked = await checkStoredPaymentFile(
			size,
			async () => await ctx.helpers.getBinaryDataBuffer(itemIndex, field),
			async () => await ctx.helpers.getBinaryStream(id, HEAD_BYTES),
			checkAs,
			field,
			itemIndex,
			check,
		);
	} else {
		data = await ctx.helpers.getBinaryDataBuffer(itemIndex, field);
		if (!data.length) throw empty();
		checked = await checkPaymentFile(data, checkAs, field, itemIndex, check);
		sha256.update(data);
		known = sha256.digest('hex');
	}
	const service = order
		? undefined
		: checkService(readService(ctx, 'upload', itemIndex, { msgVersion: checked.message?.version }));
	const fileName = options.fileName?.trim() || binary.fileName || undefined;
	const orderName = service ? `BTU ${serviceLabel(service)}` : order!.label;
	const owner = run.view.owner;
	const { hostId, partnerId, userId, systemId } = run.view.subscriber;
	const described: IDataObject = {
		// The subscriber whose signature the order carries (a node may hold another credential than meant).
		partnerId,
		userId,
		hostId,
		...(systemId ? { systemId } : {}),
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
	};

	// An earlier upload of this file whose answer never came: ask the bank before sending.
	let earlier: IDataObject | undefined;
	const journal = await currentJournal(ctx);
	if (hasUploadEntries(journal, owner, orderName)) {
		known ??= await streamDigest(await ctx.helpers.getBinaryStream(binary.id!, 256 * 1024));
		const entry = findUploadEntry(journal, owner, orderName, known);
		if (entry && options.sendAgainAfterInterruption === true) {
			await writeJournal(ctx, 'remove', entry, itemIndex);
			earlier = { orderId: entry.orderId ?? null, sentAt: entry.at, state: 'not checked' };
		} else if (entry) {
			const verdict = await askBank(client, entry, itemIndex);
			if (verdict.state === 'unknown') throw interruptedBefore(entry, verdict.reason, itemIndex);
			await writeJournal(ctx, 'remove', entry, itemIndex);
			earlier = {
				orderId: entry.orderId ?? null,
				sentAt: entry.at,
				state: verdict.state,
				hac: hacEvents(verdict),
			};
			if (verdict.state === 'accepted')
				return [
					{
						json: {
							orderId: entry.orderId ?? null,
							alreadySubmitted: true,
							submittedAt: entry.at,
							...described,
							sha256: known,
							message: checked.message?.id ?? null,
							schema: checked.schema ?? null,
							hac: earlier.hac as IDataObject[],
							checkedAt: new Date().toISOString(),
						},
						pairedItem: { item: itemIndex },
					},
				];
		}
	}

	let source: Buffer | Readable;
	if (data) source = data;
	else {
		const stream = await ctx.helpers.getBinaryStream(binary.id!, 256 * 1024);
		const hashing = stream.pipe(
			new Transform({
				transform(chunk: Buffer, _encoding, done) {
					sha256.update(chunk);
					done(null, chunk);
				},
			}),
		);
		stream.once('error', (error) => hashing.destroy(error));
		source = hashing;
	}

	// Written just before the last segment goes out; removed once the bank has answered it.
	let written: UploadJournalEntry | undefined;
	const hooks = {
		beforeLastSegment: async ({ orderId }: { orderId?: string }) => {
			const entry: UploadJournalEntry = {
				owner,
				order: orderName,
				sha256: contentDigest(),
				...(orderId ? { orderId } : {}),
				at: new Date().toISOString(),
			};
			await writeJournal(ctx, 'put', entry, itemIndex);
			written = entry;
		},
	};
	const sent = await attemptAsync(async () =>
		order
			? await client.upload(order.orderType, order.params, source, hooks)
			: await client.btu(service!, source, flag, { fileName, ...hooks }),
	);
	if (!sent.ok) {
		const error = sent.error;
		if (!written) throw error;
		// The bank refused the last segment, or went back to an earlier one (recovery) and the
		// upload stopped there: it has no order, the entry goes.
		if (
			error instanceof EbicsReturnCodeError ||
			(error instanceof EbicsTransferInterrupted && !error.mayHaveOrder)
		) {
			await attemptAsync(async () => await writeJournal(ctx, 'remove', written!, itemIndex));
			throw error;
		}
		throw withNote(
			ebicsFailure(error, itemIndex),
			'The upload is kept in the credential: running this file again does not send it but asks the bank (HAC) whether it has the order.',
		);
	}
	const result = sent.value;
	if (written)
		await attemptAsync(async () => await writeJournal(ctx, 'remove', written!, itemIndex));
	return [
		{
			json: {
				orderId: result.orderId ?? null,
				transactionId: result.transactionId,
				...described,
				fileSize: result.orderDataBytes ?? null,
				sha256: contentDigest(),
				message: checked.message?.id ?? null,
				schema: checked.schema ?? null,
				...(checked.notChecked ? { schemaNotChecked: checked.notChecked } : {}),
				segments: result.numSegments,
				...(result.recovered ? { recovered: result.recovered } : {}),
				...(earlier ? { earlierAttempt: earlier } : {}),
				returnCodes: { ...result.codes },
				uploadedAt: new Date().toISOString(),
			},
			pairedItem: { item: itemIndex },
		},
	];
};
