/**
 * The File Service credential read into what the bxd layer needs: the bank profile and its
 * addresses, the identities, the signing certificate (pasted, or enrolled from a one-time PIN and
 * kept encrypted inside the credential), the bank's certificate and the SHA-1 opt-in. Also the
 * enrolment itself (GetCertificate / RenewCertificate, run from the credential's
 * preAuthentication so n8n stores the result in the credential) and the signed check the
 * credential test sends.
 *
 * Why preAuthentication: it is the one place where n8n lets a credential write into itself, and
 * it writes encrypted, into the same record every worker reads. The hidden expirable field
 * `enrolmentCheck` is empty until the credential is enrolled; n8n runs preAuthentication whenever
 * it is empty, and the node empties it (in the copy it hands to n8n, never in storage) when a
 * renewal is due. A failed enrolment or renewal returns nothing, so nothing is stored and the
 * certificate the credential had keeps working.
 */
import { createHash, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import type {
	BankId,
	BankProfile,
	BankTrust,
	CertCommand,
	CertServiceAnswer,
	BxdOperation,
	DecryptionMaterial,
	EncryptionSettings,
	FileServiceSettings,
	IssuedCertificate,
	SignatureAlgorithm,
	SigningMaterial,
} from './bxd';
import {
	attempt,
	attemptAsync,
	BankCertificateError,
	bankProfile,
	BxdError,
	BxdFaultError,
	BxdResponseCodeError,
	buildCertApplicationRequest,
	buildCertEnvelope,
	certificateForKey,
	CertificateServiceError,
	decryptionMaterial,
	pemCertificates,
	certServiceHint,
	cleanPin,
	createKeyAndRequest,
	parseSoapFault,
	prepareRequest,
	readBankCertificate,
	readCertServiceAnswer,
	readResponse,
	responseCodeHint,
	signingMaterial,
} from './bxd';
import { tlsOptionsOf, withCredentialAuth } from './credentialFields';
import { describeConnectionFailure, errorResponseOf, outcomeUnknown } from './transport/errors';
import { pooledOptionsFrom, pooledRequest, poolingAllowed } from './transport/pool';
import { webAddressProblem } from './transport/origin';
import type { BankCredential } from './transport/request';
import type { ClientTlsOptions } from './transport/tls';
import { buildTlsOptions, normalizePem, TlsConfigError } from './transport/tls';
import { redactSecrets } from './transport/redact';
import { danskeCertificates, danskeEnrol, danskeRenew } from './danskeEnrolment';

export const FILE_SERVICE_CREDENTIAL = 'corporateBankingFileServiceApi';
/** Hidden, encrypted: the enrolled key pair and certificate (JSON). */
export const ENROLMENT_FIELD = 'enrolment';
/** Hidden, expirable: empty until enrolled; n8n runs preAuthentication while it is empty. */
export const ENROLMENT_CHECK_FIELD = 'enrolmentCheck';
/** Shown in the credential: what the last enrolment or renewal did. */
export const ENROLMENT_STATUS_FIELD = 'enrolmentStatus';
/** Set (in the copy handed to n8n only) to renew now, whatever the window says. */
export const RENEW_NOW_FIELD = 'renewNow';
/** Header naming a request the credential turns into its signed check ('test' or 'probe'). */
export const CHECK_HEADER = 'x-bxd-credential-check';
/** Address the credential test's request names until authenticate puts the bank's in. */
export const CHECK_PLACEHOLDER_URL = 'https://bank-address-from-credential.invalid/';

export const DEFAULT_RENEWAL_WINDOW_DAYS = 30;
const OPERATION_TEXT: Record<BxdOperation, string> = {
	uploadFile: 'uploadFile',
	downloadFileList: 'downloadFileList (List Files)',
	downloadFile: 'downloadFile',
	deleteFile: 'deleteFile',
	getUserInfo: 'getUserInfo',
};
/** A certificate this close to its end gets a warning in the node's output and the log. */
export const EXPIRY_WARNING_DAYS = 30;
const DAY = 24 * 60 * 60 * 1000;

/** A credential field is missing or breaks its rule; the message starts with the field's name. */
export class CredentialFieldError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CredentialFieldError';
	}
}

/** A CredentialFieldError with this message (for use where a failure is caught and reworded). */
function fieldError(message: string): CredentialFieldError {
	return new CredentialFieldError(message);
}

/** An EnrolmentError with this message. */
function enrolmentError(message: string, keptCertificate = false): EnrolmentError {
	return new EnrolmentError(message, keptCertificate);
}

/** A plain Error with this message (the credential test's answer to n8n). */
function checkError(message: string): Error {
	return new Error(message);
}

/**
 * Enrolment or renewal failed; `keptCertificate` says whether the credential still has a working
 * one.
 */
export class EnrolmentError extends Error {
	constructor(
		message: string,
		readonly keptCertificate = false,
	) {
		super(message);
		this.name = 'EnrolmentError';
	}
}

/** What the credential keeps after enrolling (encrypted by n8n with the rest of the credential). */
export interface EnrolmentState {
	v: 1;
	bank: BankId;
	certificatePem: string;
	privateKeyPem: string;
	notBefore: string;
	notAfter: string;
	enrolledAt: string;
	renewedAt?: string;
	/** SHA-256 of the customer id and the PIN that was used: the same PIN is never sent again. */
	pinHash?: string;
	/** Danske Bank: the customer's encryption certificate and key, enrolled with the signing ones. */
	encryption?: { certificatePem: string; privateKeyPem: string };
	/**
	 * Danske Bank: the bank's certificates from GetBankCertificate, checked against the pinned root.
	 */
	bankCertificates?: { encryptionPem: string; signingPem: string; rootPem: string };
}

export type CertificateSource = 'paste' | 'enrol';

/** The credential as read, checked and with the profile's values filled in. */
export interface FileServiceCredentialView {
	profile: BankProfile;
	environment: 'PRODUCTION' | 'TEST';
	url: string;
	largeFileUrl?: string;
	certificateServiceUrl?: string;
	senderId: string;
	customerId: string;
	receiverId: string;
	softwareId: string;
	language: string;
	signingMode: CertificateSource;
	pin?: string;
	renewalWindowDays: number;
	acceptSha1: boolean;
	signatureAlgorithm: SignatureAlgorithm;
	enrolment?: EnrolmentState;
	/** Values never to show: passphrases, the PIN. */
	secrets: string[];
}

function text(value: unknown): string {
	return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

export function trimmedUrl(value: unknown): string {
	return text(value).replace(/\/+$/, '');
}

/** Reads the enrolment JSON; a value that cannot be read counts as not enrolled. */
export function readEnrolmentState(value: unknown): EnrolmentState | undefined {
	if (typeof value !== 'string' || !value.trim().startsWith('{')) return undefined;
	try {
		const parsed = JSON.parse(value) as EnrolmentState;
		return parsed && parsed.v === 1 && parsed.certificatePem && parsed.privateKeyPem
			? parsed
			: undefined;
	} catch {
		return undefined;
	}
}

export function pinHash(customerId: string, pin: string): string {
	return createHash('sha256')
		.update(`${customerId}\u0000${cleanPin(pin)}`)
		.digest('hex');
}

/**
 * Reads and checks the credential fields; throws CredentialFieldError naming the field and the
 * rule.
 */
export function readFileServiceCredential(
	credentials: ICredentialDataDecryptedObject,
): FileServiceCredentialView {
	const profile = bankProfile(credentials.bank ?? 'custom');
	const environment =
		text(credentials.environment).toUpperCase() === 'TEST' ? 'TEST' : 'PRODUCTION';
	const which = environment === 'TEST' ? 'test' : 'production';
	const url = trimmedUrl(credentials.url) || profile.fileService[which];
	if (!url) throw new CredentialFieldError('Service URL: required when the Bank is Custom');
	const largeFileUrl = trimmedUrl(credentials.largeFileUrl) || undefined;
	const certificateServiceUrl =
		trimmedUrl(credentials.certificateServiceUrl) ||
		profile.certificateService?.[which] ||
		undefined;
	for (const [name, value] of [
		['Service URL', url],
		['Large File Service URL', largeFileUrl],
		['Certificate Service URL', certificateServiceUrl],
	] as const) {
		const problem = value ? webAddressProblem(name, value) : undefined;
		if (problem) throw new CredentialFieldError(problem);
	}
	const senderId = text(credentials.senderId);
	const customerId = text(credentials.customerId);
	if (!customerId)
		throw new CredentialFieldError('Customer ID: required (the user ID in the bank contract)');
	if (customerId.length > 16)
		throw new CredentialFieldError(
			`Customer ID: must be 1 to 16 characters long (got ${customerId.length})`,
		);
	const receiverId = text(credentials.receiverId) || profile.receiverId || '';
	const signingMode: CertificateSource = credentials.signingMode === 'enrol' ? 'enrol' : 'paste';
	const rawPin = typeof credentials.pin === 'string' ? cleanPin(credentials.pin) : '';
	if (rawPin && signingMode === 'enrol' && profile.pin && !profile.pin.pattern.test(rawPin)) {
		throw new CredentialFieldError(`${profile.pin.label}: ${profile.pin.rule}`);
	}
	const windowDays = Number(credentials.renewalWindowDays ?? DEFAULT_RENEWAL_WINDOW_DAYS);
	if (!Number.isFinite(windowDays) || windowDays < 1 || windowDays > 365) {
		throw new CredentialFieldError(
			'Renew Days Before Expiry: must be a number of days from 1 to 365',
		);
	}
	const chosen = text(credentials.signatureAlgorithm);
	const signatureAlgorithm: SignatureAlgorithm =
		chosen === 'sha1' || chosen === 'sha256' ? chosen : profile.signatureAlgorithm;
	const secrets = [
		text(credentials.signingKeyPassphrase),
		text(credentials.encryptionKeyPassphrase),
		text(credentials.passphrase),
		rawPin,
	].filter((s) => s.length >= 4);
	return {
		profile,
		environment,
		url,
		largeFileUrl,
		certificateServiceUrl,
		senderId: senderId || customerId,
		customerId,
		receiverId,
		softwareId: text(credentials.softwareId) || 'n8n-nodes-corporate-banking',
		language: text(credentials.language) || 'EN',
		signingMode,
		pin: rawPin || undefined,
		renewalWindowDays: windowDays,
		acceptSha1: credentials.acceptSha1 === true,
		signatureAlgorithm,
		enrolment: readEnrolmentState(credentials[ENROLMENT_FIELD]),
		secrets,
	};
}

/** The URLs the credential may send its TLS material to. */
export function fileServiceUrls(credentials: ICredentialDataDecryptedObject): string[] {
	try {
		const view = readFileServiceCredential(credentials);
		return [view.url, view.largeFileUrl ?? '', view.certificateServiceUrl ?? ''].filter(Boolean);
	} catch {
		return [trimmedUrl(credentials.url), trimmedUrl(credentials.largeFileUrl)].filter(Boolean);
	}
}

/** The file service credential: the client certificate when there is one, only to its own URLs. */
export const FILE_SERVICE_AUTH: BankCredential = {
	type: FILE_SERVICE_CREDENTIAL,
	authenticate(credentials, requestOptions) {
		return withCredentialAuth(credentials, requestOptions, {
			bearer: false,
			allowedUrls: fileServiceUrls(credentials),
			what: 'file service credential',
		});
	},
};

export interface CertificateFacts {
	subject: string;
	notAfter: Date;
	daysLeft: number;
	enrolled: boolean;
}

export interface ServiceSettings {
	settings: FileServiceSettings;
	view: FileServiceCredentialView;
	certificate?: CertificateFacts;
}

function facts(pem: string, enrolled: boolean, now: Date): CertificateFacts | undefined {
	try {
		const cert = new X509Certificate(pem);
		const notAfter = new Date(cert.validTo);
		return {
			subject: cert.subject.replace(/\n/g, ', '),
			notAfter,
			daysLeft: Math.floor((notAfter.getTime() - now.getTime()) / DAY),
			enrolled,
		};
	} catch {
		return undefined;
	}
}

/** The message for a signing certificate that has expired, naming the fix. */
export function expiredMessage(view: FileServiceCredentialView, notAfter: Date): string {
	if (view.signingMode === 'enrol') {
		return `The signing certificate expired on ${notAfter.toISOString()} and can no longer be renewed. Ask the bank for a new ${
			view.profile.pin?.label ?? 'PIN'
		}, paste it into the credential and save: the credential enrols again`;
	}
	return `The signing certificate expired on ${notAfter.toISOString()}. Ask the bank for a new certificate and paste it into Signing Certificate and Signing Private Key, or switch Certificate to "Enrol With a PIN From the Bank"`;
}

/** The message for a certificate that expires soon. */
export function expiringMessage(
	view: FileServiceCredentialView,
	certificate: CertificateFacts,
): string {
	const days = Math.max(0, certificate.daysLeft);
	const fix =
		view.signingMode === 'enrol'
			? `it is renewed automatically ${view.renewalWindowDays} days before it expires; if renewal keeps failing, paste a new ${view.profile.pin?.label ?? 'PIN'} into the credential`
			: 'ask the bank for a new one and paste it into the credential';
	return `The signing certificate (${certificate.subject}) expires in ${days} day${days === 1 ? '' : 's'}, on ${certificate.notAfter.toISOString()}: ${fix}`;
}

/**
 * The bxd settings of the credential: identities, signing material (enrolled or pasted, in the
 * profile's algorithm) and the bank certificate with the SHA-1 choice. Throws
 * CredentialFieldError for anything the user has to fix.
 */
export function serviceSettings(
	credentials: ICredentialDataDecryptedObject,
	now = new Date(),
): ServiceSettings {
	const view = readFileServiceCredential(credentials);
	if (!view.senderId) throw new CredentialFieldError('Sender ID: required');
	if (!view.receiverId) throw new CredentialFieldError('Receiver ID: required');
	const settings: FileServiceSettings = {
		senderId: view.senderId,
		customerId: view.customerId,
		receiverId: view.receiverId,
		softwareId: view.softwareId,
		environment: view.profile.environments[view.environment === 'TEST' ? 'test' : 'production'],
		language: view.language,
		userAgent: 'n8n-nodes-corporate-banking',
	};
	let certificate: CertificateFacts | undefined;
	if (view.signingMode === 'enrol') {
		const state = view.enrolment;
		if (state) {
			settings.signing = {
				...signingMaterial(state.certificatePem, state.privateKeyPem),
				algorithm: view.signatureAlgorithm,
			};
			certificate = facts(state.certificatePem, true, now);
		}
	} else {
		const pem = normalizePem(credentials.signingCertificate);
		const key = normalizePem(credentials.signingPrivateKey);
		const passphrase =
			typeof credentials.signingKeyPassphrase === 'string' ? credentials.signingKeyPassphrase : '';
		if (pem || key) {
			try {
				const checked = buildTlsOptions(
					{ certificate: pem, privateKey: key, passphrase },
					{
						ca: 'Bank Certificate',
						cert: 'Signing Certificate',
						key: 'Signing Private Key',
						passphrase: 'Signing Key Passphrase',
					},
				);
				settings.signing = {
					...signingMaterial(checked?.cert ?? pem, checked?.key ?? key, passphrase),
					algorithm: view.signatureAlgorithm,
				};
			} catch (error) {
				const message =
					error instanceof TlsConfigError
						? error.message
						: `Signing Private Key: ${(error as Error).message}`;
				throw fieldError(redactSecrets(message, view.secrets));
			}
			certificate = facts(settings.signing.certificatePem, false, now);
		}
	}
	if (normalizePem(credentials.bankCertificate)) {
		try {
			settings.trust = {
				...readBankCertificate(credentials.bankCertificate as string, now),
				acceptSha1: view.acceptSha1,
			};
		} catch (error) {
			throw fieldError(
				`Bank Certificate: ${error instanceof BankCertificateError ? error.message : 'the PEM certificate cannot be read (it may be truncated or corrupted)'}`,
			);
		}
	}
	if (view.profile.encrypts)
		settings.encryption = encryptionSettings(credentials, view, settings.trust, now);
	return { settings, view, certificate };
}

/**
 * The encryption of a bank that encrypts (Danske Bank): the bank's encryption certificate, which
 * must be issued by the pinned Bank Certificate when that is given, and the customer's
 * encryption key (enrolled, or pasted).
 */
function encryptionSettings(
	credentials: ICredentialDataDecryptedObject,
	view: FileServiceCredentialView,
	trust: unknown,
	now: Date,
): EncryptionSettings {
	const state = view.signingMode === 'enrol' ? view.enrolment : undefined;
	const bankPem =
		state?.bankCertificates?.encryptionPem ?? normalizePem(credentials.bankEncryptionCertificate);
	const field = state
		? 'Bank Encryption Certificate (from the enrolment)'
		: 'Bank Encryption Certificate';
	if (!bankPem) {
		if (view.signingMode === 'enrol') {
			throw new CredentialFieldError(
				`Certificate: not enrolled yet. Paste the ${view.profile.pin?.label ?? 'PIN'} the bank gave you and save the credential to enrol`,
			);
		}
		throw new CredentialFieldError(
			`${field}: required for ${view.profile.name}, which encrypts every request (paste the bank's encryption certificate, or enrol with a PIN)`,
		);
	}
	const pinned = normalizePem(credentials.bankCertificate);
	if (pinned && trust) checkIssuedBy(bankPem, pinned, field, now);
	let decryption: DecryptionMaterial | undefined;
	const keyPem = state?.encryption?.privateKeyPem ?? normalizePem(credentials.encryptionPrivateKey);
	const certPem =
		state?.encryption?.certificatePem ??
		(normalizePem(credentials.encryptionCertificate) || undefined);
	if (keyPem) {
		try {
			decryption = decryptionMaterial(
				keyPem,
				certPem,
				state ? undefined : text(credentials.encryptionKeyPassphrase),
			);
		} catch (error) {
			const reason = /bad decrypt|passphrase|interrupted or cancelled/i.test(
				(error as Error).message,
			)
				? 'the key is encrypted and the Encryption Key Passphrase does not open it'
				: 'it is not a readable PEM RSA private key';
			throw fieldError(redactSecrets(`Encryption Private Key: ${reason}`, view.secrets));
		}
		if (certPem) {
			const cert = attemptCertificate(certPem);
			if (!cert)
				throw new CredentialFieldError(
					'Encryption Certificate: the PEM certificate cannot be read',
				);
			const own = createPublicKey(decryption.key).export({ type: 'spki', format: 'der' });
			if (!cert.publicKey.export({ type: 'spki', format: 'der' }).equals(own)) {
				throw new CredentialFieldError(
					'Encryption Certificate: it does not hold the public key of the Encryption Private Key (they do not belong together)',
				);
			}
		}
	} else if (view.signingMode === 'paste') {
		throw new CredentialFieldError(
			`Encryption Private Key: required for ${view.profile.name}, whose answers are encrypted to your encryption certificate`,
		);
	}
	return { recipient: { certificatePem: bankPem }, decryption };
}

function attemptCertificate(pem: string): X509Certificate | undefined {
	try {
		return new X509Certificate(pemCertificates(pem)[0] ?? pem);
	} catch {
		return undefined;
	}
}

/**
 * Checks that `pem` is one of the certificates in `pinned`, or is issued by one of them directly or
 * through one of `intermediates` (certificates the bank sent with it) that one of them issued, and
 * is valid now.
 */
export function checkIssuedBy(
	pem: string,
	pinned: string,
	field: string,
	now: Date,
	intermediates: X509Certificate[] = [],
): X509Certificate {
	const cert = attemptCertificate(pem);
	if (!cert) throw new CredentialFieldError(`${field}: the PEM certificate cannot be read`);
	const anchors = pemCertificates(pinned)
		.map(attemptCertificate)
		.filter((c): c is X509Certificate => !!c);
	const issuedBy = (child: X509Certificate, parent: X509Certificate) =>
		child.checkIssued(parent) && child.verify(parent.publicKey);
	const trusted = anchors.some(
		(anchor) =>
			anchor.fingerprint256 === cert.fingerprint256 ||
			issuedBy(cert, anchor) ||
			intermediates.some(
				(middle) =>
					middle.fingerprint256 !== cert.fingerprint256 &&
					issuedBy(cert, middle) &&
					issuedBy(middle, anchor) &&
					new Date(middle.validTo).getTime() > now.getTime(),
			),
	);
	if (!trusted) {
		throw new CredentialFieldError(
			`${field}: it does not match the pinned Bank Certificate (${cert.subject.replace(/\n/g, ', ')} is not issued by ${anchors.map((a) => a.subject.replace(/\n/g, ', ')).join(' or ') || 'it'}). Check that the Bank Certificate is the bank's root certificate`,
		);
	}
	if (new Date(cert.validTo).getTime() <= now.getTime())
		throw new CredentialFieldError(
			`${field}: it expired on ${new Date(cert.validTo).toISOString()}`,
		);
	return cert;
}

/** The pinned root (Bank Certificate), required to enrol or renew with a PIN-enrolled credential. */
export function pinnedRoot(view: FileServiceCredentialView, bankCertificate: unknown): string {
	const pem = normalizePem(bankCertificate);
	if (!pem) {
		throw new CredentialFieldError(
			`Bank Certificate: required to enrol with ${view.profile.name}: paste the bank's root certificate (${view.profile.rootCertificate?.subject ?? 'the CA that issues its certificates'}), which the certificates it sends must chain to`,
		);
	}
	return pem;
}

/**
 * What the certificate service's answers are checked against: the pinned root (required), read
 * and valid, with the credential's SHA-1 choice.
 */
function certServiceTrust(
	view: FileServiceCredentialView,
	bankCertificate: unknown,
	now: Date,
): { pinned: string; trust: BankTrust } {
	const pinned = pinnedRoot(view, bankCertificate);
	try {
		return { pinned, trust: { ...readBankCertificate(pinned, now), acceptSha1: view.acceptSha1 } };
	} catch (error) {
		throw fieldError(
			`Bank Certificate: ${error instanceof BankCertificateError ? error.message : 'the PEM certificate cannot be read (it may be truncated or corrupted)'}`,
		);
	}
}

/**
 * The certificate the bank issued for the new key, checked against the pinned root (with the other
 * certificates of the answer as possible intermediates).
 */
function issuedCertificate(
	answer: CertServiceAnswer,
	keys: { publicKey: KeyObject },
	pinned: string,
	now: Date,
): IssuedCertificate {
	const issued = certificateForKey(answer.response, keys.publicKey, now);
	const others = (answer.response?.certificates ?? [])
		.map((c) => c.x509)
		.filter((c) => c.fingerprint256 !== issued.x509.fingerprint256);
	const checked = attempt(() =>
		checkIssuedBy(issued.pem, pinned, 'The certificate the bank issued', now, others),
	);
	if (!checked.ok) throw new CertificateServiceError((checked.error as Error).message);
	return issued;
}

export type EnrolmentAction = 'enrol' | 'renew' | 'none';

/**
 * Process memory of the one-time codes this process spent: a code the bank may have received is
 * never sent again, and pasting it again says what became of it.
 */
const sentPins = new Map<string, { at: string; outcome: string }>();
/**
 * One enrolment per PIN at a time: concurrent runs wait for the first instead of sending the PIN
 * again.
 */
const inflight = new Map<string, Promise<IDataObject>>();

/** The sender of the one request that carries a one-time code, and what became of the code. */
export interface PinCarrier {
	/**
	 * Sends the request that carries the code. The code counts as spent once the bank may have
	 * received it: it answered, or the connection broke after the request went out. A connection
	 * that failed before anything was sent leaves it unspent.
	 */
	send: CertServiceSender;
	/** Whether the request carrying the code may have reached the bank. */
	readonly spent: boolean;
	/** Records what the bank did with the code (said when the code is pasted again). */
	settle(outcome: string): void;
}

function pinCarrier(hash: string, send: CertServiceSender, now: Date): PinCarrier {
	const spend = (outcome: string) => sentPins.set(hash, { at: now.toISOString(), outcome });
	const carrier = {
		spent: false,
		send: async (request: Parameters<CertServiceSender>[0]) => {
			const reply = await attemptAsync(async () => await send(request));
			const unsent =
				!reply.ok &&
				reply.error instanceof CertServiceUnreachable &&
				reply.error.delivered === false;
			if (!unsent) {
				carrier.spent = true;
				spend(
					reply.ok
						? 'the bank answered'
						: 'the connection broke after it was sent, so whether the bank used it is unknown',
				);
			}
			if (!reply.ok) throw reply.error;
			return reply.value;
		},
		settle: (outcome: string) => {
			if (carrier.spent) spend(outcome);
		},
	};
	return carrier;
}

/** Forgets the PINs sent by this process (tests). */
export function forgetSentPins(): void {
	sentPins.clear();
}

/** What is due for the credential now: a first enrolment, a renewal, or nothing. */
export function enrolmentDue(
	view: FileServiceCredentialView,
	now = new Date(),
	force = false,
): EnrolmentAction {
	if (view.signingMode !== 'enrol') return 'none';
	const state = view.enrolment;
	if (view.pin && (!state || state.pinHash !== pinHash(view.customerId, view.pin))) return 'enrol';
	if (!state) return 'enrol';
	const notAfter = new Date(state.notAfter).getTime();
	if (notAfter <= now.getTime()) return 'none';
	if (force || notAfter - view.renewalWindowDays * DAY <= now.getTime()) return 'renew';
	return 'none';
}

/**
 * Sends one SOAP message to the certificate service and returns the answer's body (faults
 * included).
 */
export type CertServiceSender = (request: {
	url: string;
	body: Buffer;
	headers: Record<string, string>;
	tls?: ClientTlsOptions;
}) => Promise<{ status: number; body: Buffer | string }>;

/**
 * A request to a certificate service that got no answer. `delivered` says whether it may have
 * reached the bank: false when the connection failed before anything was sent (refused, unknown
 * host, TLS handshake), 'unknown' when it broke after the request went out.
 */
export class CertServiceUnreachable extends Error {
	constructor(
		readonly reason: string,
		readonly delivered: false | 'unknown',
	) {
		super(reason);
		this.name = 'CertServiceUnreachable';
	}
}

/**
 * The sender the certificate services are called with, over n8n's HTTP helper (a node's or a
 * credential's): one POST, no redirects, the answer's bytes whatever its status. A request that
 * gets no answer throws CertServiceUnreachable.
 */
export function certServiceSender(
	httpRequest: (options: IHttpRequestOptions) => Promise<unknown>,
): CertServiceSender {
	return async ({ url, body, headers, tls }) => {
		const sent = await attemptAsync(
			async () =>
				(await httpRequest({
					method: 'POST',
					url,
					body,
					headers,
					json: false,
					encoding: 'arraybuffer',
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					disableFollowRedirect: true,
					timeout: 60000,
					...(tls ? { agentOptions: tls } : {}),
				})) as IN8nHttpFullResponse,
		);
		if (!sent.ok) {
			throw new CertServiceUnreachable(
				describeConnectionFailure(sent.error),
				outcomeUnknown(sent.error) ? 'unknown' : false,
			);
		}
		const response = sent.value;
		const raw = response.body as unknown;
		return {
			status: response.statusCode,
			body: Buffer.isBuffer(raw)
				? raw
				: raw instanceof ArrayBuffer
					? Buffer.from(raw)
					: String(raw ?? ''),
		};
	};
}

/**
 * What the bank said, with what its code means: the file service's codes (`'fileService'`) and
 * the certificate services' (`'certService'`) mean different things.
 */
function describeBankRefusal(error: unknown, service?: 'fileService' | CertCommand): string {
	if (error instanceof BxdResponseCodeError) {
		const hint =
			service === 'fileService'
				? responseCodeHint(error.code)
				: service
					? certServiceHint(error.code, error.text, service)
					: undefined;
		const text = hint ? error.text?.replace(/\.$/, '') : error.text;
		return `code ${error.code}${text ? `: ${text}` : ''}${hint ? ` (${hint.replace(/\.$/, '')})` : ''}`;
	}
	if (error instanceof BxdFaultError) {
		return `a SOAP fault: ${error.faultString}${error.code ? ` (code ${error.code})` : ''}${error.category ? ` [${error.category}]` : ''}`;
	}
	return (error as Error)?.message ?? String(error);
}

/**
 * What came back from a certificate service: "the bank answered ..." (its code and what it means,
 * or why its answer was refused), or that no answer came and why.
 */
function certServiceOutcome(error: unknown, command: CertCommand): string {
	if (error instanceof CertServiceUnreachable) return `no answer came: ${error.reason}`;
	if (error instanceof BxdResponseCodeError || error instanceof BxdFaultError)
		return `the bank answered ${describeBankRefusal(error, command).replace(/\.$/, '')}`;
	// The answer came, and a check of ours refused it.
	const message = (error as Error)?.message ?? String(error);
	return `the bank answered, but ${message.charAt(0).toLowerCase()}${message.slice(1).replace(/\.$/, '')}`;
}

function statusText(state: EnrolmentState, action: 'enrolled' | 'renewed'): string {
	return `Certificate ${action} ${actionDay(state, action)}; valid until ${state.notAfter} (renewed automatically when it comes within the renewal window)`;
}

/** The day (YYYY-MM-DD) of the enrolment or of the last renewal. */
export function actionDay(state: EnrolmentState, action: 'enrolled' | 'renewed'): string {
	const when = action === 'enrolled' ? state.enrolledAt : (state.renewedAt ?? state.enrolledAt);
	return when.slice(0, 10);
}

/**
 * The credential fields that store an enrolment or a renewal: the state, its expiry (n8n runs
 * preAuthentication again once the expirable check field is empty) and the status shown in the
 * credential. An enrolment also blanks the code it used (its hash stays in the state, so pasting
 * it again sends nothing).
 */
export function storedEnrolment(
	state: EnrolmentState,
	action: 'enrolled' | 'renewed',
	status: string,
): IDataObject {
	return {
		[ENROLMENT_FIELD]: JSON.stringify(state),
		[ENROLMENT_CHECK_FIELD]: state.notAfter,
		[ENROLMENT_STATUS_FIELD]: status,
		...(action === 'enrolled' ? { pin: '' } : {}),
	};
}

/**
 * Runs the enrolment or renewal that is due and returns the credential fields to store (nothing
 * stored when nothing was due). A failure throws EnrolmentError; the credential keeps what it had.
 */
export async function runEnrolment(
	credentials: ICredentialDataDecryptedObject,
	send: CertServiceSender,
	now = new Date(),
): Promise<IDataObject> {
	const view = readFileServiceCredential(credentials);
	if (view.signingMode !== 'enrol') return {};
	const action = enrolmentDue(view, now, credentials[RENEW_NOW_FIELD] === true);
	const state = view.enrolment;
	if (action === 'none') {
		if (!state) return {};
		// Keeps n8n from asking again until the renewal window opens.
		return { [ENROLMENT_CHECK_FIELD]: state.notAfter };
	}
	if (view.profile.enrolment === 'danskePki')
		return await runDanskeEnrolment(view, credentials, action, send, now);
	const dialect =
		view.profile.certDialect ?? (credentials.enrolmentDialect as BankProfile['certDialect']);
	if (!dialect || !['nordea', 'op', 'samlink'].includes(dialect)) {
		throw new CredentialFieldError(
			'Certificate Service Dialect: choose Nordea, OP or Samlink for a Custom bank that enrols with a PIN',
		);
	}
	if (!view.certificateServiceUrl)
		throw new CredentialFieldError(
			'Certificate Service URL: required to enrol when the Bank is Custom',
		);
	const tls = credentialTls(credentials);
	const checks = certServiceTrust(view, credentials.bankCertificate, now);
	if (action === 'renew') return await renew(view, dialect, tls, send, checks, now);
	if (view.signatureAlgorithm === 'sha1' && !view.acceptSha1) {
		// The bank signs with SHA-1 (its profile or the credential says so): the answer that carries
		// the certificate would be refused after the code is spent.
		throw new CredentialFieldError(
			`Accept SHA-1 Signatures From the Bank: required to enrol with ${view.profile.name} while the Signature Algorithm is RSA-SHA1, since the bank's answer carrying the new certificate is signed with SHA-1 and would be refused after the ${view.profile.pin?.label ?? 'PIN'} is used. Switch it on, or set the Signature Algorithm to RSA-SHA256 if the bank signs with SHA-256`,
		);
	}
	return await oncePerPin(
		view,
		'code',
		send,
		now,
		async (hash, carrier) => await enrol(view, dialect, hash, tls, carrier, checks, now),
	);
}

/**
 * The PIN rules every bank shares: a PIN is required, is sent to the bank once (a code the bank
 * may have received is refused before anything is sent), and one enrolment at a time runs per PIN
 * (a second caller waits for the first one's outcome).
 */
async function oncePerPin(
	view: FileServiceCredentialView,
	word: 'code' | 'PIN',
	send: CertServiceSender,
	now: Date,
	start: (hash: string, carrier: PinCarrier) => Promise<IDataObject>,
): Promise<IDataObject> {
	const label = view.profile.pin?.label ?? 'PIN';
	if (!view.pin) {
		throw new EnrolmentError(
			`${label}: required. Paste the one-time ${word} the bank gave you for the web services contract, then save the credential`,
		);
	}
	const hash = pinHash(view.customerId, view.pin);
	const running = inflight.get(hash);
	if (running) return await running;
	const sent = sentPins.get(hash);
	if (sent) {
		throw new EnrolmentError(
			`${label}: this ${word} was already sent to the bank (${sent.at}: ${sent.outcome}). A ${word} works once: ask the bank for a new one and paste it into the credential`,
		);
	}
	const work = start(hash, pinCarrier(hash, send, now));
	inflight.set(hash, work);
	try {
		return await work;
	} finally {
		inflight.delete(hash);
	}
}

/**
 * The failure of an enrolment whose request with the one-time code got no answer: the code is
 * unspent when nothing was sent, and its fate unknown when the connection broke after sending.
 */
export function unansweredEnrolment(
	view: FileServiceCredentialView,
	word: 'code' | 'PIN',
	request: string,
	error: CertServiceUnreachable,
): EnrolmentError {
	const label = view.profile.pin?.label ?? 'PIN';
	const url = view.certificateServiceUrl;
	return enrolmentError(
		error.delivered === false
			? `Enrolment failed: the certificate service at ${url} could not be reached: ${error.reason}. The ${label} was not sent and still works: correct the address or the connection and save the credential again. Nothing was stored`
			: `Enrolment failed: ${request} with the ${label} was sent to ${url}, but ${error.reason}, so whether the bank used the ${word} is unknown. Nothing was stored. A ${word} works once: ask the bank for a new one (and whether this one was used)`,
	);
}

/**
 * Danske Bank: the same PIN rules as the other banks (sent once, one at a time), through its
 * PKIFactoryService; only CreateCertificate carries the PIN.
 */
async function runDanskeEnrolment(
	view: FileServiceCredentialView,
	credentials: ICredentialDataDecryptedObject,
	action: 'enrol' | 'renew',
	send: CertServiceSender,
	now: Date,
): Promise<IDataObject> {
	const tls = credentialTls(credentials);
	pinnedRoot(view, credentials.bankCertificate);
	if (action === 'renew')
		return await danskeRenew(view, credentials.bankCertificate, tls, send, now);
	return await oncePerPin(
		view,
		'PIN',
		send,
		now,
		async (hash, carrier) =>
			await danskeEnrol(view, credentials.bankCertificate, hash, tls, send, carrier, now),
	);
}

function credentialTls(credentials: ICredentialDataDecryptedObject): ClientTlsOptions | undefined {
	try {
		return tlsOptionsOf(credentials, credentials.useClientCertificate === true);
	} catch (error) {
		throw fieldError((error as Error).message);
	}
}

async function exchangeCert(
	view: FileServiceCredentialView,
	dialect: NonNullable<BankProfile['certDialect']>,
	command: 'GetCertificate' | 'RenewCertificate' | 'GetServiceCertificates',
	applicationRequest: string,
	tls: ClientTlsOptions | undefined,
	send: CertServiceSender,
	trust: BankTrust | undefined,
) {
	const envelope = buildCertEnvelope(dialect, command, view.senderId, applicationRequest);
	const reply = await send({
		url: view.certificateServiceUrl!,
		body: envelope.body,
		headers: {
			'Content-Type': 'text/xml; charset=utf-8',
			SOAPAction: view.profile.soapAction,
			Accept: 'text/xml',
		},
		tls,
	});
	if (reply.status >= 400) {
		const fault = parseSoapFault(reply.body);
		if (fault) throw fault;
		throw new CertificateServiceError(`HTTP ${reply.status}`);
	}
	return readCertServiceAnswer(reply.body, envelope.operation, trust);
}

function subjectFor(view: FileServiceCredentialView) {
	return { commonName: view.customerId, serialNumber: view.customerId, country: 'FI' };
}

async function enrol(
	view: FileServiceCredentialView,
	dialect: NonNullable<BankProfile['certDialect']>,
	hash: string,
	tls: ClientTlsOptions | undefined,
	carrier: PinCarrier,
	checks: { pinned: string; trust: BankTrust },
	now: Date,
): Promise<IDataObject> {
	const label = view.profile.pin?.label ?? 'PIN';
	const keys = await createKeyAndRequest(subjectFor(view));
	const request = buildCertApplicationRequest({
		dialect,
		command: 'GetCertificate',
		customerId: view.customerId,
		environment: view.environment,
		softwareId: view.softwareId,
		csrDer: keys.csrDer,
		pin: view.pin,
		timestamp: now,
	});
	let answer;
	try {
		answer = await exchangeCert(
			view,
			dialect,
			'GetCertificate',
			request,
			tls,
			carrier.send,
			checks.trust,
		);
	} catch (error) {
		if (error instanceof CertServiceUnreachable)
			throw unansweredEnrolment(view, 'code', 'GetCertificate', error);
		const said = certServiceOutcome(error, 'GetCertificate');
		carrier.settle(said);
		throw enrolmentError(
			redactSecrets(
				`Enrolment failed: sent GetCertificate with the ${label} to ${view.certificateServiceUrl}; ${said}. Nothing was stored. A code works once: if the bank may have used it, ask the bank for a new one`,
				view.secrets,
			),
		);
	}
	let issued;
	try {
		issued = issuedCertificate(answer, keys, checks.pinned, now);
	} catch (error) {
		carrier.settle(`the bank's answer was refused: ${(error as Error).message}`);
		throw enrolmentError(
			`Enrolment failed: ${(error as Error).message.replace(/\.$/, '')}. Ask the bank for a new ${label}`,
		);
	}
	carrier.settle('the bank issued a certificate');
	const state: EnrolmentState = {
		v: 1,
		bank: view.profile.id,
		certificatePem: issued.pem,
		privateKeyPem: keys.privateKeyPem,
		notBefore: new Date(issued.x509.validFrom).toISOString(),
		notAfter: new Date(issued.x509.validTo).toISOString(),
		enrolledAt: now.toISOString(),
		pinHash: hash,
	};
	return storedEnrolment(state, 'enrolled', statusText(state, 'enrolled'));
}

async function renew(
	view: FileServiceCredentialView,
	dialect: NonNullable<BankProfile['certDialect']>,
	tls: ClientTlsOptions | undefined,
	send: CertServiceSender,
	checks: { pinned: string; trust: BankTrust },
	now: Date,
): Promise<IDataObject> {
	const current = view.enrolment!;
	const signing: SigningMaterial = {
		...signingMaterial(current.certificatePem, current.privateKeyPem),
		algorithm: view.signatureAlgorithm,
	};
	const keys = await createKeyAndRequest(subjectFor(view));
	const kept = `The current certificate (valid until ${current.notAfter}) keeps being used`;
	let answer;
	try {
		const request = buildCertApplicationRequest({
			dialect,
			command: 'RenewCertificate',
			customerId: view.customerId,
			environment: view.environment,
			softwareId: view.softwareId,
			csrDer: keys.csrDer,
			signing,
			timestamp: now,
		});
		answer = await exchangeCert(
			view,
			dialect,
			'RenewCertificate',
			request,
			tls,
			send,
			checks.trust,
		);
	} catch (error) {
		throw enrolmentError(
			`Renewal failed: sent RenewCertificate to ${view.certificateServiceUrl}; ${certServiceOutcome(error, 'RenewCertificate')}. ${kept}`,
			true,
		);
	}
	let issued;
	try {
		issued = issuedCertificate(answer, keys, checks.pinned, now);
	} catch (error) {
		throw enrolmentError(
			`Renewal failed: ${(error as Error).message.replace(/\.$/, '')}. ${kept}`,
			true,
		);
	}
	const state: EnrolmentState = {
		...current,
		certificatePem: issued.pem,
		privateKeyPem: keys.privateKeyPem,
		notBefore: new Date(issued.x509.validFrom).toISOString(),
		notAfter: new Date(issued.x509.validTo).toISOString(),
		renewedAt: now.toISOString(),
	};
	return storedEnrolment(state, 'renewed', statusText(state, 'renewed'));
}

/**
 * The bank's own certificates from its certificate service (GetServiceCertificates: OP, and
 * Nordea's service has the operation too), for the Bank Certificate and the trust store. Samlink's
 * service has no such operation.
 */
export async function fetchServiceCertificates(
	credentials: ICredentialDataDecryptedObject,
	send: CertServiceSender,
): Promise<IssuedCertificate[]> {
	const view = readFileServiceCredential(credentials);
	if (view.profile.enrolment === 'danskePki') {
		if (!view.certificateServiceUrl)
			throw new CredentialFieldError('Certificate Service URL: required');
		try {
			return await danskeCertificates(
				view,
				credentials.bankCertificate,
				credentialTls(credentials),
				send,
			);
		} catch (error) {
			throw error instanceof CredentialFieldError
				? fieldError(error.message)
				: checkError(
						`Sent GetBankCertificate to ${view.certificateServiceUrl}; ${(error as Error).message}`,
					);
		}
	}
	const dialect =
		view.profile.certDialect ?? (credentials.enrolmentDialect as BankProfile['certDialect']);
	if (!dialect)
		throw new CredentialFieldError(
			'Certificate Service Dialect: choose Nordea or OP for a Custom bank',
		);
	if (dialect === 'samlink')
		throw new CredentialFieldError(
			`${view.profile.name}: the certificate service has no GetServiceCertificates; ask the bank for its certificates`,
		);
	if (!view.certificateServiceUrl)
		throw new CredentialFieldError('Certificate Service URL: required when the Bank is Custom');
	const request = buildCertApplicationRequest({
		dialect,
		command: 'GetServiceCertificates',
		customerId: view.customerId,
		environment: view.environment,
		softwareId: view.softwareId,
	});
	let answer;
	try {
		answer = await exchangeCert(
			view,
			dialect,
			'GetServiceCertificates',
			request,
			credentialTls(credentials),
			send,
			undefined,
		);
	} catch (error) {
		throw checkError(
			`Sent GetServiceCertificates to ${view.certificateServiceUrl}; ${certServiceOutcome(error, 'GetServiceCertificates')}`,
		);
	}
	return answer.response?.certificates ?? [];
}

/**
 * The signed request the credential sends to check itself: getUserInfo, or List Files where the
 * bank has no getUserInfo.
 */
export function checkRequest(
	service: ServiceSettings,
	now = new Date(),
): { operation: BxdOperation; url: string; body: Buffer; headers: Record<string, string> } {
	const operation: BxdOperation =
		service.view.profile.hasGetUserInfo && service.view.profile.platform !== 'samlink'
			? 'getUserInfo'
			: 'downloadFileList';
	const prepared = prepareRequest(service.settings, operation, {}, now);
	return {
		operation,
		url: service.view.url,
		body: prepared.envelope.body,
		headers: {
			'Content-Type': 'text/xml; charset=utf-8',
			SOAPAction: service.view.profile.soapAction,
			Accept: 'text/xml',
		},
	};
}

/**
 * Judges the bank's answer to the check: returns nothing when it is a proper answer (00 or 24,
 * signed when a Bank Certificate is set), else throws an Error saying what was sent where and
 * what the bank said.
 */
export function judgeCheck(
	service: ServiceSettings,
	operation: BxdOperation,
	status: number,
	body: unknown,
): void {
	const tried = `Sent a signed ${OPERATION_TEXT[operation]} request to ${service.view.url}`;
	const raw = typeof body === 'string' || Buffer.isBuffer(body) ? body : undefined;
	if (status >= 300) {
		const fault = raw ? parseSoapFault(raw) : undefined;
		throw new Error(
			`${tried}; the bank answered HTTP ${status}${fault ? ` with ${describeBankRefusal(fault, 'fileService')}` : ''}`,
		);
	}
	if (!raw) throw new Error(`${tried}; the answer was not XML`);
	try {
		readResponse(service.settings, operation, raw);
	} catch (error) {
		const said =
			error instanceof BxdError
				? describeBankRefusal(error, 'fileService')
				: (error as Error).message;
		throw checkError(`${tried}; the bank answered ${said}`);
	}
}

/** Turns a marked check request into the real signed check for this credential. */
export function checkRequestOptions(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): { options: IHttpRequestOptions; service: ServiceSettings; operation: BxdOperation } {
	const service = serviceSettings(credentials);
	if (service.view.signingMode === 'enrol' && !service.view.enrolment) {
		throw new CredentialFieldError(
			`Certificate: not enrolled yet. Paste the ${service.view.profile.pin?.label ?? 'PIN'} the bank gave you and save the credential to enrol`,
		);
	}
	if (service.certificate && service.certificate.notAfter.getTime() <= Date.now()) {
		throw new CredentialFieldError(expiredMessage(service.view, service.certificate.notAfter));
	}
	const check = checkRequest(service);
	const headers = { ...(requestOptions.headers ?? {}) } as IDataObject;
	for (const name of Object.keys(headers))
		if (name.toLowerCase() === CHECK_HEADER) delete headers[name];
	return {
		service,
		operation: check.operation,
		options: {
			...requestOptions,
			method: 'POST',
			url: check.url,
			body: check.body,
			json: false,
			headers: { ...headers, ...check.headers },
		},
	};
}

/**
 * The request as the credential sends it, and for the credential test the judging of the bank's
 * answer.
 */
export interface CheckPlan {
	options: IHttpRequestOptions;
	/**
	 * Sends the authenticated check itself and judges the answer (credential test only); returns the
	 * request n8n sends after it, which carries the verdict without reaching the bank again.
	 */
	judge?: (authenticated: IHttpRequestOptions) => Promise<IHttpRequestOptions>;
}

/**
 * What n8n's credential test sends once the check has been sent and judged here: a data: address
 * (answered by n8n's HTTP client itself, HTTP 200, no network), so that the bank gets the signed
 * check once.
 */
export const CHECK_PASSED_URL = 'data:text/plain,the%20bank%20accepted%20the%20signed%20check';

function checkMarker(requestOptions: IHttpRequestOptions): string | undefined {
	for (const [name, value] of Object.entries(requestOptions.headers ?? {})) {
		if (name.toLowerCase() === CHECK_HEADER) return String(value);
	}
	return undefined;
}

/**
 * For a request marked as the credential's check: the signed check request, and (for the
 * credential test, when requests may use pooled connections) a judge that sends it and turns a
 * refusal into an error naming what was sent and what the bank said. Other requests pass as they
 * are.
 */
export function planCheck(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): CheckPlan {
	const marker = checkMarker(requestOptions);
	if (!marker) return { options: requestOptions };
	const { options, service, operation } = checkRequestOptions(credentials, requestOptions);
	if (marker !== 'test' || !poolingAllowed()) return { options };
	return {
		options,
		judge: async (authenticated) => {
			let status: number;
			let body: unknown;
			try {
				const response = await pooledRequest(
					pooledOptionsFrom({ ...authenticated, encoding: 'arraybuffer' }),
				);
				status = response.statusCode;
				body = response.body;
			} catch (error) {
				const answer = errorResponseOf(error);
				if (!answer.status) {
					const reason = describeConnectionFailure(error);
					throw checkError(
						`Sent a signed ${OPERATION_TEXT[operation]} request to ${service.view.url}; ${reason}`,
					);
				}
				status = answer.status;
				body = answer.body;
			}
			judgeCheck(service, operation, status, body);
			return { url: CHECK_PASSED_URL, method: 'GET', json: false };
		},
	};
}
