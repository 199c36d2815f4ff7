/**
 * Enrolment and renewal of the File Service credential's certificate, run from its
 * preAuthentication (see nodes/shared/keys/state.ts): GetCertificate with the one-time code and
 * RenewCertificate signed with the current certificate at the bxd certificate services (Nordea,
 * OP, the Samlink family), or Danske Bank's PKIFactoryService (danskeEnrolment.ts). The key pairs
 * are made inside n8n (keys/generate.ts); the code is spent only when the bank got it
 * (keys/oneTimeCode.ts); every answer is checked against the pinned root before anything is
 * stored, and a failure stores nothing, so the certificate the credential had keeps working.
 */
import type { KeyObject } from 'node:crypto';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { attempt, attemptAsync } from '../../common/attempt';
import type {
	BankProfile,
	BankTrust,
	CertCommand,
	CertServiceAnswer,
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
	describeRefusal,
	parseSoapFault,
	readBankCertificate,
	readCertServiceAnswer,
	signingMaterial,
} from '../index';
import { CredentialFieldError, tlsOptionsOf } from '../../common/credentialFields';
import { danskeCertificates, danskeEnrol, danskeRenew } from './danskeEnrolment';
import type {
	EnrolmentState,
	FileServiceCredentialView,
} from '../credential/fileServiceCredential';
import {
	bankRoot,
	ENROLMENT_CHECK_FIELD,
	FILE_SERVICE_KEY_FIELDS,
	oneTimeCode,
	readFileServiceCredential,
	RENEW_NOW_FIELD,
} from '../credential/fileServiceCredential';
import type { CodeCarrier, KeyServiceSender } from '../../keys';
import {
	actionDay,
	checkIssuedBy,
	codeHash,
	createKeyAndRequest,
	EnrolmentError,
	KeyServiceUnreachable,
	oncePerCode,
	renewalDue,
	storedKeys,
	unansweredEnrolment,
} from '../../keys';
import type { ClientTlsOptions } from '../../transport/tls';
import { normalizePem } from '../../transport/tls';
import { redactSecrets } from '../../transport/redact';

export type EnrolmentAction = 'enrol' | 'renew' | 'none';

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

/** What is due for the credential now: a first enrolment, a renewal, or nothing. */
export function enrolmentDue(
	view: FileServiceCredentialView,
	now = new Date(),
	force = false,
): EnrolmentAction {
	if (view.signingMode !== 'enrol') return 'none';
	const state = view.enrolment;
	if (view.pin && (!state || state.pinHash !== codeHash(view.customerId, view.pin))) return 'enrol';
	if (!state) return 'enrol';
	return renewalDue(state.notAfter, view.renewalWindowDays, now, force) ? 'renew' : 'none';
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
	const pinned = bankRoot(view, bankCertificate);
	const read = attempt(() => readBankCertificate(pinned, now));
	if (!read.ok) {
		throw new CredentialFieldError(
			`Bank Certificate: ${read.error instanceof BankCertificateError ? read.error.message : 'the PEM certificate cannot be read (it may be truncated or corrupted)'}`,
		);
	}
	return { pinned, trust: { ...read.value, acceptSha1: view.acceptSha1 } };
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

function statusText(state: EnrolmentState, action: 'enrolled' | 'renewed'): string {
	return `Certificate ${action} ${actionDay(state, action)}; valid until ${state.notAfter} (renewed automatically when it comes within the renewal window)`;
}

/**
 * Runs the enrolment or renewal that is due and returns the credential fields to store (nothing
 * stored when nothing was due). A failure throws EnrolmentError; the credential keeps what it had.
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
	action: 'enrol' | 'renew',
	send: KeyServiceSender,
	now: Date,
): Promise<IDataObject> {
	const tls = credentialTls(credentials);
	bankRoot(view, credentials.bankCertificate);
	if (action === 'renew')
		return await danskeRenew(view, credentials.bankCertificate, tls, send, now);
	return await oncePerCode(
		oneTimeCode(view),
		send,
		now,
		async (hash, carrier) =>
			await danskeEnrol(view, credentials.bankCertificate, hash, tls, send, carrier, now),
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
	carrier: CodeCarrier,
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
	const answer = await attemptAsync(
		async () =>
			await exchangeCert(view, dialect, 'GetCertificate', request, tls, carrier.send, checks.trust),
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
	const checked = attempt(() => issuedCertificate(answer.value, keys, checks.pinned, now));
	if (!checked.ok) {
		const why = (checked.error as Error).message.replace(/\.$/, '');
		carrier.settle(`the bank's answer was refused: ${why}`);
		throw new EnrolmentError(`Enrolment failed: ${why}. Ask the bank for a new ${label}`);
	}
	const issued = checked.value;
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
	send: KeyServiceSender,
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
		return await exchangeCert(view, dialect, 'RenewCertificate', request, tls, send, checks.trust);
	});
	if (!answer.ok) {
		throw new EnrolmentError(
			`Renewal failed: sent RenewCertificate to ${view.certificateServiceUrl}; ${certServiceOutcome(answer.error, 'RenewCertificate')}. ${kept}`,
			true,
		);
	}
	const checked = attempt(() => issuedCertificate(answer.value, keys, checks.pinned, now));
	if (!checked.ok) {
		throw new EnrolmentError(
			`Renewal failed: ${(checked.error as Error).message.replace(/\.$/, '')}. ${kept}`,
			true,
		);
	}
	const issued = checked.value;
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
	send: KeyServiceSender,
): Promise<IssuedCertificate[]> {
	const view = readFileServiceCredential(credentials);
	if (view.profile.enrolment === 'danskePki') {
		if (!view.certificateServiceUrl)
			throw new CredentialFieldError('Certificate Service URL: required');
		const listed = await attemptAsync(
			async () =>
				await danskeCertificates(
					view,
					credentials.bankCertificate,
					credentialTls(credentials),
					send,
				),
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
