import type {
	IExecuteFunctions,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodeListSearchItems,
	INodeListSearchResult,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import type { BxdOperation } from '../shared/bxd';
import { BXD_OPERATIONS, prepareRequest } from '../shared/bxd';
import { runForEachItem } from '../shared/runItems';
import { fileServiceProperties } from './descriptions';
import { CREDENTIAL_TYPE, loadServiceContext, sendPrepared } from './fileService';
import { fileServiceOperations, rawRequest } from './operations';
import { getBankCertificates } from './operations/getBankCertificates';
import { renewCertificate } from './operations/renewCertificate';

/** Common file types offered as suggestions; any other code can be typed. */
export const FILE_TYPE_SUGGESTIONS: INodeListSearchItems[] = [
	{ name: 'XL: SEPA Credit Transfer (pain.001), Upload', value: 'XL' },
	{ name: 'XP: Payment Status Report (pain.002), Download', value: 'XP' },
	{ name: 'XT: Account Statement (camt.053), Download', value: 'XT' },
	{ name: 'camt.053.001.02: Account Statement', value: 'camt.053.001.02' },
	{ name: 'pain.001.001.03: Credit Transfer Initiation', value: 'pain.001.001.03' },
	{ name: 'pain.002.001.03: Payment Status Report', value: 'pain.002.001.03' },
];

export class CorporateFileService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Corporate File Service',
		name: 'corporateFileService',
		icon: { light: 'file:../../icons/file-service.svg', dark: 'file:../../icons/file-service.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description: "Upload, list, download and delete files with the bank's SOAP file service (bxd Web Services)",
		defaults: { name: 'Corporate File Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: fileServiceProperties,
	};

	methods = {
		listSearch: {
			/** The common codes plus the types the bank reports for this user (when it answers), and what was typed. */
			async searchFileTypes(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
				const results = [...FILE_TYPE_SUGGESTIONS];
				try {
					const service = await loadServiceContext(this);
					// The bank profile's own codes first (nodes/shared/bxd/bankProfiles.ts names their sources).
					for (const type of service.profile?.fileTypes ?? []) {
						if (!results.some((r) => r.value === type.code)) results.push({ name: `${type.code}: ${type.label}`, value: type.code });
					}
					if (service.profile && !service.profile.hasGetUserInfo) throw new NodeOperationError(this.getNode(), `${service.profile.name} has no getUserInfo`);
					const prepared = prepareRequest(service.settings, 'getUserInfo', {});
					const answer = await sendPrepared(this, service, prepared, { itemIndex: 0, endpoint: 'standard', timeoutMs: 15000 });
					for (const type of answer.applicationResponse?.userFileTypes ?? []) {
						if (!type.fileType || results.some((r) => r.value === type.fileType)) continue;
						results.push({
							name: `${type.fileType}${type.fileTypeName ? `: ${type.fileTypeName}` : ''}${type.direction ? `, ${type.direction}` : ''}`,
							value: type.fileType,
						});
					}
				} catch (error) {
					// The suggestions still work without the bank; say why its own types are missing.
					results.push({ name: `(Bank's own file types unavailable: ${(error as Error).message})`, value: '' });
				}
				const needle = filter?.trim().toLowerCase() ?? '';
				const matching = needle ? results.filter((r) => `${r.name} ${String(r.value)}`.toLowerCase().includes(needle)) : results;
				const typed = filter?.trim();
				if (typed && !matching.some((r) => String(r.value).toLowerCase() === typed.toLowerCase())) {
					matching.unshift({ name: `Use "${typed}"`, value: typed });
				}
				return { results: matching.filter((r) => r.value !== '' || !needle) };
			},
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const first = this.getNodeParameter('operation', 0);
		if (first === 'renewCertificate') {
			return [await runForEachItem(this, async (itemIndex) => await renewCertificate(this, itemIndex))];
		}
		if (first === 'getBankCertificates') {
			return [await runForEachItem(this, async (itemIndex) => await getBankCertificates(this, itemIndex))];
		}
		const service = await loadServiceContext(this);
		if (service.warnings?.length) {
			this.addExecutionHints(...service.warnings.map((message) => ({ message, type: 'warning' as const, location: 'outputPane' as const })));
		}
		return [
			await runForEachItem(this, async (itemIndex) => {
				const operation = this.getNodeParameter('operation', itemIndex) as BxdOperation;
				if (operation === 'getUserInfo' && service.profile && !service.profile.hasGetUserInfo) {
					throw new NodeOperationError(this.getNode(), `Get User Info: ${service.profile.name} has no getUserInfo; use List Files to see what the bank holds`, { itemIndex });
				}
				if (!BXD_OPERATIONS.includes(operation)) {
					throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`, { itemIndex });
				}
				const mode = this.getNodeParameter('mode', itemIndex, 'build') as string;
				if (mode === 'raw') return await rawRequest(this, itemIndex, service);
				return await fileServiceOperations[operation](this, itemIndex, service);
			}),
		];
	}
}
