/**
 * Errors of the SFTP and OpenPGP layer. The n8n side turns them into n8n errors (InputError for
 * values to change, BankFailure for what the bank's server or its files did); messages name the
 * cause and never carry a key, a passphrase or a password.
 */

/** Base of every error the SFTP layer raises. */
export class SftpError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'SftpError';
	}
}

/** A value given breaks a rule (a field and its rule); nothing was sent. */
export class SftpValidationError extends SftpError {
	constructor(
		/** The field as the user sees it ("Host Key Fingerprint", "Bank Public Keys"). */
		readonly field: string,
		message: string,
	) {
		super(message);
		this.name = 'SftpValidationError';
	}
}

/**
 * The server showed another host key than the one pinned, or none is pinned yet: nothing was
 * sent, not even the login. `seen` is the fingerprint the server showed, as OpenSSH prints it.
 */
export class SftpHostKeyError extends SftpError {
	constructor(
		readonly seen: string,
		readonly pinned: string | undefined,
		readonly keyType: string,
	) {
		super(
			pinned
				? `The server's host key (${keyType} ${seen}) is not the pinned one (${pinned}): the connection was refused before logging in`
				: `No host key is pinned. The server shows ${keyType} ${seen}: compare it with the fingerprint your bank gave you and, if it is the same, paste it into Host Key Fingerprint`,
		);
		this.name = 'SftpHostKeyError';
	}
}

/** The server refused the login (user, key or password). */
export class SftpAuthError extends SftpError {
	constructor(message: string) {
		super(message);
		this.name = 'SftpAuthError';
	}
}

/** The connection could not be made or broke off (host, port, network, time-out). */
export class SftpConnectionError extends SftpError {
	constructor(
		message: string,
		readonly code?: string,
	) {
		super(message);
		this.name = 'SftpConnectionError';
	}
}

/** The server answered a file operation with an SFTP status (no such file, permission denied). */
export class SftpFileError extends SftpError {
	constructor(
		message: string,
		readonly path: string,
		/** SFTP status code (2 no such file, 3 permission denied, 4 failure). */
		readonly status?: number,
	) {
		super(message);
		this.name = 'SftpFileError';
	}
}

/** A file is still being written (its size or time changed while it was read, a partial name). */
export class SftpFileBusyError extends SftpError {
	constructor(
		message: string,
		readonly path: string,
	) {
		super(message);
		this.name = 'SftpFileBusyError';
	}
}

/** What went wrong with OpenPGP: which rule a key, a signature or a message broke. */
export type PgpProblem =
	| 'key'
	| 'expired'
	| 'revoked'
	| 'recipient'
	| 'unsigned'
	| 'signer'
	| 'signature'
	| 'integrity'
	| 'format'
	| 'truncated';

/** An OpenPGP key, message or signature that cannot be used. */
export class PgpError extends SftpError {
	constructor(
		readonly problem: PgpProblem,
		message: string,
		/** The fingerprint of the key concerned, when one is. */
		readonly fingerprint?: string,
	) {
		super(message);
		this.name = 'PgpError';
	}
}
