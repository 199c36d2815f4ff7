/**
 * Enrolment and renewal with Danske Bank's PKIFactoryService, run from the credential's
 * preAuthentication like the other banks' (see fileServiceEnrolment.ts): GetBankCertificate
 * (the bank's encryption and signing certificates, checked against the pinned root), then
 * CreateCertificate with the PIN (first enrolment) or RenewCertificate signed with the current
 * key: two new key pairs and two PKCS#10 requests, signing and encryption. The certificates the
 * bank issues are checked (they hold the new keys, are valid, CertificateStatus says good) before
 * anything is stored; a failure stores nothing, so the certificates the credential had keep
 * working.
 */
import { X509Certificate } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import type {
	BankTrust,
	CertificateStatusEntry,
	DecryptionMaterial,
	IssuedCertificate,
	PkiOperation,
	SigningMaterial,
} from '../index';
import {
	bankTrust,
	buildPkiEnvelope,
	certificateElement,
	certificateRequest,
	certificateStatuses,
	decryptionMaterial,
	getBankCertificateRequest,
	pkiRequestId,
	pkiSoapAction,
	PkiFaultError,
	readPkiAnswer,
	readPkiFault,
	sameSerial,
	serialOf,
	signedQuery,
	signingMaterial,
} from '../index';
import type {
	EnrolmentState,
	FileServiceCredentialView,
} from '../credential/fileServiceCredential';
import {
	bankRoot,
	FILE_SERVICE_KEY_FIELDS,
	oneTimeCode,
} from '../credential/fileServiceCredential';
import type { CodeCarrier, KeyServiceSender } from '../../keys';
import {
	actionDay,
	checkIssuedBy,
	createKeyAndRequest,
	EnrolmentError,
	holdsKey,
	KeyServiceUnreachable,
	storedKeys,
	unansweredEnrolment,
} from '../../keys';
import type { ClientTlsOptions } from '../../transport/tls';
import { redactSecrets } from '../../transport/redact';

interface BankCertificates {
	encryptionPem: string;
	signingPem: string;
	rootPem: string;
}

interface Context {
	view: FileServiceCredentialView;
	pinnedRoot: string;
	tls?: ClientTlsOptions;
	send: KeyServiceSender;
	/** Sends the one request that carries the PIN (CreateCertificate). */
	pin?: CodeCarrier;
	now: Date;
}

/**
 * The pinned root, with the credential's SHA-1 choice (Danske's public samples sign with RSA-SHA1).
 */
function trustOf(ctx: Context): BankTrust {
	return { ...bankTrust(ctx.pinnedRoot), acceptSha1: ctx.view.acceptSha1 };
}

function pkiEnvironment(view: FileServiceCredentialView): string {
	const values = view.profile.pkiEnvironments ?? { production: 'production', test: 'customertest' };
	return view.environment === 'TEST' ? values.test : values.production;
}

async function exchange(
	ctx: Context,
	operation: PkiOperation,
	payload: string,
	trust: BankTrust,
	decryption?: DecryptionMaterial,
) {
	const send = operation === 'CreateCertificate' && ctx.pin ? ctx.pin.send : ctx.send;
	const requestId = pkiRequestId();
	const body = buildPkiEnvelope(
		operation,
		{
			senderId: ctx.view.senderId,
			customerId: ctx.view.customerId,
			environment: pkiEnvironment(ctx.view),
		},
		requestId,
		payload,
		ctx.now,
	);
	const reply = await send({
		url: ctx.view.certificateServiceUrl!,
		body,
		headers: {
			'Content-Type': 'text/xml; charset=utf-8',
			SOAPAction: pkiSoapAction(operation),
			Accept: 'text/xml',
		},
		tls: ctx.tls,
	});
	if (reply.status >= 400) {
		throw (
			readPkiFault(reply.body) ??
			new PkiFaultError(`HTTP ${reply.status}`, 'the PKIFactoryService refused the request')
		);
	}
	return readPkiAnswer(reply.body, operation, trust, decryption);
}

/** GetBankCertificate: the bank's certificates, each checked against the pinned root. */
async function bankCertificates(ctx: Context): Promise<BankCertificates> {
	const rootTrust = trustOf(ctx);
	const root = rootTrust.certificates[0];
	const answer = await exchange(
		ctx,
		'GetBankCertificate',
		getBankCertificateRequest(serialOf(root), pkiRequestId(), ctx.now),
		rootTrust,
	);
	const encryption = certificateElement(answer.response, 'BankEncryptionCert');
	const signing = certificateElement(answer.response, 'BankSigningCert');
	const sentRoot = certificateElement(answer.response, 'BankRootCert');
	if (!rootTrust.certificates.some((c) => c.fingerprint256 === sentRoot.x509.fingerprint256)) {
		throw new EnrolmentError(
			`GetBankCertificate: the bank's root certificate (${sentRoot.x509.subject.replace(/\n/g, ', ')}) is not the pinned Bank Certificate. Nothing was stored`,
		);
	}
	try {
		checkIssuedBy(
			encryption.pem,
			ctx.pinnedRoot,
			"GetBankCertificate: the bank's encryption certificate",
			ctx.now,
		);
		checkIssuedBy(
			signing.pem,
			ctx.pinnedRoot,
			"GetBankCertificate: the bank's signing certificate",
			ctx.now,
		);
	} catch (error) {
		throw failure(`${(error as Error).message}. Nothing was stored`);
	}
	return { encryptionPem: encryption.pem, signingPem: signing.pem, rootPem: sentRoot.pem };
}

/**
 * CertificateStatus of the new certificates, signed with the new signing key: each must be good.
 */
async function checkStatus(
	ctx: Context,
	trust: BankTrust,
	signing: SigningMaterial,
	certificates: X509Certificate[],
): Promise<CertificateStatusEntry[]> {
	const answer = await exchange(
		ctx,
		'CertificateStatus',
		signedQuery(
			'CertificateStatus',
			ctx.view.customerId,
			certificates.map((certificate) => serialOf(certificate)),
			pkiRequestId(),
			signing,
			ctx.now,
		),
		trust,
	);
	const entries = certificateStatuses(answer.response);
	for (const certificate of certificates) {
		const serial = serialOf(certificate);
		const entry = entries.find((e) => sameSerial(e.serialNumber, certificate));
		if (!entry)
			throw new EnrolmentError(`CertificateStatus: the bank did not report certificate ${serial}`);
		// good and expires_soon are valid certificates; expired and revoked (or anything else) are not.
		if (entry.status !== 'good' && entry.status !== 'expires_soon') {
			throw new EnrolmentError(
				`CertificateStatus: the bank reports the new ${entry.type || ''} certificate ${serial} as ${entry.status.replace('_', ' ')}${entry.expiryDate ? ` (${entry.expiryDate})` : entry.revocationDate ? ` (${entry.revocationDate})` : ''}, not valid`,
			);
		}
	}
	return entries;
}

/** An EnrolmentError with this message (for use where a failure is caught and reworded). */
function failure(message: string, keptCertificate = false): EnrolmentError {
	return new EnrolmentError(message, keptCertificate);
}

function describe(error: unknown): string {
	if (error instanceof PkiFaultError) return error.message;
	return `${(error as Error).message}`;
}

/**
 * CreateCertificate (with `pin`) or RenewCertificate (signed with `current`): new keys, the
 * bank's answer checked, CertificateStatus good. Returns the state to store.
 */
async function issue(
	ctx: Context,
	operation: 'CreateCertificate' | 'RenewCertificate',
	pin: string | undefined,
	current: EnrolmentState | undefined,
): Promise<EnrolmentState> {
	const bank = await bankCertificates(ctx);
	const subject = {
		commonName: ctx.view.customerId,
		serialNumber: ctx.view.customerId,
		country: 'FI',
	};
	const [signingKeys, encryptionKeys] = await Promise.all([
		createKeyAndRequest(subject),
		createKeyAndRequest(subject),
	]);
	const trust = trustOf(ctx);
	const decryption = decryptionMaterial(encryptionKeys.privateKeyPem);
	const payload = certificateRequest(
		operation,
		{
			customerId: ctx.view.customerId,
			encryptionCsrDer: encryptionKeys.csrDer,
			signingCsrDer: signingKeys.csrDer,
			requestId: pkiRequestId(),
			environment: pkiEnvironment(ctx.view),
			pin,
			signing: current
				? {
						...signingMaterial(current.certificatePem, current.privateKeyPem),
						algorithm: ctx.view.signatureAlgorithm,
					}
				: undefined,
			now: ctx.now,
		},
		bank.encryptionPem,
	);
	const answer = await exchange(ctx, operation, payload, trust, decryption);
	const signingCert = certificateElement(answer.response, 'SigningCert');
	const encryptionCert = certificateElement(answer.response, 'EncryptionCert');
	if (!holdsKey(signingCert.x509, signingKeys.publicKey))
		throw new EnrolmentError(
			`${operation}: the signing certificate the bank sent does not hold the key pair this credential made`,
		);
	if (!holdsKey(encryptionCert.x509, encryptionKeys.publicKey))
		throw new EnrolmentError(
			`${operation}: the encryption certificate the bank sent does not hold the key pair this credential made`,
		);
	for (const [what, cert] of [
		['signing', signingCert],
		['encryption', encryptionCert],
	] as const) {
		checkIssuedBy(cert.pem, ctx.pinnedRoot, `${operation}: the new ${what} certificate`, ctx.now);
	}
	await checkStatus(
		ctx,
		trust,
		{
			...signingMaterial(signingCert.pem, signingKeys.privateKeyPem),
			algorithm: ctx.view.signatureAlgorithm,
		},
		[signingCert.x509, encryptionCert.x509],
	);
	const notAfter = Math.min(
		new Date(signingCert.x509.validTo).getTime(),
		new Date(encryptionCert.x509.validTo).getTime(),
	);
	return {
		...(current ?? { enrolledAt: ctx.now.toISOString() }),
		v: 1,
		bank: ctx.view.profile.id,
		certificatePem: signingCert.pem,
		privateKeyPem: signingKeys.privateKeyPem,
		notBefore: new Date(signingCert.x509.validFrom).toISOString(),
		notAfter: new Date(notAfter).toISOString(),
		encryption: { certificatePem: encryptionCert.pem, privateKeyPem: encryptionKeys.privateKeyPem },
		bankCertificates: bank,
		...(current ? { renewedAt: ctx.now.toISOString() } : {}),
	} as EnrolmentState;
}

function statusText(state: EnrolmentState, action: 'enrolled' | 'renewed'): string {
	return `Signing and encryption certificates ${action} ${actionDay(state, action)}; valid until ${state.notAfter} (renewed automatically when they come within the renewal window)`;
}

/**
 * First enrolment from the PIN. Throws EnrolmentError naming what the bank said; nothing is stored.
 * The PIN counts as spent only once CreateCertificate may have reached the bank: a failure before
 * (GetBankCertificate refused, the service unreachable) leaves it usable and says so.
 */
export async function danskeEnrol(
	view: FileServiceCredentialView,
	bankCertificate: unknown,
	hash: string,
	tls: ClientTlsOptions | undefined,
	send: KeyServiceSender,
	pin: CodeCarrier,
	now: Date,
): Promise<IDataObject> {
	const ctx: Context = { view, pinnedRoot: bankRoot(view, bankCertificate), tls, send, pin, now };
	const label = view.profile.pin?.label ?? 'PIN';
	let state: EnrolmentState;
	try {
		state = await issue(ctx, 'CreateCertificate', view.pin, undefined);
	} catch (error) {
		if (error instanceof KeyServiceUnreachable) {
			const unanswered = pin.spent ? error : new KeyServiceUnreachable(error.reason, false);
			throw unansweredEnrolment(oneTimeCode(view), 'CreateCertificate', unanswered);
		}
		const said = describe(error).replace(/\.$/, '');
		if (!pin.spent) {
			throw failure(
				redactSecrets(
					`Enrolment stopped before the ${label} was sent: ${said}. The ${label} was not sent and still works: correct this and save the credential again. Nothing was stored`,
					view.secrets,
				),
			);
		}
		pin.settle(said);
		throw failure(
			redactSecrets(
				`Enrolment failed: sent the ${label} to ${view.certificateServiceUrl}; ${said}. Nothing was stored. A PIN works once: if the bank may have used it, ask the bank for a new one`,
				view.secrets,
			),
		);
	}
	pin.settle('the bank issued the certificates');
	state.pinHash = hash;
	return storedKeys(
		FILE_SERVICE_KEY_FIELDS,
		state,
		state.notAfter,
		statusText(state, 'enrolled'),
		true,
	);
}

/** Renewal signed with the current certificate. A failure keeps the current certificates. */
export async function danskeRenew(
	view: FileServiceCredentialView,
	bankCertificate: unknown,
	tls: ClientTlsOptions | undefined,
	send: KeyServiceSender,
	now: Date,
): Promise<IDataObject> {
	const current = view.enrolment!;
	const ctx: Context = { view, pinnedRoot: bankRoot(view, bankCertificate), tls, send, now };
	let state: EnrolmentState;
	try {
		state = await issue(ctx, 'RenewCertificate', undefined, current);
	} catch (error) {
		throw failure(
			`Renewal failed: sent RenewCertificate to ${view.certificateServiceUrl}; ${describe(error).replace(/\.$/, '')}. The current certificates (valid until ${current.notAfter}) keep being used`,
			true,
		);
	}
	return storedKeys(FILE_SERVICE_KEY_FIELDS, state, state.notAfter, statusText(state, 'renewed'));
}

/**
 * The bank's certificates (GetBankCertificate) and, when enrolled, the customer's own
 * certificates with their status (GetOwnCertificateList), for the Get Bank Certificates operation.
 */
export async function danskeCertificates(
	view: FileServiceCredentialView,
	bankCertificate: unknown,
	tls: ClientTlsOptions | undefined,
	send: KeyServiceSender,
	now = new Date(),
): Promise<IssuedCertificate[]> {
	const ctx: Context = { view, pinnedRoot: bankRoot(view, bankCertificate), tls, send, now };
	const bank = await bankCertificates(ctx);
	const out: IssuedCertificate[] = [
		{
			name: 'BankEncryptionCert',
			pem: bank.encryptionPem,
			x509: new X509Certificate(bank.encryptionPem),
		},
		{ name: 'BankSigningCert', pem: bank.signingPem, x509: new X509Certificate(bank.signingPem) },
		{ name: 'BankRootCert', pem: bank.rootPem, x509: new X509Certificate(bank.rootPem) },
	];
	const state = view.enrolment;
	if (state) {
		const signing = {
			...signingMaterial(state.certificatePem, state.privateKeyPem),
			algorithm: view.signatureAlgorithm,
		};
		const answer = await exchange(
			ctx,
			'GetOwnCertificateList',
			signedQuery('GetOwnCertificateList', view.customerId, [], pkiRequestId(), signing, now),
			trustOf(ctx),
		);
		const statuses = certificateStatuses(answer.response);
		for (const [name, pem] of [
			['OwnSigningCert', state.certificatePem],
			['OwnEncryptionCert', state.encryption?.certificatePem],
		] as const) {
			if (!pem) continue;
			const entry = statuses.find((e) => sameSerial(e.serialNumber, pem));
			out.push({
				name,
				pem,
				x509: new X509Certificate(pem),
				status: entry?.status ?? 'not listed by the bank',
			});
		}
	}
	return out;
}
