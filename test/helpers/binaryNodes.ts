import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { nodeDescription } from '../harness/node-types';
import { fileChunks } from './memory';

export const MAKE_STREAMED_FILE = 'n8n-nodes-test.makeStreamedFile';
export const INSPECT_FILE = 'n8n-nodes-test.hashFile';

/**
 * Reads the binary file of each item back as a downstream node would (a stream from n8n's
 * filesystem storage) and reports its SHA-256, size, name, type and first 60 bytes.
 */
export class InspectFile implements INodeType {
	description = nodeDescription('inspectFile', 'Inspect File', { description: 'Test sink of binary data' });

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			const meta = this.helpers.assertBinaryData(i, 'data');
			if (!meta.id) throw new NodeOperationError(this.getNode(), 'expected binary data stored on the filesystem');
			const hash = createHash('sha256');
			let size = 0;
			let head = Buffer.alloc(0);
			for await (const chunk of await this.helpers.getBinaryStream(meta.id)) {
				const bytes = chunk as Buffer;
				hash.update(bytes);
				size += bytes.length;
				if (head.length < 60) head = Buffer.concat([head, bytes.subarray(0, 60 - head.length)]);
			}
			out.push({
				json: { sha256: hash.digest('hex'), size, fileName: meta.fileName, mimeType: meta.mimeType, head: head.toString('utf8') },
				pairedItem: { item: i },
			});
		}
		return [out];
	}
}

/**
 * Makes a binary file of `size` deterministic bytes as n8n's file nodes do: streamed into binary
 * storage, never in memory whole. Its item carries the file's SHA-256 and size.
 */
export class MakeStreamedFile implements INodeType {
	description = nodeDescription('makeStreamedFile', 'Make Streamed File', {
		description: 'Test source of a binary file',
		properties: [
			{ displayName: 'Size', name: 'size', type: 'number', default: 1000 },
			{ displayName: 'File Name', name: 'fileName', type: 'string', default: 'file.bin' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const size = this.getNodeParameter('size', 0) as number;
		const hash = createHash('sha256');
		const source = Readable.from(
			(function* () {
				for (const chunk of fileChunks(size)) {
					hash.update(chunk);
					yield chunk;
				}
			})(),
			{ objectMode: false },
		);
		const binary = await this.helpers.prepareBinaryData(source, this.getNodeParameter('fileName', 0) as string, 'application/octet-stream');
		return [[{ json: { sha256: hash.digest('hex'), size }, binary: { data: binary } }]];
	}
}

/** Make Streamed File and Inspect File, under the type names the tests' workflows use. */
export const streamedFileNodes = (): Record<string, INodeType> => ({ [MAKE_STREAMED_FILE]: new MakeStreamedFile(), [INSPECT_FILE]: new InspectFile() });
