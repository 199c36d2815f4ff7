import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { DateTime } from 'luxon';

import type {
	BxdOperation,
	Canonicalization,
	FileDescriptor,
	FileServiceResult,
	PreparedRequest,
	RequestFields,
} from '../../shared/bxd';
import { prepareRequest } from '../../shared/bxd';
import type { BankContext } from '../../shared/transport/request';
import type { Endpoint, ServiceContext } from '../fileService';
import { sendPrepared, toNodeError } from '../fileService';

export type FileServiceOperation = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: ServiceContext,
) => Promise<INodeExecutionData[]>;

export interface CommonOptions {
	endpoint: Endpoint;
	timeoutMs: number;
	canonicalization: Canonicalization;
	compress: boolean;
	requestCompression: boolean;
	executionSerial?: string;
}

/** The Options collection as the request settings; an unknown Endpoint is refused naming the field. */
export function commonOptionsFrom(
	node: INode,
	options: IDataObject,
	itemIndex?: number,
): CommonOptions {
	const endpoint = (options.endpoint as Endpoint | undefined) ?? 'auto';
	if (!['auto', 'standard', 'large'].includes(endpoint)) {
		throw new NodeOperationError(
			node,
			`Endpoint must be Auto, Standard or Large (got "${String(endpoint)}")`,
			{ itemIndex },
		);
	}
	const timeout = options.timeout ?? 120;
	if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1) {
		throw new NodeOperationError(
			node,
			`Options > Timeout (Seconds): must be a whole number of at least 1, got ${JSON.stringify(timeout)}`,
			{
				itemIndex,
				description: 'Nothing was sent to the bank.',
			},
		);
	}
	return {
		endpoint,
		timeoutMs: timeout * 1000,
		canonicalization: options.canonicalization === 'exclusive' ? 'exclusive' : 'inclusive',
		compress: options.compress !== false,
		requestCompression: options.requestCompression === true,
		executionSerial:
			typeof options.executionSerial === 'string' && options.executionSerial.trim()
				? options.executionSerial.trim()
				: undefined,
	};
}

export function readOptions(ctx: IExecuteFunctions, itemIndex: number): CommonOptions {
	return commonOptionsFrom(
		ctx.getNode(),
		ctx.getNodeParameter('options', itemIndex, {}) as IDataObject,
		itemIndex,
	);
}

/** Optional text parameter, trimmed; undefined when empty. */
export function textParam(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
): string | undefined {
	const value = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text ? text : undefined;
}

/** The File Type parameter (a list pick or a typed code). */
export function fileTypeParam(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const value = ctx.getNodeParameter('fileType', itemIndex, '', { extractValue: true }) as unknown;
	if (value && typeof value === 'object' && 'value' in (value as IDataObject)) {
		return String((value as IDataObject).value ?? '').trim() || undefined;
	}
	return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** A date parameter as YYYY-MM-DD (the day as written, whatever time it carries). */
export function dateParam(
	ctx: IExecuteFunctions,
	name: string,
	label: string,
	itemIndex: number,
): string | undefined {
	const value = ctx.getNodeParameter(name, itemIndex, '') as unknown;
	if (value === undefined || value === null || value === '') return undefined;
	if (DateTime.isDateTime(value)) return value.toISODate() ?? undefined;
	if (value instanceof Date)
		return DateTime.fromJSDate(value, { zone: ctx.getTimezone() }).toISODate() ?? undefined;
	const text = String(value).trim();
	const match = /^(\d{4}-\d{2}-\d{2})/.exec(text);
	if (match && DateTime.fromISO(match[1]).isValid) return match[1];
	throw new NodeOperationError(
		ctx.getNode(),
		`${label}: "${text}" is not a date (use YYYY-MM-DD)`,
		{ itemIndex },
	);
}

/** Builds and signs one request from fields; a field the schema refuses becomes an n8n error. */
export function prepare(
	ctx: BankContext,
	itemIndex: number,
	service: ServiceContext,
	operation: BxdOperation,
	fields: RequestFields,
	options: CommonOptions,
): PreparedRequest {
	try {
		return prepareRequest(
			{ ...service.settings, canonicalization: options.canonicalization },
			operation,
			options.executionSerial ? { ...fields, executionSerial: options.executionSerial } : fields,
		);
	} catch (error) {
		throw toNodeError(ctx.getNode(), error, { operation, itemIndex, secrets: service.secrets });
	}
}

/** Builds, signs and sends one request from fields; every failure becomes an n8n error. */
export async function exchange(
	ctx: BankContext,
	itemIndex: number,
	service: ServiceContext,
	operation: BxdOperation,
	fields: RequestFields,
	options: CommonOptions,
): Promise<FileServiceResult> {
	const prepared = prepare(ctx, itemIndex, service, operation, fields, options);
	return await sendPrepared(ctx, service, prepared, {
		itemIndex,
		endpoint: options.endpoint,
		timeoutMs: options.timeoutMs,
	});
}

/** The response summary every operation adds to its items. */
export function responseSummary(result: FileServiceResult): IDataObject {
	const ar = result.applicationResponse;
	const summary: IDataObject = {
		responseCode: result.code,
		responseText: ar?.responseText ?? result.header.responseText ?? null,
	};
	if (ar?.amountTotal !== undefined) summary.amountTotal = ar.amountTotal;
	if (ar?.transactionCount !== undefined) summary.transactionCount = ar.transactionCount;
	if (ar?.executionSerial !== undefined) summary.executionSerial = ar.executionSerial;
	return summary;
}

export function descriptorJson(descriptor: FileDescriptor | undefined): IDataObject {
	return descriptor ? ({ ...descriptor } as IDataObject) : {};
}
