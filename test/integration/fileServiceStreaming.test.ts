/**
 * The Corporate File Service node with files large enough to be streamed, through the real n8n
 * engine (binary data on the filesystem) against the sandbox bank: a 50 MB round trip is
 * byte-identical signed or not, compressed or not, and really takes the streaming path (the
 * payload is never handed to the in-memory builders and readers, and no buffer or string
 * anywhere near its size is ever made).
 * Errors found while a file streams (signature, codes, broken answers) still fail the item
 * without leaving a file behind.
 */
import { existsSync, readdirSync } from 'node:fs';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { streamingThresholds } from '../../nodes/shared/bxd/node/request';
import * as exchangeModule from '../../nodes/shared/bxd/exchange';
import * as requestStreamModule from '../../nodes/shared/bxd/requestStream';
import * as responseStreamModule from '../../nodes/shared/bxd/responseStream';
import type { ChainStep, CredentialStore, RunResult } from '../harness/engine';
import { FILES, sandboxCredentials, useSandbox } from '../helpers/bank';
import { INSPECT_FILE, MAKE_STREAMED_FILE, streamedFileNodes } from '../helpers/binaryNodes';
import { allocationWatch } from '../helpers/memory';
import { FILE_SERVICE_TYPE as TYPE, runFileServiceChain } from '../helpers/nodes';

/** The function itself: the tests below spy on the module's export. */
const prepareStreamingRequest = requestStreamModule.prepareStreamingRequest;

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const MB = 1_000_000;
const SIZE = 50 * MB;

async function chain(steps: ChainStep[], store: CredentialStore, inputItems?: INodeExecutionData[]): Promise<RunResult> {
	return await runFileServiceChain(steps, { store, nodeTypes: streamedFileNodes(), inputItems });
}

const make = (size: number): ChainStep => ({ name: 'Make', type: MAKE_STREAMED_FILE, parameters: { size, fileName: 'statement-archive.bin' } });
const upload = (compress: boolean): ChainStep => ({
	name: 'Upload',
	type: TYPE,
	parameters: { operation: 'uploadFile', fileType: { __rl: true, mode: 'id', value: 'XT' }, options: { compress } },
});
const download = (options: IDataObject = {}): ChainStep => ({
	name: 'Download',
	type: TYPE,
	parameters: { operation: 'downloadFile', fileReference: '={{ $json.fileReference }}', options },
});
const inspect: ChainStep = { name: 'Inspect', type: INSPECT_FILE, parameters: {} };

/** Credentials: signing the requests and verifying the answers, or neither. */
function credentials(signed: boolean): CredentialStore {
	if (signed) return sandboxCredentials(bank());
	return sandboxCredentials(bank(), { [FILES]: { signingCertificate: '', signingPrivateKey: '', bankCertificate: '' } });
}

let spies: jest.SpyInstance[] = [];
let largestReadWhole = 0;

beforeEach(() => {
	largestReadWhole = 0;
	const readResponse = exchangeModule.readResponse;
	spies = [
		jest.spyOn(requestStreamModule, 'prepareStreamingRequest'),
		jest.spyOn(responseStreamModule, 'readResponseStream'),
		jest.spyOn(exchangeModule, 'prepareRequest'),
		jest.spyOn(exchangeModule, 'readResponse').mockImplementation((settings, operation, body) => {
			largestReadWhole = Math.max(largestReadWhole, body.length);
			return readResponse(settings, operation, body);
		}),
	];
});

afterEach(() => {
	for (const spy of spies) spy.mockRestore();
	streamingThresholds.uploadBytes = 4 * 1024 * 1024;
	streamingThresholds.downloadBytes = 4 * 1024 * 1024;
});

describe('Corporate File Service: 50 MB round trips on the streaming path', () => {
	test.each([
		['signed, compressed', true, true],
		['signed, not compressed', true, false],
		['unsigned, compressed', false, true],
		['unsigned, not compressed', false, false],
	])('%s: the downloaded file is byte-identical, and the payload is never held in memory', async (_label, signed, compressed) => {
		bank().switches.signResponses = signed;
		bank().switches.requireSignedRequests = signed;
		const store = credentials(signed);
		const made = await chain([make(SIZE)], store);
		expect(made.status).toBe('success');
		const [original] = made.output('Make');

		const watch = allocationWatch();
		const result = await chain([upload(compressed), download({ requestCompression: compressed }), inspect], store, [original]);
		const largestAllocation = watch.stop();
		expect(result.error?.message).toBeUndefined();
		expect(result.status).toBe('success');

		const [uploaded] = result.output('Upload');
		expect(uploaded.json).toMatchObject({ responseCode: '00', fileSize: SIZE, compressed, signed });
		const call = bank().stats.soapCalls.find((c) => c.operation === 'uploadFile')!;
		expect(call).toMatchObject({ url: 'large', signature: signed ? 'valid' : 'none', responseCode: '00' });

		const [downloaded] = result.output('Download');
		expect(downloaded.json).toMatchObject({ fileReference: uploaded.json.fileReference, fileSize: SIZE, compressed, responseCode: '00' });
		expect(downloaded.binary?.data.id).toMatch(/^filesystem/);
		expect(result.output('Inspect')[0].json).toMatchObject({ sha256: original.json.sha256, size: SIZE, fileName: 'statement-archive.bin' });

		// The streaming path was taken both ways; the in-memory builders and readers never saw the file.
		expect(requestStreamModule.prepareStreamingRequest).toHaveBeenCalledTimes(1);
		expect(responseStreamModule.readResponseStream).toHaveBeenCalledTimes(1);
		expect(exchangeModule.prepareRequest).toHaveBeenCalledTimes(1); // the download request: no content
		expect((exchangeModule.prepareRequest as jest.Mock).mock.calls[0][2].content).toBeUndefined();
		expect(largestReadWhole).toBeLessThan(64 * 1024); // only the upload's small answer was read whole
		// No buffer or string anywhere near the file's size was made (its base64 alone is 67 MB).
		expect(largestAllocation).toBeLessThan(4 * 1024 * 1024);
		// Only a hung run is stopped: on a busy shared machine one round trip can take minutes.
	}, 300_000);
});

describe('Corporate File Service: failures while a file streams', () => {
	async function streamedDownload(store = credentials(true)): Promise<RunResult> {
		streamingThresholds.downloadBytes = 0;
		const target = bank().files.list().find((d) => d.fileType === 'XT')!;
		return await chain([{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: target.fileReference } }], store);
	}

	function failure(result: RunResult, streamed = true): { name: string; message: string; context?: IDataObject } {
		expect(result.status).toBe('error');
		if (streamed) expect(responseStreamModule.readResponseStream).toHaveBeenCalled();
		return result.nodeError('Download') as { name: string; message: string; context?: IDataObject };
	}

	test('a small file forced onto the streaming path comes out unchanged, compressed or not', async () => {
		const target = bank().files.list().find((d) => d.fileType === 'XT')!;
		const original = bank().files.get(target.fileReference)!.content;
		bank().switches.compressDownloads = true;
		const result = await streamedDownload();
		expect(result.status).toBe('success');
		expect(result.output('Download')[0].json).toMatchObject({ fileSize: original.length, compressed: true, mimeType: 'application/xml', fileName: target.userFilename });
		expect(responseStreamModule.readResponseStream).toHaveBeenCalledTimes(1);
	});

	test('a tampered signature fails the item', async () => {
		bank().faults.add({ kind: 'soapTamperedSignature' });
		expect(failure(await streamedDownload()).message).toMatch(/^Download file: The response signature is invalid/);
	});

	test('an unsigned answer is refused when the credential has the bank certificate', async () => {
		bank().faults.add({ kind: 'soapUnsigned' });
		expect(failure(await streamedDownload()).message).toMatch(/signature is missing/);
	});

	test('a bank code other than 00/24 is reported with its text', async () => {
		bank().faults.add({ kind: 'soapResponseCode', responseCode: '26', responseText: 'Technical error.' });
		const error = failure(await streamedDownload());
		expect(error.message).toBe('Download file: the bank answered with code 26 (Technical error.)');
	});

	test('a broken answer is an error, never a shorter file', async () => {
		bank().faults.add({ kind: 'malformed', area: 'soap' });
		expect(failure(await streamedDownload()).message).toMatch(/Download file: .*(base64|cut off|not well-formed)/);
	});

	test('a SOAP fault keeps its category and code', async () => {
		bank().faults.add({ kind: 'soapFault', category: 'technical', code: '26', message: 'Backend unavailable', status: 500 });
		// An HTTP 500 with a fault is read as an error body, before any streaming.
		const error = failure(await streamedDownload(), false);
		expect(error.message).toBe('Download file: the file service refused the request: Backend unavailable');
		expect(error.context).toMatchObject({ category: 'technical', code: '26' });
	});

	test('a 503 without a SOAP fault is retried on the streaming path too, and the file comes out whole', async () => {
		bank().faults.add({ kind: 'html', status: 503, area: 'soap' });
		const target = bank().files.list().find((d) => d.fileType === 'XT')!;
		const original = bank().files.get(target.fileReference)!.content;
		const result = await streamedDownload();
		expect(result.status).toBe('success');
		expect(result.output('Download')[0].json).toMatchObject({ fileReference: target.fileReference, fileSize: original.length });
		expect(bank().stats.requests.filter((r) => r.area === 'soap')).toHaveLength(2);
	});

	test('an unknown file (code 24) gives no item', async () => {
		streamingThresholds.downloadBytes = 0;
		const result = await chain([{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: 'NOSUCHFILE0001' } }], credentials(true));
		expect(result.status).toBe('success');
		expect(result.output('Download')).toEqual([]);
	});
});

describe('Corporate File Service: a signed streamed upload reads the file once, from a spool it removes', () => {
	/** The spool folder the node gave the request, from the call it made. */
	const spoolDirOf = (): string => {
		const calls = (requestStreamModule.prepareStreamingRequest as jest.Mock).mock.calls;
		expect(calls).toHaveLength(1);
		const dir = (calls[0][5] as { spoolDir?: string } | undefined)?.spoolDir;
		expect(dir).toEqual(expect.stringContaining('n8n-bxd-upload-'));
		return dir as string;
	};

	/** Counts the reads of the stored file and the files in the spool folder once the request is prepared. */
	function watchPreparation(): { opens: () => number; spoolFiles: string[] } {
		let opens = 0;
		const spoolFiles: string[] = [];
		(requestStreamModule.prepareStreamingRequest as jest.Mock).mockImplementation(async (...args: Parameters<typeof prepareStreamingRequest>) => {
			const source = args[3];
			const request = await prepareStreamingRequest(args[0], args[1], args[2], { length: source.length, open: async () => (opens++, await source.open()) }, args[4], args[5]);
			spoolFiles.push(...readdirSync(args[5]?.spoolDir as string));
			return request;
		});
		return { opens: () => opens, spoolFiles };
	}

	test('accepted: the signatures verify at the bank, the file is read from storage once, and the spool folder is gone', async () => {
		bank().switches.requireSignedRequests = true;
		const store = credentials(true);
		const made = await chain([make(6 * MB)], store);
		const watch = watchPreparation();
		const result = await chain([upload(false)], store, made.output('Make'));
		expect(result.error?.message).toBeUndefined();
		expect(result.output('Upload')[0].json).toMatchObject({ responseCode: '00', signed: true, fileSize: 6 * MB });
		expect(bank().stats.soapCalls.find((c) => c.operation === 'uploadFile')).toMatchObject({ signature: 'valid', responseCode: '00' });
		expect(watch.opens()).toBe(1);
		expect(watch.spoolFiles).toEqual([expect.stringMatching(/^bxd-body-[0-9a-f]{16}\.b64$/)]);
		expect(existsSync(spoolDirOf())).toBe(false);
	}, 120_000);

	test('refused by the bank: the item fails with the bank\'s code and the spool folder is gone', async () => {
		bank().faults.add({ kind: 'soapFault', category: 'technical', code: '26', message: 'Backend unavailable', status: 500 });
		const store = credentials(true);
		const made = await chain([make(6 * MB)], store);
		const watch = watchPreparation();
		const result = await chain([upload(false)], store, made.output('Make'));
		expect(result.status).toBe('error');
		expect(watch.spoolFiles).toHaveLength(1);
		expect(result.nodeError('Upload')).toMatchObject({ message: expect.stringContaining('Backend unavailable'), context: expect.objectContaining({ code: '26' }) });
		expect(existsSync(spoolDirOf())).toBe(false);
	}, 120_000);
});
