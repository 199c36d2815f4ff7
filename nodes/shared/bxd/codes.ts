/** Response codes that mean the request worked: 00 (OK) and 24 (no data matched). */
export const SUCCESS_CODES: ReadonlySet<string> = new Set(['00', '24']);

/** Code 24: the request was valid but there was nothing to return. */
export const NO_DATA_CODE = '24';

/** Pads a one-digit response code to two digits ("0" -> "00", "5" -> "05"); trims others. */
export function normalizeResponseCode(code: string | undefined | null): string | undefined {
	if (code === undefined || code === null) return undefined;
	const trimmed = String(code).trim();
	if (!trimmed) return undefined;
	return /^\d$/.test(trimmed) ? `0${trimmed}` : trimmed;
}

export function isSuccessCode(code: string | undefined): boolean {
	return code !== undefined && SUCCESS_CODES.has(code);
}

/**
 * What the common bxd codes mean and what to do about them. Banks send their own texts too;
 * these only add a hint where the text alone leaves the user guessing.
 */
const HINTS: Record<string, string> = {
	'05': 'The bank does not know this operation or command.',
	'06': 'The bank does not accept this operation for this user.',
	'07': 'The Sender ID in the credential is not known to the bank.',
	'12': "The ApplicationRequest did not pass the bank's schema check: check file type, dates and references.",
	'13': 'The Customer ID in the credential is not known to the bank.',
	'16': 'The signing certificate is not valid for this bank or has been revoked.',
	'18': 'The bank could not verify the request signature: check the signing certificate and key in the credential.',
	'19': 'The signing certificate is not valid.',
	'20': 'The file type or content is not valid for this service.',
	'21': 'The bank could not unpack the compressed content. Try again with compression turned off.',
	'22': 'The bank could not decrypt the content.',
	'23': 'The bank could not process the content of the file.',
	'26': 'A technical error at the bank. Try again later.',
	'27': 'The file cannot be deleted (already processed or not deletable).',
	'29': 'A parameter is not valid (file reference, target ID or receiver ID).',
	'30': 'Authentication failed: check the Sender ID and the certificates.',
};

export function responseCodeHint(code: string): string | undefined {
	return HINTS[code];
}
