/**
 * Enrolment and renewal with Danske Bank's PKIFactoryService, run from the credential's
 * preAuthentication like the other banks' (see fileServiceEnrolment.ts): GetBankCertificate
 * (the bank's encryption and signing certificates, checked against the pinned root), then
 * CreateCertificate with the PIN (first enrolment) or RenewCertificate signed with the current
 * key: two new key pairs and two PKCS#10 requests, signing and encryption. The certificates the
 * bank issues must hold the new keys; then the answer's signature (either algorithm), their chain
 * to the pinned root, their dates and CertificateStatus are checked. A failure before the bank
 * issued them stores nothing; a failed check after it keeps them pending in the credential, and
 * the next run completes the enrolment or renewal without the PIN. The certificates the
 * credential had keep working until new ones are complete.
 */
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { attempt } from '../../common/attempt';
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
	checkCertificateDates,
	decryptionMaterial,
	getBankCertificateRequest,
	openPkiAnswer,
	pkiRequestId,
	pkiSoapAction,
	PkiFaultError,
	readPkiAnswer,
	readPkiFault,
	readPkiResponse,
	sameSerial,
	serialOf,
	signedQuery,
	signingMaterial,
	verifyPkiResponse,
} from '../index';
import type {
	EnrolmentState,
	FileServiceCredentialView,
	PendingEnrolment,
} from '../credential/fileServiceCredential';
import {
	bankRoot,
	enrolmentNote,
	FILE_SERVICE_KEY_FIELDS,
	oneTimeCode,
	stillPending,
	storedPending,
} from '../credential/fileServiceCredential';
import type { CodeCarrier, KeyServiceSender } from '../../keys';
import {
	actionDay,
	checkIssuedBy,
	createKeyAndRequest,
	EnrolmentError,
	holdsKey,
	IssuedCheckError,
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

/** What a call of the PKIFactoryService takes from the credential, and the time. */
export interface DanskeCall {
	view: FileServiceCredentialView;
	/** The credential's Bank Certificate (the pinned root, required). */
	bankCertificate: unknown;
	tls?: ClientTlsOptions;
	send: KeyServiceSender;
	now: Date;
}

function contextOf(call: DanskeCall, pin?: CodeCarrier): Context {
	const { view, tls, send, now } = call;
	return { view, pinnedRoot: bankRoot(view, call.bankCertificate), tls, send, pin, now };
}

/**
 * The pinned root the PKI service's answers are checked against. They are signed as Danske
 * Bank's public samples are, RSA-SHA1 (sepafm test/sepa/banks/danske/responses/): the signature
 * is verified whatever its algorithm, which is no reason to refuse an answer of the certificate
 * service (the credential's SHA-1 choice governs the file service's data answers only).
 */
function trustOf(ctx: Context): BankTrust {
	return { ...bankTrust(ctx.pinnedRoot), acceptSha1: true };
}

function pkiEnvironment(view: FileServiceCredentialView): string {
	const values = view.profile.pkiEnvironments ?? { production: 'production', test: 'customertest' };
	return view.environment === 'TEST' ? values.test : values.production;
}

/** Sends one PKIFactoryService request; returns the answer's body (a refusal throws). */
async function send(ctx: Context, operation: PkiOperation, payload: string): Promise<Buffer> {
	const sender = operation === 'CreateCertificate' && ctx.pin ? ctx.pin.send : ctx.send;
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
	const reply = await sender({
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
	return Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(String(reply.body), 'utf8');
}

async function exchange(
	ctx: Context,
	operation: PkiOperation,
	payload: string,
	trust: BankTrust,
	decryption?: DecryptionMaterial,
) {
	return readPkiAnswer(await send(ctx, operation, payload), operation, trust, decryption);
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
		throw new IssuedCheckError(
			`GetBankCertificate: the bank's root certificate (${sentRoot.x509.subject.replace(/\n/g, ', ')}) is not the pinned Bank Certificate`,
			'Bank Certificate',
		);
	}
	for (const [what, cert] of [
		['encryption', encryption],
		['signing', signing],
	] as const) {
		const checked = attempt(() =>
			checkIssuedBy(
				cert.pem,
				ctx.pinnedRoot,
				`GetBankCertificate: the bank's ${what} certificate`,
				ctx.now,
			),
		);
		if (!checked.ok)
			throw new IssuedCheckError((checked.error as Error).message, 'Bank Certificate');
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
	if (error instanceof KeyServiceUnreachable) return `no answer came: ${error.reason}`;
	return `${(error as Error).message}`;
}

/** The two certificates of a CreateCertificate or RenewCertificate answer that hold our two keys. */
function ourCertificates(
	response: Element,
	operation: 'CreateCertificate' | 'RenewCertificate',
	pending: Pick<PendingEnrolment, 'privateKeyPem' | 'encryptionKeyPem'>,
) {
	const signing = certificateElement(response, 'SigningCert');
	const encryption = certificateElement(response, 'EncryptionCert');
	const publicOf = (pem: string) => createPublicKey(createPrivateKey(pem));
	if (!holdsKey(signing.x509, publicOf(pending.privateKeyPem)))
		throw new EnrolmentError(
			`${operation}: the signing certificate the bank sent does not hold the key pair this credential made`,
		);
	if (!holdsKey(encryption.x509, publicOf(pending.encryptionKeyPem!)))
		throw new EnrolmentError(
			`${operation}: the encryption certificate the bank sent does not hold the key pair this credential made`,
		);
	return { signing, encryption };
}

/**
 * CreateCertificate (with `pin`) or RenewCertificate (signed with `current`): new keys, the
 * request sent, the answer read up to the certificates holding our keys (a refusal, or
 * certificates for other keys, throw). Returns what to keep and check, and the bank's
 * certificates it fetched first.
 */
async function request(
	ctx: Context,
	operation: 'CreateCertificate' | 'RenewCertificate',
	pin: string | undefined,
	current: EnrolmentState | undefined,
): Promise<{ pending: PendingEnrolment; bank: BankCertificates }> {
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
	const body = await send(ctx, operation, payload);
	const opened = openPkiAnswer(body, operation, decryptionMaterial(encryptionKeys.privateKeyPem));
	const keys = {
		privateKeyPem: signingKeys.privateKeyPem,
		encryptionKeyPem: encryptionKeys.privateKeyPem,
	};
	ourCertificates(opened.response, operation, keys);
	return {
		bank,
		pending: {
			kind: current ? 'renew' : 'enrol',
			command: operation,
			answeredAt: ctx.now.toISOString(),
			reason: '',
			...keys,
			answer: Buffer.from(opened.text, 'utf8').toString('base64'),
		},
	};
}

/**
 * The checks of the certificates the bank issued for our keys, just received or kept pending:
 * the answer's signature, their chain to the pinned root (the bank's certificates fetched again
 * when not given) and their dates, and CertificateStatus. Returns the fields to store: the new
 * certificates in use when every check passes, else the pending enrolment or renewal with what
 * failed (never nothing: the bank issued them).
 */
async function settle(
	ctx: Context,
	pending: PendingEnrolment,
	fetched?: BankCertificates,
): Promise<IDataObject> {
	const operation =
		pending.command === 'RenewCertificate' ? 'RenewCertificate' : 'CreateCertificate';
	const current = pending.kind === 'renew' ? ctx.view.enrolment : undefined;
	let state: EnrolmentState;
	try {
		const bank = fetched ?? (await bankCertificates(ctx));
		const text = Buffer.from(pending.answer, 'base64').toString('utf8');
		const response = readPkiResponse(text, operation);
		const { signing, encryption } = ourCertificates(response, operation, pending);
		const trust = trustOf(ctx);
		const signed = attempt(() => verifyPkiResponse(text, operation, trust));
		if (!signed.ok)
			throw new IssuedCheckError(
				`the ${operation}Response failed the signature check against the Bank Certificate: ${(signed.error as Error).message}`,
				'Bank Certificate',
			);
		for (const [what, cert] of [
			['signing', signing],
			['encryption', encryption],
		] as const) {
			const dated = attempt(() => checkCertificateDates(cert, ctx.now));
			if (!dated.ok) throw new IssuedCheckError((dated.error as Error).message);
			const chained = attempt(() =>
				checkIssuedBy(
					cert.pem,
					ctx.pinnedRoot,
					`${operation}: the new ${what} certificate`,
					ctx.now,
				),
			);
			if (!chained.ok)
				throw new IssuedCheckError((chained.error as Error).message, 'Bank Certificate');
		}
		await checkStatus(
			ctx,
			trust,
			{
				...signingMaterial(signing.pem, pending.privateKeyPem),
				algorithm: ctx.view.signatureAlgorithm,
			},
			[signing.x509, encryption.x509],
		);
		const notAfter = Math.min(
			new Date(signing.x509.validTo).getTime(),
			new Date(encryption.x509.validTo).getTime(),
		);
		state = {
			...(current ?? { enrolledAt: ctx.now.toISOString(), pinHash: pending.pinHash }),
			v: 1,
			bank: ctx.view.profile.id,
			certificatePem: signing.pem,
			privateKeyPem: pending.privateKeyPem,
			notBefore: new Date(signing.x509.validFrom).toISOString(),
			notAfter: new Date(notAfter).toISOString(),
			encryption: { certificatePem: encryption.pem, privateKeyPem: pending.encryptionKeyPem! },
			bankCertificates: bank,
			...(current ? { renewedAt: ctx.now.toISOString() } : {}),
			answerSignature: signed.value,
		} as EnrolmentState;
	} catch (error) {
		const reason =
			error instanceof KeyServiceUnreachable
				? new EnrolmentError(
						`the PKIFactoryService could not be reached to check the new certificates: ${error.reason}`,
					)
				: error;
		return storedPending(ctx.view, stillPending(pending, reason));
	}
	delete state.pending;
	const action = current ? 'renewed' : 'enrolled';
	return storedKeys(
		FILE_SERVICE_KEY_FIELDS,
		state,
		state.notAfter,
		statusText(ctx.view, state, action),
		!current,
	);
}

function statusText(
	view: FileServiceCredentialView,
	state: EnrolmentState,
	action: 'enrolled' | 'renewed',
): string {
	return `Signing and encryption certificates ${action} ${actionDay(state, action)}; valid until ${state.notAfter} (renewed automatically when they come within the renewal window). ${enrolmentNote(view, state.answerSignature)}`;
}

/**
 * First enrolment from the PIN. A failure before the bank issued certificates for our keys throws
 * EnrolmentError naming what the bank said, and nothing is stored. The PIN counts as spent only
 * once CreateCertificate may have reached the bank: a failure before (GetBankCertificate refused,
 * the service unreachable) leaves it usable and says so. Once the bank issued them, the fields to
 * store are returned (pending when a check failed).
 */
export async function danskeEnrol(
	call: DanskeCall,
	hash: string,
	pin: CodeCarrier,
): Promise<IDataObject> {
	const ctx = contextOf(call, pin);
	const view = call.view;
	const label = view.profile.pin?.label ?? 'PIN';
	let issued: Awaited<ReturnType<typeof request>>;
	try {
		issued = await request(ctx, 'CreateCertificate', view.pin, undefined);
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
	const fields = await settle(ctx, { ...issued.pending, pinHash: hash }, issued.bank);
	pin.settle(
		fields[FILE_SERVICE_KEY_FIELDS.check]
			? 'the bank issued the certificates'
			: 'the bank issued the certificates, kept in the credential until their checks pass: save the credential again to complete the enrolment',
	);
	return fields;
}

/**
 * Renewal signed with the current certificate. A failure before the bank issued new certificates
 * keeps the current ones (and throws); after it, the new ones are kept pending when a check
 * fails, and the current ones stay in use.
 */
export async function danskeRenew(call: DanskeCall): Promise<IDataObject> {
	const { view } = call;
	const current = view.enrolment!;
	const ctx = contextOf(call);
	let issued: Awaited<ReturnType<typeof request>>;
	try {
		issued = await request(ctx, 'RenewCertificate', undefined, current);
	} catch (error) {
		throw failure(
			`Renewal failed: sent RenewCertificate to ${view.certificateServiceUrl}; ${describe(error).replace(/\.$/, '')}. The current certificates (valid until ${current.notAfter}) keep being used`,
			true,
		);
	}
	return await settle(ctx, issued.pending, issued.bank);
}

/**
 * Completes the pending enrolment or renewal: every check again, with the credential's settings
 * as they are now (GetBankCertificate again, the kept answer's signature and certificates,
 * CertificateStatus); the PIN is not sent.
 */
export async function danskeComplete(call: DanskeCall): Promise<IDataObject> {
	return await settle(contextOf(call), call.view.pending!);
}

/**
 * The bank's certificates (GetBankCertificate) and, when enrolled, the customer's own
 * certificates with their status (GetOwnCertificateList), for the Get Bank Certificates operation.
 */
export async function danskeCertificates(call: DanskeCall): Promise<IssuedCertificate[]> {
	const { view, now } = call;
	const ctx = contextOf(call);
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
