import type { INodeProperties } from 'n8n-workflow';

import { optionsProperty } from '../../shared/bxd/node/sharedProperties';
import * as deleteFile from './deleteFile.operation';
import * as downloadFile from './downloadFile.operation';
import * as downloadFileList from './downloadFileList.operation';
import * as getBankCertificates from './getBankCertificates.operation';
import * as getUserInfo from './getUserInfo.operation';
import * as rawRequest from './rawRequest.operation';
import * as renewCertificate from './renewCertificate.operation';
import * as uploadFile from './uploadFile.operation';

/**
 * The fields of every operation, each shown for its operations: both node versions show them
 * (version 2 also for the operation's resource).
 */
export const operationProperties: INodeProperties[] = [
	{
		displayName: 'Request',
		name: 'mode',
		type: 'options',
		noDataExpression: true,
		displayOptions: { hide: { operation: ['renewCertificate', 'getBankCertificates'] } },
		options: [
			{
				name: 'Build From Parameters',
				value: 'build',
				description: 'Build the ApplicationRequest from the fields below',
			},
			{
				name: 'Raw ApplicationRequest',
				value: 'raw',
				description:
					'Send an ApplicationRequest you write yourself, for banks with their own content. The node still signs and wraps it.',
			},
		],
		default: 'build',
	},
	...rawRequest.description,
	...uploadFile.description,
	...downloadFileList.description,
	...downloadFile.description,
	...deleteFile.description,
	...getUserInfo.description,
	...getBankCertificates.description,
	...renewCertificate.description,
	optionsProperty,
];
