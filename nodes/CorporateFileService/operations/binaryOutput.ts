import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ApplicationResponse, StreamedAnswer } from '../../shared/bxd';
import { attempt, decompress, peekStream } from '../../shared/bxd';

/** The contexts that emit files: a node run, or a polling trigger. */
export type FileOutputContext = IExecuteFunctions | IPollFunctions;

export interface GuessedType {
	mimeType: string;
	extension: string;
}

/**
 * Guesses the type from the first bytes: bank files are mostly XML (camt, pain), else text.
 * `complete` says whether `content` is the whole file (JSON is only recognised then).
 */
export function guessFileType(content: Buffer, fileType?: string, complete = true): GuessedType {
	const head = content.subarray(0, 512);
	if (head[0] === 0x25 && head.subarray(0, 5).toString('latin1') === '%PDF-') return { mimeType: 'application/pdf', extension: 'pdf' };
	if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return { mimeType: 'application/zip', extension: 'zip' };
	if (head[0] === 0x1f && head[1] === 0x8b) return { mimeType: 'application/gzip', extension: 'gz' };
	const text = head.toString('utf8').replace(/^\uFEFF/, '').trimStart();
	if (text.startsWith('<')) return { mimeType: 'application/xml', extension: 'xml' };
	if (/^(camt|pain|xml)/i.test(fileType ?? '') && text.startsWith('<')) return { mimeType: 'application/xml', extension: 'xml' };
	if (complete && (text.startsWith('{') || text.startsWith('['))) {
		try {
			JSON.parse(content.toString('utf8'));
			return { mimeType: 'application/json', extension: 'json' };
		} catch {
			// not JSON after all: fall through to the text check
		}
	}
	// eslint-disable-next-line no-control-regex
	const binary = /[\u0000-\u0008\u000E-\u001A\u001C-\u001F]/.test(head.toString('latin1'));
	return binary ? { mimeType: 'application/octet-stream', extension: 'bin' } : { mimeType: 'text/plain', extension: 'txt' };
}

/** A file name the bank gave, or the file reference with an extension from the content. */
export function fileNameFor(userFilename: string | undefined, fileReference: string | undefined, guessed: GuessedType): string {
	const given = userFilename?.replace(/[\\/]/g, '_').trim();
	if (given) return given;
	return `${(fileReference ?? 'bank-file').replace(/[^\w.-]/g, '_')}.${guessed.extension}`;
}

/** The bank sent the file encrypted: an error that says what to do. */
export function encryptedError(ctx: FileOutputContext, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), 'The bank sent the file encrypted, which this node cannot decrypt', {
		itemIndex,
		description: 'Ask the bank to send files unencrypted for this user, or use the raw ApplicationResponse.',
	});
}

/** The Content of an answer, unpacked when the bank says it is compressed. */
export function unpackedContent(ctx: FileOutputContext, itemIndex: number, response: ApplicationResponse): Buffer | undefined {
	if (!response.content) return undefined;
	if (response.encrypted) throw encryptedError(ctx, itemIndex);
	if (!response.compressed) return response.content;
	const content = response.content;
	const unpacked = attempt(() => decompress(content, response.compressionMethod));
	if (unpacked.ok) return unpacked.value;
	throw new NodeOperationError(ctx.getNode(), (unpacked.error as Error).message, { itemIndex });
}

/** One output item with the file as n8n binary data (stored the way the instance stores binaries). */
export async function binaryItem(
	ctx: FileOutputContext,
	itemIndex: number,
	content: Buffer,
	names: { userFilename?: string; fileReference?: string; fileType?: string },
	propertyName: string,
	json: IDataObject,
): Promise<INodeExecutionData> {
	const guessed = guessFileType(content, names.fileType);
	const fileName = fileNameFor(names.userFilename, names.fileReference, guessed);
	const binary: IBinaryKeyData = {
		[propertyName]: await ctx.helpers.prepareBinaryData(content, fileName, guessed.mimeType),
	};
	return {
		json: { ...json, fileName, mimeType: guessed.mimeType, fileSize: content.length },
		binary,
		pairedItem: { item: itemIndex },
	};
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
	names: { userFilename?: string; fileReference?: string; fileType?: string },
	propertyName: string,
	json: (response: ApplicationResponse) => IDataObject,
): Promise<INodeExecutionData> {
	const { head, stream } = await peekStream(answer.content, 512);
	const guessed = guessFileType(head, names.fileType, false);
	const fileName = fileNameFor(names.userFilename, names.fileReference, guessed);
	const binaryData = await ctx.helpers.prepareBinaryData(stream, fileName, guessed.mimeType);
	const response = await answer.done;
	return {
		json: { ...json(response), fileName, mimeType: guessed.mimeType, fileSize: answer.contentBytes() },
		binary: { [propertyName]: binaryData },
		pairedItem: { item: itemIndex },
	};
}
