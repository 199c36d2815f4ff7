import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { arriveFiles } from './bankfiles';
import { handleEbicsAdmin } from './ebics';
import { isRecord, readBody } from './http';
import type { EventSpec, FaultSpec, PutFileOptions, SandboxBank, SandboxSwitches } from './types';

class AdminError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

function reply(res: ServerResponse, status: number, value: unknown): void {
	const body = Buffer.from(JSON.stringify(value, null, '\t'), 'utf8');
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': body.length,
		'cache-control': 'no-store',
	});
	res.end(body);
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
	const raw = await readBody(req, 32 * 1024 * 1024);
	if (raw.length === 0) return {};
	try {
		return JSON.parse(raw.toString('utf8'));
	} catch {
		throw new AdminError(400, 'Body must be JSON.');
	}
}

type BooleanSwitch = Exclude<keyof SandboxSwitches, 'linkStyle'>;
const BOOLEAN_SWITCHES: readonly BooleanSwitch[] = [
	'signResponses',
	'compressDownloads',
	'requireSignedRequests',
];

function isBooleanSwitch(key: string): key is BooleanSwitch {
	return (BOOLEAN_SWITCHES as readonly string[]).includes(key);
}

/**
 * Admin API under /__sandbox (JSON, no authentication, not subject to faults):
 * GET stats, POST reset, GET/POST/DELETE faults, GET/POST tokens, POST tokens/expire, GET/POST events,
 * GET/POST mock, GET/POST switches, POST trades, GET/POST files, GET credentials,
 * POST enrolment (a credential with a fresh PIN), GET enrolment, POST enrolment/clock,
 * GET/POST enrolment/signing (how the certificate services sign), POST enrolment/danske.
 */
export async function handleAdmin(
	req: IncomingMessage,
	res: ServerResponse,
	subPath: string,
	url: URL,
	bank: SandboxBank,
): Promise<void> {
	const method = req.method ?? 'GET';
	const route = `${method} ${subPath.replace(/\/+$/, '') || '/'}`;
	if (/^\w+ \/ebics(\/|$)/.test(route)) {
		await handleEbicsAdmin(req, res, route, bank.ebics, (subscriber) => bank.ebicsClient(subscriber.partnerId, subscriber.userId));
		return;
	}
	try {
		switch (route) {
			case 'GET /':
				reply(res, 200, {
					urls: bank.urls,
					endpoints: [
						'GET /__sandbox/stats',
						'POST /__sandbox/reset {all?: boolean}',
						'GET /__sandbox/faults',
						'POST /__sandbox/faults FaultSpec | FaultSpec[]',
						'DELETE /__sandbox/faults[?id=N]',
						'POST /__sandbox/tokens/expire',
						'GET|POST /__sandbox/tokens {maxUses?: number (0: off)}',
						'GET /__sandbox/events',
						'POST /__sandbox/events {count} | {events: EventSpec[]}',
						'GET|POST /__sandbox/mock {seed?, errorRate?}',
						'GET|POST /__sandbox/switches {linkStyle?, signResponses?, compressDownloads?, requireSignedRequests?}',
						'POST /__sandbox/trades {count}',
						'GET|POST /__sandbox/files {fileType, content | contentBase64 | contentPath, userFilename?, status?}',
						'POST /__sandbox/files/arrive {count?, fileType?: XT | XP}',
						'POST /__sandbox/sftp/arrive {name, content, sealed?} (a file in the SFTP incoming folder, encrypted to the customer and signed by the bank unless sealed is false)',
						'GET /__sandbox/sftp (the files in the SFTP folders)',
						'GET /__sandbox/credentials',
						'POST /__sandbox/enrolment {bank} (a credential with a fresh PIN)',
						'GET /__sandbox/enrolment (records of the certificate services)',
						'POST /__sandbox/enrolment/clock {offsetDays?, validityDays?}',
						'GET|POST /__sandbox/enrolment/signing {nordea?, op?, samlink?: sha1 | sha256 (op: or unsigned), danske?: sha1 | sha256}',
						'POST /__sandbox/enrolment/danske {status: good | expires_soon | expired | revoked | null}',
						'GET /__sandbox/ebics/subscribers',
						'POST /__sandbox/ebics/subscribers {partnerId, userId, name?, downloadServices?, uploadServices?, authorisationLevel?}',
						'POST /__sandbox/ebics/subscribers/{partnerId}/{userId}/activate | suspend',
						'POST /__sandbox/ebics/files {partnerId, userId, serviceName, msgName, name?, content | contentBase64, date?}',
						'GET|POST /__sandbox/ebics/switches {acceptKeyDigests?, segmentBytes?, validateSchema?, timestampToleranceSeconds?, offerH004?, recovery?, base64PerSegment?}',
						'POST /__sandbox/ebics/faults {kind: tamperSignature | unsignedResponse | damageSegment | truncateZip | headerOkBodyError}',
						'GET /__sandbox/ebics/records',
						'POST /__sandbox/ebics/reset',
					],
				});
				return;
			case 'GET /stats':
				reply(res, 200, bank.stats);
				return;
			case 'POST /reset': {
				const body = await jsonBody(req);
				if (isRecord(body) && body.all === true) bank.resetAll();
				else bank.resetStats();
				reply(res, 200, { ok: true });
				return;
			}
			case 'GET /faults':
				reply(res, 200, bank.faults.list());
				return;
			case 'POST /faults': {
				const body = await jsonBody(req);
				try {
					reply(res, 200, { ids: bank.faults.add(body as FaultSpec | FaultSpec[]) });
				} catch (error) {
					throw new AdminError(400, (error as Error).message);
				}
				return;
			}
			case 'DELETE /faults': {
				const id = url.searchParams.get('id');
				bank.faults.clear(id === null ? undefined : Number(id));
				reply(res, 200, { ok: true });
				return;
			}
			case 'GET /tokens':
				reply(res, 200, { maxUses: bank.tokens.maxUses ?? 0, active: bank.tokens.activeCount() });
				return;
			case 'POST /tokens': {
				const body = await jsonBody(req);
				const maxUses = isRecord(body) ? body.maxUses : undefined;
				if (typeof maxUses !== 'number' || !Number.isInteger(maxUses) || maxUses < 0)
					throw new AdminError(400, 'Send {maxUses: n} with n a whole number >= 0 (0 turns it off).');
				bank.tokens.maxUses = maxUses || undefined;
				reply(res, 200, { maxUses });
				return;
			}
			case 'POST /tokens/expire':
				bank.tokens.expireAll();
				reply(res, 200, { ok: true });
				return;
			case 'GET /events':
				reply(res, 200, { pending: bank.events.pending() });
				return;
			case 'POST /events': {
				const body = await jsonBody(req);
				let spec: number | Array<Partial<EventSpec>>;
				if (typeof body === 'number') spec = body;
				else if (Array.isArray(body)) spec = body as Array<Partial<EventSpec>>;
				else if (isRecord(body) && Array.isArray(body.events))
					spec = body.events as Array<Partial<EventSpec>>;
				else if (isRecord(body) && typeof body.count === 'number') spec = body.count;
				else throw new AdminError(400, 'Send {count: n} or {events: [...]}.');
				reply(res, 200, { jtis: bank.events.enqueue(spec) });
				return;
			}
			case 'GET /mock':
				reply(res, 200, { seed: bank.mock.seed, errorRate: bank.mock.errorRate });
				return;
			case 'POST /mock': {
				const body = await jsonBody(req);
				if (!isRecord(body)) throw new AdminError(400, 'Send {seed?, errorRate?}.');
				try {
					bank.mock.configure({
						seed: body.seed === undefined ? undefined : Number(body.seed),
						errorRate: body.errorRate === undefined ? undefined : Number(body.errorRate),
					});
				} catch (error) {
					throw new AdminError(400, (error as Error).message);
				}
				reply(res, 200, { seed: bank.mock.seed, errorRate: bank.mock.errorRate });
				return;
			}
			case 'GET /switches':
				reply(res, 200, bank.switches);
				return;
			case 'POST /switches': {
				const body = await jsonBody(req);
				if (!isRecord(body)) throw new AdminError(400, 'Send an object of switches.');
				for (const [key, value] of Object.entries(body)) {
					if (key === 'linkStyle') {
						if (value !== 'relative' && value !== 'absolute' && value !== 'foreign') {
							throw new AdminError(400, 'linkStyle must be relative, absolute or foreign.');
						}
						bank.switches.linkStyle = value;
					} else if (isBooleanSwitch(key)) {
						if (typeof value !== 'boolean') throw new AdminError(400, `${key} must be a boolean.`);
						bank.switches[key] = value;
					} else {
						throw new AdminError(400, `Unknown switch ${key}.`);
					}
				}
				reply(res, 200, bank.switches);
				return;
			}
			case 'POST /trades': {
				const body = await jsonBody(req);
				if (!isRecord(body) || typeof body.count !== 'number')
					throw new AdminError(400, 'Send {count: n}.');
				bank.trades.setCount(body.count);
				reply(res, 200, { count: bank.trades.all().length });
				return;
			}
			case 'GET /files':
				reply(res, 200, bank.files.list());
				return;
			case 'POST /files': {
				const body = await jsonBody(req);
				if (!isRecord(body) || typeof body.fileType !== 'string')
					throw new AdminError(400, 'fileType is required.');
				let content: Buffer | { path: string };
				if (typeof body.contentBase64 === 'string')
					content = Buffer.from(body.contentBase64, 'base64');
				else if (typeof body.content === 'string') content = Buffer.from(body.content, 'utf8');
				else if (typeof body.contentPath === 'string') {
					// A large file already on this machine, served from where it is (left in place).
					if (!existsSync(body.contentPath)) throw new AdminError(400, 'contentPath: no such file.');
					content = { path: body.contentPath };
				} else throw new AdminError(400, 'content, contentBase64 or contentPath is required.');
				const options: PutFileOptions = {
					fileType: body.fileType,
					content,
					userFilename: typeof body.userFilename === 'string' ? body.userFilename : undefined,
					status: typeof body.status === 'string' ? body.status : undefined,
				};
				reply(res, 200, bank.files.put(options));
				return;
			}
			case 'POST /files/arrive': {
				const body = await jsonBody(req);
				const count = isRecord(body) && body.count !== undefined ? Number(body.count) : 1;
				if (!Number.isInteger(count) || count < 1 || count > 1000) throw new AdminError(400, 'count must be a whole number from 1 to 1000.');
				const fileType = isRecord(body) && typeof body.fileType === 'string' ? body.fileType : 'XT';
				if (!/^(XT|XP)$/i.test(fileType)) throw new AdminError(400, 'fileType must be XT or XP.');
				const { customerId } = bank.clients.fileService;
				reply(res, 200, {
					files: arriveFiles(bank.files, { count, fileType, customerId, customerName: 'Sandbox Customer Oy', now: new Date() }),
				});
				return;
			}
			case 'POST /sftp/arrive': {
				const body = await jsonBody(req);
				if (!isRecord(body) || typeof body.name !== 'string' || typeof body.content !== 'string' || !/^[\w.-]+$/.test(body.name))
					throw new AdminError(400, 'name (letters, digits, . _ -) and content (text) are required.');
				if (body.sealed === false) bank.sftp.arrive(body.name, body.content);
				else await bank.sftp.arriveSealed(body.name, body.content);
				reply(res, 200, { name: body.name, incoming: bank.sftp.sent(bank.sftp.folders.incoming) });
				return;
			}
			case 'GET /sftp': {
				const { outgoing, incoming, archive } = bank.sftp.folders;
				reply(res, 200, { outgoing: bank.sftp.sent(outgoing), incoming: bank.sftp.sent(incoming), archive: bank.sftp.sent(archive) });
				return;
			}
			case 'GET /credentials':
				reply(res, 200, { credentials: bank.credentialValues(), events: bank.eventSettings() });
				return;
			case 'POST /enrolment': {
				// A File Service credential that enrols from a fresh one-time PIN with this bank profile.
				const body = await jsonBody(req);
				const profile = isRecord(body) && typeof body.bank === 'string' ? body.bank : 'op';
				if (profile === 'danske') {
					// Danske Bank: a credential that enrols through the PKIFactoryService with a fresh PIN.
					reply(res, 200, bank.danskeCredential({ pin: 'new' }));
					return;
				}
				if (!['nordea', 'op', 'samlink', 'aktia', 'pop', 'saastopankki', 'handelsbanken'].includes(profile)) {
					throw new AdminError(400, 'bank must be nordea, op, samlink, aktia, pop, saastopankki, handelsbanken or danske.');
				}
				reply(res, 200, bank.enrolmentCredential(profile as Parameters<SandboxBank['enrolmentCredential']>[0]));
				return;
			}
			case 'GET /enrolment':
				reply(res, 200, {
					records: bank.certService.records,
					danske: bank.danske.records,
					clockOffsetMs: bank.certService.clockOffsetMs,
					validityDays: bank.certService.validityDays,
				});
				return;
			case 'GET /enrolment/signing':
				reply(res, 200, { ...bank.certService.answerAlgorithms, danske: bank.danske.answerAlgorithm });
				return;
			case 'POST /enrolment/signing': {
				// How the certificate services sign their answers: {nordea?, op?, samlink?: sha1 | sha256 (op: or unsigned), danske?: sha1 | sha256}.
				const body = await jsonBody(req);
				if (!isRecord(body)) throw new AdminError(400, 'Send {nordea?, op?, samlink?, danske?}.');
				const { danske, ...services } = body;
				if (danske !== undefined && danske !== 'sha1' && danske !== 'sha256') throw new AdminError(400, 'danske: sha1 or sha256.');
				try {
					bank.certService.setAnswerAlgorithms(services);
				} catch (error) {
					throw new AdminError(400, (error as Error).message);
				}
				if (danske !== undefined) bank.danske.answerAlgorithm = danske;
				reply(res, 200, { ...bank.certService.answerAlgorithms, danske: bank.danske.answerAlgorithm });
				return;
			}
			case 'POST /enrolment/danske': {
				// Danske Bank's CertificateStatus: {status: good | expires_soon | expired | revoked} reports it for every certificate, null as issued.
				const body = await jsonBody(req);
				const status = isRecord(body) ? body.status : undefined;
				if (status === null) delete bank.danske.switches.status;
				else if (status === 'good' || status === 'expires_soon' || status === 'expired' || status === 'revoked') bank.danske.switches.status = status;
				else throw new AdminError(400, 'status: good, expires_soon, expired, revoked or null.');
				reply(res, 200, { status: bank.danske.switches.status ?? null });
				return;
			}
			case 'POST /enrolment/clock': {
				// The certificate services' clock: {offsetDays} shifts it, {validityDays} sets certificate lifetimes.
				const body = await jsonBody(req);
				if (isRecord(body) && typeof body.offsetDays === 'number') bank.certService.clockOffsetMs = body.offsetDays * 24 * 60 * 60 * 1000;
				if (isRecord(body) && typeof body.validityDays === 'number') bank.certService.validityDays = body.validityDays;
				reply(res, 200, { clockOffsetMs: bank.certService.clockOffsetMs, validityDays: bank.certService.validityDays });
				return;
			}
			default:
				throw new AdminError(404, `No admin route ${route}.`);
		}
	} catch (error) {
		if (error instanceof AdminError) reply(res, error.status, { error: error.message });
		else reply(res, 500, { error: (error as Error).message });
	}
}
