/**
 * Enrolment and renewal of the File Service credential's certificate, run from its
 * preAuthentication (see nodes/shared/keys/state.ts): GetCertificate with the one-time code and
 * RenewCertificate signed with the current certificate at the bxd certificate services (Nordea,
 * OP, the Samlink family), or Danske Bank's PKIFactoryService (danskeEnrolment.ts). The key pairs
 * are made inside n8n (keys/generate.ts); the code is spent only when the bank got it
 * (keys/oneTimeCode.ts). The trust anchor is the issued certificate itself: it must hold the key
 * made in n8n and chain to the pinned root, checked in every case; the answer's signature is
 * verified too, whatever its algorithm. A failure before the bank issued anything stores nothing.
 * Once the bank answered with a certificate for our key, a failed check keeps it pending in the
 * credential (keys, answer, reason: fileServiceCredential.ts PendingEnrolment), and the next run
 * completes it with the corrected settings, without the code. A pending renewal never replaces
 * the certificate in use.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { attempt, attemptAsync } from '../../common/attempt';
import type {
	BankProfile,
	BankTrust,
	CertCommand,
	IssuedCertificate,
	SigningMaterial,
} from '../index';
import {
	BankCertificateError,
	BxdFaultError,
	BxdResponseCodeError,
	buildCertApplicationRequest,
	buildCertEnvelope,
	certificateForKey,
	CertificateServiceError,
	checkCertificateDates,
	describeRefusal,
	parseSoapFault,
	readBankCertificate,
	readCertApplicationResponse,
	readCertServiceAnswer,
	signingMaterial,
	verifyCertAnswer,
} from '../index';
import { CredentialFieldError, tlsOptionsOf } from '../../common/credentialFields';
import { danskeCertificates, danskeComplete, danskeEnrol, danskeRenew } from './danskeEnrolment';
import type {
	EnrolmentState,
	FileServiceCredentialView,
	PendingEnrolment,
} from '../credential/fileServiceCredential';
import {
	bankRoot,
	ENROLMENT_CHECK_FIELD,
	enrolmentNote,
	FILE_SERVICE_KEY_FIELDS,
	oneTimeCode,
	readFileServiceCredential,
	RENEW_NOW_FIELD,
	stillPending,
	storedPending,
} from '../credential/fileServiceCredential';
import type { CodeCarrier, KeyServiceSender } from '../../keys';
import {
	actionDay,
	checkIssuedBy,
	codeHash,
	createKeyAndRequest,
	EnrolmentError,
	IssuedCheckError,
	KeyServiceUnreachable,
	oncePerCode,
	renewalDue,
	storedKeys,
	unansweredEnrolment,
} from '../../keys';
import type { ClientTlsOptions } from '../../transport/tls';
import { normalizePem } from '../../transport/tls';
import { redactSecrets } from '../../transport/redact';

/** What is due: a first enrolment, a renewal, completing a pending one, or nothing. */
export type EnrolmentAction = 'enrol' | 'renew' | 'complete' | 'none';

/**
 * The credential fields that store an enrolment or a renewal: the state, its expiry (n8n runs
 * preAuthentication again once the expirable check field is empty) and the status shown in the
 * credential. An enrolment also blanks the code it used (its hash stays in the state).
 */
export function storedEnrolment(
	state: EnrolmentState,
	action: 'enrolled' | 'renewed',
	status: string,
): IDataObject {
	return storedKeys(FILE_SERVICE_KEY_FIELDS, state, state.notAfter, status, action === 'enrolled');
}

/**
 * What is due for the credential now: a first enrolment (no certificate, or a PIN pasted that is
 * neither the one enrolled nor the one pending), completing a pending enrolment or renewal, a
 * renewal, or nothing.
 */
export function enrolmentDue(
	view: FileServiceCredentialView,
	now = new Date(),
	force = false,
): EnrolmentAction {
	if (view.signingMode !== 'enrol') return 'none';
	const state = view.enrolment;
	const pending = view.pending;
	if (view.pin) {
		const hash = codeHash(view.customerId, view.pin);
		if (hash !== state?.pinHash && hash !== pending?.pinHash) return 'enrol';
	}
	if (pending) return 'complete';
	if (!state) return 'enrol';
	return renewalDue(state.notAfter, view.renewalWindowDays, now, force) ? 'renew' : 'none';
}

interface AnswerChecks {
	/** The pinned root (the Bank Certificate). */
	pinned: string;
	trust: BankTrust;
}

/**
 * What the certificate service's answers are checked against: the pinned root (required), read
 * and valid.
 */
function certServiceTrust(
	view: FileServiceCredentialView,
	bankCertificate: unknown,
	now: Date,
): AnswerChecks {
	const pinned = bankRoot(view, bankCertificate);
	const read = attempt(() => readBankCertificate(pinned, now));
	if (!read.ok) {
		throw new CredentialFieldError(
			`Bank Certificate: ${read.error instanceof BankCertificateError ? read.error.message : 'the PEM certificate cannot be read (it may be truncated or corrupted)'}`,
		);
	}
	return { pinned, trust: read.value };
}

/**
 * The checks of an answer that carries a certificate for the key made in n8n, just received or
 * kept pending: the answer's signature (verified whatever its algorithm), the certificate's dates
 * and its chain to the pinned root (with the other certificates of the answer as possible
 * intermediates). Returns how the answer was signed; throws IssuedCheckError naming what failed
 * and the field to correct.
 */
function checkAnswer(
	document: Buffer,
	issued: IssuedCertificate,
	others: IssuedCertificate[],
	checks: AnswerChecks,
	now: Date,
): string {
	const signed = attempt(() => verifyCertAnswer(document, checks.trust));
	if (!signed.ok) throw new IssuedCheckError((signed.error as Error).message, 'Bank Certificate');
	const dated = attempt(() => checkCertificateDates(issued, now));
	if (!dated.ok) throw new IssuedCheckError((dated.error as Error).message);
	const chained = attempt(() =>
		checkIssuedBy(
			issued.pem,
			checks.pinned,
			'The certificate the bank issued',
			now,
			others.map((c) => c.x509).filter((c) => c.fingerprint256 !== issued.x509.fingerprint256),
		),
	);
	if (!chained.ok) throw new IssuedCheckError((chained.error as Error).message, 'Bank Certificate');
	return signed.value.algorithm;
}

/**
 * Runs the checks of an answer the bank gave for the key made in n8n (fresh, or kept pending) and
 * returns the fields to store: the certificate in use when every check passes, else the pending
 * enrolment or renewal with what failed. Nothing here throws for a failed check: once the bank
 * issued a certificate for our key, the credential never ends up with nothing.
 */
function settle(
	view: FileServiceCredentialView,
	pending: PendingEnrolment,
	checks: AnswerChecks,
	now: Date,
): IDataObject {
	const outcome = attempt(() => {
		const document = Buffer.from(pending.answer, 'base64');
		const response = readCertApplicationResponse(document);
		const publicKey = createPublicKey(createPrivateKey(pending.privateKeyPem));
		const issued = certificateForKey(response, publicKey);
		return {
			issued,
			signedWith: checkAnswer(document, issued, response.certificates, checks, now),
		};
	});
	if (!outcome.ok) return storedPending(view, stillPending(pending, outcome.error));
	const { issued, signedWith } = outcome.value;
	const current = pending.kind === 'renew' ? view.enrolment : undefined;
	const state: EnrolmentState = {
		...(current ?? { enrolledAt: now.toISOString(), pinHash: pending.pinHash }),
		v: 1,
		bank: view.profile.id,
		certificatePem: issued.pem,
		privateKeyPem: pending.privateKeyPem,
		notBefore: new Date(issued.x509.validFrom).toISOString(),
		notAfter: new Date(issued.x509.validTo).toISOString(),
		...(current ? { renewedAt: now.toISOString() } : {}),
		answerSignature: signedWith,
	};
	delete state.pending;
	const action = current ? 'renewed' : 'enrolled';
	return storedEnrolment(state, action, statusText(view, state, action));
}

/**
 * What came back from a certificate service: "the bank answered ..." (its code and what it means,
 * or why its answer was refused), or that no answer came and why.
 */
function certServiceOutcome(error: unknown, command: CertCommand): string {
	if (error instanceof KeyServiceUnreachable) return `no answer came: ${error.reason}`;
	if (error instanceof BxdResponseCodeError || error instanceof BxdFaultError)
		return `the bank answered ${describeRefusal(error, command).replace(/\.$/, '')}`;
	// The answer came, and a check of ours refused it.
	const message = (error as Error)?.message ?? String(error);
	return `the bank answered, but ${message.charAt(0).toLowerCase()}${message.slice(1).replace(/\.$/, '')}`;
}

function statusText(
	view: FileServiceCredentialView,
	state: EnrolmentState,
	action: 'enrolled' | 'renewed',
): string {
	return `Certificate ${action} ${actionDay(state, action)}; valid until ${state.notAfter} (renewed automatically when it comes within the renewal window). ${enrolmentNote(view, state.answerSignature)}`;
}

/**
 * Runs the enrolment or renewal that is due and returns the credential fields to store (nothing
 * stored when nothing was due). A failure before the bank issued a certificate throws
 * EnrolmentError (or CredentialFieldError for a field to fix) and the credential keeps what it
 * had; once the bank issued one for the key made here, the fields are returned in every case,
 * pending when a check failed (the credential test and the node then say what to correct).
 */
export async function runEnrolment(
	credentials: ICredentialDataDecryptedObject,
	send: KeyServiceSender,
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
	const checks = certServiceTrust(view, credentials.bankCertificate, now);
	// Completing needs no request: every check runs again on what the bank answered.
	if (action === 'complete') return settle(view, view.pending!, checks, now);
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
	if (action === 'renew') return await renew(view, dialect, tls, send, checks, now);
	return await oncePerCode(
		oneTimeCode(view),
		send,
		now,
		async (hash, carrier) => await enrol(view, dialect, hash, tls, carrier, checks, now),
	);
}

/**
 * Danske Bank: the same PIN rules as the other banks (sent once, one at a time), through its
 * PKIFactoryService; only CreateCertificate carries the PIN.
 */
async function runDanskeEnrolment(
	view: FileServiceCredentialView,
	credentials: ICredentialDataDecryptedObject,
	action: Exclude<EnrolmentAction, 'none'>,
	send: KeyServiceSender,
	now: Date,
): Promise<IDataObject> {
	const call = {
		view,
		bankCertificate: credentials.bankCertificate,
		tls: credentialTls(credentials),
		send,
		now,
	};
	bankRoot(view, credentials.bankCertificate);
	if (action === 'complete') return await danskeComplete(call);
	if (action === 'renew') return await danskeRenew(call);
	return await oncePerCode(
		oneTimeCode(view),
		send,
		now,
		async (hash, carrier) => await danskeEnrol(call, hash, carrier),
	);
}

function credentialTls(credentials: ICredentialDataDecryptedObject): ClientTlsOptions | undefined {
	const read = attempt(() => tlsOptionsOf(credentials, credentials.useClientCertificate === true));
	if (!read.ok) throw new CredentialFieldError((read.error as Error).message);
	return read.value;
}

async function exchangeCert(
	view: FileServiceCredentialView,
	dialect: NonNullable<BankProfile['certDialect']>,
	command: 'GetCertificate' | 'RenewCertificate' | 'GetServiceCertificates',
	applicationRequest: string,
	tls: ClientTlsOptions | undefined,
	send: KeyServiceSender,
	trust?: BankTrust,
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

/**
 * Sends the request and reads the bank's answer up to the certificate it issued for `publicKey`:
 * its code (a refusal throws) and the certificate holding our key (none throws). What it returns
 * is the decoded answer to keep and check.
 */
async function requestCertificate(
	view: FileServiceCredentialView,
	dialect: NonNullable<BankProfile['certDialect']>,
	command: 'GetCertificate' | 'RenewCertificate',
	request: string,
	tls: ClientTlsOptions | undefined,
	send: KeyServiceSender,
	privateKeyPem: string,
): Promise<Buffer> {
	const answer = await exchangeCert(view, dialect, command, request, tls, send);
	const publicKey = createPublicKey(createPrivateKey(privateKeyPem));
	certificateForKey(answer.response, publicKey);
	return answer.document!;
}

function subjectFor(view: FileServiceCredentialView) {
	return { commonName: view.customerId, serialNumber: view.customerId, country: 'FI' };
}

async function enrol(
	view: FileServiceCredentialView,
	dialect: NonNullable<BankProfile['certDialect']>,
	hash: string,
	tls: ClientTlsOptions | undefined,
	carrier: CodeCarrier,
	checks: AnswerChecks,
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
	const answer = await attemptAsync(
		async () =>
			await requestCertificate(
				view,
				dialect,
				'GetCertificate',
				request,
				tls,
				carrier.send,
				keys.privateKeyPem,
			),
	);
	if (!answer.ok && answer.error instanceof KeyServiceUnreachable)
		throw unansweredEnrolment(oneTimeCode(view), 'GetCertificate', answer.error);
	if (!answer.ok) {
		const said = certServiceOutcome(answer.error, 'GetCertificate');
		carrier.settle(said);
		throw new EnrolmentError(
			redactSecrets(
				`Enrolment failed: sent GetCertificate with the ${label} to ${view.certificateServiceUrl}; ${said}. Nothing was stored. A code works once: if the bank may have used it, ask the bank for a new one`,
				view.secrets,
			),
		);
	}
	const fields = settle(
		view,
		{
			kind: 'enrol',
			command: 'GetCertificate',
			answeredAt: now.toISOString(),
			pinHash: hash,
			reason: '',
			privateKeyPem: keys.privateKeyPem,
			answer: answer.value.toString('base64'),
		},
		checks,
		now,
	);
	carrier.settle(
		fields[ENROLMENT_CHECK_FIELD]
			? 'the bank issued a certificate'
			: 'the bank issued a certificate, kept in the credential until its checks pass: save the credential again to complete the enrolment',
	);
	return fields;
}

async function renew(
	view: FileServiceCredentialView,
	dialect: NonNullable<BankProfile['certDialect']>,
	tls: ClientTlsOptions | undefined,
	send: KeyServiceSender,
	checks: AnswerChecks,
	now: Date,
): Promise<IDataObject> {
	const current = view.enrolment!;
	const signing: SigningMaterial = {
		...signingMaterial(current.certificatePem, current.privateKeyPem),
		algorithm: view.signatureAlgorithm,
	};
	const keys = await createKeyAndRequest(subjectFor(view));
	const answer = await attemptAsync(async () => {
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
		return await requestCertificate(
			view,
			dialect,
			'RenewCertificate',
			request,
			tls,
			send,
			keys.privateKeyPem,
		);
	});
	if (!answer.ok) {
		throw new EnrolmentError(
			`Renewal failed: sent RenewCertificate to ${view.certificateServiceUrl}; ${certServiceOutcome(answer.error, 'RenewCertificate')}. The current certificate (valid until ${current.notAfter}) keeps being used`,
			true,
		);
	}
	return settle(
		view,
		{
			kind: 'renew',
			command: 'RenewCertificate',
			answeredAt: now.toISOString(),
			reason: '',
			privateKeyPem: keys.privateKeyPem,
			answer: answer.value.toString('base64'),
		},
		checks,
		now,
	);
}

/**
 * The bank's own certificates from its certificate service (GetServiceCertificates: OP, and
 * Nordea's service has the operation too), for the Bank Certificate and the trust store. Samlink's
 * service has no such operation.
 */
export async function fetchServiceCertificates(
	credentials: ICredentialDataDecryptedObject,
	send: KeyServiceSender,
): Promise<IssuedCertificate[]> {
	const view = readFileServiceCredential(credentials);
	if (view.profile.enrolment === 'danskePki') {
		if (!view.certificateServiceUrl)
			throw new CredentialFieldError('Certificate Service URL: required');
		const listed = await attemptAsync(
			async () =>
				await danskeCertificates({
					view,
					bankCertificate: credentials.bankCertificate,
					tls: credentialTls(credentials),
					send,
					now: new Date(),
				}),
		);
		if (listed.ok) return listed.value;
		if (listed.error instanceof CredentialFieldError) throw listed.error;
		throw new Error(
			`Sent GetBankCertificate to ${view.certificateServiceUrl}; ${(listed.error as Error).message}`,
		);
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
	// The Bank Certificate, when given, checks the answer's signature; these are the certificates
	// to pin, so it is not required here.
	const trust = normalizePem(credentials.bankCertificate)
		? certServiceTrust(view, credentials.bankCertificate, new Date()).trust
		: undefined;
	const answer = await attemptAsync(
		async () =>
			await exchangeCert(
				view,
				dialect,
				'GetServiceCertificates',
				request,
				credentialTls(credentials),
				send,
				trust,
			),
	);
	if (!answer.ok) {
		throw new Error(
			`Sent GetServiceCertificates to ${view.certificateServiceUrl}; ${certServiceOutcome(answer.error, 'GetServiceCertificates')}`,
		);
	}
	return answer.value.response?.certificates ?? [];
}
