import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { BxdOperation } from '../../shared/bxd';
import { BXD_OPERATIONS } from '../../shared/bxd';
import { InputError, toNodeError } from '../../shared/common/errors';
import { runForEachItem } from '../../shared/common/runItems';
import type {
	CredentialOperation,
	FileServiceOperation,
	ServiceContext,
} from '../../shared/bxd/node/serviceContext';
import { loadServiceContext } from '../../shared/bxd/node/serviceContext';
import * as deleteFile from './deleteFile.operation';
import * as downloadFile from './downloadFile.operation';
import * as downloadFileList from './downloadFileList.operation';
import * as getBankCertificates from './getBankCertificates.operation';
import * as getUserInfo from './getUserInfo.operation';
import * as rawRequest from './rawRequest.operation';
import * as renewCertificate from './renewCertificate.operation';
import * as uploadFile from './uploadFile.operation';

/** The file service's own (WSDL) operations, sent with the credential read once per run. */
const FILE_OPERATIONS: Record<BxdOperation, FileServiceOperation> = {
	uploadFile: uploadFile.execute,
	downloadFileList: downloadFileList.execute,
	downloadFile: downloadFile.execute,
	deleteFile: deleteFile.execute,
	getUserInfo: getUserInfo.execute,
};

/** The operations of the bank's certificate service, which read the credential themselves. */
const CERTIFICATE_OPERATIONS = new Map<string, CredentialOperation>([
	['renewCertificate', renewCertificate.execute],
	['getBankCertificates', getBankCertificates.execute],
]);

/** The credential's settings, read once per run: a field to fix stops the run before any item. */
async function serviceFor(ctx: IExecuteFunctions): Promise<ServiceContext> {
	try {
		return await loadServiceContext(ctx);
	} catch (error) {
		throw toNodeError(ctx.getNode(), error);
	}
}

/** Runs the chosen operation for every item; failures become n8n errors in runForEachItem. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const certificateOperation = CERTIFICATE_OPERATIONS.get(
		this.getNodeParameter('operation', 0) as string,
	);
	if (certificateOperation) {
		return [
			await runForEachItem(this, async (itemIndex) => await certificateOperation(this, itemIndex)),
		];
	}
	const service = await serviceFor(this);
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
				throw new InputError(
					`Get User Info: ${service.profile.name} has no getUserInfo; use List Files to see what the bank holds`,
					{ itemIndex },
				);
			}
			if (!BXD_OPERATIONS.includes(operation))
				throw new InputError(`Operation "${operation}" is not supported`, { itemIndex });
			const mode = this.getNodeParameter('mode', itemIndex, 'build') as string;
			if (mode === 'raw') return await rawRequest.execute(this, itemIndex, service);
			return await FILE_OPERATIONS[operation](this, itemIndex, service);
		}),
	];
}
