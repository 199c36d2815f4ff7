import type { INodeProperties } from 'n8n-workflow';

import { customerInfoOutput } from '../helpers/customerInfo';
import { veuOrderProperties } from '../helpers/veuOrder';
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
 * The fields of every operation, each shown for its operations: both node versions show them
 * (version 2 also for the operation's resource).
 */
export const operationProperties: INodeProperties[] = [
	...initialisationLetters.description,
	...download.description,
	...upload.description,
	...bankParameters.description,
	...bankVersions.description,
	...subscriberPermissions.description,
	...customerData.description,
	customerInfoOutput,
	...availableDownloads.description,
	...customerAcknowledgement.description,
	...customerProtocol.description,
	...suspend.description,
	...veuOrders.description,
	...veuOrderProperties,
	...veuDetails.description,
	...veuTransactions.description,
	...veuSign.description,
	...veuCancel.description,
	...changeKeys.description,
];
