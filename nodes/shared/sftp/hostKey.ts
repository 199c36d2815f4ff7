/**
 * Host key fingerprints as OpenSSH prints them (`ssh-keygen -l`, the first-connection prompt):
 * `SHA256:` and the unpadded base64 of the SHA-256 of the key blob the server sends.
 */
import { createHash } from 'node:crypto';

import { SftpValidationError } from './errors';

/** The OpenSSH fingerprint of a host key blob. */
export function hostKeyFingerprint(blob: Buffer): string {
	return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named at the start of a key blob (`ssh-ed25519`, `rsa-sha2-512`'s `ssh-rsa`). */
export function hostKeyType(blob: Buffer): string {
	if (blob.length < 4) return 'unknown';
	const length = blob.readUInt32BE(0);
	if (length > 64 || blob.length < 4 + length) return 'unknown';
	return blob.subarray(4, 4 + length).toString('latin1');
}

/**
 * The pinned fingerprints from the credential field: one or more `SHA256:...` values (a server
 * may have several host keys; any of them pinned lets it in), separated by commas, spaces or
 * lines. Undefined when the field is empty. The MD5 form (`aa:bb:...`, `MD5:`) is refused: it no
 * longer identifies a key safely.
 */
export function parsePinnedFingerprints(value: unknown): string[] | undefined {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!text) return undefined;
	const out: string[] = [];
	for (const part of text.split(/[\s,;]+/).filter(Boolean)) {
		if (/^MD5:/i.test(part) || /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/i.test(part))
			throw new SftpValidationError(
				'Host Key Fingerprint',
				`"${part}" is an MD5 fingerprint; give the SHA256 one (ssh-keygen -l -E sha256 -f the_key.pub, or what the first connection shows)`,
			);
		const body = part.replace(/^SHA256:/i, '').replace(/=+$/, '');
		if (!/^[A-Za-z0-9+/]{43}$/.test(body))
			throw new SftpValidationError(
				'Host Key Fingerprint',
				`"${part}" is not a SHA256 fingerprint as OpenSSH prints it (SHA256: and 43 base64 characters)`,
			);
		out.push(`SHA256:${body}`);
	}
	return out;
}
