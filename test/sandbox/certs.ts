/**
 * Test PKI of the sandbox bank.
 *
 * Keys come from node:crypto; X.509 certificates are assembled here with a small DER
 * encoder and signed with node:crypto (sha256WithRSAEncryption), so no extra
 * dependency is needed. Everything is cached as one JSON bundle (plus readable PEM
 * files) in a directory so that later starts reuse the same material.
 */
import {
	createHash,
	createPrivateKey,
	createPublicKey,
	generateKeyPair,
	randomBytes,
	sign as cryptoSign,
	X509Certificate,
	type KeyObject,
} from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { tryLock, unlock } from '../helpers/lock';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Bump when the layout or content of the bundle changes. */
const BUNDLE_VERSION = 3;
const BUNDLE_FILE = 'sandbox-pki.json';

export const DEFAULT_CERT_DIR = join(tmpdir(), 'n8n-corporate-banking-sandbox-pki');

/** Passphrase of `clientKeyEncryptedPem`. Test material only. */
export const CLIENT_KEY_PASSPHRASE = 'sandbox-passphrase';

export interface SandboxPki {
	version: number;
	/** Host names and IP addresses the server certificate is valid for. */
	hosts: string[];
	caCertPem: string;
	caKeyPem: string;
	serverCertPem: string;
	serverKeyPem: string;
	clientCertPem: string;
	clientKeyPem: string;
	clientKeyEncryptedPem: string;
	clientKeyPassphrase: string;
	otherCaCertPem: string;
	otherCaClientCertPem: string;
	otherCaClientKeyPem: string;
	expiredClientCertPem: string;
	expiredClientKeyPem: string;
	customerSigningCertPem: string;
	customerSigningKeyPem: string;
	bankSigningCertPem: string;
	bankSigningKeyPem: string;
	/** RSA key pair signing the event SETs (PS256). */
	eventSigningKeyPem: string;
	eventSigningPublicKeyPem: string;
	/** A different RSA key, used to forge "bad signature" SETs under the real kid. */
	eventRogueKeyPem: string;
	/** Subject common name of the mutual-TLS client certificate. */
	clientCertCommonName: string;
}

/** PKI material the sandbox hands to tests under the same names (SandboxTls adds the two CA certificates). */
export const TLS_FIELDS = [
	'serverCertPem',
	'clientCertPem',
	'clientKeyPem',
	'clientKeyEncryptedPem',
	'clientKeyPassphrase',
	'otherCaClientCertPem',
	'otherCaClientKeyPem',
	'expiredClientCertPem',
	'expiredClientKeyPem',
	'customerSigningCertPem',
	'customerSigningKeyPem',
	'bankSigningCertPem',
	'bankSigningKeyPem',
	'eventSigningPublicKeyPem',
] as const;

export type TlsField = (typeof TLS_FIELDS)[number];

export function tlsFields(pki: SandboxPki): Pick<SandboxPki, TlsField> {
	return Object.fromEntries(TLS_FIELDS.map((field) => [field, pki[field]])) as Pick<SandboxPki, TlsField>;
}

// ---------------------------------------------------------------------------
// DER encoding
// ---------------------------------------------------------------------------

function derLength(length: number): Buffer {
	if (length < 0x80) return Buffer.from([length]);
	const bytes: number[] = [];
	let rest = length;
	while (rest > 0) {
		bytes.unshift(rest & 0xff);
		rest = Math.floor(rest / 256);
	}
	return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
	return Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
}

const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const derNull = (): Buffer => Buffer.from([0x05, 0x00]);
const octetString = (content: Buffer): Buffer => tlv(0x04, content);
const bitString = (content: Buffer): Buffer =>
	tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
const printableString = (text: string): Buffer => tlv(0x13, Buffer.from(text, 'ascii'));
const explicit = (n: number, content: Buffer): Buffer => tlv(0xa0 + n, content);
const derBoolean = (value: boolean): Buffer => Buffer.from([0x01, 0x01, value ? 0xff : 0x00]);

function derIntegerFromBytes(bytes: Buffer): Buffer {
	let start = 0;
	while (start < bytes.length - 1 && bytes[start] === 0) start++;
	let content = bytes.subarray(start);
	if (content[0] & 0x80) content = Buffer.concat([Buffer.from([0]), content]);
	return tlv(0x02, content);
}

const derSmallInteger = (value: number): Buffer => derIntegerFromBytes(Buffer.from([value]));

function oid(dotted: string): Buffer {
	const parts = dotted.split('.').map(Number);
	const bytes: number[] = [parts[0] * 40 + parts[1]];
	for (const part of parts.slice(2)) {
		const chunk: number[] = [part & 0x7f];
		let rest = Math.floor(part / 128);
		while (rest > 0) {
			chunk.unshift((rest & 0x7f) | 0x80);
			rest = Math.floor(rest / 128);
		}
		bytes.push(...chunk);
	}
	return tlv(0x06, Buffer.from(bytes));
}

function derTime(date: Date): Buffer {
	const iso = date.toISOString();
	const year = date.getUTCFullYear();
	const compact =
		iso.slice(0, 4) +
		iso.slice(5, 7) +
		iso.slice(8, 10) +
		iso.slice(11, 13) +
		iso.slice(14, 16) +
		iso.slice(17, 19) +
		'Z';
	// RFC 5280: UTCTime through 2049, GeneralizedTime from 2050.
	if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(compact.slice(2), 'ascii'));
	return tlv(0x18, Buffer.from(compact, 'ascii'));
}

const OID = {
	sha256WithRsa: '1.2.840.113549.1.1.11',
	commonName: '2.5.4.3',
	country: '2.5.4.6',
	organization: '2.5.4.10',
	organizationalUnit: '2.5.4.11',
	basicConstraints: '2.5.29.19',
	keyUsage: '2.5.29.15',
	extKeyUsage: '2.5.29.37',
	subjectAltName: '2.5.29.17',
	subjectKeyId: '2.5.29.14',
	authorityKeyId: '2.5.29.35',
	serverAuth: '1.3.6.1.5.5.7.3.1',
	clientAuth: '1.3.6.1.5.5.7.3.2',
};

interface DistinguishedName {
	commonName: string;
	organization?: string;
	organizationalUnit?: string;
	country?: string;
}

function encodeName(dn: DistinguishedName): Buffer {
	const rdns: Buffer[] = [];
	if (dn.country) rdns.push(set(seq(oid(OID.country), printableString(dn.country))));
	if (dn.organization) rdns.push(set(seq(oid(OID.organization), utf8String(dn.organization))));
	if (dn.organizationalUnit) {
		rdns.push(set(seq(oid(OID.organizationalUnit), utf8String(dn.organizationalUnit))));
	}
	rdns.push(set(seq(oid(OID.commonName), utf8String(dn.commonName))));
	return seq(...rdns);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
	return critical
		? seq(oid(id), derBoolean(true), octetString(value))
		: seq(oid(id), octetString(value));
}

/** KeyUsage bits, numbered as in RFC 5280 (0 = digitalSignature). */
function keyUsage(bits: number[]): Buffer {
	let value = 0;
	for (const bit of bits) value |= 1 << (15 - bit);
	const bytes = Buffer.from([(value >> 8) & 0xff, value & 0xff]);
	const used = bytes[1] === 0 ? bytes.subarray(0, 1) : bytes;
	let unused = 0;
	const last = used[used.length - 1];
	while (unused < 8 && ((last >> unused) & 1) === 0) unused++;
	return tlv(0x03, Buffer.concat([Buffer.from([unused === 8 ? 0 : unused]), used]));
}

function ipBytes(address: string): Buffer {
	if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
	// IPv6: expand '::'.
	const [head, tail] = address.split('::');
	const headParts = head ? head.split(':') : [];
	const tailParts = tail !== undefined && tail !== '' ? tail.split(':') : [];
	const missing = 8 - headParts.length - tailParts.length;
	const groups = [
		...headParts,
		...Array<string>(tail !== undefined ? missing : 0).fill('0'),
		...tailParts,
	];
	const out = Buffer.alloc(16);
	groups.forEach((group, index) => out.writeUInt16BE(parseInt(group || '0', 16), index * 2));
	return out;
}

function subjectAltName(hosts: string[]): Buffer {
	const names = hosts.map((host) =>
		isIP(host) ? tlv(0x87, ipBytes(host)) : tlv(0x82, Buffer.from(host, 'ascii')),
	);
	return seq(...names);
}

function keyIdentifier(publicKey: KeyObject): Buffer {
	const spki = publicKey.export({ type: 'spki', format: 'der' });
	return createHash('sha1').update(spki).digest();
}

interface CertificateRequest {
	subject: DistinguishedName;
	publicKey: KeyObject;
	issuer: DistinguishedName;
	issuerKey: KeyObject;
	issuerPublicKey: KeyObject;
	notBefore: Date;
	notAfter: Date;
	ca?: boolean;
	usage: 'ca' | 'server' | 'client' | 'signing';
	hosts?: string[];
}

function createCertificate(request: CertificateRequest): string {
	const algorithm = seq(oid(OID.sha256WithRsa), derNull());
	const serial = randomBytes(16);
	serial[0] &= 0x7f;
	const extensions: Buffer[] = [];
	if (request.usage === 'ca') {
		extensions.push(extension(OID.basicConstraints, true, seq(derBoolean(true))));
		extensions.push(extension(OID.keyUsage, true, keyUsage([5, 6])));
	} else {
		extensions.push(extension(OID.basicConstraints, true, seq()));
		if (request.usage === 'signing') {
			extensions.push(extension(OID.keyUsage, true, keyUsage([0, 1])));
		} else {
			extensions.push(extension(OID.keyUsage, true, keyUsage([0, 2])));
			const purpose = request.usage === 'server' ? OID.serverAuth : OID.clientAuth;
			extensions.push(extension(OID.extKeyUsage, false, seq(oid(purpose))));
		}
	}
	if (request.hosts && request.hosts.length > 0) {
		extensions.push(extension(OID.subjectAltName, false, subjectAltName(request.hosts)));
	}
	extensions.push(
		extension(OID.subjectKeyId, false, octetString(keyIdentifier(request.publicKey))),
	);
	extensions.push(
		extension(OID.authorityKeyId, false, seq(tlv(0x80, keyIdentifier(request.issuerPublicKey)))),
	);
	const tbs = seq(
		explicit(0, derSmallInteger(2)),
		derIntegerFromBytes(serial),
		algorithm,
		encodeName(request.issuer),
		seq(derTime(request.notBefore), derTime(request.notAfter)),
		encodeName(request.subject),
		request.publicKey.export({ type: 'spki', format: 'der' }),
		explicit(3, seq(...extensions)),
	);
	const signature = cryptoSign('sha256', tbs, request.issuerKey);
	const der = seq(tbs, algorithm, bitString(signature));
	const base64 = der
		.toString('base64')
		.replace(/(.{64})/g, '$1\n')
		.replace(/\n$/, '');
	return `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`;
}

// ---------------------------------------------------------------------------
// Generation and cache
// ---------------------------------------------------------------------------

async function rsaKey(): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
	return await generateKeyPairAsync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
}

const pkcs8 = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

const DAY = 24 * 60 * 60 * 1000;

const CA_NAME: DistinguishedName = {
	commonName: 'Sandbox Corporate Bank Test CA',
	organization: 'Sandbox Corporate Bank',
	country: 'FI',
};

export function defaultHosts(extra: string[] = []): string[] {
	const hosts = ['localhost', '127.0.0.1', '::1'];
	for (const host of extra) {
		if (host && host !== '0.0.0.0' && host !== '::' && !hosts.includes(host)) hosts.push(host);
	}
	return hosts;
}

async function generatePki(hosts: string[]): Promise<SandboxPki> {
	const [ca, server, client, otherCa, otherClient, expired, customer, bank, event, rogue] =
		await Promise.all(Array.from({ length: 10 }, async () => await rsaKey()));
	const now = Date.now();
	const notBefore = new Date(now - DAY);
	const caName = CA_NAME;
	const otherCaName: DistinguishedName = {
		commonName: 'Untrusted Test CA',
		organization: 'Somebody Else',
		country: 'SE',
	};
	const clientCommonName = 'sandbox-tpp-client';
	const issue = (
		subject: DistinguishedName,
		publicKey: KeyObject,
		usage: CertificateRequest['usage'],
		options: Partial<CertificateRequest> = {},
	): string =>
		createCertificate({
			subject,
			publicKey,
			issuer: caName,
			issuerKey: ca.privateKey,
			issuerPublicKey: ca.publicKey,
			notBefore,
			notAfter: new Date(now + 5 * 365 * DAY),
			usage,
			...options,
		});
	const caCertPem = issue(caName, ca.publicKey, 'ca', { notAfter: new Date(now + 10 * 365 * DAY) });
	const otherCaCertPem = createCertificate({
		subject: otherCaName,
		publicKey: otherCa.publicKey,
		issuer: otherCaName,
		issuerKey: otherCa.privateKey,
		issuerPublicKey: otherCa.publicKey,
		notBefore,
		notAfter: new Date(now + 10 * 365 * DAY),
		usage: 'ca',
	});
	return {
		version: BUNDLE_VERSION,
		hosts,
		caCertPem,
		caKeyPem: pkcs8(ca.privateKey),
		serverCertPem: issue(
			{ commonName: 'localhost', organization: 'Sandbox Corporate Bank' },
			server.publicKey,
			'server',
			{
				hosts,
			},
		),
		serverKeyPem: pkcs8(server.privateKey),
		clientCertPem: issue(
			{ commonName: clientCommonName, organization: 'Sandbox TPP' },
			client.publicKey,
			'client',
		),
		clientKeyPem: pkcs8(client.privateKey),
		clientKeyEncryptedPem: client.privateKey
			.export({
				type: 'pkcs8',
				format: 'pem',
				cipher: 'aes-256-cbc',
				passphrase: CLIENT_KEY_PASSPHRASE,
			})
			.toString(),
		clientKeyPassphrase: CLIENT_KEY_PASSPHRASE,
		otherCaCertPem,
		otherCaClientCertPem: createCertificate({
			subject: { commonName: clientCommonName, organization: 'Sandbox TPP' },
			publicKey: otherClient.publicKey,
			issuer: otherCaName,
			issuerKey: otherCa.privateKey,
			issuerPublicKey: otherCa.publicKey,
			notBefore,
			notAfter: new Date(now + 5 * 365 * DAY),
			usage: 'client',
		}),
		otherCaClientKeyPem: pkcs8(otherClient.privateKey),
		expiredClientCertPem: issue(
			{ commonName: clientCommonName, organization: 'Sandbox TPP' },
			expired.publicKey,
			'client',
			{
				notBefore: new Date(now - 2 * 365 * DAY),
				notAfter: new Date(now - 2 * DAY),
			},
		),
		expiredClientKeyPem: pkcs8(expired.privateKey),
		customerSigningCertPem: issue(
			{ commonName: '11111111', organization: 'Sandbox Customer Oy', country: 'FI' },
			customer.publicKey,
			'signing',
		),
		customerSigningKeyPem: pkcs8(customer.privateKey),
		bankSigningCertPem: issue(
			{
				commonName: 'File Transfer Web Services',
				organization: 'Sandbox Corporate Bank',
				country: 'FI',
			},
			bank.publicKey,
			'signing',
		),
		bankSigningKeyPem: pkcs8(bank.privateKey),
		eventSigningKeyPem: pkcs8(event.privateKey),
		eventSigningPublicKeyPem: event.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
		eventRogueKeyPem: pkcs8(rogue.privateKey),
		clientCertCommonName: clientCommonName,
	};
}

/** True when the cached bundle can be used as is (complete, current, valid for the hosts). */
function usable(pki: Partial<SandboxPki>, hosts: string[]): pki is SandboxPki {
	if (pki.version !== BUNDLE_VERSION || !pki.caCertPem || !pki.caKeyPem || !pki.serverCertPem)
		return false;
	if (!pki.eventSigningKeyPem || !pki.eventRogueKeyPem || !pki.clientKeyEncryptedPem) return false;
	if (!hosts.every((host) => pki.hosts?.includes(host))) return false;
	try {
		const horizon = Date.now() + 30 * DAY;
		for (const pem of [
			pki.caCertPem,
			pki.serverCertPem,
			pki.clientCertPem,
			pki.bankSigningCertPem,
			pki.customerSigningCertPem,
		]) {
			if (!pem) return false;
			if (new Date(new X509Certificate(pem).validTo).getTime() < horizon) return false;
		}
		createPrivateKey(pki.serverKeyPem ?? '');
		createPublicKey(pki.eventSigningPublicKeyPem ?? '');
		return true;
	} catch {
		return false;
	}
}

function writeFileAtomic(path: string, content: string): void {
	const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
	writeFileSync(temporary, content, { mode: 0o600 });
	renameSync(temporary, path);
}

const PEM_FILES: Array<[keyof SandboxPki, string]> = [
	['caCertPem', 'ca.crt'],
	['serverCertPem', 'server.crt'],
	['serverKeyPem', 'server.key'],
	['clientCertPem', 'client.crt'],
	['clientKeyPem', 'client.key'],
	['clientKeyEncryptedPem', 'client.encrypted.key'],
	['otherCaCertPem', 'other-ca.crt'],
	['otherCaClientCertPem', 'other-ca-client.crt'],
	['otherCaClientKeyPem', 'other-ca-client.key'],
	['expiredClientCertPem', 'expired-client.crt'],
	['expiredClientKeyPem', 'expired-client.key'],
	['customerSigningCertPem', 'customer-signing.crt'],
	['customerSigningKeyPem', 'customer-signing.key'],
	['bankSigningCertPem', 'bank-signing.crt'],
	['bankSigningKeyPem', 'bank-signing.key'],
	['eventSigningKeyPem', 'event-signing.key'],
	['eventSigningPublicKeyPem', 'event-signing.pub'],
];

const memo = new Map<string, Promise<SandboxPki>>();

function readBundle(path: string): Partial<SandboxPki> | undefined {
	if (!existsSync(path)) return undefined;
	try {
		return JSON.parse(readFileSync(path, 'utf8')) as Partial<SandboxPki>;
	} catch {
		return undefined;
	}
}

/** Issues a new server certificate (same key, same CA) covering more hosts. */
function widenServerCertificate(pki: SandboxPki, hosts: string[]): SandboxPki {
	const union = [...pki.hosts, ...hosts.filter((host) => !pki.hosts.includes(host))];
	const caKey = createPrivateKey(pki.caKeyPem);
	const caCert = new X509Certificate(pki.caCertPem);
	const serverKey = createPrivateKey(pki.serverKeyPem);
	const now = Date.now();
	const serverCertPem = createCertificate({
		subject: { commonName: 'localhost', organization: 'Sandbox Corporate Bank' },
		publicKey: createPublicKey(serverKey),
		issuer: CA_NAME,
		issuerKey: caKey,
		issuerPublicKey: caCert.publicKey,
		notBefore: new Date(now - DAY),
		notAfter: new Date(now + 5 * 365 * DAY),
		usage: 'server',
		hosts: union,
	});
	return { ...pki, hosts: union, serverCertPem };
}

/** True when everything but the host list of the server certificate can be reused. */
function reusableExceptHosts(pki: Partial<SandboxPki>): pki is SandboxPki {
	return usable({ ...pki, hosts: pki.hosts ?? [] }, []);
}

const LOCK_FILE = 'sandbox-pki.lock';
const LOCK_STALE_MS = 60_000;

/** Runs `work` holding a lock file in `dir`, so that parallel processes generate the PKI once. */
async function withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	const lockPath = join(dir, LOCK_FILE);
	const deadline = Date.now() + 2 * LOCK_STALE_MS;
	while (!tryLock(lockPath, LOCK_STALE_MS)) {
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockPath}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	try {
		return await work();
	} finally {
		unlock(lockPath);
	}
}

function store(dir: string, pki: SandboxPki): void {
	for (const [field, file] of PEM_FILES) writeFileAtomic(join(dir, file), String(pki[field]));
	writeFileAtomic(join(dir, BUNDLE_FILE), JSON.stringify(pki, null, '\t'));
}

/**
 * Loads the PKI from `certDir` (default: a fixed folder under the OS temp dir) or
 * generates and stores it there. Calls in one process share one promise per folder;
 * parallel processes coordinate through a lock file. A cached PKI that lacks a host
 * only gets a new server certificate (the CA and all other material stay).
 */
export async function loadOrCreatePki(
	certDir?: string,
	extraHosts: string[] = [],
): Promise<SandboxPki> {
	const dir = certDir ?? DEFAULT_CERT_DIR;
	const hosts = defaultHosts(extraHosts);
	const key = `${dir}|${hosts.join(',')}`;
	let pending = memo.get(key);
	if (!pending) {
		pending = (async () => {
			const bundlePath = join(dir, BUNDLE_FILE);
			const cached = readBundle(bundlePath);
			if (cached && usable(cached, hosts)) return cached;
			return await withLock(dir, async () => {
				const current = readBundle(bundlePath);
				if (current && usable(current, hosts)) return current;
				const pki =
					current && reusableExceptHosts(current)
						? widenServerCertificate(current, hosts)
						: await generatePki(hosts);
				store(dir, pki);
				return pki;
			});
		})();
		memo.set(key, pending);
		pending.catch(() => memo.delete(key));
	}
	return await pending;
}

/** SHA-256 fingerprint (hex, lower case) of a PEM or DER certificate. */
export function certificateFingerprint(cert: string | Buffer): string {
	const der = typeof cert === 'string' ? new X509Certificate(cert).raw : cert;
	return createHash('sha256').update(der).digest('hex');
}

/** Base64 DER body of a PEM certificate (for XML-DSig X509Certificate). */
export function pemBody(pem: string): string {
	return pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
}

/**
 * Issues a customer signing certificate from the sandbox CA for a public key (the certificate
 * service's GetCertificate and RenewCertificate). Test material only.
 */
export function issueCustomerCertificate(
	pki: Pick<SandboxPki, 'caKeyPem' | 'caCertPem'>,
	subject: { commonName: string; country?: string },
	publicKey: KeyObject,
	notBefore: Date,
	notAfter: Date,
): string {
	const ca = new X509Certificate(pki.caCertPem);
	const caKey = createPrivateKey(pki.caKeyPem);
	return createCertificate({
		subject: { commonName: subject.commonName, organization: 'Sandbox Customer Oy', country: subject.country ?? 'FI' },
		publicKey,
		issuer: CA_NAME,
		issuerKey: caKey,
		issuerPublicKey: ca.publicKey,
		notBefore,
		notAfter,
		usage: 'signing',
	});
}
