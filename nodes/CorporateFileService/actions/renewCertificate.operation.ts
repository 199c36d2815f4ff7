import type { INodeProperties } from 'n8n-workflow';

import { InputError } from '../../shared/common/errors';
import {
	ENROLMENT_FIELD,
	FILE_SERVICE_CREDENTIAL,
	readEnrolmentState,
	readFileServiceCredential,
} from '../../shared/bxd/credential/fileServiceCredential';
import type { CredentialOperation } from '../../shared/bxd/node/serviceContext';
import { refreshEnrolment } from '../../shared/bxd/node/serviceContext';

/** Renew Certificate has no fields: the certificate is the credential's. */
export const description: INodeProperties[] = [];

/**
 * Renews the enrolled signing certificate now (RenewCertificate, signed with the current one). The
 * new certificate is stored in the credential; when the bank refuses, the current one stays and
 * the error says so. The item tells the certificate's subject and validity, never its key.
 */
export const execute: CredentialOperation = async (ctx, itemIndex) => {
	const credentials = await ctx.getCredentials(FILE_SERVICE_CREDENTIAL);
	const view = readFileServiceCredential(credentials);
	if (view.signingMode !== 'enrol' || !view.enrolment) {
		throw new InputError(
			'Renew Certificate: the credential holds no enrolled certificate. Set Certificate to "Enrol With a PIN From the Bank" and paste the PIN to enrol first',
			{ itemIndex },
		);
	}
	const before = view.enrolment;
	const { credentials: after, error } = await refreshEnrolment(ctx, credentials, true);
	const now = readEnrolmentState(after[ENROLMENT_FIELD]);
	if (error || !now || now.certificatePem === before.certificatePem) {
		throw new InputError(
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
};
