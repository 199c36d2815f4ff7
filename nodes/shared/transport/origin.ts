/** The origin (scheme, host and port) of an absolute URL; undefined for anything else. */
export function originOf(url: string): string | undefined {
	try {
		return new URL(url).origin;
	} catch {
		return undefined;
	}
}

const knownOrigins = new Map<string, string | undefined>();

/**
 * originOf for the few fixed URLs of credentials and targets, which are checked on every request
 * and every page: each is parsed once.
 */
export function cachedOriginOf(url: string): string | undefined {
	if (knownOrigins.has(url)) return knownOrigins.get(url);
	const origin = originOf(url);
	if (knownOrigins.size >= 256) knownOrigins.clear();
	knownOrigins.set(url, origin);
	return origin;
}
