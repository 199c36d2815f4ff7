/**
 * Private keys a user pastes into a credential (made by another client, an HSM export, a key
 * tool): PEM in any of the usual forms, read into the one form the key management keeps, PKCS#8
 * without encryption (the credential store encrypts the credential as a whole). A key that cannot
 * be read says why (not PEM, damaged, or the passphrase does not open it) and never shows itself.
 */
import { createPrivateKey } from 'node:crypto';

import { attempt } from '../common/attempt';
import { normalizePem } from '../transport/tls';

/** Why a pasted private key cannot be used. */
export class ImportedKeyError extends Error {
	constructor(
		readonly reason: 'missing' | 'notPem' | 'unreadable' | 'passphrase',
		message: string,
	) {
		super(message);
		this.name = 'ImportedKeyError';
	}
}

/**
 * Reads a pasted private key: PKCS#8 (BEGIN PRIVATE KEY), PKCS#1 (BEGIN RSA PRIVATE KEY, also
 * with the traditional Proc-Type encryption headers) or encrypted PKCS#8 (BEGIN ENCRYPTED PRIVATE
 * KEY) opened with `passphrase`. Line breaks pasted as spaces or as "\n" are tolerated. Returns
 * the key as unencrypted PKCS#8 PEM.
 */
export function importPrivateKey(pem: unknown, passphrase = ''): string {
	const text = normalizePem(pem);
	if (!text) throw new ImportedKeyError('missing', 'it is empty');
	if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text))
		throw new ImportedKeyError(
			'notPem',
			'it is not a PEM private key (it must start with -----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)',
		);
	const encrypted = /ENCRYPTED PRIVATE KEY|Proc-Type: 4,ENCRYPTED/.test(text);
	const read = attempt(() =>
		createPrivateKey({ key: text, format: 'pem', ...(encrypted ? { passphrase } : {}) }),
	);
	if (!read.ok) {
		if (encrypted)
			throw new ImportedKeyError(
				'passphrase',
				passphrase
					? 'the key is encrypted and the passphrase does not open it'
					: 'the key is encrypted: give its passphrase',
			);
		throw new ImportedKeyError(
			'unreadable',
			'the PEM text cannot be read as a private key (it may be cut off or damaged)',
		);
	}
	return read.value.export({ type: 'pkcs8', format: 'pem' }).toString();
}
