import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/** A problem with the key of one SET: reported to the bank as `invalid_key`. */
export class KeyProblem extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'KeyProblem';
	}
}

/** The bank's JWKS could not be fetched or read: nothing can be verified, the poll stops. */
export class JwksUnavailableError extends Error {
	constructor(
		message: string,
		readonly cause?: unknown,
	) {
		super(message);
		this.name = 'JwksUnavailableError';
	}
}

interface JwksKey {
	key: KeyObject;
	alg?: string;
}

interface JwksEntry {
	keys: Map<string, JwksKey>;
	fetchedAt: number;
}

/** Fetches a JWKS document and returns its parsed body. */
export type JwksFetcher = (url: string) => Promise<unknown>;

/** Keys of every JWKS URL used in this process, imported once. */
const cache = new Map<string, JwksEntry>();
const inflight = new Map<string, Promise<JwksEntry>>();

/** Forgets every cached JWKS (tests; a bank that replaced its keys at once). */
export function clearJwksCache(): void {
	cache.clear();
	inflight.clear();
}

/** Members of a private JWK: never needed, never kept. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export const NOT_JSON = Symbol('not JSON');

/**
 * A body as JSON: objects pass through, text and buffers are parsed; NOT_JSON when they do not
 * parse.
 */
export function parseJson(body: unknown): unknown {
	const text = Buffer.isBuffer(body) ? body.toString('utf8') : body;
	if (typeof text !== 'string') return text;
	try {
		return JSON.parse(text);
	} catch {
		return NOT_JSON;
	}
}

/**
 * Reads the signing keys of a JWKS document. Keys that are not for signatures or cannot be imported
 * are skipped.
 */
export function parseJwks(body: unknown): Map<string, JwksKey> {
	const doc = parseJson(body);
	if (doc === NOT_JSON) throw new JwksUnavailableError('The JWKS URL did not answer with JSON');
	const keys = (doc as { keys?: unknown } | null)?.keys;
	if (!Array.isArray(keys)) throw new JwksUnavailableError('The JWKS has no "keys" list');
	const out = new Map<string, JwksKey>();
	for (const jwk of keys as Array<Record<string, unknown>>) {
		if (!jwk || typeof jwk !== 'object' || typeof jwk.kid !== 'string') continue;
		if (jwk.use !== undefined && jwk.use !== 'sig') continue;
		const publicPart: Record<string, unknown> = { ...jwk };
		for (const member of PRIVATE_MEMBERS) delete publicPart[member];
		try {
			const key = createPublicKey({ key: publicPart as JsonWebKey, format: 'jwk' });
			out.set(jwk.kid, { key, alg: typeof jwk.alg === 'string' ? jwk.alg : undefined });
		} catch {
			// A key this runtime cannot import cannot have signed anything we accept.
		}
	}
	return out;
}

async function load(
	url: string,
	fetcher: JwksFetcher,
	maxAgeMs: number,
	force: boolean,
): Promise<JwksEntry> {
	const held = cache.get(url);
	if (held && !force && Date.now() - held.fetchedAt < maxAgeMs) return held;
	let pending = inflight.get(url);
	if (!pending) {
		pending = (async () => {
			const entry: JwksEntry = { keys: parseJwks(await fetcher(url)), fetchedAt: Date.now() };
			cache.set(url, entry);
			return entry;
		})().finally(() => inflight.delete(url));
		inflight.set(url, pending);
	}
	return await pending;
}

/** Finds the key that signed a SET, by its header's kid and alg. */
export interface KeyResolver {
	resolve(kid: unknown, alg: string): Promise<KeyObject>;
}

/**
 * Keys from a JWKS URL, cached in memory per URL for `ttlMs`. A kid missing from the cached set
 * makes the resolver fetch the JWKS again, once per poll (the bank may have rotated its key).
 */
export class JwksKeyResolver implements KeyResolver {
	/** The one fetch again of this poll; SETs checked at the same time wait for the same one. */
	private refetch?: Promise<JwksEntry>;

	constructor(
		private readonly url: string,
		private readonly ttlMs: number,
		private readonly fetcher: JwksFetcher,
	) {}

	/** How many times this resolver fetched the JWKS again for an unknown kid (0 or 1). */
	get refetches(): number {
		return this.refetch ? 1 : 0;
	}

	async resolve(kid: unknown, alg: string): Promise<KeyObject> {
		if (typeof kid !== 'string' || !kid)
			throw new KeyProblem('The SET header has no kid, so its key cannot be chosen');
		let entry = await load(this.url, this.fetcher, this.ttlMs, false);
		let found = entry.keys.get(kid);
		if (!found) {
			this.refetch ??= load(this.url, this.fetcher, this.ttlMs, true);
			entry = await this.refetch;
			found = entry.keys.get(kid);
		}
		if (!found) throw new KeyProblem(`No key with kid "${kid}" in the bank's JWKS`);
		if (found.alg && found.alg !== alg)
			throw new KeyProblem(
				`The key "${kid}" is for ${found.alg}, but the SET is signed with ${alg}`,
			);
		return found.key;
	}
}

/** One configured public key for every SET, whatever its kid. */
export class StaticKeyResolver implements KeyResolver {
	constructor(private readonly key: KeyObject) {}

	async resolve(): Promise<KeyObject> {
		return this.key;
	}
}
