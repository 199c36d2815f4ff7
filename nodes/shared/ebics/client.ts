/**
 * The EBICS 3.0 client core, independent of any transport: every function takes a `send` that
 * posts one XML request to the bank's EBICS URL and resolves with the answer's text (the node
 * plugs in the project's transport, tests the sandbox or a stub). Requests are built and signed
 * by requests.ts, answers checked by responses.ts; nothing here holds key material beyond the
 * call, and no error carries any.
 *
 *   const client = new EbicsClient({ subscriber, keys, send });
 *   await client.ini(); await client.hia();              // then the letters, then the bank
 *   const bank = await client.hpb({ authentication: '..', encryption: '..' });   // pinned hashes
 *   // keep bank.keys in the credential: new EbicsClient({ subscriber, keys: { ...keys, bank: bank.keys }, send })
 *   const download = await client.btd(service, dateRange);
 *   if (download) { store(download.files()); await download.acknowledge(); }
 *   const { orderId } = await client.btu(service, painXml, 'authorise');
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

import { attemptAsync } from '../common/attempt';

import { checkService, serviceLabel, type BtfService } from './btf';
import { H005, H005_NS } from './constants';
import { H005_DIALECT, type EbicsDialect } from './dialect';
import { newTransactionKey, unwrapTransactionKey } from './e002';
import {
	EbicsBankKeyError,
	EbicsError,
	EbicsFormatError,
	EbicsKeyError,
	EbicsReturnCodeError,
	EbicsTransferInterrupted,
} from './errors';
import {
	certificateDigest,
	formatHash,
	keyDigest,
	parseHash,
	publicKeyDigest,
	type BankKeyDigestForm,
} from './digests';
import {
	loadBankKeys,
	loadSubscriberKeys,
	type EbicsBankKeys,
	type EbicsKeyMaterial,
	type LoadedBankKeys,
	type LoadedSubscriberKeys,
} from './keys';
import { readBankParameters, type BankParameters } from './hpd';
import {
	readAvailableDownloads,
	readCustomerInfo,
	type AvailableDownload,
	type CustomerInfo,
} from './orderData';
import { h004Dialect, H004_ORDER_TYPES, type H004KeyForm } from './h004';
import {
	checkSubscriber,
	downloadTransferRequest,
	hevRequest,
	receiptRequest,
	uploadTransferEnvelope,
	uploadTransferRequest,
	type BankKeyDigests,
	type DateRange,
	type EbicsSubscriber,
	type EbicsVersion,
	type OrderParams,
	type SignatureFlag,
} from './requests';
import {
	readHevResponse,
	readResponse,
	type EbicsResponse,
	type HevVersion,
	type ReturnCodes,
} from './responses';
import {
	decodeDownload,
	DownloadDecoder,
	fileSegments,
	inflateStream,
	joinParts,
	prepareUpload,
	segmentRequestBytes,
	spoolUpload,
	uploadEnvelope,
	type UploadEnvelope,
} from './segments';
import { parseDocument, path as xmlPath, text } from './xml';
import { openContainer, type ContainerFile } from './zip';

/**
 * Posts one request and resolves with the bank's answer (the response body as text, or as the
 * bytes that came: then a download's segments are never turned into text whole). `step` names the
 * request for logs ("BTD initialisation"); the body is the XML to send with Content-Type
 * text/xml; charset=UTF-8.
 */
export type EbicsSend = (
	xml: string,
	step: string,
	kind?: EbicsRequestKind,
) => Promise<string | Buffer>;

/**
 * What an upload's request does at the bank, for the transport (other requests leave it out):
 * its initialisation and segments change the bank's books (never sent twice by the transport);
 * a segment before the last may go over a kept-alive connection, since the bank recognises a
 * repetition by transaction and segment number and this library decides what to send again.
 */
export interface EbicsRequestKind {
	changesTheBank: boolean;
	reuseConnection?: boolean;
}

/**
 * Posts one request given as bytes (UTF-8 XML) and resolves as EbicsSend does: the transfer
 * requests of a large upload, so that a segment is never turned into text whole.
 */
export type EbicsSendBytes = (
	body: Buffer,
	step: string,
	kind?: EbicsRequestKind,
) => Promise<string | Buffer>;

export interface EbicsClientOptions {
	subscriber: EbicsSubscriber;
	/** The subscriber's keys; `bank` once HPB has fetched and the pinned hashes accepted them. */
	keys: EbicsKeyMaterial;
	send: EbicsSend;
	/** Sends the transfer requests of a spooled upload as bytes (without it they go to `send`). */
	sendBytes?: EbicsSendBytes;
	/** How requests carry the bank key digests (default the spec's: certificate hash). */
	bankKeyDigestForm?: BankKeyDigestForm;
	/** Bytes per segment before base64 (default the spec's maximum; tests use less). */
	segmentBytes?: number;
	/** The protocol version (default H005, EBICS 3.0; H004 for EBICS 2.5 banks). */
	version?: EbicsVersion;
	/** H004: the keys in INI and HIA with their certificates (default) or bare. */
	h004KeyForm?: H004KeyForm;
}

export interface KeyManagementResult {
	orderId?: string;
	codes: ReturnCodes;
}

/** The bank's hashes as its letter prints them, and whether they match what was pinned. */
export interface HpbResult {
	/** Keep in the credential (EbicsKeyMaterial.bank). */
	keys: EbicsBankKeys;
	hashes: { authentication: string; encryption: string };
	hostId?: string;
}

/** Hashes pinned from the bank's letter (hex, as printed), one per bank key. */
export interface PinnedBankHashes {
	authentication?: string;
	encryption?: string;
}

/** The segments of an upload: base64 by number, or (spooled to a file) the ciphertext. */
interface UploadSegments {
	count: number;
	segment(number: number): Promise<string>;
	withSegment?<T>(number: number, use: (ciphertext: Buffer) => T): Promise<T>;
}

/** How often a transfer request whose answer does not come is sent (the first time included). */
export const TRANSFER_TRIES = 3;

/** The code with which a bank offering recovery names the last segment it holds. */
const RECOVERY_SYNC = '061101';

/**
 * A download whose order data is fetched segment by segment as it is read: nothing is held but
 * the segment being decoded. The receipt is the caller's to send once the data is kept.
 */
export interface StreamedDownload {
	orderType: string;
	service?: BtfService;
	transactionId: string;
	orderId?: string;
	numSegments: number;
	/**
	 * How many segments the bank has answered so far (the first comes with the initialisation).
	 * Only when it is `numSegments` may a receipt go to the bank: the receipt phase follows the
	 * transfer phase, and a download that broke off before gets no receipt (the bank keeps the
	 * data and offers it again).
	 */
	readonly segmentsReceived: number;
	/** The decrypted, inflated order data (once: a second call throws). */
	stream(): Readable;
	/**
	 * Positive receipt: the bank marks the data as delivered (send only once it is stored). Throws
	 * without sending anything while segments are missing.
	 */
	acknowledge(): Promise<ReturnCodes>;
	/**
	 * Negative receipt: the bank delivers the same data again next time. Throws without sending
	 * anything while segments are missing.
	 */
	reject(): Promise<ReturnCodes>;
	/** The name of the file when the data is not a container. */
	fileName: string;
}

/** A download held until its receipt is sent. */
export interface Download {
	orderType: string;
	service?: BtfService;
	transactionId: string;
	orderId?: string;
	numSegments: number;
	/** The decrypted, decompressed order data. */
	data: Buffer;
	/** The data opened into files (a ZIP container gives one file per entry). */
	files(): ContainerFile[];
	/** Positive receipt: the bank marks the data as delivered (send only once it is stored). */
	acknowledge(): Promise<ReturnCodes>;
	/** Negative receipt: the bank delivers the same data again next time. */
	reject(): Promise<ReturnCodes>;
}

export interface UploadOptions extends UploadHooks {
	/** Name of the file at the bank (BTU fileName attribute). */
	fileName?: string;
}

export interface UploadHooks {
	/**
	 * Called once, just before the last segment goes out (from then on the bank may hold the
	 * order), with the order ID the bank gave at the initialisation. A rejection stops the upload
	 * there: the bank does not process an incomplete order.
	 */
	beforeLastSegment?: (order: { orderId?: string; transactionId: string }) => Promise<void>;
}

export interface UploadResult {
	orderId?: string;
	transactionId: string;
	numSegments: number;
	codes: ReturnCodes;
	/** Bytes of order data sent (before compression). */
	orderDataBytes?: number;
	/**
	 * Set when an answer did not come and the transfer went on with the bank's recovery: the
	 * segments the bank said it held (061101 EBICS_TX_RECOVERY_SYNC) or those sent again.
	 */
	recovered?: string[];
}

const DOWNLOAD_NAMES: Record<string, string> = {
	HTD: 'htd.xml',
	HKD: 'hkd.xml',
	HAA: 'haa.xml',
	HAC: 'hac.xml',
	PTK: 'ptk.txt',
};

function fileNameFor(orderType: string, service?: BtfService): string {
	if (service)
		return `${service.msgName}${service.msgVersion ? `.${service.msgVersion}` : ''}${/^mt/.test(service.msgName) ? '.txt' : '.xml'}`;
	return (
		DOWNLOAD_NAMES[orderType] ??
		H004_ORDER_TYPES[orderType]?.fileName ??
		`${orderType.toLowerCase()}.dat`
	);
}

/** The last segment a bank offering recovery says it holds, from its 061101 answer. */
function recoverySegment(answerXml: string | Buffer, namespace = H005_NS): number | undefined {
	try {
		const root = parseDocument(answerXml, "The bank's answer").documentElement;
		const value = Number(text(xmlPath(root, namespace, 'header', 'mutable', 'SegmentNumber')));
		return Number.isInteger(value) && value >= 0 ? value : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Checks the bank's keys against the hashes pinned from the bank's letter and returns their
 * hashes as a letter prints them. EbicsBankKeyError (with the bank's hashes and what to compare
 * them with) when none are pinned or one differs. A letter of EBICS 3.0 prints the certificate's
 * hash; a bank still migrating may print the EBICS 2.5 hash of the key (exponent and modulus):
 * either binds the same key.
 */
export function checkPinnedBankKeys(
	loaded: LoadedBankKeys,
	pinned: PinnedBankHashes | undefined,
	form: BankKeyDigestForm = 'certificate',
): { authentication: string; encryption: string } {
	const hashes = {
		authentication: formatHash(keyDigest(loaded.authentication, form)),
		encryption: formatHash(keyDigest(loaded.encryption, form)),
	};
	const shown = `the bank's authentication key (X002) hash is\n${hashes.authentication}\nand its encryption key (E002) hash is\n${hashes.encryption}`;
	if (!pinned?.authentication?.trim() || !pinned?.encryption?.trim())
		throw new EbicsBankKeyError(
			`No hashes of the bank's keys are pinned: ${shown}\nCompare them with the hashes printed in the bank's letter (or on its EBICS page) and enter them in the credential before using these keys`,
			hashes,
		);
	const matches = (pin: string, field: string, key: LoadedBankKeys['authentication']): boolean => {
		const pinnedHash = parseHash(pin, field);
		return (
			(!!key.certificateDer && pinnedHash.equals(certificateDigest(key.certificateDer))) ||
			pinnedHash.equals(publicKeyDigest(key.publicKey))
		);
	};
	const differs: string[] = [];
	if (!matches(pinned.authentication, 'Bank authentication key hash', loaded.authentication))
		differs.push('authentication (X002)');
	if (!matches(pinned.encryption, 'Bank encryption key hash', loaded.encryption))
		differs.push('encryption (E002)');
	if (differs.length)
		throw new EbicsBankKeyError(
			`The bank's ${differs.join(' and ')} key does not match the hash pinned from the bank's letter: ${shown}\nDo not use these keys until the bank confirms the hashes of its letter; if the bank has new keys, enter the hashes of its new letter`,
			hashes,
		);
	return hashes;
}

/** HEV: the EBICS versions the bank speaks; needs no keys (the request is not signed). */
export async function bankVersions(hostId: string, send: EbicsSend): Promise<HevVersion[]> {
	return readHevResponse(await send(hevRequest(hostId), 'HEV'));
}

/** The dialect of a protocol version (H004: the subscriber's keys sent in `h004KeyForm`). */
function dialectOf(version: EbicsVersion | undefined, h004KeyForm?: H004KeyForm): EbicsDialect {
	return version === 'H004' ? h004Dialect(h004KeyForm) : H005_DIALECT;
}

/**
 * Checks an order's type and parameters for a protocol version as the client's initialisation
 * would write them, before any request: nothing is signed or sent. EbicsValidationError names the
 * field and the rule.
 */
export function checkOrder(
	version: EbicsVersion,
	orderType: string,
	params: OrderParams,
	upload: boolean,
): void {
	dialectOf(version).checkOrder(orderType, params, upload);
}

export class EbicsClient {
	readonly subscriber: EbicsSubscriber;
	private readonly keys: LoadedSubscriberKeys;
	private readonly bank?: LoadedBankKeys;
	private readonly send: EbicsSend;
	private readonly sendBytes?: EbicsSendBytes;
	private readonly digestForm: BankKeyDigestForm;
	private readonly segmentBytes?: number;
	/** What the protocol version changes (requests, namespaces, key hashes). */
	private readonly dialect: EbicsDialect;

	constructor(options: EbicsClientOptions) {
		this.dialect = dialectOf(options.version, options.h004KeyForm);
		this.subscriber = checkSubscriber(options.subscriber);
		if (options.keys?.version !== 1)
			throw new EbicsKeyError('key material', 'The EBICS key material has an unknown version');
		this.keys = loadSubscriberKeys(options.keys.subscriber);
		this.bank = options.keys.bank ? loadBankKeys(options.keys.bank) : undefined;
		this.send = options.send;
		this.sendBytes = options.sendBytes;
		// EBICS 2.5 names the bank's keys only by the hash of exponent and modulus.
		this.digestForm =
			this.dialect.keyHashForm === 'publicKey'
				? 'publicKey'
				: (options.bankKeyDigestForm ?? 'certificate');
		this.segmentBytes = options.segmentBytes;
	}

	/** The protocol version the client speaks. */
	get version(): EbicsVersion {
		return this.dialect.version;
	}

	/** The subscriber's key hashes as the initialisation letters of the version print them. */
	letterHashes(): { signature: string; authentication: string; encryption: string } {
		const form = this.dialect.keyHashForm;
		return {
			signature: formatHash(keyDigest(this.keys.signature, form)),
			authentication: formatHash(keyDigest(this.keys.authentication, form)),
			encryption: formatHash(keyDigest(this.keys.encryption, form)),
		};
	}

	/** HEV: the EBICS versions the bank speaks. */
	async hev(): Promise<HevVersion[]> {
		return await bankVersions(this.subscriber.hostId, this.send);
	}

	/** Whether the bank speaks EBICS 3.0 (H005), by HEV. */
	async supportsH005(): Promise<boolean> {
		return (await this.hev()).some((v) => v.protocol === H005);
	}

	/** INI: sends the signature certificate (A006). */
	async ini(): Promise<KeyManagementResult> {
		const xml = this.dialect.iniRequest(this.subscriber, this.keys);
		const response = readResponse(await this.send(xml, 'INI'), 'INI', this.readOptions());
		return { orderId: response.orderId, codes: response.codes };
	}

	/** HIA: sends the authentication (X002) and encryption (E002) certificates. */
	async hia(): Promise<KeyManagementResult> {
		const xml = this.dialect.hiaRequest(this.subscriber, this.keys);
		const response = readResponse(await this.send(xml, 'HIA'), 'HIA', this.readOptions());
		return { orderId: response.orderId, codes: response.codes };
	}

	private readOptions(): { namespace: string } {
		return { namespace: this.dialect.namespace };
	}

	/**
	 * HPB: fetches the bank's certificates and checks them against the hashes pinned from the
	 * bank's letter. EbicsBankKeyError (with the bank's hashes) when none are pinned or one differs.
	 */
	async hpb(pinned: PinnedBankHashes): Promise<HpbResult> {
		const response = readResponse(
			await this.send(
				this.dialect.hpbRequest(this.subscriber, this.keys.authentication.privateKey),
				'HPB',
			),
			'HPB',
			this.readOptions(),
		);
		if (!response.transactionKey || response.orderData === undefined)
			throw new EbicsFormatError(
				"The bank's answer to HPB carries no order data with the bank's keys",
			);
		const key = unwrapTransactionKey(response.transactionKey, this.keys.encryption.privateKey);
		const read = this.dialect.readHpb(decodeDownload([response.orderData], key));
		const hashes = checkPinnedBankKeys(loadBankKeys(read.keys), pinned, this.dialect.keyHashForm);
		return { keys: read.keys, hashes, hostId: read.hostId };
	}

	private bankKeys(step: string): LoadedBankKeys {
		if (!this.bank)
			throw new EbicsKeyError(
				"bank's keys",
				`${step} needs the bank's keys: fetch them with HPB first (after the bank has activated the subscriber)`,
			);
		return this.bank;
	}

	private digests(bank: LoadedBankKeys): BankKeyDigests {
		return {
			authentication: keyDigest(bank.authentication, this.digestForm),
			encryption: keyDigest(bank.encryption, this.digestForm),
		};
	}

	private async exchange(
		xml: string,
		step: string,
		allowNoData = false,
		kind?: EbicsRequestKind,
	): Promise<EbicsResponse> {
		return this.read(await this.send(xml, step, kind), step, allowNoData);
	}

	private read(
		answer: string | Buffer,
		step: string,
		allowNoData = false,
		orderDataAsBytes = false,
	): EbicsResponse {
		const bank = this.bankKeys(step);
		return readResponse(answer, step, {
			bankAuthenticationKey: bank.authentication.publicKey,
			allowNoData,
			orderDataAsBytes,
			...this.readOptions(),
		});
	}

	/**
	 * A download transaction, streamed: the initialisation (with the first segment), then one
	 * transfer per further segment, each fetched only when the data before it has been read.
	 * Resolves undefined when the bank has no data (090005); otherwise the caller reads
	 * `stream()` to the end, then sends the receipt with `acknowledge()` once the data is kept, or
	 * `reject()`. A segment whose answer does not come is asked for again (the bank delivers the
	 * same segment of the same transaction); when it still does not come, the stream fails with
	 * EbicsTransferInterrupted. A receipt goes to the bank only once every segment came
	 * (`segmentsReceived`): a download that broke off gets none, and the bank delivers the data
	 * again.
	 */
	async openDownload(
		orderType: string,
		params: OrderParams & { kind: 'BTD' | 'standard' | 'element' | 'file' },
	): Promise<StreamedDownload | undefined> {
		const bank = this.bankKeys(orderType);
		const label =
			params.kind === 'BTD' ? `BTD ${serviceLabel(checkService(params.service))}` : orderType;
		const step = `${label} initialisation`;
		const init = this.read(
			await this.send(
				this.dialect.downloadInitRequest(
					this.subscriber,
					orderType,
					params,
					this.digests(bank),
					this.keys.authentication.privateKey,
				),
				step,
			),
			step,
			true,
			true,
		);
		if (init.noData) return undefined;
		if (!init.transactionId || !init.transactionKey || init.orderDataRaw === undefined)
			throw new EbicsFormatError(
				`The bank's answer to ${label} initialisation lacks the transaction ID, the transaction key or the order data`,
			);
		const transactionId = init.transactionId;
		const numSegments = init.numSegments ?? 1;
		if (numSegments < 1)
			throw new EbicsFormatError(`The bank's answer to ${label} declares ${numSegments} segments`);
		const decoder = new DownloadDecoder(
			unwrapTransactionKey(init.transactionKey, this.keys.encryption.privateKey),
		);
		const first = init.orderDataRaw;
		// The request of a segment is signed while the bank answers the one before it (requests
		// do not depend on answers): the bank's time and the signature's overlap.
		let ahead: { number: number; xml: string } | undefined;
		const request = (number: number): string =>
			downloadTransferRequest(
				this.subscriber.hostId,
				transactionId,
				number,
				number === numSegments,
				this.keys.authentication.privateKey,
				this.dialect.version,
			);
		let asked = 1;
		const signAhead = (number: number): void => {
			if (number > numSegments) return;
			// Once this turn's request is on its way.
			setImmediate(() => {
				if (number > asked) ahead = { number, xml: request(number) };
			});
		};
		const signedRequest = (number: number): string => {
			asked = Math.max(asked, number);
			const ready = ahead?.number === number ? ahead.xml : undefined;
			ahead = undefined;
			return ready ?? request(number);
		};
		// Segments the bank has answered: the first came with the initialisation.
		let received = 1;
		const fetchSegment = (number: number): Promise<string | Buffer> => {
			const fetching = this.downloadSegment(
				label,
				transactionId,
				number,
				numSegments,
				init.orderId,
				(attempt) => {
					if (attempt > 1) return request(number);
					signAhead(number + 1);
					return signedRequest(number);
				},
			).then((orderData) => {
				received = Math.max(received, number);
				return orderData;
			});
			// Awaited below; a failure while the stream is no longer read must not go unhandled.
			fetching.catch(() => undefined);
			return fetching;
		};
		// The next segment is asked for (one request at a time, as the protocol has it) while the
		// one before it is decoded and stored: the bank's time and the line's overlap with this side's.
		async function* compressed(): AsyncGenerator<Buffer> {
			let next = numSegments >= 2 ? fetchSegment(2) : undefined;
			try {
				yield* joinParts(decoder.segmentParts(first));
				for (let number = 2; number <= numSegments; number++) {
					const segment = await next!;
					next = number < numSegments ? fetchSegment(number + 1) : undefined;
					yield* joinParts(decoder.segmentParts(segment));
				}
				yield decoder.end();
			} finally {
				// Nothing else (a receipt) goes to the bank while a segment is still asked for.
				if (next) await next.catch(() => undefined);
			}
		}
		const service = params.kind === 'BTD' ? params.service : undefined;
		let streamed = false;
		let receiptSent = false;
		const receipt = async (code: 0 | 1): Promise<ReturnCodes> => {
			if (received < numSegments)
				throw new EbicsError(
					`${label}: no receipt is sent before the last segment: ${received} of ${numSegments} segments came`,
				);
			if (receiptSent) throw new EbicsFormatError(`The receipt of ${label} was already sent`);
			receiptSent = true;
			return await this.receipt(transactionId, code === 0, label);
		};
		return {
			orderType,
			service,
			transactionId,
			orderId: init.orderId,
			numSegments,
			get segmentsReceived() {
				return received;
			},
			fileName: fileNameFor(orderType, service),
			stream: () => {
				if (streamed) throw new EbicsFormatError(`The data of ${label} was already read`);
				streamed = true;
				return inflateStream(compressed());
			},
			acknowledge: async () => await receipt(0),
			reject: async () => await receipt(1),
		};
	}

	/**
	 * The receipt of a download transaction by its ID, for a caller that sends it later than the
	 * download (a trigger, once n8n has saved what it handed over): positive, the bank marks the
	 * data delivered; negative, it delivers the same data again.
	 */
	async receipt(transactionId: string, positive: boolean, label = 'BTD'): Promise<ReturnCodes> {
		const step = `${label} receipt (${positive ? 'positive' : 'negative'})`;
		return (
			await this.exchange(
				receiptRequest(
					this.subscriber.hostId,
					transactionId,
					positive ? 0 : 1,
					this.keys.authentication.privateKey,
					this.dialect.version,
				),
				step,
			)
		).codes;
	}

	/** One further segment of a download, asked for again while its answer does not come. */
	private async downloadSegment(
		label: string,
		transactionId: string,
		number: number,
		numSegments: number,
		orderId: string | undefined,
		request: (attempt: number) => string,
	): Promise<string | Buffer> {
		const step = `${label} transfer of segment ${number} of ${numSegments}`;
		let failure: unknown;
		for (let attempt = 1; attempt <= TRANSFER_TRIES; attempt++) {
			let answerXml: string | Buffer;
			try {
				answerXml = await this.send(request(attempt), step);
			} catch (error) {
				failure = error;
				continue;
			}
			const answer = this.read(answerXml, step, false, true);
			if (answer.segmentNumber !== undefined && answer.segmentNumber !== number)
				throw new EbicsFormatError(`${step}: the bank answered segment ${answer.segmentNumber}`);
			if (answer.orderDataRaw === undefined)
				throw new EbicsFormatError(`${step}: the bank's answer has no order data`);
			return answer.orderDataRaw;
		}
		throw new EbicsTransferInterrupted(
			'download',
			step,
			number,
			numSegments,
			false,
			failure,
			orderId,
		);
	}

	/**
	 * A download transaction held in memory (administrative order data, small files): as
	 * `openDownload`, the data read whole.
	 */
	async download(
		orderType: string,
		params: OrderParams & { kind: 'BTD' | 'standard' | 'element' | 'file' },
	): Promise<Download | undefined> {
		const opened = await this.openDownload(orderType, params);
		if (!opened) return undefined;
		const parts: Buffer[] = [];
		const read = await attemptAsync(async () => {
			for await (const chunk of opened.stream()) parts.push(chunk as Buffer);
		});
		if (!read.ok) {
			// Every segment came but the data cannot be read: the negative receipt ends the
			// transaction (the bank delivers the data again). One that broke off gets none.
			if (opened.segmentsReceived === opened.numSegments)
				await attemptAsync(async () => await opened.reject());
			throw read.error;
		}
		const data = Buffer.concat(parts);
		return {
			orderType: opened.orderType,
			service: opened.service,
			transactionId: opened.transactionId,
			orderId: opened.orderId,
			numSegments: opened.numSegments,
			data,
			files: () =>
				openContainer(data, { container: opened.service?.container, name: opened.fileName }),
			acknowledge: opened.acknowledge,
			reject: opened.reject,
		};
	}
	/** BTD: downloads a business service; undefined when there is nothing to fetch (090005). */
	async btd(service: BtfService, dateRange?: DateRange): Promise<Download | undefined> {
		return await this.download('BTD', { kind: 'BTD', service, dateRange });
	}

	/** BTD, streamed (see `openDownload`); undefined when there is nothing to fetch (090005). */
	async openBtd(service: BtfService, dateRange?: DateRange): Promise<StreamedDownload | undefined> {
		return await this.openDownload('BTD', { kind: 'BTD', service, dateRange });
	}

	/** HAC, streamed (see `openDownload`); undefined when there is nothing to fetch (090005). */
	async openHac(dateRange?: DateRange): Promise<StreamedDownload | undefined> {
		return await this.openDownload('HAC', { kind: 'standard', dateRange });
	}

	private async adminDownload(
		orderType: string,
		dateRange?: DateRange,
	): Promise<Download | undefined> {
		return await this.download(orderType, { kind: 'standard', dateRange });
	}

	/** HTD: what the subscriber may do (customer, accounts, orders, this user's permissions). */
	async htd(): Promise<CustomerInfo> {
		return await this.readAdmin('HTD', (data) => readCustomerInfo(data, 'HTD'));
	}

	/** HKD: the customer's data and every user's permissions. */
	async hkd(): Promise<CustomerInfo> {
		return await this.readAdmin('HKD', (data) => readCustomerInfo(data, 'HKD'));
	}

	/** HPD: the bank's EBICS parameters (addresses, versions, features). */
	async hpd(): Promise<BankParameters> {
		return await this.readAdmin('HPD', readBankParameters);
	}

	/**
	 * HAA: what has data to download now: the services (EBICS 3.0), or the order types (EBICS 2.5);
	 * [] when the bank has nothing (090005).
	 */
	async haa(): Promise<AvailableDownload[]> {
		return (await this.readDownload('HAA', { kind: 'standard' }, readAvailableDownloads)) ?? [];
	}

	/**
	 * A download whose order data is read before any receipt: the positive receipt once `read`
	 * has read it, the negative one (the bank keeps the data) when `read` throws, and the error
	 * then. Undefined when the bank has nothing (090005); `read` never returns undefined.
	 */
	async readDownload<T>(
		orderType: string,
		params: OrderParams & { kind: 'BTD' | 'standard' | 'element' | 'file' },
		read: (data: Buffer) => T,
	): Promise<T | undefined> {
		const download = await this.download(orderType, params);
		if (!download) return undefined;
		let outcome: { ok: true; value: T } | { ok: false; error: unknown };
		try {
			outcome = { ok: true, value: read(download.data) };
		} catch (error) {
			outcome = { ok: false, error };
		}
		if (!outcome.ok) {
			// The bank keeps the data (negative receipt) when it cannot be read here.
			await download.reject();
			throw outcome.error;
		}
		const value = outcome.value;
		await download.acknowledge();
		return value;
	}

	/** An administrative download read as `readDownload` does; the bank must have data. */
	private async readAdmin<T>(orderType: string, read: (data: Buffer) => T): Promise<T> {
		const value = await this.readDownload(orderType, { kind: 'standard' }, read);
		if (value === undefined)
			throw new EbicsFormatError(`The bank has no ${orderType} data for the subscriber`);
		return value;
	}

	/** HAC: the customer acknowledgement (pain.002) of the date range; the caller sends the receipt. */
	async hac(dateRange?: DateRange): Promise<Download | undefined> {
		return await this.adminDownload('HAC', dateRange);
	}

	/** PTK: the customer protocol (text) of the date range; the caller sends the receipt. */
	async ptk(dateRange?: DateRange): Promise<Download | undefined> {
		return await this.adminDownload('PTK', dateRange);
	}

	/**
	 * An upload transaction: the order data signed with A006, compressed, encrypted, cut into
	 * segments; initialisation then one transfer per segment. Resolves with the bank's order ID.
	 *
	 * Order data given as a stream is read once into a temporary file of ciphertext (removed
	 * afterwards), so any size is sent holding about one segment. A segment whose answer does not
	 * come is sent again in the same transaction (never a new transaction): the bank takes it, or,
	 * when it offers recovery, says which segments it holds (061101 EBICS_TX_RECOVERY_SYNC) and the
	 * transfer goes on after them. Anything else is EbicsTransferInterrupted, which says whether
	 * the bank may hold the order (the last segment went out).
	 */
	async upload(
		orderType: string,
		params: OrderParams & { kind: 'BTU' | 'standard' | 'file' },
		orderData: Buffer | Readable,
		hooks: UploadHooks = {},
	): Promise<UploadResult> {
		const bank = this.bankKeys(orderType);
		const label =
			params.kind === 'BTU' ? `BTU ${serviceLabel(checkService(params.service))}` : orderType;
		const signing = {
			signatureKey: this.keys.signature.privateKey,
			signer: { partnerId: this.subscriber.partnerId, userId: this.subscriber.userId },
			bankEncryptionKey: bank.encryption.publicKey,
			segmentBytes: this.segmentBytes,
			signatureNamespace: this.dialect.signatureNamespace,
		};
		if (Buffer.isBuffer(orderData)) {
			const prepared = prepareUpload(orderData, signing);
			const segments = orderType === 'SPR' ? [] : prepared.segments;
			const result = await this.sendUpload(
				orderType,
				params,
				label,
				prepared,
				{
					count: segments.length,
					segment: async (number) => segments[number - 1],
				},
				hooks,
			);
			return { ...result, orderDataBytes: orderData.length };
		}
		const dir = await mkdtemp(join(tmpdir(), 'n8n-ebics-upload-'));
		try {
			const file = join(dir, 'order-data');
			const transactionKey = newTransactionKey();
			const spooled = await spoolUpload(orderData, transactionKey, file);
			const envelope = uploadEnvelope(spooled.dataDigest, transactionKey, signing);
			const segments = await fileSegments(file, spooled.encryptedBytes, this.segmentBytes);
			try {
				const result = await this.sendUpload(orderType, params, label, envelope, segments, hooks);
				return { ...result, orderDataBytes: spooled.orderDataBytes };
			} finally {
				await segments.close();
			}
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	}

	private async sendUpload(
		orderType: string,
		params: OrderParams & { kind: 'BTU' | 'standard' | 'file' },
		label: string,
		envelope: UploadEnvelope,
		segments: UploadSegments,
		hooks: UploadHooks = {},
	): Promise<UploadResult> {
		const bank = this.bankKeys(orderType);
		const count = segments.count;
		const init = await this.exchange(
			this.dialect.uploadInitRequest(
				this.subscriber,
				orderType,
				params,
				this.digests(bank),
				{ ...envelope, numSegments: count },
				this.keys.authentication.privateKey,
			),
			`${label} initialisation`,
			false,
			{ changesTheBank: true },
		);
		if (count && !init.transactionId)
			throw new EbicsFormatError(
				`The bank's answer to ${label} initialisation has no transaction ID`,
			);
		const transactionId = init.transactionId ?? '';
		let codes = init.codes;
		let orderId = init.orderId;
		const recovered: string[] = [];
		// The request of the next segment is built while the bank takes the one before it; built
		// as bytes, the requests take turns in two buffers kept for the transfer.
		const buffers: Array<Buffer | undefined> = [undefined, undefined];
		let ahead: { number: number; request: Promise<string | Buffer> } | undefined;
		const build = (wanted: number): Promise<string | Buffer> =>
			this.transferRequest(transactionId, wanted, count, segments, buffers);
		const request = async (wanted: number): Promise<string | Buffer> => {
			const built = ahead;
			ahead = undefined;
			if (built?.number === wanted) return await built.request;
			// Another segment comes first (recovery): the one built ahead is let finish, as it
			// writes into one of the buffers.
			if (built) await built.request.catch(() => undefined);
			return await build(wanted);
		};
		const buildAhead = (wanted: number): void => {
			if (wanted > count) return;
			const built = build(wanted);
			built.catch(() => undefined);
			ahead = { number: wanted, request: built };
		};
		let number = 1;
		while (number <= count) {
			const step = `${label} transfer of segment ${number} of ${count}`;
			if (number === count && hooks.beforeLastSegment) {
				await hooks.beforeLastSegment({ orderId, transactionId });
				hooks = {};
			}
			const outcome = await this.uploadSegment(
				step,
				transactionId,
				number,
				count,
				request,
				buildAhead,
				orderId,
			);
			if (outcome.holds !== undefined) {
				recovered.push(
					`segment ${number} of ${count}: no answer came; the bank holds segments 1 to ${outcome.holds} (061101 EBICS_TX_RECOVERY_SYNC)`,
				);
				number = outcome.holds + 1;
				continue;
			}
			if (outcome.repeated)
				recovered.push(
					`segment ${number} of ${count}: no answer came; sent again in the same transaction`,
				);
			codes = outcome.answer.codes;
			orderId = outcome.answer.orderId ?? orderId;
			number++;
		}
		return {
			orderId,
			transactionId,
			numSegments: count,
			codes,
			...(recovered.length ? { recovered } : {}),
		};
	}

	/**
	 * The signed transfer request of one segment of an upload: bytes (in the buffer of its turn)
	 * when the segments are in a file and requests can go as bytes, else text.
	 */
	private async transferRequest(
		transactionId: string,
		number: number,
		count: number,
		segments: UploadSegments,
		buffers: Array<Buffer | undefined>,
	): Promise<string | Buffer> {
		const last = number === count;
		const key = this.keys.authentication.privateKey;
		const version = this.dialect.version;
		if (this.sendBytes && segments.withSegment) {
			const { head, tail } = uploadTransferEnvelope(
				this.subscriber.hostId,
				transactionId,
				number,
				last,
				key,
				version,
			);
			const turn = number % 2;
			const { request, buffer } = await segments.withSegment(number, (ciphertext) =>
				segmentRequestBytes(head, ciphertext, tail, buffers[turn]),
			);
			buffers[turn] = buffer;
			return request;
		}
		return uploadTransferRequest(
			this.subscriber.hostId,
			transactionId,
			number,
			last,
			await segments.segment(number),
			key,
			version,
		);
	}

	/**
	 * Sends one segment of an upload, again (in the same transaction) while its answer does not
	 * come. Resolves with the answer, or with the last segment the bank holds when it answers a
	 * repetition with 061101 EBICS_TX_RECOVERY_SYNC.
	 */
	private async uploadSegment(
		step: string,
		transactionId: string,
		number: number,
		count: number,
		request: (number: number) => Promise<string | Buffer>,
		buildAhead: (number: number) => void,
		orderId: string | undefined,
	): Promise<{ answer: EbicsResponse; repeated: boolean; holds?: undefined } | { holds: number }> {
		const last = number === count;
		const kind: EbicsRequestKind = { changesTheBank: true, reuseConnection: !last };
		let failure: unknown;
		for (let attempt = 1; attempt <= TRANSFER_TRIES; attempt++) {
			const built = await request(number);
			const sending =
				typeof built === 'string' || !this.sendBytes
					? this.send(built.toString(), step, kind)
					: this.sendBytes(built, step, kind);
			if (attempt === 1) buildAhead(number + 1);
			let answerXml: string | Buffer;
			try {
				answerXml = await sending;
			} catch (error) {
				failure = error;
				continue;
			}
			if (attempt === 1) return { answer: this.read(answerXml, step), repeated: false };
			let refused: unknown;
			try {
				return { answer: this.read(answerXml, step), repeated: true };
			} catch (error) {
				refused = error;
			}
			const holds =
				refused instanceof EbicsReturnCodeError && refused.code === RECOVERY_SYNC
					? recoverySegment(answerXml, this.dialect.namespace)
					: undefined;
			if (holds !== undefined && holds >= number - 1 && holds <= count) return { holds };
			throw new EbicsTransferInterrupted('upload', step, number, count, last, refused, orderId);
		}
		throw new EbicsTransferInterrupted('upload', step, number, count, last, failure, orderId);
	}

	/** BTU: uploads a file for a business service, signed with A006 as `signatureFlag` says. */
	async btu(
		service: BtfService,
		orderData: Buffer | Readable,
		signatureFlag: SignatureFlag = 'authorise',
		options: UploadOptions = {},
	): Promise<UploadResult> {
		return await this.upload(
			'BTU',
			{ kind: 'BTU', service, signatureFlag, fileName: options.fileName },
			orderData,
			options,
		);
	}

	/** SPR: suspends the subscriber at the bank (the keys stop working until the bank re-activates). */
	async spr(): Promise<KeyManagementResult> {
		const result = await this.upload('SPR', { kind: 'standard' }, Buffer.from(' '));
		return { orderId: result.orderId, codes: result.codes };
	}
}

export type { AvailableDownload, ContainerFile, CustomerInfo, HevVersion, ReturnCodes };
