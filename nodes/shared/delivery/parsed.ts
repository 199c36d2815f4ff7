/**
 * Output Parsed Entries of the file triggers: a file n8n holds (its descriptor in the JSON, the
 * file in a binary field) made into the Bank File node's items, one per entry or payment status,
 * the statements, then the file item with what was found.
 */
import type { Readable } from 'node:stream';

import type { IBinaryData, IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { BINARY_ENCODING } from 'n8n-workflow';

import type { ParseOptions } from '../bankfiles';
import { BankFileError, parseBankFile } from '../bankfiles';

/** How a trigger parses its files: the binary field they are in and the Parse Options. */
export interface ParseSettings {
	binaryPropertyName: string;
	parse: ParseOptions;
}

/**
 * The file's content: read back from n8n's binary storage as a stream, or the bytes held in the
 * item.
 */
async function contentOf(ctx: IPollFunctions, binary: IBinaryData): Promise<Buffer | Readable> {
	return binary.id
		? await ctx.helpers.getBinaryStream(binary.id)
		: Buffer.from(binary.data, BINARY_ENCODING);
}

/**
 * A parsed entry (or payment status) as an item: the parser's object itself with the kind and the
 * file added, not a copy, since a statement can have a hundred thousand of them.
 */
function tagged(value: object, kind: string, of: IDataObject): IDataObject {
	const json = value as IDataObject;
	json.kind = kind;
	Object.assign(json, of);
	return json;
}

/**
 * The items of one file held in an item: one item per entry or payment status, the statements,
 * then the file item with what was found. A file that cannot be parsed is the file item alone,
 * with the reason. `of` names the file on every item (its reference and name); `trigger` names
 * the trigger in the log.
 */
export async function parsedItems(
	ctx: IPollFunctions,
	stored: INodeExecutionData,
	of: IDataObject,
	settings: ParseSettings,
	trigger: string,
): Promise<INodeExecutionData[]> {
	const data = stored.binary![settings.binaryPropertyName];
	const items: INodeExecutionData[] = [];
	const counts = { entries: 0, paymentStatuses: 0, statements: 0, warnings: 0 };
	let format: string | null = null;
	try {
		for await (const event of parseBankFile(await contentOf(ctx, data), settings.parse)) {
			switch (event.type) {
				case 'format':
					format = event.format.messageType;
					break;
				case 'entry':
					counts.entries++;
					items.push({ json: tagged(event.entry, 'entry', of) });
					break;
				case 'paymentStatus':
					counts.paymentStatuses++;
					items.push({ json: tagged(event.status, 'paymentStatus', of) });
					break;
				case 'statement':
					counts.statements++;
					items.push({
						json: { kind: 'statement', ...(event.statement as unknown as IDataObject), ...of },
					});
					break;
				case 'warning':
					counts.warnings++;
					items.push({
						json: { kind: 'warning', ...(event.warning as unknown as IDataObject), ...of },
					});
					break;
				default:
					break;
			}
		}
	} catch (error) {
		// A file that cannot be parsed is emitted once as it is, with the reason, so it is neither
		// lost nor retried forever; none of its entries are emitted (a half-read file would look
		// whole).
		const problem = error instanceof BankFileError ? error : undefined;
		const name = Object.values(of).find((v) => typeof v === 'string') ?? '';
		ctx.logger.warn(
			`${trigger}: file ${String(name)} could not be parsed: ${(error as Error).message}. It is emitted with the error.`,
		);
		return [
			{
				json: {
					kind: 'file',
					...stored.json,
					parsed: false,
					format,
					error: (error as Error).message,
					errorCode: problem?.code ?? null,
					errorLocation: problem?.location ?? null,
				},
				binary: stored.binary,
			},
		];
	}
	items.push({
		json: { kind: 'file', ...stored.json, parsed: true, format, ...counts },
		binary: stored.binary,
	});
	return items;
}
