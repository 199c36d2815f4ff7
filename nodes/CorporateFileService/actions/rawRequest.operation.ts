import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { ApplicationResponse, BxdOperation, FileServiceResult } from '../../shared/bxd';
import { attempt } from '../../shared/common/attempt';
import { decodePayload, prepareRawRequest } from '../../shared/bxd';
import { InputError } from '../../shared/common/errors';
import type { FileItemSpec } from '../../shared/bxd/node/bankFiles';
import { downloadItem, wholeAnswerItem } from '../../shared/bxd/node/bankFiles';
import { readOptions, textParam } from '../../shared/bxd/node/readParameters';
import { prepareWith, sendPrepared } from '../../shared/bxd/node/request';
import type { FileServiceOperation } from '../../shared/bxd/node/serviceContext';

/**
 * The Raw ApplicationRequest mode of the file operations (Request: Raw ApplicationRequest): the
 * user writes the ApplicationRequest, the node signs, wraps and sends it with the chosen operation.
 */
export const description: INodeProperties[] = [
	{
		displayName: 'ApplicationRequest',
		name: 'applicationRequest',
		type: 'string',
		typeOptions: { rows: 10 },
		required: true,
		default: '',
		placeholder: '<ApplicationRequest xmlns="http://bxd.fi/xmldata/">…</ApplicationRequest>',
		description:
			"The ApplicationRequest document as XML, or its base64. It is signed with the credential's signing key unless it already carries a signature.",
		displayOptions: { show: { mode: ['raw'] } },
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		description:
			'The name of the output binary field for the Content of the answer, when it has one',
		displayOptions: { show: { mode: ['raw'] } },
	},
];

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
	if (!text) throw new InputError('ApplicationRequest is empty', { itemIndex });
	if (text.startsWith('<') || text.startsWith('\uFEFF')) return Buffer.from(text, 'utf8');
	const decoded = attempt(() => decodePayload(text, 'The ApplicationRequest parameter'));
	if (decoded.ok) return decoded.value;
	throw new InputError(
		`${(decoded.error as Error).message}. Give the ApplicationRequest as XML or as base64 of XML.`,
		{ itemIndex },
	);
}

/** The answer's code, text, header and signature state. */
function summary(
	result: Pick<FileServiceResult, 'code' | 'header'>,
	response: ApplicationResponse | undefined,
): IDataObject {
	return {
		responseCode: result.code,
		responseText: response?.responseText ?? result.header.responseText ?? null,
		responseHeader: { ...result.header } as IDataObject,
		signature: response?.signature ?? 'notChecked',
	};
}

/** The decoded ApplicationResponse as parsed JSON and as XML text. */
function documentJson(response: ApplicationResponse): IDataObject {
	return {
		applicationResponse: withoutAttributes(response.tree) as IDataObject,
		applicationResponseXml:
			response.bytes && response.bytes.length <= FULL_XML_LIMIT
				? response.bytes.toString(response.encoding)
				: response.xmlWithoutContent,
	};
}

/** How the answer becomes the item: its Content (if any) as binary data, the document as JSON. */
function answerItem(itemIndex: number, propertyName: string): FileItemSpec {
	return {
		propertyName,
		names: (response) => {
			const descriptor = response.fileDescriptors[0];
			return {
				userFilename: descriptor?.userFilename,
				fileReference: descriptor?.fileReference,
				fileType: descriptor?.fileType ?? response.fileType,
			};
		},
		json: (answer, response) => ({ ...summary(answer, response), ...documentJson(response) }),
		withoutFile: (result) => {
			const response = result.applicationResponse;
			return {
				json: response
					? { ...summary(result, response), ...documentJson(response) }
					: {
							...summary(result, undefined),
							applicationResponse: null,
							applicationResponseXml: null,
						},
				pairedItem: { item: itemIndex },
			};
		},
		noDataIsEmpty: false,
	};
}

/**
 * Raw mode: sends the user's ApplicationRequest (signed unless it already is) with the chosen
 * operation and returns the decoded ApplicationResponse as XML text and as parsed JSON, plus its
 * Content as binary data.
 */
export const execute: FileServiceOperation = async (ctx, itemIndex, service) => {
	const operation = ctx.getNodeParameter('operation', itemIndex) as BxdOperation;
	const xml = applicationRequestBytes(ctx, itemIndex);
	const options = readOptions(ctx, itemIndex);
	const prepared = await prepareWith(service, operation, itemIndex, options, (settings) =>
		prepareRawRequest(settings, operation, xml),
	);
	const sendOptions = { itemIndex, endpoint: options.endpoint, timeoutMs: options.timeoutMs };
	const spec = answerItem(itemIndex, textParam(ctx, 'binaryPropertyName', itemIndex) ?? 'data');
	// A download may bring a file of any size: its answer is read as a stream.
	const item =
		operation === 'downloadFile'
			? await downloadItem(ctx, service, prepared, sendOptions, spec)
			: await wholeAnswerItem(
					ctx,
					itemIndex,
					await sendPrepared(ctx, service, prepared, sendOptions),
					spec,
				);
	return item ? [item] : [];
};
