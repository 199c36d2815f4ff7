/**
 * The Bank SFTP (Host-to-Host) credential read and checked: the login (host, port, user, SSH key
 * or password), the pinned host key, the folders, and the OpenPGP keys (the customer's, pasted or
 * made in n8n, and the bank's). Its test logs in, checks the host key and lists the incoming
 * folder. Its preAuthentication makes the customer's key when asked to and writes the upload
 * journal; nothing else ever writes the credential. No key, passphrase or password goes into an
 * error or a log.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';
import type * as openpgp from 'openpgp';

import {
	generateKeyPair,
	keyInfo,
	parsePinnedFingerprints,
	readPrivateKey,
	readPublicKeys,
	SftpHostKeyError,
	SftpValidationError,
	spacedFingerprint,
	withSession,
	type CipherChoice,
	type HashChoice,
	type KeyAlgorithm,
	type SftpConnectOptions,
} from '../index';
import { sftpProfile } from '../profiles';
import {
	readSftpJournalWrite,
	SFTP_UPLOAD_JOURNAL_FIELD,
	SFTP_UPLOAD_JOURNAL_WRITE_FIELD,
	writeSftpJournal,
} from '../journal/uploadJournal';

export const SFTP_CREDENTIAL = 'corporateBankingSftpApi';

/** Hidden expirable field, always empty, so that n8n runs preAuthentication for every check. */
export const SFTP_CHECK_FIELD = 'sftpCheck';
/** Hidden field: the customer's OpenPGP key made in n8n (armoured private key). */
export const SFTP_GENERATED_KEY_FIELD = 'pgpGeneratedKey';
/** Read-only field written by the credential's test: the fingerprints of the OpenPGP keys it read. */
export const SFTP_KEYS_FIELD = 'keyFingerprints';
/** What the keys field says before the first test. */
export const SFTP_KEYS_UNTESTED =
	'Not tested yet: save the credential, then open it again to read the fingerprints of the keys it holds';
/** Header naming a request the credential answers itself ('test': the credential test; 'probe'). */
export const SFTP_CHECK_HEADER = 'x-sftp-credential-check';
/** Address the check requests name: the credential answers them, nothing goes out. */
export const SFTP_CHECK_URL = 'https://sftp-host-from-credential.invalid/';
/** What n8n fetches once the credential has judged the check: answered by n8n itself. */
export const SFTP_CHECK_PASSED_URL = 'data:text/plain,the%20SFTP%20login%20works';

export interface SftpFolders {
	outgoing: string;
	incoming: string;
	archive: string;
}

export interface SftpCredential {
	connect: SftpConnectOptions;
	/** user@host:port: whose journal entries and state are whose. */
	owner: string;
	folders: SftpFolders;
	hash: HashChoice;
	cipher: CipherChoice;
	/** The armoured bank public keys as given ('' when none). */
	bankKeysArmoured: string;
	/** Where the customer's key comes from. */
	keySource: 'imported' | 'generated' | 'none';
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

function folder(value: unknown, field: string, fallback: string): string {
	const given = text(value) || fallback;
	// eslint-disable-next-line no-control-regex
	if (/[\u0000-\u001f]/.test(given))
		throw new SftpValidationError(field, 'must not contain control characters');
	return given.replace(/\/+$/, '') || '/';
}

/**
 * The port: digits only (as typed; a number from a credential saved before the field was text),
 * 1 to 65535. A minus sign, letters, a decimal point or an exponent are refused, never read as
 * another port (Number() would take "1e3" as 1000, the editor's number box "2a2" as the old value).
 */
function portOf(value: unknown): number {
	if (value === undefined || value === null || value === '') return 22;
	const typed = typeof value === 'number' ? String(value) : text(value);
	if (!/^\d{1,5}$/.test(typed) || Number(typed) < 1 || Number(typed) > 65535)
		throw new SftpValidationError(
			'Port',
			`"${typed}" is not a port: digits only, a whole number from 1 to 65535 (22 when empty)`,
		);
	return Number(typed);
}

/**
 * The folders: a bank profile's (the ones its public page names), or those typed in (Custom). A
 * profile that names no folder for files taken from the incoming one uses Archive Folder.
 */
function foldersOf(credentials: ICredentialDataDecryptedObject): SftpFolders {
	const profile = sftpProfile(credentials.bankProfile);
	return {
		outgoing:
			profile?.outgoing ?? folder(credentials.outgoingFolder, 'Outgoing Folder', 'outgoing'),
		incoming:
			profile?.incoming ?? folder(credentials.incomingFolder, 'Incoming Folder', 'incoming'),
		archive: profile?.archive ?? folder(credentials.archiveFolder, 'Archive Folder', 'archive'),
	};
}

/** Reads and checks the credential's fields (nothing is sent). */
export function readSftpCredential(credentials: ICredentialDataDecryptedObject): SftpCredential {
	const host = text(credentials.host);
	if (!host) throw new SftpValidationError('Host', "is required: the bank SFTP server's name");
	if (/[\s/]/.test(host) || host.includes('://'))
		throw new SftpValidationError(
			'Host',
			`"${host}" must be a host name or address only (no sftp://, no path)`,
		);
	const port = portOf(credentials.port);
	const username = text(credentials.username);
	if (!username)
		throw new SftpValidationError('User', 'is required: the user the bank set up for you');
	const connect: SftpConnectOptions = {
		host,
		port,
		username,
		pinnedFingerprints: parsePinnedFingerprints(credentials.hostKeyFingerprint),
	};
	if ((credentials.authentication ?? 'privateKey') === 'password') {
		const password = typeof credentials.password === 'string' ? credentials.password : '';
		if (!password)
			throw new SftpValidationError('Password', 'is required with Password authentication');
		connect.password = password;
	} else {
		const key = typeof credentials.privateKey === 'string' ? credentials.privateKey.trim() : '';
		if (!key)
			throw new SftpValidationError('SSH Private Key', 'is required with SSH Key authentication');
		if (!/^-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key))
			throw new SftpValidationError(
				'SSH Private Key',
				'must be a private key in OpenSSH or PEM form (-----BEGIN OPENSSH PRIVATE KEY-----)',
			);
		connect.privateKey = `${key}\n`;
		const passphrase = typeof credentials.passphrase === 'string' ? credentials.passphrase : '';
		if (passphrase) connect.passphrase = passphrase;
	}
	const hash = (text(credentials.hashAlgorithm) || 'sha256') as HashChoice;
	if (!['sha256', 'sha384', 'sha512'].includes(hash))
		throw new SftpValidationError('Signature Hash', 'must be SHA-256, SHA-384 or SHA-512');
	const cipher = (text(credentials.cipherAlgorithm) || 'aes256') as CipherChoice;
	if (!['aes256', 'aes192', 'aes128'].includes(cipher))
		throw new SftpValidationError('Cipher', 'must be AES-256, AES-192 or AES-128');
	const keySource = (text(credentials.pgpKeySource) || 'none') as SftpCredential['keySource'];
	return {
		connect,
		owner: `${username}@${host}:${port}`,
		folders: foldersOf(credentials),
		hash,
		cipher,
		bankKeysArmoured: text(credentials.bankPublicKeys),
		keySource,
	};
}

/** The bank's public keys; an error naming the field when there are none and they are needed. */
export async function bankKeysOf(
	credentials: ICredentialDataDecryptedObject,
): Promise<openpgp.PublicKey[]> {
	return await readPublicKeys('Bank Public Keys', text(credentials.bankPublicKeys));
}

/** The customer's private key (pasted, or made in n8n). */
export async function customerKeyOf(
	credentials: ICredentialDataDecryptedObject,
): Promise<openpgp.PrivateKey> {
	const source = text(credentials.pgpKeySource) || 'none';
	if (source === 'imported')
		return await readPrivateKey(
			'Your OpenPGP Private Key',
			text(credentials.pgpPrivateKey),
			typeof credentials.pgpPassphrase === 'string' ? credentials.pgpPassphrase : undefined,
		);
	if (source === 'generated') {
		const made = text(credentials[SFTP_GENERATED_KEY_FIELD]);
		if (!made)
			throw new SftpValidationError(
				'Your OpenPGP Key',
				'is to be made in n8n but is not made yet: save the credential (its test makes the key), then send the public key to the bank',
			);
		return await readPrivateKey('Your OpenPGP Key', made, undefined);
	}
	throw new SftpValidationError(
		'Your OpenPGP Key',
		'is None: choose Paste a Key or Make a Key in n8n to sign or decrypt files',
	);
}

/**
 * The credential's preAuthentication: a journal write asked for by the node is applied (nothing
 * else); otherwise, when the customer's key is to be made in n8n and is not made yet, it is made.
 */
export async function sftpPreAuthentication(
	credentials: ICredentialDataDecryptedObject,
): Promise<IDataObject> {
	// n8n stores what preAuthentication returns only when it holds the check field: it is
	// returned empty, so that the next check runs this again.
	const check = { [SFTP_CHECK_FIELD]: '' };
	const write = readSftpJournalWrite(credentials[SFTP_UPLOAD_JOURNAL_WRITE_FIELD]);
	if (write)
		return { ...writeSftpJournal(credentials[SFTP_UPLOAD_JOURNAL_FIELD], write), ...check };
	if (
		text(credentials.pgpKeySource) === 'generated' &&
		!text(credentials[SFTP_GENERATED_KEY_FIELD])
	) {
		const algorithm = (text(credentials.pgpKeyType) || 'rsa4096') as KeyAlgorithm;
		const name = text(credentials.pgpUserName) || text(credentials.username) || 'n8n';
		const email = text(credentials.pgpUserEmail) || undefined;
		const made = await generateKeyPair(algorithm, { name, email });
		const withKey = { ...credentials, [SFTP_GENERATED_KEY_FIELD]: made.privateKey };
		return {
			[SFTP_GENERATED_KEY_FIELD]: made.privateKey,
			[SFTP_KEYS_FIELD]: await keyFingerprintsText(withKey),
			...check,
		};
	}
	return { [SFTP_KEYS_FIELD]: await keyFingerprintsText(credentials), ...check };
}

/** One key as the keys field shows it: fingerprint as gpg prints it, algorithm, expiry. */
async function keyLine(key: openpgp.Key): Promise<string> {
	const info = await keyInfo(key);
	const until = info.expires ? `expires ${info.expires.slice(0, 10)}` : 'no expiry';
	const revoked = info.revoked ? ', REVOKED' : '';
	// openpgp.js names the v4 Ed25519 curve ed25519Legacy; gpg prints it ed25519.
	const algorithm = info.algorithm.replace(/\b(ed25519|curve25519)Legacy\b/, '$1');
	return `${spacedFingerprint(info.fingerprint)} (${algorithm}, ${until}${revoked})`;
}

/**
 * What the keys field shows after a test: the fingerprint of each bank key and of the customer's
 * key, to compare with what the bank gave and with what it was sent (never a key's material). A
 * key that cannot be read is named with the reason, as the test's error names it.
 */
export async function keyFingerprintsText(
	credentials: ICredentialDataDecryptedObject,
): Promise<string> {
	const reason = (error: unknown): string =>
		error instanceof SftpValidationError ? `${error.field} ${error.message}` : 'cannot be read';
	const parts: string[] = [];
	if (text(credentials.bankPublicKeys)) {
		try {
			const keys = await bankKeysOf(credentials);
			parts.push(`Bank: ${(await Promise.all(keys.map(keyLine))).join('; ')}`);
		} catch (error) {
			parts.push(`Bank: ${reason(error)}`);
		}
	} else parts.push("Bank: none pasted (Bank's OpenPGP Public Keys is empty)");
	if ((text(credentials.pgpKeySource) || 'none') !== 'none') {
		try {
			parts.push(`Yours: ${await keyLine(await customerKeyOf(credentials))}`);
		} catch (error) {
			parts.push(`Yours: ${reason(error)}`);
		}
	} else parts.push('Yours: none (Your OpenPGP Key is None)');
	return `${parts.join('. ')}.`;
}

/** The marker of a check request ('test' or 'probe'), or undefined for any other request. */
function checkMarker(request: IHttpRequestOptions): string | undefined {
	for (const [name, value] of Object.entries(request.headers ?? {}))
		if (name.toLowerCase() === SFTP_CHECK_HEADER) return String(value);
	return undefined;
}

/**
 * The credential test: logs in (the host key checked first), lists the incoming folder, and reads
 * the OpenPGP keys that are set. Throws what the editor shows.
 */
export async function judgeSftpCredential(
	credentials: ICredentialDataDecryptedObject,
): Promise<void> {
	const view = readSftpCredential(credentials);
	if (view.bankKeysArmoured) await bankKeysOf(credentials);
	if (view.keySource !== 'none') await customerKeyOf(credentials);
	await withSession(view.connect, async (session) => {
		await session.list(view.folders.incoming);
	});
}

/**
 * What the editor shows of a failed test: a value to change names its field first (the field's
 * label, as the dialog shows it), a host key not pinned or another one names Host Key Fingerprint.
 */
function testFailure(error: unknown): unknown {
	if (error instanceof SftpValidationError) return new Error(`${error.field}: ${error.message}`);
	if (error instanceof SftpHostKeyError) return new Error(`Host Key Fingerprint: ${error.message}`);
	return error;
}

/**
 * The credential's authenticate: the check requests are answered here (the test judged by
 * logging in), and n8n then fetches a data: address, so that nothing goes to the network.
 */
export async function authenticateSftp(
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const marker = checkMarker(request);
	if (marker === 'test') {
		try {
			await judgeSftpCredential(credentials);
		} catch (error) {
			throw testFailure(error);
		}
	}
	return { url: SFTP_CHECK_PASSED_URL, method: 'GET', json: false, headers: {} };
}

/** The request that has n8n run the credential's preAuthentication now (nothing goes out). */
export function sftpProbe(): IHttpRequestOptions {
	return {
		method: 'POST',
		url: SFTP_CHECK_URL,
		headers: { [SFTP_CHECK_HEADER]: 'probe' },
		json: false,
		timeout: 120_000,
	};
}
