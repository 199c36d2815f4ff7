import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as buildDirectDebitFile from './actions/buildDirectDebitFile.operation';
import * as buildPaymentFile from './actions/buildPaymentFile.operation';
import * as parse from './actions/parse.operation';
import { router } from './actions/router';

export class BankFile implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bank File',
		name: 'bankFile',
		icon: { light: 'file:bankFile.svg', dark: 'file:bankFile.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ $parameter["operation"] === "parse" ? "Parse " + ($parameter["format"] === "auto" ? "bank file" : $parameter["format"]) : "Build " + $parameter["version"] }}',
		description:
			'Turn bank statements, reports, notifications and status reports (camt.052, camt.053, camt.054, MT940, MT942, BAI2, pain.002, TITO, KTL) into items, and items into pain.001 payment and pain.008 direct debit files',
		defaults: { name: 'Bank File' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: `={{ $parameter["operation"] !== "parse" ? [{ "type": "${NodeConnectionTypes.Main}", "displayName": "File" }] : [{ "type": "${NodeConnectionTypes.Main}", "displayName": "Entries" }, { "type": "${NodeConnectionTypes.Main}", "displayName": "Statements" }] }}`,
		properties: [
			// Each operation is an action in n8n's node panel (Parse, Build Payment File, Build Direct
			// Debit File). The panel lists the node and the trigger whose type name is the node's plus
			// "Trigger" (bankFile, bankFileTrigger) as one entry, with the trigger's description, the
			// trigger and the actions inside.
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				default: 'parse',
				options: [
					{
						name: 'Parse',
						value: 'parse',
						action: 'Parse a bank file into items',
						description:
							'One item per booking entry (or payment status), and one per statement with its balances',
					},
					{
						name: 'Build Payment File',
						value: 'buildPaymentFile',
						action: 'Build a payment file from items',
						description: 'One pain.001 credit transfer file from the input items',
					},
					{
						name: 'Build Direct Debit File',
						value: 'buildDirectDebitFile',
						action: 'Build a direct debit file from items',
						description: 'One pain.008 SEPA direct debit file (Core or B2B) from the input items',
					},
				],
			},
			...parse.description,
			...buildPaymentFile.description,
			...buildDirectDebitFile.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
