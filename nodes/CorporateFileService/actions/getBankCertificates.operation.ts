import type { INodeProperties } from 'n8n-workflow';

import { InputError } from '../../shared/common/errors';
import { FILE_SERVICE_CREDENTIAL } from '../../shared/bxd/credential/fileServiceCredential';
import { fetchServiceCertificates } from '../../shared/bxd/enrolment/fileServiceEnrolment';
import { keyServiceSender } from '../../shared/keys';
import type { CredentialOperation } from '../../shared/bxd/node/serviceContext';

/** Get Bank Certificates has no fields: the certificate service is the credential's. */
export const description: INodeProperties[] = [];

/**
 * The bank's own certificates from its certificate service (OP's GetServiceCertificates): one item
 * per certificate with its name, subject, validity, fingerprint and PEM, to paste as the Bank
 * Certificate or keep in a trust store. Certificates are public; no key is involved.
 */
export const execute: CredentialOperation = async (ctx, itemIndex) => {
	const credentials = await ctx.getCredentials(FILE_SERVICE_CREDENTIAL);
	const certificates = await fetchServiceCertificates(
		credentials,
		keyServiceSender(async (options) => await ctx.helpers.httpRequest(options)),
	).catch(async (error: unknown) =>
		Promise.reject(
			new InputError(`Get Bank Certificates: ${(error as Error).message}`, { itemIndex }),
		),
	);
	return certificates.map((certificate) => ({
		json: {
			name: certificate.name ?? null,
			subject: certificate.x509.subject.replace(/\n/g, ', '),
			issuer: certificate.x509.issuer.replace(/\n/g, ', '),
			validFrom: new Date(certificate.x509.validFrom).toISOString(),
			validTo: new Date(certificate.x509.validTo).toISOString(),
			fingerprint256: certificate.x509.fingerprint256,
			...(certificate.status ? { status: certificate.status } : {}),
			pem: certificate.pem,
		},
		pairedItem: { item: itemIndex },
	}));
};
