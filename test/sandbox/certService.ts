/**
 * The sandbox bank's certificate services, one per dialect of the bxd family (Nordea, OP,
 * Samlink), at /services/CertificateService/{nordea,op,samlink}. Each keeps its own one-time
 * PINs (right, already used, expired; anything else is wrong), checks the PIN the way its bank
 * does (Nordea: HMAC-SHA1 of the PKCS#10 request keyed with the PIN; OP and Samlink:
 * TransferKey), checks RenewCertificate's signature against the certificates it issued, and issues
 * real certificates from the sandbox CA. Answers come in each bank's public shape (namespaces,
 * prefixes, Samlink's PEM-in-base64 and one-digit codes). Each signs its answers as the public
 * record shows, RSA-SHA1 (sepafm test/sepa/banks/nordea/responses/gc.xml, samlink/responses/rc.xml;
 * OP's in pankkiyhteys test/data/CertApplicationResponse.xml and GetCertificateResponse.xml), and
 * `answerAlgorithms` switches each to RSA-SHA256, or (OP, which sepafm's op_response.rb also
 * meets unsigned) to no signature. A clock offset and a certificate lifetime let tests reach
 * renewal windows; switches make it refuse a request, a renewal, or answer a broken certificate.
 */
import { createHash, createHmac, createPublicKey, generateKeyPairSync, randomInt, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import forge from 'node-forge';

import type { SandboxPki } from './certs';
import { issueCustomerCertificate, pemBody } from './certs';
import type { RequestContext } from './http';
import { readBody, send } from './http';
import { signApplicationRequest, verifyEnvelopedSignature } from './xmldsig';

export type CertDialect = 'nordea' | 'op' | 'samlink';
export const CERT_DIALECTS: CertDialect[] = ['nordea', 'op', 'samlink'];
export const CERT_SERVICE_PATH = '/services/CertificateService';

const NS: Record<CertDialect, { service: string; data: string }> = {
	nordea: { service: 'http://bxd.fi/CertificateService', data: 'http://filetransfer.nordea.com/xmldata/' },
	op: { service: 'http://mlp.op.fi/OPCertificateService', data: 'http://op.fi/mlp/xmldata/' },
	samlink: { service: 'http://mlp.op.fi/OPCertificateService', data: 'http://op.fi/mlp/xmldata/' },
};
const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const DAY = 24 * 60 * 60 * 1000;

interface Pin {
	dialect: CertDialect;
	used: boolean;
	expiresAt: number;
}

interface Issued {
	dialect: CertDialect;
	pem: string;
	fingerprint: string;
	notAfter: Date;
	superseded: boolean;
}

/** How a certificate service signs its answers. */
export type CertAnswerAlgorithm = 'sha1' | 'sha256' | 'unsigned';

/** As the public record shows: every service signs with RSA-SHA1 (see the file's comment). */
export const DEFAULT_ANSWER_ALGORITHMS: Readonly<Record<CertDialect, CertAnswerAlgorithm>> = {
	nordea: 'sha1',
	op: 'sha1',
	samlink: 'sha1',
};

export interface CertServiceRecord {
	dialect: CertDialect;
	command?: string;
	/** Whether the request carried a one-time PIN (GetCertificate's HMAC or TransferKey). */
	carriedPin: boolean;
	responseCode: string;
	/** Fingerprint (SHA-256, hex) of the certificate issued, when one was. */
	issued?: string;
}

/** One-shot behaviours for tests. */
export interface CertServiceSwitches {
	/** Refuse the next certificate request (CSR) with this code and text. */
	rejectCsr?: { code: string; text: string };
	/** Refuse the next RenewCertificate with this code and text. */
	refuseRenewal?: { code: string; text: string };
	/** Answer the next GetCertificate/RenewCertificate with a broken certificate. */
	brokenCertificate?: 'otherKey' | 'truncated' | 'pkcs7';
	/** Change the next answer after signing, so its signature no longer verifies. */
	answerSignature?: 'tampered';
	/** Issue the next certificate under the CA's name but signed with another key (a forgery). */
	forgedIssuer?: boolean;
	/** Take the next request (a PIN is used) and close the connection without answering. */
	dropAfterRequest?: boolean;
}

export interface SandboxCertServiceOptions {
	pki: Pick<SandboxPki, 'caCertPem' | 'caKeyPem' | 'bankSigningCertPem' | 'bankSigningKeyPem' | 'customerSigningCertPem'>;
	senderId: string;
	customerId: string;
	now: () => Date;
}

function fingerprintOf(pem: string): string {
	return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}

function newPinText(dialect: CertDialect): string {
	const length = dialect === 'nordea' ? 10 : 16;
	let pin = '';
	while (pin.length < length) pin += String(randomInt(0, 10));
	return pin;
}

class CertRequestError extends Error {
	constructor(
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

export class SandboxCertService {
	private readonly pins = new Map<string, Pin>();
	private readonly issued = new Map<string, Issued>();
	/** Shifts the service's clock (issue times, PIN expiry); tests move it to reach renewal windows. */
	clockOffsetMs = 0;
	/** Lifetime of issued certificates, in days. */
	validityDays = 730;
	readonly switches: CertServiceSwitches = {};
	/** How each service signs its answers (kept until reset). */
	readonly answerAlgorithms: Record<CertDialect, CertAnswerAlgorithm> = { ...DEFAULT_ANSWER_ALGORITHMS };
	readonly records: CertServiceRecord[] = [];

	constructor(private readonly options: SandboxCertServiceOptions) {}

	private now(): Date {
		return new Date(this.options.now().getTime() + this.clockOffsetMs);
	}

	/** A fresh one-time PIN for a dialect (valid 30 days, or already expired). */
	newPin(dialect: CertDialect, options: { expired?: boolean } = {}): string {
		const pin = newPinText(dialect);
		const now = this.now().getTime();
		this.pins.set(`${dialect}:${pin}`, { dialect, used: false, expiresAt: options.expired ? now - DAY : now + 30 * DAY });
		return pin;
	}

	/** A PIN the bank has already accepted once. */
	usedPin(dialect: CertDialect): string {
		const pin = this.newPin(dialect);
		this.pins.get(`${dialect}:${pin}`)!.used = true;
		return pin;
	}

	/** One PIN of each kind per dialect, for people trying the sandbox (`npm run sandbox` prints them). */
	demoPins(): Record<CertDialect, { pin: string; used: string; expired: string }> {
		const out = {} as Record<CertDialect, { pin: string; used: string; expired: string }>;
		for (const dialect of CERT_DIALECTS) out[dialect] = { pin: this.newPin(dialect), used: this.usedPin(dialect), expired: this.newPin(dialect, { expired: true }) };
		return out;
	}

	/** Certificates the file service accepts signatures from: the fixed test one and every one issued and not expired. */
	trustedCertificates(): string[] {
		const now = this.options.now().getTime();
		return [this.options.pki.customerSigningCertPem, ...[...this.issued.values()].filter((c) => c.notAfter.getTime() > now).map((c) => c.pem)];
	}

	/** The trusted certificate a document's KeyInfo names (the fixed test certificate when it names none we know). */
	certificateFor(documentText: string): string {
		const match = /<(?:[\w.-]+:)?X509Certificate>([^<]+)</.exec(documentText);
		if (match) {
			const body = match[1].replace(/\s+/g, '');
			const found = this.trustedCertificates().find((pem) => pemBody(pem).replace(/\s+/g, '') === body);
			if (found) return found;
		}
		return this.options.pki.customerSigningCertPem;
	}

	issuedCertificate(fingerprint: string): Issued | undefined {
		return this.issued.get(fingerprint);
	}

	/** Clears records, switches and the clock; PINs handed out and certificates issued stay valid (a credential may hold them). */
	reset(): void {
		this.records.length = 0;
		this.clockOffsetMs = 0;
		this.validityDays = 730;
		for (const key of Object.keys(this.switches) as Array<keyof CertServiceSwitches>) delete this.switches[key];
		Object.assign(this.answerAlgorithms, DEFAULT_ANSWER_ALGORITHMS);
	}

	/** Sets how the services sign their answers; the values are checked (an admin request's). */
	setAnswerAlgorithms(values: Record<string, unknown>): Record<CertDialect, CertAnswerAlgorithm> {
		for (const [dialect, value] of Object.entries(values)) {
			if (!(CERT_DIALECTS as string[]).includes(dialect)) throw new Error(`Unknown certificate service ${dialect}: nordea, op or samlink.`);
			if (value !== 'sha1' && value !== 'sha256' && !(value === 'unsigned' && dialect === 'op')) throw new Error(`${dialect}: sha1 or sha256${dialect === 'op' ? ' or unsigned' : ''}.`);
		}
		Object.assign(this.answerAlgorithms, values);
		return { ...this.answerAlgorithms };
	}

	async handle(ctx: RequestContext, dialect: CertDialect): Promise<void> {
		if (ctx.req.method !== 'POST') {
			this.fault(ctx, 405, 'Use POST (SOAP 1.1).');
			return;
		}
		const body = await readBody(ctx.req, 1024 * 1024);
		let parsed;
		try {
			parsed = this.parse(body.toString('utf8'), dialect);
		} catch (error) {
			this.fault(ctx, 500, (error as Error).message);
			return;
		}
		const record: CertServiceRecord = { dialect, command: parsed.command, carriedPin: !!(parsed.hmac || parsed.transferKey), responseCode: '00' };
		this.records.push(record);
		let certificates: Array<{ name: string; pem: string }> = [];
		let code = '00';
		let text = 'OK';
		try {
			certificates = this.run(dialect, parsed, record);
		} catch (error) {
			if (!(error instanceof CertRequestError)) throw error;
			code = error.code;
			text = error.message;
		}
		record.responseCode = code;
		if (this.switches.dropAfterRequest) {
			delete this.switches.dropAfterRequest;
			ctx.req.socket.destroy();
			return;
		}
		const xml = this.renderSoap(dialect, parsed.operation, parsed.requestId, code, text, this.renderApplicationResponse(dialect, code, text, certificates));
		send(ctx, 200, { 'content-type': 'text/xml; charset=utf-8' }, xml);
	}

	private fault(ctx: RequestContext, status: number, message: string): void {
		send(
			ctx,
			status,
			{ 'content-type': 'text/xml; charset=utf-8' },
			`<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_NS}"><soapenv:Body><soapenv:Fault><faultcode>soapenv:Client</faultcode><faultstring>${message.replace(/[<&]/g, '')}</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>`,
		);
	}

	private parse(text: string, dialect: CertDialect) {
		if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('DOCTYPE refused.');
		const doc = new DOMParser({ errorHandler: () => undefined }).parseFromString(text, 'text/xml') as unknown as Document;
		const body = doc.getElementsByTagNameNS(SOAP_NS, 'Body')[0];
		const operationElement = body ? Array.from(body.childNodes).find((n) => n.nodeType === 1) as Element | undefined : undefined;
		if (!operationElement) throw new Error('No SOAP Body.');
		if (operationElement.namespaceURI !== NS[dialect].service) throw new Error(`Unknown namespace ${operationElement.namespaceURI}; this service speaks ${NS[dialect].service}.`);
		const operation = operationElement.localName.replace(/in$/, '');
		if (operation !== 'getCertificate' && !(operation === 'getServiceCertificates' && dialect !== 'samlink')) throw new Error(`Unknown operation ${operationElement.localName}.`);
		const headerText = (name: string) => operationElement.getElementsByTagNameNS(NS[dialect].service, name)[0]?.textContent?.trim() ?? '';
		if (headerText('SenderId') !== this.options.senderId) throw new Error('SenderId not found.');
		const encoded = headerText('ApplicationRequest');
		const arText = Buffer.from(encoded, 'base64').toString('utf8');
		const ar = new DOMParser({ errorHandler: () => undefined }).parseFromString(arText, 'text/xml') as unknown as Document;
		const root = ar.documentElement;
		if (!root || root.localName !== 'CertApplicationRequest' || root.namespaceURI !== NS[dialect].data) {
			throw new Error(`ApplicationRequest must be a {${NS[dialect].data}}CertApplicationRequest.`);
		}
		const field = (name: string) => {
			for (let n = root.firstChild; n; n = n.nextSibling) if (n.nodeType === 1 && (n as Element).localName === name) return (n as Element).textContent?.trim() ?? '';
			return undefined;
		};
		return {
			operation,
			requestId: headerText('RequestId'),
			command: field('Command') ?? (operation === 'getServiceCertificates' ? 'GetServiceCertificates' : 'GetCertificate'),
			customerId: field('CustomerId'),
			content: field('Content'),
			hmac: field('HMAC'),
			transferKey: field('TransferKey'),
			service: field('Service'),
			signed: ar.getElementsByTagNameNS(DSIG_NS, 'Signature').length > 0,
			arText,
		};
	}

	private run(dialect: CertDialect, request: ReturnType<SandboxCertService['parse']>, record: CertServiceRecord): Array<{ name: string; pem: string }> {
		if (request.customerId !== this.options.customerId) throw new CertRequestError('13', 'CustomerId not found.');
		if (request.command === 'GetServiceCertificates') {
			return [
				{ name: 'Sandbox Corporate Bank signing certificate', pem: this.options.pki.bankSigningCertPem },
				{ name: 'Sandbox Corporate Bank Test CA', pem: this.options.pki.caCertPem },
			];
		}
		if (!request.content) throw new CertRequestError('12', 'Content (the certificate request) is missing.');
		const csrDer = Buffer.from(request.content.replace(/\s+/g, ''), 'base64');
		let renewing: Issued | undefined;
		if (request.command === 'RenewCertificate') {
			if (!request.signed) throw new CertRequestError('18', 'RenewCertificate must be signed with the current certificate.');
			const signer = this.certificateFor(request.arText);
			const known = this.issued.get(fingerprintOf(signer));
			if (!known || known.dialect !== dialect || verifyEnvelopedSignature(request.arText, signer) !== 'valid') {
				throw new CertRequestError('18', 'The signature of the renewal does not verify with a certificate this service issued.');
			}
			if (this.switches.refuseRenewal) {
				const refusal = this.switches.refuseRenewal;
				delete this.switches.refuseRenewal;
				throw new CertRequestError(refusal.code, refusal.text);
			}
			renewing = known;
		} else if (request.command === 'GetCertificate') {
			this.checkPin(dialect, request, csrDer);
		} else {
			throw new CertRequestError('05', `Unknown command ${request.command}.`);
		}
		if (this.switches.rejectCsr) {
			const rejection = this.switches.rejectCsr;
			delete this.switches.rejectCsr;
			throw new CertRequestError(rejection.code, rejection.text);
		}
		let publicKeyPem: string;
		let commonName: string;
		try {
			const csr = forge.pki.certificationRequestFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(csrDer.toString('binary'))));
			if (!csr.verify()) throw new Error('its signature does not verify');
			publicKeyPem = forge.pki.publicKeyToPem(csr.publicKey as forge.pki.rsa.PublicKey);
			if ((csr.publicKey as forge.pki.rsa.PublicKey).n.bitLength() < 2048) throw new Error('the RSA key is shorter than 2048 bits');
			commonName = String(csr.subject.getField('CN')?.value ?? this.options.customerId);
		} catch (error) {
			throw new CertRequestError('12', `Certificate request rejected: ${(error as Error).message.replace(/^Cannot read .*/, 'not a PKCS#10 request')}.`);
		}
		const now = this.now();
		const issuer = this.switches.forgedIssuer ? { ...this.options.pki, caKeyPem: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() } : this.options.pki;
		delete this.switches.forgedIssuer;
		let pem = issueCustomerCertificate(issuer, { commonName }, createPublicKey(publicKeyPem), new Date(now.getTime() - 60 * 60 * 1000), new Date(now.getTime() + this.validityDays * DAY));
		const broken = this.switches.brokenCertificate;
		delete this.switches.brokenCertificate;
		if (broken === 'otherKey') {
			const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
			pem = issueCustomerCertificate(this.options.pki, { commonName }, other, now, new Date(now.getTime() + this.validityDays * DAY));
		}
		const fingerprint = fingerprintOf(pem);
		if (renewing) renewing.superseded = true;
		this.issued.set(fingerprint, { dialect, pem, fingerprint, notAfter: new Date(new X509Certificate(pem).validTo), superseded: false });
		record.issued = fingerprint;
		if (broken === 'truncated') return [{ name: commonName, pem: `-----BEGIN CERTIFICATE-----\n${pemBody(pem).slice(0, 300)}` }];
		if (broken === 'pkcs7') return [{ name: commonName, pem: `-----BEGIN PKCS7-----\n${pemBody(pem)}\n-----END PKCS7-----\n` }];
		return [{ name: `CN=${commonName}, O=Sandbox Customer Oy, C=FI`, pem }];
	}

	private checkPin(dialect: CertDialect, request: ReturnType<SandboxCertService['parse']>, csrDer: Buffer): void {
		let key: string | undefined;
		if (dialect === 'nordea') {
			if (!request.hmac) throw new CertRequestError('30', 'HMAC is missing: prove the activation code with an HMAC of the request.');
			key = [...this.pins.keys()].find((k) => {
				const [d, pin] = k.split(':');
				return d === dialect && createHmac('sha1', pin).update(csrDer).digest('base64') === request.hmac;
			});
		} else {
			if (dialect === 'op' && request.service !== 'MATU') throw new CertRequestError('12', 'Service must be MATU.');
			if (!request.transferKey) throw new CertRequestError('30', 'TransferKey is missing.');
			key = this.pins.has(`${dialect}:${request.transferKey}`) ? `${dialect}:${request.transferKey}` : undefined;
		}
		const pin = key ? this.pins.get(key) : undefined;
		if (!pin) throw new CertRequestError('30', 'Authentication failed: the PIN (transfer key) is not valid.');
		if (pin.used) throw new CertRequestError('30', 'Authentication failed: the PIN (transfer key) has already been used.');
		if (pin.expiresAt <= this.now().getTime()) throw new CertRequestError('30', 'Authentication failed: the PIN (transfer key) has expired.');
		pin.used = true;
	}

	private renderApplicationResponse(dialect: CertDialect, code: string, text: string, certificates: Array<{ name: string; pem: string }>): string {
		const now = this.now().toISOString();
		const certificateContent = (pem: string) =>
			// Samlink puts the PEM text in base64 (sepafm samlink rc.xml); Nordea and OP the DER.
			dialect === 'samlink' ? Buffer.from(pem, 'latin1').toString('base64') : /-----END CERTIFICATE-----/.test(pem) ? pemBody(pem).replace(/\s+/g, '') : Buffer.from(pem, 'latin1').toString('base64');
		if (dialect === 'nordea') {
			const certs = certificates.length
				? `<bxd:Certificates>${certificates.map((c) => `<bxd:Certificate><bxd:Name>${c.name}</bxd:Name><bxd:Certificate>${certificateContent(c.pem)}</bxd:Certificate><bxd:CertificateFormat>X509v3</bxd:CertificateFormat></bxd:Certificate>`).join('')}</bxd:Certificates>`
				: '';
			const xml = `<bxd:CertApplicationResponse xmlns:bxd="${NS.nordea.data}"><bxd:CustomerId>${this.options.customerId}</bxd:CustomerId><bxd:Timestamp>${now}</bxd:Timestamp><bxd:ResponseCode>${code}</bxd:ResponseCode><bxd:ResponseText>${text}</bxd:ResponseText>${certs}</bxd:CertApplicationResponse>`;
			return this.signAnswer(dialect, xml);
		}
		if (dialect === 'samlink') {
			const certs = certificates.length
				? `<Certificates xmlns="${NS.samlink.data}">${certificates.map((c) => `<Certificate><Name>${c.name}</Name><Certificate>${certificateContent(c.pem)}</Certificate><CertificateFormat>X509</CertificateFormat></Certificate>`).join('')}</Certificates>`
				: '';
			const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<ns2:CertApplicationResponse xmlns:ns2="${NS.samlink.data}"><ns2:CustomerId>${this.options.customerId}</ns2:CustomerId><Timestamp xmlns="${NS.samlink.data}">${now}</Timestamp><ResponseCode xmlns="${NS.samlink.data}">${code === '00' ? '0' : code}</ResponseCode><ResponseText xmlns="${NS.samlink.data}">${text}</ResponseText>${certs}</ns2:CertApplicationResponse>`;
			return this.signAnswer(dialect, xml);
		}
		// OP: default namespace, signed as pankkiyhteys test/data/CertApplicationResponse.xml shows
		// (or unsigned, as sepafm lib/sepa/banks/op/op_response.rb meets them).
		const certs = certificates.length
			? `<Certificates>${certificates.map((c) => `<Certificate><Name>${c.name}</Name><Certificate>${certificateContent(c.pem)}</Certificate><CertificateFormat>X509v3</CertificateFormat></Certificate>`).join('')}</Certificates>`
			: '';
		return this.signAnswer(
			dialect,
			`<?xml version="1.0" encoding="UTF-8"?><CertApplicationResponse xmlns="${NS.op.data}"><CustomerId>${this.options.customerId}</CustomerId><Timestamp>${now}</Timestamp><ResponseCode>${code}</ResponseCode><ResponseText>${text}</ResponseText><Compressed>false</Compressed>${certs}</CertApplicationResponse>`,
		);
	}

	/** The bank's signature on a CertApplicationResponse, in the service's algorithm and as the switches want it. */
	private signAnswer(dialect: CertDialect, xml: string): string {
		const tampered = this.switches.answerSignature === 'tampered';
		delete this.switches.answerSignature;
		const algorithm = this.answerAlgorithms[dialect];
		if (algorithm === 'unsigned') return xml;
		const signed = signApplicationRequest(xml, this.options.pki.bankSigningKeyPem, this.options.pki.bankSigningCertPem, algorithm);
		return tampered ? signed.replace(/<CustomerId|<bxd:CustomerId|<ns2:CustomerId/, (open) => `${open} data-changed="after signing"`) : signed;
	}

	private renderSoap(dialect: CertDialect, operation: string, requestId: string, code: string, text: string, applicationResponse: string): string {
		const headerCode = dialect === 'samlink' && code === '00' ? '0' : code;
		return (
			`<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_NS}" xmlns:cer="${NS[dialect].service}"><soapenv:Header/><soapenv:Body>` +
			`<cer:${operation}out><cer:ResponseHeader><cer:SenderId>${this.options.senderId}</cer:SenderId><cer:RequestId>${requestId}</cer:RequestId>` +
			`<cer:Timestamp>${this.now().toISOString()}</cer:Timestamp><cer:ResponseCode>${headerCode}</cer:ResponseCode><cer:ResponseText>${text}</cer:ResponseText></cer:ResponseHeader>` +
			`<cer:ApplicationResponse>${Buffer.from(applicationResponse, 'utf8').toString('base64')}</cer:ApplicationResponse></cer:${operation}out></soapenv:Body></soapenv:Envelope>`
		);
	}
}
