/**
 * OpenPGP for host-to-host files (RFC 4880 / RFC 9580, with openpgp.js): keys read and checked
 * (fingerprint, algorithm, expiry, revocation), files signed and encrypted, decrypted and
 * verified, all as streams. A decrypted stream ends only once the message's integrity check and
 * every signature have been verified; when one fails it ends with a PgpError instead, so what
 * was read from it must not be used (the callers store it and drop it on error).
 */
import { Readable, Transform } from 'node:stream';

import * as openpgp from 'openpgp';

import { attemptAsync, pending } from '../common/attempt';
import { peekStream } from '../common/streamHead';
import { PgpError, SftpValidationError } from './errors';

/** What a key is, as the credential and the node show it. Never the key material. */
export interface KeyInfo {
	/** The primary key's fingerprint, upper-case hex. */
	fingerprint: string;
	/** Key IDs (16 hex digits) of the primary key and its subkeys. */
	keyIds: string[];
	userIds: string[];
	/** "RSA 4096", "EdDSA (ed25519)". */
	algorithm: string;
	created: string;
	/** ISO time, or null when it never expires. */
	expires: string | null;
	revoked: boolean;
	private: boolean;
}

const upper = (hex: string): string => hex.toUpperCase();

/** Spaced fingerprint as gpg prints it (groups of four). */
export function spacedFingerprint(fingerprint: string): string {
	return upper(fingerprint)
		.replace(/(.{4})/g, '$1 ')
		.trim();
}

function algorithmName(key: openpgp.Key): string {
	const info = key.getAlgorithmInfo();
	if (info.algorithm.startsWith('rsa')) return `RSA ${info.bits ?? ''}`.trim();
	if (info.curve)
		return `${info.algorithm === 'eddsaLegacy' ? 'EdDSA' : info.algorithm} (${info.curve})`;
	return info.algorithm;
}

/** What a key is: fingerprint, IDs, algorithm, validity. */
export async function keyInfo(key: openpgp.Key, now = new Date()): Promise<KeyInfo> {
	const expiry = await key.getExpirationTime().catch(() => null);
	return {
		fingerprint: upper(key.getFingerprint()),
		keyIds: key.getKeyIDs().map((id) => upper(id.toHex())),
		userIds: key.getUserIDs(),
		algorithm: algorithmName(key),
		created: key.getCreationTime().toISOString(),
		expires: expiry instanceof Date ? expiry.toISOString() : null,
		revoked: await key.isRevoked(undefined, undefined, now).catch(() => false),
		private: key.isPrivate(),
	};
}

/**
 * Public keys from a field (one or more armoured blocks, a private key's public part taken when
 * one is pasted by mistake is refused: it would be a secret in the wrong field).
 */
export async function readPublicKeys(
	field: string,
	armoured: string,
): Promise<openpgp.PublicKey[]> {
	const text = armoured.trim();
	if (!text) throw new SftpValidationError(field, 'is empty: paste the armoured public key');
	if (/PRIVATE KEY BLOCK/.test(text))
		throw new SftpValidationError(
			field,
			'holds a private key: paste only the public key (-----BEGIN PGP PUBLIC KEY BLOCK-----)',
		);
	const keys = await attemptAsync(async () => await openpgp.readKeys({ armoredKeys: text }));
	if (!keys.ok)
		throw new SftpValidationError(
			field,
			`is not an armoured OpenPGP public key: ${(keys.error as Error).message}`,
		);
	return keys.value.map((k) => k.toPublic());
}

/** The customer's private key from a field, decrypted with its passphrase. */
export async function readPrivateKey(
	field: string,
	armoured: string,
	passphrase: string | undefined,
): Promise<openpgp.PrivateKey> {
	const text = armoured.trim();
	if (!text) throw new SftpValidationError(field, 'is empty: paste the armoured private key');
	const read = await attemptAsync(async () => await openpgp.readPrivateKey({ armoredKey: text }));
	if (!read.ok)
		throw new SftpValidationError(
			field,
			`is not an armoured OpenPGP private key (-----BEGIN PGP PRIVATE KEY BLOCK-----): ${(read.error as Error).message}`,
		);
	const key = read.value;
	if (key.isDecrypted()) return key;
	if (!passphrase)
		throw new SftpValidationError(
			`${field} Passphrase`,
			'the private key is protected: give its passphrase',
		);
	const decrypted = await attemptAsync(
		async () => await openpgp.decryptKey({ privateKey: key, passphrase }),
	);
	if (!decrypted.ok)
		throw new SftpValidationError(
			`${field} Passphrase`,
			'does not decrypt the private key: check the passphrase',
		);
	return decrypted.value;
}

export type KeyAlgorithm = 'rsa2048' | 'rsa3072' | 'rsa4096' | 'ecc';

/** A new key pair for the customer: armoured private and public key, and what it is. */
export async function generateKeyPair(
	algorithm: KeyAlgorithm,
	userId: { name: string; email?: string },
): Promise<{ privateKey: string; publicKey: string; info: KeyInfo }> {
	const options =
		algorithm === 'ecc'
			? ({ type: 'ecc', curve: 'curve25519Legacy' } as const)
			: ({ type: 'rsa', rsaBits: Number(algorithm.slice(3)) } as const);
	const pair = await openpgp.generateKey({
		...options,
		userIDs: [userId],
		format: 'armored',
		config: {
			preferredSymmetricAlgorithm: openpgp.enums.symmetric.aes256,
			preferredHashAlgorithm: openpgp.enums.hash.sha256,
		},
	});
	const key = await openpgp.readKey({ armoredKey: pair.publicKey });
	return { privateKey: pair.privateKey, publicKey: pair.publicKey, info: await keyInfo(key) };
}

/** Throws a PgpError naming the key when it is revoked or expired at `now`. */
export async function checkKeyUsable(
	key: openpgp.Key,
	role: string,
	now = new Date(),
): Promise<KeyInfo> {
	const info = await keyInfo(key, now);
	const fp = spacedFingerprint(info.fingerprint);
	if (info.revoked)
		throw new PgpError(
			'revoked',
			`${role} ${fp} is revoked: ask for (or make) a new key`,
			info.fingerprint,
		);
	if (info.expires && Date.parse(info.expires) <= now.getTime())
		throw new PgpError(
			'expired',
			`${role} ${fp} expired on ${info.expires.slice(0, 10)}: ask for (or make) a new key, or have its expiry extended`,
			info.fingerprint,
		);
	return info;
}

export type HashChoice = 'sha256' | 'sha384' | 'sha512';
export type CipherChoice = 'aes256' | 'aes192' | 'aes128';

export interface ProtectOptions {
	/** Encrypt to these public keys (the bank's); none: sign only. */
	encryptTo?: openpgp.PublicKey[];
	/** Sign with this key (the customer's); none: encrypt only. */
	signWith?: openpgp.PrivateKey;
	/** Armoured (ASCII) output instead of binary. */
	armour?: boolean;
	hash?: HashChoice;
	cipher?: CipherChoice;
	/** The file name carried in the literal data packet. */
	fileName?: string;
}

const toWeb = (stream: Readable): ReadableStream<Uint8Array> =>
	Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
const fromWeb = (stream: unknown): Readable =>
	Readable.fromWeb(stream as Parameters<typeof Readable.fromWeb>[0]);

/**
 * A stream of the file signed and/or encrypted. Keys are checked first (revoked, expired, no
 * encryption or signing subkey: a PgpError naming the key), before anything is read.
 */
export async function protect(source: Readable, options: ProtectOptions): Promise<Readable> {
	const encryptTo = options.encryptTo ?? [];
	if (!encryptTo.length && !options.signWith)
		throw new SftpValidationError(
			'Sign / Encrypt',
			'choose at least one of signing and encryption',
		);
	for (const key of encryptTo) {
		await checkKeyUsable(key, "The bank's key");
		const usable = await attemptAsync(async () => await key.getEncryptionKey());
		if (!usable.ok)
			throw new PgpError(
				'key',
				`The bank's key ${spacedFingerprint(key.getFingerprint())} cannot encrypt: ${(usable.error as Error).message}`,
				upper(key.getFingerprint()),
			);
	}
	if (options.signWith) {
		await checkKeyUsable(options.signWith, 'The signing key');
		const signer = options.signWith;
		const usable = await attemptAsync(async () => await signer.getSigningKey());
		if (!usable.ok)
			throw new PgpError(
				'key',
				`The signing key ${spacedFingerprint(signer.getFingerprint())} cannot sign: ${(usable.error as Error).message}`,
				upper(signer.getFingerprint()),
			);
	}
	const config: openpgp.PartialConfig = {
		preferredHashAlgorithm: openpgp.enums.hash[options.hash ?? 'sha256'],
		preferredSymmetricAlgorithm: openpgp.enums.symmetric[options.cipher ?? 'aes256'],
	};
	const message = await openpgp.createMessage({
		binary: toWeb(source),
		filename: options.fileName,
		format: 'binary',
	});
	const format = options.armour ? 'armored' : 'binary';
	const out = encryptTo.length
		? await openpgp.encrypt({
				message,
				encryptionKeys: encryptTo,
				signingKeys: options.signWith,
				format: format as 'binary',
				config,
			})
		: await openpgp.sign({
				message,
				signingKeys: options.signWith!,
				format: format as 'binary',
				config,
			});
	const stream = fromWeb(out);
	if (!options.armour) return stream;
	// Armoured output comes as text; n8n stores bytes.
	return stream.pipe(
		new Transform({
			transform(chunk: string | Buffer, _encoding, done) {
				done(null, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
			},
		}),
	);
}

export interface OpenOptions {
	/** The customer's decryption key; none: the file is not expected to be encrypted. */
	decryptWith?: openpgp.PrivateKey;
	/** The bank's keys that may sign. */
	verifyWith: openpgp.PublicKey[];
	/** Accept a file without a signature (else refused before anything is read). */
	allowUnsigned?: boolean;
}

/** What the decryption and the signatures told, once the stream has ended. */
export interface OpenResult {
	encrypted: boolean;
	signed: boolean;
	/** The bank keys whose good signatures were found (fingerprints, upper-case hex). */
	signedBy: string[];
	/** Key IDs the signatures named. */
	signatureKeyIds: string[];
}

const PGP_MESSAGE = /^-----BEGIN PGP (MESSAGE|SIGNED MESSAGE)-----/;

/** An error of openpgp.js while reading a message as a PgpError naming the cause. */
export function pgpReadError(error: unknown): PgpError {
	if (error instanceof PgpError) return error;
	const message = (error as Error)?.message ?? String(error);
	if (/Modification detected|Authentication tag mismatch|integrity|MDC/i.test(message))
		return new PgpError(
			'integrity',
			'The file was changed after it was encrypted: its integrity check failed. Nothing of it is used',
		);
	if (/Unexpected end|end of (the )?(packet|stream|input)|truncated|Premature/i.test(message))
		return new PgpError(
			'truncated',
			'The file ends before its OpenPGP message does: it is incomplete (still being written by the bank, or cut off)',
		);
	if (
		/Signed digest did not match|signature.*(invalid|did not match)|Invalid signature/i.test(
			message,
		)
	)
		return new PgpError(
			'signature',
			"The bank's signature does not match the file: the file was changed after it was signed. Nothing of it is used",
		);
	return new PgpError('format', `The file is not a readable OpenPGP message: ${message}`);
}

/**
 * Opens an OpenPGP message (binary or armoured; encrypted and signed, or signed only): a stream of
 * the content, and what was found, once the stream has ended. Refused before anything of the
 * content is read: a message encrypted for another key than the customer's, an encrypted message
 * when no decryption key is set, an unsigned message unless allowed, a signature by a key that is
 * not one of the bank's (naming the key ID), a bank key that is revoked or expired. At the end of
 * the stream the integrity check and every signature are verified; when one fails the stream ends
 * with a PgpError.
 */
export async function open(
	source: Readable,
	options: OpenOptions,
): Promise<{ stream: Readable; result: Promise<OpenResult> }> {
	const { head: first, stream: whole } = await peekStream(source, 64);
	if (!first.length)
		throw new PgpError('truncated', 'The file is empty: it holds no OpenPGP message');
	const armoured = PGP_MESSAGE.test(first.toString('latin1').trimStart());
	if (!armoured && !(first[0] & 0x80))
		throw new PgpError(
			'format',
			'The file is not an OpenPGP message (neither armoured nor binary OpenPGP): turn decryption off for files the bank sends in clear',
		);
	let message: openpgp.Message<ReadableStream<Uint8Array>>;
	try {
		message = armoured
			? ((await openpgp.readMessage({
					armoredMessage: toWeb(whole).pipeThrough(
						new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
					),
				})) as unknown as openpgp.Message<ReadableStream<Uint8Array>>)
			: await openpgp.readMessage({ binaryMessage: toWeb(whole) });
	} catch (error) {
		throw pgpReadError(error);
	}
	const recipients = message.getEncryptionKeyIDs().map((id) => upper(id.toHex()));
	const encrypted =
		recipients.length > 0 ||
		message.packets.findPacket(openpgp.enums.packet.symEncryptedSessionKey) !== undefined;
	for (const key of options.verifyWith) await checkKeyUsable(key, "The bank's key");
	let data: unknown;
	let signatures: Awaited<ReturnType<typeof openpgp.verify>>['signatures'];
	const config: openpgp.PartialConfig = { allowUnauthenticatedStream: true };
	try {
		if (encrypted) {
			if (!options.decryptWith)
				throw new PgpError(
					'recipient',
					'The file is encrypted, and the credential has no key of yours to decrypt it with',
				);
			const ours = options.decryptWith.getKeyIDs().map((id) => upper(id.toHex()));
			if (!recipients.some((id) => ours.includes(id) || id === '0000000000000000'))
				throw new PgpError(
					'recipient',
					`The file is encrypted for key ID ${recipients.join(', ')}, not for your key ${spacedFingerprint(options.decryptWith.getFingerprint())}: the bank used another key of yours, or the file is not for you`,
					upper(options.decryptWith.getFingerprint()),
				);
			await checkKeyUsable(options.decryptWith, 'Your decryption key');
			const out = await openpgp.decrypt({
				message,
				decryptionKeys: options.decryptWith,
				verificationKeys: options.verifyWith,
				format: 'binary',
				config,
			});
			data = out.data;
			signatures = out.signatures;
		} else {
			const out = await openpgp.verify({
				message,
				verificationKeys: options.verifyWith,
				format: 'binary',
				config,
			});
			data = out.data;
			signatures = out.signatures;
		}
	} catch (error) {
		throw pgpReadError(error);
	}
	const signatureKeyIds = signatures.map((s) => upper(s.keyID.toHex()));
	if (!signatures.length && !options.allowUnsigned)
		throw new PgpError(
			'unsigned',
			'The file is not signed: it is refused, since anyone who can write to the folder could have put it there. Allow Unsigned Files only if your bank does not sign its files',
		);
	const bankKeyOf = (keyId: string) =>
		options.verifyWith.find((key) => key.getKeyIDs().some((id) => upper(id.toHex()) === keyId));
	for (const keyId of signatureKeyIds) {
		if (!bankKeyOf(keyId))
			throw new PgpError(
				'signer',
				`The file is signed by key ID ${keyId}, which is not one of the bank's keys (${options.verifyWith.map((k) => spacedFingerprint(k.getFingerprint())).join('; ') || 'none given'}): it is refused`,
			);
	}
	const { promise: result, settle, fail } = pending<OpenResult, PgpError>();
	// openpgp.js hands the content on in the pieces the message was framed in (8 KiB from gpg):
	// gathered into pieces of 256 KiB, what comes after (n8n's storage, a file) makes far fewer
	// writes.
	const GATHER = 256 * 1024;
	let gathered: Buffer[] = [];
	let gatheredBytes = 0;
	const takeGathered = (): Buffer => {
		const piece = gathered.length === 1 ? gathered[0] : Buffer.concat(gathered, gatheredBytes);
		gathered = [];
		gatheredBytes = 0;
		return piece;
	};
	const checked = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			gathered.push(chunk);
			gatheredBytes += chunk.length;
			done(null, gatheredBytes >= GATHER ? takeGathered() : undefined);
		},
		flush(done) {
			if (gatheredBytes) this.push(takeGathered());
			void Promise.all(signatures.map(async (s) => await s.verified))
				.then(() => {
					const signedBy = [
						...new Set(signatureKeyIds.map((id) => upper(bankKeyOf(id)!.getFingerprint()))),
					];
					settle({
						encrypted,
						signed: signatures.length > 0,
						signedBy,
						signatureKeyIds,
					});
					done();
				})
				.catch((error: unknown) => {
					const failure = pgpReadError(error);
					fail(failure);
					done(failure);
				});
		},
	});
	const content = fromWeb(data);
	content.once('error', (error) => {
		const failure = pgpReadError(error);
		fail(failure);
		checked.destroy(failure);
	});
	checked.once('error', (error) => {
		fail(pgpReadError(error));
		content.destroy();
	});
	return { stream: content.pipe(checked), result };
}
