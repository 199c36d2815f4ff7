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

/**
 * The one rule for an address a user gives (a credential's or a node's URL field): a web address
 * with a host, over https, or http for a test server on the user's own network. Returns what to
 * tell the user, naming the field, or undefined when the address is fine.
 */
export function webAddressProblem(field: string, url: string): string | undefined {
	if (/^https?:\/\/[^\s/]/i.test(url) && originOf(url)) return undefined;
	return `${field}: must be a web address starting with https:// (or http:// for a test bank on your own network)`;
}
