import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	readEnrolmentState,
	readFileServiceCredential,
	ENROLMENT_FIELD,
} from '../../shared/fileServiceCredential';
import { CREDENTIAL_TYPE, refreshEnrolment } from '../fileService';

/**
 * Renews the enrolled signing certificate now (RenewCertificate, signed with the current one). The
 * new certificate is stored in the credential; when the bank refuses, the current one stays and
 * the error says so. The item tells the certificate's subject and validity, never its key.
 */
export async function renewCertificate(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const node = ctx.getNode();
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const view = readFileServiceCredential(credentials);
	if (view.signingMode !== 'enrol' || !view.enrolment) {
		throw new NodeOperationError(
			node,
			'Renew Certificate: the credential holds no enrolled certificate. Set Certificate to "Enrol With a PIN From the Bank" and paste the PIN to enrol first',
			{ itemIndex },
		);
	}
	const before = view.enrolment;
	const { credentials: after, error } = await refreshEnrolment(ctx, credentials, true);
	const now = readEnrolmentState(after[ENROLMENT_FIELD]);
	if (error || !now || now.certificatePem === before.certificatePem) {
		throw new NodeOperationError(
			node,
			`Renew Certificate: ${error?.message ?? 'the bank issued no new certificate'}`,
			{
				itemIndex,
				description: `The current certificate stays in use; it is valid until ${before.notAfter}.`,
			},
		);
	}
	return [
		{
			json: {
				renewed: true,
				validFrom: now.notBefore,
				validUntil: now.notAfter,
				previousValidUntil: before.notAfter,
				renewedAt: now.renewedAt ?? null,
			},
			pairedItem: { item: itemIndex },
		},
	];
}
