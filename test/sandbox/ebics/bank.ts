/**
 * The sandbox EBICS bank, EBICS 3.0 (H005), strict as a real bank: subscribers with their own
 * state (new, INI or HIA received, initialised, ready once activated through the admin API,
 * suspended), every X002 signature verified with the subscriber's registered key, nonces
 * remembered and timestamps checked (replay), the bank key digests of each initialisation
 * compared with its own keys, A006 signatures verified against the order data, segment numbers
 * and receipts checked, every request validated against the H005 schemas, and answers carrying
 * the spec's return codes. It signs its answers (X002) and encrypts downloads (E002) with its own
 * keys. H004 (EBICS 2.5) requests are answered by h004.ts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { createPrivateKey, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { zipSync } from 'fflate';

import {
	AUTHENTICATION_VERSION,
	authSignatureTemplate,
	certificateDigest,
	child,
	children,
	decryptE002,
	DSIG_NS,
	el,
	empty,
	ENCRYPTION_VERSION,
	formatHash,
	keyPairOrderData,
	x509Data,
	H000_NS,
	H004_NS,
	H005_NS,
	leaf,
	orderDataDigest,
	parseDocument,
	path as xmlPath,
	publicKeyDigest,
	returnCodeInfo,
	S002_NS,
	SEGMENT_MAX_BYTES,
	SHA256_URI,
	signRequest,
	text,
	UploadSegmenter,
	E002Encryptor,
	unwrapTransactionKey,
	verifyA006,
	verifyAuthSignature,
	wrapTransactionKey,
	type BtfService,
	type EbicsSubscriberKeys,
	type ParsedWithOrderData,
} from '../../../nodes/shared/ebics';
import { camt054FromPain001, pain001Summary, pain002 } from '../bankfiles';
import { seedFiles, type DownloadFile, type ProtocolEvent, type StoredUpload } from './data';
import type { EbicsBankKeyFile } from './keys';
import { readH004Key } from './h004';
import { changeKeys, KEY_CHANGE_ORDERS } from './keyChange';
import { hpdData } from './hpd';
import { SandboxVeu, VEU_DOWNLOADS } from './veu';
import { compressedOf, DropAnswer, dropsAnswer, FinishedUploads, LAZY_ABOVE_BYTES, LazySegments, UploadReceiver, type TransferFault } from './transfers';

export const EBICS_PATH = '/ebics';
export const SANDBOX_HOST_ID = 'SBXEBICS';
const XSD_DIR = path.resolve(__dirname, '../../fixtures/ebics/xsd');

export type SubscriberState = 'new' | 'iniReceived' | 'hiaReceived' | 'initialised' | 'ready' | 'suspended';

/** What the state means for the user, and what to do next (for `npm run sandbox` and tests). */
export const STATE_TEXT: Record<SubscriberState, string> = {
	new: 'new: send INI and HIA',
	iniReceived: 'INI received: send HIA',
	hiaReceived: 'HIA received: send INI',
	initialised: 'keys received, waiting for the bank: activate it (the letters have been "sent")',
	ready: 'ready',
	suspended: 'suspended: activate it again',
};

export interface RegisteredKey {
	publicKey: KeyObject;
	certificateDer?: Buffer;
	version: string;
}

export interface SandboxSubscriber {
	partnerId: string;
	userId: string;
	name: string;
	state: SubscriberState;
	/** The protocol its keys came with. */
	protocol?: 'H004' | 'H005';
	keys: { signature?: RegisteredKey; authentication?: RegisteredKey; encryption?: RegisteredKey };
	/** Services the subscriber may download and upload (ServiceName), and admin order types. */
	downloadServices: string[];
	uploadServices: string[];
	/** Signature class of the user (E single, A/B first/second of two, T transport only). */
	authorisationLevel: 'E' | 'A' | 'B' | 'T';
	files: DownloadFile[];
	uploads: StoredUpload[];
	/** The customer protocol: what happened to each order (HAC, PTK). */
	orderLog: ProtocolEvent[];
	nonces: Set<string>;
	iban: string;
}

interface Transaction {
	id: string;
	kind: 'download' | 'upload';
	protocol: 'H004' | 'H005';
	subscriber: SandboxSubscriber;
	orderType: string;
	orderId: string;
	numSegments: number;
	/** Download: the segments to deliver; upload: the segments received. */
	segments: string[];
	transactionKey: Buffer;
	fileIds: number[];
	/** What a positive receipt marks as delivered besides files (protocol events). */
	onDelivered?: () => void;
	lastDelivered: number;
	upload?: {
		service?: BtfService;
		fileName?: string;
		dataDigest: Buffer;
		flag: StoredUpload['signatureFlag'];
		signer: { partnerId: string; userId: string };
		/** HVS: the order details naming the order to cancel. */
		details?: Element;
		/** H004: the signature over the order data, verified once all segments are in. */
		verify?: (data: Buffer) => boolean;
	};
	finished: boolean;
	/** H005 upload: the order data taken segment by segment (transfers.ts). */
	receiver?: UploadReceiver;
	/** Large download: segments cut when asked (transfers.ts). */
	lazy?: LazySegments;
}

/** A refusal with a spec return code, answered in the header (technical) or the body (business). */
export class EbicsRefusal extends Error {
	constructor(
		readonly code: string,
		readonly level: 'technical' | 'business',
		message?: string,
	) {
		super(message ?? returnCodeInfo(code, level)?.meaning ?? code);
	}
}

export interface EbicsSwitches {
	/** Also accept bank key digests in the EBICS 2.5 form (SHA-256 of "exponent modulus"), as many banks do while migrating. Default false: the H005 form only (certificate hash). */
	acceptKeyDigests: boolean;
	/** Bytes of ciphertext per download segment (default the spec's maximum). */
	segmentBytes: number;
	/** Validate every H005 and H004 request against the schemas with xmllint (default true). */
	validateSchema: boolean;
	/** Seconds a request's timestamp may differ from the bank's clock (default 900). */
	timestampToleranceSeconds: number;
	/** Whether HEV lists EBICS 2.5 (H004) beside 3.0 (default true; a 3.0-only bank when false). */
	offerH004: boolean;
	/** Offer recovery (061101 EBICS_TX_RECOVERY_SYNC) for a segment sent again; default false (091105). */
	recovery: boolean;
	/**
	 * Encode each download segment's bytes on their own, so every OrderData is a complete base64
	 * value ending in its own padding (`=` or `==`) when `segmentBytes` is not a multiple of 3, as
	 * banks that encode segment by segment do. Default false: one base64 text of the ciphertext,
	 * cut at group boundaries (`segmentBytes` rounded down to a multiple of 3).
	 */
	base64PerSegment: boolean;
}

/** One-shot faults of the EBICS bank, consumed in order by the next answer they apply to. */
export type EbicsFaultKind =
	| 'tamperSignature' // the next ebicsResponse is changed after signing
	| 'unsignedResponse' // the next ebicsResponse has no AuthSignature
	| 'damageSegment' // the OrderData of the next download answer is not base64
	| 'truncateZip' // the next ZIP container is cut off before it is encrypted
	| 'headerOkBodyError' // the next upload initialisation answers 000000 in the header and 091116 in the body
	| TransferFault; // a transfer's answer dropped after the bank did its work (transfers.ts)

export interface EbicsRecord {
	at: string;
	protocol: 'H004' | 'H005' | 'HEV' | '?';
	root: string;
	orderType?: string;
	phase?: string;
	partnerId?: string;
	userId?: string;
	technical: string;
	business: string;
	/** The bank did its work but the answer was dropped (transfers.ts). */
	dropped?: boolean;
	/** The connection the request came on: connections are numbered as the bank accepts them. */
	connection?: number;
	/** An initialisation's BTF service (BTD, BTU), as the request named it. */
	service?: BtfService;
	/** An initialisation's date range (Start, End), as the request named it. */
	dateRange?: { start: string; end: string };
}

export interface SandboxEbicsOptions {
	keys: EbicsBankKeyFile;
	seed: number;
	now: () => Date;
}

/** The status reason a refused upload gets in the customer protocol (ISO 20022 ExternalStatusReason1Code). */
const REFUSAL_REASONS: Record<string, string> = { '091301': 'DS0B', '091304': 'DS0B', '091201': 'DS0B', '091111': 'DS0B', '090003': 'DS0G' };

const DEFAULT_DOWNLOAD = ['EOP', 'STM', 'REP', 'PSR'];
const DEFAULT_UPLOAD = ['SCT', 'SCI', 'SDD', 'XCT'];

function nextOrderId(counter: number): string {
	// OrderIDType: a letter then three letters or digits.
	const chars = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
	let n = counter;
	let tail = '';
	for (let i = 0; i < 3; i++) {
		tail = chars[n % 36] + tail;
		n = Math.floor(n / 36);
	}
	return `${String.fromCharCode(65 + (n % 26))}${tail}`;
}

/** Runs xmllint on a document from stdin against an EBICS schema (H005, or H004/...); resolves with its complaint or undefined. */
export function schemaProblem(xml: string | Buffer, schema: string): Promise<string | undefined> {
	return new Promise((resolve) => {
		const child = spawn('xmllint', ['--noout', '--schema', path.join(XSD_DIR, schema), '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
		let stderr = '';
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		child.on('error', (error) => resolve(`xmllint could not run: ${error.message}`));
		child.on('close', (code) => resolve(code === 0 ? undefined : stderr.split('\n').find((line) => line.includes('error')) ?? stderr.trim()));
		child.stdin.end(xml);
	});
}

/** The number of the connection of the request being answered (index.ts runs each request in it). */
export const requestConnection = new AsyncLocalStorage<number>();

/** An answer: text, or bytes when it carries a large segment (not turned into text whole). */
export type EbicsAnswer = string | Buffer;

/** Segments at least this long are answered as bytes. */
const SEGMENT_AS_BYTES_FROM = 64 * 1024;

/** Where a segment goes in an answer signed without it. */
const SEGMENT_SLOT = 'SEGMENT-SLOT';

/** The two return codes of an answer (from its start and end when it is bytes around a segment). */
export function answerCodes(answer: EbicsAnswer): { technical?: string; business?: string } {
	const text = typeof answer === 'string' || answer.length < 16384 ? answer.toString() : answer.toString('utf8', 0, 8192) + answer.toString('utf8', answer.length - 4096);
	return { technical: /<ReturnCode>(\d{6})<\/ReturnCode>/.exec(text)?.[1], business: /<ReturnCode authenticate="true">(\d{6})</.exec(text)?.[1] };
}

/** Whether an element or one of its ancestors is covered by the X002 signature. */
function authenticated(element: Element): boolean {
	for (let node: Node | null = element; node && node.nodeType === 1; node = node.parentNode) if ((node as Element).getAttribute('authenticate') === 'true') return true;
	return false;
}

export class SandboxEbicsBank {
	readonly hostId = SANDBOX_HOST_ID;
	readonly subscribers = new Map<string, SandboxSubscriber>();
	readonly transactions = new Map<string, Transaction>();
	/** The segment of an H005 upload request kept as bytes, out of the request's DOM. */
	private readonly orderDataBytes = new WeakMap<Document, Buffer>();
	readonly records: EbicsRecord[] = [];
	readonly faults: EbicsFaultKind[] = [];
	readonly finishedUploads = new FinishedUploads();
	readonly switches: EbicsSwitches = { acceptKeyDigests: false, segmentBytes: SEGMENT_MAX_BYTES, validateSchema: true, timestampToleranceSeconds: 900, offerH004: true, recovery: false, base64PerSegment: false };
	readonly bankAuthentication: { privateKey: KeyObject; certificatePem: string; certificateDer: Buffer; publicKey: KeyObject };
	readonly bankEncryption: { privateKey: KeyObject; certificatePem: string; certificateDer: Buffer; publicKey: KeyObject };
	/** Orders waiting for further signatures (distributed signature, veu.ts). */
	readonly veu: SandboxVeu;
	private orderCounter = 0;
	private fileCounter = 0;

	constructor(private readonly options: SandboxEbicsOptions) {
		const load = (pair: { privateKeyPem: string; certificatePem: string }) => {
			const certificate = new X509Certificate(pair.certificatePem);
			return { privateKey: createPrivateKey(pair.privateKeyPem), certificatePem: pair.certificatePem, certificateDer: certificate.raw, publicKey: certificate.publicKey };
		};
		this.bankAuthentication = load(options.keys.bank.authentication);
		this.bankEncryption = load(options.keys.bank.encryption);
		this.veu = new SandboxVeu(options.now);
		this.reset();
	}

	/** Back to the start: the default subscribers, their seeded files, no transactions. */
	reset(): void {
		this.subscribers.clear();
		this.transactions.clear();
		this.finishedUploads.clear();
		this.records.length = 0;
		this.faults.length = 0;
		Object.assign(this.switches, { acceptKeyDigests: false, segmentBytes: SEGMENT_MAX_BYTES, validateSchema: true, timestampToleranceSeconds: 900, offerH004: true, recovery: false, base64PerSegment: false });
		this.addSubscriber({ partnerId: 'PARTNER1', userId: 'USER1', name: 'Erika Mustermann' });
		this.addSubscriber({ partnerId: 'PARTNER1', userId: 'USER2', name: 'Max Mustermann' });
		// Subscribers the bank has initialised itself, their keys in the key file.
		const readyMade = (subscriber: SandboxSubscriber, keys: EbicsSubscriberKeys): void => {
			const certificateKey = (pem: string, version: string): RegisteredKey => {
				const certificate = new X509Certificate(pem);
				return { publicKey: certificate.publicKey, certificateDer: certificate.raw, version };
			};
			subscriber.keys = {
				signature: certificateKey(keys.signature.certificatePem, 'A006'),
				authentication: certificateKey(keys.authentication.certificatePem, 'X002'),
				encryption: certificateKey(keys.encryption.certificatePem, 'E002'),
			};
			subscriber.protocol = 'H005';
			subscriber.state = 'ready';
		};
		readyMade(this.addSubscriber({ partnerId: 'PARTNER2', userId: 'READY1', name: 'Sandbox Ready Subscriber' }), this.options.keys.readySubscriber);
		this.veu.reset();
		// Two signers of one partner for the distributed signature: A (first) and B (second).
		this.options.keys.signers?.forEach((keys, index) =>
			readyMade(this.addSubscriber({ partnerId: 'PARTNER3', userId: `SIGNER${index + 1}`, name: index === 0 ? 'Anna Signer' : 'Bernd Signer', authorisationLevel: index === 0 ? 'A' : 'B' }), keys),
		);
	}

	private key(partnerId: string, userId: string): string {
		return `${partnerId}/${userId}`;
	}

	/** Adds a subscriber in state "new" (as a bank does when the contract is signed). */
	addSubscriber(options: { partnerId: string; userId: string; name?: string; downloadServices?: string[]; uploadServices?: string[]; authorisationLevel?: SandboxSubscriber['authorisationLevel'] }): SandboxSubscriber {
		const seed = this.options.seed + [...`${options.partnerId}/${options.userId}`].reduce((sum, c) => sum * 31 + c.charCodeAt(0), 0);
		const files = seedFiles({ seed: Math.abs(seed) % 1_000_000, now: this.options.now(), days: 5, customerName: 'Sandbox Customer GmbH', customerId: options.partnerId, nextId: () => ++this.fileCounter });
		const subscriber: SandboxSubscriber = {
			partnerId: options.partnerId,
			userId: options.userId,
			name: options.name ?? options.userId,
			state: 'new',
			keys: {},
			downloadServices: options.downloadServices ?? [...DEFAULT_DOWNLOAD],
			uploadServices: options.uploadServices ?? [...DEFAULT_UPLOAD],
			authorisationLevel: options.authorisationLevel ?? 'E',
			files,
			uploads: [],
			orderLog: [],
			nonces: new Set(),
			iban: /<IBAN>([^<]+)</.exec(files[0]?.content.toString() ?? '')?.[1] ?? 'DE00000000000000000000',
		};
		this.subscribers.set(this.key(options.partnerId, options.userId), subscriber);
		return subscriber;
	}

	subscriber(partnerId: string, userId: string): SandboxSubscriber | undefined {
		return this.subscribers.get(this.key(partnerId, userId));
	}

	/** The bank activates a subscriber whose INI and HIA (and letters) it has: state ready. */
	activate(partnerId: string, userId: string): SandboxSubscriber {
		const subscriber = this.subscriber(partnerId, userId);
		if (!subscriber) throw new Error(`No subscriber ${partnerId}/${userId}`);
		if (subscriber.state !== 'initialised' && subscriber.state !== 'suspended')
			throw new Error(`Subscriber ${partnerId}/${userId} is ${subscriber.state}: it can be activated once INI and HIA have arrived`);
		subscriber.state = 'ready';
		return subscriber;
	}

	suspend(partnerId: string, userId: string): SandboxSubscriber {
		const subscriber = this.subscriber(partnerId, userId);
		if (!subscriber) throw new Error(`No subscriber ${partnerId}/${userId}`);
		subscriber.state = 'suspended';
		return subscriber;
	}

	/** Adds a file to a subscriber's downloads (tests, admin API). */
	addFile(partnerId: string, userId: string, file: { serviceName: string; msgName: string; name: string; content: Buffer; date?: string }): DownloadFile {
		const subscriber = this.subscriber(partnerId, userId);
		if (!subscriber) throw new Error(`No subscriber ${partnerId}/${userId}`);
		const stored: DownloadFile = { id: ++this.fileCounter, date: file.date ?? this.options.now().toISOString().slice(0, 10), delivered: false, ...file };
		subscriber.files.push(stored);
		return stored;
	}

	/** The bank's key hashes as its letter prints them (H005: certificate hashes; H004: hashes of exponent and modulus). */
	letterHashes(version: 'H005' | 'H004' = 'H005'): { authentication: string; encryption: string } {
		const hash = (key: { certificateDer: Buffer; publicKey: KeyObject }): string => formatHash(version === 'H005' ? certificateDigest(key.certificateDer) : publicKeyDigest(key.publicKey));
		return { authentication: hash(this.bankAuthentication), encryption: hash(this.bankEncryption) };
	}

	now(): Date {
		return this.options.now();
	}

	newOrderId(): string {
		return nextOrderId(++this.orderCounter + 36 * 36 * 36);
	}

	takeFault(kind: EbicsFaultKind): boolean {
		const index = this.faults.indexOf(kind);
		if (index < 0) return false;
		this.faults.splice(index, 1);
		return true;
	}

	record(entry: Omit<EbicsRecord, 'at'>): void {
		const connection = requestConnection.getStore();
		this.records.push({ at: this.options.now().toISOString(), ...entry, ...(connection !== undefined ? { connection } : {}) });
		if (this.records.length > 5000) this.records.splice(0, this.records.length - 5000);
	}

	// -------------------------------------------------------------------------------------------
	// H005
	// -------------------------------------------------------------------------------------------

	/** Answers one H005 or HEV request (the text of the HTTP body). */
	async handleH005(doc: Document, xml: string | Buffer): Promise<EbicsAnswer> {
		const root = doc.documentElement;
		if (root.namespaceURI === H000_NS && root.localName === 'ebicsHEVRequest') return this.hev(root);
		const header = child(root, H005_NS, 'header');
		const staticHeader = child(header, H005_NS, 'static');
		const info: Omit<EbicsRecord, 'at' | 'technical' | 'business'> = {
			protocol: 'H005',
			root: root.localName,
			orderType: text(xmlPath(staticHeader, H005_NS, 'OrderDetails', 'AdminOrderType')),
			phase: text(xmlPath(header, H005_NS, 'mutable', 'TransactionPhase')),
			partnerId: text(child(staticHeader, H005_NS, 'PartnerID')),
			userId: text(child(staticHeader, H005_NS, 'UserID')),
			...this.orderParams(child(staticHeader, H005_NS, 'OrderDetails')),
		};
		const keyManagement = root.localName !== 'ebicsRequest';
		try {
			if (this.switches.validateSchema) {
				const problem = await schemaProblem(xml, 'ebics_H005.xsd');
				if (problem) throw new EbicsRefusal('091010', 'technical', `Request not valid against the H005 schema: ${problem.slice(0, 200)}`);
			}
			const hostId = text(child(staticHeader, H005_NS, 'HostID'));
			if (hostId !== this.hostId) throw new EbicsRefusal('091011', 'technical');
			let answer: EbicsAnswer;
			switch (root.localName) {
				case 'ebicsUnsecuredRequest':
					answer = this.keyManagement(info.orderType ?? '', staticHeader, root);
					break;
				case 'ebicsNoPubKeyDigestsRequest':
					answer = this.hpb(doc, staticHeader);
					break;
				case 'ebicsRequest':
					answer = await this.transaction(doc, root);
					break;
				default:
					throw new EbicsRefusal('091010', 'technical', `Unknown request ${root.localName}`);
			}
			const codes = answerCodes(answer);
			this.record({ ...info, technical: codes.technical ?? '000000', business: codes.business ?? '000000' });
			return answer;
		} catch (error) {
			if (error instanceof DropAnswer) this.record({ ...info, technical: '000000', business: '000000', dropped: true });
			if (!(error instanceof EbicsRefusal)) throw error;
			this.record({ ...info, technical: error.level === 'technical' ? error.code : '000000', business: error.level === 'business' ? error.code : '000000' });
			const codes = { technical: error.level === 'technical' ? error.code : '000000', business: error.level === 'business' ? error.code : '000000', text: error.message };
			return keyManagement ? this.keyManagementResponse(codes) : this.response({ phase: info.phase ?? 'Initialisation', ...codes });
		}
	}

	private hev(root: Element): string {
		const hostId = text(child(root, H000_NS, 'HostID'));
		const ok = hostId === this.hostId;
		return (
			'<?xml version="1.0" encoding="UTF-8"?>' +
			el(
				'ebicsHEVResponse',
				{ xmlns: H000_NS },
				el('SystemReturnCode', {}, leaf('ReturnCode', ok ? '000000' : '091011'), leaf('ReportText', ok ? '[EBICS_OK] OK' : '[EBICS_INVALID_HOST_ID] Unknown host ID')),
				ok && this.switches.offerH004 && leaf('VersionNumber', '02.50', { ProtocolVersion: 'H004' }),
				ok && leaf('VersionNumber', '03.00', { ProtocolVersion: 'H005' }),
			)
		);
	}

	reportText(code: string, level: 'technical' | 'business', message?: string): string {
		const info = returnCodeInfo(code, level);
		return `[${info?.name ?? 'EBICS'}] ${message ?? info?.meaning ?? ''}`.slice(0, 256);
	}

	/** ebicsKeyManagementResponse (INI, HIA, HPB): not signed. */
	keyManagementResponse(codes: { technical: string; business: string; text?: string }, options: { orderId?: string; dataTransfer?: string; ns?: string } = {}): string {
		const ns = options.ns ?? H005_NS;
		return (
			'<?xml version="1.0" encoding="UTF-8"?>' +
			el(
				'ebicsKeyManagementResponse',
				{ xmlns: ns, 'xmlns:ds': DSIG_NS, Version: ns === H005_NS ? 'H005' : 'H004', Revision: 1 },
				el(
					'header',
					{ authenticate: 'true' },
					empty('static'),
					el('mutable', {}, options.orderId && leaf('OrderID', options.orderId), leaf('ReturnCode', codes.technical), leaf('ReportText', this.reportText(codes.technical === '000000' ? codes.business : codes.technical, codes.technical === '000000' ? 'business' : 'technical', codes.text))),
				),
				el('body', {}, options.dataTransfer, leaf('ReturnCode', codes.business, { authenticate: 'true' })),
			)
		);
	}

	/** ebicsResponse, signed with the bank's X002 key. */
	response(options: {
		phase: string;
		technical: string;
		business: string;
		text?: string;
		transactionId?: string;
		numSegments?: number;
		segment?: { number: number; last: boolean };
		orderId?: string;
		dataTransfer?: string;
		/** Namespace of the answer (default H005's; H004 for EBICS 2.5 clients). */
		ns?: string;
	}): string {
		const ns = options.ns ?? H005_NS;
		const reportCode = options.technical !== '000000' ? options.technical : options.business;
		const xml = el(
			'ebicsResponse',
			{ xmlns: ns, 'xmlns:ds': DSIG_NS, Version: ns === H005_NS ? 'H005' : 'H004', Revision: 1 },
			el(
				'header',
				{ authenticate: 'true' },
				el('static', {}, options.transactionId && leaf('TransactionID', options.transactionId), options.numSegments !== undefined && leaf('NumSegments', options.numSegments)),
				el(
					'mutable',
					{},
					leaf('TransactionPhase', options.phase),
					options.segment && leaf('SegmentNumber', options.segment.number, { lastSegment: options.segment.last ? 'true' : 'false' }),
					options.orderId && leaf('OrderID', options.orderId),
					leaf('ReturnCode', options.technical),
					leaf('ReportText', this.reportText(reportCode, options.technical !== '000000' ? 'technical' : 'business', options.text)),
				),
			),
			authSignatureTemplate(),
			el('body', {}, options.dataTransfer, leaf('ReturnCode', options.business, { authenticate: 'true' })),
		);
		let signed = signRequest(xml, this.bankAuthentication.privateKey);
		if (this.takeFault('unsignedResponse')) signed = signed.replace(/<AuthSignature>[\s\S]*<\/AuthSignature>/, '');
		if (this.takeFault('tamperSignature')) signed = signed.replace('<TransactionPhase>', '<TransactionPhase> ');
		return signed;
	}

	/**
	 * An answer carrying a download segment: signed without it (OrderData is not authenticated),
	 * the segment put in afterwards; bytes when the segment is large.
	 */
	segmentAnswer(options: Omit<Parameters<SandboxEbicsBank['response']>[0], 'dataTransfer'>, orderData: string, encryptionInfo?: string): EbicsAnswer {
		const signed = this.response({ ...options, dataTransfer: el('DataTransfer', {}, encryptionInfo, leaf('OrderData', SEGMENT_SLOT)) });
		const at = signed.indexOf(SEGMENT_SLOT);
		const before = signed.slice(0, at);
		const after = signed.slice(at + SEGMENT_SLOT.length);
		if (orderData.length < SEGMENT_AS_BYTES_FROM) return before + orderData + after;
		// One copy of the segment, written where it goes.
		const head = Buffer.byteLength(before);
		const answer = Buffer.allocUnsafe(head + orderData.length + Buffer.byteLength(after));
		answer.write(before, 0);
		answer.write(orderData, head, 'latin1');
		answer.write(after, head + orderData.length);
		return answer;
	}

	/**
	 * Keeps the large segment of an H005 request out of its DOM, as bytes (true), when it is not
	 * authenticated; the caller puts it back into the DOM otherwise.
	 */
	keepOrderDataAside(parsed: ParsedWithOrderData): boolean {
		const { doc, orderData, orderDataElement } = parsed;
		const root = doc.documentElement;
		if (!Buffer.isBuffer(orderData) || !orderDataElement || root.namespaceURI !== H005_NS || root.localName !== 'ebicsRequest' || authenticated(orderDataElement)) return false;
		this.orderDataBytes.set(doc, orderData);
		return true;
	}

	// -- key management -------------------------------------------------------------------------

	private knownSubscriber(staticHeader: Element | undefined, ns: string): SandboxSubscriber {
		const partnerId = text(child(staticHeader, ns, 'PartnerID')) ?? '';
		const userId = text(child(staticHeader, ns, 'UserID')) ?? '';
		const subscriber = this.subscriber(partnerId, userId);
		if (!subscriber) {
			if ([...this.subscribers.values()].some((s) => s.userId === userId)) throw new EbicsRefusal('091120', 'technical');
			throw new EbicsRefusal('091003', 'technical');
		}
		return subscriber;
	}

	private orderDataOf(body: Element | undefined, ns: string): Buffer {
		const orderData = text(xmlPath(body, ns, 'DataTransfer', 'OrderData'));
		try {
			return inflateSync(Buffer.from(orderData ?? '', 'base64'));
		} catch {
			throw new EbicsRefusal('090004', 'business', 'The order data does not decompress');
		}
	}

	certificateKey(info: Element | undefined, versionElement: string, ns: string, expected: string, lengthCode: string, versionCode: string): RegisteredKey {
		const version = text(child(info, ns, versionElement));
		if (version !== expected) throw new EbicsRefusal(versionCode, 'business', `Version ${version ?? '(none)'} is not supported: ${expected} only`);
		const der = text(xmlPath(info, DSIG_NS, 'X509Data', 'X509Certificate'))?.replace(/\s+/g, '');
		if (!der) throw new EbicsRefusal('091217', 'business', 'EBICS 3.0 keys must come as X.509 certificates');
		let certificate: X509Certificate;
		try {
			certificate = new X509Certificate(Buffer.from(der, 'base64'));
		} catch {
			throw new EbicsRefusal('091219', 'business', 'The certificate cannot be read');
		}
		const now = this.options.now();
		if (new Date(certificate.validTo) < now) throw new EbicsRefusal('091208', 'business');
		if (new Date(certificate.validFrom) > now) throw new EbicsRefusal('091209', 'business');
		if (certificate.publicKey.asymmetricKeyType !== 'rsa') throw new EbicsRefusal('091211', 'business');
		if ((certificate.publicKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) throw new EbicsRefusal(lengthCode, 'business', 'Keys must have at least 2048 bits');
		return { publicKey: certificate.publicKey, certificateDer: certificate.raw, version };
	}

	private keyManagement(orderType: string, staticHeader: Element | undefined, root: Element): string {
		const subscriber = this.knownSubscriber(staticHeader, H005_NS);
		const data = this.orderDataOf(child(root, H005_NS, 'body'), H005_NS);
		let orderRoot: Element;
		try {
			orderRoot = parseDocument(data, 'order data').documentElement;
		} catch {
			throw new EbicsRefusal('090004', 'business', 'The order data is not XML');
		}
		const owner = (ns: string): void => {
			if (text(child(orderRoot, ns, 'PartnerID')) !== subscriber.partnerId || text(child(orderRoot, ns, 'UserID')) !== subscriber.userId)
				throw new EbicsRefusal('091120', 'technical', 'The order data names another subscriber');
		};
		if (orderType === 'INI') {
			if (!['new', 'hiaReceived'].includes(subscriber.state)) throw new EbicsRefusal('091002', 'technical', `INI is not allowed: the subscriber is ${subscriber.state}`);
			if (orderRoot.namespaceURI !== S002_NS || orderRoot.localName !== 'SignaturePubKeyOrderData') throw new EbicsRefusal('090004', 'business', 'INI order data must be a SignaturePubKeyOrderData (S002)');
			owner(S002_NS);
			const key = this.certificateKey(child(orderRoot, S002_NS, 'SignaturePubKeyInfo'), 'SignatureVersion', S002_NS, 'A006', '091204', '091201');
			subscriber.keys.signature = key;
			subscriber.state = subscriber.state === 'hiaReceived' ? 'initialised' : 'iniReceived';
		} else if (orderType === 'HIA') {
			if (!['new', 'iniReceived'].includes(subscriber.state)) throw new EbicsRefusal('091002', 'technical', `HIA is not allowed: the subscriber is ${subscriber.state}`);
			if (orderRoot.namespaceURI !== H005_NS || orderRoot.localName !== 'HIARequestOrderData') throw new EbicsRefusal('090004', 'business', 'HIA order data must be a HIARequestOrderData');
			owner(H005_NS);
			const authentication = this.certificateKey(child(orderRoot, H005_NS, 'AuthenticationPubKeyInfo'), 'AuthenticationVersion', H005_NS, AUTHENTICATION_VERSION, '091205', '091202');
			const encryption = this.certificateKey(child(orderRoot, H005_NS, 'EncryptionPubKeyInfo'), 'EncryptionVersion', H005_NS, ENCRYPTION_VERSION, '091206', '091203');
			subscriber.keys.authentication = authentication;
			subscriber.keys.encryption = encryption;
			subscriber.state = subscriber.state === 'iniReceived' ? 'initialised' : 'hiaReceived';
		} else {
			throw new EbicsRefusal('091006', 'technical', `${orderType} is not a key management order type of ebicsUnsecuredRequest`);
		}
		const spki = (key?: RegisteredKey): string => key?.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') ?? Math.random().toString();
		if (subscriber.keys.signature && subscriber.keys.authentication && new Set([spki(subscriber.keys.signature), spki(subscriber.keys.authentication), spki(subscriber.keys.encryption)]).size < 3)
			throw new EbicsRefusal('091218', 'business');
		subscriber.protocol = 'H005';
		return this.keyManagementResponse({ technical: '000000', business: '000000' }, { orderId: this.newOrderId() });
	}

	/** The subscriber must be ready; then its X002 signature, its nonce and timestamp are checked. */
	authenticate(doc: Document, subscriber: SandboxSubscriber, staticHeader: Element | undefined, ns: string): void {
		if (subscriber.state !== 'ready') throw new EbicsRefusal('091002', 'technical', `The subscriber is ${subscriber.state}, not ready`);
		if (!subscriber.keys.authentication) throw new EbicsRefusal('091002', 'technical');
		try {
			verifyAuthSignature(doc, subscriber.keys.authentication.publicKey, 'The request');
		} catch (error) {
			throw new EbicsRefusal('061001', 'technical', (error as Error).message.replace(/^The request: /, ''));
		}
		const nonce = text(child(staticHeader, ns, 'Nonce'));
		const timestamp = text(child(staticHeader, ns, 'Timestamp'));
		if (nonce !== undefined || timestamp !== undefined) {
			const at = Date.parse(timestamp ?? '');
			if (!Number.isFinite(at) || Math.abs(at - this.options.now().getTime()) > this.switches.timestampToleranceSeconds * 1000)
				throw new EbicsRefusal('091103', 'technical', 'The timestamp is outside the bank\'s window');
			const key = (nonce ?? '').toUpperCase();
			if (subscriber.nonces.has(key)) throw new EbicsRefusal('091103', 'technical', 'The nonce was used before');
			subscriber.nonces.add(key);
			if (subscriber.nonces.size > 10000) subscriber.nonces.delete(subscriber.nonces.values().next().value as string);
		}
	}

	/** Encrypted order data for a subscriber's E002 key: DataEncryptionInfo and the segments. */
	encryptFor(subscriber: SandboxSubscriber, data: Buffer, ns: string, digestOf: (key: RegisteredKey) => Buffer, whole = false): { transactionKey: Buffer; encryptionInfo: string; segments: string[]; lazy?: LazySegments } {
		const encryptionKey = subscriber.keys.encryption as RegisteredKey;
		const transactionKey = randomBytes(16);
		const compressed = compressedOf(data);
		// Key management answers (HPB) carry their order data in one OrderData, never cut.
		const perSegment = this.switches.base64PerSegment && !whole;
		const segmentBytes = perSegment ? this.switches.segmentBytes : this.switches.segmentBytes - (this.switches.segmentBytes % 3);
		let segments: string[] = [];
		let lazy: LazySegments | undefined;
		// LazySegments encodes each segment's bytes on their own (the same text when they are a multiple of 3).
		if (compressed.length > LAZY_ABOVE_BYTES) lazy = new LazySegments(compressed, transactionKey, segmentBytes);
		else if (perSegment) {
			const encryptor = new E002Encryptor(transactionKey);
			const encrypted = Buffer.concat([encryptor.update(compressed), encryptor.final()]);
			for (let at = 0; at < encrypted.length; at += segmentBytes) segments.push(encrypted.toString('base64', at, Math.min(encrypted.length, at + segmentBytes)));
		} else {
			const encryptor = new E002Encryptor(transactionKey);
			const segmenter = new UploadSegmenter(segmentBytes);
			segments = [...segmenter.push(encryptor.update(compressed)), ...segmenter.push(encryptor.final()), ...segmenter.end()];
		}
		const encryptionInfo = el(
			'DataEncryptionInfo',
			{ authenticate: 'true' },
			leaf('EncryptionPubKeyDigest', digestOf(encryptionKey).toString('base64'), { Version: 'E002', Algorithm: SHA256_URI }),
			leaf('TransactionKey', wrapTransactionKey(transactionKey, encryptionKey.publicKey).toString('base64')),
		);
		return { transactionKey, encryptionInfo, segments, lazy };
	}

	private hpb(doc: Document, staticHeader: Element | undefined): string {
		const subscriber = this.knownSubscriber(staticHeader, H005_NS);
		this.authenticate(doc, subscriber, staticHeader, H005_NS);
		const orderData = keyPairOrderData('HPBResponseOrderData', H005_NS, { authentication: x509Data(this.bankAuthentication.certificateDer), encryption: x509Data(this.bankEncryption.certificateDer) }, [leaf('HostID', this.hostId)]);
		const { encryptionInfo, segments } = this.encryptFor(subscriber, Buffer.from(orderData), H005_NS, (key) => certificateDigest(key.certificateDer as Buffer), true);
		return this.keyManagementResponse(
			{ technical: '000000', business: '000000' },
			{ orderId: this.newOrderId(), dataTransfer: el('DataTransfer', {}, encryptionInfo, leaf('OrderData', segments.join(''))) },
		);
	}

	// -- transactions ---------------------------------------------------------------------------

	/** Whether the digests of the bank's keys in a request are the bank's (H005 form, or H004's when switched on). */
	checkBankDigest(value: string | undefined, key: { certificateDer: Buffer; publicKey: KeyObject }): void {
		const given = Buffer.from(value ?? '', 'base64');
		const accepted = [certificateDigest(key.certificateDer), ...(this.switches.acceptKeyDigests ? [publicKeyDigest(key.publicKey)] : [])];
		if (!accepted.some((digest) => digest.equals(given))) throw new EbicsRefusal('091008', 'technical');
	}

	private async transaction(doc: Document, root: Element): Promise<EbicsAnswer> {
		const header = child(root, H005_NS, 'header');
		const staticHeader = child(header, H005_NS, 'static');
		const mutable = child(header, H005_NS, 'mutable');
		const phase = text(child(mutable, H005_NS, 'TransactionPhase'));
		const transactionId = text(child(staticHeader, H005_NS, 'TransactionID'));
		if (transactionId) return this.continueTransaction(doc, root, transactionId.toUpperCase(), phase ?? '', H005_NS);
		if (phase !== 'Initialisation') throw new EbicsRefusal('091113', 'technical', 'A request without TransactionID must be an initialisation');
		const subscriber = this.knownSubscriber(staticHeader, H005_NS);
		this.authenticate(doc, subscriber, staticHeader, H005_NS);
		const digests = child(staticHeader, H005_NS, 'BankPubKeyDigests');
		this.checkBankDigest(text(child(digests, H005_NS, 'Authentication')), this.bankAuthentication);
		this.checkBankDigest(text(child(digests, H005_NS, 'Encryption')), this.bankEncryption);
		const details = child(staticHeader, H005_NS, 'OrderDetails');
		const orderType = text(child(details, H005_NS, 'AdminOrderType')) ?? '';
		const dataTransfer = xmlPath(root, H005_NS, 'body', 'DataTransfer');
		const upload = child(dataTransfer, H005_NS, 'SignatureData') !== undefined;
		if (upload) return this.uploadInit(subscriber, orderType, details, staticHeader, dataTransfer as Element);
		return this.downloadInit(subscriber, orderType, details);
	}

	/** The BTF service and the date range an initialisation's order details name (for the records). */
	private orderParams(details: Element | undefined): Pick<EbicsRecord, 'service' | 'dateRange'> {
		const params = child(details, H005_NS, 'BTDOrderParams') ?? child(details, H005_NS, 'BTUOrderParams') ?? child(details, H005_NS, 'StandardOrderParams');
		const service = this.readService(child(params, H005_NS, 'Service'), H005_NS);
		const range = child(params, H005_NS, 'DateRange');
		return {
			...(service ? { service } : {}),
			...(range ? { dateRange: { start: text(child(range, H005_NS, 'Start')) ?? '', end: text(child(range, H005_NS, 'End')) ?? '' } } : {}),
		};
	}

	readService(element: Element | undefined, ns: string): BtfService | undefined {
		if (!element) return undefined;
		const msg = child(element, ns, 'MsgName');
		return {
			serviceName: text(child(element, ns, 'ServiceName')) ?? '',
			scope: text(child(element, ns, 'Scope')),
			serviceOption: text(child(element, ns, 'ServiceOption')),
			container: (child(element, ns, 'Container')?.getAttribute('containerType') as BtfService['container']) || undefined,
			msgName: text(msg) ?? '',
			msgVersion: msg?.getAttribute('version') || undefined,
		};
	}

	/** The download order data of an order type: business files or administrative data. */
	downloadData(subscriber: SandboxSubscriber, orderType: string, service: BtfService | undefined, range: { start: string; end: string } | undefined): { data: Buffer; fileIds: number[]; onDelivered?: () => void } | undefined {
		switch (orderType) {
			case 'BTD': {
				if (!service) throw new EbicsRefusal('091112', 'technical');
				if (!subscriber.downloadServices.includes(service.serviceName)) throw new EbicsRefusal('090003', 'business');
				const files = subscriber.files.filter(
					(f) => f.serviceName === service.serviceName && f.msgName === service.msgName && (range ? f.date >= range.start && f.date <= range.end : !f.delivered),
				);
				if (!files.length) return undefined;
				if (service.container === 'ZIP') {
					let archive = Buffer.from(zipSync(Object.fromEntries(files.map((f) => [f.name, new Uint8Array(f.content)]))));
					if (this.takeFault('truncateZip')) archive = archive.subarray(0, archive.length - 40);
					return { data: archive, fileIds: files.map((f) => f.id) };
				}
				return { data: files[0].content, fileIds: [files[0].id] };
			}
			case 'HAA': {
				const services = new Map<string, string>();
				for (const f of subscriber.files) if (!f.delivered && subscriber.downloadServices.includes(f.serviceName)) services.set(`${f.serviceName} ${f.msgName}`, f.msgName);
				const xml = el('HAAResponseOrderData', { xmlns: H005_NS }, [...services.keys()].map((key) => el('Service', {}, leaf('ServiceName', key.split(' ')[0]), leaf('MsgName', key.split(' ')[1]))));
				return { data: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>${xml}`), fileIds: [] };
			}
			case 'HTD':
			case 'HKD':
				return { data: Buffer.from(this.customerData(subscriber, orderType)), fileIds: [] };
			case 'HPD':
				return { data: Buffer.from(hpdData(this, H005_NS)), fileIds: [] };
			case 'HAC':
			case 'PTK': {
				const kind = orderType as 'HAC' | 'PTK';
				const events = subscriber.orderLog.filter((e) => (range ? e.at.slice(0, 10) >= range.start && e.at.slice(0, 10) <= range.end : !e.delivered[kind]));
				if (!events.length) return undefined;
				const data = kind === 'HAC' ? Buffer.from(this.hacReport(events)) : Buffer.from(this.ptkReport(subscriber, events), 'latin1');
				return { data, fileIds: [], onDelivered: () => events.forEach((e) => (e.delivered[kind] = true)) };
			}
			default:
				throw new EbicsRefusal('091006', 'technical', `${orderType} is not a download order type of this bank`);
		}
	}

	private customerData(subscriber: SandboxSubscriber, orderType: 'HTD' | 'HKD'): string {
		const users = orderType === 'HTD' ? [subscriber] : [...this.subscribers.values()].filter((s) => s.partnerId === subscriber.partnerId);
		const permission = (s: SandboxSubscriber): string[] => [
			...s.uploadServices.map((name) => el('Permission', { AuthorisationLevel: s.authorisationLevel }, leaf('AdminOrderType', 'BTU'), el('Service', {}, leaf('ServiceName', name), leaf('MsgName', name === 'SDD' ? 'pain.008' : 'pain.001')), leaf('AccountID', 'ACC1'))),
			...s.downloadServices.map((name) => el('Permission', {}, leaf('AdminOrderType', 'BTD'), el('Service', {}, leaf('ServiceName', name), leaf('MsgName', name === 'PSR' ? 'pain.002' : name === 'REP' ? 'camt.054' : name === 'STM' ? 'camt.052' : 'camt.053')))),
			...['HTD', 'HKD', 'HPD', 'HAA', 'HAC', 'PTK', 'SPR'].map((type) => el('Permission', {}, leaf('AdminOrderType', type))),
		];
		const stateNumber: Record<SubscriberState, number> = { new: 0, iniReceived: 2, hiaReceived: 3, initialised: 4, ready: 1, suspended: 9 };
		return (
			'<?xml version="1.0" encoding="UTF-8"?>' +
			el(
				`${orderType}ResponseOrderData`,
				{ xmlns: H005_NS },
				el(
					'PartnerInfo',
					{},
					el('AddressInfo', {}, leaf('Name', 'Sandbox Customer GmbH'), leaf('Street', 'Musterstrasse 1'), leaf('PostCode', '60311'), leaf('City', 'Frankfurt am Main'), leaf('Country', 'DE')),
					el('BankInfo', {}, leaf('HostID', this.hostId)),
					el('AccountInfo', { ID: 'ACC1', Currency: 'EUR', Description: 'Main account' }, leaf('AccountNumber', subscriber.iban, { international: 'true' }), leaf('BankCode', 'SBXBDEFF', { international: 'true' }), leaf('AccountHolder', 'Sandbox Customer GmbH')),
					el('OrderInfo', {}, leaf('AdminOrderType', 'BTU'), el('Service', {}, leaf('ServiceName', 'SCT'), leaf('MsgName', 'pain.001')), leaf('Description', 'SEPA credit transfer'), leaf('NumSigRequired', 1)),
					el('OrderInfo', {}, leaf('AdminOrderType', 'BTD'), el('Service', {}, leaf('ServiceName', 'EOP'), leaf('Scope', 'DE'), el('Container', { containerType: 'ZIP' }), leaf('MsgName', 'camt.053', { version: '02' })), leaf('Description', 'End-of-day statement')),
				),
				users.map((s) => el('UserInfo', {}, leaf('UserID', s.userId, { Status: stateNumber[s.state] }), leaf('Name', s.name), permission(s))),
			)
		);
	}

	/**
	 * HAC as banks lay it out (the layout libeufin reads from real banks): a pain.002 whose
	 * OrgnlPmtInfAndSts are the events, the action in OrgnlPmtInfId, the order ID, order type and
	 * time stamp as Othr identifications of the originator, the reason code and the bank's text.
	 */
	private hacReport(events: ProtocolEvent[]): string {
		const created = this.options.now().toISOString().slice(0, 19);
		const other = (id: string, name: string): string => el('Othr', {}, leaf('Id', id), el('SchmeNm', {}, leaf('Prtry', name)));
		const entries = events.map((e) =>
			el(
				'OrgnlPmtInfAndSts',
				{},
				leaf('OrgnlPmtInfId', e.action),
				el(
					'StsRsnInf',
					{},
					el('Orgtr', {}, el('Id', {}, el('OrgId', {}, other(e.orderId, 'OrderID'), other(e.orderType, 'OrderType'), e.service && other(e.service.serviceName, 'ServiceName'), other(e.userId, 'UserID'), other(e.at.slice(0, 19), 'TimeStamp')))),
					e.reasonCode && el('Rsn', {}, leaf('Cd', e.reasonCode)),
					...(e.text ? (e.text.match(/.{1,105}/g) ?? []).map((part) => leaf('AddtlInf', part)) : []),
				),
			),
		);
		return `<?xml version="1.0" encoding="UTF-8"?>${el('Document', { xmlns: 'urn:iso:std:iso:20022:tech:xsd:pain.002.001.03' }, el('CstmrPmtStsRpt', {}, el('GrpHdr', {}, leaf('MsgId', `HAC${this.newOrderId()}`), leaf('CreDtTm', created)), el('OrgnlGrpInfAndSts', {}, leaf('OrgnlMsgId', 'EBICS-HAC'), leaf('OrgnlMsgNmId', 'pain.002')), entries))}`;
	}

	/** PTK: a line per order, accepted or refused, in the bank's words (ISO-8859-1, CRLF). */
	private ptkReport(subscriber: SandboxSubscriber, events: ProtocolEvent[]): string {
		const lines = events
			.filter((e) => e.action === 'ORDER_HAC_FINAL_POS' || e.action === 'ORDER_HAC_FINAL_NEG')
			.map((e) => `${e.at.slice(0, 19).replace('T', ' ')}  ${e.orderType} ${e.service ? `${e.service.serviceName} ${e.service.msgName}` : ''}  Order ${e.orderId}  ${subscriber.partnerId}/${e.userId}  ${e.action === 'ORDER_HAC_FINAL_POS' ? 'accepted' : 'refused'}: ${e.text ?? ''}`);
		return `Customer protocol ${subscriber.partnerId}\r\n${lines.join('\r\n')}\r\n`;
	}

	/**
	 * Writes an order into the customer protocol: the upload received, the signature checked, and
	 * the order accepted or refused with the reason.
	 */
	logOrder(subscriber: SandboxSubscriber, order: { orderId: string; orderType: string; service?: BtfService; accepted: boolean; reasonCode?: string; text: string }): void {
		const at = this.options.now().toISOString();
		const event = (action: string, reasonCode: string | undefined, text?: string): ProtocolEvent => ({ orderId: order.orderId, orderType: order.orderType, service: order.service, userId: subscriber.userId, action, reasonCode, text, at, delivered: { HAC: false, PTK: false } });
		subscriber.orderLog.push(
			event('FILE_UPLOAD', 'TS01'),
			event('ES_VERIFICATION', order.accepted ? 'DS01' : (order.reasonCode ?? 'DS0B'), order.accepted ? undefined : order.text),
			event(order.accepted ? 'ORDER_HAC_FINAL_POS' : 'ORDER_HAC_FINAL_NEG', undefined, order.text),
		);
	}

	private downloadInit(subscriber: SandboxSubscriber, orderType: string, details: Element | undefined): EbicsAnswer {
		const btd = child(details, H005_NS, 'BTDOrderParams');
		const params = btd ?? child(details, H005_NS, 'StandardOrderParams');
		const service = this.readService(child(btd, H005_NS, 'Service'), H005_NS);
		const rangeElement = child(params, H005_NS, 'DateRange');
		const range = rangeElement ? { start: text(child(rangeElement, H005_NS, 'Start')) ?? '', end: text(child(rangeElement, H005_NS, 'End')) ?? '' } : undefined;
		const found = VEU_DOWNLOADS.includes(orderType) ? this.veu.download(subscriber, orderType, details) : this.downloadData(subscriber, orderType, service, range);
		if (!found) throw new EbicsRefusal('090005', 'business');
		return this.startDownload(subscriber, orderType, found, 'H005');
	}

	/** Opens a download transaction and answers its first segment. */
	startDownload(subscriber: SandboxSubscriber, orderType: string, found: { data: Buffer; fileIds: number[]; onDelivered?: () => void }, protocol: 'H004' | 'H005', ns = H005_NS): EbicsAnswer {
		const { transactionKey, encryptionInfo, segments, lazy } = this.encryptFor(subscriber, found.data, H005_NS, (key) =>
			protocol === 'H005' && key.certificateDer ? certificateDigest(key.certificateDer) : publicKeyDigest(key.publicKey),
		);
		const tx: Transaction = {
			id: randomBytes(16).toString('hex').toUpperCase(),
			kind: 'download',
			protocol,
			subscriber,
			orderType,
			orderId: this.newOrderId(),
			numSegments: lazy ? lazy.count : segments.length,
			segments,
			lazy,
			transactionKey,
			fileIds: found.fileIds,
			onDelivered: found.onDelivered,
			lastDelivered: 1,
			finished: false,
		};
		this.transactions.set(tx.id, tx);
		return this.segmentAnswer(
			{ phase: 'Initialisation', technical: '000000', business: '000000', transactionId: tx.id, numSegments: tx.numSegments, segment: { number: 1, last: tx.numSegments === 1 }, orderId: tx.orderId, ns },
			this.segmentText(tx, 0),
			encryptionInfo,
		);
	}

	segmentText(tx: Transaction, index: number): string {
		const lazy = tx.lazy;
		const segment = lazy ? lazy.at(index) : tx.segments[index];
		// The next one is made once this answer is on its way.
		if (lazy) setImmediate(() => lazy.prepare(index + 1));
		return this.takeFault('damageSegment') ? `%%${segment.slice(2)}` : segment;
	}

	/** An upload's initialisation; a business refusal is written into the customer protocol too. */
	private uploadInit(subscriber: SandboxSubscriber, orderType: string, details: Element | undefined, staticHeader: Element | undefined, dataTransfer: Element): string {
		try {
			return this.checkedUploadInit(subscriber, orderType, details, staticHeader, dataTransfer);
		} catch (error) {
			if (error instanceof EbicsRefusal && error.level === 'business' && orderType === 'BTU') {
				const service = this.readService(child(child(details, H005_NS, 'BTUOrderParams'), H005_NS, 'Service'), H005_NS);
				this.logOrder(subscriber, { orderId: this.newOrderId(), orderType, service, accepted: false, reasonCode: REFUSAL_REASONS[error.code], text: `${error.code} ${returnCodeInfo(error.code, 'business')?.name ?? ''}: ${error.message}` });
			}
			throw error;
		}
	}

	private checkedUploadInit(subscriber: SandboxSubscriber, orderType: string, details: Element | undefined, staticHeader: Element | undefined, dataTransfer: Element): string {
		const btu = child(details, H005_NS, 'BTUOrderParams');
		const service = this.readService(child(btu, H005_NS, 'Service'), H005_NS);
		if (orderType === 'BTU') {
			if (!service) throw new EbicsRefusal('091112', 'technical');
			if (!subscriber.uploadServices.includes(service.serviceName)) throw new EbicsRefusal('090003', 'business');
		} else if (!['SPR', 'HVE', 'HVS', ...KEY_CHANGE_ORDERS].includes(orderType)) throw new EbicsRefusal('091006', 'technical', `${orderType} is not an upload order type of this bank`);
		const signatureFlag = child(btu, H005_NS, 'SignatureFlag');
		const flag: StoredUpload['signatureFlag'] = !signatureFlag ? 'transport' : signatureFlag.getAttribute('requestEDS') === 'true' ? 'distributed' : 'authorise';
		if (flag === 'authorise' && subscriber.authorisationLevel === 'T') throw new EbicsRefusal('090003', 'business', 'A transport signature cannot authorise the order');
		const numSegments = Number(text(child(staticHeader, H005_NS, 'NumSegments')) ?? 'NaN');
		if (!Number.isInteger(numSegments) || numSegments < (orderType === 'SPR' || orderType === 'HVE' ? 0 : 1)) throw new EbicsRefusal('091113', 'technical', 'NumSegments is missing or not valid');
		if (numSegments > 10000) throw new EbicsRefusal('091118', 'technical');
		const info = child(dataTransfer, H005_NS, 'DataEncryptionInfo');
		this.checkBankDigest(text(child(info, H005_NS, 'EncryptionPubKeyDigest')), this.bankEncryption);
		let transactionKey: Buffer;
		try {
			transactionKey = unwrapTransactionKey(Buffer.from(text(child(info, H005_NS, 'TransactionKey')) ?? '', 'base64'), this.bankEncryption.privateKey);
		} catch {
			throw new EbicsRefusal('091113', 'technical', 'The transaction key cannot be decrypted with the bank\'s E002 key');
		}
		let signatureXml: Buffer;
		try {
			signatureXml = inflateSync(decryptE002(Buffer.from(text(child(dataTransfer, H005_NS, 'SignatureData')) ?? '', 'base64'), transactionKey));
		} catch {
			throw new EbicsRefusal('091111', 'business', 'The signature data does not decrypt and decompress');
		}
		let signatures: Element[];
		try {
			const signatureRoot = parseDocument(signatureXml, 'signature data').documentElement;
			if (signatureRoot.namespaceURI !== S002_NS || signatureRoot.localName !== 'UserSignatureData') throw new Error('not UserSignatureData');
			signatures = children(signatureRoot, S002_NS, 'OrderSignatureData');
		} catch {
			throw new EbicsRefusal('091111', 'business');
		}
		const mine = signatures.find((s) => text(child(s, S002_NS, 'PartnerID')) === subscriber.partnerId && text(child(s, S002_NS, 'UserID')) === subscriber.userId);
		if (!mine) throw new EbicsRefusal('091304', 'business', 'No signature of the submitting subscriber');
		if (text(child(mine, S002_NS, 'SignatureVersion')) !== 'A006') throw new EbicsRefusal('091201', 'business');
		const dataDigest = Buffer.from(text(child(dataTransfer, H005_NS, 'DataDigest')) ?? '', 'base64');
		if (dataDigest.length !== 32) throw new EbicsRefusal('091113', 'technical', 'The DataDigest must be the 32-byte SHA-256 hash of the order data');
		const signature = Buffer.from(text(child(mine, S002_NS, 'SignatureValue')) ?? '', 'base64');
		if (!subscriber.keys.signature || !verifyA006(dataDigest, signature, subscriber.keys.signature.publicKey)) throw new EbicsRefusal('091301', 'business');
		const orderId = this.newOrderId();
		if (orderType === 'HVE') {
			const { order, executed } = this.veu.sign(subscriber, child(details, H005_NS, 'HVEOrderParams'), dataDigest);
			this.logOrder(subscriber, { orderId: order.orderId, orderType: 'HVE', service: order.service, accepted: true, text: executed ? `signature of ${subscriber.userId} verified: the order has its signatures and is executed` : `signature of ${subscriber.userId} verified, waiting for further signers` });
			return this.response({ phase: 'Initialisation', technical: '000000', business: '000000', orderId });
		}
		if (orderType === 'SPR') {
			subscriber.state = 'suspended';
			subscriber.uploads.push({ orderId, orderType, data: Buffer.alloc(0), signatureFlag: flag, signer: { partnerId: subscriber.partnerId, userId: subscriber.userId }, receivedAt: this.options.now().toISOString() });
			this.logOrder(subscriber, { orderId, orderType, accepted: true, text: 'Subscriber suspended (SPR)' });
			return this.response({ phase: 'Initialisation', technical: '000000', business: '000000', orderId });
		}
		const tx = this.openUpload(subscriber, 'H005', orderType, orderId, numSegments, transactionKey, {
			service,
			fileName: btu?.getAttribute('fileName') ?? undefined,
			details: orderType === 'HVS' ? details : undefined,
			dataDigest,
			flag,
			signer: { partnerId: subscriber.partnerId, userId: subscriber.userId },
		});
		if (this.takeFault('headerOkBodyError')) {
			this.transactions.delete(tx.id);
			return this.response({ phase: 'Initialisation', technical: '000000', business: '091116', text: 'Erreur de traitement de la remise' });
		}
		return this.response({ phase: 'Initialisation', technical: '000000', business: '000000', transactionId: tx.id, orderId });
	}

	/** Opens an upload transaction; its segments come in the transfer phase. */
	openUpload(subscriber: SandboxSubscriber, protocol: 'H004' | 'H005', orderType: string, orderId: string, numSegments: number, transactionKey: Buffer, upload: NonNullable<Transaction['upload']>): Transaction {
		const tx: Transaction = { id: randomBytes(16).toString('hex').toUpperCase(), kind: 'upload', protocol, subscriber, orderType, orderId, numSegments, segments: [], transactionKey, fileIds: [], lastDelivered: 0, upload, finished: false, receiver: protocol === 'H005' ? new UploadReceiver(transactionKey) : undefined };
		this.transactions.set(tx.id, tx);
		return tx;
	}

	/** Transfer and receipt phases of an open transaction (H005, or H004 with `ns`). */
	continueTransaction(doc: Document, root: Element, transactionId: string, phase: string, ns: string): EbicsAnswer {
		const tx = this.transactions.get(transactionId);
		const finished = !tx ? this.finishedUploads.get(transactionId) : undefined;
		if (finished && this.switches.recovery && phase === 'Transfer')
			return this.response({ phase: 'Transfer', technical: '061101', business: '000000', transactionId, segment: { number: finished.numSegments, last: true }, orderId: finished.orderId, ns, text: `The bank holds all ${finished.numSegments} segments of order ${finished.orderId}` });
		if (!tx || tx.finished || tx.protocol !== (ns === H005_NS ? 'H005' : 'H004')) throw new EbicsRefusal('091101', 'technical');
		const header = child(root, ns, 'header');
		const staticHeader = child(header, ns, 'static');
		this.authenticate(doc, tx.subscriber, staticHeader, ns);
		const segment = xmlPath(header, ns, 'mutable', 'SegmentNumber');
		const number = Number(text(segment) ?? 'NaN');
		const last = segment?.getAttribute('lastSegment') === 'true';
		if (phase === 'Receipt') {
			if (tx.kind !== 'download') throw new EbicsRefusal('091113', 'technical', 'An upload has no receipt');
			if (tx.lastDelivered < tx.numSegments) throw new EbicsRefusal('011101', 'technical', `Segments ${tx.lastDelivered + 1} to ${tx.numSegments} were not fetched`);
			const code = text(xmlPath(root, ns, 'body', 'TransferReceipt', 'ReceiptCode'));
			tx.finished = true;
			this.transactions.delete(tx.id);
			if (code === '0') {
				for (const file of tx.subscriber.files) if (tx.fileIds.includes(file.id)) file.delivered = true;
				tx.onDelivered?.();
			}
			return this.response({ phase: 'Receipt', technical: code === '0' ? '011000' : '011001', business: '000000', transactionId: tx.id, ns });
		}
		if (phase !== 'Transfer') throw new EbicsRefusal('091113', 'technical', `Phase ${phase} is not valid for an open transaction`);
		if (!Number.isInteger(number) || number < 1) throw new EbicsRefusal('091113', 'technical', 'SegmentNumber is missing');
		if (number > tx.numSegments) throw new EbicsRefusal('091104', 'technical');
		if (last !== (number === tx.numSegments)) throw new EbicsRefusal('091113', 'technical', `lastSegment is ${last} for segment ${number} of ${tx.numSegments}`);
		if (tx.kind === 'download') {
			if (number < 2) throw new EbicsRefusal('091113', 'technical', 'Segment 1 came with the initialisation');
			tx.lastDelivered = Math.max(tx.lastDelivered, number);
			const answer = this.segmentAnswer({ phase: 'Transfer', technical: '000000', business: '000000', transactionId: tx.id, segment: { number, last }, orderId: tx.orderId, ns }, this.segmentText(tx, number - 1));
			if (dropsAnswer((kind) => this.takeFault(kind), 'download', last)) throw new DropAnswer();
			return answer;
		}
		const received = tx.receiver ? tx.receiver.count : tx.segments.length;
		if (number <= received) {
			if (!this.switches.recovery) throw new EbicsRefusal('091105', 'technical', `Segment ${number} was received before`);
			return this.response({ phase: 'Transfer', technical: '061101', business: '000000', transactionId: tx.id, segment: { number: received, last: received === tx.numSegments }, orderId: tx.orderId, ns, text: `The bank holds segments 1 to ${received}` });
		}
		if (number !== received + 1) throw new EbicsRefusal('011101', 'technical', `Segment ${received + 1} was expected, not ${number}`);
		const orderData = this.orderDataBytes.get(doc) ?? text(xmlPath(root, ns, 'body', 'DataTransfer', 'OrderData')) ?? '';
		if (tx.receiver) {
			try {
				tx.receiver.push(orderData);
			} catch {
				this.transactions.delete(tx.id);
				throw new EbicsRefusal('090004', 'business', `Segment ${number} does not decrypt and decompress`);
			}
		} else tx.segments.push(orderData.toString());
		if (last) this.completeUpload(tx);
		const answer = this.response({ phase: 'Transfer', technical: '000000', business: '000000', transactionId: tx.id, segment: { number, last }, orderId: tx.orderId, ns });
		if (dropsAnswer((kind) => this.takeFault(kind), 'upload', last)) throw new DropAnswer();
		return answer;
	}

	/** Decrypts, checks and stores a complete upload; a pain.001 gets a pain.002 and a camt.054. */
	completeUpload(tx: Transaction): void {
		tx.finished = true;
		this.transactions.delete(tx.id);
		let data: Buffer;
		let received: ReturnType<UploadReceiver['finish']> | undefined;
		try {
			if (tx.receiver) {
				received = tx.receiver.finish();
				data = received.data ?? Buffer.alloc(0);
			} else data = inflateSync(decryptE002(Buffer.from(tx.segments.join(''), 'base64'), tx.transactionKey));
		} catch {
			throw new EbicsRefusal('090004', 'business', 'The order data does not decrypt and decompress');
		}
		const meta = tx.upload as NonNullable<Transaction['upload']>;
		if (tx.orderType === 'HVS') {
			let orderData: Document;
			try {
				orderData = parseDocument(data, 'HVS order data');
			} catch {
				throw new EbicsRefusal('090004', 'business', 'The HVS order data is not XML');
			}
			const ns = tx.protocol === 'H004' ? H004_NS : H005_NS;
			const order = this.veu.cancel(tx.subscriber, child(meta.details, ns, 'HVSOrderParams'), meta.dataDigest, orderData, ns);
			this.logOrder(order.originator, { orderId: order.orderId, orderType: order.orderType, service: order.service, accepted: false, reasonCode: 'DS02', text: `cancelled in the distributed signature by ${tx.subscriber.userId} (HVS)` });
			return;
		}
		if (meta.verify ? !meta.verify(data) : !(received?.dataDigest ?? orderDataDigest(data)).equals(meta.dataDigest)) {
			this.logOrder(tx.subscriber, { orderId: tx.orderId, orderType: tx.orderType, service: meta.service, accepted: false, reasonCode: 'DS0B', text: '091301 EBICS_SIGNATURE_VERIFICATION_FAILED: the order data does not match its signed hash' });
			throw new EbicsRefusal('091301', 'business', 'The order data does not match its signed hash');
		}
		if (KEY_CHANGE_ORDERS.includes(tx.orderType)) {
			if (tx.protocol === 'H004') changeKeys(tx.subscriber, tx.orderType, data, readH004Key, 'H004');
			else changeKeys(tx.subscriber, tx.orderType, data, (...args) => this.certificateKey(...args));
			this.logOrder(tx.subscriber, { orderId: tx.orderId, orderType: tx.orderType, accepted: true, text: `new keys of ${tx.subscriber.userId} in force (${tx.orderType})` });
			return;
		}
		const receivedAt = this.options.now();
		this.finishedUploads.add(tx.id, tx.numSegments, tx.orderId);
		tx.subscriber.uploads.push({ orderId: tx.orderId, orderType: tx.orderType, service: meta.service, fileName: meta.fileName, data, ...(received ? { bytes: received.bytes, sha256: received.sha256 } : {}), signatureFlag: meta.flag, signer: meta.signer, receivedAt: receivedAt.toISOString() });
		this.logOrder(tx.subscriber, { orderId: tx.orderId, orderType: tx.orderType, service: meta.service, accepted: true, text: `signature verified (${meta.flag === 'transport' ? 'transport signature' : meta.flag === 'distributed' ? 'first signature, waiting for further signers' : 'authorising signature'}), order stored` });
		const execute = (): void => this.executeOrder(tx.subscriber, tx.orderId, data);
		if (this.veu.hold({ subscriber: tx.subscriber, orderId: tx.orderId, orderType: tx.orderType, service: meta.service, fileName: meta.fileName, data, flag: meta.flag, receivedAt: receivedAt.toISOString(), execute })) return;
		execute();
	}

	/** Executes an order: a pain.001 gets its pain.002 and camt.054. */
	executeOrder(subscriber: SandboxSubscriber, orderId: string, data: Buffer): void {
		const tx = { subscriber, orderId };
		const receivedAt = this.options.now();
		const summary = /^\uFEFF?\s*</.test(data.subarray(0, 64).toString('utf8')) ? pain001Summary(data) : undefined;
		if (summary) {
			const date = receivedAt.toISOString().slice(0, 10);
			this.addFile(tx.subscriber.partnerId, tx.subscriber.userId, {
				serviceName: 'PSR',
				msgName: 'pain.002',
				name: `pain002_${tx.orderId}.xml`,
				date,
				content: Buffer.from(pain002({ messageId: `PSR-${tx.orderId}`, created: receivedAt, originalMessageId: summary.messageId, transactions: summary.transactions, controlSum: summary.controlSum, accepted: true })),
			});
			try {
				this.addFile(tx.subscriber.partnerId, tx.subscriber.userId, { serviceName: 'REP', msgName: 'camt.054', name: `camt054_${tx.orderId}.xml`, date, content: Buffer.from(camt054FromPain001(data.toString('utf8'), { notificationId: `NTF-${tx.orderId}`, created: receivedAt })) });
			} catch {
				// A pain.001 the notification generator cannot read still gets its status report.
			}
		}
	}
}
