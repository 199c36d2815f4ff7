import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { attemptAsync } from '../../shared/attempt';
import { EbicsReturnCodeError } from '../../shared/ebics';
import { EBICS_CREDENTIAL } from '../../shared/ebicsCredential';
import { InputError, toNodeError } from '../../shared/errors';
import { runForEachItem } from '../../shared/runItems';
import type { EbicsOperation, EbicsRun, Need } from '../helpers/context';
import { loadEbicsRun, refreshInitialisation } from '../helpers/context';
import { ebicsFailure } from '../helpers/failures';
import * as availableDownloads from './availableDownloads.operation';
import * as bankParameters from './bankParameters.operation';
import * as bankVersions from './bankVersions.operation';
import * as changeKeys from './changeKeys.operation';
import * as customerAcknowledgement from './customerAcknowledgement.operation';
import * as customerData from './customerData.operation';
import * as customerProtocol from './customerProtocol.operation';
import * as download from './download.operation';
import * as initialisationLetters from './initialisationLetters.operation';
import * as subscriberPermissions from './subscriberPermissions.operation';
import * as suspend from './suspend.operation';
import * as upload from './upload.operation';
import * as veuCancel from './veuCancel.operation';
import * as veuDetails from './veuDetails.operation';
import * as veuOrders from './veuOrders.operation';
import * as veuSign from './veuSign.operation';
import * as veuTransactions from './veuTransactions.operation';

/** Each operation, what it needs of the subscriber, and how messages name it. */
const OPERATIONS: Record<string, { execute: EbicsOperation; need: Need; label: string }> = {
	initialisationLetters: {
		execute: initialisationLetters.execute,
		need: 'keys',
		label: 'Initialisation Letters',
	},
	download: { execute: download.execute, need: 'bank', label: 'Download' },
	upload: { execute: upload.execute, need: 'bank', label: 'Upload' },
	bankParameters: {
		execute: bankParameters.execute,
		need: 'bank',
		label: 'Get Bank Parameters (HPD)',
	},
	bankVersions: { execute: bankVersions.execute, need: 'none', label: 'Get Bank Versions (HEV)' },
	subscriberPermissions: {
		execute: subscriberPermissions.execute,
		need: 'bank',
		label: 'Get Subscriber Permissions (HTD)',
	},
	customerData: { execute: customerData.execute, need: 'bank', label: 'Get Customer Data (HKD)' },
	availableDownloads: {
		execute: availableDownloads.execute,
		need: 'bank',
		label: 'Get Available Downloads (HAA)',
	},
	customerAcknowledgement: {
		execute: customerAcknowledgement.execute,
		need: 'bank',
		label: 'Get Customer Acknowledgement (HAC)',
	},
	customerProtocol: {
		execute: customerProtocol.execute,
		need: 'bank',
		label: 'Get Customer Protocol (PTK)',
	},
	suspend: { execute: suspend.execute, need: 'bank', label: 'Suspend Subscriber (SPR)' },
	changeKeys: {
		execute: changeKeys.execute,
		need: 'bank',
		label: 'Change Keys (PUB, HCA, HCS)',
	},
	veuOrders: {
		execute: veuOrders.execute,
		need: 'bank',
		label: 'Distributed Signature: Get Orders Waiting (HVU)',
	},
	veuDetails: {
		execute: veuDetails.execute,
		need: 'bank',
		label: 'Distributed Signature: Get Order Details (HVD)',
	},
	veuTransactions: {
		execute: veuTransactions.execute,
		need: 'bank',
		label: 'Distributed Signature: Get Order Transactions (HVT)',
	},
	veuSign: {
		execute: veuSign.execute,
		need: 'bank',
		label: 'Distributed Signature: Sign Order (HVE)',
	},
	veuCancel: {
		execute: veuCancel.execute,
		need: 'bank',
		label: 'Distributed Signature: Cancel Order (HVS)',
	},
};

/**
 * A ready subscriber the bank now refuses (091002: suspended with SPR elsewhere, or by the bank):
 * the credential's initialisation asks the bank again (HPB), so the credential says "suspended".
 */
async function recordRefusal(ctx: IExecuteFunctions, run: EbicsRun, error: unknown): Promise<void> {
	if (!(error instanceof EbicsReturnCodeError) || error.code !== '091002') return;
	if (run.view.state?.phase !== 'ready') return;
	await attemptAsync(
		async () => await refreshInitialisation(ctx, await ctx.getCredentials(EBICS_CREDENTIAL)),
	);
}

/**
 * Reads the credential once (running the initialisation first when the operation needs it), then
 * runs the operation for every item; failures become n8n errors in runForEachItem.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const name = this.getNodeParameter('operation', 0) as string;
	const operation = OPERATIONS[name];
	if (!operation)
		throw toNodeError(this.getNode(), new InputError(`Operation "${name}" is not supported`));
	let run: EbicsRun;
	try {
		run = await loadEbicsRun(this, operation.need, operation.label);
	} catch (error) {
		throw toNodeError(this.getNode(), ebicsFailure(error));
	}
	return [
		await runForEachItem(this, async (itemIndex) => {
			try {
				return await operation.execute(this, itemIndex, run);
			} catch (error) {
				await recordRefusal(this, run, error);
				throw ebicsFailure(error, itemIndex);
			}
		}),
	];
}
