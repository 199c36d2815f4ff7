import { execFile, spawn } from 'node:child_process';
import {
	constants,
	createCipheriv,
	createHash,
	createPublicKey,
	randomBytes,
	verify as cryptoVerify,
	X509Certificate,
	type JsonWebKey,
} from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';

import { LazySegments } from './ebics/transfers';
import { startSandbox, type SandboxBank, type Trade } from './index';
import {
	applicationRequestXml,
	applicationResponseOf,
	formBody,
	httpsCall,
	signedApplicationRequest,
	soapEnvelope,
	soapEnvelopeParts,
	xmlText,
	xmlTexts,
	type HttpOptions,
	type HttpResult,
} from './testing';

const REPO = resolve(__dirname, '..', '..');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let bank: SandboxBank;
let ca: string;

beforeAll(async () => {
	bank = await startSandbox({ seed: 42, trades: 3000 });
	ca = bank.tls.caPem;
});

afterAll(async () => {
	await bank?.stop();
});

beforeEach(() => {
	bank.resetAll();
});

const call = async (url: string, options: HttpOptions = {}): Promise<HttpResult> =>
	await httpsCall(url, { ca, ...options });

/** A client-credentials token request (scope `accounts` unless given) to any sandbox's token URL. */
async function tokenRequest(url: string, clientId: string, options: HttpOptions & { scope?: string } = {}): Promise<HttpResult> {
	const { scope = 'accounts', ...rest } = options;
	return await call(url, {
		method: 'POST',
		headers: FORM,
		body: formBody({ grant_type: 'client_credentials', scope, client_id: clientId }),
		...rest,
	});
}

async function clientToken(tokenUrl = bank.urls.token): Promise<string> {
	const res = await tokenRequest(tokenUrl, bank.clients.clientId);
	expect(res.status).toBe(200);
	return res.json<{ access_token: string }>().access_token;
}

async function mtlsToken(path = '/oauth2/token'): Promise<string> {
	const res = await tokenRequest(`${bank.urls.mtlsBase}${path}`, bank.clients.mtlsClientId, {
		cert: bank.tls.clientCertPem,
		key: bank.tls.clientKeyPem,
	});
	expect(res.status).toBe(200);
	return res.json<{ access_token: string }>().access_token;
}

const today = (): string => new Date().toISOString().slice(0, 10);

function daysAgo(days: number): string {
	return new Date(Date.now() - days * 86400000).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------

describe('certificates', () => {
	it('issues a server certificate for localhost and 127.0.0.1 under the bank CA', () => {
		const caCert = new X509Certificate(bank.tls.caPem);
		const server = new X509Certificate(bank.tls.serverCertPem);
		expect(server.verify(caCert.publicKey)).toBe(true);
		expect(server.checkHost('localhost')).toBe('localhost');
		expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
		expect(new X509Certificate(bank.tls.clientCertPem).verify(caCert.publicKey)).toBe(true);
		expect(new X509Certificate(bank.tls.customerSigningCertPem).verify(caCert.publicKey)).toBe(
			true,
		);
		expect(new X509Certificate(bank.tls.otherCaClientCertPem).verify(caCert.publicKey)).toBe(false);
		expect(
			new Date(new X509Certificate(bank.tls.expiredClientCertPem).validTo).getTime(),
		).toBeLessThan(Date.now());
		expect(bank.tls.clientKeyEncryptedPem).toContain('ENCRYPTED PRIVATE KEY');
	});

	it('reuses the generated material from the cert directory', async () => {
		const again = await startSandbox({ trades: 5 });
		try {
			expect(again.tls.caPem).toBe(bank.tls.caPem);
			expect(again.tls.eventKid).toBe(bank.tls.eventKid);
		} finally {
			await again.stop();
		}
	});
});

describe('token endpoint (B/C)', () => {
	it('issues a Bearer token and counts requests', async () => {
		const sent = Math.floor(Date.now() / 1000);
		const res = await tokenRequest(bank.urls.token, bank.clients.clientId, { scope: 'accounts openid' });
		expect(res.status).toBe(200);
		const body = res.json<Record<string, unknown>>();
		expect(body).toMatchObject({
			token_type: 'Bearer',
			expires_in: 3600,
			scope: 'accounts openid',
		});
		expect(typeof body.access_token).toBe('string');
		expect(typeof body.metadata).toBe('string');
		// Stamped while the request was at the bank: between sending it and reading the answer.
		expect(Number(body.consented_on)).toBeGreaterThanOrEqual(sent);
		expect(Number(body.consented_on)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
		expect(bank.stats.tokenRequests).toBe(1);
		expect(bank.stats.tokensIssued).toBe(1);
	});

	it('refuses wrong client, missing scope and unsupported grants', async () => {
		const post = async (
			fields: Record<string, string>,
			headers: Record<string, string> = FORM,
		): Promise<HttpResult> =>
			await call(bank.urls.token, { method: 'POST', headers, body: formBody(fields) });
		const wrongClient = await post({
			grant_type: 'client_credentials',
			scope: 'accounts',
			client_id: 'nobody',
		});
		expect(wrongClient.status).toBe(401);
		expect(wrongClient.json()).toMatchObject({ error: 'invalid_client' });
		expect(
			(await post({ grant_type: 'client_credentials', client_id: bank.clients.clientId })).status,
		).toBe(401);
		expect(
			(
				await post({
					grant_type: 'client_credentials',
					scope: 'payments',
					client_id: bank.clients.clientId,
				})
			).status,
		).toBe(401);
		const badGrant = await post({
			grant_type: 'password',
			scope: 'accounts',
			client_id: bank.clients.clientId,
		});
		expect(badGrant.status).toBe(400);
		expect(badGrant.json()).toMatchObject({ error: 'unsupported_grant_type' });
		const json = await post(
			{ grant_type: 'client_credentials' },
			{ 'content-type': 'application/json' },
		);
		expect(json.status).toBe(400);
		expect(bank.stats.tokenRequests).toBe(5);
		expect(bank.stats.tokensIssued).toBe(0);
	});

	it('expires every token after maxUses accepted requests when set', async () => {
		bank.tokens.maxUses = 2;
		try {
			const token = await clientToken();
			const url = `${bank.urls.reportBase}/trade-reports/open?limit=1`;
			const statuses = [];
			for (let i = 0; i < 3; i++) statuses.push((await call(url, { headers: { authorization: `Bearer ${token}` } })).status);
			expect(statuses).toEqual([200, 200, 401]);
			const fresh = await clientToken();
			expect((await call(url, { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(200);
		} finally {
			bank.tokens.maxUses = undefined;
		}
	});

	it('expires tokens on demand and after the TTL', async () => {
		const token = await clientToken();
		const url = `${bank.urls.reportBase}/trade-reports/open?limit=1`;
		expect((await call(url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
		bank.tokens.expireAll();
		const expired = await call(url, { headers: { authorization: `Bearer ${token}` } });
		expect(expired.status).toBe(401);
		expect(expired.json()).toMatchObject({
			error: { exception: 'AuthenticationException', message: 'Token expired.' },
		});

		let offset = 0;
		const clocked = await startSandbox({
			trades: 20,
			tokenTtlSeconds: 60,
			clock: () => new Date(Date.now() + offset),
		});
		try {
			const res = await tokenRequest(clocked.urls.token, clocked.clients.clientId);
			expect(res.json()).toMatchObject({ expires_in: 60 });
			const auth = { authorization: `Bearer ${res.json<{ access_token: string }>().access_token}` };
			const open = `${clocked.urls.reportBase}/trade-reports/trade/XXXXXXXXXXXX`;
			expect((await httpsCall(open, { ca, headers: auth })).status).toBe(404);
			offset = 61_000;
			expect((await httpsCall(open, { ca, headers: auth })).status).toBe(401);
		} finally {
			await clocked.stop();
		}
	});
});

describe('FX trade report (B)', () => {
	let auth: Record<string, string>;
	beforeEach(async () => {
		auth = { authorization: `Bearer ${await clientToken()}` };
	});

	it('generates a deterministic book of trades', () => {
		const trades = bank.trades.all();
		expect(trades).toHaveLength(3000);
		expect(new Set(trades.map((trade) => trade.tradeId)).size).toBe(3000);
		expect(trades.every((trade) => trade.tradeId.length === 12)).toBe(true);
		expect(new Set(trades.map((trade) => trade.counterpart)).size).toBe(12);
		expect(new Set(trades.map((trade) => trade.product))).toEqual(
			new Set(['Spot', 'Forward', 'FWD', 'FX Swap', 'FX Forward']),
		);
		expect(trades.some((trade) => trade.forwardPrice < 0)).toBe(true);
		expect(trades.some((trade) => trade.comment === null)).toBe(true);
		expect(trades.some((trade) => trade.comment === '')).toBe(true);
		expect(trades.some((trade) => trade.maturityDate < today())).toBe(true);
		expect(trades.some((trade) => trade.maturityDate >= today())).toBe(true);
		expect(
			trades.every((trade) =>
				/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(trade.tradeTime),
			),
		).toBe(true);
	});

	it('requires a bearer token', async () => {
		const res = await call(`${bank.urls.reportBase}/trade-reports/open`);
		expect(res.status).toBe(401);
		expect(res.json()).toMatchObject({ error: { exception: 'AuthenticationException' } });
		const other = await call(`${bank.urls.reportBase}/trade-reports/open`, {
			headers: { authorization: `Bearer ${await mtlsToken()}` },
		});
		expect(other.status).toBe(403);
		expect(
			bank.stats.requests
				.filter((request) => request.area === 'report')
				.map((request) => request.authorization),
		).toEqual([false, true]);
	});

	it('pages exactly through a date range following next links', async () => {
		const startDate = daysAgo(60);
		const endDate = daysAgo(1);
		const expected = bank.trades
			.all()
			.filter(
				(trade) =>
					trade.tradeTime.slice(0, 10) >= startDate && trade.tradeTime.slice(0, 10) <= endDate,
			)
			.map((trade) => trade.tradeId);
		expect(expected.length).toBeGreaterThan(100);
		const seen: string[] = [];
		let path: string | null =
			`/v1/open-trades-service/trade-reports?startDate=${startDate}&endDate=${endDate}&limit=100`;
		let first = true;
		while (path) {
			expect(path.startsWith('/v1/open-trades-service/trade-reports?')).toBe(true);
			const res = await call(`${bank.urls.base}${path}`, { headers: auth });
			expect(res.status).toBe(200);
			const page = res.json<{ items: Trade[]; next: string | null; previous: string | null }>();
			if (first) expect(page.previous).toBeNull();
			else expect(page.previous).toContain('offset=');
			first = false;
			seen.push(...page.items.map((trade) => trade.tradeId));
			if (page.next) {
				expect(page.next).toContain(`startDate=${startDate}`);
				expect(page.next).toContain(`endDate=${endDate}`);
				expect(page.next).toContain('limit=100');
			}
			path = page.next;
		}
		expect(seen).toEqual(expected);
	});

	it('filters by counterparts, accepts parameter names in any case and defaults endDate to today', async () => {
		const res = await call(
			`${bank.urls.reportBase}/trade-reports?StartDate=${daysAgo(365)}&COUNTERPARTS=DEMOCP1,BALTSHIP1&Limit=5&offset=5`,
			{
				headers: auth,
			},
		);
		expect(res.status).toBe(200);
		const page = res.json<{ items: Trade[]; next: string; previous: string }>();
		expect(page.items).toHaveLength(5);
		expect(page.items.every((trade) => ['DEMOCP1', 'BALTSHIP1'].includes(trade.counterpart))).toBe(
			true,
		);
		expect(page.next).toBe(
			`/v1/open-trades-service/trade-reports?startDate=${daysAgo(365)}&endDate=${today()}&counterparts=DEMOCP1,BALTSHIP1&offset=10&limit=5`,
		);
		expect(page.previous).toContain('offset=0&limit=5');
	});

	it('validates parameters with 400 and the error body', async () => {
		const bad = [
			'trade-reports',
			'trade-reports?startDate=2024-13-01',
			'trade-reports?startDate=01.01.2024',
			`trade-reports?startDate=${new Date(Date.now() + 3 * 86400000).toISOString().slice(0, 10)}`,
			`trade-reports?startDate=${daysAgo(10)}&endDate=${daysAgo(20)}`,
			`trade-reports?startDate=${daysAgo(10)}&limit=0`,
			`trade-reports?startDate=${daysAgo(10)}&limit=101`,
			`trade-reports?startDate=${daysAgo(10)}&offset=-1`,
			'trade-reports/open?limit=abc',
			'trade-reports/trade/SHORT',
		];
		for (const path of bad) {
			const res = await call(`${bank.urls.reportBase}/${path}`, { headers: auth });
			expect([path, res.status]).toEqual([path, 400]);
			const body = res.json<{ error: { exception: string; message: string; timestamp: string } }>();
			expect(typeof body.error.message).toBe('string');
			expect(body.error.exception).toBe('InvalidParameterException');
			expect(Number.isNaN(Date.parse(body.error.timestamp))).toBe(false);
		}
	});

	it('answers 404 with an error body when a list is empty, and serves single trades', async () => {
		const empty = await call(`${bank.urls.reportBase}/trade-reports/open?counterparts=NOBODY`, {
			headers: auth,
		});
		expect(empty.status).toBe(404);
		expect(empty.json()).toMatchObject({ error: { exception: 'NotFound' } });
		const open = await call(`${bank.urls.reportBase}/trade-reports/open?limit=100`, {
			headers: auth,
		});
		const openTrades = open.json<{ items: Trade[] }>().items;
		expect(openTrades.every((trade) => trade.maturityDate >= today())).toBe(true);
		const trade = bank.trades.all()[17];
		const single = await call(`${bank.urls.reportBase}/trade-reports/trade/${trade.tradeId}`, {
			headers: auth,
		});
		expect(single.json()).toEqual(trade);
		expect(
			(await call(`${bank.urls.reportBase}/trade-reports/trade/ZZZZZZZZZZZZ`, { headers: auth }))
				.status,
		).toBe(404);
	});

	it('can write next links as absolute URLs on this or a foreign origin', async () => {
		bank.switches.linkStyle = 'absolute';
		let page = (
			await call(`${bank.urls.reportBase}/trade-reports/open?limit=2`, { headers: auth })
		).json<{ next: string }>();
		expect(page.next.startsWith(`${bank.urls.reportBase}/trade-reports/open?`)).toBe(true);
		bank.switches.linkStyle = 'foreign';
		page = (
			await call(`${bank.urls.reportBase}/trade-reports/open?limit=2`, { headers: auth })
		).json<{ next: string }>();
		expect(
			page.next.startsWith(`${bank.urls.foreign}/v1/open-trades-service/trade-reports/open?`),
		).toBe(true);
		const followed = await call(page.next, { headers: { 'x-probe': '1' } });
		expect(followed.status).toBe(200);
		expect(bank.stats.foreignRequests).toHaveLength(1);
		expect(bank.stats.foreignRequests[0].headers['x-probe']).toBe('1');
		expect(bank.stats.foreignRequests[0].headers.authorization).toBeUndefined();
	});
});

describe('FX trade execution (C)', () => {
	let auth: Record<string, string>;
	beforeEach(async () => {
		auth = { authorization: `Bearer ${await clientToken()}`, 'content-type': 'application/json' };
	});
	const execute = async (body: unknown, headers = auth): Promise<HttpResult> =>
		await call(`${bank.urls.executionBase}/trade-execution/execute`, {
			method: 'POST',
			headers,
			body: JSON.stringify(body),
		});
	const valid = {
		counterpart: 'DEMOCP1',
		buyCurrency: 'DKK',
		sellCurrency: 'EUR',
		amount: 1000000,
		amountSide: 'BUY',
		baseSide: 'SELL',
	};

	it('executes a trade from a tenor and records it', async () => {
		const res = await execute({ ...valid, tenor: '1M', comment: 'hedge' });
		expect(res.status).toBe(200);
		const result = res.json<Record<string, unknown>>();
		expect(Object.keys(result).sort()).toEqual(
			[
				'allInPrice',
				'autoSettle',
				'bought',
				'comment',
				'counterpart',
				'executionId',
				'forwardPrice',
				'maturityDate',
				'product',
				'sold',
				'spotPrice',
				'tradeId',
				'tradeTime',
			].sort(),
		);
		expect(result.bought).toEqual({ currency: 'DKK', amount: 1000000 });
		expect((result.sold as { currency: string }).currency).toBe('EUR');
		expect(String(result.tradeId)).toHaveLength(12);
		expect(result.comment).toBe('hedge');
		expect(String(result.maturityDate) > today()).toBe(true);
		expect(bank.stats.executions).toBe(1);
		expect(bank.stats.executionBodies).toEqual([{ ...valid, tenor: '1M', comment: 'hedge' }]);
		const report = await call(
			`${bank.urls.reportBase}/trade-reports/trade/${String(result.tradeId)}`,
			{ headers: auth },
		);
		expect(report.json()).toMatchObject({ tradeId: result.tradeId, counterpartName: 'DEMOCP' });
	});

	it('lets maturityDate win over tenor', async () => {
		const maturityDate = new Date(Date.now() + 40 * 86400000).toISOString().slice(0, 10);
		const res = await execute({ ...valid, maturityDate, tenor: 'not-a-tenor' });
		expect(res.status).toBe(200);
		expect(res.json()).toMatchObject({ maturityDate });
	});

	it('validates requests with 400 {timestamp, exception, message} and does not count them', async () => {
		const cases: unknown[] = [
			{ ...valid, counterpart: undefined, tenor: '1W' },
			{ ...valid, buyCurrency: 'XXX', tenor: '1W' },
			{ ...valid, sellCurrency: 'dkk', tenor: '1W' },
			{ ...valid, amount: -5, tenor: '1W' },
			{ ...valid, amount: '100', tenor: '1W' },
			{ ...valid, amountSide: 'HOLD', tenor: '1W' },
			{ ...valid, tenor: '13M' },
			{ ...valid },
			{ ...valid, maturityDate: '2020-01-01' },
			[1, 2],
		];
		for (const body of cases) {
			const res = await execute(body);
			expect(res.status).toBe(400);
			const error = res.json<Record<string, string>>();
			expect(Object.keys(error).sort()).toEqual(['exception', 'message', 'timestamp']);
		}
		const raw = await call(`${bank.urls.executionBase}/trade-execution/execute`, {
			method: 'POST',
			headers: auth,
			body: '{"amount":',
		});
		expect(raw.status).toBe(400);
		expect(
			(await execute({ ...valid, tenor: '1W' }, { 'content-type': 'application/json' })).status,
		).toBe(401);
		expect(bank.stats.executions).toBe(0);
	});
});

describe('mock service (E)', () => {
	const statuses = async (count: number): Promise<number[]> => {
		const result: number[] = [];
		for (let index = 0; index < count; index++) {
			const res = await call(`${bank.urls.mockReportBase}/trade-reports/open`);
			expect(res.headers['x-mockdata-info']).toBeDefined();
			expect(() => JSON.parse(String(res.headers['x-mockdata-info']))).not.toThrow();
			result.push(res.status);
		}
		return result;
	};

	it('serves examples without authentication, with x-mockdata-info', async () => {
		bank.mock.configure({ errorRate: 0 });
		const open = await call(`${bank.urls.mockReportBase}/trade-reports/open`);
		expect(open.status).toBe(200);
		expect(JSON.parse(String(open.headers['x-mockdata-info']))).toMatchObject({ random: false });
		expect(open.json<{ items: Trade[] }>().items.length).toBeGreaterThan(0);
		const exec = await call(`${bank.urls.mockExecutionBase}/trade-execution/execute`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ amount: 1, tenor: '1W' }),
		});
		expect(exec.status).toBe(200);
		expect(exec.json()).toMatchObject({ executionId: expect.any(String) as string });
		const invalid = await call(`${bank.urls.mockExecutionBase}/trade-execution/execute`, {
			method: 'POST',
			body: '{}',
		});
		expect(invalid.status).toBe(400);
		expect(invalid.headers['x-mockdata-info']).toBeDefined();
		expect(Object.keys(invalid.json<object>()).sort()).toEqual([
			'details',
			'exceptionType',
			'status',
		]);
		const regulatory = await call(`${bank.urls.base}/mock/sandbox/3.1.0/accounts-api/accounts`);
		expect(regulatory.status).toBe(404);
		expect(bank.stats.executions).toBe(0);
	});

	it('injects seeded random errors that repeat for the same seed', async () => {
		bank.mock.configure({ seed: 7, errorRate: 0.3 });
		const first = await statuses(40);
		const errors = first.filter((status) => status !== 200);
		expect(errors.length).toBeGreaterThan(3);
		expect(errors.every((status) => [400, 401, 403, 404, 500, 503].includes(status))).toBe(true);
		expect(bank.stats.mockCalls).toBe(40);
		expect(bank.stats.mockErrors).toBe(errors.length);
		expect(bank.stats.mockErrorLog.map((entry) => entry.status)).toEqual(errors);
		bank.mock.configure({ seed: 7 });
		expect(await statuses(40)).toEqual(first);
		const res = await call(`${bank.urls.admin}/mock`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ seed: 7, errorRate: 1 }),
		});
		expect(res.json()).toEqual({ seed: 7, errorRate: 1 });
		const failing = await call(`${bank.urls.mockReportBase}/trade-reports?startDate=2025-01-01`);
		expect(failing.status).not.toBe(200);
		expect(JSON.parse(String(failing.headers['x-mockdata-info']))).toMatchObject({
			random: true,
			status: failing.status,
		});
		expect(failing.json<{ status: string }>().status.startsWith(String(failing.status))).toBe(true);
	});
});

describe('file service (A, SOAP)', () => {
	const fs = (): SandboxBank['clients']['fileService'] => bank.clients.fileService;
	/** Sends one SOAP request; the answer as it came. */
	const soapCall = async (operation: string, applicationRequest: string, url = bank.urls.soap): Promise<HttpResult> =>
		await call(url, {
			method: 'POST',
			headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' },
			body: soapEnvelope({
				operation,
				senderId: fs().senderId,
				receiverId: fs().receiverId,
				applicationRequest,
			}),
		});
	const soap = async (
		operation: string,
		applicationRequest: string,
		url = bank.urls.soap,
	): Promise<{ res: HttpResult; ar: string }> => {
		const res = await soapCall(operation, applicationRequest, url);
		return { res, ar: res.status === 200 ? applicationResponseOf(res.text()) : '' };
	};
	const appRequest = (
		command: string,
		extra: Partial<Parameters<typeof applicationRequestXml>[0]> = {},
	): string =>
		applicationRequestXml({
			customerId: fs().customerId,
			softwareId: fs().softwareId,
			command,
			...extra,
		});

	it('answers getUserInfo with user file types, signed by the bank', async () => {
		const { res, ar } = await soap('getUserInfo', appRequest('GetUserInfo'));
		expect(res.status).toBe(200);
		expect(res.text()).toContain('<cor:getUserInfoout>');
		expect(xmlText(res.text(), 'ResponseCode')).toBe('00');
		expect(xmlTexts(ar, 'FileType')).toEqual(expect.arrayContaining(['XL', 'XT', 'XP']));
		const doc = new DOMParser().parseFromString(ar, 'text/xml');
		const signature = doc.getElementsByTagNameNS(
			'http://www.w3.org/2000/09/xmldsig#',
			'Signature',
		)[0];
		const verifier = new SignedXml({
			publicCert: bank.tls.bankSigningCertPem,
			getCertFromKeyInfo: () => null,
		});
		verifier.loadSignature(signature as unknown as Node);
		expect(verifier.checkSignature(ar)).toBe(true);
		expect(ar).toContain('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
		expect(ar).toContain('<X509Certificate>');
	});

	it('lists, downloads (NEW -> DLD) and filters pre-generated statements', async () => {
		const list = await soap(
			'downloadFileList',
			appRequest('DownloadFileList', { status: 'NEW', fileType: 'camt.053.001.02' }),
		);
		expect(xmlText(list.ar, 'ResponseCode')).toBe('00');
		const refs = xmlTexts(list.ar, 'FileReference');
		expect(refs.length).toBeGreaterThan(1);
		expect(new Set(xmlTexts(list.ar, 'FileType'))).toEqual(new Set(['XT']));
		const download = await soap(
			'downloadFile',
			appRequest('DownloadFile', { fileReferences: [refs[0]] }),
		);
		expect(xmlText(download.ar, 'ResponseCode')).toBe('00');
		const content = Buffer.from(xmlText(download.ar, 'Content') ?? '', 'base64').toString('utf8');
		expect(content).toContain('urn:iso:std:iso:20022:tech:xsd:camt.053.001.02');
		expect(content).toContain('<Cd>CLBD</Cd>');
		expect(bank.files.list().find((file) => file.fileReference === refs[0])?.status).toBe('DLD');
		const again = await soap(
			'downloadFileList',
			appRequest('DownloadFileList', { status: 'NEW', fileType: 'XT' }),
		);
		expect(xmlTexts(again.ar, 'FileReference')).not.toContain(refs[0]);
		const none = await soap(
			'downloadFileList',
			appRequest('DownloadFileList', { fileType: 'NOPE' }),
		);
		expect(xmlText(none.ar, 'ResponseCode')).toBe('24');
		expect(xmlText(none.res.text(), 'ResponseCode')).toBe('24');
		bank.switches.compressDownloads = true;
		const compressed = await soap(
			'downloadFile',
			appRequest('DownloadFile', { fileReferences: [refs[1]] }),
		);
		expect(xmlText(compressed.ar, 'Compressed')).toBe('true');
		expect(xmlText(compressed.ar, 'CompressionMethod')).toBe('GZIP');
		expect(
			gunzipSync(Buffer.from(xmlText(compressed.ar, 'Content') ?? '', 'base64')).toString('utf8'),
		).toContain('camt.053.001.02');
	});

	it('round-trips upload (gzip), list, download and delete', async () => {
		const payment =
			'<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn>' +
			'<GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2025-01-01T10:00:00</CreDtTm><NbOfTxs>2</NbOfTxs><CtrlSum>150.25</CtrlSum></GrpHdr>' +
			'</CstmrCdtTrfInitn></Document>';
		const xml = signedApplicationRequest(
			appRequest('UploadFile', {
				fileType: 'XL',
				userFilename: 'payments.xml',
				compression: true,
				content: gzipSync(payment),
			}),
			bank.tls.customerSigningKeyPem,
			bank.tls.customerSigningCertPem,
		);
		const upload = await soap('uploadFile', xml);
		expect(xmlText(upload.ar, 'ResponseCode')).toBe('00');
		expect(xmlText(upload.ar, 'TransactionCount')).toBe('2');
		expect(bank.stats.soapCalls.at(-1)).toMatchObject({
			operation: 'uploadFile',
			signature: 'valid',
			responseCode: '00',
		});
		const reference = xmlText(upload.ar, 'FileReference') ?? '';
		const list = await soap('downloadFileList', appRequest('DownloadFileList', { status: 'ALL' }));
		expect(xmlTexts(list.ar, 'FileReference')).toContain(reference);
		const statusReport = bank.files.list().find((file) => file.parentFileReference === reference);
		expect(statusReport?.fileType).toBe('XP');
		const download = await soap(
			'downloadFile',
			appRequest('DownloadFile', { fileReferences: [reference] }),
		);
		expect(Buffer.from(xmlText(download.ar, 'Content') ?? '', 'base64').toString('utf8')).toBe(
			payment,
		);
		const removed = await soap(
			'deleteFile',
			appRequest('DeleteFile', { fileReferences: [reference] }),
		);
		expect(xmlText(removed.ar, 'ResponseCode')).toBe('00');
		expect(xmlText(removed.ar, 'Status')).toBe('DEL');
		const after = await soap('downloadFileList', appRequest('DownloadFileList', { status: 'ALL' }));
		expect(xmlTexts(after.ar, 'FileReference')).not.toContain(reference);
		expect(
			xmlText(
				(await soap('deleteFile', appRequest('DeleteFile', { fileReferences: [reference] }))).ar,
				'ResponseCode',
			),
		).toBe('24');
	});

	it('rejects a tampered customer signature with code 18 and unknown customers with a SOAP fault', async () => {
		const signed = signedApplicationRequest(
			appRequest('UploadFile', { fileType: 'XL', content: Buffer.from('hello') }),
			bank.tls.customerSigningKeyPem,
			bank.tls.customerSigningCertPem,
		);
		const tampered = signed
			.replace('<UserFilename>', '<UserFilename>')
			.replace('aGVsbG8=', 'aGVsbG9v');
		const res = await soap('uploadFile', tampered);
		expect(xmlText(res.ar, 'ResponseCode')).toBe('18');
		const stranger = await soap(
			'getUserInfo',
			applicationRequestXml({ customerId: '99999999', softwareId: 'x', command: 'GetUserInfo' }),
		);
		expect(stranger.res.status).toBe(500);
		expect(stranger.res.text()).toContain('FileServiceFaultElement');
		expect(xmlText(stranger.res.text(), 'code')).toBe('13');
		expect(xmlText(stranger.res.text(), 'category')).toBe('authorization');
		const noSoftware = await soap(
			'getUserInfo',
			appRequest('GetUserInfo').replace(/<SoftwareId>[^<]*<\/SoftwareId>/, ''),
		);
		expect(xmlText(noSoftware.ar, 'ResponseCode')).toBe('12');
	});

	it('refuses bodies over 20 MB on the standard URL without buffering them, and accepts them on the large URL', async () => {
		const parts = soapEnvelopeParts({
			operation: 'uploadFile',
			senderId: fs().senderId,
			receiverId: fs().receiverId,
		});
		const totalBase64 = 21 * 1024 * 1024;
		function* generate(): Generator<Buffer> {
			yield Buffer.from(parts.head);
			const chunk = Buffer.alloc(1024 * 1024, 'QUFB');
			for (let sent = 0; sent < totalBase64; sent += chunk.length) yield chunk;
			yield Buffer.from(parts.tail);
		}
		const length = Buffer.byteLength(parts.head) + totalBase64 + Buffer.byteLength(parts.tail);
		const declared = await call(bank.urls.soap, {
			method: 'POST',
			headers: { 'content-type': 'text/xml', 'content-length': length },
			body: Readable.from(generate()),
		});
		expect(declared.status).toBe(413);
		expect(declared.text()).toContain('FileServiceFaultElement');
		const chunked = await call(bank.urls.soap, {
			method: 'POST',
			headers: { 'content-type': 'text/xml' },
			body: Readable.from(generate()),
		});
		expect(chunked.status).toBe(413);
		expect(bank.stats.soapRefusedTooLarge).toBe(2);

		const content = Buffer.alloc(16 * 1024 * 1024, 7);
		content.write('<big file>');
		const envelope = soapEnvelope({
			operation: 'uploadFile',
			senderId: fs().senderId,
			receiverId: fs().receiverId,
			applicationRequest: appRequest('UploadFile', { fileType: 'XL', content }),
		});
		expect(envelope.length).toBeGreaterThan(20 * 1024 * 1024);
		const large = await soap(
			'uploadFile',
			appRequest('UploadFile', { fileType: 'XL', content }),
			bank.urls.soapLarge,
		);
		expect(xmlText(large.ar, 'ResponseCode')).toBe('00');
		const reference = xmlText(large.ar, 'FileReference') ?? '';
		const download = await soap(
			'downloadFile',
			appRequest('DownloadFile', { fileReferences: [reference] }),
			bank.urls.soapLarge,
		);
		const returned = Buffer.from(xmlText(download.ar, 'Content') ?? '', 'base64');
		expect(createHash('sha256').update(returned).digest('hex')).toBe(
			createHash('sha256').update(content).digest('hex'),
		);
		const doc = new DOMParser().parseFromString(download.ar, 'text/xml');
		const verifier = new SignedXml({
			publicCert: bank.tls.bankSigningCertPem,
			getCertFromKeyInfo: () => null,
		});
		verifier.loadSignature(
			doc.getElementsByTagNameNS(
				'http://www.w3.org/2000/09/xmldsig#',
				'Signature',
			)[0] as unknown as Node,
		);
		expect(verifier.checkSignature(download.ar)).toBe(true);
	});

	it('serves the SOAP faults and broken responses it is asked for', async () => {
		bank.faults.add([
			{ kind: 'soapFault', category: 'security', code: '30' },
			{ kind: 'soapResponseCode', responseCode: '26' },
			{ kind: 'soapDoctype' },
			{ kind: 'soapTamperedSignature' },
			{ kind: 'soapUnsigned' },
			{ kind: 'malformed', area: 'soap' },
		]);
		const request = appRequest('GetUserInfo');
		const fault = await soapCall('getUserInfo', request);
		expect(fault.status).toBe(500);
		expect(xmlText(fault.text(), 'category')).toBe('security');
		expect(xmlText(fault.text(), 'code')).toBe('30');
		expect(xmlText((await soap('getUserInfo', request)).ar, 'ResponseCode')).toBe('26');
		const doctype = await soapCall('getUserInfo', request);
		expect(doctype.text()).toContain('<!DOCTYPE');
		const tampered = (await soap('getUserInfo', request)).ar;
		const verify = (xml: string): boolean => {
			const doc = new DOMParser().parseFromString(xml, 'text/xml');
			const signature = doc.getElementsByTagNameNS(
				'http://www.w3.org/2000/09/xmldsig#',
				'Signature',
			)[0];
			if (!signature) return false;
			const verifier = new SignedXml({
				publicCert: bank.tls.bankSigningCertPem,
				getCertFromKeyInfo: () => null,
			});
			verifier.loadSignature(signature as unknown as Node);
			try {
				return verifier.checkSignature(xml);
			} catch {
				return false;
			}
		};
		expect(tampered).toContain('<Signature');
		expect(verify(tampered)).toBe(false);
		const unsigned = (await soap('getUserInfo', request)).ar;
		expect(unsigned).not.toContain('<Signature');
		const malformed = await soapCall('getUserInfo', request);
		expect(malformed.status).toBe(200);
		expect(() =>
			new DOMParser({
				errorHandler: {
					fatalError: (message: string) => {
						throw new Error(message);
					},
					error: (message: string) => {
						throw new Error(message);
					},
				},
			}).parseFromString(malformed.text(), 'text/xml'),
		).toThrow();
		expect(verify((await soap('getUserInfo', request)).ar)).toBe(true);
	});

	it('serves a WSDL', async () => {
		const res = await call(`${bank.urls.soap}?wsdl`);
		expect(res.status).toBe(200);
		expect(res.text()).toContain('http://bxd.fi/CorporateFileService');
		expect(res.text()).toContain(bank.urls.soap);
	});
});

describe('mutual TLS (D)', () => {
	const tokenWith = async (cert?: string, key?: string, passphrase?: string): Promise<HttpResult> =>
		await tokenRequest(bank.urls.mtlsToken, bank.clients.mtlsClientId, { cert, key, passphrase });

	it('refuses clients without a certificate, from another CA or with an expired certificate', async () => {
		await expect(tokenWith()).rejects.toThrow();
		await expect(
			tokenWith(bank.tls.otherCaClientCertPem, bank.tls.otherCaClientKeyPem),
		).rejects.toThrow();
		await expect(
			tokenWith(bank.tls.expiredClientCertPem, bank.tls.expiredClientKeyPem),
		).rejects.toThrow();
		expect(bank.stats.mtlsTokenRequests).toBe(0);
	});

	it('issues tokens to the registered client (tls_client_auth), with or without a country code', async () => {
		const res = await tokenWith(
			bank.tls.clientCertPem,
			bank.tls.clientKeyEncryptedPem,
			bank.tls.clientKeyPassphrase,
		);
		expect(res.status).toBe(200);
		expect(res.json()).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'accounts' });
		expect(res.json<object>()).not.toHaveProperty('metadata');
		await mtlsToken('/FI/oauth2/token');
		expect(bank.stats.mtlsCountryCodes).toEqual(['FI']);
		const wrong = await tokenRequest(bank.urls.mtlsToken, bank.clients.clientId, {
			cert: bank.tls.clientCertPem,
			key: bank.tls.clientKeyPem,
		});
		expect(wrong.status).toBe(401);
		const signingCert = await tokenWith(bank.tls.customerSigningCertPem, bank.tls.customerSigningKeyPem);
		expect(signingCert.status).toBe(401);
		expect(bank.stats.mtlsTokenRequests).toBe(4);
		expect(bank.stats.mtlsTokensIssued).toBe(2);
	});
});

describe('event polling (D)', () => {
	const mtls = {
		cert: (): string => bank.tls.clientCertPem,
		key: (): string => bank.tls.clientKeyPem,
	};
	const poll = async (
		token: string,
		body: unknown,
		interactionId = 'b5c7c8b2-7f2a-4b59-9d55-1f0a4f0b2e11',
	): Promise<HttpResult> =>
		await call(bank.urls.events, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${token}`,
				'content-type': 'application/json',
				'x-fapi-interaction-id': interactionId,
			},
			body: JSON.stringify(body),
			cert: mtls.cert(),
			key: mtls.key(),
		});
	type PollResponse = { sets: Record<string, string>; moreAvailable?: boolean };

	async function jwks(): Promise<{ keys: JsonWebKey[] }> {
		return (await call(bank.urls.jwks)).json<{ keys: JsonWebKey[] }>();
	}

	function verifyWithNode(jws: string, keys: JsonWebKey[]): boolean {
		const [header, payload, signature] = jws.split('.');
		const kid = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).kid as string;
		const jwk = keys.find((key) => (key as { kid?: string }).kid === kid);
		if (!jwk) return false;
		return cryptoVerify(
			'sha256',
			Buffer.from(`${header}.${payload}`),
			{
				key: createPublicKey({ key: jwk, format: 'jwk' }),
				padding: constants.RSA_PKCS1_PSS_PADDING,
				saltLength: 32,
			},
			Buffer.from(signature, 'base64url'),
		);
	}

	/** Verifies with jose in a plain node process (jose is ESM-only). */
	async function verifyWithJose(
		tokens: string[],
		keys: { keys: JsonWebKey[] },
	): Promise<Array<{ ok: boolean; jti?: string; code?: string }>> {
		const script = `
const jose = require('jose');
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', async () => {
	const { jwks, tokens, issuer, audience } = JSON.parse(input);
	const set = jose.createLocalJWKSet(jwks);
	const out = [];
	for (const token of tokens) {
		try {
			const { payload, protectedHeader } = await jose.jwtVerify(token, set, { issuer, audience, algorithms: ['PS256'], typ: 'secevent+jwt' });
			out.push({ ok: true, jti: payload.jti, kid: protectedHeader.kid });
		} catch (error) {
			out.push({ ok: false, code: error.code });
		}
	}
	process.stdout.write(JSON.stringify(out));
});`;
		const output = await new Promise<string>((resolvePromise, reject) => {
			const child = execFile(process.execPath, ['-e', script], { cwd: REPO }, (error, stdout) =>
				error ? reject(error) : resolvePromise(stdout),
			);
			child.stdin?.end(
				JSON.stringify({
					jwks: keys,
					tokens,
					issuer: bank.clients.eventsIssuer,
					audience: bank.clients.eventsAudience,
				}),
			);
		});
		return JSON.parse(output) as Array<{ ok: boolean; jti?: string; code?: string }>;
	}

	it('delivers PS256-signed SETs, redelivers until acknowledged and records setErrs', async () => {
		const token = await mtlsToken();
		const jtis = bank.events.enqueue([
			{},
			{ type: 'consent-authorization-revoked' },
			{ type: 'account-access-consent-linked-account-update' },
		]);
		const first = await poll(token, { returnImmediately: true });
		expect(first.status).toBe(200);
		expect(first.headers['x-fapi-interaction-id']).toBe('b5c7c8b2-7f2a-4b59-9d55-1f0a4f0b2e11');
		const body = first.json<PollResponse>();
		expect(Object.keys(body.sets)).toEqual(jtis);
		expect(body.moreAvailable).toBe(false);
		const keys = await jwks();
		for (const [jti, jws] of Object.entries(body.sets)) {
			const header = JSON.parse(
				Buffer.from(jws.split('.')[0], 'base64url').toString('utf8'),
			) as Record<string, string>;
			expect(header).toEqual({ alg: 'PS256', kid: bank.tls.eventKid, typ: 'secevent+jwt' });
			expect(verifyWithNode(jws, keys.keys)).toBe(true);
			const claims = JSON.parse(
				Buffer.from(jws.split('.')[1], 'base64url').toString('utf8'),
			) as Record<string, unknown>;
			expect(claims).toMatchObject({
				jti,
				iss: bank.clients.eventsIssuer,
				aud: bank.clients.eventsAudience,
			});
			for (const claim of ['iat', 'sub', 'txn', 'toe', 'events'])
				expect(claims).toHaveProperty(claim);
		}
		const types = Object.values(body.sets).map(
			(jws) =>
				Object.keys(
					(
						JSON.parse(Buffer.from(jws.split('.')[1], 'base64url').toString('utf8')) as {
							events: object;
						}
					).events,
				)[0],
		);
		expect(types).toEqual([
			'urn:uk:org:openbanking:events:resource-update',
			'urn:uk:org:openbanking:events:consent-authorization-revoked',
			'urn:uk:org:openbanking:events:account-access-consent-linked-account-update',
		]);
		const jose = await verifyWithJose(Object.values(body.sets), keys);
		expect(jose.map((result) => result.ok)).toEqual([true, true, true]);

		const again = (await poll(token, { maxEvents: 2 })).json<PollResponse>();
		expect(Object.keys(again.sets)).toEqual(jtis.slice(0, 2));
		expect(again.moreAvailable).toBe(true);
		const acked = (
			await poll(token, {
				ack: jtis.slice(0, 2),
				setErrs: { [jtis[2]]: { err: 'invalid_key', description: 'kid unknown' } },
			})
		).json<PollResponse>();
		expect(acked.sets).toEqual({});
		expect(acked.moreAvailable).toBe(false);
		expect(bank.stats.eventsAcked).toEqual(jtis.slice(0, 2));
		expect(bank.stats.setErrsReceived).toEqual({
			[jtis[2]]: { err: 'invalid_key', description: 'kid unknown' },
		});
		expect(bank.stats.eventsDelivered).toEqual([...jtis, ...jtis.slice(0, 2)]);

		const [late] = bank.events.enqueue(1);
		const ackOnly = (await poll(token, { maxEvents: 0, ack: [late] })).json<PollResponse>();
		expect(ackOnly.sets).toEqual({});
		expect(bank.events.pending()).toEqual([]);
	});

	it('authenticates polls and answers errors in the Open Banking shape', async () => {
		const noToken = await call(bank.urls.events, {
			method: 'POST',
			body: '{}',
			cert: mtls.cert(),
			key: mtls.key(),
		});
		expect(noToken.status).toBe(401);
		expect(Object.keys(noToken.json<object>()).sort()).toEqual(['Code', 'Errors', 'Id', 'Message']);
		expect(noToken.headers['x-fapi-interaction-id']).toBeDefined();
		expect((await poll(await clientToken(), {})).status).toBe(401);
		const bad = await poll(await mtlsToken(), { maxEvents: -1 });
		expect(bad.status).toBe(400);
		expect(bad.json<{ Errors: Array<Record<string, string>> }>().Errors[0]).toMatchObject({
			ErrorCode: 'UK.OBIE.Field.Invalid',
			Path: 'maxEvents',
		});
	});

	it('serves signature, key, audience, issuer and shape faults', async () => {
		const token = await mtlsToken();
		bank.events.enqueue(1);
		const keys = await jwks();
		bank.faults.add([
			{ kind: 'eventBadSignature' },
			{ kind: 'eventUnknownKid' },
			{ kind: 'eventWrongAudience' },
			{ kind: 'eventWrongIssuer' },
			{ kind: 'eventOmitMoreAvailable' },
		]);
		const delivered: string[] = [];
		for (let index = 0; index < 5; index++) {
			const res = (await poll(token, {})).json<PollResponse>();
			delivered.push(...Object.values(res.sets));
			if (index === 4) expect(res).not.toHaveProperty('moreAvailable');
		}
		const results = await verifyWithJose(delivered, keys);
		expect(results.map((result) => result.ok)).toEqual([false, false, false, false, true]);
		expect(results[0].code).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
		expect(results[1].code).toBe('ERR_JWKS_NO_MATCHING_KEY');
		expect(results[2].code).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
		expect(results[3].code).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
		expect(verifyWithNode(delivered[0], keys.keys)).toBe(false);
		const [defective] = bank.events.enqueue([{ defect: 'badSignature' }]);
		const res = (await poll(token, {})).json<PollResponse>();
		expect(verifyWithNode(res.sets[defective], keys.keys)).toBe(false);
	});
});

describe('faults', () => {
	let auth: Record<string, string>;
	beforeEach(async () => {
		auth = { authorization: `Bearer ${await clientToken()}`, 'content-type': 'application/json' };
	});
	const open = async (options: HttpOptions = {}): Promise<HttpResult> =>
		await call(`${bank.urls.reportBase}/trade-reports/open?limit=1`, { headers: auth, ...options });
	const execute = async (options: HttpOptions = {}): Promise<HttpResult> =>
		await call(`${bank.urls.executionBase}/trade-execution/execute`, {
			method: 'POST',
			headers: auth,
			body: JSON.stringify({
				counterpart: 'DEMOCP1',
				buyCurrency: 'EUR',
				sellCurrency: 'USD',
				amount: 10,
				amountSide: 'BUY',
				baseSide: 'BUY',
				tenor: 'SP',
			}),
			...options,
		});

	it('fires status faults once per count, in order, with the area error body', async () => {
		bank.faults.add([
			{ kind: 'status', status: 503, area: 'report', count: 2 },
			{ kind: 'status', status: 500, pathPrefix: '/v1/open-trades-service/' },
		]);
		const first = await open();
		expect(first.status).toBe(503);
		expect(first.json()).toMatchObject({ error: { exception: 'ServiceUnavailable' } });
		expect((await open()).status).toBe(503);
		expect((await open()).status).toBe(500);
		expect((await open()).status).toBe(200);
		expect(bank.faults.list()).toEqual([]);
		expect(bank.stats.faultsFired.map((fired) => fired.kind)).toEqual([
			'status',
			'status',
			'status',
		]);
		bank.faults.add({ kind: 'status', status: 502, area: 'execution' });
		const exec = await execute();
		expect(exec.status).toBe(502);
		expect(Object.keys(exec.json<object>()).sort()).toEqual(['exception', 'message', 'timestamp']);
		expect(bank.stats.executions).toBe(0);
	});

	it('drops or holds connections before or after processing', async () => {
		bank.faults.add({ kind: 'drop', area: 'execution' });
		await expect(execute()).rejects.toThrow();
		expect(bank.stats.executions).toBe(0);
		bank.faults.add({ kind: 'drop', area: 'execution', phase: 'after' });
		await expect(execute()).rejects.toThrow();
		expect(bank.stats.executions).toBe(1);
		expect((await execute()).status).toBe(200);
		expect(bank.stats.executions).toBe(2);
		// Processed, then the answer held until the client gives up.
		bank.faults.add({ kind: 'hold', area: 'execution', phase: 'after' });
		const held = bank.faults.held();
		await expect(execute({ timeoutMs: 100 })).rejects.toThrow(/timeout/);
		await (await held).gaveUp;
		expect(bank.stats.executions).toBe(3);
	});

	it('holds a request until released, and does not process one the client gave up on', async () => {
		bank.faults.add({ kind: 'hold', area: 'execution', count: 2 });
		const given = bank.faults.held();
		await expect(execute({ timeoutMs: 100 })).rejects.toThrow(/timeout/);
		const first = await given;
		expect(first).toMatchObject({ area: 'execution', phase: 'before', path: '/v1/trade-service/trade-execution/execute' });
		await first.gaveUp;
		first.release();
		const answered = execute();
		const second = await bank.faults.held();
		expect(bank.stats.executions).toBe(0);
		second.release();
		expect((await answered).status).toBe(200);
		expect(bank.stats.executions).toBe(1);
		// Whatever is still held is released by clear().
		bank.faults.add({ kind: 'hold', area: 'report', phase: 'after' });
		const report = open();
		await bank.faults.held();
		bank.faults.clear();
		expect((await report).status).toBe(200);
	});

	it('delays before processing or before answering, as long as delayMs says', async () => {
		// The delays' timer is the test's: each wait is seen as it begins and ended by the test.
		const waits: Array<{ ms: number; end: () => void }> = [];
		let waitBegun: () => void = () => undefined;
		const delayed = await startSandbox({
			trades: 20,
			sleep: async (ms) =>
				await new Promise<void>((end) => {
					waits.push({ ms, end });
					waitBegun();
				}),
		});
		const nextWait = async () =>
			await new Promise<{ ms: number; end: () => void }>((resolve) => {
				const take = () => resolve(waits.shift()!);
				if (waits.length) take();
				else waitBegun = take;
			});
		try {
			const token = await tokenRequest(delayed.urls.token, delayed.clients.clientId);
			const headers = { authorization: `Bearer ${token.json<{ access_token: string }>().access_token}`, 'content-type': 'application/json' };
			const openAt = () => httpsCall(`${delayed.urls.reportBase}/trade-reports/open?limit=1`, { ca, headers });
			delayed.faults.add({ kind: 'delay', delayMs: 400, area: 'report' });
			// The request is processed and answered only when the delay has ended.
			let answered = false;
			const patient = openAt().then((res) => {
				answered = true;
				return res;
			});
			const first = await nextWait();
			expect(first.ms).toBe(400);
			expect(answered).toBe(false);
			expect(delayed.stats.requests.filter((r) => r.area === 'report').map((r) => r.status)).toEqual([undefined]);
			first.end();
			expect((await patient).status).toBe(200);
			expect(delayed.stats.requests.filter((r) => r.area === 'report').map((r) => r.status)).toEqual([200]);
			// After processing: the execution is recorded before the delay, the answer sent after it.
			delayed.faults.add({ kind: 'delay', delayMs: 250, area: 'execution', phase: 'after' });
			const execution = httpsCall(`${delayed.urls.executionBase}/trade-execution/execute`, {
				ca,
				method: 'POST',
				headers,
				body: JSON.stringify({ counterpart: 'DEMOCP1', buyCurrency: 'EUR', sellCurrency: 'USD', amount: 10, amountSide: 'BUY', baseSide: 'BUY', tenor: 'SP' }),
			});
			const second = await nextWait();
			expect(second.ms).toBe(250);
			expect(delayed.stats.executions).toBe(1);
			second.end();
			expect((await execution).status).toBe(200);
		} finally {
			for (const wait of waits) wait.end();
			await delayed.stop();
		}
	});

	it('garbles and replaces bodies', async () => {
		bank.faults.add([
			{ kind: 'malformed', area: 'report' },
			{ kind: 'html', area: 'report' },
			{ kind: 'nonJson200', area: 'token' },
		]);
		const malformed = await open();
		expect(malformed.status).toBe(200);
		expect(() => malformed.json()).toThrow();
		const html = await open();
		expect(html.status).toBe(502);
		expect(html.headers['content-type']).toContain('text/html');
		const token = await tokenRequest(bank.urls.token, bank.clients.clientId);
		expect(token.status).toBe(200);
		expect(() => token.json()).toThrow();
		bank.faults.add({ kind: 'status', status: 503, area: 'mock' });
		const mock = await call(`${bank.urls.mockReportBase}/trade-reports/open`);
		expect(mock.status).toBe(503);
		expect(mock.headers['x-mockdata-info']).toBeDefined();
		expect(mock.json()).toMatchObject({ status: '503 SERVICE_UNAVAILABLE' });
	});

	it('is driven through the admin API', async () => {
		const json = { 'content-type': 'application/json' };
		const added = await call(`${bank.urls.admin}/faults`, {
			method: 'POST',
			headers: json,
			body: JSON.stringify({ kind: 'status', status: 500, area: 'report' }),
		});
		expect(added.json<{ ids: number[] }>().ids).toHaveLength(1);
		expect((await call(`${bank.urls.admin}/faults`)).json<unknown[]>()).toHaveLength(1);
		expect((await open()).status).toBe(500);
		await call(`${bank.urls.admin}/faults`, {
			method: 'POST',
			headers: json,
			body: JSON.stringify([{ kind: 'html' }]),
		});
		await call(`${bank.urls.admin}/faults`, { method: 'DELETE' });
		expect((await open()).status).toBe(200);
		expect(
			(
				await call(`${bank.urls.admin}/faults`, {
					method: 'POST',
					headers: json,
					body: JSON.stringify({ kind: 'nope' }),
				})
			).status,
		).toBe(400);
		await call(`${bank.urls.admin}/tokens/expire`, { method: 'POST' });
		expect((await open()).status).toBe(401);
		const events = await call(`${bank.urls.admin}/events`, {
			method: 'POST',
			headers: json,
			body: JSON.stringify({ count: 2 }),
		});
		expect(events.json<{ jtis: string[] }>().jtis).toHaveLength(2);
		expect(bank.events.pending()).toHaveLength(2);
		const switches = await call(`${bank.urls.admin}/switches`, {
			method: 'POST',
			headers: json,
			body: JSON.stringify({ linkStyle: 'foreign' }),
		});
		expect(switches.json()).toMatchObject({ linkStyle: 'foreign' });
		const stats = (await call(`${bank.urls.admin}/stats`)).json<{ requests: unknown[] }>();
		expect(stats.requests.length).toBeGreaterThan(0);
		await call(`${bank.urls.admin}/reset`, {
			method: 'POST',
			headers: json,
			body: JSON.stringify({ all: true }),
		});
		expect(bank.stats.requests).toEqual([]);
		expect(bank.switches.linkStyle).toBe('relative');
		expect(bank.events.pending()).toEqual([]);
		const credentials = (await call(`${bank.urls.admin}/credentials`)).json<{
			credentials: Record<string, Record<string, string>>;
		}>();
		expect(credentials.credentials.corporateBankingClientCredentialsApi.apiUrl).toBe(bank.urls.base);
	});
});

describe('credential values and CLI', () => {
	it('gives ready-to-paste credential values with real PEM newlines', () => {
		const values = bank.credentialValues();
		expect(Object.keys(values).sort()).toEqual([
			'corporateBankingClientCredentialsApi',
			'corporateBankingEbicsApi',
			'corporateBankingEbicsApi#SIGNER1',
			'corporateBankingEbicsApi#SIGNER2',
			'corporateBankingFileServiceApi',
			'corporateBankingMtlsApi',
			'corporateBankingSftpApi',
		]);
		expect(values.corporateBankingSftpApi).toMatchObject({
			host: bank.sftp.host,
			port: bank.sftp.port,
			hostKeyFingerprint: bank.sftp.fingerprint,
			pgpKeySource: 'imported',
		});
		expect(values.corporateBankingClientCredentialsApi).toMatchObject({
			environment: 'sandbox',
			apiUrl: bank.urls.base,
			scope: 'accounts',
			clientId: bank.clients.clientId,
		});
		expect(values.corporateBankingMtlsApi).toMatchObject({
			baseUrl: bank.urls.mtlsBase,
			countryCode: '',
			clientId: bank.clients.mtlsClientId,
		});
		expect(values.corporateBankingFileServiceApi).toMatchObject({
			url: bank.urls.soap,
			largeFileUrl: bank.urls.soapLarge,
			environment: 'TEST',
		});
		expect(String(values.corporateBankingMtlsApi.certificate)).toMatch(
			/^-----BEGIN CERTIFICATE-----\n/,
		);
		expect(values.corporateBankingEbicsApi).toMatchObject({
			url: bank.ebicsClient('PARTNER2', 'READY1').url,
			partnerId: 'PARTNER2',
			userId: 'READY1',
			keySource: 'import',
			alreadyInitialised: true,
		});
		expect(String(values.corporateBankingEbicsApi.signaturePrivateKey)).toMatch(/^-----BEGIN (RSA )?PRIVATE KEY-----\n/);
		expect(String(values.corporateBankingEbicsApi.bankAuthenticationHash)).toMatch(/^[0-9A-F]{2}( [0-9A-F]{2}){15}\n[0-9A-F]{2}( [0-9A-F]{2}){15}$/);
	});

	it('runs as a process, writes the state file and stops on SIGTERM', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
		const stateFile = join(dir, 'state.json');
		const child = spawn(
			process.execPath,
			[
				'-r',
				'ts-node/register/transpile-only',
				join(__dirname, 'cli.ts'),
				'--trades',
				'50',
				'--state-file',
				stateFile,
				'--quiet',
			],
			{
				cwd: REPO,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		try {
			await new Promise<void>((resolvePromise, reject) => {
				// Ready when it says so; a CLI that fails exits. A hang is left to jest's guard.
				let output = '';
				child.stdout.on('data', (data: Buffer) => {
					output += data.toString();
					if (output.includes('SANDBOX_READY')) resolvePromise();
				});
				child.stderr.on('data', (data: Buffer) => {
					output += data.toString();
				});
				child.on('exit', (code) => reject(new Error(`CLI exited with ${code}: ${output}`)));
			});
			const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
				urls: { token: string };
				credentials: Record<string, Record<string, string>>;
			};
			expect(state.credentials.corporateBankingMtlsApi.privateKey).toContain('PRIVATE KEY-----\n');
			await clientToken(state.urls.token);
			const exited = new Promise<number | null>((resolvePromise) =>
				child.on('exit', (code) => resolvePromise(code)),
			);
			child.kill('SIGTERM');
			expect(await exited).toBe(0);
			expect(existsSync(stateFile)).toBe(false);
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('prints every URL of the bank as an address, a group of URLs (certificate services, Danske) one line each', async () => {
		const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'cli.ts'), '--trades', '5'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
		try {
			const output = await new Promise<string>((resolvePromise, reject) => {
				let text = '';
				child.stdout.on('data', (data: Buffer) => {
					text += data.toString();
					if (text.includes('SANDBOX_READY')) resolvePromise(text);
				});
				child.stderr.on('data', (data: Buffer) => {
					text += data.toString();
				});
				child.on('exit', (code) => reject(new Error(`CLI exited with ${code}: ${text}`)));
			});
			expect(output).not.toContain('[object Object]');
			const urls = output.slice(output.indexOf('URLs:\n') + 6, output.indexOf('\n\n', output.indexOf('URLs:'))).split('\n');
			for (const line of urls) expect(line).toMatch(/^ {2}\S+ +https:\/\/127\.0\.0\.1:\d+(\/\S*)?$/);
			expect(urls).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}certService\.op +https:\/\/\S+\/services\/CertificateService\/op$/), expect.stringMatching(/^ {2}danske\.pki +https:\/\//)]));
		} finally {
			child.kill('SIGTERM');
		}
	});
});

describe('EBICS download segments (large files)', () => {
	it('encrypts as segments are asked for: the same base64 as encrypting the file at once, in order, again, or a later segment first', () => {
		const key = randomBytes(16);
		for (const [size, segmentBytes] of [[9 * 1024 * 1024 + 5, 786_432], [100_000, 999], [4096, 16]]) {
			const compressed = randomBytes(size);
			const cipher = createCipheriv('aes-128-cbc', key, Buffer.alloc(16));
			const whole = Buffer.concat([cipher.update(compressed), cipher.final()]);
			const expected = Array.from({ length: Math.ceil(whole.length / segmentBytes) }, (_, i) => whole.toString('base64', i * segmentBytes, (i + 1) * segmentBytes));
			const inOrder = new LazySegments(compressed, key, segmentBytes);
			expect(inOrder.count).toBe(expected.length);
			expect(expected.map((_, i) => inOrder.at(i))).toEqual(expected);
			expect(inOrder.at(0)).toBe(expected[0]);
			const lastFirst = new LazySegments(compressed, key, segmentBytes);
			expect(lastFirst.at(expected.length - 1)).toBe(expected.at(-1));
			expect(lastFirst.at(1)).toBe(expected[1]);
			// Made ahead: the next segment, one past the last (nothing), or one asked for out of turn.
			const ahead = new LazySegments(compressed, key, segmentBytes);
			for (let i = 0; i < expected.length; i++) {
				expect(ahead.at(i)).toBe(expected[i]);
				ahead.prepare(i + 1);
			}
			ahead.prepare(expected.length);
			expect(ahead.at(expected.length - 1)).toBe(expected.at(-1));
			ahead.prepare(expected.length - 1);
			expect(ahead.at(0)).toBe(expected[0]);
			expect(ahead.at(expected.length - 1)).toBe(expected.at(-1));
		}
	});
});
