/** The input file of an item: its bytes as a stream (as often as needed), its name and digest. */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { BINARY_ENCODING } from 'n8n-workflow';

import { InputError } from '../../shared/common/errors';

export interface InputFile {
	binary: IBinaryData;
	fileName?: string;
	/** A new stream of the file's bytes at each call. */
	open(): Promise<Readable>;
}

export function inputFile(ctx: IExecuteFunctions, itemIndex: number, field: string): InputFile {
	const item = ctx.getInputData()[itemIndex];
	if (!item?.binary?.[field])
		throw new InputError(`Input Binary Field: the item has no binary field "${field}"`, {
			itemIndex,
			description: 'Put the file in that field, or name the field the file is in',
		});
	const binary = ctx.helpers.assertBinaryData(itemIndex, field);
	return {
		binary,
		fileName: binary.fileName,
		async open() {
			return binary.id
				? await ctx.helpers.getBinaryStream(binary.id, 256 * 1024)
				: Readable.from([Buffer.from(binary.data, BINARY_ENCODING)]);
		},
	};
}

/** SHA-256 (hex) of a stream. */
export async function sha256Of(stream: Readable): Promise<string> {
	const hash = createHash('sha256');
	for await (const chunk of stream) hash.update(chunk as Buffer);
	return hash.digest('hex');
}
