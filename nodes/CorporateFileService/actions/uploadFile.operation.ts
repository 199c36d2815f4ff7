import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeProperties } from 'n8n-workflow';

import type { ContentSource, FileServiceResult } from '../../shared/bxd';
import {
	CONTENT_CHUNK,
	gzip,
	gzipStream,
	gzipToFile,
	prepareStreamingRequest,
} from '../../shared/bxd';
import { InputError } from '../../shared/common/errors';
import { descriptorJson, responseSummary } from '../../shared/bxd/node/bankFiles';
import { fileTypeParam, readOptions, textParam } from '../../shared/bxd/node/readParameters';
import {
	exchange,
	prepareWith,
	sendStreamingRequest,
	streamingThresholds,
	withExecutionSerial,
} from '../../shared/bxd/node/request';
import type { FileServiceOperation } from '../../shared/bxd/node/serviceContext';
import { fileTypeLocator } from '../../shared/bxd/node/sharedProperties';
import { inputBinaryField } from '../../shared/common/properties';
import { storedFileSize } from '../../shared/common/binaryInput';

const displayOptions = { show: { mode: ['build'], operation: ['uploadFile'] } };

export const description: INodeProperties[] = [
	inputBinaryField(
		'The name of the input binary field containing the file to be uploaded',
		displayOptions,
	),
	{
		...fileTypeLocator,
		required: true,
		description:
			"The bank's code for the kind of file, for example XL or pain.001.001.03 for payments",
		displayOptions,
	},
	{
		displayName: 'Target ID',
		name: 'targetId',
		type: 'string',
		default: '',
		description: "The bank's target folder for the file, when it uses them (see Get User Info)",
		displayOptions,
	},
	{
		displayName: 'User Filename',
		name: 'userFilename',
		type: 'string',
		default: '',
		description: 'The file name shown at the bank. Empty: the file name of the binary data.',
		displayOptions,
	},
];

/** Keeps a default file name within the schema's 80 characters, extension included. */
function fitFilename(name: string): string {
	if (name.length <= 80) return name;
	const dot = name.lastIndexOf('.');
	const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
	return name.slice(0, 80 - extension.length) + extension;
}

/**
 * Upload File: sends the input item's binary file (gzipped unless Compress is off) and returns the
 * bank's result with the file reference it gave the file. A large file stored on disk is streamed
 * from disk into the request (gzipped to a temporary file first when Compress is on); it is never
 * sent twice. A signed one is read and encoded once: the message's Body is written to a
 * temporary file while its digests are computed, and sent from there.
 */
export const execute: FileServiceOperation = async (ctx, itemIndex, service) => {
	const propertyName = textParam(ctx, 'binaryPropertyName', itemIndex) ?? 'data';
	const fileType = fileTypeParam(ctx, itemIndex);
	if (!fileType)
		throw new InputError('File Type is empty: the bank needs to know what kind of file this is', {
			itemIndex,
		});
	const options = readOptions(ctx, itemIndex);
	const binaryData = ctx.helpers.assertBinaryData(itemIndex, propertyName);
	const userFilename =
		textParam(ctx, 'userFilename', itemIndex) ??
		(binaryData.fileName ? fitFilename(binaryData.fileName) : undefined);
	const fields = {
		fileType,
		targetId: textParam(ctx, 'targetId', itemIndex),
		userFilename,
		...(options.compress ? { compression: true, compressionMethod: 'GZIP' } : {}),
	};
	const empty = () =>
		new InputError(`The file in the binary field "${propertyName}" is empty`, { itemIndex });

	let result: FileServiceResult;
	let fileSize: number;
	const storedSize = binaryData.id
		? await storedFileSize(ctx, binaryData.id, binaryData.bytes)
		: undefined;
	if (binaryData.id && storedSize !== undefined && storedSize > streamingThresholds.uploadBytes) {
		// A large file stored on disk: streamed, never read into memory.
		const id = binaryData.id;
		let tempDir: string | undefined;
		try {
			let source: ContentSource;
			// The gzipped file and the signed message's Body are spooled here, removed afterwards.
			if (options.compress || service.settings.signing)
				tempDir = await mkdtemp(join(tmpdir(), 'n8n-bxd-upload-'));
			if (options.compress && tempDir) {
				const packedPath = join(tempDir, 'content.gz');
				const packed = await gzipToFile(
					await ctx.helpers.getBinaryStream(id, CONTENT_CHUNK),
					packedPath,
				);
				fileSize = packed.inputBytes;
				source = {
					length: packed.outputBytes,
					open: async () => createReadStream(packedPath, { highWaterMark: CONTENT_CHUNK }),
				};
			} else {
				fileSize = storedSize;
				source = {
					length: storedSize,
					open: async () => await ctx.helpers.getBinaryStream(id, CONTENT_CHUNK),
				};
			}
			if (fileSize === 0) throw empty();
			const request = await prepareWith(service, 'uploadFile', itemIndex, options, (settings) =>
				prepareStreamingRequest(
					settings,
					'uploadFile',
					withExecutionSerial(fields, options),
					source,
					undefined,
					{ spoolDir: tempDir },
				),
			);
			try {
				result = await sendStreamingRequest(ctx, service, request, {
					itemIndex,
					endpoint: options.endpoint,
					timeoutMs: options.timeoutMs,
				});
			} finally {
				await request.dispose();
			}
		} finally {
			if (tempDir) await rm(tempDir, { recursive: true, force: true });
		}
	} else {
		let content: Buffer;
		if (options.compress) {
			if (binaryData.id) {
				const packed = await gzipStream(await ctx.helpers.getBinaryStream(binaryData.id));
				content = packed.compressed;
				fileSize = packed.inputBytes;
			} else {
				const raw = await ctx.helpers.getBinaryDataBuffer(itemIndex, propertyName);
				content = gzip(raw);
				fileSize = raw.length;
			}
		} else {
			content = await ctx.helpers.getBinaryDataBuffer(itemIndex, propertyName);
			fileSize = content.length;
		}
		if (fileSize === 0) throw empty();
		result = await exchange(ctx, service, 'uploadFile', itemIndex, { ...fields, content }, options);
	}
	const descriptor = result.applicationResponse?.fileDescriptors[0];
	return [
		{
			json: {
				...descriptorJson(descriptor),
				fileReference: descriptor?.fileReference ?? null,
				fileType: descriptor?.fileType ?? fileType,
				...(userFilename ? { userFilename: descriptor?.userFilename ?? userFilename } : {}),
				...responseSummary(result),
				fileSize,
				compressed: options.compress,
				signed: !!service.settings.signing,
			},
			pairedItem: { item: itemIndex },
		},
	];
};
