/**
 * The File Service credential read into what the bxd layer needs: the bank profile and its
 * addresses, the identities, the signing certificate (pasted, or enrolled from a one-time PIN and
 * kept encrypted inside the credential: fileServiceEnrolment.ts), the bank's certificate and the
 * SHA-1 opt-in; and the signed check the credential test sends.
 *
 * The enrolled key material lives in the hidden fields FILE_SERVICE_KEY_FIELDS names, written
 * through preAuthentication (keys/state.ts explains why); the node empties the expirable check
 * field (in the copy it hands to n8n, never in storage) when a renewal is due.
 */
import { createPublicKey, X509Certificate } from 'node:crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import type {
	BankId,
	BankProfile,
	BxdOperation,
	DecryptionMaterial,
	EncryptionSettings,
	FileServiceSettings,
	SignatureAlgorithm,
} from '../index';
import { attempt } from '../../common/attempt';
import {
	BankCertificateError,
	bankProfile,
	BxdError,
	cleanPin,
	decryptionMaterial,
	describeRefusal,
	parseSoapFault,
	prepareRequest,
	readBankCertificate,
	readResponse,
	signingMaterial,
} from '../index';
import { CredentialFieldError, withCredentialAuth } from '../../common/credentialFields';
import type { KeyFields, OneTimeCode } from '../../keys';
import {
	checkIssuedBy,
	EnrolmentError,
	IssuedCheckError,
	pinnedRoot,
	readStoredKeys,
	storedKeys,
} from '../../keys';
import { describeConnectionFailure, errorResponseOf } from '../../transport/errors';
import { pooledOptionsFrom, pooledRequest, poolingAllowed } from '../../transport/pool';
import { webAddressProblem } from '../../transport/origin';
import type { BankCredential } from '../../transport/request';
import { buildTlsOptions, normalizePem, TlsConfigError } from '../../transport/tls';
import { redactSecrets } from '../../transport/redact';

export const FILE_SERVICE_CREDENTIAL = 'corporateBankingFileServiceApi';
/** Hidden, encrypted: the enrolled key pair and certificate (JSON). */
export const ENROLMENT_FIELD = 'enrolment';
/** Hidden, expirable: empty until enrolled; n8n runs preAuthentication while it is empty. */
export const ENROLMENT_CHECK_FIELD = 'enrolmentCheck';
/** Shown in the credential: what the last enrolment or renewal did. */
export const ENROLMENT_STATUS_FIELD = 'enrolmentStatus';
/** The credential fields the enrolled key material lives in (see keys/state.ts). */
export const FILE_SERVICE_KEY_FIELDS: KeyFields = {
	state: ENROLMENT_FIELD,
	check: ENROLMENT_CHECK_FIELD,
	status: ENROLMENT_STATUS_FIELD,
	code: 'pin',
};
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

/** A CredentialFieldError with this message (for use where a failure is caught and reworded). */
function fieldError(message: string): CredentialFieldError {
	return new CredentialFieldError(message);
}

/** A plain Error with this message (the credential test's answer to n8n). */
function checkError(message: string): Error {
	return new Error(message);
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
	/**
	 * How the certificate service signed the answer that carried the certificate ("RSA-SHA1",
	 * "RSA-SHA256", "unsigned"): reported, never a reason to refuse (the chain is the anchor).
	 */
	answerSignature?: string;
	/** A renewal the bank answered whose checks failed: kept until they pass (see PendingEnrolment). */
	pending?: PendingEnrolment;
}

/**
 * An enrolment or renewal the bank answered with a certificate for the key made in n8n, whose
 * checks after the answer failed (its signature, the chain to the pinned root, Danske Bank's
 * CertificateStatus, ...). The keys and what the bank sent are kept, encrypted in the credential,
 * so that saving again completes it by running every check again, without a new PIN: the PIN
 * was used. A pending enrolment never replaces a working certificate.
 */
export interface PendingEnrolment {
	/** enrol: a first enrolment from the PIN; renew: a renewal (the current certificate stays). */
	kind: 'enrol' | 'renew';
	/** The request the bank answered: GetCertificate, RenewCertificate, CreateCertificate. */
	command: string;
	/** When the bank answered (ISO). */
	answeredAt: string;
	/** SHA-256 of the customer id and the PIN (enrolment): the same PIN completes it. */
	pinHash?: string;
	/** The check that failed, as the user reads it. */
	reason: string;
	/** The credential field whose value failed the check, when changing it can make it pass. */
	field?: string;
	/** The key made in n8n for the request (Danske Bank: the signing key). */
	privateKeyPem: string;
	/** Danske Bank: the encryption key made with it. */
	encryptionKeyPem?: string;
	/**
	 * What the bank answered, base64: the CertApplicationResponse (bxd), or the decrypted
	 * CreateCertificateResponse / RenewCertificateResponse (Danske Bank), signatures included.
	 */
	answer: string;
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
	/** An enrolment or renewal waiting for its checks to pass (see PendingEnrolment). */
	pending?: PendingEnrolment;
	/** Whether the Signature Algorithm was chosen in the credential (else the profile's). */
	signatureAlgorithmChosen: boolean;
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
	return readStoredKeys<EnrolmentState>(
		value,
		(parsed) => parsed.v === 1 && !!parsed.certificatePem && !!parsed.privateKeyPem,
	);
}

/** Reads the pending enrolment or renewal kept in the enrolment JSON, if there is one. */
export function readPendingEnrolment(value: unknown): PendingEnrolment | undefined {
	return readStoredKeys<{ v: number; pending?: PendingEnrolment }>(
		value,
		(parsed) =>
			parsed.v === 1 &&
			!!parsed.pending?.privateKeyPem &&
			!!parsed.pending.answer &&
			(parsed.pending.kind === 'enrol' || parsed.pending.kind === 'renew'),
	)?.pending;
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
		signatureAlgorithmChosen: chosen === 'sha1' || chosen === 'sha256',
		enrolment: readEnrolmentState(credentials[ENROLMENT_FIELD]),
		pending: readPendingEnrolment(credentials[ENROLMENT_FIELD]),
		secrets,
	};
}

/** The one-time code of the credential, as the key management names and counts it. */
export function oneTimeCode(view: FileServiceCredentialView): OneTimeCode {
	return {
		label: view.profile.pin?.label ?? 'PIN',
		word: view.profile.enrolment === 'danskePki' ? 'PIN' : 'code',
		value: view.pin,
		owner: view.customerId,
		url: view.certificateServiceUrl,
	};
}

/**
 * A text that goes after "but", without its final full stop: a first word that is an ordinary
 * capitalised word in lower case ("The ..."), a name as it is ("CertificateStatus: ...").
 */
function clause(text: string): string {
	const plain = /^[A-Z][a-z]*(?![A-Za-z])/.test(text);
	return `${plain ? text.charAt(0).toLowerCase() : text.charAt(0)}${text.slice(1)}`.replace(
		/\.$/,
		'',
	);
}

/**
 * What the user reads about a pending enrolment or renewal (the credential test's error, the
 * status, the node's error or warning): what failed, what to correct, and that saving again
 * completes it without a new PIN.
 */
export function pendingMessage(view: FileServiceCredentialView, pending: PendingEnrolment): string {
	const label = view.profile.pin?.label ?? 'PIN';
	const day = pending.answeredAt.slice(0, 10);
	// Danske Bank issues two certificates, signing and encryption.
	const two = view.profile.enrolment === 'danskePki';
	const issued = two ? 'certificates for the keys' : 'a certificate for the key';
	const kept = two ? 'The certificates and their keys are' : 'The certificate and its key are';
	const save = pending.field
		? `correct the ${pending.field} and save the credential again`
		: 'save the credential again (or run a node with it) once the bank answers';
	const stays = pending.field ? '' : '; if it keeps failing, ask the bank';
	if (pending.kind === 'enrol') {
		return `Enrolment not complete: the bank answered ${pending.command} on ${day} with ${issued} made in n8n, but ${clause(pending.reason)}. ${kept} kept in the credential and the ${label} was used: ${save}, which completes the enrolment without a new ${label}${stays}`;
	}
	const current = view.enrolment;
	return `Renewal not complete: the bank answered ${pending.command} on ${day} with ${two ? 'new certificates for the keys' : 'a new certificate for the key'} made in n8n, but ${clause(pending.reason)}. ${kept.replace('The ', 'The new ')} kept in the credential, and the current ${two ? 'certificates' : 'certificate'}${current ? ` (valid until ${current.notAfter})` : ''} ${two ? 'keep' : 'keeps'} being used: ${save}, which completes the renewal${stays}`;
}

/**
 * Why the file service's answers will be refused: its Signature Algorithm is RSA-SHA1 (the
 * profile's or the credential's choice), so the bank signs them with SHA-1, and Accept SHA-1 is
 * off. Undefined when that is not so.
 */
export function sha1AnswersRefused(view: FileServiceCredentialView): string | undefined {
	if (view.signatureAlgorithm !== 'sha1' || view.acceptSha1) return undefined;
	const source = view.signatureAlgorithmChosen
		? 'as chosen in the credential'
		: `as the ${view.profile.name} profile says`;
	return `the Signature Algorithm is RSA-SHA1 (${source}), so the bank's file service signs its answers with SHA-1, and they are refused until Accept SHA-1 Signatures From the Bank is on: switch it on, or set the Signature Algorithm to RSA-SHA256 if the bank signs with SHA-256`;
}

/**
 * The fields that store a pending enrolment or renewal: the keys and the answer kept (beside the
 * certificate in use, for a renewal), the status saying what failed, and the check field empty so
 * that n8n runs preAuthentication, which completes it, at the next save or use. An enrolment also
 * blanks the PIN field: the PIN was used (its hash stays, so pasting it again completes it).
 */
export function storedPending(
	view: FileServiceCredentialView,
	pending: PendingEnrolment,
): IDataObject {
	const current = pending.kind === 'renew' ? view.enrolment : undefined;
	const state = current ? { ...current, pending } : { v: 1, bank: view.profile.id, pending };
	return storedKeys(
		FILE_SERVICE_KEY_FIELDS,
		state,
		'',
		pendingMessage(view, pending),
		pending.kind === 'enrol',
	);
}

/** `pending` with the failure that keeps it pending: its message, and the field to correct. */
export function stillPending(pending: PendingEnrolment, failure: unknown): PendingEnrolment {
	const message = (failure as Error)?.message ?? String(failure);
	return {
		...pending,
		reason: message,
		field: failure instanceof IssuedCheckError ? failure.field : undefined,
	};
}

/**
 * What the status says after an enrolment or renewal, after its dates: how the certificate
 * service signed its answer, that the certificate chains to the pinned root, and what is still
 * needed before the file service's answers are accepted.
 */
export function enrolmentNote(
	view: FileServiceCredentialView,
	signedWith: string | undefined,
): string {
	const signed =
		signedWith === 'unsigned'
			? 'The certificate service left its answer unsigned'
			: `The certificate service signed its answer with ${signedWith ?? 'an unknown algorithm'}`;
	const sha1 = sha1AnswersRefused(view);
	return `${signed}; the certificate chains to the pinned Bank Certificate.${sha1 ? ` Before it can be used: ${sha1}, and save again (no new ${view.profile.pin?.label ?? 'PIN'} is needed).` : ''}`;
}

/** The Bank Certificate, required to enrol: what the bank sends must chain to it. */
export function bankRoot(view: FileServiceCredentialView, bankCertificate: unknown): string {
	return pinnedRoot(bankCertificate, view.profile.name, view.profile.rootCertificate?.subject);
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
			const read = attempt(() => new X509Certificate(certPem));
			const cert = read.ok ? read.value : undefined;
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
			`${tried}; the bank answered HTTP ${status}${fault ? ` with ${describeRefusal(fault, 'fileService')}` : ''}`,
		);
	}
	if (!raw) throw new Error(`${tried}; the answer was not XML`);
	try {
		readResponse(service.settings, operation, raw);
	} catch (error) {
		const said =
			error instanceof BxdError ? describeRefusal(error, 'fileService') : (error as Error).message;
		throw checkError(`${tried}; the bank answered ${said}`);
	}
}

/** Turns a marked check request into the real signed check for this credential. */
export function checkRequestOptions(
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
): { options: IHttpRequestOptions; service: ServiceSettings; operation: BxdOperation } {
	const view = readFileServiceCredential(credentials);
	if (view.signingMode === 'enrol' && !view.enrolment && view.pending)
		throw new EnrolmentError(pendingMessage(view, view.pending));
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
 * What the credential test refuses although the credential can sign (a node run goes on, with a
 * warning or the bank's own refusal): a renewal still pending, and an enrolled certificate whose
 * file service answers will be refused for their SHA-1 signatures.
 */
function refuseUntilSettled(view: FileServiceCredentialView): void {
	if (view.signingMode !== 'enrol' || !view.enrolment) return;
	if (view.pending) throw new EnrolmentError(pendingMessage(view, view.pending));
	const sha1 = sha1AnswersRefused(view);
	if (sha1) {
		throw new CredentialFieldError(
			`Accept SHA-1 Signatures From the Bank: required: ${sha1}, and save again. The certificate is enrolled and stored: no new ${view.profile.pin?.label ?? 'PIN'} is needed`,
		);
	}
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
	if (marker === 'test') refuseUntilSettled(service.view);
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
