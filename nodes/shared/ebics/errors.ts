/**
 * Errors of the EBICS protocol layer. The node turns them into n8n errors (InputError for
 * EbicsValidationError, BankFailure for the others); messages never carry key material.
 */
import type { ReturnCodeInfo } from './returnCodes';

/** Base of every error the EBICS layer raises. */
export class EbicsError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'EbicsError';
	}
}

/** A value given for a request breaks a rule of the H005 schema or of the spec; nothing was sent. */
export class EbicsValidationError extends EbicsError {
	constructor(
		/** The field the value belongs to, as the caller named it (e.g. "userId", "service.msgName"). */
		readonly field: string,
		message: string,
	) {
		super(message);
		this.name = 'EbicsValidationError';
	}
}

/** Key material that cannot be used (not RSA, too short, certificate and key not a pair). */
export class EbicsKeyError extends EbicsError {
	constructor(
		/** Which key: "signature (A006)", "authentication (X002)", "encryption (E002)", "bank ...". */
		readonly key: string,
		message: string,
	) {
		super(message);
		this.name = 'EbicsKeyError';
	}
}

/** The bank's answer cannot be read: not XML, a DOCTYPE, not EBICS, a missing element, bad base64. */
export class EbicsFormatError extends EbicsError {
	constructor(message: string) {
		super(message);
		this.name = 'EbicsFormatError';
	}
}

/** The bank's X002 authentication signature is missing or does not verify. */
export class EbicsSignatureError extends EbicsError {
	constructor(message: string) {
		super(message);
		this.name = 'EbicsSignatureError';
	}
}

/** Order data that cannot be decrypted, unzipped or reassembled (wrong key, damaged segment). */
export class EbicsDataError extends EbicsError {
	constructor(message: string) {
		super(message);
		this.name = 'EbicsDataError';
	}
}

/**
 * The bank's keys from HPB do not match the hashes pinned from the bank's letter (or none are
 * pinned). Carries the bank's hashes as the letter prints them, for the user to compare.
 */
export class EbicsBankKeyError extends EbicsError {
	constructor(
		message: string,
		readonly bankHashes: { authentication: string; encryption: string },
	) {
		super(message);
		this.name = 'EbicsBankKeyError';
	}
}

/**
 * The bank's ReportText as the message after the code and its name shows it: without a leading
 * "[NAME]" that repeats the code's name in the spec (many banks write it so), otherwise as the
 * bank wrote it. Undefined when nothing is left.
 */
export function bankTextAfterName(
	reportText: string | undefined,
	name: string | undefined,
): string | undefined {
	let text = reportText?.trim();
	if (text && name && text.startsWith(`[${name}]`)) text = text.slice(name.length + 2).trim();
	return text || undefined;
}

/**
 * A return code other than success, from the header (technical) or the body (business). Carries
 * the code's name in the spec, its meaning and what the user should do, and the bank's own text.
 * The message names the code, the spec's name and the bank's text ("091002
 * EBICS_INVALID_USER_OR_USER_STATE: <the bank's text>"); the spec's meaning when the bank gave
 * no text.
 */
export class EbicsReturnCodeError extends EbicsError {
	constructor(
		readonly code: string,
		readonly level: 'technical' | 'business',
		readonly info: ReturnCodeInfo | undefined,
		readonly reportText: string | undefined,
		/** Which request got it, e.g. "BTU initialisation". */
		readonly step: string,
	) {
		const said =
			bankTextAfterName(reportText, info?.name) ??
			info?.meaning ??
			'a code the EBICS specification does not name';
		super(`${step}: the bank answered ${code}${info ? ` ${info.name}` : ''}: ${said}`);
		this.name = 'EbicsReturnCodeError';
	}

	/** What the user should do about it, in words a treasurer understands. */
	get action(): string | undefined {
		return this.info?.action;
	}
}

/**
 * Runs `fn`; when it throws, throws what `fail` makes of that error instead (an EBICS error with
 * a clear message; `fail` may return the error itself to pass it on).
 */
export function rethrowAs<T>(fn: () => T, fail: (error: unknown) => Error): T {
	let outcome: { ok: true; value: T } | { ok: false; error: unknown };
	try {
		outcome = { ok: true, value: fn() };
	} catch (error) {
		outcome = { ok: false, error };
	}
	if (!outcome.ok) throw fail(outcome.error);
	return outcome.value;
}

/**
 * A transfer that stopped mid-way and could not be resumed: the answer to a segment did not come
 * (after the repetitions) or the bank refused to resume. For an upload, `mayHaveOrder` says
 * whether the bank may hold the whole order (the last segment went out): then it must not be sent
 * again before the customer protocol (HAC, PTK) shows whether order `orderId` arrived. The client
 * never starts the upload again itself.
 */
export class EbicsTransferInterrupted extends EbicsError {
	constructor(
		readonly direction: 'upload' | 'download',
		/** The request that got no usable answer, e.g. "BTU SCT pain.001 transfer of segment 3 of 3". */
		readonly step: string,
		readonly segment: number,
		readonly numSegments: number,
		readonly mayHaveOrder: boolean,
		/** What went wrong: the transport's error, or the bank's return code (EbicsReturnCodeError). */
		readonly cause: unknown,
		readonly orderId?: string,
	) {
		super(
			`${step}: ${
				cause instanceof EbicsReturnCodeError
					? `no answer came, and the bank refused the segment sent again: ${cause.message.replace(`${cause.step}: `, '')}`
					: cause instanceof EbicsError
						? `no answer came, and the answer to the segment sent again cannot be used: ${cause.message}`
						: 'no answer came, also not when the segment was sent again'
			}`,
		);
		this.name = 'EbicsTransferInterrupted';
	}
}
