import { generateKeyPairSync } from 'node:crypto';

import { NodeApiError, type INode } from 'n8n-workflow';

import {
	backoffDelay,
	buildTlsOptions,
	extractErrorInfo,
	normalizePem,
	parseBankErrorBody,
	redactSecrets,
	renewalTime,
	bankFailure,
	tokenLifetimeSeconds,
	tokenNeedsRefresh,
	withRetry,
} from '../../nodes/shared/transport';
import { MalformedXmlError, parseXml, UnsafeXmlError } from '../../nodes/shared/bxd/xml';
import { toNodeError } from '../../nodes/shared/common/errors';

/** A failed request as the node shows it: a BankFailure through the one boundary. */
const toBankApiError = (n: INode, error: unknown, options?: Parameters<typeof bankFailure>[1]) =>
	toNodeError(n, bankFailure(error, options), options?.itemIndex) as NodeApiError;

const node: INode = { id: '1', name: 'Bank', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} };

describe('bank error bodies become NodeApiError with the bank code and message', () => {
	const shapes: Array<[string, unknown, string, string]> = [
		['trade report {error:{exception,message}}', { error: { exception: 'InvalidParameterException', message: 'End date can not be future date.', timestamp: '2025-10-07T10:41:00Z' } }, 'InvalidParameterException', 'End date can not be future date.'],
		['execution {timestamp,exception,message}', { timestamp: '2025-10-07T10:41:00Z', exception: 'ValidationException', message: 'amount must be positive' }, 'ValidationException', 'amount must be positive'],
		['mock {status,exceptionType,details}', { status: 503, exceptionType: 'ServiceUnavailable', details: 'Random mock error' }, 'ServiceUnavailable', 'Random mock error'],
		['open banking {Code,Id,Message,Errors}', { Code: '400 BadRequest', Id: 'abc', Message: 'Invalid request', Errors: [{ ErrorCode: 'UK.OBIE.Field.Invalid', Message: 'maxEvents must be >= 0', Path: 'maxEvents' }] }, 'UK.OBIE.Field.Invalid', 'Invalid request'],
		['oauth {error,error_description}', { error: 'invalid_client', error_description: 'Unknown client' }, 'invalid_client', 'Unknown client'],
	];
	it.each(shapes)('%s', (_name, body, code, message) => {
		expect(parseBankErrorBody(body)).toMatchObject({ code, message });
		const axiosLike = Object.assign(new Error('Request failed with status code 400'), { response: { status: 400, data: body } });
		const err = toBankApiError(node, axiosLike, { operation: 'Get trades' });
		expect(err).toBeInstanceOf(NodeApiError);
		expect(err.message).toBe(`Get trades: ${message}`);
		expect(err.description).toContain(`Bank code: ${code}`);
		expect(err.httpCode).toBe('400');
	});

	it('reads bodies given as JSON text and HTML error pages', () => {
		expect(parseBankErrorBody('{"error":{"exception":"X","message":"Y"}}')).toEqual({ code: 'X', message: 'Y' });
		expect(parseBankErrorBody('<html><head><title>502 Bad Gateway</title></head></html>').message).toBe('The bank answered with an HTML page: 502 Bad Gateway');
	});

	it('finds status and body inside wrapped errors and keeps secrets out', () => {
		const inner = Object.assign(new Error('boom'), { response: { status: 500, data: { error: { exception: 'ServerError', message: 'token Bearer abc.def.ghi rejected' } } } });
		const wrapped = Object.assign(new Error('outer'), { cause: inner });
		expect(extractErrorInfo(wrapped)).toMatchObject({ status: 500, code: 'ServerError' });
		const err = toBankApiError(node, wrapped, { secrets: ['abc.def.ghi'] });
		expect(err.message).not.toContain('abc.def.ghi');
		expect(err.message).toContain('[redacted]');
	});

	it('explains network failures', () => {
		const err = toBankApiError(node, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
		expect(err.message).toBe('The connection to the bank failed (ECONNRESET)');
		const tls = toBankApiError(node, Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }));
		expect(tls.message).toMatch(/not trusted.*CA Certificate/);
	});
});

describe('XML', () => {
	it('parses namespaced XML without prefixes', () => {
		const doc = parseXml<Record<string, any>>('<?xml version="1.0"?><a:Root xmlns:a="urn:x"><a:Item>1 &amp; 2</a:Item><a:Item>3</a:Item></a:Root>');
		expect(doc.Root.Item).toEqual(['1 & 2', '3']);
	});
	it('refuses DOCTYPE, entities and billion laughs before parsing', () => {
		expect(() => parseXml('<!DOCTYPE foo [<!ELEMENT foo ANY>]><foo/>')).toThrow(UnsafeXmlError);
		expect(() => parseXml('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>')).toThrow(/DOCTYPE/);
		const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>';
		expect(() => parseXml(laughs)).toThrow(UnsafeXmlError);
		expect(() => parseXml('<x><!ENTITY a "b"></x>')).toThrow(/ENTITY/);
	});
	it('reports malformed XML', () => {
		expect(() => parseXml('<a><b></a>')).toThrow(MalformedXmlError);
	});
	it('reads an answer that a gateway sent with a byte-order mark or white space before its declaration', () => {
		for (const lead of [' ', '\r\n', '\uFEFF', '\uFEFF\n '])
			expect(parseXml<Record<string, any>>(`${lead}<?xml version="1.0" encoding="UTF-8"?><Root><Item>1</Item></Root>`).Root.Item).toBe('1');
		expect(() => parseXml('text <?xml version="1.0"?><Root/>')).toThrow(MalformedXmlError);
	});
});

describe('tokens', () => {
	it('treats expires_in as seconds, or milliseconds when above an hour, and never trusts more than an hour', () => {
		expect(tokenLifetimeSeconds(3600)).toBe(3600);
		expect(tokenLifetimeSeconds(600)).toBe(600);
		expect(tokenLifetimeSeconds(3_600_000)).toBe(3600);
		expect(tokenLifetimeSeconds(1_800_000)).toBe(1800);
		expect(tokenLifetimeSeconds(undefined)).toBe(3600);
	});
	it('renews a minute before expiry, or half-way through a short lifetime', () => {
		const now = 1_000_000;
		expect(renewalTime(now, 3600)).toBe(now + 3_540_000);
		expect(renewalTime(now, 30)).toBe(now + 15_000);
		expect(tokenNeedsRefresh('', now + 3_600_000, now)).toBe(true);
		expect(tokenNeedsRefresh('t', now + 1, now)).toBe(false);
		expect(tokenNeedsRefresh('t', now, now)).toBe(true);
		expect(tokenNeedsRefresh('t', 0, now)).toBe(true);
	});
	it('redacts bearer tokens, client ids and keys', () => {
		const text = 'Authorization: Bearer eyJabc.def client_id=my-client -----BEGIN PRIVATE KEY-----\nAAA\n-----END PRIVATE KEY-----';
		const out = redactSecrets(text, ['my-client']);
		expect(out).not.toMatch(/eyJabc|my-client|AAA/);
	});
});

describe('retry', () => {
	it('retries retryable errors with growing backoff, then gives up', async () => {
		const delays: number[] = [];
		let calls = 0;
		await expect(
			withRetry({ attempts: 3, baseDelayMs: 100, maxDelayMs: 1000, jitter: false }, { retryable: () => true, sleep: async (ms) => void delays.push(ms) }, async () => {
				calls++;
				throw new Error('fail');
			}),
		).rejects.toThrow('fail');
		expect(calls).toBe(3);
		expect(delays).toEqual([100, 200]);
	});
	it('does not retry what is not retryable', async () => {
		let calls = 0;
		await expect(withRetry({ attempts: 5, baseDelayMs: 1, maxDelayMs: 1, jitter: true }, { retryable: () => false }, async () => {
			calls++;
			throw new Error('no');
		})).rejects.toThrow('no');
		expect(calls).toBe(1);
	});
	it('keeps jittered delays within [d/2, d]', () => {
		for (let i = 0; i < 50; i++) {
			const d = backoffDelay({ attempts: 3, baseDelayMs: 400, maxDelayMs: 10_000, jitter: true }, 2);
			expect(d).toBeGreaterThanOrEqual(400);
			expect(d).toBeLessThanOrEqual(800);
		}
	});
});

describe('client TLS material', () => {
	const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

	it('repairs PEM text that lost its line breaks', () => {
		const oneLine = keyPem.replace(/\n/g, ' ');
		expect(normalizePem(oneLine)).toBe(keyPem);
		const escaped = keyPem.replace(/\n/g, '\\n');
		expect(normalizePem(escaped)).toBe(keyPem);
	});
	it('names the field and the rule for bad material', () => {
		expect(() => buildTlsOptions({ caCertificate: 'not a cert' })).toThrow('CA Certificate: not a PEM certificate');
		expect(() => buildTlsOptions({ certificate: '', privateKey: keyPem })).toThrow('Client Certificate: required');
		expect(() => buildTlsOptions({ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', privateKey: keyPem })).toThrow('Client Certificate: the PEM certificate cannot be read');
		const encrypted = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'right' }).toString();
		expect(() => buildTlsOptions({ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', privateKey: encrypted })).toThrow(/Client Certificate|Passphrase/);
	});
	it('returns nothing when no TLS field is set, and the opt-out only when asked', () => {
		expect(buildTlsOptions({})).toBeUndefined();
		expect(buildTlsOptions({ allowUnauthorizedCerts: true })).toEqual({ rejectUnauthorized: false });
	});
});
