/**
 * bxd files as n8n binary data: the Content of an ApplicationResponse unpacked, and a streamed
 * download stored as it arrives (nodes/shared/common/binaryOutput.ts does the storing).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { ApplicationResponse, StreamedAnswer } from '../index';
import { attempt } from '../../common/attempt';
import type { FileNames, FileOutputContext } from '../../common/binaryOutput';
import { storeStream } from '../../common/binaryOutput';
import { InputError } from '../../common/errors';
import { decompress } from '../index';

/** The bank sent the file encrypted: an error that says what to do. */
export function encryptedError(itemIndex: number): InputError {
	return new InputError('The bank sent the file encrypted, which this node cannot decrypt', {
		itemIndex,
		description:
			'Ask the bank to send files unencrypted for this user, or use the raw ApplicationResponse.',
	});
}

/** The Content of an answer, unpacked when the bank says it is compressed. */
export function unpackedContent(
	itemIndex: number,
	response: ApplicationResponse,
): Buffer | undefined {
	if (!response.content) return undefined;
	if (response.encrypted) throw encryptedError(itemIndex);
	if (!response.compressed) return response.content;
	const content = response.content;
	const unpacked = attempt(() => decompress(content, response.compressionMethod));
	if (unpacked.ok) return unpacked.value;
	throw new InputError((unpacked.error as Error).message, { itemIndex });
}

/**
 * One output item with a streamed file: its type is guessed from the first bytes, then the
 * stream goes to n8n's binary storage as it arrives (to disk in filesystem mode). `json` is
 * built once the whole answer has been read and checked (it may use the final response).
 */
export async function streamedBinaryItem(
	ctx: FileOutputContext,
	itemIndex: number,
	answer: StreamedAnswer,
	names: FileNames,
	propertyName: string,
	json: (response: ApplicationResponse) => IDataObject,
): Promise<INodeExecutionData> {
	const stored = await storeStream(ctx, itemIndex, answer.content, names);
	const response = await answer.done;
	return {
		json: {
			...json(response),
			fileName: stored.fileName,
			mimeType: stored.mimeType,
			fileSize: answer.contentBytes(),
		},
		binary: { [propertyName]: stored.binaryData },
		pairedItem: { item: itemIndex },
	};
}
