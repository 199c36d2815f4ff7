/**
 * Detached OpenPGP signatures: a signature file (`<file>.sig`, binary, or `<file>.asc`, armoured)
 * beside the file it signs, as some banks ask for instead of (or besides) a signature inside the
 * OpenPGP message, and deliver with their files. Both ways are streams: the signature is made as
 * the file's bytes pass (they pass unchanged), and a file is verified against its signature as it
 * is read, its stream ending with a PgpError when the signature does not match. A signature is
 * over the file's bytes as they are at the bank (what `gpg --verify file.sig file` checks there).
 */
import { PassThrough, Readable, Transform } from 'node:stream';

import * as openpgp from 'openpgp';

import { attemptAsync, pending } from '../common/attempt';
import { PgpError, SftpValidationError } from './errors';
import { checkKeyUsable, spacedFingerprint, type HashChoice } from './pgp';

/** A detached signature's form: binary (`.sig`) or ASCII-armoured (`.asc`). */
export type DetachedForm = 'binary' | 'armoured';

/** Signatures larger than this are not signatures (a detached one is a few hundred bytes). */
export const MAX_SIGNATURE_BYTES = 64 * 1024;

/** The name of the signature file beside `name`: `.sig` for binary, `.asc` for armoured. */
export function signatureNameFor(name: string, form: DetachedForm): string {
	return `${name}${form === 'armoured' ? '.asc' : '.sig'}`;
}

/** The names a signature of `name` may have beside it, in the order they are looked for. */
export function signatureCandidates(name: string): string[] {
	return [signatureNameFor(name, 'binary'), signatureNameFor(name, 'armoured')];
}

const toWeb = (stream: Readable): ReadableStream<Uint8Array> =>
	Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;

async function collect(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream)
		chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
	return Buffer.concat(chunks);
}

/**
 * A tap that makes a detached signature over the bytes that pass through it (unchanged). The key
 * is checked first (revoked, expired, cannot sign: a PgpError naming it), before any byte passes.
 * `signature` resolves once the tap has ended, and rejects when the tap fails.
 */
export async function detachedSigner(
	signWith: openpgp.PrivateKey,
	options: { form: DetachedForm; hash?: HashChoice },
): Promise<{ tap: Transform; signature: Promise<Buffer> }> {
	await checkKeyUsable(signWith, 'The signing key');
	const usable = await attemptAsync(async () => await signWith.getSigningKey());
	if (!usable.ok)
		throw new PgpError(
			'key',
			`The signing key ${spacedFingerprint(signWith.getFingerprint())} cannot sign: ${(usable.error as Error).message}`,
			signWith.getFingerprint().toUpperCase(),
		);
	const feed = new PassThrough();
	const message = await openpgp.createMessage({ binary: toWeb(feed), format: 'binary' });
	const signed = await openpgp.sign({
		message,
		signingKeys: signWith,
		detached: true,
		format: (options.form === 'armoured' ? 'armored' : 'binary') as 'binary',
		config: { preferredHashAlgorithm: openpgp.enums.hash[options.hash ?? 'sha256'] },
	});
	// The signature is computed as it is read: reading starts now, so the bytes fed are hashed.
	const signature = collect(Readable.fromWeb(signed as Parameters<typeof Readable.fromWeb>[0]));
	signature.catch(() => undefined);
	const tap = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			if (feed.write(chunk)) done(null, chunk);
			else feed.once('drain', () => done(null, chunk));
		},
		flush(done) {
			feed.end();
			done();
		},
	});
	tap.once('error', (error) => feed.destroy(error));
	return { tap, signature };
}

/** A detached signature over a whole file that is already at hand (a stream read to its end). */
export async function signDetached(
	source: Readable,
	signWith: openpgp.PrivateKey,
	options: { form: DetachedForm; hash?: HashChoice },
): Promise<Buffer> {
	const { tap, signature } = await detachedSigner(signWith, options);
	source.once('error', (error) => tap.destroy(error));
	tap.resume();
	source.pipe(tap);
	return await signature;
}

/** What a detached signature told, once the file's stream has ended. */
export interface DetachedResult {
	/** The bank key whose signature it is (fingerprint, upper-case hex). */
	signedBy: string;
	/** The key ID the signature names. */
	signatureKeyId: string;
}

/**
 * Reads a detached signature (binary or armoured) and checks, before the file is read, that it is
 * one and that the key it names is one of the bank's (naming the key ID when it is not), and that
 * the bank's keys are neither revoked nor expired. `signatureName` names it in errors.
 */
async function readDetached(
	signature: Buffer,
	signatureName: string,
	verifyWith: openpgp.PublicKey[],
): Promise<{ parsed: openpgp.Signature; keyId: string; key: openpgp.PublicKey }> {
	if (!signature.length)
		throw new PgpError('unsigned', `The detached signature ${signatureName} is empty`);
	if (signature.length > MAX_SIGNATURE_BYTES)
		throw new PgpError(
			'format',
			`${signatureName} holds ${signature.length} bytes: it is not a detached signature (a few hundred bytes)`,
		);
	const text = signature.toString('latin1').trimStart();
	const armoured = text.startsWith('-----BEGIN PGP SIGNATURE-----');
	if (!armoured && !(signature[0] & 0x80))
		throw new PgpError(
			'format',
			`${signatureName} is not an OpenPGP signature (neither armoured nor binary)`,
		);
	const read = await attemptAsync(async () =>
		armoured
			? await openpgp.readSignature({ armoredSignature: signature.toString('utf8') })
			: await openpgp.readSignature({ binarySignature: new Uint8Array(signature) }),
	);
	if (!read.ok)
		throw new PgpError(
			'format',
			`${signatureName} is not a readable OpenPGP signature: ${(read.error as Error).message}`,
		);
	const keyIds = read.value.getSigningKeyIDs().map((id) => id.toHex().toUpperCase());
	if (!keyIds.length)
		throw new PgpError('unsigned', `${signatureName} holds no signature: the file is refused`);
	for (const key of verifyWith) await checkKeyUsable(key, "The bank's key");
	const bankKeyOf = (keyId: string) =>
		verifyWith.find((key) => key.getKeyIDs().some((id) => id.toHex().toUpperCase() === keyId));
	for (const keyId of keyIds)
		if (!bankKeyOf(keyId))
			throw new PgpError(
				'signer',
				`${signatureName} is a signature by key ID ${keyId}, which is not one of the bank's keys (${verifyWith.map((k) => spacedFingerprint(k.getFingerprint())).join('; ') || 'none given'}): the file is refused`,
			);
	return { parsed: read.value, keyId: keyIds[0], key: bankKeyOf(keyIds[0])! };
}

/**
 * The file's bytes, unchanged, checked against a detached signature by one of the bank's keys as
 * they pass: refused before anything is read when the signature is not one, or is by another key
 * (named); at the end of the stream the signature is verified, and when it does not match the
 * bytes the stream ends with a PgpError (what was read must not be used).
 */
export async function verifyDetached(
	source: Readable,
	signature: Buffer,
	options: { verifyWith: openpgp.PublicKey[]; signatureName: string; fileName: string },
): Promise<{ stream: Readable; result: Promise<DetachedResult> }> {
	if (!options.verifyWith.length)
		throw new SftpValidationError(
			"Bank's OpenPGP Public Keys",
			`is empty: the detached signature ${options.signatureName} cannot be verified without the bank's key`,
		);
	const { parsed, keyId, key } = await readDetached(
		signature,
		options.signatureName,
		options.verifyWith,
	);
	const message = await openpgp.createMessage({ binary: toWeb(source), format: 'binary' });
	const mismatch = () =>
		new PgpError(
			'signature',
			`The detached signature ${options.signatureName} (key ${spacedFingerprint(key.getFingerprint())}) does not match ${options.fileName}: the file was changed after it was signed, or the signature is of another file. Nothing of it is used`,
			key.getFingerprint().toUpperCase(),
		);
	const verified = await attemptAsync(
		async () =>
			await openpgp.verify({
				message,
				signature: parsed,
				verificationKeys: options.verifyWith,
				format: 'binary',
			}),
	);
	if (!verified.ok) throw mismatch();
	const { data, signatures } = verified.value;
	const { promise: result, settle, fail } = pending<DetachedResult, Error>();
	const checked = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			done(null, chunk);
		},
		flush(done) {
			void Promise.all(signatures.map(async (s) => await s.verified))
				.then(() => {
					settle({ signedBy: key.getFingerprint().toUpperCase(), signatureKeyId: keyId });
					done();
				})
				.catch(() => {
					const failure = mismatch();
					fail(failure);
					done(failure);
				});
		},
	});
	const content = Readable.fromWeb(data as Parameters<typeof Readable.fromWeb>[0]);
	// A read that fails (the connection, the file) is told as it is, not as a signature problem.
	content.once('error', (error) => {
		fail(error);
		checked.destroy(error);
	});
	checked.once('error', (error) => {
		fail(error);
		content.destroy();
	});
	return { stream: content.pipe(checked), result };
}

/**
 * Awaits `work` (reading the checked file on); when it fails and the detached signature failed too,
 * the signature's failure is what is told (a changed file, not what a decryption made of it).
 */
export async function signatureFirst<T>(
	work: Promise<T>,
	signature: Promise<unknown> | undefined,
): Promise<T> {
	const done = await attemptAsync(async () => await work);
	if (done.ok) return done.value;
	if (signature) await signature;
	throw done.error;
}
