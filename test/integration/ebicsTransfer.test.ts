/**
 * EBICS transfers of many segments through the n8n engine against the sandbox bank, at the
 * spec's segment size (1,048,576 base64 characters): a file made in n8n's binary storage streams
 * up from it, a download streams into it; and what a dropped connection does mid-way. A payment
 * file is never submitted twice: the same segment goes again in the same transaction, the bank's
 * recovery (061101) is followed where it offers it, and when the bank may hold the order but
 * cannot say, the run fails naming the order ID and where to check it, with no second order.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { useSandbox } from '../helpers/bank';
import { MAKE_STREAMED_FILE, streamedFileNodes } from '../helpers/binaryNodes';
import { EBICS, EBICS_ID, ebicsSecrets, ebicsStore, ebicsValues, errorText, items, runEbics, runEbicsThenInspect } from '../helpers/ebicsNode';
import { NODE_NAME, PACKAGE, packageCredentialTypes, packageNodeTypes } from '../helpers/nodes';
import { chainWorkflow, runWorkflow, type CredentialStore, type RunResult } from '../harness/engine';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const ready = () => bank().ebics.subscriber('PARTNER2', 'READY1')!;

const MIB = 1024 * 1024;
/** Encrypted bytes of one full segment (1,048,576 base64 characters). */
const SEGMENT = 786_432;

let store: CredentialStore;
beforeEach(() => {
	store = ebicsStore(ebicsValues(bank()));
	// Each request is checked against the H005 schema elsewhere; here the transfers are what counts.
	bank().ebics.switches.validateSchema = false;
});

/** Make Streamed File (size bytes in n8n's filesystem storage) -> EBICS upload of it. */
async function uploadMade(size: number, parameters: IDataObject = {}): Promise<RunResult> {
	return await runWorkflow({
		workflow: chainWorkflow(
			[
				{ name: 'Make', type: MAKE_STREAMED_FILE, parameters: { size, fileName: 'batch.bin' } },
				{
					name: NODE_NAME,
					type: `${PACKAGE}.ebics`,
					parameters: { operation: 'upload', uploadService: 'custom', serviceName: 'SCT', msgName: 'pain.001', options: { checkSchema: false }, ...parameters },
				},
			],
			{ [`${PACKAGE}.ebics`]: { [EBICS]: { id: EBICS_ID, name: 'EBICS (sandbox)' } } },
		),
		nodeTypes: { ...packageNodeTypes(), ...streamedFileNodes() },
		credentialTypes: packageCredentialTypes(),
		credentials: store,
		binaryDataMode: 'filesystem',
	});
}

function made(result: RunResult): { sha256: string; size: number } {
	return result.output('Make')[0].json as { sha256: string; size: number };
}

/** The bank's requests of an upload: initialisations and transfers. */
function btuRequests(from: number): { inits: number; transfers: number } {
	const rows = bank().ebics.records.slice(from).filter((r) => r.orderType === 'BTU' || r.phase === 'Transfer');
	return { inits: rows.filter((r) => r.phase === 'Initialisation').length, transfers: rows.filter((r) => r.phase === 'Transfer').length };
}

describe('any size', () => {
	test('a 6 MiB file made in n8n streams up from its storage in 9 segments; the bank stores the same bytes once', async () => {
		const result = await uploadMade(6 * MIB);
		const out = items(result)[0].json;
		const expected = Math.ceil((6 * MIB + 16) / SEGMENT);
		expect(out).toMatchObject({ segments: expected, fileSize: 6 * MIB, sha256: made(result).sha256, schemaNotChecked: expect.any(String) });
		expect(expected).toBeGreaterThanOrEqual(9);
		expect(ready().uploads).toHaveLength(1);
		expect(ready().uploads[0]).toMatchObject({ orderId: out.orderId, bytes: 6 * MIB, sha256: made(result).sha256 });
	});

	test("an upload's segments before the last go over one kept-alive connection; its initialisation and last segment each on a new one", async () => {
		const before = bank().ebics.records.length;
		const result = await uploadMade(3 * MIB);
		expect(items(result)[0].json).toMatchObject({ segments: 5, returnCodes: { technical: '000000', business: '000000' } });
		const records = bank().ebics.records;
		const at = records.findIndex((r, i) => i >= before && r.orderType === 'BTU');
		const upload = records.slice(at);
		expect(upload.map((r) => r.phase)).toEqual(['Initialisation', 'Transfer', 'Transfer', 'Transfer', 'Transfer', 'Transfer']);
		const [init, ...segments] = upload.map((r) => r.connection ?? 0);
		const earlier = Math.max(0, ...records.slice(0, at).map((r) => r.connection ?? 0));
		// Connections are numbered as the bank accepts them: a new one has a higher number than any before.
		expect(init).toBeGreaterThan(earlier);
		expect(segments.slice(0, 4)).toEqual([segments[0], segments[0], segments[0], segments[0]]);
		expect(segments[0]).not.toBe(init);
		expect(segments[4]).toBeGreaterThan(Math.max(init, segments[0]));
		expect(ready().uploads).toHaveLength(1);
	});

	test('a 6 MiB download in 9 segments streams into n8n; the next node reads the same bytes; positive receipt after', async () => {
		const content = randomBytes(6 * MIB);
		const file = bank().ebics.addFile('PARTNER2', 'READY1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content });
		const result = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'mt942' });
		const out = items(result)[0].json;
		expect(out).toMatchObject({ fileSize: 6 * MIB, receipt: 'positive' });
		expect(out.segments).toBeGreaterThanOrEqual(9);
		expect(result.output('Inspect')[0].json.sha256).toBe(createHash('sha256').update(content).digest('hex'));
		expect(file.delivered).toBe(true);
	});
});

describe('bad input', () => {
	test('a payment file over 32 MiB with the schema check on is refused before anything is sent, saying what to do', async () => {
		const before = bank().ebics.records.length;
		const result = await uploadMade(33 * MIB, { uploadService: 'sct', options: {} });
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(/^The file in "data" is 33 MiB: the schema check reads the whole file into memory and takes files up to 32 MiB\. Nothing was sent to the bank\nSwitch off "Check Against Schema" to send it unchecked/);
		expect(bank().ebics.records.slice(before).filter((r) => r.orderType === 'BTU' || r.phase === 'Transfer')).toEqual([]);
		expect(ready().uploads).toEqual([]);
	});
});

describe('recovery', () => {
	test('the answer to the last segment is lost after the bank stored the order, at a bank without recovery: an error naming the order and where to check it; one order at the bank, none sent twice', async () => {
		const before = bank().ebics.records.length;
		bank().ebics.faults.push('dropLastUploadAnswer');
		const result = await uploadMade(2 * MIB);
		expect(result.status).toBe('error');
		const orderId = ready().uploads[0]?.orderId;
		expect(ready().uploads).toHaveLength(1);
		expect(ready().uploads[0]).toMatchObject({ sha256: made(result).sha256 });
		const text = errorText(result);
		expect(text).toMatch(/^BTU SCT pain\.001 transfer of segment 3 of 3: no answer came, and the bank refused the segment sent again: the bank answered 091101 EBICS_TX_UNKNOWN_TXID/);
		expect(text).toContain(`the bank may have order ${orderId}. n8n did not send the file again. Before sending it again, check the Customer Acknowledgement (HAC) or the Customer Protocol (PTK) of today for order ${orderId}`);
		expect(btuRequests(before)).toEqual({ inits: 1, transfers: 4 });
		const secrets = ebicsSecrets(bank(), store);
		expect(secrets.scan(shownBy(result))).toEqual([]);
	});

	test('the same loss at a bank offering recovery: it says it holds every segment (061101), the run succeeds with the order ID; one order', async () => {
		bank().ebics.switches.recovery = true;
		bank().ebics.faults.push('dropLastUploadAnswer');
		const result = await uploadMade(2 * MIB);
		const out = items(result)[0].json;
		expect(ready().uploads).toHaveLength(1);
		expect(out.orderId).toBe(ready().uploads[0].orderId);
		expect(out.recovered).toEqual(['segment 3 of 3: no answer came; the bank holds segments 1 to 3 (061101 EBICS_TX_RECOVERY_SYNC)']);
	});

	test('a lost answer before the last segment: with recovery the upload goes on after what the bank holds; without, the error says nothing was submitted', async () => {
		bank().ebics.switches.recovery = true;
		bank().ebics.faults.push('dropUploadAnswer');
		const recovered = await uploadMade(2 * MIB);
		expect(items(recovered)[0].json.recovered).toEqual(['segment 1 of 3: no answer came; the bank holds segments 1 to 1 (061101 EBICS_TX_RECOVERY_SYNC)']);
		expect(ready().uploads).toHaveLength(1);
		expect(ready().uploads[0].sha256).toBe(made(recovered).sha256);

		bank().ebics.switches.recovery = false;
		bank().ebics.faults.push('dropUploadAnswer');
		const stopped = await uploadMade(2 * MIB);
		expect(stopped.status).toBe('error');
		expect(errorText(stopped)).toMatch(/^BTU SCT pain\.001 transfer of segment 1 of 3: no answer came, and the bank refused the segment sent again: the bank answered 091105 EBICS_RECOVERY_NOT_SUPPORTED/);
		expect(errorText(stopped)).toContain('The upload stopped at segment 1 of 3, before its last segment: the bank does not process an incomplete order, so nothing was submitted. Send the file again.');
		expect(ready().uploads).toHaveLength(1);
	});

	test('a lost answer to a download segment: the segment is asked for again, the file arrives whole, the receipt is sent once', async () => {
		const content = randomBytes(2 * MIB);
		const file = bank().ebics.addFile('PARTNER2', 'READY1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content });
		bank().ebics.faults.push('dropDownloadAnswer');
		const result = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'mt942' });
		expect(items(result)[0].json.receipt).toBe('positive');
		expect(result.output('Inspect')[0].json.sha256).toBe(createHash('sha256').update(content).digest('hex'));
		expect(bank().ebics.faults).toEqual([]);
		expect(file.delivered).toBe(true);
	});

	test('a download whose segment answer never comes, even asked for again: no receipt goes to the bank, the error says where it broke off, the next run gets the file', async () => {
		bank().ebics.switches.segmentBytes = 3000;
		const content = randomBytes(20_000);
		const file = bank().ebics.addFile('PARTNER2', 'READY1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content });
		// deflate does not shrink random bytes: 20,000 bytes and more make at least 7 segments of 3,000.
		const numSegments = 7;
		const before = bank().ebics.records.length;
		// Segment 2's answer is dropped each time it is asked for, after the bank sent it (more drops
		// than n8n's tries, a resend of a request whose kept-alive connection dropped included).
		bank().ebics.faults.push(...Array.from({ length: 10 }, () => 'dropDownloadAnswer' as const));
		const broke = await runEbics(store, { operation: 'download', downloadService: 'mt942' });
		expect(broke.status).toBe('error');
		const text = errorText(broke);
		expect(text).toMatch(new RegExp(`^BTD STM mt942 transfer of segment 2 of ${numSegments}: no answer came, also not when the segment was sent again\n`));
		expect(text).toContain(`The transfer broke off at segment 2 of ${numSegments}, so n8n sent no receipt (a receipt comes only after the last segment): the bank keeps the data and offers it again on the next download.`);
		expect(text).not.toMatch(/sent the negative receipt/);
		// The download's requests (the credential's HPB before them has no phase).
		const requests = bank().ebics.records.slice(before).filter((r) => r.phase);
		const transfers = requests.slice(1);
		expect(requests[0]).toMatchObject({ orderType: 'BTD', phase: 'Initialisation', technical: '000000' });
		expect(transfers.length).toBeGreaterThanOrEqual(3);
		expect(transfers.every((r) => r.phase === 'Transfer' && r.dropped === true)).toBe(true);
		expect(requests.filter((r) => r.phase === 'Receipt')).toEqual([]);
		expect(file.delivered).toBe(false);
		expect(bank().ebics.faults.length).toBe(10 - transfers.length);
		bank().ebics.faults.length = 0;

		// The bank offers the file again: the next run gets it whole, with the positive receipt.
		const again = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'mt942' });
		expect(items(again)[0].json).toMatchObject({ receipt: 'positive', segments: numSegments });
		expect(again.output('Inspect')[0].json.sha256).toBe(createHash('sha256').update(content).digest('hex'));
		expect(file.delivered).toBe(true);
	});

	test('data n8n cannot read after the last segment came: the negative receipt (ReceiptCode 1) goes to the bank once', async () => {
		bank().ebics.switches.segmentBytes = 300;
		const before = bank().ebics.records.length;
		bank().ebics.faults.push('truncateZip');
		const result = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
		expect(errorText(result)).toMatch(/^The ZIP container is damaged or cut off/);
		expect(errorText(result)).toContain('n8n got every segment and sent the negative receipt: the bank keeps the data and delivers it again on the next download.');
		const requests = bank().ebics.records.slice(before);
		const transfers = requests.filter((r) => r.phase === 'Transfer');
		expect(transfers.length).toBeGreaterThan(1);
		// The bank answers a negative receipt (ReceiptCode 1) with 011001 EBICS_DOWNLOAD_POSTPROCESS_SKIPPED.
		expect(requests.filter((r) => r.phase === 'Receipt').map((r) => r.technical)).toEqual(['011001']);
		expect(requests.findIndex((r) => r.phase === 'Receipt')).toBe(requests.length - 1);
		expect(ready().files.filter((f) => f.msgName === 'camt.053').some((f) => f.delivered)).toBe(false);
	});
});

describe('a parse failure after the last segment', () => {
	test('a customer acknowledgement (HAC) that is not a pain.002: the error names it, and the negative receipt (ReceiptCode 1) goes to the bank after the last segment', async () => {
		// An order the customer protocol speaks of.
		expect(items(await uploadMade(1000))).toHaveLength(1);
		bank().ebics.switches.segmentBytes = 300;
		// The bank's HAC of several segments, with something in it that is not XML.
		const report = jest.spyOn(bank().ebics as unknown as { hacReport: () => string }, 'hacReport').mockReturnValue(`not a pain.002 ${randomBytes(3000).toString('hex')}`);
		const before = bank().ebics.records.length;
		const result = await runEbics(store, { operation: 'customerAcknowledgement' });
		report.mockRestore();
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(/^The customer acknowledgement \(HAC\) is not well-formed XML/);
		expect(errorText(result)).toContain('n8n got every segment and sent the negative receipt: the bank keeps the data and delivers it again on the next download.');
		const requests = bank().ebics.records.slice(before).filter((r) => r.phase);
		expect(requests.filter((r) => r.phase === 'Transfer').length).toBeGreaterThan(3);
		expect(requests.map((r) => r.phase).at(-1)).toBe('Receipt');
		expect(requests.filter((r) => r.phase === 'Receipt').map((r) => r.technical)).toEqual(['011001']);
	});
});

describe('segments as banks cut them', () => {
	test('each segment a base64 value of its own, ending in "==": the file arrives whole through n8n, positive receipt after', async () => {
		bank().ebics.switches.base64PerSegment = true;
		// 1,000 bytes a segment: 333 groups and one byte, padded "==".
		bank().ebics.switches.segmentBytes = 1000;
		const content = randomBytes(10_000);
		const file = bank().ebics.addFile('PARTNER2', 'READY1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content });
		const sent = jest.spyOn(bank().ebics, 'segmentText');
		const result = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'mt942' });
		const texts = sent.mock.results.map((r) => r.value as string);
		sent.mockRestore();
		// Random bytes do not deflate: 10,000 bytes and the zlib and E002 overhead are 11 segments.
		// A full segment: 1,000 bytes are 1,336 characters ending in "==" (a segment asked for again
		// when a kept-alive connection was closed is made again: texts may hold it twice).
		const full = texts.filter((t) => t.length === 1336);
		expect(full.length).toBeGreaterThanOrEqual(10);
		expect(full.every((t) => t.endsWith('==') && !t.slice(0, -2).includes('='))).toBe(true);
		expect(texts.every((t) => t.length <= 1336)).toBe(true);
		expect(items(result)[0].json).toMatchObject({ receipt: 'positive', segments: 11, fileSize: content.length });
		expect(result.output('Inspect')[0].json.sha256).toBe(createHash('sha256').update(content).digest('hex'));
		expect(file.delivered).toBe(true);
	});

	test('segments ending in "=" (1,001 bytes each) too', async () => {
		bank().ebics.switches.base64PerSegment = true;
		bank().ebics.switches.segmentBytes = 1001;
		const content = randomBytes(5000);
		bank().ebics.addFile('PARTNER2', 'READY1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content });
		const sent = jest.spyOn(bank().ebics, 'segmentText');
		const result = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'mt942' });
		const texts = sent.mock.results.map((r) => r.value as string);
		sent.mockRestore();
		// A full segment: 1,001 bytes are 1,336 characters ending in one "=".
		const full = texts.filter((t) => t.length === 1336);
		expect(full.length).toBeGreaterThanOrEqual(4);
		expect(full.every((t) => t.endsWith('=') && !t.endsWith('=='))).toBe(true);
		expect(result.output('Inspect')[0].json.sha256).toBe(createHash('sha256').update(content).digest('hex'));
	});
});
