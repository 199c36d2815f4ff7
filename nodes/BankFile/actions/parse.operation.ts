import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { BINARY_ENCODING } from 'n8n-workflow';

import type { BankFileFormat, ParseOptions } from '../../shared/bankfiles';
import { parseBankFile } from '../../shared/bankfiles';
import {
	fileFormatOption,
	itemPerOption,
	keepXmlOption,
	onInvalidRecordOption,
	textEncodingOption,
} from '../../shared/bankfiles/node/parseProperties';
import { inputBinaryField, optionsCollection } from '../../shared/common/properties';

const show = { show: { operation: ['parse'] } };

export const description: INodeProperties[] = [
	inputBinaryField('The name of the input binary field holding the bank file', show),
	{ ...fileFormatOption, displayOptions: show },
	optionsCollection(
		[
			itemPerOption,
			keepXmlOption,
			onInvalidRecordOption,
			{
				displayName: 'Skip Statements Already Processed',
				name: 'skipProcessed',
				type: 'boolean',
				default: false,
				description:
					"Whether to skip statements (by account and statement ID) this workflow has parsed before. Remembered in the workflow's static data, which n8n saves for active (production) runs, not for manual test runs.",
			},
			textEncodingOption,
		],
		{ placeholder: 'Add option', displayOptions: show },
	),
];

const MAX_REMEMBERED = 5000;

interface Remembered {
	processedStatements?: string[];
}

const statementKey = (account: string, statementId: string): string => `${account}|${statementId}`;

/**
 * Parses the bank file of each input item: entries (or payment statuses) on the first output,
 * statements with their balances and balance check (and warnings) on the second.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[][]> {
	const property = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	const format = this.getNodeParameter('format', itemIndex, 'auto') as BankFileFormat | 'auto';
	const options = this.getNodeParameter('options', itemIndex, {}) as {
		split?: 'entry' | 'transaction';
		skipProcessed?: boolean;
		keepXml?: boolean;
		onInvalidRecord?: 'fail' | 'warn';
		encoding?: 'auto' | 'utf-8' | 'latin1';
	};
	const binary = this.helpers.assertBinaryData(itemIndex, property);
	const source = binary.id
		? await this.helpers.getBinaryStream(binary.id)
		: Buffer.from(binary.data, BINARY_ENCODING);
	const staticData = this.getWorkflowStaticData('node') as Remembered;
	const remembered = new Set(options.skipProcessed ? (staticData.processedStatements ?? []) : []);
	const parseOptions: ParseOptions = {
		format,
		split: options.split,
		keepXml: options.keepXml,
		onInvalidRecord: options.onInvalidRecord,
		encoding: options.encoding,
		skipStatement: options.skipProcessed
			? (key) => remembered.has(statementKey(key.account, key.statementId))
			: undefined,
	};
	const entries: INodeExecutionData[] = [];
	const statements: INodeExecutionData[] = [];
	const fresh: string[] = [];
	const pairedItem = { item: itemIndex };
	const fileName = binary.fileName ?? null;
	for await (const event of parseBankFile(source, parseOptions)) {
		switch (event.type) {
			case 'entry':
				entries.push({ json: event.entry as unknown as IDataObject, pairedItem });
				break;
			case 'paymentStatus':
				entries.push({ json: event.status as unknown as IDataObject, pairedItem });
				break;
			case 'statement': {
				const s = event.statement;
				statements.push({
					json: { kind: 'statement', ...s, fileName } as unknown as IDataObject,
					pairedItem,
				});
				if (s.statementId)
					fresh.push(statementKey(s.accountIban ?? s.accountId ?? '', s.statementId));
				break;
			}
			case 'warning':
				statements.push({
					json: { kind: 'warning', ...event.warning, fileName } as unknown as IDataObject,
					pairedItem,
				});
				break;
			default:
				break;
		}
	}
	if (options.skipProcessed && fresh.length) {
		const all = [
			...(staticData.processedStatements ?? []),
			...fresh.filter((k) => !remembered.has(k)),
		];
		// Assigned, not changed in place, so that n8n notices and saves it.
		staticData.processedStatements = all.slice(-MAX_REMEMBERED);
	}
	return [entries, statements];
}
