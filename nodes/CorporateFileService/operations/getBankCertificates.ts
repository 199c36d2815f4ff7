import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { certServiceSender, fetchServiceCertificates } from '../../shared/fileServiceCredential';
import { CREDENTIAL_TYPE } from '../fileService';

/**
 * The bank's own certificates from its certificate service (OP's GetServiceCertificates): one item
 * per certificate with its name, subject, validity, fingerprint and PEM, to paste as the Bank
 * Certificate or keep in a trust store. Certificates are public; no key is involved.
 */
export async function getBankCertificates(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	let certificates;
	try {
		certificates = await fetchServiceCertificates(
			credentials,
			certServiceSender(async (options) => await ctx.helpers.httpRequest(options)),
		);
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Get Bank Certificates: ${(error as Error).message}`,
			{ itemIndex },
		);
	}
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
}
