import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import type { BxdOperation } from '../shared/bxd';
import { BXD_OPERATIONS } from '../shared/bxd';
import { runForEachItem } from '../shared/runItems';
import { fileServiceProperties } from './descriptions';
import { CREDENTIAL_TYPE, loadServiceContext } from './fileService';
import { searchFileTypes } from './fileTypes';
import { fileServiceOperations, rawRequest } from './operations';
import { getBankCertificates } from './operations/getBankCertificates';
import { renewCertificate } from './operations/renewCertificate';

export { FILE_TYPE_SUGGESTIONS } from './fileTypes';

export class CorporateFileService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Corporate File Service',
		name: 'corporateFileService',
		icon: {
			light: 'file:../../icons/file-service.svg',
			dark: 'file:../../icons/file-service.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description:
			"Upload, list, download and delete files with the bank's SOAP file service (bxd Web Services)",
		defaults: { name: 'Corporate File Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: fileServiceProperties,
	};

	methods = {
		listSearch: { searchFileTypes },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const first = this.getNodeParameter('operation', 0);
		if (first === 'renewCertificate') {
			return [
				await runForEachItem(this, async (itemIndex) => await renewCertificate(this, itemIndex)),
			];
		}
		if (first === 'getBankCertificates') {
			return [
				await runForEachItem(this, async (itemIndex) => await getBankCertificates(this, itemIndex)),
			];
		}
		const service = await loadServiceContext(this);
		if (service.warnings?.length) {
			this.addExecutionHints(
				...service.warnings.map((message) => ({
					message,
					type: 'warning' as const,
					location: 'outputPane' as const,
				})),
			);
		}
		return [
			await runForEachItem(this, async (itemIndex) => {
				const operation = this.getNodeParameter('operation', itemIndex) as BxdOperation;
				if (operation === 'getUserInfo' && service.profile && !service.profile.hasGetUserInfo) {
					throw new NodeOperationError(
						this.getNode(),
						`Get User Info: ${service.profile.name} has no getUserInfo; use List Files to see what the bank holds`,
						{ itemIndex },
					);
				}
				if (!BXD_OPERATIONS.includes(operation)) {
					throw new NodeOperationError(
						this.getNode(),
						`Operation "${operation}" is not supported`,
						{ itemIndex },
					);
				}
				const mode = this.getNodeParameter('mode', itemIndex, 'build') as string;
				if (mode === 'raw') return await rawRequest(this, itemIndex, service);
				return await fileServiceOperations[operation](this, itemIndex, service);
			}),
		];
	}
}
