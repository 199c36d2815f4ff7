/** Public types of the sandbox bank. See README.md in this folder. */
import type { SandboxPki, TlsField } from './certs';

import type { SandboxH2h } from './sftp';

export interface SandboxOptions {
	/** Interface to listen on. Default '127.0.0.1'. Certificates cover localhost, 127.0.0.1, ::1 and this host. */
	host?: string;
	/** Host-to-host SFTP server port (test/sandbox/sftp.ts). Default 0 (random). */
	sftpPort?: number;
	/** Main HTTPS server port. Default 0 (random). */
	port?: number;
	/** Mutual-TLS server port. Default 0 (random). */
	mtlsPort?: number;
	/** "Other origin" recorder port. Default 0 (random). */
	foreignPort?: number;
	/** PRNG seed for generated data and mock random errors. Default 42. */
	seed?: number;
	/** Number of generated historical trades. Default 3000. */
	trades?: number;
	/** Where generated PEMs are written and reused. Default: a fixed folder in the OS temp dir. */
	certDir?: string;
	/** Access token lifetime (B/C and D). Default 3600. */
	tokenTtlSeconds?: number;
	/** Probability of a random mock error. Default 0.2. */
	mockErrorRate?: number;
	/** Sign ApplicationResponses of the file service. Default true. */
	signResponses?: boolean;
	/** Number of generated bank statement days (camt.053 files per account). Default 10. */
	statementDays?: number;
	/** Clock used for "today", token expiry and timestamps. Default: real time. */
	clock?: () => Date;
	/**
	 * How a 'delay' fault waits its `delayMs`. Default: a real timer. Tests pass their own to see
	 * each wait begin and to end it themselves.
	 */
	sleep?: (ms: number) => Promise<void>;
}

export type Area =
	| 'token'
	| 'report'
	| 'execution'
	| 'mock'
	| 'soap'
	| 'soapLarge'
	| 'jwks'
	| 'mtlsToken'
	| 'events'
	| 'admin'
	| 'certService'
	| 'danske'
	| 'danskePki'
	| 'ebics'
	| 'foreign'
	| 'unknown';

export interface Money {
	currency: string;
	amount: number;
}

export interface Trade {
	tradeId: string;
	tradeTime: string;
	product: string;
	counterpart: string;
	counterpartName: string;
	allInPrice: number;
	spotPrice: number;
	forwardPrice: number;
	maturityDate: string;
	sold: Money;
	bought: Money;
	autoSettle: boolean;
	comment: string | null;
}

export interface ExecutionResult {
	tradeId: string;
	executionId: string;
	counterpart: string;
	bought: Money;
	sold: Money;
	maturityDate: string;
	product: string;
	tradeTime: string;
	spotPrice: number;
	forwardPrice: number;
	allInPrice: number;
	autoSettle: boolean;
	comment: string;
}

export interface RequestRecord {
	server: 'main' | 'mtls';
	method: string;
	/** Path with query string. */
	path: string;
	area: Area;
	/** Whether an Authorization header was present (its value is never recorded). */
	authorization: boolean;
	/** Response status, once sent (0 when the connection was dropped). */
	status?: number;
	/** Name of the fault applied to this request, if any. */
	fault?: FaultKind;
}

export interface ForeignRequestRecord {
	method: string;
	url: string;
	headers: Record<string, string | string[] | undefined>;
}

export interface MockErrorRecord {
	/** 1-based number of the mock call that got the error. */
	call: number;
	status: number;
	method: string;
	path: string;
}

export interface SoapCallRecord {
	url: 'standard' | 'large';
	operation: string;
	command?: string;
	responseCode?: string;
	/** Whether the ApplicationRequest carried an XML signature and whether it verified. */
	signature: 'none' | 'valid' | 'invalid' | 'skipped';
	/** SHA-256 fingerprint (hex) of the certificate a valid signature was made with. */
	signer?: string;
	bytes: number;
}

export interface SandboxStats {
	tokenRequests: number;
	tokensIssued: number;
	mtlsTokenRequests: number;
	mtlsTokensIssued: number;
	/** Country codes seen on /{cc}/oauth2/token. */
	mtlsCountryCodes: string[];
	executions: number;
	/** Bodies of accepted executions, in order. */
	executionBodies: unknown[];
	requests: RequestRecord[];
	foreignRequests: ForeignRequestRecord[];
	eventPolls: number;
	/** jti of every SET delivered, one entry per delivery (repeats show redelivery). */
	eventsDelivered: string[];
	eventsAcked: string[];
	setErrsReceived: Record<string, { err: string; description?: string }>;
	mockCalls: number;
	mockErrors: number;
	mockErrorLog: MockErrorRecord[];
	soapCalls: SoapCallRecord[];
	/** Requests refused because of their size (HTTP 413). */
	soapRefusedTooLarge: number;
	faultsFired: Array<{ id: number; kind: FaultKind; area: Area; path: string }>;
	/** TLS connections accepted by each server: shows whether clients reuse connections. */
	connections: { main: number; mtls: number };
}

export type FaultKind =
	/** Answer with `status` and the area's error body, without processing. */
	| 'status'
	/** Destroy the socket (phase 'before': request not processed; 'after': processed, response lost). */
	| 'drop'
	/** Wait `delayMs`: before processing (phase 'before', default) or after it, before answering (phase 'after'). */
	| 'delay'
	/**
	 * Hold the request before processing it (phase 'before', default) or its answer after
	 * processing (phase 'after') until the test releases it (FaultController.held) or the client
	 * gives up and closes the connection; a request given up before processing is not processed.
	 */
	| 'hold'
	/** Process normally but send a truncated body (malformed JSON/XML). */
	| 'malformed'
	/** 502 with an HTML error page. */
	| 'html'
	/** 200 with a body that is not JSON (text/html). */
	| 'nonJson200'
	/** File service: SOAP fault with FileServiceFaultElement {category, code}. */
	| 'soapFault'
	/** File service: normal envelope with ResponseCode `responseCode` / `responseText`. */
	| 'soapResponseCode'
	/** File service: a response carrying a DOCTYPE with an external entity. */
	| 'soapDoctype'
	/** File service: signed ApplicationResponse altered after signing. */
	| 'soapTamperedSignature'
	/** File service: ApplicationResponse not signed. */
	| 'soapUnsigned'
	/** Events: SETs in the response signed by another key under the real kid. */
	| 'eventBadSignature'
	/** Events: SETs with a kid absent from the JWKS. */
	| 'eventUnknownKid'
	/** Events: SETs with a wrong `aud`. */
	| 'eventWrongAudience'
	/** Events: SETs with a wrong `iss`. */
	| 'eventWrongIssuer'
	/** Events: response without `moreAvailable`. */
	| 'eventOmitMoreAvailable';

export interface FaultSpec {
	kind: FaultKind;
	/** Restrict to an area (see Area). */
	area?: Area;
	/** Restrict to request paths starting with this prefix (path without query). */
	pathPrefix?: string;
	/** Restrict to request paths (with query) matching this regular expression source. */
	pathRegex?: string;
	/** Restrict to an HTTP method. */
	method?: string;
	/** How many matching requests get the fault. Default 1. */
	count?: number;
	/** For status/drop/delay/hold/html/nonJson200: before (default) or after the request is processed. */
	phase?: 'before' | 'after';
	/** For 'status' (default 500) and 'soapFault' (default 500). */
	status?: number;
	/** For 'delay'. Default 1000. */
	delayMs?: number;
	/** For 'soapFault'. */
	category?: string;
	code?: string;
	message?: string;
	/** For 'soapResponseCode'. Default '26' / 'Technical error'. */
	responseCode?: string;
	responseText?: string;
}

export interface ActiveFault extends FaultSpec {
	id: number;
	remaining: number;
}

export interface FaultController {
	/** Adds faults; they are consumed in the order added. Returns their ids. */
	add(spec: FaultSpec | FaultSpec[]): number[];
	/** Faults still armed. */
	list(): ActiveFault[];
	/**
	 * Removes one fault by id, or all faults; without an id it also releases every request a
	 * 'hold' fault still holds and forgets pending `held()` calls.
	 */
	clear(id?: number): void;
	/**
	 * The next request held by a 'hold' fault, in the order they were held; waits for it. This is
	 * the event "the request has reached the bank" for tests that must act while it is in flight.
	 */
	held(): Promise<HeldRequest>;
}

/** A request (or its answer) held by a 'hold' fault. */
export interface HeldRequest {
	faultId: number;
	area: Area;
	/** Path with query. */
	path: string;
	phase: 'before' | 'after';
	/** Processes the request (phase 'before') or sends its answer (phase 'after'). */
	release(): void;
	/** Resolves when the client closes the connection before it was answered (it gave up waiting). */
	gaveUp: Promise<void>;
}

export type EventTypeName =
	| 'resource-update'
	| 'consent-authorization-revoked'
	| 'account-access-consent-linked-account-update';

export interface EventSpec {
	/** Short name or a full event type URI. Default 'resource-update'. */
	type: EventTypeName | string;
	/** SET `sub`. Default: a consent URL. */
	sub: string;
	/** Resource id and type of the event subject. */
	resourceId: string;
	resourceType: string;
	/** Extra members of the event object (for example `reason`). */
	eventData: Record<string, unknown>;
	/** Time of event (seconds). Default now. */
	toe: number;
	/** Transaction id. Default: a new uuid. */
	txn: string;
	/** Defects built into this SET (on every delivery). */
	defect: 'badSignature' | 'unknownKid' | 'wrongAudience' | 'wrongIssuer';
}

export interface QueuedEvent {
	jti: string;
	jws: string;
	claims: Record<string, unknown>;
	deliveries: number;
	defect?: EventSpec['defect'];
}

export interface BankFileDescriptor {
	fileReference: string;
	targetId: string;
	serviceId?: string;
	userFilename?: string;
	parentFileReference?: string;
	fileType: string;
	fileTimestamp: string;
	status: string;
	amountTotal?: number;
	transactionCount?: number;
	lastDownloadTimestamp?: string;
	deletable: boolean;
	/** 'download' for files made by the bank, 'upload' for files sent by the customer. */
	direction: 'download' | 'upload';
	size: number;
}

export interface PutFileOptions {
	fileType: string;
	/** File content, or a path to a file on disk (it is read on download). */
	content: Buffer | string | { path: string };
	userFilename?: string;
	status?: string;
	fileTimestamp?: Date;
	direction?: 'download' | 'upload';
	deletable?: boolean;
	serviceId?: string;
	parentFileReference?: string;
	amountTotal?: number;
	transactionCount?: number;
}

export interface FileStoreApi {
	list(): BankFileDescriptor[];
	get(fileReference: string): { descriptor: BankFileDescriptor; content: Buffer } | undefined;
	/** Adds a file the customer can download; returns its descriptor. */
	put(options: PutFileOptions): BankFileDescriptor;
	delete(fileReference: string): boolean;
	/** Restores the generated files (and removes uploads). */
	reset(): void;
}

export interface SandboxSwitches {
	/** How `next`/`previous` links are written: relative path (default), absolute same-origin URL, or an absolute URL on the foreign origin. */
	linkStyle: 'relative' | 'absolute' | 'foreign';
	/** Sign file-service ApplicationResponses. */
	signResponses: boolean;
	/** Always gzip downloaded content (as if the request had asked for it). */
	compressDownloads: boolean;
	/** Refuse unsigned ApplicationRequests (code 18) instead of accepting them. */
	requireSignedRequests: boolean;
}

export interface SandboxUrls {
	base: string;
	token: string;
	reportBase: string;
	executionBase: string;
	mockBase: string;
	mockReportBase: string;
	mockExecutionBase: string;
	soap: string;
	soapLarge: string;
	/** Certificate service of each dialect (Nordea, OP, Samlink). */
	certService: { nordea: string; op: string; samlink: string };
	/** Danske Bank: the file service that takes and answers only encrypted documents, and its PKIFactoryService. */
	danske: { soap: string; pki: string };
	/** EBICS 3.0 (H005) and 2.5 (H004) bank: POST XML requests here. */
	ebics: string;
	jwks: string;
	mtlsBase: string;
	mtlsToken: string;
	events: string;
	foreign: string;
	admin: string;
}

export interface SandboxTls extends Pick<SandboxPki, TlsField> {
	caPem: string;
	otherCaPem: string;
	/** kid of the event signing key in the JWKS. */
	eventKid: string;
	certDir: string;
}

export interface SandboxClients {
	clientId: string;
	mtlsClientId: string;
	eventsAudience: string;
	eventsIssuer: string;
	fileService: {
		senderId: string;
		customerId: string;
		receiverId: string;
		softwareId: string;
		targetId: string;
	};
}

export interface MockControl {
	/** Resets the mock PRNG (seed) and/or the error rate. */
	configure(options: { seed?: number; errorRate?: number }): void;
	readonly errorRate: number;
	readonly seed: number;
}

export interface SandboxBank {
	/** The host-to-host SFTP server with the bank's and the customer's OpenPGP keys (test/sandbox/sftp.ts). */
	sftp: SandboxH2h;
	urls: SandboxUrls;
	tls: SandboxTls;
	clients: SandboxClients;
	stats: SandboxStats;
	resetStats(): void;
	faults: FaultController;
	switches: SandboxSwitches;
	tokens: {
		expireAll(): void;
		/** When set, every token expires after this many accepted uses (unset or 0: only the TTL). */
		maxUses: number | undefined;
		readonly ttlSeconds: number;
		activeCount(): number;
	};
	events: {
		enqueue(events: number | Array<Partial<EventSpec>>): string[];
		/** jti of the SETs not yet acknowledged. */
		pending(): string[];
		get(jti: string): QueuedEvent | undefined;
		clear(): void;
		/** The JWKS served at urls.jwks. */
		jwks(): { keys: Array<Record<string, unknown>> };
	};
	trades: {
		all(): Trade[];
		/** Regenerates the trade book with `n` trades (same seed). */
		setCount(n: number): void;
		get(tradeId: string): Trade | undefined;
	};
	files: FileStoreApi;
	mock: MockControl;
	/** The certificate services: one-time PINs, issued certificates, clock and switches. */
	certService: import('./certService').SandboxCertService;
	/** Danske Bank: PINs, issued certificates, switches, the bank's and the customer's encryption material. */
	danske: import('./danske').SandboxDanske;
	/** The EBICS bank: subscribers (activate, suspend), their files and uploads, switches, one-shot faults. */
	ebics: import('./ebics').SandboxEbicsBank;
	/** What an EBICS client of a sandbox subscriber needs (URL, IDs, the bank's letter hashes; keys for PARTNER2/READY1). */
	ebicsClient(partnerId: string, userId: string): import('./ebics').EbicsClientSettings;
	/** Ready-to-paste n8n credential values, keyed by credential type name. */
	credentialValues(): Record<string, Record<string, unknown>>;
	/**
	 * File Service credential values for the Danske Bank profile against this sandbox: with the
	 * pasted certificates, or (`pin` given or 'new') enrolling from a PIN.
	 */
	danskeCredential(options?: { pin?: string | 'new' }): Record<string, unknown>;
	/**
	 * File Service credential values that enrol from a PIN with a bank profile against this
	 * sandbox (its addresses given in place of the bank's). A fresh one-time PIN unless one is given.
	 */
	enrolmentCredential(bank: 'nordea' | 'op' | 'samlink' | 'aktia' | 'pop' | 'saastopankki' | 'handelsbanken', pin?: string): Record<string, unknown>;
	/** Settings the event trigger needs besides its credential. */
	eventSettings(): {
		eventsUrl: string;
		jwksUrl: string;
		issuer: string;
		audience: string;
		kid: string;
	};
	/** Clears stats, faults, switches, tokens, events, files and the mock PRNG. */
	resetAll(): void;
	stop(): Promise<void>;
}
