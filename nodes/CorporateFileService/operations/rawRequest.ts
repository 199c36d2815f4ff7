import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type {
	ApplicationResponse,
	BxdOperation,
	FileServiceResult,
	PreparedRequest,
} from '../../shared/bxd';
import { attempt, decodePayload, prepareRawRequest } from '../../shared/bxd';
import type { ServiceContext } from '../fileService';
import { sendForDownload, sendPrepared, toNodeError } from '../fileService';
import { binaryItem, encryptedError, streamedBinaryItem, unpackedContent } from './binaryOutput';
import { readOptions, textParam } from './common';

/** The XML text is returned whole up to this size; above it, without the Content text. */
const FULL_XML_LIMIT = 5 * 1000 * 1000;

function withoutAttributes(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(withoutAttributes);
	if (value && typeof value === 'object') {
		const out: IDataObject = {};
		for (const [key, inner] of Object.entries(value)) {
			if (key.startsWith('@_xmlns')) continue;
			out[key.startsWith('@_') ? key.slice(2) : key] = withoutAttributes(inner) as IDataObject;
		}
		return out;
	}
	return value;
}

/** The ApplicationRequest parameter: XML text, or base64 of it. */
function applicationRequestBytes(ctx: IExecuteFunctions, itemIndex: number): Buffer {
	const text = (ctx.getNodeParameter('applicationRequest', itemIndex, '') as string).trim();
	if (!text)
		throw new NodeOperationError(ctx.getNode(), 'ApplicationRequest is empty', { itemIndex });
	if (text.startsWith('<') || text.startsWith('\uFEFF')) return Buffer.from(text, 'utf8');
	const decoded = attempt(() => decodePayload(text, 'The ApplicationRequest parameter'));
	if (decoded.ok) return decoded.value;
	throw new NodeOperationError(
		ctx.getNode(),
		`${(decoded.error as Error).message}. Give the ApplicationRequest as XML or as base64 of XML.`,
		{
			itemIndex,
		},
	);
}

/**
 * Raw mode: sends the user's ApplicationRequest (signed unless it already is) with the chosen
 * operation and returns the decoded ApplicationResponse as XML text and as parsed JSON, plus its
 * Content as binary data.
 */
export async function rawRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: ServiceContext,
): Promise<INodeExecutionData[]> {
	const operation = ctx.getNodeParameter('operation', itemIndex) as BxdOperation;
	const xml = applicationRequestBytes(ctx, itemIndex);
	const options = readOptions(ctx, itemIndex);
	let prepared: PreparedRequest;
	try {
		prepared = prepareRawRequest(
			{ ...service.settings, canonicalization: options.canonicalization },
			operation,
			xml,
		);
	} catch (error) {
		throw toNodeError(ctx.getNode(), error, { operation, itemIndex, secrets: service.secrets });
	}
	const sendOptions = { itemIndex, endpoint: options.endpoint, timeoutMs: options.timeoutMs };
	const propertyName = textParam(ctx, 'binaryPropertyName', itemIndex) ?? 'data';
	const summary = (
		result: Pick<FileServiceResult, 'code' | 'header'>,
		response: ApplicationResponse | undefined,
	): IDataObject => ({
		responseCode: result.code,
		responseText: response?.responseText ?? result.header.responseText ?? null,
		responseHeader: { ...result.header } as IDataObject,
		signature: response?.signature ?? 'notChecked',
	});
	const namesOf = (response: ApplicationResponse) => {
		const descriptor = response.fileDescriptors[0];
		return {
			userFilename: descriptor?.userFilename,
			fileReference: descriptor?.fileReference,
			fileType: descriptor?.fileType ?? response.fileType,
		};
	};
	const documentJson = (response: ApplicationResponse): IDataObject => ({
		applicationResponse: withoutAttributes(response.tree) as IDataObject,
		applicationResponseXml:
			response.bytes && response.bytes.length <= FULL_XML_LIMIT
				? response.bytes.toString(response.encoding)
				: response.xmlWithoutContent,
	});

	// A download may bring a file of any size: its answer is read as a stream.
	if (operation === 'downloadFile') {
		const { reading, errorContext } = await sendForDownload(ctx, service, prepared, sendOptions);
		if (reading.streamed) {
			const answer = reading.answer;
			if (answer.applicationResponse.encrypted) {
				answer.abort();
				throw encryptedError(ctx, itemIndex);
			}
			try {
				return [
					await streamedBinaryItem(
						ctx,
						itemIndex,
						answer,
						namesOf(answer.applicationResponse),
						propertyName,
						(response) => ({
							...summary(answer, response),
							...documentJson(response),
						}),
					),
				];
			} catch (error) {
				answer.abort();
				throw toNodeError(ctx.getNode(), error, errorContext);
			}
		}
		return await fromResult(reading.result);
	}
	return await fromResult(await sendPrepared(ctx, service, prepared, sendOptions));

	async function fromResult(result: FileServiceResult): Promise<INodeExecutionData[]> {
		const response = result.applicationResponse;
		const json = summary(result, response);
		if (!response)
			return [
				{
					json: { ...json, applicationResponse: null, applicationResponseXml: null },
					pairedItem: { item: itemIndex },
				},
			];
		Object.assign(json, documentJson(response));
		const content = unpackedContent(ctx, itemIndex, response);
		if (!content) return [{ json, pairedItem: { item: itemIndex } }];
		return [await binaryItem(ctx, itemIndex, content, namesOf(response), propertyName, json)];
	}
}
