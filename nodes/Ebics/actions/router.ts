import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { attemptAsync } from '../../shared/common/attempt';
import { EbicsReturnCodeError } from '../../shared/ebics';
import { EBICS_CREDENTIAL } from '../../shared/ebics/credential/ebicsCredential';
import { InputError, toNodeError } from '../../shared/common/errors';
import { runForEachItem } from '../../shared/common/runItems';
import type { EbicsCredentialView } from '../../shared/ebics/credential/ebicsCredential';
import type {
	EbicsInputCheck,
	EbicsOperation,
	EbicsRun,
	Need,
} from '../../shared/ebics/node/context';
import { loadEbicsRun, refreshInitialisation } from '../../shared/ebics/node/context';
import { ebicsFailure } from '../../shared/ebics/node/failures';
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

/**
 * Each operation, what it needs of the subscriber, how messages name it, and the check of an
 * item's fields that runs before anything is sent.
 */
const OPERATIONS: Record<
	string,
	{ execute: EbicsOperation; check?: EbicsInputCheck; need: Need; label: string }
> = {
	initialisationLetters: {
		execute: initialisationLetters.execute,
		need: 'keys',
		label: 'Initialisation Letters',
	},
	download: { execute: download.execute, check: download.check, need: 'bank', label: 'Download' },
	upload: { execute: upload.execute, check: upload.check, need: 'bank', label: 'Upload' },
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
		check: customerAcknowledgement.check,
		need: 'bank',
		label: 'Get Customer Acknowledgement (HAC)',
	},
	customerProtocol: {
		execute: customerProtocol.execute,
		check: customerProtocol.check,
		need: 'bank',
		label: 'Get Customer Protocol (PTK)',
	},
	suspend: {
		execute: suspend.execute,
		check: suspend.check,
		need: 'bank',
		label: 'Suspend Subscriber (SPR)',
	},
	changeKeys: {
		execute: changeKeys.execute,
		check: changeKeys.check,
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
		check: veuDetails.check,
		need: 'bank',
		label: 'Distributed Signature: Get Order Details (HVD)',
	},
	veuTransactions: {
		execute: veuTransactions.execute,
		check: veuTransactions.check,
		need: 'bank',
		label: 'Distributed Signature: Get Order Transactions (HVT)',
	},
	veuSign: {
		execute: veuSign.execute,
		check: veuSign.check,
		need: 'bank',
		label: 'Distributed Signature: Sign Order (HVE)',
	},
	veuCancel: {
		execute: veuCancel.execute,
		check: veuCancel.check,
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
 * Every item's fields checked before anything is sent: the first failure stops the run, or with
 * Continue On Fail each failed item is kept to become its error item.
 */
function checkItems(
	ctx: IExecuteFunctions,
	check: EbicsInputCheck,
	view: EbicsCredentialView,
): Map<number, Error> {
	const failed = new Map<number, Error>();
	const count = ctx.getInputData().length;
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		try {
			check(ctx, itemIndex, view);
		} catch (error) {
			const failure = ebicsFailure(error, itemIndex);
			if (!ctx.continueOnFail()) throw failure;
			failed.set(itemIndex, failure);
		}
	}
	return failed;
}

/**
 * Reads the credential once and checks every item's fields; then runs the initialisation first
 * when the operation needs it, and the operation for every item. Nothing is sent when an item's
 * fields are wrong (nor, with Continue On Fail, when every item's are). Failures become n8n
 * errors in runForEachItem.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const name = this.getNodeParameter('operation', 0) as string;
	const operation = OPERATIONS[name];
	if (!operation)
		throw toNodeError(this.getNode(), new InputError(`Operation "${name}" is not supported`));
	let run: EbicsRun;
	let failed = new Map<number, Error>();
	const check = operation.check;
	try {
		run = await loadEbicsRun(this, operation.need, operation.label, {
			check: check
				? (view) => {
						failed = checkItems(this, check, view);
						return failed.size === 0 || failed.size < this.getInputData().length;
					}
				: undefined,
		});
	} catch (error) {
		throw toNodeError(this.getNode(), ebicsFailure(error));
	}
	return [
		await runForEachItem(this, async (itemIndex) => {
			const failure = failed.get(itemIndex);
			if (failure) throw failure;
			try {
				return await operation.execute(this, itemIndex, run);
			} catch (error) {
				await recordRefusal(this, run, error);
				throw ebicsFailure(error, itemIndex);
			}
		}),
	];
}
