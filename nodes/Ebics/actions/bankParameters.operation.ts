import type { INodeProperties } from 'n8n-workflow';

import type { EbicsOperation } from '../../shared/ebics/node/context';

export const description: INodeProperties[] = [];

/** The key versions this node uses: A006 signatures, X002 authentication, E002 encryption. */
const USED = { signature: 'A006', authentication: 'X002', encryption: 'E002' };

/**
 * Get Bank Parameters (HPD): one item with the bank's EBICS parameters: its addresses, the
 * protocol and key versions it speaks and the features it offers.
 */
export const execute: EbicsOperation = async (ctx, itemIndex, run) => {
	const hpd = await run.client!.hpd();
	const missing = [
		!hpd.signatureVersions.includes(USED.signature) && `signature ${USED.signature}`,
		!hpd.authenticationVersions.includes(USED.authentication) &&
			`authentication ${USED.authentication}`,
		!hpd.encryptionVersions.includes(USED.encryption) && `encryption ${USED.encryption}`,
	].filter(Boolean);
	if (missing.length)
		ctx.addExecutionHints({
			type: 'warning',
			location: 'outputPane',
			message: `The bank does not list ${missing.join(', ')} among its versions, which this node uses: ask the bank which versions your contract has`,
		});
	const flag = (value: boolean | undefined) => (value === undefined ? null : value);
	return [
		{
			json: {
				hostId: hpd.hostId ?? null,
				institute: hpd.institute,
				urls: hpd.urls.map((u) => ({ url: u.url, validFrom: u.validFrom ?? null })),
				protocolVersions: hpd.protocolVersions,
				authenticationVersions: hpd.authenticationVersions,
				encryptionVersions: hpd.encryptionVersions,
				signatureVersions: hpd.signatureVersions,
				recoverySupported: flag(hpd.recovery),
				preValidationSupported: flag(hpd.preValidation),
				x509DataSupported: flag(hpd.x509Data),
				x509DataPersistent: flag(hpd.x509DataPersistent),
				clientDataDownloadSupported: flag(hpd.clientDataDownload),
				downloadableOrderDataSupported: flag(hpd.downloadableOrderData),
			},
			pairedItem: { item: itemIndex },
		},
	];
};
