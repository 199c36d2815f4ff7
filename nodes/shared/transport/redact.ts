const PATTERNS: RegExp[] = [
	/(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi,
	/(access_token["'=:\s]+)[^"'&\s,}]+/gi,
	/(client_id=)[^&\s"']+/gi,
	/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/**
 * Removes secrets from text meant for users or logs: the given values (tokens, client ids,
 * passphrases) wherever they occur, bearer tokens, access_token and client_id parameters and
 * private keys.
 */
export function redactSecrets(text: string, secrets: Array<string | undefined> = []): string {
	let out = text;
	for (const secret of secrets) {
		if (typeof secret === 'string' && secret.length >= 4)
			out = out.split(secret).join('[redacted]');
	}
	for (const pattern of PATTERNS) {
		out = out.replace(pattern, (_m, prefix?: string) =>
			typeof prefix === 'string' ? `${prefix}[redacted]` : '[redacted]',
		);
	}
	return out;
}
