/**
 * XML Encryption of bxd documents as Danske Bank uses it (W3C xmlenc, Element type): the
 * document is encrypted with a fresh 3DES-CBC content key (the 8-byte IV in front of the
 * ciphertext, PKCS#5 padding) and that key is wrapped with RSA PKCS#1 v1.5 under the recipient's
 * encryption certificate. Requests go to the bank's certificate (recipient
 * `name:DanskeBankCryptCERT`);
 * answers come encrypted to the customer's encryption key.
 *
 * Decryption works on a stream: the EncryptedData text before its CipherValue is read and
 * checked (algorithms, recipient, the wrapped key), then the CipherValue is base64-decoded and
 * deciphered as it arrives, so a file of any size is never held whole.
 *
 * Unwrapping the key needs RSA PKCS#1 v1.5 private decryption, which Node 20's node:crypto
 * refuses: `rsaPkcs1Decrypt` (keys/rsaPkcs1.ts) reads the padding itself there. The result is
 * accepted only as a 24-byte 3DES key that deciphers to padded, well-formed XML.
 */
import {
	constants as cryptoConstants,
	createCipheriv,
	createDecipheriv,
	createPrivateKey,
	type Decipher,
	type KeyObject,
	publicEncrypt,
	randomBytes,
	X509Certificate,
} from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { DOMParser } from '@xmldom/xmldom';
import { rsaPkcs1Decrypt } from '../keys/rsaPkcs1';

import { assertSafeXml, UnsafeXmlError } from './xml';
import { attempt } from '../common/attempt';
import { Base64DecodeStream, Base64Encoder, base64Length, decodePayload } from './base64';
import { DSIG_NS } from './constants';
import type { PayloadDocument } from './document';
import { documentBytes } from './document';
import { BxdError } from './errors';
import { pemBase64, pemCertificates } from './signature';
import { closingTags, ElementCut, openElements } from './streams';

export const XMLENC_NS = 'http://www.w3.org/2001/04/xmlenc#';
export const XMLENC_ELEMENT = `${XMLENC_NS}Element`;
export const TRIPLEDES_CBC = `${XMLENC_NS}tripledes-cbc`;
export const RSA_1_5 = `${XMLENC_NS}rsa-1_5`;
/**
 * Danske Bank's name for its encryption certificate (sepafm
 * xml_templates/application_request/encrypted_request.xml).
 */
export const DANSKE_RECIPIENT = 'name:DanskeBankCryptCERT';

const KEY_BYTES = 24;
const IV_BYTES = 8;
const BLOCK = 8;
/** The EncryptedData text before the encrypted document's CipherValue is kept up to this size. */
const ENCRYPTED_HEAD_LIMIT = 256 * 1024;

/**
 * The answer or request cannot be encrypted or decrypted; the message says why, never with key
 * material.
 */
export class BxdEncryptionError extends BxdError {
	constructor(message: string) {
		super(message);
		this.name = 'BxdEncryptionError';
	}
}

/** A BxdEncryptionError with this message (for use where a failure is caught and reworded). */
function encryptionError(message: string): BxdEncryptionError {
	return new BxdEncryptionError(message);
}

/** Who a document is encrypted to: the recipient's certificate (its public key is used). */
export interface EncryptionRecipient {
	certificatePem: string;
	/** EncryptedKey Recipient attribute. */
	name?: string;
}

/** The customer's encryption key and certificate, for the answers. */
export interface DecryptionMaterial {
	key: KeyObject;
	/** When given, an answer naming another certificate is refused before any decryption. */
	certificatePem?: string;
}

export interface EncryptionSettings {
	/** The bank's encryption certificate. */
	recipient: EncryptionRecipient;
	/** The customer's encryption key. */
	decryption?: DecryptionMaterial;
}

/** Reads a private key (PEM, optionally with its passphrase) for decryption. */
export function decryptionMaterial(
	privateKeyPem: string,
	certificatePem?: string,
	passphrase?: string,
): DecryptionMaterial {
	const key = createPrivateKey({
		key: privateKeyPem,
		format: 'pem',
		passphrase: passphrase || undefined,
	});
	if (key.asymmetricKeyType !== 'rsa')
		throw new BxdEncryptionError('The encryption private key must be an RSA key');
	return { key, certificatePem };
}

/** One encryption: a content key and IV chosen once, so the same bytes come out on every pass. */
export interface EncryptionSession {
	/** EncryptedData text before the CipherValue of the document. */
	head: string;
	/** EncryptedData text after it. */
	tail: string;
	/** A fresh cipher (each pass over the document needs its own); the IV leads its output. */
	cipher(): { update(chunk: Buffer): Buffer; final(): Buffer };
	/** Size of the IV and ciphertext for a document of `plainBytes` bytes. */
	cipherBytes(plainBytes: number): number;
	/** Size of the whole EncryptedData document for a document of `plainBytes` bytes. */
	documentBytes(plainBytes: number): number;
}

function certificateOf(pem: string, what: string): X509Certificate {
	const [first] = pemCertificates(pem);
	const read = first ? attempt(() => new X509Certificate(first)) : undefined;
	if (!read?.ok) throw new BxdEncryptionError(`${what}: the PEM certificate cannot be read`);
	return read.value;
}

/** Starts an encryption to `recipient`: a random 3DES key and IV, the key wrapped with RSA-1.5. */
export function startEncryption(recipient: EncryptionRecipient): EncryptionSession {
	const certificate = certificateOf(recipient.certificatePem, "The bank's encryption certificate");
	if (certificate.publicKey.asymmetricKeyType !== 'rsa')
		throw new BxdEncryptionError("The bank's encryption certificate does not hold an RSA key");
	const key = randomBytes(KEY_BYTES);
	const iv = randomBytes(IV_BYTES);
	const wrapped = publicEncrypt(
		{ key: certificate.publicKey, padding: cryptoConstants.RSA_PKCS1_PADDING },
		key,
	);
	const recipientName = (recipient.name ?? DANSKE_RECIPIENT).replace(/[<&"]/g, '');
	const head =
		`<xenc:EncryptedData xmlns:xenc="${XMLENC_NS}" xmlns:dsig="${DSIG_NS}" Type="${XMLENC_ELEMENT}">` +
		`<xenc:EncryptionMethod Algorithm="${TRIPLEDES_CBC}"/>` +
		'<dsig:KeyInfo>' +
		`<xenc:EncryptedKey Recipient="${recipientName}">` +
		`<xenc:EncryptionMethod Algorithm="${RSA_1_5}"/>` +
		`<dsig:KeyInfo><dsig:X509Data><dsig:X509Certificate>${certificate.raw.toString('base64')}</dsig:X509Certificate></dsig:X509Data></dsig:KeyInfo>` +
		`<xenc:CipherData><xenc:CipherValue>${wrapped.toString('base64')}</xenc:CipherValue></xenc:CipherData>` +
		'</xenc:EncryptedKey>' +
		'</dsig:KeyInfo>' +
		'<xenc:CipherData><xenc:CipherValue>';
	const tail = '</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData>';
	const cipherBytes = (plain: number): number => IV_BYTES + (Math.floor(plain / BLOCK) + 1) * BLOCK;
	return {
		head,
		tail,
		cipher() {
			const inner = createCipheriv('des-ede3-cbc', key, iv);
			let first = true;
			return {
				update(chunk: Buffer): Buffer {
					const out = inner.update(chunk);
					if (!first) return out;
					first = false;
					return Buffer.concat([iv, out]);
				},
				final(): Buffer {
					const out = inner.final();
					if (!first) return out;
					first = false;
					return Buffer.concat([iv, out]);
				},
			};
		},
		cipherBytes,
		documentBytes: (plain) =>
			Buffer.byteLength(head) + base64Length(cipherBytes(plain)) + Buffer.byteLength(tail),
	};
}

/**
 * Encrypts a document held in memory (a small ApplicationRequest) and returns the EncryptedData
 * document, its CipherValue as the payload.
 */
export function encryptDocument(
	document: PayloadDocument | Buffer,
	recipient: EncryptionRecipient,
): PayloadDocument {
	const session = startEncryption(recipient);
	const plain = Buffer.isBuffer(document) ? document : documentBytes(document);
	const cipher = session.cipher();
	const encrypted = Buffer.concat([cipher.update(plain), cipher.final()]);
	return {
		head: session.head,
		payload: Buffer.from(encrypted.toString('base64'), 'latin1'),
		tail: session.tail,
	};
}

/**
 * Yields the EncryptedData document of a plaintext stream, chunk by chunk, with a session's key.
 */
export async function* encryptedChunks(
	session: EncryptionSession,
	plain: AsyncIterable<Buffer>,
): AsyncGenerator<Buffer> {
	const cipher = session.cipher();
	const encoder = new Base64Encoder();
	yield Buffer.from(session.head, 'utf8');
	for await (const chunk of plain) {
		const text = encoder.write(cipher.update(chunk));
		if (text.length) yield text;
	}
	const last = Buffer.concat([encoder.write(cipher.final()), encoder.end()]);
	if (last.length) yield last;
	yield Buffer.from(session.tail, 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Decryption
// ---------------------------------------------------------------------------------------------

const ANOTHER_KEY =
	"The bank's answer is encrypted to another key: it cannot be decrypted with the credential's encryption key. Check that the encryption certificate the bank holds for you is the one in the credential (enrol again if the bank issued new certificates)";

/**
 * Unwraps an RSA-1.5 wrapped key: node:crypto where its OpenSSL does implicit rejection, its RSA
 * without padding and the padding read in keys/rsaPkcs1.ts where node:crypto refuses.
 */
export function unwrapKey(wrapped: Buffer, key: KeyObject): Buffer | undefined {
	return rsaPkcs1Decrypt(wrapped, key);
}

function childElements(element: Element): Element[] {
	const out: Element[] = [];
	for (let node = element.firstChild; node; node = node.nextSibling)
		if (node.nodeType === 1) out.push(node as Element);
	return out;
}

function child(element: Element | undefined, ns: string, localName: string): Element | undefined {
	return element
		? childElements(element).find((e) => e.namespaceURI === ns && e.localName === localName)
		: undefined;
}

function algorithmOf(element: Element | undefined): string {
	return element?.getAttribute('Algorithm')?.trim() ?? '';
}

/** What the EncryptedData head says: the content key, unwrapped and checked. */
interface OpenedEncryption {
	key: Buffer;
}

/**
 * Reads the EncryptedData text up to its CipherValue (closed here to parse it) and unwraps the
 * content key.
 */
function openEncryptedData(
	head: string,
	material: DecryptionMaterial | undefined,
): OpenedEncryption {
	const safe = attempt(() => assertSafeXml(head));
	if (!safe.ok) {
		throw new BxdEncryptionError(
			`The EncryptedData is refused: ${safe.error instanceof UnsafeXmlError ? safe.error.message : (safe.error as Error).message}`,
		);
	}
	const errors: string[] = [];
	const doc = new DOMParser({
		errorHandler: (level: string, message: unknown) => {
			if (level !== 'warning') errors.push(String(message));
		},
	}).parseFromString(
		`${head}${closingTags(openElements(head))}`,
		'text/xml',
	) as unknown as Document;
	const root = doc.documentElement as Element | null;
	if (errors.length || !root)
		throw new BxdEncryptionError(
			`The EncryptedData is damaged: it is not well-formed XML (${(errors[0] ?? 'no root element').split('\n')[0]})`,
		);
	if (root.namespaceURI !== XMLENC_NS || root.localName !== 'EncryptedData') {
		throw new BxdEncryptionError(
			`The encrypted answer is not an XML Encryption EncryptedData (its root is ${root.localName})`,
		);
	}
	const dataAlgorithm = algorithmOf(child(root, XMLENC_NS, 'EncryptionMethod'));
	if (dataAlgorithm !== TRIPLEDES_CBC) {
		throw new BxdEncryptionError(
			`The EncryptedData uses an encryption algorithm this node does not support: ${dataAlgorithm || '(none given)'} (supported: ${TRIPLEDES_CBC})`,
		);
	}
	const encryptedKey = child(child(root, DSIG_NS, 'KeyInfo'), XMLENC_NS, 'EncryptedKey');
	if (!encryptedKey)
		throw new BxdEncryptionError(
			'The EncryptedData is damaged: it has no EncryptedKey in its KeyInfo',
		);
	const keyAlgorithm = algorithmOf(child(encryptedKey, XMLENC_NS, 'EncryptionMethod'));
	if (keyAlgorithm !== RSA_1_5) {
		throw new BxdEncryptionError(
			`The EncryptedKey uses a key transport algorithm this node does not support: ${keyAlgorithm || '(none given)'} (supported: ${RSA_1_5})`,
		);
	}
	if (!material)
		throw new BxdEncryptionError(
			"The bank's answer is encrypted, but the credential has no encryption key to decrypt it",
		);
	const named = child(
		child(child(encryptedKey, DSIG_NS, 'KeyInfo'), DSIG_NS, 'X509Data'),
		DSIG_NS,
		'X509Certificate',
	)?.textContent?.replace(/\s+/g, '');
	if (named && material.certificatePem) {
		const [own] = pemCertificates(material.certificatePem);
		if (own && pemBase64(own) !== named) throw new BxdEncryptionError(ANOTHER_KEY);
	}
	const value =
		child(child(encryptedKey, XMLENC_NS, 'CipherData'), XMLENC_NS, 'CipherValue')?.textContent ??
		'';
	const wrapped = attempt(() =>
		decodePayload(value.replace(/\s+/g, ''), 'The EncryptedKey CipherValue'),
	);
	if (!wrapped.ok || !wrapped.value.length)
		throw new BxdEncryptionError(
			'The EncryptedData is damaged: its EncryptedKey has no readable CipherValue',
		);
	const key = unwrapKey(wrapped.value, material.key);
	if (!key || key.length !== KEY_BYTES) throw new BxdEncryptionError(ANOTHER_KEY);
	return { key };
}

/**
 * Deciphers IV + 3DES-CBC ciphertext as it arrives; a bad last block (wrong key, damage) fails the
 * stream.
 */
class TripleDesDecipher extends Transform {
	private decipher?: Decipher;
	private iv: Buffer = Buffer.alloc(0);
	bytes = 0;

	constructor(private readonly keyOf: () => Buffer) {
		super();
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		try {
			if (!this.decipher) {
				const need = IV_BYTES - this.iv.length;
				this.iv = Buffer.concat([this.iv, chunk.subarray(0, need)]);
				chunk = chunk.subarray(need);
				if (this.iv.length < IV_BYTES) {
					done();
					return;
				}
				this.decipher = createDecipheriv('des-ede3-cbc', this.keyOf(), this.iv);
			}
			this.bytes += chunk.length;
			const out = this.decipher.update(chunk);
			done(null, out.length ? out : undefined);
		} catch (error) {
			done(error as Error);
		}
	}

	_flush(done: TransformCallback): void {
		if (!this.decipher || this.bytes === 0 || this.bytes % BLOCK !== 0) {
			done(
				new BxdEncryptionError(
					'The EncryptedData is damaged: its CipherValue is not a whole number of 3DES blocks after the IV',
				),
			);
			return;
		}
		try {
			done(null, this.decipher.final());
		} catch {
			done(
				new BxdEncryptionError(
					`${ANOTHER_KEY.replace(/\.[^.]*$/, '')}, or the EncryptedData is damaged (the deciphered data does not end in valid padding)`,
				),
			);
		}
	}
}

/**
 * The stages that turn an EncryptedData byte stream into the document it holds. Errors are
 * BxdEncryptionError (algorithm, recipient, key) or BxdFormatError (broken base64, cut-off text).
 */
export function decryptionStages(material: DecryptionMaterial | undefined): Transform[] {
	let opened: OpenedEncryption | undefined;
	const cut = new ElementCut({
		localName: 'CipherValue',
		what: 'The EncryptedData',
		maxHead: ENCRYPTED_HEAD_LIMIT,
		maxTail: 64 * 1024,
		// The document's CipherValue: EncryptedData > CipherData > CipherValue (not the
		// EncryptedKey's).
		accept: (before) => {
			const open = openElements(before).map((name) => name.slice(name.indexOf(':') + 1));
			return open.length === 2 && open[0] === 'EncryptedData' && open[1] === 'CipherData';
		},
		onHead: (found) => {
			opened = openEncryptedData(found.head.toString('utf8'), material);
		},
	});
	const check = new Transform({
		transform(chunk: Buffer, _encoding, done) {
			done(null, chunk);
		},
		flush(done) {
			if (!cut.found) {
				const whole = (cut.whole ?? Buffer.alloc(0)).toString('utf8');
				// Opening the head names the real problem (not XML, algorithm, no key) before "no
				// CipherValue".
				const named = attempt(() => openEncryptedData(whole, material));
				done(
					named.ok
						? new BxdEncryptionError(
								'The EncryptedData is damaged: it has no CipherValue with the encrypted document',
							)
						: (named.error as Error),
				);
				return;
			}
			const tail = (cut.tail ?? Buffer.alloc(0)).toString('utf8').trim();
			if (
				!/^<\/(?:[\w.-]+:)?CipherValue>\s*<\/(?:[\w.-]+:)?CipherData>[\s\S]*<\/(?:[\w.-]+:)?EncryptedData>$/.test(
					tail,
				)
			) {
				done(
					new BxdEncryptionError(
						'The EncryptedData is damaged: the text after its CipherValue is not the end of the EncryptedData',
					),
				);
				return;
			}
			done();
		},
	});
	const decoder = new Base64DecodeStream('The EncryptedData CipherValue');
	const decipher = new TripleDesDecipher(() => (opened as OpenedEncryption).key);
	return [cut, check, decoder, decipher];
}

/** Decrypts an EncryptedData document held in memory (small answers). */
export function decryptDocument(
	encrypted: Buffer,
	material: DecryptionMaterial | undefined,
): Buffer {
	const text = encrypted.toString('utf8');
	const match =
		/<(?:[\w.-]+:)?CipherData>\s*<(?:[\w.-]+:)?CipherValue>([^<]*)<\/(?:[\w.-]+:)?CipherValue>\s*<\/(?:[\w.-]+:)?CipherData>\s*(?:<(?:[\w.-]+:)?EncryptionProperties[\s\S]*)?<\/(?:[\w.-]+:)?EncryptedData>\s*$/.exec(
			text,
		);
	if (!match) {
		// Name the real problem when the document says it (not XML, algorithm, recipient), else the
		// shape.
		openEncryptedData(text, material);
		throw new BxdEncryptionError(
			'The EncryptedData is damaged: it has no CipherValue with the encrypted document',
		);
	}
	const head = text.slice(0, match.index + match[0].indexOf(match[1]));
	const { key } = openEncryptedData(head, material);
	const data = attempt(() =>
		decodePayload(match[1].replace(/\s+/g, ''), 'The EncryptedData CipherValue'),
	);
	if (!data.ok)
		throw new BxdEncryptionError(`The EncryptedData is damaged: ${(data.error as Error).message}`);
	const bytes = data.value;
	if (bytes.length < IV_BYTES + BLOCK || (bytes.length - IV_BYTES) % BLOCK !== 0) {
		throw new BxdEncryptionError(
			'The EncryptedData is damaged: its CipherValue is not a whole number of 3DES blocks after the IV',
		);
	}
	const decipher = createDecipheriv('des-ede3-cbc', key, bytes.subarray(0, IV_BYTES));
	try {
		return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES)), decipher.final()]);
	} catch {
		throw encryptionError(
			`${ANOTHER_KEY.replace(/\.[^.]*$/, '')}, or the EncryptedData is damaged (the deciphered data does not end in valid padding)`,
		);
	}
}

/** Whether a document (its first bytes) is an XML Encryption EncryptedData. */
export function isEncryptedData(start: Buffer): boolean {
	const text = start.subarray(0, 2048).toString('latin1');
	return /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[\w.-]+:)?EncryptedData[\s>]/.test(
		text.replace(/^\xEF\xBB\xBF/, ''),
	);
}

/**
 * Passes a document through, decrypting it when it is an EncryptedData (decided from its first
 * bytes); a plain document passes unchanged.
 */
export class MaybeDecrypt extends Transform {
	private head: Buffer[] = [];
	private headBytes = 0;
	private stages?: Transform[];
	private decided = false;
	private finished?: Promise<void>;
	private last?: Transform;
	/** Whether the document was encrypted (known after its first bytes). */
	encrypted = false;

	constructor(private readonly material: DecryptionMaterial | undefined) {
		super();
	}

	private decide(): void {
		this.decided = true;
		const start = Buffer.concat(this.head, this.headBytes);
		this.head = [];
		if (!isEncryptedData(start)) {
			if (start.length) this.push(start);
			return;
		}
		this.encrypted = true;
		this.stages = decryptionStages(this.material);
		const last = this.stages[this.stages.length - 1];
		for (let i = 0; i < this.stages.length - 1; i++) {
			const from = this.stages[i];
			const to = this.stages[i + 1];
			from.on('error', (error) => this.destroy(error));
			from.pipe(to);
		}
		last.on('error', (error) => this.destroy(error));
		this.last = last;
		last.on('data', (data: Buffer) => {
			// Reading pauses while the consumer is behind; _read resumes it.
			if (!this.push(data)) last.pause();
		});
		this.finished = new Promise((resolve) => last.once('end', () => resolve()));
		this.stages[0].write(start);
	}

	_read(size: number): void {
		this.last?.resume();
		super._read(size);
	}

	_transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		if (!this.decided) {
			this.head.push(chunk);
			this.headBytes += chunk.length;
			if (this.headBytes < 512) {
				done();
				return;
			}
			this.decide();
			done();
			return;
		}
		if (!this.stages) {
			done(null, chunk);
			return;
		}
		if (this.stages[0].write(chunk)) done();
		else this.stages[0].once('drain', () => done());
	}

	_flush(done: TransformCallback): void {
		if (!this.decided) this.decide();
		if (!this.stages) {
			done();
			return;
		}
		(this.finished as Promise<void>).then(() => done(), done);
		this.stages[0].end();
	}
}
