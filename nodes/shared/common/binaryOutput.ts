/**
 * Files as n8n binary data, for every node and trigger that hands out files: the type guessed
 * from the first bytes, the file name, and storage as n8n stores binaries (streamed to disk in
 * filesystem mode; stopped at n8n's limit in database mode, with an error saying so).
 */
import { Transform, type Readable } from 'node:stream';

import type {
	IBinaryData,
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';
import { InputError } from './errors';
import { peekStream } from './streamHead';

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
	if (head[0] === 0x25 && head.subarray(0, 5).toString('latin1') === '%PDF-')
		return { mimeType: 'application/pdf', extension: 'pdf' };
	if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04)
		return { mimeType: 'application/zip', extension: 'zip' };
	if (head[0] === 0x1f && head[1] === 0x8b)
		return { mimeType: 'application/gzip', extension: 'gz' };
	const text = head
		.toString('utf8')
		.replace(/^\uFEFF/, '')
		.trimStart();
	if (text.startsWith('<')) return { mimeType: 'application/xml', extension: 'xml' };
	if (/^(camt|pain|xml)/i.test(fileType ?? '') && text.startsWith('<'))
		return { mimeType: 'application/xml', extension: 'xml' };
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
	return binary
		? { mimeType: 'application/octet-stream', extension: 'bin' }
		: { mimeType: 'text/plain', extension: 'txt' };
}

/** What a file is named after: the bank's file name, else its reference and type. */
export interface FileNames {
	userFilename?: string;
	fileReference?: string;
	fileType?: string;
}

/** A file name the bank gave, or the file reference with an extension from the content. */
export function fileNameFor(
	userFilename: string | undefined,
	fileReference: string | undefined,
	guessed: GuessedType,
): string {
	const given = userFilename?.replace(/[\\/]/g, '_').trim();
	if (given) return given;
	return `${(fileReference ?? 'bank-file').replace(/[^\w.-]/g, '_')}.${guessed.extension}`;
}

/** n8n's default for N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE, MiB. */
const DATABASE_BINARY_DEFAULT_MIB = 512;

/**
 * The largest file n8n's binary storage of this process can take, in bytes, when it keeps binary
 * data in its database (queue mode's default: the whole file is held in memory and written as one
 * row, refused above N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB); undefined for the streaming
 * modes (filesystem, S3).
 */
export function databaseBinaryLimit(env: NodeJS.ProcessEnv = process.env): number | undefined {
	const mode =
		env.N8N_DEFAULT_BINARY_DATA_MODE?.trim() ||
		(env.EXECUTIONS_MODE?.trim() === 'queue' ? 'database' : 'filesystem');
	if (mode !== 'database') return undefined;
	const mib = Number(
		env.N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE?.trim() || DATABASE_BINARY_DEFAULT_MIB,
	);
	return (Number.isFinite(mib) && mib > 0 ? mib : DATABASE_BINARY_DEFAULT_MIB) * 1024 * 1024;
}

/** A file larger than n8n's database binary storage takes. */
export class BinaryStorageLimitError extends Error {
	constructor(readonly limitBytes: number) {
		super(
			`The file is larger than n8n's binary data storage in database mode takes (${Math.round(limitBytes / 1048576)} MiB, N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE)`,
		);
		this.name = 'BinaryStorageLimitError';
	}
}

function storageLimitFailure(itemIndex: number, error: BinaryStorageLimitError): InputError {
	return new InputError(`Download refused: ${error.message}`, {
		itemIndex,
		description:
			'This n8n keeps binary data in its database (the default in queue mode), which holds each file in memory and stores it as one row. ' +
			'For larger files set N8N_DEFAULT_BINARY_DATA_MODE=s3 with an S3 bucket on every n8n process (files then stream), ' +
			'or raise N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE (at most 1024 MiB) if the workers have the memory.',
	});
}

/** The stream, failing with BinaryStorageLimitError as soon as more than `limit` bytes pass. */
function limitedStream(stream: Readable, limit: number): Readable {
	let seen = 0;
	const guard = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			seen += chunk.length;
			if (seen > limit) done(new BinaryStorageLimitError(limit));
			else done(null, chunk);
		},
	});
	stream.once('error', (error) => guard.destroy(error));
	guard.once('error', () => stream.destroy());
	return stream.pipe(guard);
}

/**
 * One output item with the file as n8n binary data (stored the way the instance stores
 * binaries).
 */
export async function binaryItem(
	ctx: FileOutputContext,
	itemIndex: number,
	content: Buffer,
	names: FileNames,
	propertyName: string,
	json: IDataObject,
): Promise<INodeExecutionData> {
	const guessed = guessFileType(content, names.fileType);
	const fileName = fileNameFor(names.userFilename, names.fileReference, guessed);
	const limit = databaseBinaryLimit();
	if (limit !== undefined && content.length > limit)
		throw storageLimitFailure(itemIndex, new BinaryStorageLimitError(limit));
	const binary: IBinaryKeyData = {
		[propertyName]: await ctx.helpers.prepareBinaryData(content, fileName, guessed.mimeType),
	};
	return {
		json: { ...json, fileName, mimeType: guessed.mimeType, fileSize: content.length },
		binary,
		pairedItem: { item: itemIndex },
	};
}

/** A stream stored as n8n binary data: what the item carries of it. */
export interface StoredStream {
	binaryData: IBinaryData;
	fileName: string;
	mimeType: string;
	/** Bytes that went through. */
	bytes: number;
}

/**
 * Stores a stream in n8n's binary storage as it arrives (to disk in filesystem mode), its type
 * guessed from the first bytes; in database mode it stops at n8n's limit with an error saying so.
 */
export async function storeStream(
	ctx: FileOutputContext,
	itemIndex: number,
	source: Readable,
	names: FileNames,
): Promise<StoredStream> {
	const { head, stream } = await peekStream(source, 512);
	const guessed = guessFileType(head, names.fileType, false);
	const fileName = fileNameFor(names.userFilename, names.fileReference, guessed);
	let bytes = 0;
	const counted = stream.pipe(
		new Transform({
			transform(chunk: Buffer, _encoding, done) {
				bytes += chunk.length;
				done(null, chunk);
			},
		}),
	);
	stream.once('error', (error) => counted.destroy(error));
	// n8n's storage starts reading only after its own awaits: an error of the source before then
	// (a download that broke off) is kept by the stream for that reader, not thrown as unhandled.
	counted.on('error', () => undefined);
	// In database mode n8n gathers the whole file in memory: stop at its limit rather than run the
	// worker out of memory or have the database refuse the row after the whole download.
	const limit = databaseBinaryLimit();
	const binaryData = await ctx.helpers
		.prepareBinaryData(
			limit === undefined ? counted : limitedStream(counted, limit),
			fileName,
			guessed.mimeType,
		)
		.catch(async (error: unknown) =>
			Promise.reject(
				error instanceof BinaryStorageLimitError ? storageLimitFailure(itemIndex, error) : error,
			),
		);
	return { binaryData, fileName, mimeType: guessed.mimeType, bytes };
}
