/**
 * The sandbox EBICS bank on the sandbox server: POST {base}/ebics takes H005 (EBICS 3.0), H004
 * (EBICS 2.5, for independent clients) and HEV requests; the admin API under
 * {base}/__sandbox/ebics manages subscribers (activate, suspend), their files and faults.
 */
import { createHash, randomFillSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { formatHash, H000_NS, H005_NS, parseKeepingOrderDataOut, publicKeyDigest, restoreOrderData, type EbicsSubscriberKeys } from '../../../nodes/shared/ebics';
import { isRecord, readBody, send, type RequestContext } from '../http';
import { EBICS_PATH, requestConnection, SandboxEbicsBank, STATE_TEXT, type EbicsAnswer, type EbicsFaultKind, type EbicsSwitches, type SandboxSubscriber } from './bank';
import { H004_NS, handleH004 } from './h004';
import { armHold, holdState, passHolds, releaseHolds } from './holds';
import { compressedOf, DropAnswer, TRANSFER_FAULTS } from './transfers';

export { EBICS_PATH, SANDBOX_HOST_ID, SandboxEbicsBank, STATE_TEXT } from './bank';
export type { EbicsFaultKind, EbicsRecord, EbicsSwitches, SandboxSubscriber, SubscriberState } from './bank';
export { loadOrCreateEbicsKeys } from './keys';
export { armHold, releaseHolds, whenHeld } from './holds';

/** Largest request body the EBICS URL reads: a 1 MB segment and its envelope. */
const BODY_LIMIT = 4 * 1024 * 1024;

/** The number of each connection, in the order the bank accepted them. */
const connections = new WeakMap<object, number>();
let connectionCount = 0;

/** Answers one POST to the EBICS URL; what the bank records of it names its connection. */
export async function handleEbics(ctx: RequestContext, bank: SandboxEbicsBank): Promise<void> {
	let connection = connections.get(ctx.req.socket);
	if (connection === undefined) connections.set(ctx.req.socket, (connection = ++connectionCount));
	await requestConnection.run(connection, async () => await answerEbics(ctx, bank));
}

async function answerEbics(ctx: RequestContext, bank: SandboxEbicsBank): Promise<void> {
	if (ctx.req.method !== 'POST') {
		send(ctx, 405, { 'content-type': 'text/plain', allow: 'POST' }, 'EBICS requests are POSTed as text/xml.\n');
		return;
	}
	const xml = await readBody(ctx.req, BODY_LIMIT);
	let doc: Document | undefined;
	try {
		// A large segment of an upload stays bytes, out of the DOM (as a bank reads it).
		const parsed = parseKeepingOrderDataOut(xml, 'The request');
		if (!bank.keepOrderDataAside(parsed)) restoreOrderData(parsed);
		doc = parsed.doc;
	} catch {
		doc = undefined;
	}
	if (!(await passHolds(bank, doc))) {
		ctx.req.socket.destroy(); // dropped by a test: the bank never got it
		return;
	}
	let answer: EbicsAnswer;
	const ns = doc?.documentElement.namespaceURI;
	if (!doc || (ns !== H005_NS && ns !== H000_NS && ns !== H004_NS)) {
		bank.record({ protocol: '?', root: doc?.documentElement.localName ?? '(not XML)', technical: '091010', business: '000000' });
		answer = bank.response({ phase: 'Initialisation', technical: '091010', business: '000000', text: doc ? 'Not an EBICS request' : 'The request is not well-formed XML (or declares a DOCTYPE)' });
	} else if (ns === H004_NS) answer = await handleH004(bank, doc, xml);
	else {
		try {
			answer = await bank.handleH005(doc, xml);
		} catch (error) {
			if (!(error instanceof DropAnswer)) throw error;
			ctx.req.socket.destroy();
			return;
		}
	}
	send(ctx, 200, { 'content-type': 'text/xml; charset=UTF-8' }, answer);
}

/** What a client of a sandbox subscriber needs: the URL, IDs, the bank's letter hashes (and keys for READY1). */
export interface EbicsClientSettings {
	url: string;
	hostId: string;
	partnerId: string;
	userId: string;
	state: string;
	bankHashes: { authentication: string; encryption: string };
	/** Only for the subscribers the sandbox initialised itself (PARTNER2/READY1, PARTNER3/SIGNER1 and SIGNER2): their keys, to import. */
	subscriberKeys?: EbicsSubscriberKeys;
}

export function clientSettings(bank: SandboxEbicsBank, baseUrl: string, subscriber: SandboxSubscriber, readyKeys: EbicsSubscriberKeys, signerKeys: EbicsSubscriberKeys[] = []): EbicsClientSettings {
	const signer = subscriber.partnerId === 'PARTNER3' ? /^SIGNER([12])$/.exec(subscriber.userId) : null;
	return {
		url: `${baseUrl}${EBICS_PATH}`,
		hostId: bank.hostId,
		partnerId: subscriber.partnerId,
		userId: subscriber.userId,
		state: STATE_TEXT[subscriber.state],
		bankHashes: bank.letterHashes(),
		subscriberKeys: subscriber.partnerId === 'PARTNER2' && subscriber.userId === 'READY1' ? readyKeys : signer ? signerKeys[Number(signer[1]) - 1] : undefined,
	};
}

/**
 * Values of a "Corporate Banking EBICS API" credential for a sandbox subscriber: the URL, the IDs,
 * the bank's hashes as its letter prints them and the sandbox CA. For PARTNER2/READY1 and the
 * signers PARTNER3/SIGNER1 and SIGNER2 (active already) the keys are imported; any other subscriber gets keys generated in n8n, so the
 * credential's test sends INI and HIA.
 */
export function ebicsCredentialValues(settings: EbicsClientSettings, caPem: string): Record<string, unknown> {
	const keys = settings.subscriberKeys;
	return {
		url: settings.url,
		hostId: settings.hostId,
		partnerId: settings.partnerId,
		userId: settings.userId,
		bankAuthenticationHash: settings.bankHashes.authentication,
		bankEncryptionHash: settings.bankHashes.encryption,
		subscriberName: 'Sandbox Customer GmbH',
		bankName: 'Sandbox Bank',
		caCertificate: caPem,
		...(keys
			? {
					keySource: 'import',
					alreadyInitialised: true,
					signatureCertificate: keys.signature.certificatePem,
					signaturePrivateKey: keys.signature.privateKeyPem,
					authenticationCertificate: keys.authentication.certificatePem,
					authenticationPrivateKey: keys.authentication.privateKeyPem,
					encryptionCertificate: keys.encryption.certificatePem,
					encryptionPrivateKey: keys.encryption.privateKeyPem,
				}
			: { keySource: 'generate' }),
	};
}

function reply(res: ServerResponse, status: number, value: unknown): void {
	const body = Buffer.from(JSON.stringify(value, null, '\t'));
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length, 'cache-control': 'no-store' });
	res.end(body);
}

function describe(subscriber: SandboxSubscriber): Record<string, unknown> {
	return {
		partnerId: subscriber.partnerId,
		userId: subscriber.userId,
		name: subscriber.name,
		state: subscriber.state,
		next: STATE_TEXT[subscriber.state],
		protocol: subscriber.protocol ?? null,
		// The hashes of the keys the bank holds now, in the EBICS 2.5 form (exponent and modulus): public values.
		keyHashes: Object.fromEntries((['signature', 'authentication', 'encryption'] as const).map((key) => [key, subscriber.keys[key] ? formatHash(publicKeyDigest(subscriber.keys[key].publicKey)) : null])),
		// The SHA-256 of the certificates INI and HIA carried (what EBICS 3.0 letters print), as hex byte pairs on one line.
		certificateHashes: Object.fromEntries((['signature', 'authentication', 'encryption'] as const).map((key) => {
			const der = subscriber.keys[key]?.certificateDer;
			return [key, der ? (createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g) ?? []).join(' ') : null];
		})),
		downloadServices: subscriber.downloadServices,
		uploadServices: subscriber.uploadServices,
		authorisationLevel: subscriber.authorisationLevel,
		files: subscriber.files.map((f) => ({ id: f.id, serviceName: f.serviceName, msgName: f.msgName, name: f.name, date: f.date, delivered: f.delivered, bytes: f.content.length })),
		uploads: subscriber.uploads.map((u) => ({ orderId: u.orderId, orderType: u.orderType, service: u.service ?? null, fileName: u.fileName ?? null, bytes: u.bytes ?? u.data.length, sha256: u.sha256 ?? null, signatureFlag: u.signatureFlag, receivedAt: u.receivedAt })),
	};
}

const FAULTS: EbicsFaultKind[] = ['tamperSignature', 'unsignedResponse', 'damageSegment', 'truncateZip', 'headerOkBodyError', ...TRANSFER_FAULTS];

/**
 * Admin routes under /__sandbox/ebics (JSON): GET subscribers (with the bank's letter hashes,
 * bankHashes for EBICS 3.0 and bankHashesH004 for 2.5); POST subscribers {partnerId, userId,
 * name?, downloadServices?, uploadServices?, authorisationLevel?}; POST
 * subscribers/{partnerId}/{userId}/activate | suspend; POST files {partnerId, userId, serviceName,
 * msgName, name, content | contentBase64, date?}; GET|POST switches; POST faults {kind} ;
 * GET records; GET veu (the distributed signature's orders); GET|POST holds, POST holds/release
 * (holds.ts); POST reset.
 */
export async function handleEbicsAdmin(req: IncomingMessage, res: ServerResponse, route: string, bank: SandboxEbicsBank, settings: (s: SandboxSubscriber) => EbicsClientSettings): Promise<void> {
	const body = async (): Promise<Record<string, unknown>> => {
		const raw = await readBody(req, 32 * 1024 * 1024);
		if (!raw.length) return {};
		const parsed: unknown = JSON.parse(raw.toString('utf8'));
		if (!isRecord(parsed)) throw new Error('Send a JSON object.');
		return parsed;
	};
	try {
		const action = /^POST \/ebics\/subscribers\/([^/]+)\/([^/]+)\/(activate|suspend)$/.exec(route);
		if (action) {
			const [, partnerId, userId, verb] = action;
			const subscriber = verb === 'activate' ? bank.activate(decodeURIComponent(partnerId), decodeURIComponent(userId)) : bank.suspend(decodeURIComponent(partnerId), decodeURIComponent(userId));
			reply(res, 200, describe(subscriber));
			return;
		}
		switch (route) {
			case 'GET /ebics':
			case 'GET /ebics/subscribers':
				reply(res, 200, { hostId: bank.hostId, bankHashes: bank.letterHashes(), bankHashesH004: bank.letterHashes('H004'), subscribers: [...bank.subscribers.values()].map((s) => ({ ...describe(s), client: { ...settings(s), subscriberKeys: undefined } })) });
				return;
			case 'POST /ebics/subscribers': {
				const input = await body();
				if (typeof input.partnerId !== 'string' || typeof input.userId !== 'string') throw new Error('partnerId and userId are required.');
				const subscriber = bank.addSubscriber({
					partnerId: input.partnerId,
					userId: input.userId,
					name: typeof input.name === 'string' ? input.name : undefined,
					downloadServices: Array.isArray(input.downloadServices) ? (input.downloadServices as string[]) : undefined,
					uploadServices: Array.isArray(input.uploadServices) ? (input.uploadServices as string[]) : undefined,
					authorisationLevel: typeof input.authorisationLevel === 'string' ? (input.authorisationLevel as SandboxSubscriber['authorisationLevel']) : undefined,
				});
				reply(res, 200, describe(subscriber));
				return;
			}
			case 'POST /ebics/files': {
				const input = await body();
				const content = typeof input.contentBase64 === 'string' ? Buffer.from(input.contentBase64, 'base64') : typeof input.content === 'string' ? Buffer.from(input.content) : undefined;
				if (!content || typeof input.serviceName !== 'string' || typeof input.msgName !== 'string') throw new Error('serviceName, msgName and content (or contentBase64) are required.');
				const file = bank.addFile(String(input.partnerId), String(input.userId), { serviceName: input.serviceName, msgName: input.msgName, name: typeof input.name === 'string' ? input.name : `${input.msgName}.xml`, content, date: typeof input.date === 'string' ? input.date : undefined });
				reply(res, 200, { id: file.id });
				return;
			}
			case 'POST /ebics/files/generate': {
				// A large file of random bytes (any size, for benchmarks): its SHA-256 in the answer.
				const input = await body();
				const bytes = Number(input.bytes);
				if (!Number.isInteger(bytes) || bytes < 1 || bytes > 2 ** 31 - 1 || typeof input.serviceName !== 'string' || typeof input.msgName !== 'string') throw new Error('serviceName, msgName and bytes (1 to 2 GiB) are required.');
				const content = Buffer.allocUnsafe(bytes);
				for (let at = 0; at < bytes; at += 65536) randomFillSync(content, at, Math.min(65536, bytes - at));
				compressedOf(content);
				const file = bank.addFile(String(input.partnerId), String(input.userId), { serviceName: input.serviceName, msgName: input.msgName, name: typeof input.name === 'string' ? input.name : `${input.msgName}.dat`, content });
				reply(res, 200, { id: file.id, bytes, sha256: createHash('sha256').update(content).digest('hex') });
				return;
			}
			case 'GET /ebics/switches':
				reply(res, 200, bank.switches);
				return;
			case 'POST /ebics/switches': {
				const input = await body();
				for (const [key, value] of Object.entries(input)) {
					if (!(key in bank.switches)) throw new Error(`Unknown switch ${key}.`);
					if (typeof value !== typeof bank.switches[key as keyof EbicsSwitches]) throw new Error(`${key} must be a ${typeof bank.switches[key as keyof EbicsSwitches]}.`);
					(bank.switches as unknown as Record<string, unknown>)[key] = value;
				}
				reply(res, 200, bank.switches);
				return;
			}
			case 'POST /ebics/faults': {
				const input = await body();
				if (!FAULTS.includes(input.kind as EbicsFaultKind)) throw new Error(`kind must be one of ${FAULTS.join(', ')}.`);
				bank.faults.push(input.kind as EbicsFaultKind);
				reply(res, 200, { faults: bank.faults });
				return;
			}
			case 'GET /ebics/veu':
				reply(res, 200, bank.veu.orders.map((o) => ({ orderId: o.orderId, partnerId: o.partnerId, service: o.service, state: o.state, dataDigest: o.dataDigest.toString('hex').toUpperCase(), required: o.required, signatures: o.signatures, originator: `${o.originator.partnerId}/${o.originator.userId}`, bytes: o.data.length })));
				return;
			case 'GET /ebics/records':
				reply(res, 200, bank.records);
				return;
			case 'GET /ebics/holds':
				reply(res, 200, holdState(bank));
				return;
			case 'POST /ebics/holds':
				armHold(bank, (await body()).step);
				reply(res, 200, holdState(bank));
				return;
			case 'POST /ebics/holds/release':
				releaseHolds(bank, (await body()).process === true);
				reply(res, 200, holdState(bank));
				return;
			case 'POST /ebics/reset':
				releaseHolds(bank, false);
				bank.reset();
				reply(res, 200, { ok: true });
				return;
			default:
				reply(res, 404, { error: `No admin route ${route}.` });
		}
	} catch (error) {
		reply(res, 400, { error: (error as Error).message });
	}
}
