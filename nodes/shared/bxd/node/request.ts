/**
 * One request to the file service: built and signed with the item's options, sent through the
 * shared transport to the address its size calls for, and its answer judged. Every failure is
 * thrown as a domain error (see failures.ts) naming the bank's code or the fault category.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { Readable } from 'node:stream';

import type {
	AnswerReading,
	BxdOperation,
	FileServiceResult,
	FileServiceSettings,
	PreparedRequest,
	RequestFields,
	StreamingRequest,
} from '../index';
import {
	BxdFormatError,
	parseSoapFault,
	prepareRequest,
	readAtMost,
	readResponse,
	readResponseStream,
	STANDARD_MESSAGE_LIMIT,
} from '../index';
import { InputError } from '../../common/errors';
import { FILE_SERVICE_AUTH } from '../credential/fileServiceCredential';
import { bankFailure, errorResponseOf, outcomeUnknown } from '../../transport/errors';
import type { BankContext, BankResponse } from '../../transport/request';
import { bankRequest, isRetryableError } from '../../transport/request';
import { DEFAULT_RETRY } from '../../transport/retry';
import type { ErrorContext } from './failures';
import { fileServiceFailure, OPERATION_LABELS } from './failures';
import type { CommonOptions, Endpoint } from './readParameters';
import type { ServiceContext } from './serviceContext';

/**
 * Builds and signs one request with the credential's settings and the item's canonicalization;
 * a value the bxd layer refuses becomes the node's error.
 */
export async function prepareWith<T>(
	service: ServiceContext,
	operation: BxdOperation,
	itemIndex: number,
	options: Pick<CommonOptions, 'canonicalization'>,
	build: (settings: FileServiceSettings) => T | Promise<T>,
): Promise<T> {
	try {
		return await build({ ...service.settings, canonicalization: options.canonicalization });
	} catch (error) {
		throw fileServiceFailure(error, { operation, itemIndex, secrets: service.secrets });
	}
}

/** The request fields with the Execution Serial option, when it is set. */
export function withExecutionSerial<F extends RequestFields>(
	fields: F,
	options: Pick<CommonOptions, 'executionSerial'>,
): F {
	return options.executionSerial ? { ...fields, executionSerial: options.executionSerial } : fields;
}

/** Builds and signs one request from fields. */
export async function prepare(
	service: ServiceContext,
	operation: BxdOperation,
	itemIndex: number,
	fields: RequestFields,
	options: CommonOptions,
): Promise<PreparedRequest> {
	return await prepareWith(service, operation, itemIndex, options, (settings) =>
		prepareRequest(settings, operation, withExecutionSerial(fields, options)),
	);
}

/** Builds, signs and sends one request from fields and reads the bank's answer. */
export async function exchange(
	ctx: BankContext,
	service: ServiceContext,
	operation: BxdOperation,
	itemIndex: number,
	fields: RequestFields,
	options: CommonOptions,
): Promise<FileServiceResult> {
	const prepared = await prepare(service, operation, itemIndex, fields, options);
	return await sendPrepared(ctx, service, prepared, {
		itemIndex,
		endpoint: options.endpoint,
		timeoutMs: options.timeoutMs,
	});
}

/** Picks the address: Auto sends messages over 20 MB to the large-file URL when there is one. */
export function chooseUrl(
	service: ServiceContext,
	endpoint: Endpoint,
	size: number,
	itemIndex: number,
): string {
	if (endpoint === 'large') {
		if (!service.largeFileUrl) {
			throw new InputError('Endpoint "Large" needs the Large File Service URL in the credential', {
				itemIndex,
			});
		}
		return service.largeFileUrl;
	}
	if (endpoint === 'auto' && size > STANDARD_MESSAGE_LIMIT && service.largeFileUrl)
		return service.largeFileUrl;
	return service.url;
}

function megabytes(bytes: number): string {
	return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** The SOAP fault the bank answered a failed request with, if any. */
function soapFaultOf(error: unknown) {
	const { body } = errorResponseOf(error);
	return typeof body === 'string' || Buffer.isBuffer(body) ? parseSoapFault(body) : undefined;
}

/** A SOAP fault is the bank's considered answer: sending the request again would not change it. */
function retryable(error: unknown): boolean {
	if (soapFaultOf(error)) return false;
	return isRetryableError(error);
}

export interface SendOptions {
	itemIndex: number;
	endpoint: Endpoint;
	timeoutMs: number;
}

const IDEMPOTENT: Record<BxdOperation, boolean> = {
	uploadFile: false,
	deleteFile: false,
	downloadFileList: true,
	downloadFile: true,
	getUserInfo: true,
};

/**
 * Files and answers above these sizes are streamed; smaller ones take the simpler in-memory
 * path.
 */
export const streamingThresholds = {
	/** Upload: size of the stored file in bytes. */
	uploadBytes: 4 * 1024 * 1024,
	/** Download: Content-Length of the answer in bytes (an answer without one is always streamed). */
	downloadBytes: 4 * 1024 * 1024,
};

interface Outgoing {
	operation: BxdOperation;
	/** Size of the SOAP message in bytes. */
	size: number;
	body: Buffer | Readable;
}

/**
 * Sends one SOAP message: picks the address by size, sends it (retried only when the operation
 * is idempotent and the body is not a stream), and turns transport failures and SOAP faults into
 * the node's errors. Returns the answer's body and what errors about it should say.
 */
async function deliver(
	ctx: BankContext,
	service: ServiceContext,
	outgoing: Outgoing,
	options: SendOptions,
	responseType?: 'stream',
): Promise<{ response: BankResponse<unknown>; errorContext: ErrorContext }> {
	const { operation, size } = outgoing;
	const url = chooseUrl(service, options.endpoint, size, options.itemIndex);
	const large = url === service.largeFileUrl && url !== service.url;
	const sizeHint =
		size > STANDARD_MESSAGE_LIMIT && !large
			? `The message is ${megabytes(size)}: messages over 20 MB must go to the large-file address. ${
					service.largeFileUrl
						? 'Set Options > Endpoint to Auto or Large.'
						: 'Set the Large File Service URL in the credential.'
				}`
			: undefined;
	const errorContext: ErrorContext = {
		operation,
		itemIndex: options.itemIndex,
		secrets: service.secrets,
		hint: sizeHint,
	};
	const idempotent = IDEMPOTENT[operation];
	const streamed = outgoing.body instanceof Readable;
	try {
		const response = await bankRequest<unknown>(ctx, FILE_SERVICE_AUTH, {
			method: 'POST',
			url,
			body: outgoing.body,
			json: false,
			headers: {
				'Content-Type': 'text/xml; charset=utf-8',
				SOAPAction: service.soapAction ?? '""',
				Accept: 'text/xml',
				...(streamed ? { 'Content-Length': String(size) } : {}),
			},
			idempotent,
			retry: idempotent ? DEFAULT_RETRY : undefined,
			retryable,
			timeoutMs: options.timeoutMs,
			responseType,
		});
		return { response, errorContext };
	} catch (error) {
		const fault = soapFaultOf(error);
		if (fault)
			throw fileServiceFailure(fault, {
				...errorContext,
				httpStatus: errorResponseOf(error).status,
			});
		// An upload or delete that may have reached the bank is not sent again: say so.
		const unknown = !idempotent && outcomeUnknown(error);
		throw bankFailure(error, {
			operation: unknown
				? `${OPERATION_LABELS[operation]}: outcome unknown`
				: OPERATION_LABELS[operation],
			itemIndex: options.itemIndex,
			secrets: service.secrets,
			hint: unknown
				? [
						sizeHint,
						'The bank may have carried it out. Check List Files before sending it again; it was not sent again automatically.',
					]
						.filter(Boolean)
						.join('\n')
				: sizeHint,
			statusMessages: { 413: 'The bank refused the message as too large' },
		});
	}
}

function judge(
	service: ServiceContext,
	operation: BxdOperation,
	body: unknown,
	errorContext: ErrorContext,
): FileServiceResult {
	try {
		if (typeof body !== 'string' && !Buffer.isBuffer(body)) {
			throw new BxdFormatError("The bank's answer is not XML");
		}
		return readResponse(service.settings, operation, body);
	} catch (error) {
		throw fileServiceFailure(error, errorContext);
	}
}

/**
 * Sends a prepared message and reads the answer. Listing, downloading and user info are retried
 * after network failures and 5xx answers that are not SOAP faults; uploads and deletes are sent
 * once.
 */
export async function sendPrepared(
	ctx: BankContext,
	service: ServiceContext,
	prepared: PreparedRequest,
	options: SendOptions,
): Promise<FileServiceResult> {
	const { response, errorContext } = await deliver(
		ctx,
		service,
		{ operation: prepared.operation, size: prepared.size, body: prepared.envelope.body },
		options,
	);
	return judge(service, prepared.operation, response.body, errorContext);
}

/**
 * Sends a message whose file is streamed from disk (never retried: the stream is read once) and
 * reads the bank's small answer.
 */
export async function sendStreamingRequest(
	ctx: IExecuteFunctions,
	service: ServiceContext,
	request: StreamingRequest,
	options: SendOptions,
): Promise<FileServiceResult> {
	const body = request.body();
	try {
		const { response, errorContext } = await deliver(
			ctx,
			service,
			{ operation: request.operation, size: request.size, body },
			options,
		);
		return judge(service, request.operation, response.body, errorContext);
	} finally {
		// Whatever happened to the request, the file is closed.
		body.destroy();
	}
}

export interface DownloadReading {
	reading: AnswerReading;
	/** What errors raised while the file streams should say. */
	errorContext: ErrorContext;
}

/**
 * Sends a message whose answer may carry a large file and reads the answer as it arrives: a small
 * answer (up to streamingThresholds.downloadBytes) is read whole and judged as usual; a larger one
 * is judged up to its Content and the file comes as a stream (see readResponseStream).
 */
export async function sendForDownload(
	ctx: BankContext,
	service: ServiceContext,
	prepared: PreparedRequest,
	options: SendOptions,
): Promise<DownloadReading> {
	const operation = prepared.operation;
	const { response, errorContext } = await deliver(
		ctx,
		service,
		{ operation, size: prepared.size, body: prepared.envelope.body },
		options,
		'stream',
	);
	const stream = response.body as Readable;
	const declared = Number(response.headers['content-length']);
	try {
		if (Number.isFinite(declared) && declared <= streamingThresholds.downloadBytes) {
			const body = await readAtMost(stream, streamingThresholds.downloadBytes, "The bank's answer");
			return {
				reading: { streamed: false, result: judge(service, operation, body, errorContext) },
				errorContext,
			};
		}
		return {
			reading: await readResponseStream(service.settings, operation, stream, { unpack: true }),
			errorContext,
		};
	} catch (error) {
		stream.destroy();
		throw fileServiceFailure(error, errorContext);
	}
}
