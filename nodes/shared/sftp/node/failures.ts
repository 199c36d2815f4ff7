/**
 * The SFTP layer's errors as the project's errors (nodes/shared/common/errors.ts): values to
 * change become InputError naming the field; what the server or the bank's files did becomes
 * BankFailure with a code and the server's or the check's words.
 */
import { BankFailure, InputError } from '../../common/errors';
import {
	PgpError,
	SftpAuthError,
	SftpConnectionError,
	SftpError,
	SftpFileBusyError,
	SftpFileError,
	SftpHostKeyError,
	SftpValidationError,
} from '../index';

/** Problems of a key the credential holds: the credential is to be changed. */
const KEY_PROBLEMS = new Set(['key', 'expired', 'revoked']);

export function sftpFailure(error: unknown, itemIndex?: number): Error {
	if (error instanceof InputError || error instanceof BankFailure) return error;
	if (error instanceof SftpValidationError)
		return new InputError(`${error.field}: ${error.message}`, { itemIndex });
	if (error instanceof SftpHostKeyError)
		return new InputError(`Host Key Fingerprint: ${error.message}`, {
			itemIndex,
			description:
				"Pin the fingerprint your bank gave you (SHA256:...) in the credential. A server that shows another key is not the bank's, or the bank changed its key: ask the bank before pinning the new one.",
		});
	if (error instanceof PgpError && KEY_PROBLEMS.has(error.problem))
		return new InputError(error.message, {
			itemIndex,
			description: 'Change the key in the Bank SFTP credential.',
		});
	if (error instanceof SftpError) {
		const code =
			error instanceof PgpError
				? `pgp-${error.problem}`
				: error instanceof SftpAuthError
					? 'login-refused'
					: error instanceof SftpFileBusyError
						? 'file-busy'
						: error instanceof SftpFileError
							? `sftp-status-${error.status ?? 'unknown'}`
							: error instanceof SftpConnectionError
								? (error.code ?? 'connection')
								: 'sftp';
		return new BankFailure(error.message, {
			itemIndex,
			body: { code, message: error.message },
		});
	}
	return error instanceof Error ? error : new Error(String(error));
}
