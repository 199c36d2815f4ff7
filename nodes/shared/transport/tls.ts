import { createHash, createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';

/** The TLS material n8n's request helpers accept as `agentOptions`. */
export interface ClientTlsOptions {
	ca?: string;
	cert?: string;
	key?: string;
	passphrase?: string;
	rejectUnauthorized?: boolean;
	/**
	 * The same material as a ready TLS context. n8n opens a new connection for every request;
	 * handing it a context built once spares parsing the CA, certificate and key each time.
	 */
	secureContext?: SecureContext;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * Repairs PEM text that lost its line breaks on the way into a form field: pasted on one line,
 * with literal "\n" sequences, or with spaces instead of newlines. Several blocks (a chain or a
 * CA bundle) are kept in order. Returns '' for empty input.
 */
export function normalizePem(input: unknown): string {
	if (typeof input !== 'string') return '';
	const text = input
		.replace(/\\r\\n|\\n|\\r/g, '\n')
		.replace(/\r\n?/g, '\n')
		.trim();
	if (!text) return '';
	const blocks: string[] = [];
	for (const match of text.matchAll(PEM_BLOCK)) {
		const label = match[1];
		let body = match[2];
		const headers: string[] = [];
		// Encrypted traditional keys carry "Proc-Type:" and "DEK-Info:" header lines.
		body = body.replace(/(Proc-Type:\s*[^\s]+|DEK-Info:\s*[^\s]+)/g, (h) => {
			headers.push(h.replace(/:\s*/, ': '));
			return ' ';
		});
		const base64 = body.replace(/[^A-Za-z0-9+/=]/g, '');
		const lines = base64.match(/.{1,64}/g) ?? [];
		const head = headers.length ? `${headers.join('\n')}\n\n` : '';
		blocks.push(`-----BEGIN ${label}-----\n${head}${lines.join('\n')}\n-----END ${label}-----`);
	}
	return blocks.length ? `${blocks.join('\n')}\n` : text;
}

export class TlsConfigError extends Error {
	constructor(
		readonly field: string,
		message: string,
	) {
		super(message);
		this.name = 'TlsConfigError';
	}
}

function readCertificate(pem: string): X509Certificate | undefined {
	try {
		return new X509Certificate(pem);
	} catch {
		return undefined;
	}
}

function readPrivateKey(pem: string, passphrase: string): { key?: KeyObject; reason?: string } {
	try {
		return {
			key: createPrivateKey({ key: pem, format: 'pem', passphrase: passphrase || undefined }),
		};
	} catch (error) {
		return { reason: (error as Error).message ?? '' };
	}
}

/** The PEM certificate blocks of a text, in order. */
export function pemCertificates(pem: string): string[] {
	return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
}

function certificates(pem: string, field: string): X509Certificate[] {
	const blocks = pemCertificates(pem);
	if (!blocks.length) {
		throw new TlsConfigError(
			field,
			`${field}: not a PEM certificate (expected "-----BEGIN CERTIFICATE-----")`,
		);
	}
	return blocks.map((block) => {
		const cert = readCertificate(block);
		if (!cert) throw new TlsConfigError(field, `${field}: the PEM certificate cannot be read`);
		return cert;
	});
}

export interface TlsFieldValues {
	caCertificate?: unknown;
	certificate?: unknown;
	privateKey?: unknown;
	passphrase?: unknown;
	allowUnauthorizedCerts?: unknown;
}

export interface TlsFieldNames {
	ca: string;
	cert: string;
	key: string;
	passphrase: string;
}

const DEFAULT_NAMES: TlsFieldNames = {
	ca: 'CA Certificate',
	cert: 'Client Certificate',
	key: 'Private Key',
	passphrase: 'Passphrase',
};

/**
 * Builds `agentOptions` from credential fields, checking each before any connection is made:
 * PEM syntax, that the passphrase opens the key, that the certificate matches the key and has
 * not expired. Errors name the credential field and the rule.
 */
export function buildTlsOptions(
	values: TlsFieldValues,
	names: TlsFieldNames = DEFAULT_NAMES,
	now: Date = new Date(),
): ClientTlsOptions | undefined {
	// The same material is checked once a minute at most: parsing keys on every request costs time.
	const key = createHash('sha256')
		.update(
			JSON.stringify([
				values.caCertificate,
				values.certificate,
				values.privateKey,
				values.passphrase,
				values.allowUnauthorizedCerts,
				names,
			]),
		)
		.digest('hex');
	const cached = checked.get(key);
	if (cached && now.getTime() - cached.at < 60_000 && now.getTime() >= cached.at)
		return cached.options;
	const options = checkTlsOptions(values, names, now);
	if (checked.size > 100) checked.clear();
	checked.set(key, { at: now.getTime(), options });
	return options;
}

const checked = new Map<string, { at: number; options: ClientTlsOptions | undefined }>();

function checkTlsOptions(
	values: TlsFieldValues,
	names: TlsFieldNames,
	now: Date,
): ClientTlsOptions | undefined {
	const options: ClientTlsOptions = {};
	const ca = normalizePem(values.caCertificate);
	if (ca) {
		certificates(ca, names.ca);
		options.ca = ca;
	}
	const cert = normalizePem(values.certificate);
	const keyPem = normalizePem(values.privateKey);
	const passphrase = typeof values.passphrase === 'string' ? values.passphrase : '';
	if (cert || keyPem) {
		if (!cert)
			throw new TlsConfigError(names.cert, `${names.cert}: required when a ${names.key} is set`);
		if (!keyPem)
			throw new TlsConfigError(names.key, `${names.key}: required when a ${names.cert} is set`);
		const [leaf] = certificates(cert, names.cert);
		if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(keyPem)) {
			throw new TlsConfigError(
				names.key,
				`${names.key}: not a PEM private key (expected "-----BEGIN PRIVATE KEY-----")`,
			);
		}
		const { key, reason = '' } = readPrivateKey(keyPem, passphrase);
		if (!key) {
			const encrypted = /ENCRYPTED/.test(keyPem);
			if (encrypted && !passphrase) {
				throw new TlsConfigError(
					names.passphrase,
					`${names.passphrase}: the ${names.key} is encrypted and needs its passphrase`,
				);
			}
			if (encrypted || /bad decrypt|passphrase/i.test(reason)) {
				throw new TlsConfigError(
					names.passphrase,
					`${names.passphrase}: wrong passphrase for the ${names.key}`,
				);
			}
			throw new TlsConfigError(names.key, `${names.key}: the private key cannot be read`);
		}
		if (!leaf.checkPrivateKey(key)) {
			throw new TlsConfigError(names.cert, `${names.cert}: does not match the ${names.key}`);
		}
		const notAfter = new Date(leaf.validTo);
		if (notAfter.getTime() < now.getTime()) {
			throw new TlsConfigError(names.cert, `${names.cert}: expired on ${notAfter.toISOString()}`);
		}
		const notBefore = new Date(leaf.validFrom);
		if (notBefore.getTime() > now.getTime()) {
			throw new TlsConfigError(
				names.cert,
				`${names.cert}: not valid before ${notBefore.toISOString()}`,
			);
		}
		options.cert = cert;
		options.key = keyPem;
		if (passphrase) options.passphrase = passphrase;
	}
	if (values.allowUnauthorizedCerts === true) options.rejectUnauthorized = false;
	if (!Object.keys(options).length) return undefined;
	if (options.ca || options.cert) {
		options.secureContext = createSecureContext({
			ca: options.ca,
			cert: options.cert,
			key: options.key,
			passphrase: options.passphrase,
		});
	}
	return options;
}

const UNTRUSTED_CODES = new Set([
	'SELF_SIGNED_CERT_IN_CHAIN',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
	'CERT_UNTRUSTED',
	'ERR_TLS_CERT_ALTNAME_INVALID',
	'CERT_HAS_EXPIRED',
	'CERT_NOT_YET_VALID',
]);

/** Explains a TLS failure in words a user can act on, or returns undefined when it is not one. */
export function describeTlsError(error: unknown): string | undefined {
	const err = error as {
		code?: string;
		message?: string;
		cause?: { code?: string; message?: string };
	};
	const code = err?.code ?? err?.cause?.code;
	const message = `${err?.message ?? ''} ${err?.cause?.message ?? ''}`;
	if (code && UNTRUSTED_CODES.has(code)) {
		if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
			return `The bank's TLS certificate does not name this host (${code}). Check the URL in the credential.`;
		}
		if (code === 'CERT_HAS_EXPIRED') {
			return `The bank's TLS certificate has expired (${code}).`;
		}
		return `The bank's TLS certificate is not trusted (${code}). Add the bank's CA certificate to the credential's CA Certificate field.`;
	}
	if (
		/certificate required|alert bad certificate|alert unknown ca|tlsv13 alert|sslv3 alert|alert certificate expired|handshake failure/i.test(
			message,
		) ||
		code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' ||
		code === 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' ||
		code === 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA'
	) {
		return `The bank refused the TLS client certificate (${code ?? 'handshake failed'}). Check that the credential's Client Certificate is the one registered with the bank and is still valid.`;
	}
	return undefined;
}
