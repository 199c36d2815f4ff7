/**
 * The receipt of a download comes only after its last segment (the spec orders the phases:
 * initialisation, transfer, receipt), through the EBICS library against the sandbox bank: a
 * download that broke off gets none and its receipts refuse to go out; one whose data came whole
 * but cannot be read gets the negative receipt (ReceiptCode 1).
 */
import { randomBytes } from 'node:crypto';

import { EbicsTransferInterrupted, streamContainer, type EbicsClient } from '../../nodes/shared/ebics';
import { sandboxClient, sandboxSend, rejection } from '../helpers/ebicsSandbox';
import { startSandbox, type SandboxBank } from '../sandbox';

let bank: SandboxBank;
beforeAll(async () => {
	bank = await startSandbox({ seed: 42 });
});
afterAll(async () => {
	await bank.stop();
});
beforeEach(() => {
	bank.resetAll();
	bank.ebics.switches.validateSchema = false;
});

async function readyClient(): Promise<EbicsClient> {
	const keys = bank.ebicsClient('PARTNER2', 'READY1').subscriberKeys!;
	const bankKeys = (await sandboxClient(bank, 'PARTNER2', 'READY1', keys).hpb(bank.ebics.letterHashes())).keys;
	return sandboxClient(bank, 'PARTNER2', 'READY1', keys, { bank: bankKeys, send: sandboxSend(bank) });
}

const MT942 = { serviceName: 'STM', msgName: 'mt942' };

function receipts(from: number): string[] {
	return bank.ebics.records.slice(from).filter((r) => r.phase === 'Receipt').map((r) => r.technical);
}

describe('a download that broke off', () => {
	it('fails its stream with EbicsTransferInterrupted at the segment, and refuses both receipts without sending them', async () => {
		bank.ebics.switches.segmentBytes = 3000;
		const file = bank.ebics.addFile('PARTNER2', 'READY1', { ...MT942, name: 'mt942.txt', content: randomBytes(20_000) });
		const client = await readyClient();
		const before = bank.ebics.records.length;
		bank.ebics.faults.push(...Array.from({ length: 10 }, () => 'dropDownloadAnswer' as const));
		const download = (await client.openBtd(MT942))!;
		expect(download.numSegments).toBe(7);
		expect(download.segmentsReceived).toBe(1);
		const stored: Buffer[] = [];
		const failed = await rejection(streamContainer(download.stream(), { name: download.fileName }, async (entry) => {
			for await (const chunk of entry.stream) stored.push(chunk as Buffer);
		}));
		bank.ebics.faults.length = 0;
		expect(failed).toBeInstanceOf(EbicsTransferInterrupted);
		expect(failed).toMatchObject({ direction: 'download', segment: 2, numSegments: 7 });
		expect(download.segmentsReceived).toBe(1);
		await expect(download.reject()).rejects.toThrow('BTD STM mt942: no receipt is sent before the last segment: 1 of 7 segments came');
		await expect(download.acknowledge()).rejects.toThrow(/no receipt is sent before the last segment/);
		expect(receipts(before)).toEqual([]);
		expect(file.delivered).toBe(false);
	});
});

describe('a download that came whole', () => {
	it('data that does not decode after its last segment: the download held in memory sends the negative receipt, then fails', async () => {
		bank.ebics.addFile('PARTNER2', 'READY1', { ...MT942, name: 'mt942.txt', content: randomBytes(2000) });
		const client = await readyClient();
		const before = bank.ebics.records.length;
		bank.ebics.faults.push('damageSegment');
		const failed = await rejection(client.btd(MT942));
		expect(failed.message).toBe('Segment 1 of the order data is damaged: its OrderData is not base64');
		// The bank answers ReceiptCode 1 with 011001 EBICS_DOWNLOAD_POSTPROCESS_SKIPPED.
		expect(receipts(before)).toEqual(['011001']);
		expect(bank.ebics.subscriber('PARTNER2', 'READY1')!.files.filter((f) => f.msgName === 'mt942').some((f) => f.delivered)).toBe(false);
	});

	it('a streamed download read to its end: one receipt, sent after the last segment', async () => {
		bank.ebics.switches.segmentBytes = 3000;
		bank.ebics.addFile('PARTNER2', 'READY1', { ...MT942, name: 'mt942.txt', content: randomBytes(20_000) });
		const client = await readyClient();
		const before = bank.ebics.records.length;
		const download = (await client.openBtd(MT942))!;
		for await (const chunk of download.stream()) expect(Buffer.isBuffer(chunk)).toBe(true);
		expect(download.segmentsReceived).toBe(download.numSegments);
		await download.acknowledge();
		const phases = bank.ebics.records.slice(before).map((r) => r.phase);
		expect(phases).toEqual(['Initialisation', ...Array.from({ length: download.numSegments - 1 }, () => 'Transfer'), 'Receipt']);
		expect(receipts(before)).toEqual(['011000']);
	});
});
