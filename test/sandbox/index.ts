/**
 * The local sandbox bank: a real HTTPS server speaking every interface of SPEC.md
 * (token endpoint, FX trade report and execution, mock service, bxd SOAP file service,
 * Open Banking aggregated event polling over mutual TLS), with fault switches.
 * See README.md in this folder.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

import { handleAdmin } from './admin';
import { FileStore } from './bankfiles';
import { DEFAULT_CERT_DIR, loadOrCreatePki, tlsFields } from './certs';
import { CERT_DIALECTS, CERT_SERVICE_PATH, SandboxCertService, type CertDialect } from './certService';
import { DANSKE_PKI_PATH, DANSKE_SOAP_PATH, SandboxDanske } from './danske';
import { clientSettings, EBICS_PATH, ebicsCredentialValues, handleEbics, loadOrCreateEbicsKeys, SandboxEbicsBank } from './ebics';
import { EventService } from './events';
import { FaultEngine, PHASED_KINDS } from './faults';
import {
	areaError,
	bearerToken,
	BodyTooLargeError,
	isClosed,
	isPause,
	send,
	sendFaultReplacement,
	sleep,
	type RequestContext,
} from './http';
import { MOCK_EXECUTION_API, MOCK_REPORT_API, MockService } from './mock';
import { startSandboxH2h } from './sftp';
import { handleDanskeSoap, handleSoap, type FileServiceDeps } from './soap';
import { describeTokenFailure, handleTokenRequest, TokenStore } from './tokens';
import { handleExecution, handleReport, TradeBook } from './trades';
import type {
	ActiveFault,
	Area,
	RequestRecord,
	SandboxBank,
	SandboxClients,
	SandboxOptions,
	SandboxStats,
	SandboxSwitches,
	SandboxUrls,
} from './types';

export * from './types';
export { MOCK_EXAMPLE_TRADES, MOCK_EXECUTION_API, MOCK_REPORT_API } from './mock';
export { TENORS, COUNTERPARTS } from './trades';
export { signApplicationRequest, verifyEnvelopedSignature } from './xmldsig';
export { STANDARD_LIMIT, LARGE_LIMIT, RESPONSE_TEXTS, XMLDATA_NS } from './soap';
export { CERT_DIALECTS, CERT_SERVICE_PATH, SandboxCertService } from './certService';
export { DANSKE_PKI_PATH, DANSKE_SOAP_PATH, SandboxDanske } from './danske';
export type { CertDialect } from './certService';
export { EBICS_PATH, SANDBOX_HOST_ID, SandboxEbicsBank, STATE_TEXT } from './ebics';
export type { EbicsClientSettings, EbicsFaultKind, EbicsRecord, EbicsSwitches, SandboxSubscriber, SubscriberState } from './ebics';

export const REPORT_BASE_PATH = '/v1/open-trades-service';
export const EXECUTION_BASE_PATH = '/v1/trade-service';
export const SOAP_PATH = '/services/CorporateFileService';
export const SOAP_LARGE_PATH = '/services/CorporateFileServiceLarge';
export const JWKS_PATH = '/.well-known/jwks.json';
export const ADMIN_PATH = '/__sandbox';

const CLIENTS: SandboxClients = {
	clientId: 'sandbox-client-0001',
	mtlsClientId: 'sandbox-tpp-0001',
	eventsAudience: 'sandbox-tpp-0001',
	eventsIssuer: 'https://sandbox-bank.localhost/',
	fileService: {
		senderId: '11111111',
		customerId: '11111111',
		receiverId: 'SBXBFIHH',
		softwareId: 'n8n-corporate-banking',
		targetId: '11111111A1',
	},
};

export function freshStats(): SandboxStats {
	return {
		tokenRequests: 0,
		tokensIssued: 0,
		mtlsTokenRequests: 0,
		mtlsTokensIssued: 0,
		mtlsCountryCodes: [],
		executions: 0,
		executionBodies: [],
		requests: [],
		foreignRequests: [],
		eventPolls: 0,
		eventsDelivered: [],
		eventsAcked: [],
		setErrsReceived: {},
		mockCalls: 0,
		mockErrors: 0,
		mockErrorLog: [],
		soapCalls: [],
		soapRefusedTooLarge: 0,
		faultsFired: [],
		connections: { main: 0, mtls: 0 },
	};
}

/** Keeps the recorded lists bounded when the sandbox runs for a long time. */
const STATS_LIST_LIMIT = 20000;

function trimStats(stats: SandboxStats): void {
	for (const list of [
		stats.requests,
		stats.foreignRequests,
		stats.soapCalls,
		stats.eventsDelivered,
		stats.eventsAcked,
		stats.faultsFired,
		stats.mockErrorLog,
		stats.executionBodies,
		stats.mtlsCountryCodes,
	] as unknown[][]) {
		if (list.length > STATS_LIST_LIMIT) list.splice(0, list.length - STATS_LIST_LIMIT);
	}
}

const defaultSwitches = (signResponses: boolean): SandboxSwitches => ({
	linkStyle: 'relative',
	signResponses,
	compressDownloads: false,
	requireSignedRequests: false,
});

function classifyMain(path: string): Area {
	if (path === '/oauth2/token') return 'token';
	if (path === REPORT_BASE_PATH || path.startsWith(`${REPORT_BASE_PATH}/`)) return 'report';
	if (path === EXECUTION_BASE_PATH || path.startsWith(`${EXECUTION_BASE_PATH}/`))
		return 'execution';
	if (path.startsWith('/mock/')) return 'mock';
	if (path === SOAP_PATH) return 'soap';
	if (path === SOAP_LARGE_PATH) return 'soapLarge';
	if (path === JWKS_PATH) return 'jwks';
	if (path.startsWith(`${CERT_SERVICE_PATH}/`)) return 'certService';
	if (path === DANSKE_SOAP_PATH) return 'danske';
	if (path === DANSKE_PKI_PATH) return 'danskePki';
	if (path === EBICS_PATH) return 'ebics';
	if (path === ADMIN_PATH || path.startsWith(`${ADMIN_PATH}/`)) return 'admin';
	return 'unknown';
}

function classifyMtls(path: string): Area {
	if (path === '/oauth2/token' || /^\/[A-Za-z]{2}\/oauth2\/token$/.test(path)) return 'mtlsToken';
	if (path === '/events') return 'events';
	return 'unknown';
}

async function listen(server: Server, port: number, host: string): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

function urlHost(host: string): string {
	return host.includes(':') ? `[${host}]` : host;
}

/** Starts the sandbox bank. Stop it with `bank.stop()`. */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxBank> {
	const host = options.host ?? '127.0.0.1';
	const seed = options.seed ?? 42;
	const now = options.clock ?? ((): Date => new Date());
	const certDir = options.certDir ?? DEFAULT_CERT_DIR;
	const pki = await loadOrCreatePki(certDir, [host]);
	const stats = freshStats();
	const switches = defaultSwitches(options.signResponses ?? true);
	const faults = new FaultEngine();
	const tokens = new TokenStore(options.tokenTtlSeconds ?? 3600, now);
	const tradeCount = options.trades ?? 3000;
	const book = new TradeBook(seed, tradeCount, now);
	const mock = new MockService(seed, options.mockErrorRate ?? 0.2, stats);
	const sftp = await startSandboxH2h({ port: options.sftpPort });
	const files = new FileStore({
		seed,
		days: options.statementDays ?? 10,
		customerId: CLIENTS.fileService.customerId,
		customerName: 'Sandbox Customer Oy',
		targetId: CLIENTS.fileService.targetId,
		now,
	});

	const tlsOptions = { key: pki.serverKeyPem, cert: pki.serverCertPem };
	const mainServer = createServer(tlsOptions);
	const mtlsServer = createServer({
		...tlsOptions,
		ca: [pki.caCertPem],
		requestCert: true,
		rejectUnauthorized: true,
	});
	const foreignServer = createServer(tlsOptions);
	let mainPort: number;
	let mtlsPort: number;
	let foreignPort: number;
	try {
		mainPort = await listen(mainServer, options.port ?? 0, host);
		mtlsPort = await listen(mtlsServer, options.mtlsPort ?? 0, host);
		foreignPort = await listen(foreignServer, options.foreignPort ?? 0, host);
	} catch (error) {
		for (const server of [mainServer, mtlsServer, foreignServer])
			if (server.listening) server.close();
		files.dispose();
		throw error;
	}

	const base = `https://${urlHost(host === '0.0.0.0' ? '127.0.0.1' : host)}:${mainPort}`;
	const mtlsBase = `https://${urlHost(host === '0.0.0.0' ? '127.0.0.1' : host)}:${mtlsPort}`;
	const foreign = `https://${urlHost(host === '0.0.0.0' ? '127.0.0.1' : host)}:${foreignPort}`;
	const urls: SandboxUrls = {
		base,
		token: `${base}/oauth2/token`,
		reportBase: `${base}${REPORT_BASE_PATH}`,
		executionBase: `${base}${EXECUTION_BASE_PATH}`,
		mockBase: base,
		mockReportBase: `${base}/mock/sandbox/${MOCK_REPORT_API.version}/${MOCK_REPORT_API.name}${REPORT_BASE_PATH}`,
		mockExecutionBase: `${base}/mock/sandbox/${MOCK_EXECUTION_API.version}/${MOCK_EXECUTION_API.name}${EXECUTION_BASE_PATH}`,
		soap: `${base}${SOAP_PATH}`,
		soapLarge: `${base}${SOAP_LARGE_PATH}`,
		certService: {
			nordea: `${base}${CERT_SERVICE_PATH}/nordea`,
			op: `${base}${CERT_SERVICE_PATH}/op`,
			samlink: `${base}${CERT_SERVICE_PATH}/samlink`,
		},
		danske: { soap: `${base}${DANSKE_SOAP_PATH}`, pki: `${base}${DANSKE_PKI_PATH}` },
		ebics: `${base}${EBICS_PATH}`,
		jwks: `${base}${JWKS_PATH}`,
		mtlsBase,
		mtlsToken: `${mtlsBase}/oauth2/token`,
		events: `${mtlsBase}/events`,
		foreign,
		admin: `${base}${ADMIN_PATH}`,
	};

	const events = new EventService({
		signingKeyPem: pki.eventSigningKeyPem,
		rogueKeyPem: pki.eventRogueKeyPem,
		issuer: CLIENTS.eventsIssuer,
		audience: CLIENTS.eventsAudience,
		resourceBase: CLIENTS.eventsIssuer.replace(/\/$/, ''),
		stats,
		tokens,
		now,
	});
	const certService = new SandboxCertService({
		pki,
		senderId: CLIENTS.fileService.senderId,
		customerId: CLIENTS.fileService.customerId,
		now,
	});
	const danske = new SandboxDanske({
		pki,
		senderId: CLIENTS.fileService.senderId,
		customerId: CLIENTS.fileService.customerId,
		now,
	});
	const ebicsKeys = await loadOrCreateEbicsKeys(certDir);
	const ebics = new SandboxEbicsBank({ keys: ebicsKeys, seed, now });
	const ebicsClient = (partnerId: string, userId: string): ReturnType<SandboxBank['ebicsClient']> => {
		const subscriber = ebics.subscriber(partnerId, userId);
		if (!subscriber) throw new Error(`The sandbox EBICS bank has no subscriber ${partnerId}/${userId}`);
		return clientSettings(ebics, base, subscriber, ebicsKeys.readySubscriber, ebicsKeys.signers);
	};
	const fileDeps: FileServiceDeps = {
		store: files,
		stats,
		switches,
		clients: CLIENTS,
		customerSigningCertPem: pki.customerSigningCertPem,
		customerCertFor: (text) => danske.certificateFor(text) ?? certService.certificateFor(text),
		bankSigningCertPem: pki.bankSigningCertPem,
		bankSigningKeyPem: pki.bankSigningKeyPem,
	};

	const bearerFailure = (ctx: RequestContext): boolean => {
		const check = tokens.check(bearerToken(ctx.req), 'client');
		if (check.ok) return false;
		const status = check.reason === 'wrongKind' ? 403 : 401;
		const { contentType, body } = areaError(
			ctx.area,
			status,
			describeTokenFailure(check.reason),
			now,
		);
		send(
			ctx,
			status,
			{ 'content-type': contentType, ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}) },
			body,
		);
		return true;
	};

	async function routeMain(ctx: RequestContext): Promise<void> {
		const path = ctx.url.pathname;
		switch (ctx.area) {
			case 'token':
				await handleTokenRequest(ctx, {
					kind: 'client',
					clientId: CLIENTS.clientId,
					store: tokens,
					stats,
				});
				return;
			case 'report':
				if (bearerFailure(ctx)) return;
				handleReport(
					ctx,
					{ book, switches, basePath: REPORT_BASE_PATH, origin: base, foreignOrigin: foreign },
					path.slice(REPORT_BASE_PATH.length),
				);
				return;
			case 'execution':
				if (path.replace(/\/+$/, '') !== `${EXECUTION_BASE_PATH}/trade-execution/execute`) {
					const { contentType, body } = areaError(
						'execution',
						404,
						'The requested trade execution endpoint does not exist.',
						now,
					);
					send(ctx, 404, { 'content-type': contentType }, body);
					return;
				}
				if (bearerFailure(ctx)) return;
				await handleExecution(ctx, { book, stats });
				return;
			case 'mock':
				if (!path.startsWith('/mock/sandbox/')) {
					await mock.handle(ctx, '/');
					return;
				}
				await mock.handle(ctx, path.slice('/mock/sandbox'.length));
				return;
			case 'soap':
				await handleSoap(ctx, fileDeps, 'standard', urls.soap);
				return;
			case 'soapLarge':
				await handleSoap(ctx, fileDeps, 'large', urls.soapLarge);
				return;
			case 'danske':
				await handleDanskeSoap(ctx, danske, fileDeps, urls.danske.soap);
				return;
			case 'danskePki':
				await danske.handlePki(ctx);
				return;
			case 'ebics':
				await handleEbics(ctx, ebics);
				return;
			case 'certService': {
				const dialect = path.slice(CERT_SERVICE_PATH.length + 1) as CertDialect;
				if (!CERT_DIALECTS.includes(dialect)) break;
				await certService.handle(ctx, dialect);
				return;
			}
			case 'jwks':
				send(
					ctx,
					200,
					{ 'content-type': 'application/json', 'cache-control': 'max-age=60' },
					JSON.stringify(events.jwks()),
				);
				return;
			default:
				if (path === '/' && ctx.req.method === 'GET') {
					send(
						ctx,
						200,
						{ 'content-type': 'application/json' },
						JSON.stringify({ service: 'sandbox corporate bank', urls }, null, '\t'),
					);
					return;
				}
				send(
					ctx,
					404,
					{ 'content-type': 'application/json' },
					JSON.stringify({ error: 'NotFound', message: `No resource at ${path}.` }),
				);
		}
	}

	async function routeMtls(ctx: RequestContext): Promise<void> {
		const socket = ctx.req.socket as TLSSocket;
		const peer = socket.getPeerCertificate();
		const fingerprint = peer?.raw ? createHash('sha256').update(peer.raw).digest('hex') : undefined;
		const commonName = peer?.subject ? String(peer.subject.CN ?? '') : undefined;
		if (ctx.area === 'mtlsToken') {
			const country = /^\/([A-Za-z]{2})\/oauth2\/token$/.exec(ctx.url.pathname)?.[1];
			if (country) stats.mtlsCountryCodes.push(country.toUpperCase());
			await handleTokenRequest(ctx, {
				kind: 'mtls',
				clientId: CLIENTS.mtlsClientId,
				store: tokens,
				stats,
				certFingerprint: fingerprint,
				certCommonName: commonName,
				expectedCommonName: pki.clientCertCommonName,
			});
			return;
		}
		if (ctx.area === 'events') {
			await events.handle(ctx, fingerprint);
			return;
		}
		send(
			ctx,
			404,
			{ 'content-type': 'application/json' },
			JSON.stringify({ error: 'NotFound', message: `No resource at ${ctx.url.pathname}.` }),
		);
	}

	const wait = options.sleep ?? sleep;

	/** Waits for a 'delay' or 'hold' fault; false when the client gave up meanwhile. */
	async function pause(ctx: RequestContext, fault: ActiveFault): Promise<boolean> {
		if (fault.kind === 'hold') {
			const gone = new Promise<void>((resolve) =>
				ctx.res.once('close', () => {
					if (!ctx.res.writableFinished) resolve();
				}),
			);
			const outcome = await faults.hold(fault, ctx.area, ctx.record.path, gone);
			return outcome === 'released' && !isClosed(ctx);
		}
		await wait(fault.delayMs ?? 1000);
		return !isClosed(ctx);
	}

	async function dispatch(
		server: 'main' | 'mtls',
		req: IncomingMessage,
		res: ServerResponse,
		route: (ctx: RequestContext) => Promise<void>,
	): Promise<void> {
		const url = new URL(req.url ?? '/', server === 'main' ? base : mtlsBase);
		const method = req.method ?? 'GET';
		const area = server === 'main' ? classifyMain(url.pathname) : classifyMtls(url.pathname);
		if (area === 'admin') {
			await handleAdmin(req, res, url.pathname.slice(ADMIN_PATH.length), url, bank);
			return;
		}
		const record: RequestRecord = {
			server,
			method,
			path: url.pathname + url.search,
			area,
			authorization: req.headers.authorization !== undefined,
		};
		stats.requests.push(record);
		trimStats(stats);
		const ctx: RequestContext = { server, req, res, url, area, record, now, pause: async (fault) => await pause(ctx, fault) };
		if (area === 'mock')
			res.setHeader(
				'x-mockdata-info',
				JSON.stringify({ example: null, random: false, injected: true }),
			);
		const fault = faults.take(area, method, url.pathname, record.path);
		if (fault) {
			ctx.fault = fault;
			record.fault = fault.kind;
			stats.faultsFired.push({ id: fault.id, kind: fault.kind, area, path: record.path });
			if (isPause(fault) && fault.phase !== 'after') {
				if (!(await ctx.pause(fault))) return;
			} else if (PHASED_KINDS.has(fault.kind) && (fault.phase ?? 'before') === 'before') {
				sendFaultReplacement(ctx, fault);
				if (fault.kind !== 'drop') req.resume();
				return;
			}
		}
		try {
			await route(ctx);
		} catch (error) {
			if (isClosed(ctx)) return;
			const tooLarge = error instanceof BodyTooLargeError;
			const status = tooLarge ? 413 : 500;
			if (tooLarge) req.resume();
			const { contentType, body } = areaError(
				area,
				status,
				tooLarge ? 'Request payload too large.' : 'Internal sandbox error.',
				now,
			);
			if (!tooLarge && process.env.SANDBOX_DEBUG)
				process.stderr.write(`sandbox error: ${(error as Error).stack ?? String(error)}\n`);
			send(ctx, status, { 'content-type': contentType }, body);
		}
	}

	mainServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
		void dispatch('main', req, res, routeMain);
	});
	mtlsServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
		void dispatch('mtls', req, res, routeMtls);
	});
	foreignServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
		stats.foreignRequests.push({
			method: req.method ?? 'GET',
			url: req.url ?? '/',
			headers: { ...req.headers },
		});
		req.resume();
		const body = JSON.stringify({ items: [], next: null, previous: null, foreign: true });
		res.writeHead(200, {
			'content-type': 'application/json',
			'content-length': Buffer.byteLength(body),
		});
		res.end(body);
	});
	mainServer.on('secureConnection', () => stats.connections.main++);
	mtlsServer.on('secureConnection', () => stats.connections.mtls++);
	for (const server of [mainServer, mtlsServer, foreignServer]) {
		server.on('tlsClientError', () => undefined);
		server.on('clientError', (_error, socket) => socket.destroy());
	}

	const resetStats = (): void => {
		const fresh = freshStats();
		for (const key of Object.keys(fresh) as Array<keyof SandboxStats>) {
			(stats as unknown as Record<string, unknown>)[key] = fresh[key];
		}
	};

	const bank: SandboxBank = {
		sftp,
		urls,
		tls: {
			caPem: pki.caCertPem,
			otherCaPem: pki.otherCaCertPem,
			...tlsFields(pki),
			eventKid: events.kid,
			certDir,
		},
		clients: CLIENTS,
		stats,
		resetStats,
		faults,
		switches,
		tokens: {
			expireAll: () => tokens.expireAll(),
			get maxUses() {
				return tokens.maxUses;
			},
			set maxUses(value: number | undefined) {
				tokens.maxUses = value;
			},
			get ttlSeconds() {
				return tokens.ttlSeconds;
			},
			activeCount: () => tokens.activeCount(),
		},
		events: {
			enqueue: (spec) => events.enqueue(spec),
			pending: () => events.pending(),
			get: (jti) => events.get(jti),
			clear: () => events.clear(),
			jwks: () => events.jwks(),
		},
		trades: {
			all: () => book.all(),
			setCount: (count) => book.setCount(count),
			get: (tradeId) => book.get(tradeId),
		},
		files,
		mock,
		certService,
		enrolmentCredential: (bankId, pin) => {
			const dialect: CertDialect = bankId === 'nordea' ? 'nordea' : bankId === 'op' ? 'op' : 'samlink';
			return {
				bank: bankId,
				environment: 'TEST',
				url: urls.soap,
				largeFileUrl: urls.soapLarge,
				certificateServiceUrl: urls.certService[dialect],
				senderId: CLIENTS.fileService.senderId,
				customerId: CLIENTS.fileService.customerId,
				receiverId: CLIENTS.fileService.receiverId,
				softwareId: CLIENTS.fileService.softwareId,
				signingMode: 'enrol',
				pin: pin ?? certService.newPin(dialect),
				caCertificate: pki.caCertPem,
				// The bank's root, pinned: the sandbox CA issues the bank's signing certificate and the
				// certificates its certificate services issue.
				bankCertificate: pki.caCertPem,
				// The sandbox's file service signs with RSA-SHA256 (Samlink's own still uses SHA-1);
				// its certificate services sign as the banks' do (see certService.ts).
				signatureAlgorithm: 'sha256',
			};
		},
		danske,
		ebics,
		ebicsClient,
		danskeCredential: (options = {}) => {
			const common = {
				bank: 'danske',
				environment: 'TEST',
				url: urls.danske.soap,
				largeFileUrl: urls.danske.soap,
				certificateServiceUrl: urls.danske.pki,
				senderId: CLIENTS.fileService.senderId,
				customerId: CLIENTS.fileService.customerId,
				receiverId: CLIENTS.fileService.receiverId,
				softwareId: CLIENTS.fileService.softwareId,
				caCertificate: pki.caCertPem,
				// The bank's root, pinned: the sandbox CA issues the bank's certificates.
				bankCertificate: pki.caCertPem,
				// The sandbox's file service signs with RSA-SHA256 (its PKIFactoryService as the bank's does).
				signatureAlgorithm: 'sha256',
			};
			if (options.pin) return { ...common, signingMode: 'enrol', pin: options.pin === 'new' ? danske.newPin() : options.pin };
			return {
				...common,
				signingMode: 'paste',
				signingCertificate: pki.customerSigningCertPem,
				signingPrivateKey: pki.customerSigningKeyPem,
				bankEncryptionCertificate: danske.bankEncryptionCertPem,
				encryptionCertificate: danske.customerEncryptionCertPem,
				encryptionPrivateKey: danske.customerEncryptionKeyPem,
			};
		},
		credentialValues: () => ({
			corporateBankingClientCredentialsApi: {
				// The sandbox serves the bank's paths under one host, as a bank's Sandbox environment does.
				environment: 'sandbox',
				apiUrl: urls.base,
				clientId: CLIENTS.clientId,
				scope: 'accounts',
				caCertificate: pki.caCertPem,
			},
			corporateBankingMtlsApi: {
				baseUrl: urls.mtlsBase,
				countryCode: '',
				clientId: CLIENTS.mtlsClientId,
				scope: 'accounts',
				certificate: pki.clientCertPem,
				privateKey: pki.clientKeyPem,
				passphrase: '',
				caCertificate: pki.caCertPem,
			},
			corporateBankingFileServiceApi: {
				url: urls.soap,
				largeFileUrl: urls.soapLarge,
				senderId: CLIENTS.fileService.senderId,
				customerId: CLIENTS.fileService.customerId,
				receiverId: CLIENTS.fileService.receiverId,
				softwareId: CLIENTS.fileService.softwareId,
				environment: 'TEST',
				caCertificate: pki.caCertPem,
				signingCertificate: pki.customerSigningCertPem,
				signingPrivateKey: pki.customerSigningKeyPem,
				bankCertificate: pki.bankSigningCertPem,
			},
			// Host-to-host SFTP: password login, the host key pinned, the customer's OpenPGP key and the bank's.
			corporateBankingSftpApi: sftp.credentialValues(),
			// EBICS: the subscriber the sandbox activated already, its keys imported.
			corporateBankingEbicsApi: ebicsCredentialValues(ebicsClient('PARTNER2', 'READY1'), pki.caCertPem),
			// EBICS distributed signature: the two signers of PARTNER3 (A and B), keys imported.
			...(ebicsKeys.signers
				? {
						'corporateBankingEbicsApi#SIGNER1': ebicsCredentialValues(ebicsClient('PARTNER3', 'SIGNER1'), pki.caCertPem),
						'corporateBankingEbicsApi#SIGNER2': ebicsCredentialValues(ebicsClient('PARTNER3', 'SIGNER2'), pki.caCertPem),
					}
				: {}),
		}),
		eventSettings: () => ({
			eventsUrl: urls.events,
			jwksUrl: urls.jwks,
			issuer: CLIENTS.eventsIssuer,
			audience: CLIENTS.eventsAudience,
			kid: events.kid,
		}),
		resetAll: () => {
			resetStats();
			faults.clear();
			Object.assign(switches, defaultSwitches(options.signResponses ?? true));
			tokens.clear();
			tokens.maxUses = undefined;
			events.clear();
			files.reset();
			certService.reset();
			danske.reset();
			ebics.reset();
			if (book.generatedCount() !== tradeCount) book.setCount(tradeCount);
			else book.resetExecuted();
			mock.configure({ seed, errorRate: options.mockErrorRate ?? 0.2 });
		},
		stop: async () => {
			await Promise.all([close(mainServer), close(mtlsServer), close(foreignServer), sftp.stop()]);
			files.dispose();
		},
	};
	return bank;
}
