/**
 * A006, the electronic signature (ES) of order data: RSASSA-PSS with SHA-256, MGF1 with SHA-256
 * and a 32-byte salt, made over the SHA-256 hash of the order data. Before hashing, the order data
 * is normalised as the spec says for A004-A006: the characters CR (0x0D), LF (0x0A) and Ctrl-Z
 * (0x1A) are left out (libeufin `digestEbicsOrderA006`, the node-ebics clients). The PSS message
 * is that 32-byte hash (so PSS hashes it once more), as libeufin (`signEbicsA006` over
 * `digestEbicsOrderA006`) and node-ebics (`Crypto.sign` over `digestWithHash`) do with real banks.
 *
 * The same 32-byte hash is the DataDigest of the upload initialisation (SignatureVersion A006):
 * a hash, never a signature (ebics-client-php issue #204, railslove/epics PR #185).
 *
 * The order data is sent as given: only the hash skips the three characters, as the bank's check
 * does (the spec has the bank normalise before verifying).
 */
import {
	constants as cryptoConstants,
	createHash,
	type Hash,
	type KeyObject,
	sign,
	verify,
} from 'node:crypto';

import { S002_NS, SIGNATURE_VERSION } from './constants';
import { el, leaf } from './xml';

const CR = 0x0d;
const LF = 0x0a;
const CTRL_Z = 0x1a;

/** SHA-256 of order data without CR, LF and Ctrl-Z, fed chunk by chunk. */
export class OrderDataHasher {
	private readonly hash: Hash = createHash('sha256');
	private scratch = Buffer.alloc(0);

	update(chunk: Buffer): this {
		if (chunk.indexOf(CR) < 0 && chunk.indexOf(LF) < 0 && chunk.indexOf(CTRL_Z) < 0) {
			this.hash.update(chunk);
			return this;
		}
		if (this.scratch.length < chunk.length) this.scratch = Buffer.allocUnsafe(chunk.length);
		const out = this.scratch;
		let kept = 0;
		for (let i = 0; i < chunk.length; i++) {
			const byte = chunk[i];
			if (byte !== CR && byte !== LF && byte !== CTRL_Z) out[kept++] = byte;
		}
		this.hash.update(out.subarray(0, kept));
		return this;
	}

	digest(): Buffer {
		return this.hash.digest();
	}
}

/** The A006 hash of whole order data (32 bytes). */
export function orderDataDigest(orderData: Buffer): Buffer {
	return new OrderDataHasher().update(orderData).digest();
}

const PSS = {
	padding: cryptoConstants.RSA_PKCS1_PSS_PADDING,
	saltLength: 32,
	mgf1HashAlgorithm: 'sha256',
};

/** The A006 signature value of an order data hash with the subscriber's signature key. */
export function signA006(digest: Buffer, signatureKey: KeyObject): Buffer {
	return sign('sha256', digest, { key: signatureKey, ...PSS });
}

/** Whether an A006 signature value verifies for an order data hash with a public key. */
export function verifyA006(digest: Buffer, signature: Buffer, publicKey: KeyObject): boolean {
	try {
		return verify('sha256', digest, { key: publicKey, ...PSS }, signature);
	} catch {
		return false;
	}
}

export interface SignerIdentity {
	partnerId: string;
	userId: string;
	/** The signature certificate (DER, base64) to add as X509Data, when the bank wants it. */
	certificateBase64?: string;
}

/**
 * The UserSignatureData document carrying one A006 signature: S002 in EBICS 3.0, S001 (the same
 * elements) in EBICS 2.5.
 */
export function userSignatureData(
	signature: Buffer,
	signer: SignerIdentity,
	namespace: string = S002_NS,
): string {
	return (
		'<?xml version="1.0" encoding="UTF-8"?>' +
		el(
			'UserSignatureData',
			{
				xmlns: namespace,
				'xmlns:ds': signer.certificateBase64 ? 'http://www.w3.org/2000/09/xmldsig#' : undefined,
			},
			el(
				'OrderSignatureData',
				{},
				leaf('SignatureVersion', SIGNATURE_VERSION),
				leaf('SignatureValue', signature.toString('base64')),
				leaf('PartnerID', signer.partnerId),
				leaf('UserID', signer.userId),
				signer.certificateBase64 &&
					el('ds:X509Data', {}, leaf('ds:X509Certificate', signer.certificateBase64)),
			),
		)
	);
}
