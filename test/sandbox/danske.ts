/**
 * The sandbox bank's Danske Bank: a file service that takes only encrypted ApplicationRequests
 * and answers encrypted (XML Encryption: 3DES-CBC, the content key wrapped with RSA-1.5), and a
 * PKIFactoryService (GetBankCertificate, CreateCertificate with a one-time PIN, RenewCertificate,
 * CertificateStatus, GetOwnCertificateList) that issues signing and encryption certificates from
 * the sandbox CA. Shapes follow the public record (sepafm danske_pki.xsd, wsdl_danske_cert.xml,
 * encrypted_request.xml and the bank's sample answers); this is the sandbox's own implementation.
 *
 * The file service decrypts the request as it arrives into a plain SOAP request on disk and hands
 * it to the common file service, which renders the answer; the answer is encrypted as it is sent
 * (see soap.ts `answerEncryption`) to the encryption certificate paired with the certificate that
 * signed the request.
 */
import { createCipheriv, createDecipheriv, createHash, createPublicKey, generateKeyPairSync, randomBytes, randomInt, X509Certificate } from 'node:crypto';
import { createWriteStream, statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { DOMParser } from '@xmldom/xmldom';
import forge from 'node-forge';

import { Base64Decoder, Base64Encoder } from './base64';
import type { SandboxPki } from './certs';
import { issueCustomerCertificate, pemBody } from './certs';
import { writeChunk } from './fileWrite';
import type { RequestContext } from './http';
import { readBody, send } from './http';
import { signRootById, verifyEnvelopedSignature } from './xmldsig';

export const DANSKE_SOAP_PATH = '/services/DanskeFileService';
export const DANSKE_PKI_PATH = '/ra/pkiservice.asmx';

const XMLENC = 'http://www.w3.org/2001/04/xmlenc#';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
const PKIF = 'http://danskebank.dk/PKI/PKIFactoryService';
const ELEM = 'http://danskebank.dk/PKI/PKIFactoryService/elements';
const TRIPLEDES = `${XMLENC}tripledes-cbc`;
const RSA15 = `${XMLENC}rsa-1_5`;
const DAY = 24 * 60 * 60 * 1000;

/** How the next answer is flawed (one shot), for the node's error handling. */
export type DanskeAnswerFlaw = 'otherKey' | 'corrupt' | 'algorithm';

export interface DanskeSwitches {
	/** Flaw the next file-service answer. */
	answerFlaw?: DanskeAnswerFlaw;
	/** GetBankCertificate answers an encryption certificate from another root. */
	foreignBankCertificate?: boolean;
	/** CertificateStatus reports this status for every certificate. */
	status?: 'good' | 'expires_soon' | 'expired' | 'revoked';
	/** Refuse the next RenewCertificate with this code. */
	refuseRenewal?: { code: string; text: string };
}

interface Pin {
	used: boolean;
}

interface IssuedPair {
	signingPem: string;
	encryptionPem: string;
	signingSerial: string;
	encryptionSerial: string;
	notAfter: Date;
	revoked: boolean;
}

/** The encryption of an answer: the parts around the ciphertext and the cipher. */
export interface AnswerEncryption {
	head: string;
	tail: string;
	key: Buffer;
	iv: Buffer;
	/** Ciphertext bytes to drop from the end (a corrupted EncryptedData). */
	truncate: number;
}

export interface DanskeRecord {
	operation: string;
	returnCode: string;
	/** Whether the request carried the one-time PIN (CreateCertificate). */
	carriedPin: boolean;
}

/**
 * How the PKI service signs its answers. Danske Bank's public samples are signed with RSA-SHA1
 * (sepafm test/sepa/banks/danske/responses/), the default.
 */
export type PkiAnswerAlgorithm = 'sha1' | 'sha256';
export const DEFAULT_PKI_ANSWER_ALGORITHM: PkiAnswerAlgorithm = 'sha1';

/** A refused request: the bank's code and text. */
export class PkiError extends Error {
	constructor(
		readonly code: string,
		message: string,
		readonly additional?: string,
	) {
		super(message);
	}
}

const esc = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Serial numbers in decimal, as the PKI service writes them (a hexadecimal serial is not found). */
const serialOf = (pem: string): string => BigInt(`0x${new X509Certificate(pem).serialNumber}`).toString(10);
const fingerprint = (pem: string): string => createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');

function elements(parent: Element): Element[] {
	const out: Element[] = [];
	for (let node = parent.firstChild; node; node = node.nextSibling) if (node.nodeType === 1) out.push(node as Element);
	return out;
}

function childNs(parent: Element | undefined, ns: string, local: string): Element | undefined {
	return parent ? elements(parent).find((e) => e.namespaceURI === ns && e.localName === local) : undefined;
}

function textOf(parent: Element | undefined, local: string): string | undefined {
	const found = parent ? elements(parent).find((e) => e.localName === local) : undefined;
	return found?.textContent?.trim();
}

function parseXml(text: string, what: string): Document {
	if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new PkiError('07', 'Schema validation error.', `${what}: DOCTYPE is not allowed`);
	const problems: string[] = [];
	const doc = new DOMParser({ errorHandler: (level: string, message: unknown) => void (level !== 'warning' && problems.push(String(message))) }).parseFromString(
		text,
		'text/xml',
	) as unknown as Document;
	if (problems.length || !doc.documentElement) throw new PkiError('07', 'Schema validation error.', `${what} is not well-formed XML`);
	return doc;
}

/** The text of an element as it was sent (its namespace declarations must be on it, as the client writes them). */
function rawElement(body: string, element: Element): string {
	const name = element.tagName;
	const start = body.search(new RegExp(`<${name.replace(/[.]/g, '\\.')}[\\s>]`));
	const close = `</${name}>`;
	const end = body.lastIndexOf(close);
	if (start === -1 || end < start) throw new PkiError('07', 'Schema validation error.', `${element.localName} cannot be read`);
	return body.slice(start, end + close.length);
}

/** Unwraps an RSA-1.5 wrapped key with node-forge (the sandbox runs on any Node). */
function unwrap(wrapped: Buffer, keyPem: string): Buffer | undefined {
	try {
		return Buffer.from(forge.pki.privateKeyFromPem(keyPem).decrypt(wrapped.toString('binary'), 'RSAES-PKCS1-V1_5'), 'binary');
	} catch {
		return undefined;
	}
}

/** The EncryptedData parts for a document encrypted to `certPem` with a new content key. */
export function encryptionFor(certPem: string, algorithm = TRIPLEDES): AnswerEncryption {
	const cert = new X509Certificate(certPem);
	const key = randomBytes(24);
	const iv = randomBytes(8);
	const wrapped = Buffer.from(forge.pki.publicKeyFromPem(cert.publicKey.export({ type: 'spki', format: 'pem' }).toString()).encrypt(key.toString('binary'), 'RSAES-PKCS1-V1_5'), 'binary');
	const head =
		`<xenc:EncryptedData xmlns:xenc="${XMLENC}" xmlns:dsig="${DSIG}" Type="${XMLENC}Element">` +
		`<xenc:EncryptionMethod Algorithm="${algorithm}"/>` +
		`<dsig:KeyInfo><xenc:EncryptedKey Recipient="name:${esc(cert.subject.split('\n').find((l) => l.startsWith('CN='))?.slice(3) ?? 'customer')}">` +
		`<xenc:EncryptionMethod Algorithm="${RSA15}"/>` +
		`<dsig:KeyInfo><dsig:X509Data><dsig:X509Certificate>${cert.raw.toString('base64')}</dsig:X509Certificate></dsig:X509Data></dsig:KeyInfo>` +
		`<xenc:CipherData><xenc:CipherValue>${wrapped.toString('base64')}</xenc:CipherValue></xenc:CipherData>` +
		'</xenc:EncryptedKey></dsig:KeyInfo><xenc:CipherData><xenc:CipherValue>';
	return { head, tail: '</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData>', key, iv, truncate: 0 };
}

/** Encrypts a small document whole (PKI answers). */
function encryptWhole(plain: Buffer, certPem: string): string {
	const enc = encryptionFor(certPem);
	const cipher = createCipheriv('des-ede3-cbc', enc.key, enc.iv);
	return enc.head + Buffer.concat([enc.iv, cipher.update(plain), cipher.final()]).toString('base64') + enc.tail;
}

/** Length of an encrypted document holding `plain` bytes. */
export function encryptedLength(enc: AnswerEncryption, plain: number): number {
	const cipher = 8 + (Math.floor(plain / 8) + 1) * 8 - enc.truncate;
	return Buffer.byteLength(enc.head) + 4 * Math.ceil(cipher / 3) + Buffer.byteLength(enc.tail);
}

/** Reads the EncryptedData head (up to the document's CipherValue) and unwraps its key with `keyPem`. */
function openHead(head: string, keyPem: string): Buffer {
	const doc = parseXml(head + '</xenc:CipherValue></xenc:CipherData></xenc:EncryptedData>'.replace(/xenc:/g, prefixOf(head)), 'EncryptedData');
	const root = doc.documentElement as unknown as Element;
	if (root.namespaceURI !== XMLENC || root.localName !== 'EncryptedData') throw new PkiError('12', 'The ApplicationRequest must be encrypted (XML Encryption EncryptedData).');
	const method = childNs(root, XMLENC, 'EncryptionMethod')?.getAttribute('Algorithm');
	if (method !== TRIPLEDES) throw new PkiError('12', `Unsupported encryption algorithm ${method ?? '(none)'}.`);
	const encryptedKey = childNs(childNs(root, DSIG, 'KeyInfo'), XMLENC, 'EncryptedKey');
	if (childNs(encryptedKey, XMLENC, 'EncryptionMethod')?.getAttribute('Algorithm') !== RSA15) throw new PkiError('12', 'Unsupported key transport algorithm.');
	const wrapped = childNs(childNs(encryptedKey, XMLENC, 'CipherData'), XMLENC, 'CipherValue')?.textContent ?? '';
	const key = unwrap(Buffer.from(wrapped.replace(/\s+/g, ''), 'base64'), keyPem);
	if (!key || key.length !== 24) throw new PkiError('12', 'The request is not encrypted to the bank encryption certificate.');
	return key;
}

function prefixOf(head: string): string {
	const match = /<([\w.-]+:)?EncryptedData[\s>]/.exec(head);
	return match?.[1] ?? '';
}

/** Decrypts a whole EncryptedData (PKI requests). */
function decryptWhole(encrypted: string, keyPem: string): Buffer {
	const match = /<(?:[\w.-]+:)?CipherData>\s*<(?:[\w.-]+:)?CipherValue>([^<]*)<\/(?:[\w.-]+:)?CipherValue>\s*<\/(?:[\w.-]+:)?CipherData>\s*<\/(?:[\w.-]+:)?EncryptedData>\s*$/.exec(encrypted);
	if (!match) throw new PkiError('12', 'The request must be encrypted (XML Encryption EncryptedData).');
	const key = openHead(encrypted.slice(0, match.index + match[0].indexOf(match[1])), keyPem);
	const data = Buffer.from(match[1].replace(/\s+/g, ''), 'base64');
	try {
		const decipher = createDecipheriv('des-ede3-cbc', key, data.subarray(0, 8));
		return Buffer.concat([decipher.update(data.subarray(8)), decipher.final()]);
	} catch {
		throw new PkiError('12', 'The encrypted request cannot be decrypted.');
	}
}

/** A strict-enough streaming base64 decoder (whitespace skipped): a lone character at the end is broken base64. */
class B64 extends Base64Decoder {
	override end(): Buffer {
		if (this.carry.length % 4 === 1) throw new PkiError('12', 'Broken base64.');
		return super.end();
	}
}

export interface DecryptedRequest {
	/** The plain SOAP request on disk. */
	path: string;
	size: number;
	/** Base64 of the certificate the decrypted ApplicationRequest's signature names, if any. */
	signerCertificate?: string;
}

export class SandboxDanske {
	readonly bankEncryptionKeyPem: string;
	readonly bankEncryptionCertPem: string;
	/** The customer's encryption pair for a credential that pastes its certificates. */
	readonly customerEncryptionKeyPem: string;
	readonly customerEncryptionCertPem: string;
	/** A certificate of nobody the customer knows (answers "encrypted to another key"). */
	readonly rogueCertPem: string;
	/** An encryption certificate from another root. */
	readonly foreignCertPem: string;
	switches: DanskeSwitches = {};
	/** How the PKI service signs its answers (kept until reset). */
	answerAlgorithm: PkiAnswerAlgorithm = DEFAULT_PKI_ANSWER_ALGORITHM;
	records: DanskeRecord[] = [];
	/** Certificate lifetime of the certificates it issues (days). */
	lifetimeDays = 730;
	private readonly pins = new Map<string, Pin>();
	private readonly pairs = new Map<string, IssuedPair>();

	constructor(
		private readonly options: { pki: SandboxPki; customerId: string; senderId: string; now: () => Date },
	) {
		const pki = options.pki;
		const now = options.now();
		const until = new Date(now.getTime() + 3 * 365 * DAY);
		const bank = generateKeyPairSync('rsa', { modulusLength: 2048 });
		this.bankEncryptionKeyPem = bank.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
		this.bankEncryptionCertPem = issueCustomerCertificate(pki, { commonName: 'DanskeBankCryptCERT' }, bank.publicKey, now, until);
		const customer = generateKeyPairSync('rsa', { modulusLength: 2048 });
		this.customerEncryptionKeyPem = customer.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
		this.customerEncryptionCertPem = issueCustomerCertificate(pki, { commonName: `${options.customerId} encryption` }, customer.publicKey, now, until);
		const rogue = generateKeyPairSync('rsa', { modulusLength: 2048 });
		this.rogueCertPem = issueCustomerCertificate(pki, { commonName: 'somebody else' }, rogue.publicKey, now, until);
		const foreign = forge.pki.rsa.generateKeyPair(1024);
		const cert = forge.pki.createCertificate();
		cert.publicKey = foreign.publicKey;
		cert.serialNumber = '0a';
		cert.validity.notBefore = now;
		cert.validity.notAfter = until;
		cert.setSubject([{ name: 'commonName', value: 'Not The Bank Root' }]);
		cert.setIssuer([{ name: 'commonName', value: 'Not The Bank Root' }]);
		cert.sign(foreign.privateKey, forge.md.sha256.create());
		this.foreignCertPem = forge.pki.certificateToPem(cert);
		this.pairs.set(fingerprint(pki.customerSigningCertPem), {
			signingPem: pki.customerSigningCertPem,
			encryptionPem: this.customerEncryptionCertPem,
			signingSerial: serialOf(pki.customerSigningCertPem),
			encryptionSerial: serialOf(this.customerEncryptionCertPem),
			notAfter: until,
			revoked: false,
		});
	}

	/** A new one-time PIN (10 digits). */
	newPin(): string {
		const pin = String(randomInt(1_000_000_000, 9_999_999_999));
		this.pins.set(pin, { used: false });
		return pin;
	}

	/** The signing certificates it issued, for the file service's signature check. */
	certificateFor(documentText: string): string | undefined {
		const match = /<(?:[\w.-]+:)?X509Certificate>([^<]+)</.exec(documentText);
		if (!match) return undefined;
		const body = match[1].replace(/\s+/g, '');
		for (const pair of this.pairs.values()) if (pemBody(pair.signingPem).replace(/\s+/g, '') === body) return pair.signingPem;
		return undefined;
	}

	/** The encryption of the answer to a request signed by `signerCertificate` (base64 DER). */
	answerEncryption(signerCertificate: string | undefined): AnswerEncryption {
		let target = this.customerEncryptionCertPem;
		if (signerCertificate) {
			for (const pair of this.pairs.values()) if (pemBody(pair.signingPem).replace(/\s+/g, '') === signerCertificate) target = pair.encryptionPem;
		}
		const flaw = this.switches.answerFlaw;
		delete this.switches.answerFlaw;
		if (flaw === 'otherKey') return encryptionFor(this.rogueCertPem);
		if (flaw === 'algorithm') return encryptionFor(target, `${XMLENC}aes256-cbc`);
		const enc = encryptionFor(target);
		if (flaw === 'corrupt') enc.truncate = 3;
		return enc;
	}

	reset(): void {
		this.switches = {};
		this.records = [];
		this.lifetimeDays = 730;
		this.answerAlgorithm = DEFAULT_PKI_ANSWER_ALGORITHM;
	}

	/**
	 * Decrypts the ApplicationRequest of a SOAP request as it arrives and writes the request, with
	 * the plain ApplicationRequest, to `path`. Throws PkiError for a request that is not encrypted
	 * to the bank's encryption certificate.
	 */
	async decryptRequest(req: IncomingMessage, path: string): Promise<DecryptedRequest> {
		const file = createWriteStream(path, { highWaterMark: 1024 * 1024 });
		const done = new Promise<void>((resolve, reject) => {
			file.once('finish', resolve);
			file.once('error', reject);
		});
		let state: 'soapHead' | 'document' | 'soapTail' = 'soapHead';
		let inner: 'head' | 'cipher' | 'tail' = 'head';
		let soapText = '';
		let docHead = '';
		let docTail = '';
		const outerIn = new B64();
		const cipherIn = new B64();
		const outerOut = new Base64Encoder();
		let iv = Buffer.alloc(0);
		let key: Buffer | undefined;
		let decipher: ReturnType<typeof createDecipheriv> | undefined;
		let plainTail = '';

		const plain = async (data: Buffer): Promise<void> => {
			if (!data.length) return;
			plainTail = (plainTail + data.toString('latin1')).slice(-65536);
			await writeChunk(file, outerOut.push(data));
		};
		const cipherBytes = async (data: Buffer): Promise<void> => {
			if (!decipher) {
				const need = 8 - iv.length;
				iv = Buffer.concat([iv, data.subarray(0, need)]);
				data = data.subarray(need);
				if (iv.length < 8) return;
				decipher = createDecipheriv('des-ede3-cbc', key as Buffer, iv);
			}
			await plain(decipher.update(data));
		};
		const documentText = async (text: string): Promise<void> => {
			if (inner === 'head') {
				docHead += text;
				if (docHead.length > 8 && !/^\s*(<\?xml[^>]*\?>\s*)?<([\w.-]+:)?EncryptedData[\s>]/.test(docHead) && docHead.trimStart().length > 64) {
					throw new PkiError('12', 'The ApplicationRequest must be encrypted (XML Encryption EncryptedData).');
				}
				const open = /<\/(?:[\w.-]+:)?EncryptedKey>\s*<\/(?:[\w.-]+:)?KeyInfo>\s*<(?:[\w.-]+:)?CipherData>\s*<(?:[\w.-]+:)?CipherValue>/.exec(docHead);
				if (!open) {
					if (docHead.length > 256 * 1024) throw new PkiError('12', 'The ApplicationRequest must be encrypted (XML Encryption EncryptedData).');
					return;
				}
				const end = open.index + open[0].length;
				const rest = docHead.slice(end);
				docHead = docHead.slice(0, end);
				key = openHead(docHead, this.bankEncryptionKeyPem);
				inner = 'cipher';
				await documentText(rest);
				return;
			}
			if (inner === 'cipher') {
				const lt = text.indexOf('<');
				await cipherBytes(cipherIn.write(lt === -1 ? text : text.slice(0, lt)));
				if (lt === -1) return;
				await cipherBytes(cipherIn.end());
				if (!decipher) throw new PkiError('12', 'The encrypted ApplicationRequest is empty.');
				try {
					await plain(decipher.final());
				} catch {
					throw new PkiError('12', 'The encrypted ApplicationRequest cannot be decrypted.');
				}
				inner = 'tail';
				docTail += text.slice(lt);
				return;
			}
			docTail += text;
		};

		try {
			// Read through a PassThrough: giving up on it early must not destroy the client's request.
			for await (const chunk of req.pipe(new PassThrough())) {
				let text = (chunk as Buffer).toString('latin1');
				while (text.length) {
					if (state === 'soapHead') {
						soapText += text;
						text = '';
						const open = /<(?:[\w.-]+:)?ApplicationRequest(?:\s[^>]*)?>/.exec(soapText);
						if (!open) {
							if (soapText.length > 1024 * 1024) throw new PkiError('12', 'ApplicationRequest is required.');
							break;
						}
						const end = open.index + open[0].length;
						await writeChunk(file, Buffer.from(soapText.slice(0, end), 'latin1'));
						text = soapText.slice(end);
						soapText = '';
						state = 'document';
					} else if (state === 'document') {
						const lt = text.indexOf('<');
						const part = lt === -1 ? text : text.slice(0, lt);
						await documentText(outerIn.write(part).toString('latin1'));
						if (lt === -1) {
							text = '';
						} else {
							await documentText(outerIn.end().toString('latin1'));
							state = 'soapTail';
							text = text.slice(lt);
						}
					} else {
						soapText += text;
						text = '';
					}
				}
			}
			if (state === 'soapHead') {
				await writeChunk(file, Buffer.from(soapText, 'latin1'));
			} else {
				if ((inner as string) !== 'tail' || !/<\/(?:[\w.-]+:)?EncryptedData>\s*$/.test(docTail)) throw new PkiError('12', 'The encrypted ApplicationRequest is cut off.');
				await writeChunk(file, outerOut.end());
				await writeChunk(file, Buffer.from(soapText, 'latin1'));
			}
		} finally {
			file.end();
			await done;
		}
		const signer = /<(?:[\w.-]+:)?X509Certificate>([^<]+)</.exec(plainTail)?.[1]?.replace(/\s+/g, '');
		return { path, size: statSync(path).size, signerCertificate: signer };
	}

	// -----------------------------------------------------------------------------------------
	// PKIFactoryService
	// -----------------------------------------------------------------------------------------

	async handlePki(ctx: RequestContext): Promise<void> {
		if (ctx.req.method !== 'POST') {
			send(ctx, 405, { 'content-type': 'text/plain' }, 'Use POST (SOAP 1.1).');
			return;
		}
		const body = (await readBody(ctx.req, 1024 * 1024)).toString('utf8');
		let operation = 'unknown';
		let header: Record<string, string> = {};
		try {
			const doc = parseXml(body, 'The SOAP request');
			const soapBody = childNs(doc.documentElement as unknown as Element, SOAP, 'Body');
			const input = soapBody ? elements(soapBody)[0] : undefined;
			if (!input || input.namespaceURI !== PKIF || !/In$/.test(input.localName ?? '')) throw new PkiError('07', 'Schema validation error.', 'The Body holds no PKIFactoryService request');
			operation = input.localName.replace(/In$/, '');
			const requestHeader = childNs(input, PKIF, 'RequestHeader');
			if (!requestHeader) throw new PkiError('07', 'Schema validation error.', 'RequestHeader is required');
			header = Object.fromEntries(elements(requestHeader).map((e) => [e.localName, e.textContent?.trim() ?? '']));
			if (header.SenderId !== this.options.senderId || header.CustomerId !== this.options.customerId) {
				throw new PkiError('10', 'Unknown customer.', `SenderId/CustomerId ${header.SenderId}/${header.CustomerId} has no agreement`);
			}
			const payload = elements(input).find((e) => e !== requestHeader);
			const answer = this.answer(operation, payload, body);
			this.records.push({ operation, returnCode: '00', carriedPin: operation === 'CreateCertificate' });
			send(ctx, 200, { 'content-type': 'text/xml; charset=utf-8' }, this.envelope(operation, header, answer));
		} catch (error) {
			if (!(error instanceof PkiError)) throw error;
			this.records.push({ operation, returnCode: error.code, carriedPin: operation === 'CreateCertificate' });
			send(ctx, 500, { 'content-type': 'text/xml; charset=utf-8' }, this.fault(header, error));
		}
	}

	private envelope(operation: string, header: Record<string, string>, response: string): string {
		return (
			'<?xml version="1.0" encoding="UTF-8"?>' +
			`<soapenv:Envelope xmlns:soapenv="${SOAP}" xmlns:pkif="${PKIF}" xmlns:elem="${ELEM}"><soapenv:Header/><soapenv:Body>` +
			`<pkif:${operation}Out><pkif:ResponseHeader>` +
			`<pkif:SenderId>${esc(header.SenderId ?? '')}</pkif:SenderId><pkif:CustomerId>${esc(header.CustomerId ?? '')}</pkif:CustomerId>` +
			`<pkif:RequestId>${esc(header.RequestId ?? '')}</pkif:RequestId><pkif:Timestamp>${this.options.now().toISOString().replace(/\.\d{3}Z$/, 'Z')}</pkif:Timestamp>` +
			`<pkif:InterfaceVersion>1</pkif:InterfaceVersion>${header.Environment ? `<pkif:Environment>${esc(header.Environment)}</pkif:Environment>` : ''}` +
			`</pkif:ResponseHeader>${response}</pkif:${operation}Out></soapenv:Body></soapenv:Envelope>`
		);
	}

	private fault(header: Record<string, string>, error: PkiError): string {
		return (
			'<?xml version="1.0" encoding="UTF-8"?>' +
			`<env:Envelope xmlns:env="${SOAP}" xmlns:pkif="${PKIF}"><env:Body><pkif:PKIFactoryServiceFault>` +
			`<pkif:CustomerId>${esc(header.CustomerId ?? '')}</pkif:CustomerId><pkif:SenderId>${esc(header.SenderId ?? '')}</pkif:SenderId>` +
			`<pkif:RequestId>${esc(header.RequestId ?? '')}</pkif:RequestId><pkif:Timestamp>${this.options.now().toISOString()}</pkif:Timestamp>` +
			`<pkif:InterfaceVersion>1</pkif:InterfaceVersion><pkif:ReturnCode>${error.code}</pkif:ReturnCode><pkif:ReturnText>${esc(error.message)}</pkif:ReturnText>` +
			(error.additional ? `<pkif:AdditionalReturnText>${esc(error.additional)}</pkif:AdditionalReturnText>` : '') +
			'</pkif:PKIFactoryServiceFault></env:Body></env:Envelope>'
		);
	}

	/** A response element signed by the bank (enveloped, Reference to its xml:id, as Danske Bank signs). */
	private signed(name: string, inner: string): string {
		const xml = `<elem:${name} xmlns:elem="${ELEM}">${inner}</elem:${name}>`;
		return signRootById(xml, this.options.pki.bankSigningKeyPem, this.options.pki.bankSigningCertPem, this.answerAlgorithm);
	}

	private answer(operation: string, payload: Element | undefined, body: string): string {
		switch (operation) {
			case 'GetBankCertificate': {
				if (!payload || payload.localName !== 'GetBankCertificateRequest') throw new PkiError('07', 'Schema validation error.', 'GetBankCertificateRequest is required');
				const rootSerial = textOf(payload, 'BankRootCertificateSerialNo') ?? '';
				if (rootSerial !== serialOf(this.options.pki.caCertPem)) {
					throw new PkiError('09', 'Bank root certificate not found.', `No root certificate with serial number ${esc(rootSerial)}`);
				}
				const encryption = this.switches.foreignBankCertificate ? this.foreignCertPem : this.bankEncryptionCertPem;
				return this.signed(
					'GetBankCertificateResponse',
					'<elem:ReturnCode>00</elem:ReturnCode><elem:ReturnText>OK</elem:ReturnText>' +
						`<elem:BankEncryptionCert>${pemBody(encryption).replace(/\s+/g, '')}</elem:BankEncryptionCert>` +
						`<elem:BankSigningCert>${pemBody(this.options.pki.bankSigningCertPem).replace(/\s+/g, '')}</elem:BankSigningCert>` +
						`<elem:BankRootCert>${pemBody(this.options.pki.caCertPem).replace(/\s+/g, '')}</elem:BankRootCert>` +
						`<elem:RequestId>${esc(textOf(payload, 'RequestId') ?? '')}</elem:RequestId>`,
				);
			}
			case 'CreateCertificate':
			case 'RenewCertificate': {
				if (!payload || payload.namespaceURI !== XMLENC || payload.localName !== 'EncryptedData') {
					throw new PkiError('12', 'The request must be encrypted (XML Encryption EncryptedData).');
				}
				const plain = decryptWhole(rawElement(body, payload), this.bankEncryptionKeyPem).toString('utf8');
				const request = parseXml(plain, `${operation}Request`).documentElement as unknown as Element;
				if (request.localName !== `${operation}Request` || request.namespaceURI !== ELEM) throw new PkiError('07', 'Schema validation error.', `${operation}Request is required`);
				let renewing: IssuedPair | undefined;
				if (operation === 'CreateCertificate') {
					const pin = textOf(request, 'PIN') ?? '';
					const known = this.pins.get(pin);
					if (!known) throw new PkiError('31', 'Invalid PIN.');
					if (known.used) throw new PkiError('32', 'PIN already used.');
					known.used = true;
				} else {
					renewing = this.pairs.get(fingerprint(this.signer(plain)));
					if (!renewing || renewing.revoked || verifyEnvelopedSignature(plain, renewing.signingPem) !== 'valid') {
						throw new PkiError('18', 'Signature verification failed.', 'The renewal is not signed with a certificate this bank issued');
					}
					if (this.switches.refuseRenewal) {
						const refusal = this.switches.refuseRenewal;
						delete this.switches.refuseRenewal;
						throw new PkiError(refusal.code, refusal.text);
					}
				}
				const now = this.options.now();
				const notAfter = new Date(now.getTime() + this.lifetimeDays * DAY);
				const issue = (element: string, what: string): string => {
					const der = Buffer.from((textOf(request, element) ?? '').replace(/\s+/g, ''), 'base64');
					let publicKey;
					try {
						const csr = forge.pki.certificationRequestFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))));
						if (!csr.verify()) throw new Error('signature');
						publicKey = createPublicKey(forge.pki.publicKeyToPem(csr.publicKey as forge.pki.rsa.PublicKey));
					} catch {
						throw new PkiError('07', 'Schema validation error.', `${element} is not a valid PKCS#10 request`);
					}
					return issueCustomerCertificate(this.options.pki, { commonName: `${this.options.customerId} ${what}` }, publicKey, now, notAfter);
				};
				const signingPem = issue('SigningCertPKCS10', 'signing');
				const encryptionPem = issue('EncryptionCertPKCS10', 'encryption');
				if (renewing) renewing.revoked = false;
				this.pairs.set(fingerprint(signingPem), {
					signingPem,
					encryptionPem,
					signingSerial: serialOf(signingPem),
					encryptionSerial: serialOf(encryptionPem),
					notAfter,
					revoked: false,
				});
				const response = this.signed(
					`${operation}Response`,
					'<elem:ReturnCode>00</elem:ReturnCode><elem:ReturnText>OK</elem:ReturnText>' +
						`<elem:EncryptionCert>${pemBody(encryptionPem).replace(/\s+/g, '')}</elem:EncryptionCert>` +
						`<elem:SigningCert>${pemBody(signingPem).replace(/\s+/g, '')}</elem:SigningCert>` +
						`<elem:CACert>${pemBody(this.options.pki.caCertPem).replace(/\s+/g, '')}</elem:CACert>` +
						`<elem:RequestId>${esc(textOf(request, 'RequestId') ?? '')}</elem:RequestId>`,
				);
				// The answer is encrypted to the customer's new encryption certificate.
				return encryptWhole(Buffer.from(response, 'utf8'), encryptionPem);
			}
			case 'CertificateStatus':
			case 'GetOwnCertificateList': {
				if (!payload || payload.localName !== `${operation}Request`) throw new PkiError('07', 'Schema validation error.', `${operation}Request is required`);
				const xml = rawElement(body, payload);
				const pair = this.pairs.get(fingerprint(this.signer(xml)));
				if (!pair || verifyEnvelopedSignature(xml, pair.signingPem) !== 'valid') throw new PkiError('18', 'Signature verification failed.');
				const now = this.options.now();
				const asked = elements(payload).filter((e) => e.localName === 'CertificateSerialNo').map((e) => e.textContent?.trim() ?? '');
				const statusOf = (p: IssuedPair): string => {
					const forced = this.switches.status;
					const expiry = p.notAfter.toISOString().replace(/\.\d{3}Z$/, 'Z');
					const status = forced ?? (p.revoked ? 'revoked' : p.notAfter.getTime() <= now.getTime() ? 'expired' : p.notAfter.getTime() - 60 * DAY <= now.getTime() ? 'expires_soon' : 'good');
					return status === 'revoked' ? `<elem:revoked revocationDate="${now.toISOString().replace(/\.\d{3}Z$/, 'Z')}"/>` : `<elem:${status} expiryDate="${expiry}"/>`;
				};
				const entries: string[] = [];
				for (const p of this.pairs.values()) {
					for (const [serial, type, matching] of [
						[p.signingSerial, 'signing', p.encryptionSerial],
						[p.encryptionSerial, 'encryption', p.signingSerial],
					] as const) {
						if (operation === 'CertificateStatus' && !asked.includes(serial)) continue;
						entries.push(
							`<elem:CertificateStatus><elem:CertificateSerialNo>${serial}</elem:CertificateSerialNo><elem:CertificateType>${type}</elem:CertificateType>` +
								`<elem:MatchingCertificateSerialNo>${matching}</elem:MatchingCertificateSerialNo><elem:Status>${statusOf(p)}</elem:Status></elem:CertificateStatus>`,
						);
					}
				}
				if (operation === 'CertificateStatus' && !entries.length) throw new PkiError('21', 'Certificate not found.');
				return this.signed(
					`${operation}Response`,
					'<elem:ReturnCode>00</elem:ReturnCode><elem:ReturnText>OK</elem:ReturnText>' +
						entries.join('') +
						(operation === 'CertificateStatus' ? `<elem:Timestamp>${now.toISOString().replace(/\.\d{3}Z$/, 'Z')}</elem:Timestamp>` : '') +
						`<elem:RequestId>${esc(textOf(payload, 'RequestId') ?? '')}</elem:RequestId>`,
				);
			}
			default:
				throw new PkiError('07', 'Schema validation error.', `Unknown operation ${operation}`);
		}
	}

	/** The signing certificate a signed request names in its KeyInfo. */
	private signer(xml: string): string {
		const match = /<(?:[\w.-]+:)?X509Certificate>([^<]+)</.exec(xml);
		if (!match) throw new PkiError('18', 'Signature missing.');
		const body = match[1].replace(/\s+/g, '');
		for (const pair of this.pairs.values()) if (pemBody(pair.signingPem).replace(/\s+/g, '') === body) return pair.signingPem;
		throw new PkiError('18', 'Signature verification failed.', 'The signing certificate is not one this bank issued');
	}
}
