/** Key pairs made inside n8n, and what the bank needs to certify them. */
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateKeyPairAsync = promisify(generateKeyPair);

/** The subject of a certificate request. */
export interface CsrSubject {
	commonName: string;
	/** The customer id, as the banks' own clients put it in serialNumber. */
	serialNumber?: string;
	country?: string;
}

/** A new key pair and the PKCS#10 request for it. The private key never leaves the credential. */
export interface KeyAndRequest {
	privateKeyPem: string;
	publicKey: KeyObject;
	csrDer: Buffer;
	csrPem: string;
}

/** Makes an RSA key pair (2048 bits) and a PKCS#10 request signed with SHA-256. */
export async function createKeyAndRequest(
	subject: CsrSubject,
	modulusLength = 2048,
): Promise<KeyAndRequest> {
	const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
		modulusLength,
		publicExponent: 0x10001,
	});
	const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
	const csr = forge.pki.createCertificationRequest();
	csr.publicKey = forge.pki.publicKeyFromPem(
		publicKey.export({ type: 'spki', format: 'pem' }).toString(),
	);
	const attributes: forge.pki.CertificateField[] = [{ shortName: 'CN', value: subject.commonName }];
	if (subject.serialNumber) attributes.push({ name: 'serialNumber', value: subject.serialNumber });
	if (subject.country) attributes.push({ shortName: 'C', value: subject.country });
	csr.setSubject(attributes);
	// forge signs with its own key object: read the PKCS#8 key into it for this one use.
	csr.sign(
		forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
		forge.md.sha256.create(),
	);
	const csrDer = Buffer.from(
		forge.asn1.toDer(forge.pki.certificationRequestToAsn1(csr)).getBytes(),
		'binary',
	);
	return { privateKeyPem, publicKey, csrDer, csrPem: forge.pki.certificationRequestToPem(csr) };
}

/** Whether a certificate holds this public key. */
export function holdsKey(certificate: { publicKey: KeyObject }, key: KeyObject): boolean {
	return certificate.publicKey
		.export({ type: 'spki', format: 'der' })
		.equals(key.export({ type: 'spki', format: 'der' }));
}
