import { createHash } from 'node:crypto';

import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

/**
 * Reads the binary file of each item back as a downstream node would (a stream from n8n's
 * filesystem storage) and reports its SHA-256, size, name, type and first 60 bytes.
 */
export class InspectFile implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Inspect File',
		name: 'inspectFile',
		group: ['transform'],
		version: 1,
		description: 'Test sink of binary data',
		defaults: { name: 'Inspect File' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

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
