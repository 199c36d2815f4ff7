/** PEM texts made for tests: a certificate's body taken apart, changed, put back, and certificate requests. */
import { createPublicKey } from 'node:crypto';
import forge from 'node-forge';

/** The base64 body of PEM blocks on one line. */
export function pemBody(pem: string): string {
	return pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
}

/** A PEM block around a base64 body, in lines of 64. */
export function pemBlock(base64: string, label = 'CERTIFICATE'): string {
	return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----\n`;
}

/** A base64 character changed in the middle of the certificate (its key or signature), the length kept. */
export function changedCharacter(certPem: string): string {
	const b64 = pemBody(certPem);
	const at = Math.floor(b64.length / 2);
	return pemBlock(b64.slice(0, at) + (b64[at] === 'A' ? 'B' : 'A') + b64.slice(at + 1));
}

/** A certificate request for a key, as a customer makes one to get a certificate. */
export function certificateRequest(keyPem: string, commonName: string): string {
	const csr = forge.pki.createCertificationRequest();
	csr.publicKey = forge.pki.publicKeyFromPem(
		createPublicKey(keyPem).export({ format: 'pem', type: 'spki' }).toString(),
	);
	csr.setSubject([{ name: 'commonName', value: commonName }]);
	csr.sign(forge.pki.privateKeyFromPem(keyPem), forge.md.sha256.create());
	return forge.pki.certificationRequestToPem(csr);
}
