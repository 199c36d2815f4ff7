/**
 * Faults from the sandbox bank's switches, for every node: an expired token (where the node uses
 * one), 5xx answers, slow answers and dropped connections. The outcome of each is either success
 * with every result exactly once, or a clear error with nothing lost. "Nothing lost, nothing twice"
 * is read from the sandbox's own stats and state: files still on the bank, events still
 * unacknowledged, trades executed once at most.
 */
import { DateTime } from 'luxon';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { sandboxCredentials, TRADE } from '../../helpers/bank';
import type { FaultSpec, SandboxBank } from '../../sandbox';
import type { ActionOptions, NodeKind, Outcome } from './run';
import { requestsIn, runAction, runTrigger } from './run';

export type Fault = 'token expiry' | '5xx' | 'slow' | 'dropped';

export interface FaultCase {
	node: NodeKind;
	fault: Fault;
	name: string;
	outcome: 'success, exactly once' | 'clear error, nothing lost';
	run(bank: SandboxBank): Promise<Outcome>;
	/** For errors: what the user reads. */
	message?: RegExp;
	/** Nothing lost and nothing twice, from the sandbox's stats and state. */
	verify(bank: SandboxBank, outcome: Outcome): void;
}

const today = () => DateTime.utc().toISODate()!;
const daysAgo = (n: number) => DateTime.utc().minus({ days: n }).toISODate()!;
const ids = (items: INodeExecutionData[] | undefined, key = 'tradeId') => (items ?? []).map((i) => i.json[key] as string);

/** History of the last 120 days: five pages of 100. */
const HISTORY = { operation: 'getMany', startDate: daysAgo(120), returnAll: true };
const expectedHistory = (bank: SandboxBank) =>
	bank.trades
		.all()
		.filter((t) => t.tradeTime.slice(0, 10) >= HISTORY.startDate && t.tradeTime.slice(0, 10) <= today())
		.map((t) => t.tradeId);

function reportCase(fault: Fault, name: string, arm: (bank: SandboxBank) => void, check: (bank: SandboxBank) => void = () => undefined): FaultCase {
	return {
		node: 'fxTradeReport',
		fault,
		name,
		outcome: 'success, exactly once',
		run: async (bank) => {
			arm(bank);
			return await runAction(bank, 'fxTradeReport', { parameters: HISTORY });
		},
		verify: (bank, outcome) => {
			expect(outcome.error).toBeUndefined();
			const got = ids(outcome.items[0]);
			expect(got.length).toBeGreaterThan(300);
			expect(got).toEqual(expectedHistory(bank));
			check(bank);
		},
	};
}

const executionRequests = (bank: SandboxBank) => requestsIn(bank, 'execution');

/**
 * A slow answer without a clock: each of `count` matching requests is held at the bank and
 * released once it is seen waiting there, so the node has really waited for it.
 */
function slow(bank: SandboxBank, spec: Omit<FaultSpec, 'kind' | 'count'>, count = 1): void {
	bank.faults.add({ ...spec, kind: 'hold', count });
	const next = (left: number): void => {
		if (left > 0)
			void bank.faults.held().then((held) => {
				held.release();
				next(left - 1);
			});
	};
	next(count);
}

/** An answer slower than the node's timeout: held at the bank until the node gives up on it. */
const neverAnswered = (bank: SandboxBank, spec: Omit<FaultSpec, 'kind'>): void => void bank.faults.add({ ...spec, kind: 'hold' });

function outcomeUnknown(fault: Fault, name: string, arm: (bank: SandboxBank) => void, executed: 0 | 1, extra: IDataObject = {}): FaultCase {
	return {
		node: 'fxTradeExecution',
		fault,
		name,
		outcome: 'clear error, nothing lost',
		run: async (bank) => {
			arm(bank);
			// The node sends at most once, within its run: when the run has ended, every request it
			// made has reached the bank (a held one is reported through the hold).
			return await runAction(bank, 'fxTradeExecution', { parameters: { ...TRADE, ...extra } });
		},
		message: /^Execute trade: outcome unknown/,
		verify: (bank, outcome) => {
			expect(outcome.error?.description).toMatch(/The trade may have been executed\. Check the trade report .* it was not sent again automatically\.\nRequest sent: \{"counterpart":"DEMOCP1"/s);
			expect(executionRequests(bank)).toBe(1);
			expect(bank.stats.executions).toBe(executed);
		},
	};
}

function mockCase(fault: Fault, name: string, arm: (bank: SandboxBank) => void, attempts: number): FaultCase {
	return {
		node: 'bankMockService',
		fault,
		name,
		outcome: 'success, exactly once',
		run: async (bank) => {
			bank.mock.configure({ errorRate: 0 });
			arm(bank);
			return await runAction(bank, 'bankMockService', {
				parameters: { api: 'report', operation: 'getOpen', returnAll: true, errorHandling: { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 } },
			});
		},
		verify: (bank, outcome) => {
			expect(outcome.error).toBeUndefined();
			expect(outcome.items[0].length).toBeGreaterThan(0);
			expect(new Set(ids(outcome.items[0])).size).toBe(outcome.items[0].length);
			expect(outcome.items[0].every((i) => i.json.mockAttempts === attempts)).toBe(true);
			expect(requestsIn(bank, 'mock')).toBe(attempts);
		},
	};
}

const newFiles = (bank: SandboxBank) =>
	bank.files
		.list()
		.filter((d) => d.status === 'NEW')
		.map((d) => d.fileReference);
const uploads = (bank: SandboxBank) => bank.files.list().filter((d) => d.direction === 'upload');
const soapCalls = (bank: SandboxBank, operation: string) => bank.stats.soapCalls.filter((c) => c.operation === operation).length;

function fileToUpload(): INodeExecutionData[] {
	const content = Buffer.from('<?xml version="1.0"?><Payments reference="reliability-upload"/>', 'utf8');
	return [{ json: {}, binary: { data: { data: content.toString('base64'), mimeType: 'application/xml', fileName: 'payments.xml' } } }];
}

/** The first NEW statement and what the bank holds for it. */
function statement(bank: SandboxBank) {
	const descriptor = bank.files.list().find((d) => d.fileType === 'XT' && d.status === 'NEW')!;
	return { reference: descriptor.fileReference, size: bank.files.get(descriptor.fileReference)!.content.length };
}

function downloadCase(fault: Fault, name: string, arm: (bank: SandboxBank) => void, soapRequests: number): FaultCase {
	let file = { reference: '', size: 0 };
	return {
		node: 'corporateFileService',
		fault,
		name,
		outcome: 'success, exactly once',
		run: async (bank) => {
			file = statement(bank);
			arm(bank);
			return await runAction(bank, 'corporateFileService', { parameters: { operation: 'downloadFile', fileReference: file.reference } });
		},
		verify: (bank, outcome) => {
			expect(outcome.error).toBeUndefined();
			expect(outcome.items[0].map((i) => [i.json.fileReference, i.json.fileSize, !!i.binary?.data])).toEqual([[file.reference, file.size, true]]);
			expect(requestsIn(bank, 'soap')).toBe(soapRequests);
			// The file is still on the bank, marked downloaded.
			expect(bank.files.list().find((d) => d.fileReference === file.reference)?.status).toBe('DLD');
		},
	};
}

const upload = (): ActionOptions => ({ parameters: { operation: 'uploadFile', fileType: 'XL' }, inputItems: fileToUpload() });

/** A file-service request the bank may have acted on, its answer lost: an unknown outcome, sent once only. */
function sentOnce(fault: Fault, name: string, spec: FaultSpec, action: (bank: SandboxBank) => ActionOptions, message: RegExp, check: (bank: SandboxBank) => void): FaultCase {
	return {
		node: 'corporateFileService',
		fault,
		name,
		outcome: 'clear error, nothing lost',
		run: async (bank) => {
			bank.faults.add(spec);
			return await runAction(bank, 'corporateFileService', action(bank));
		},
		message,
		verify: (bank) => {
			expect(requestsIn(bank, 'soap')).toBe(1);
			check(bank);
		},
	};
}

/**
 * Scheduled polls of the trigger: the faulty one, then healthy ones until the bank's queue is
 * empty. Every queued event must come out exactly once and be acknowledged. A poll that fails
 * outright must leave every event unacknowledged at the bank, for the next poll.
 */
function triggerCase(
	fault: Fault,
	name: string,
	arm: (bank: SandboxBank, poll: number) => void,
	options: { parameters?: IDataObject; firstPollFails?: boolean; check?: (bank: SandboxBank, queued: string[]) => void } = {},
): FaultCase {
	let queued: string[] = [];
	let pendingAfterFirstPoll: string[] = [];
	return {
		node: 'bankEventTrigger',
		fault,
		name,
		outcome: options.firstPollFails ? 'clear error, nothing lost' : 'success, exactly once',
		run: async (bank) => {
			queued = bank.events.enqueue([{ type: 'resource-update' }, { type: 'consent-authorization-revoked' }, { type: 'resource-update' }]);
			return await runTrigger(bank, {
				polls: 3,
				parameters: { maxEvents: 10, ...options.parameters },
				beforePoll: (poll) => {
					if (poll === 1) pendingAfterFirstPoll = bank.events.pending();
					arm(bank, poll);
				},
			});
		},
		verify: (bank, outcome) => {
			expect(outcome.error).toBeUndefined();
			const emitted = ids(outcome.items[0], 'jti');
			expect([...emitted].sort()).toEqual([...queued].sort());
			expect(outcome.items[1]).toEqual([]);
			expect(bank.events.pending()).toEqual([]);
			for (const jti of queued) expect(bank.stats.eventsAcked).toContain(jti);
			// Acknowledged only with the request after the one that delivered them.
			expect(pendingAfterFirstPoll.sort()).toEqual([...queued].sort());
			if (options.firstPollFails) {
				const logs = outcome.texts.find((t) => t.where.endsWith('poll logs'))?.text ?? '';
				expect(logs).toMatch(/\[error\] Bank Event Trigger: the event poll failed: .*502/);
			}
			options.check?.(bank, queued);
		},
	};
}

export const FAULTS: FaultCase[] = [
	// FX Trade Report: five pages of history, every trade exactly once.
	reportCase(
		'token expiry',
		'token expires in the middle of the pages',
		(bank) => {
			// The second page is held at the bank; the token expires meanwhile, so the bank refuses
			// that page (401) and the node renews the token and asks for it again.
			bank.faults.add({ kind: 'hold', area: 'report', pathRegex: '[?&]offset=100(&|$)' });
			void bank.faults.held().then((held) => {
				bank.tokens.expireAll();
				held.release();
			});
		},
		(bank) => {
			expect(bank.stats.tokenRequests).toBe(2);
			expect(bank.stats.requests.filter((r) => r.area === 'report' && r.status === 401).map((r) => /offset=100/.test(r.path))).toEqual([true]);
		},
	),
	reportCase('5xx', '503 twice on the third page', (bank) => bank.faults.add({ kind: 'status', status: 503, area: 'report', pathRegex: 'offset=200', count: 2 }), (bank) => {
		expect(bank.stats.requests.filter((r) => r.area === 'report' && r.status === 503)).toHaveLength(2);
	}),
	{
		node: 'fxTradeReport',
		fault: '5xx',
		name: '500 on every try',
		outcome: 'clear error, nothing lost',
		run: async (bank) => {
			bank.faults.add({ kind: 'status', status: 500, area: 'report', count: 3 });
			return await runAction(bank, 'fxTradeReport', { parameters: HISTORY });
		},
		message: /^Get many trades: /,
		verify: (bank, outcome) => {
			expect(outcome.error?.httpCode).toBe('500');
			expect(outcome.error?.description).toMatch(/HTTP status: 500/);
			expect(outcome.items.flat()).toEqual([]);
			expect(requestsIn(bank, 'report')).toBe(3);
		},
	},
	reportCase('slow', 'slow pages', (bank) => slow(bank, { area: 'report' }, 2)),
	reportCase('dropped', 'connection dropped before the second page was read', (bank) => bank.faults.add({ kind: 'drop', area: 'report', pathRegex: 'offset=100' })),
	reportCase('dropped', 'second page sent by the bank and lost on the way', (bank) => bank.faults.add({ kind: 'drop', phase: 'after', area: 'report', pathRegex: 'offset=100' }), (bank) => {
		expect(bank.stats.requests.filter((r) => r.area === 'report' && /offset=100/.test(r.path))).toHaveLength(2);
	}),

	// FX Trade Execution: at most one trade, never a silent second one.
	{
		node: 'fxTradeExecution',
		fault: 'token expiry',
		name: 'expired token: refused unread (401), renewed, sent once more',
		outcome: 'success, exactly once',
		run: async (bank) => {
			const store = sandboxCredentials(bank);
			await runAction(bank, 'fxTradeReport', { parameters: { operation: 'getOpen', limit: 1 }, store });
			bank.tokens.expireAll();
			return await runAction(bank, 'fxTradeExecution', { parameters: TRADE, store });
		},
		verify: (bank, outcome) => {
			expect(outcome.error).toBeUndefined();
			expect(bank.stats.requests.filter((r) => r.area === 'execution').map((r) => r.status)).toEqual([401, 200]);
			expect(bank.stats.executions).toBe(1);
			expect(ids(outcome.items[0])).toHaveLength(1);
		},
	},
	outcomeUnknown('5xx', '503 before the bank processed it', (bank) => bank.faults.add({ kind: 'status', status: 503, area: 'execution' }), 0),
	outcomeUnknown('5xx', '500 after the bank executed it', (bank) => bank.faults.add({ kind: 'status', status: 500, area: 'execution', phase: 'after' }), 1),
	{
		node: 'fxTradeExecution',
		fault: 'slow',
		name: 'slow answer within the timeout',
		outcome: 'success, exactly once',
		run: async (bank) => {
			slow(bank, { area: 'execution', phase: 'after' });
			return await runAction(bank, 'fxTradeExecution', { parameters: TRADE });
		},
		verify: (bank, outcome) => {
			expect(outcome.error).toBeUndefined();
			expect(executionRequests(bank)).toBe(1);
			expect(bank.stats.executions).toBe(1);
			expect(ids(outcome.items[0])).toHaveLength(1);
		},
	},
	outcomeUnknown('slow', 'answer slower than the timeout, trade executed', (bank) => neverAnswered(bank, { area: 'execution', phase: 'after' }), 1, {
		additionalFields: { timeoutMs: 1000 },
	}),
	outcomeUnknown('dropped', 'connection dropped before the bank processed it', (bank) => bank.faults.add({ kind: 'drop', area: 'execution' }), 0),
	outcomeUnknown('dropped', 'connection dropped after the bank executed it', (bank) => bank.faults.add({ kind: 'drop', area: 'execution', phase: 'after' }), 1),

	// Bank Mock Service: it moves no money, so it retries everything.
	mockCase('5xx', '503 once', (bank) => bank.faults.add({ kind: 'status', status: 503, area: 'mock' }), 2),
	mockCase('slow', 'slow answer', (bank) => slow(bank, { area: 'mock' }), 1),
	mockCase('dropped', 'connection dropped', (bank) => bank.faults.add({ kind: 'drop', area: 'mock' }), 2),
	{
		node: 'bankMockService',
		fault: '5xx',
		name: '500 on every attempt: an error item, paired with its input',
		outcome: 'clear error, nothing lost',
		run: async (bank) => {
			bank.mock.configure({ errorRate: 0 });
			bank.faults.add({ kind: 'status', status: 500, area: 'mock', count: 2 });
			return await runAction(bank, 'bankMockService', {
				parameters: { api: 'report', operation: 'getOpen', errorHandling: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20, fallback: 'errorItem' } },
			});
		},
		verify: (bank, outcome) => {
			expect(outcome.items[0]).toEqual([
				expect.objectContaining({
					json: expect.objectContaining({
						error: expect.stringMatching(/^Mock service: Get open trades: /),
						httpCode: '500',
						mockAttempts: 2,
						mockService: expect.stringMatching(/^Example answer from the bank's mock service/),
					}),
					pairedItem: { item: 0 },
				}),
			]);
			expect(requestsIn(bank, 'mock')).toBe(2);
		},
	},

	// Corporate File Service: files stay on the bank, uploads and deletes are sent once.
	{
		node: 'corporateFileService',
		fault: '5xx',
		name: 'list answered 503 once',
		outcome: 'success, exactly once',
		run: async (bank) => {
			bank.faults.add({ kind: 'html', status: 503, area: 'soap' });
			return await runAction(bank, 'corporateFileService', { parameters: { operation: 'downloadFileList' } });
		},
		verify: (bank, outcome) => {
			expect(outcome.error).toBeUndefined();
			expect(ids(outcome.items[0], 'fileReference')).toEqual(newFiles(bank));
			expect(requestsIn(bank, 'soap')).toBe(2);
		},
	},
	{
		node: 'corporateFileService',
		fault: '5xx',
		name: 'download answered 503 on every try: the file stays new on the bank',
		outcome: 'clear error, nothing lost',
		run: async (bank) => {
			bank.faults.add({ kind: 'html', status: 503, area: 'soap', count: 3 });
			return await runAction(bank, 'corporateFileService', { parameters: { operation: 'downloadFile', fileReference: statement(bank).reference } });
		},
		message: /^Download file: The bank answered with an HTML page/,
		verify: (bank, outcome) => {
			expect(outcome.error?.httpCode).toBe('503');
			expect(outcome.items.flat()).toEqual([]);
			expect(requestsIn(bank, 'soap')).toBe(3);
			expect(newFiles(bank)).toContain(statement(bank).reference);
		},
	},
	sentOnce('5xx', 'upload stored by the bank, then a 503: not sent again', { kind: 'html', status: 503, area: 'soap', phase: 'after' }, upload, /^Upload file: outcome unknown: /, (bank) =>
		expect(uploads(bank)).toHaveLength(1),
	),
	downloadCase('slow', 'slow download', (bank) => slow(bank, { area: 'soap' }), 1),
	downloadCase('dropped', 'download sent by the bank and lost on the way: fetched again', (bank) => bank.faults.add({ kind: 'drop', area: 'soap', phase: 'after' }), 2),
	sentOnce('dropped', 'upload dropped before the bank read it: not sent again', { kind: 'drop', area: 'soap' }, upload, /^Upload file: outcome unknown: The connection to the bank failed/, (bank) =>
		expect(uploads(bank)).toHaveLength(0),
	),
	sentOnce(
		'dropped',
		'delete done by the bank, answer lost: not sent again',
		{ kind: 'drop', area: 'soap', phase: 'after' },
		(bank) => ({ parameters: { operation: 'deleteFile', fileReference: statement(bank).reference } }),
		/^Delete file: outcome unknown: The connection to the bank failed/,
		(bank) => expect(soapCalls(bank, 'deleteFile')).toBe(1),
	),

	// Bank Event Trigger: every event exactly once, acknowledged only after it was emitted.
	triggerCase(
		'token expiry',
		'token expires between polls',
		(bank, poll) => {
			if (poll === 1) bank.tokens.expireAll();
		},
		{
			check: (bank) => {
				expect(bank.stats.mtlsTokenRequests).toBe(2);
				expect(bank.stats.requests.filter((r) => r.area === 'events' && r.status === 401)).toHaveLength(1);
			},
		},
	),
	triggerCase('5xx', '503 once', (bank, poll) => {
		if (poll === 0) bank.faults.add({ kind: 'status', status: 503, area: 'events' });
	}),
	triggerCase(
		'5xx',
		'502 on every try of a poll: nothing acknowledged, delivered by the next poll',
		(bank, poll) => {
			if (poll === 0) bank.faults.add({ kind: 'status', status: 502, area: 'events', count: 3 });
		},
		{ firstPollFails: true },
	),
	triggerCase('slow', 'slow answer', (bank, poll) => {
		if (poll === 0) slow(bank, { area: 'events' });
	}),
	triggerCase(
		'slow',
		'answer slower than the Request Timeout',
		(bank, poll) => {
			if (poll === 0) neverAnswered(bank, { area: 'events' });
		},
		{ parameters: { options: { requestTimeoutSeconds: 1 } } },
	),
	triggerCase(
		'dropped',
		'events sent by the bank and lost on the way',
		(bank, poll) => {
			if (poll === 0) bank.faults.add({ kind: 'drop', phase: 'after', area: 'events' });
		},
		{
			// The bank did deliver every event twice; each was emitted once.
			check: (bank, queued) => {
				for (const jti of queued) expect(bank.stats.eventsDelivered.filter((d) => d === jti)).toHaveLength(2);
			},
		},
	),
];
