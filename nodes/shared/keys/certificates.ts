/** Certificates checked against the bank's pinned root, the one trust anchor the user gives. */
import { X509Certificate } from 'node:crypto';

import { CredentialFieldError } from '../common/credentialFields';
import { normalizePem, pemCertificates } from '../transport/tls';

function attemptCertificate(pem: string): X509Certificate | undefined {
	try {
		return new X509Certificate(pemCertificates(pem)[0] ?? pem);
	} catch {
		return undefined;
	}
}

/**
 * Checks that `pem` is one of the certificates in `pinned`, or is issued by one of them directly or
 * through one of `intermediates` (certificates the bank sent with it) that one of them issued, and
 * is valid now. Throws CredentialFieldError starting with `field`.
 */
export function checkIssuedBy(
	pem: string,
	pinned: string,
	field: string,
	now: Date,
	intermediates: X509Certificate[] = [],
): X509Certificate {
	const cert = attemptCertificate(pem);
	if (!cert) throw new CredentialFieldError(`${field}: the PEM certificate cannot be read`);
	const anchors = pemCertificates(pinned)
		.map(attemptCertificate)
		.filter((c): c is X509Certificate => !!c);
	const issuedBy = (child: X509Certificate, parent: X509Certificate) =>
		child.checkIssued(parent) && child.verify(parent.publicKey);
	const trusted = anchors.some(
		(anchor) =>
			anchor.fingerprint256 === cert.fingerprint256 ||
			issuedBy(cert, anchor) ||
			intermediates.some(
				(middle) =>
					middle.fingerprint256 !== cert.fingerprint256 &&
					issuedBy(cert, middle) &&
					issuedBy(middle, anchor) &&
					new Date(middle.validTo).getTime() > now.getTime(),
			),
	);
	if (!trusted) {
		throw new CredentialFieldError(
			`${field}: it does not match the pinned Bank Certificate (${cert.subject.replace(/\n/g, ', ')} is not issued by ${anchors.map((a) => a.subject.replace(/\n/g, ', ')).join(' or ') || 'it'}). Check that the Bank Certificate is the bank's root certificate`,
		);
	}
	if (new Date(cert.validTo).getTime() <= now.getTime())
		throw new CredentialFieldError(
			`${field}: it expired on ${new Date(cert.validTo).toISOString()}`,
		);
	return cert;
}

/**
 * The pinned root (the credential's Bank Certificate), required to enrol: the certificates the
 * bank sends must chain to it. `rootName` names the certificate to paste.
 */
export function pinnedRoot(bankCertificate: unknown, bankName: string, rootName?: string): string {
	const pem = normalizePem(bankCertificate);
	if (!pem) {
		throw new CredentialFieldError(
			`Bank Certificate: required to enrol with ${bankName}: paste the bank's root certificate (${rootName ?? 'the CA that issues its certificates'}), which the certificates it sends must chain to`,
		);
	}
	return pem;
}
