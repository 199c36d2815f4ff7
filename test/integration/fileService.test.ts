/**
 * The Corporate File Service node through the real n8n engine against the sandbox bank:
 * every operation, the bank's codes and faults, signatures both ways, compression and the
 * 20 MB rule, with binary data stored on the filesystem as n8n 2.x does.
 */
import { createHash, createPrivateKey } from 'node:crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import { CorporateFileService } from '../../nodes/CorporateFileService/CorporateFileService.node';
import { applicationRequestXml, httpsCall } from '../sandbox/testing';
import type { CredentialStore, RunResult } from '../harness/engine';
import { chainWorkflow, runWorkflow, type ChainStep } from '../harness/engine';
import { nodeDescription } from '../harness/node-types';
import { CREDENTIAL_IDS, FILES, sandboxCredentials, useSandbox } from '../helpers/bank';
import { InspectFile } from '../helpers/binaryNodes';
import { prepareExample } from '../helpers/examples';
import { NODE_NAME, packageCredentialTypes, runNode } from '../helpers/nodes';

const sandbox = useSandbox({ seed: 42 });
const TYPE = 'n8n-nodes-corporate-banking.corporateFileService';
const MAKE_FILE = 'n8n-nodes-test.makeFile';
const INSPECT = 'n8n-nodes-test.inspectFile';
const credentials = { [FILES]: CREDENTIAL_IDS[FILES] };

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Deterministic bytes: a 64 KiB pseudo-random block repeated (beyond gzip's 32 KiB window, so it does not shrink). */
function fileBytes(size: number, kind: 'random' | 'xml'): Buffer {
	if (kind === 'xml') {
		const entry = '<Ntry><Amt Ccy="EUR">123.45</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts></Ntry>\n';
		const head = '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>\n';
		const body = entry.repeat(Math.max(1, Math.ceil((size - head.length) / entry.length)));
		return Buffer.from(`${head}${body}</BkToCstmrStmt></Document>\n`, 'utf8');
	}
	const block = Buffer.alloc(65536);
	let x = 0x2545f491;
	for (let i = 0; i < block.length; i++) {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		block[i] = x & 0xff;
	}
	const out = Buffer.alloc(size);
	for (let offset = 0; offset < size; offset += block.length) block.copy(out, offset, 0, Math.min(block.length, size - offset));
	return out;
}

/** Makes a binary file the way any n8n node does (prepareBinaryData: on disk in filesystem mode). */
class MakeFile implements INodeType {
	description = nodeDescription('makeFile', 'Make File', {
		description: 'Test source of binary data',
		properties: [
			{ displayName: 'Size', name: 'size', type: 'number', default: 1000 },
			{ displayName: 'Kind', name: 'kind', type: 'string', default: 'random' },
			{ displayName: 'File Name', name: 'fileName', type: 'string', default: 'file.bin' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const size = this.getNodeParameter('size', 0) as number;
		const kind = this.getNodeParameter('kind', 0) as 'random' | 'xml';
		const content = fileBytes(size, kind);
		const binary = await this.helpers.prepareBinaryData(content, this.getNodeParameter('fileName', 0) as string);
		return [[{ json: { sha256: sha256(content), size: content.length }, binary: { data: binary } }]];
	}
}

const nodeTypes = () => ({ [TYPE]: new CorporateFileService(), [MAKE_FILE]: new MakeFile(), [INSPECT]: new InspectFile() });

const bank = () => sandbox.bank();

async function fileService(parameters: IDataObject, options: { store?: CredentialStore; inputItems?: INodeExecutionData[]; settings?: Partial<INode> } = {}) {
	return await runNode({
		type: 'corporateFileService',
		parameters,
		credentials,
		store: options.store ?? sandboxCredentials(bank()),
		nodeTypes: nodeTypes(),
		inputItems: options.inputItems,
		settings: options.settings,
		binaryDataMode: 'filesystem',
	});
}

/** Manual Trigger -> steps in a chain, through the real engine. */
async function chain(steps: ChainStep[], store: CredentialStore = sandboxCredentials(bank())): Promise<RunResult> {
	return await runWorkflow({
		workflow: chainWorkflow(steps, { [TYPE]: { [FILES]: { id: CREDENTIAL_IDS[FILES], name: 'files' } } }),
		nodeTypes: nodeTypes(),
		credentialTypes: packageCredentialTypes(),
		credentials: store,
		binaryDataMode: 'filesystem',
	});
}

function inlineBinaryItem(content: Buffer, fileName: string, mimeType = 'application/octet-stream'): INodeExecutionData {
	return { json: {}, binary: { data: { data: content.toString('base64'), mimeType, fileName } } };
}

const json = (items: INodeExecutionData[]) => items.map((item) => item.json);

function expectNodeError(result: RunResult, name = NODE_NAME) {
	expect(result.status).toBe('error');
	const error = result.nodeError(name);
	expect(error).toBeDefined();
	return error as NonNullable<ReturnType<RunResult['nodeError']>> & { context?: IDataObject };
}

describe('Corporate File Service: List Files', () => {
	test('lists the NEW files, one typed item per FileDescriptor, over a signed request the bank accepts and a verified answer', async () => {
		const expected = bank()
			.files.list()
			.filter((d) => d.status === 'NEW');
		expect(expected.length).toBeGreaterThan(2);
		const result = await fileService({ operation: 'downloadFileList' });
		expect(result.status).toBe('success');
		const items = result.output(NODE_NAME);
		expect(items.map((i) => i.json.fileReference)).toEqual(expected.map((d) => d.fileReference));
		for (const item of items) {
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(item.json.status).toBe('NEW');
			expect(item.json.fileTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
			expect(typeof item.json.deletable).toBe('boolean');
			if (item.json.amountTotal !== undefined) expect(typeof item.json.amountTotal).toBe('number');
			if (item.json.transactionCount !== undefined) expect(Number.isInteger(item.json.transactionCount)).toBe(true);
		}
		const statement = items.find((i) => i.json.fileType === 'XT')!;
		const stored = expected.find((d) => d.fileReference === statement.json.fileReference)!;
		expect(statement.json).toMatchObject({
			targetId: stored.targetId,
			userFilename: stored.userFilename,
			fileTimestamp: new Date(stored.fileTimestamp).toISOString(),
			amountTotal: stored.amountTotal,
			transactionCount: stored.transactionCount,
			deletable: true,
		});
		expect(bank().stats.soapCalls).toEqual([
			expect.objectContaining({ url: 'standard', operation: 'downloadFileList', command: 'DownloadFileList', signature: 'valid', responseCode: '00' }),
		]);
	});

	test('filters by status, file type (short code or ISO name) and dates', async () => {
		const all = bank().files.list();
		const statements = all.filter((d) => d.fileType === 'XT');
		const byCode = await fileService({ operation: 'downloadFileList', status: 'ALL', fileType: { __rl: true, mode: 'list', value: 'XT' } });
		expect(byCode.output(NODE_NAME).map((i) => i.json.fileReference)).toEqual(statements.map((d) => d.fileReference));
		const byIso = await fileService({ operation: 'downloadFileList', status: 'ALL', fileType: { __rl: true, mode: 'code', value: 'camt.053.001.02' } });
		expect(byIso.output(NODE_NAME)).toHaveLength(statements.length);
		const day = statements[statements.length - 1].fileTimestamp.slice(0, 10);
		const oneDay = await fileService({ operation: 'downloadFileList', status: 'ALL', startDate: `${day}T00:00:00`, endDate: day });
		const expectedDay = all.filter((d) => d.fileTimestamp.slice(0, 10) === day);
		expect(oneDay.output(NODE_NAME).map((i) => i.json.fileReference)).toEqual(expectedDay.map((d) => d.fileReference));
		const downloaded = await fileService({ operation: 'downloadFileList', status: 'DLD' });
		expect(downloaded.output(NODE_NAME)).toHaveLength(all.filter((d) => d.status === 'DLD').length);
	});

	test('code 24 (no data) gives zero items and no error', async () => {
		const result = await fileService({ operation: 'downloadFileList', status: 'ALL', startDate: '2001-01-01', endDate: '2001-01-31' });
		expect(result.status).toBe('success');
		expect(result.output(NODE_NAME)).toEqual([]);
		expect(bank().stats.soapCalls[0].responseCode).toBe('24');
	});
});

describe('Corporate File Service: Get User Info', () => {
	test('gives one item per UserFileType with its services', async () => {
		const result = await fileService({ operation: 'getUserInfo' });
		expect(result.status).toBe('success');
		const items = json(result.output(NODE_NAME));
		expect(items.map((t) => t.fileType)).toEqual(['XL', 'XP', 'XT', 'XF']);
		expect(items[0]).toMatchObject({
			targetId: bank().clients.fileService.targetId,
			direction: 'Upload',
			country: 'FI',
			fileTypeServices: [expect.objectContaining({ serviceIdOwnerName: 'Sandbox Customer Oy', serviceIdType: 'A' })],
		});
	});
});

describe('Corporate File Service: Download File', () => {
	test('gives the file as binary data on disk, byte-identical, with its descriptor, and marks it downloaded', async () => {
		const descriptor = bank()
			.files.list()
			.find((d) => d.fileType === 'XT' && d.status === 'NEW')!;
		const original = bank().files.get(descriptor.fileReference)!.content;
		const result = await chain([
			{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: descriptor.fileReference } },
			{ name: 'Inspect', type: INSPECT, parameters: {} },
		]);
		expect(result.status).toBe('success');
		const [item] = result.output('Download');
		expect(item.binary?.data.id).toMatch(/^filesystem/);
		expect(item.json).toMatchObject({
			fileReference: descriptor.fileReference,
			fileType: 'XT',
			userFilename: descriptor.userFilename,
			fileName: descriptor.userFilename,
			mimeType: 'application/xml',
			fileSize: original.length,
			responseCode: '00',
			compressed: false,
		});
		expect(json(result.output('Inspect'))).toEqual([
			expect.objectContaining({ sha256: sha256(original), size: original.length, fileName: descriptor.userFilename, mimeType: 'application/xml' }),
		]);
		expect(bank().files.list().find((d) => d.fileReference === descriptor.fileReference)?.status).toBe('DLD');
	});

	test('unpacks a GZIP-compressed download, asked for or not', async () => {
		const descriptor = bank().files.list()[0];
		const original = bank().files.get(descriptor.fileReference)!.content;
		const asked = await chain([
			{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: descriptor.fileReference, options: { requestCompression: true } } },
			{ name: 'Inspect', type: INSPECT, parameters: {} },
		]);
		expect(asked.output('Download')[0].json).toMatchObject({ compressed: true, compressionMethod: 'GZIP', fileSize: original.length });
		expect(asked.output('Inspect')[0].json.sha256).toBe(sha256(original));

		bank().switches.compressDownloads = true;
		const forced = await chain([
			{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: descriptor.fileReference } },
			{ name: 'Inspect', type: INSPECT, parameters: {} },
		]);
		expect(forced.output('Download')[0].json.compressed).toBe(true);
		expect(forced.output('Inspect')[0].json.sha256).toBe(sha256(original));
	});

	test('names a file without UserFilename after its reference and guesses the type from the content', async () => {
		const text = Buffer.from('FIXED-WIDTH REPORT\r\nLINE 2\r\n', 'latin1');
		const stored = bank().files.put({ fileType: 'TITO', content: text });
		const result = await fileService({
			operation: 'downloadFile',
			fileReference: stored.fileReference,
			binaryPropertyName: 'report',
			options: { executionSerial: 'RUN-2024-0042' },
		});
		const [item] = result.output(NODE_NAME);
		expect(item.json).toMatchObject({ fileName: `${stored.fileReference}.txt`, mimeType: 'text/plain', fileSize: text.length, executionSerial: 'RUN-2024-0042' });
		expect(item.binary?.report).toBeDefined();
	});

	test('an unknown file reference (code 24) gives zero items', async () => {
		const result = await fileService({ operation: 'downloadFile', fileReference: 'NOSUCHFILE0001' });
		expect(result.status).toBe('success');
		expect(result.output(NODE_NAME)).toEqual([]);
	});
});

describe('Corporate File Service: Upload File and round trips', () => {
	test.each([
		['gzip on (default), binary read as a stream from disk', {}, 'random' as const],
		['gzip off', { compress: false }, 'random' as const],
		['gzip on, XML payment file', {}, 'xml' as const],
	])('upload then download gives the same bytes: %s', async (_label, options, kind) => {
		const result = await chain([
			{ name: 'Make File', type: MAKE_FILE, parameters: { size: 300_000, kind, fileName: `payments-${kind}.xml` } },
			{ name: 'Upload', type: TYPE, parameters: { operation: 'uploadFile', fileType: { __rl: true, mode: 'id', value: 'XL' }, options } },
			{ name: 'Download', type: TYPE, parameters: { operation: 'downloadFile', fileReference: '={{ $json.fileReference }}' } },
			{ name: 'Inspect', type: INSPECT, parameters: {} },
		]);
		expect(result.status).toBe('success');
		const made = result.output('Make File')[0].json;
		const [uploaded] = result.output('Upload');
		expect(uploaded.json).toMatchObject({
			fileType: 'XL',
			status: 'WFP',
			userFilename: `payments-${kind}.xml`,
			responseCode: '00',
			fileSize: made.size,
			compressed: (options as IDataObject).compress !== false,
			signed: true,
		});
		expect(uploaded.json.fileReference).toEqual(expect.any(String));
		const stored = bank().files.get(uploaded.json.fileReference as string)!;
		expect(sha256(stored.content)).toBe(made.sha256);
		expect(result.output('Inspect')[0].json).toMatchObject({ sha256: made.sha256, size: made.size });
		const upload = bank().stats.soapCalls.find((c) => c.operation === 'uploadFile')!;
		expect(upload.signature).toBe('valid');
		// Compressed: the random file cannot shrink, but the XML one must travel much smaller.
		if (kind === 'xml') expect(upload.bytes).toBeLessThan((made.size as number) / 4);
	});

	test('uploads inline binary data (not stored on disk) with Target ID and User Filename, and lists it afterwards', async () => {
		const content = Buffer.from('<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"/>', 'utf8');
		const result = await fileService(
			{ operation: 'uploadFile', fileType: { __rl: true, mode: 'list', value: 'pain.001.001.03' }, targetId: '11111111A1', userFilename: 'june-salaries.xml' },
			{ inputItems: [inlineBinaryItem(content, 'ignored.xml', 'application/xml')] },
		);
		expect(result.status).toBe('success');
		const [item] = result.output(NODE_NAME);
		expect(item.json).toMatchObject({ userFilename: 'june-salaries.xml', fileType: 'pain.001.001.03', fileSize: content.length });
		const listed = await fileService({ operation: 'downloadFileList', status: 'ALL', fileType: 'pain.001.001.03' });
		expect(listed.output(NODE_NAME).map((i) => i.json.fileReference)).toContain(item.json.fileReference);
	});

	test('refuses an item without the binary field, and an empty file, before calling the bank', async () => {
		const missing = await fileService({ operation: 'uploadFile', fileType: 'XL', binaryPropertyName: 'file' }, { inputItems: [inlineBinaryItem(Buffer.from('x'), 'a.xml')] });
		expect(expectNodeError(missing).message).toMatch(/file/);
		const empty = await fileService({ operation: 'uploadFile', fileType: 'XL' }, { inputItems: [inlineBinaryItem(Buffer.alloc(0), 'a.xml')] });
		expect(expectNodeError(empty).message).toMatch(/empty/);
		expect(bank().stats.soapCalls).toHaveLength(0);
	});
});

describe('Corporate File Service: Delete File', () => {
	test('deletes a file and reports it with its reference; a second delete finds nothing (code 24)', async () => {
		const target = bank().files.list()[0];
		const result = await fileService({ operation: 'deleteFile', fileReference: target.fileReference });
		expect(result.status).toBe('success');
		expect(json(result.output(NODE_NAME))).toEqual([
			expect.objectContaining({ fileReference: target.fileReference, deleted: true, status: 'DEL', responseCode: '00' }),
		]);
		expect(bank().files.get(target.fileReference)).toBeUndefined();
		const again = await fileService({ operation: 'deleteFile', fileReference: target.fileReference });
		expect(again.status).toBe('success');
		expect(again.output(NODE_NAME)).toEqual([]);
	});

	test('a file that cannot be deleted is an error with the bank code 27', async () => {
		const locked = bank().files.put({ fileType: 'XT', content: '<x/>', deletable: false });
		const error = expectNodeError(await fileService({ operation: 'deleteFile', fileReference: locked.fileReference }));
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toMatch(/code 27/);
		expect(error.context).toMatchObject({ responseCode: '27' });
		expect(bank().files.get(locked.fileReference)).toBeDefined();
	});
});

describe('Corporate File Service: bank codes and faults', () => {
	test('a code other than 00/24 in the answer is a NodeApiError with the code and the text', async () => {
		bank().faults.add({ kind: 'soapResponseCode', responseCode: '26', responseText: 'Technical error.' });
		const error = expectNodeError(await fileService({ operation: 'downloadFileList' }));
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe('List files: the bank answered with code 26 (Technical error.)');
		expect(error.description).toMatch(/technical error at the bank/i);
		expect(error.context).toMatchObject({ responseCode: '26', responseText: 'Technical error.' });
	});

	test('the bank refusing a parameter (unknown Receiver ID: code 29) names the code', async () => {
		const store = sandboxCredentials(bank(), { [FILES]: { receiverId: 'NOTABANK' } });
		const error = expectNodeError(await fileService({ operation: 'getUserInfo' }, { store }));
		expect(error.message).toMatch(/code 29/);
		expect(error.message).toMatch(/ReceiverId NOTABANK/);
	});

	test('a SOAP fault becomes a NodeApiError with its category and code, and is not retried', async () => {
		bank().faults.add({ kind: 'soapFault', category: 'technical', code: '26', message: 'Backend unavailable', status: 500 });
		const error = expectNodeError(await fileService({ operation: 'downloadFileList' }));
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe('List files: the file service refused the request: Backend unavailable');
		expect(error.description).toMatch(/Fault category: technical/);
		expect(error.description).toMatch(/Fault code: 26/);
		expect(error.context).toMatchObject({ category: 'technical', code: '26' });
		expect(error.httpCode).toBe('500');
		expect(bank().stats.requests.filter((r) => r.area === 'soap')).toHaveLength(1);
	});

	test('an unknown Sender ID is the bank\'s authentication fault (07)', async () => {
		const store = sandboxCredentials(bank(), { [FILES]: { senderId: '99999999' } });
		const error = expectNodeError(await fileService({ operation: 'downloadFileList' }, { store }));
		expect(error.context).toMatchObject({ category: 'authentication', code: '07' });
	});

	test('a listing is retried after a 503 without a SOAP fault; an upload is never sent twice', async () => {
		bank().faults.add({ kind: 'html', status: 503, area: 'soap' });
		const listed = await fileService({ operation: 'getUserInfo' });
		expect(listed.status).toBe('success');
		expect(bank().stats.requests.filter((r) => r.area === 'soap')).toHaveLength(2);

		bank().resetStats();
		bank().faults.add({ kind: 'html', status: 503, area: 'soap' });
		const upload = await fileService({ operation: 'uploadFile', fileType: 'XL' }, { inputItems: [inlineBinaryItem(Buffer.from('<a/>'), 'a.xml')] });
		expect(expectNodeError(upload).message).toMatch(/Upload file/);
		expect(bank().stats.requests.filter((r) => r.area === 'soap')).toHaveLength(1);
	});

	test('a response with a DOCTYPE is refused, a cut-off response is a clear error', async () => {
		bank().faults.add({ kind: 'soapDoctype' });
		expect(expectNodeError(await fileService({ operation: 'downloadFileList' })).message).toMatch(/DOCTYPE/);
		bank().faults.add({ kind: 'malformed', area: 'soap' });
		expect(expectNodeError(await fileService({ operation: 'getUserInfo' })).message).toMatch(/Get user info: .*(not closed|cut off|not well-formed|base64)/);
	});

	test('with Continue On Fail the failed item becomes an error item and the others go on', async () => {
		bank().faults.add({ kind: 'soapResponseCode', responseCode: '12', responseText: 'Schema validation failed.' });
		const ok = bank().files.list()[1];
		const result = await fileService(
			{ operation: 'downloadFile', fileReference: '={{ $json.ref }}' },
			{ inputItems: [{ json: { ref: 'ANY' } }, { json: { ref: ok.fileReference } }], settings: { continueOnFail: true } },
		);
		expect(result.status).toBe('success');
		const items = result.output(NODE_NAME);
		expect(items[0].json.error).toMatch(/code 12/);
		expect(items[1].json.fileReference).toBe(ok.fileReference);
		expect(items[1].binary?.data).toBeDefined();
	});
});

describe('Corporate File Service: signatures', () => {
	test('a tampered signed response is rejected as an invalid signature', async () => {
		bank().faults.add({ kind: 'soapTamperedSignature' });
		const error = expectNodeError(await fileService({ operation: 'downloadFileList' }));
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toMatch(/^List files: The response signature is invalid/);
	});

	test('an unsigned successful response is refused when the credential has the bank certificate, accepted without it', async () => {
		bank().faults.add({ kind: 'soapUnsigned' });
		expect(expectNodeError(await fileService({ operation: 'getUserInfo' })).message).toMatch(/signature is missing/);
		bank().faults.add({ kind: 'soapUnsigned' });
		const store = sandboxCredentials(bank(), { [FILES]: { bankCertificate: '' } });
		const unchecked = await fileService({ operation: 'getUserInfo' }, { store });
		expect(unchecked.status).toBe('success');
	});

	test('an unsigned error response still reports the bank code', async () => {
		bank().switches.signResponses = false;
		bank().faults.add({ kind: 'soapResponseCode', responseCode: '30', responseText: 'Authentication failed.' });
		const error = expectNodeError(await fileService({ operation: 'getUserInfo' }));
		expect(error.context).toMatchObject({ responseCode: '30' });
	});

	test('a response signed by another key than the bank certificate is rejected', async () => {
		const store = sandboxCredentials(bank(), { [FILES]: { bankCertificate: bank().tls.customerSigningCertPem } });
		const error = expectNodeError(await fileService({ operation: 'getUserInfo' }, { store }));
		expect(error.message).toMatch(/signature is invalid/);
	});

	test('accepts the bank CA instead of the bank certificate', async () => {
		const store = sandboxCredentials(bank(), { [FILES]: { bankCertificate: bank().tls.caPem } });
		const result = await fileService({ operation: 'getUserInfo' }, { store });
		expect(result.status).toBe('success');
	});

	test('the bank that requires signatures refuses unsigned requests (18); exclusive C14N is accepted too', async () => {
		bank().switches.requireSignedRequests = true;
		const unsigned = sandboxCredentials(bank(), { [FILES]: { signingCertificate: '', signingPrivateKey: '' } });
		const error = expectNodeError(await fileService({ operation: 'getUserInfo' }, { store: unsigned }));
		expect(error.context).toMatchObject({ responseCode: '18' });
		const exclusive = await fileService({ operation: 'getUserInfo', options: { canonicalization: 'exclusive' } });
		expect(exclusive.status).toBe('success');
		expect(bank().stats.soapCalls.map((c) => c.signature)).toEqual(['none', 'valid']);
	});

	test('an encrypted signing key works with its passphrase, which never shows up; a wrong one names the field', async () => {
		const passphrase = 'correct horse battery staple';
		const encrypted = createPrivateKey(bank().tls.customerSigningKeyPem)
			.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase })
			.toString();
		const store = sandboxCredentials(bank(), { [FILES]: { signingPrivateKey: encrypted, signingKeyPassphrase: passphrase } });
		const ok = await fileService({ operation: 'downloadFileList' }, { store });
		expect(ok.status).toBe('success');
		expect(bank().stats.soapCalls[0].signature).toBe('valid');
		const wrong = sandboxCredentials(bank(), { [FILES]: { signingPrivateKey: encrypted, signingKeyPassphrase: 'not the passphrase' } });
		const failed = await fileService({ operation: 'downloadFileList' }, { store: wrong });
		const error = expectNodeError(failed);
		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toMatch(/Signing Key Passphrase/);
		for (const run of [ok, failed]) {
			const everything = JSON.stringify(run.runData) + run.logs.join('\n');
			expect(everything).not.toContain(passphrase);
			expect(everything).not.toContain('not the passphrase');
			expect(everything).not.toMatch(/PRIVATE KEY/);
		}
	});
});

describe('Corporate File Service: the 20 MB rule', () => {
	// 12 MB that gzip cannot shrink, sent uncompressed: base64 twice makes a SOAP message of about 21.3 MB.
	const big = { name: 'Make File', type: MAKE_FILE, parameters: { size: 12_000_000, kind: 'random', fileName: 'big.bin' } };

	test('Auto sends a message over 20 MB to the large-file URL and it arrives intact', async () => {
		const result = await chain([
			big,
			{ name: 'Upload', type: TYPE, parameters: { operation: 'uploadFile', fileType: 'XL', options: { compress: false } } },
		]);
		expect(result.status).toBe('success');
		const call = bank().stats.soapCalls.find((c) => c.operation === 'uploadFile')!;
		expect(call.url).toBe('large');
		expect(call.bytes).toBeGreaterThan(20 * 1024 * 1024);
		expect(call.signature).toBe('valid');
		const stored = bank().files.get(result.output('Upload')[0].json.fileReference as string)!;
		expect(sha256(stored.content)).toBe(result.output('Make File')[0].json.sha256);
	});

	test('forced Standard gets the bank\'s refusal, with a hint; without a large URL Auto explains what to set', async () => {
		const forced = await chain([
			big,
			{ name: 'Upload', type: TYPE, parameters: { operation: 'uploadFile', fileType: 'XL', options: { compress: false, endpoint: 'standard' } } },
		]);
		const error = expectNodeError(forced, 'Upload') as { message: string; description?: string; context?: IDataObject; httpCode?: string };
		expect(error.message).toMatch(/larger than 20 MB/);
		expect(error.context).toMatchObject({ category: 'size', code: '413' });
		expect(error.httpCode).toBe('413');
		expect(error.description).toMatch(/Endpoint to Auto or Large/);
		expect(bank().stats.soapRefusedTooLarge).toBe(1);

		const store = sandboxCredentials(bank(), { [FILES]: { largeFileUrl: '' } });
		const noLarge = await chain(
			[big, { name: 'Upload', type: TYPE, parameters: { operation: 'uploadFile', fileType: 'XL', options: { compress: false } } }],
			store,
		);
		expect(expectNodeError(noLarge, 'Upload').description).toMatch(/Set the Large File Service URL in the credential/);
	});

	test('forced Large without a large-file URL is refused before sending', async () => {
		const store = sandboxCredentials(bank(), { [FILES]: { largeFileUrl: '' } });
		const error = expectNodeError(await fileService({ operation: 'getUserInfo', options: { endpoint: 'large' } }, { store }));
		expect(error.message).toMatch(/Large File Service URL/);
		expect(bank().stats.soapCalls).toHaveLength(0);
	});
});

describe('Corporate File Service: raw ApplicationRequest', () => {
	test('sends the given XML (signed by the node) and returns the decoded ApplicationResponse as XML and JSON', async () => {
		const { customerId, softwareId } = bank().clients.fileService;
		const xml = applicationRequestXml({ customerId, softwareId, command: 'DownloadFileList', status: 'NEW' });
		const result = await fileService({ operation: 'downloadFileList', mode: 'raw', applicationRequest: xml });
		expect(result.status).toBe('success');
		const [item] = result.output(NODE_NAME);
		expect(item.json).toMatchObject({ responseCode: '00', responseText: 'OK.', signature: 'valid' });
		expect(item.json.applicationResponseXml).toMatch(/<c2b:FileDescriptors>/);
		const tree = item.json.applicationResponse as IDataObject;
		expect(tree.CustomerId).toBe(customerId);
		expect((tree.FileDescriptors as IDataObject).FileDescriptor).toEqual(expect.any(Array));
		expect(bank().stats.soapCalls[0]).toMatchObject({ operation: 'downloadFileList', signature: 'valid' });
	});

	test('accepts the ApplicationRequest as base64 and gives a downloaded file as binary data', async () => {
		const { customerId, softwareId } = bank().clients.fileService;
		const target = bank().files.list()[0];
		const xml = applicationRequestXml({ customerId, softwareId, command: 'DownloadFile', fileReferences: [target.fileReference], compression: true });
		const result = await fileService({ operation: 'downloadFile', mode: 'raw', applicationRequest: Buffer.from(xml).toString('base64') });
		const [item] = result.output(NODE_NAME);
		expect(item.json.responseCode).toBe('00');
		expect(item.binary?.data.fileName).toBe(target.userFilename);
		expect(item.json.fileSize).toBe(bank().files.get(target.fileReference)!.content.length);
	});

	test('refuses text that is neither XML nor base64', async () => {
		const error = expectNodeError(await fileService({ operation: 'getUserInfo', mode: 'raw', applicationRequest: 'not xml at all!' }));
		expect(error.message).toMatch(/not valid base64/);
	});
});

describe('Corporate File Service: the statement example workflow', () => {
	test('examples/file-service-statements.json lists the new statements and downloads each one, unchanged', async () => {
		const expected = bank()
			.files.list()
			.filter((d) => d.status === 'NEW' && d.fileType === 'XT');
		expect(expected.length).toBeGreaterThan(0);
		const { workflow, store } = prepareExample('file-service-statements.json', bank());
		const result = await runWorkflow({ workflow, nodeTypes: nodeTypes(), credentialTypes: packageCredentialTypes(), credentials: store, binaryDataMode: 'filesystem' });
		expect(result.status).toBe('success');
		expect(result.output('List New Statements').map((i) => i.json.fileReference)).toEqual(expected.map((d) => d.fileReference));
		const downloads = result.output('Download Statement');
		expect(downloads).toHaveLength(expected.length);
		for (const [index, item] of downloads.entries()) {
			expect(item.binary?.data.mimeType).toBe('application/xml');
			expect(item.json).toMatchObject({ fileReference: expected[index].fileReference, compressed: true, fileName: expected[index].userFilename });
		}
		const again = await runWorkflow({ workflow, nodeTypes: nodeTypes(), credentialTypes: packageCredentialTypes(), credentials: store, binaryDataMode: 'filesystem' });
		expect(again.output('List New Statements')).toEqual([]);
	});
});

describe('Corporate File Service: File Type suggestions', () => {
	/** A load-options context as the editor gives one, sending through the sandbox. */
	function editorContext(values: IDataObject | undefined): ILoadOptionsFunctions {
		const node: INode = { id: 'x', name: 'Bank', type: TYPE, typeVersion: 1, position: [0, 0], parameters: {}, credentials: { [FILES]: { id: 'f', name: 'f' } } };
		return {
			getNode: () => node,
			getCredentials: async () => {
				if (!values) throw new Error('Node does not have any credentials set');
				return values;
			},
			helpers: {
				httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
					const response = await httpsCall(options.url, { method: 'POST', headers: options.headers as Record<string, string>, body: options.body as Buffer, ca: bank().tls.caPem });
					return { statusCode: response.status, headers: response.headers, body: response.text() };
				},
			},
		} as unknown as ILoadOptionsFunctions;
	}

	/** The node's file type search (both versions have the same one). */
	function searchOf() {
		const node = new CorporateFileService();
		const [v1, v2] = [1, 2].map((version) => node.getNodeType(version).methods!.listSearch!.searchFileTypes);
		expect(v2).toBe(v1);
		return v2;
	}

	test('offers the common codes plus the types the bank reports for the user, with their names', async () => {
		const search = searchOf();
		const { results } = await search.call(editorContext(bank().credentialValues()[FILES] as IDataObject));
		const values = results.map((r) => r.value);
		expect(values).toEqual(expect.arrayContaining(['XL', 'XP', 'XT', 'camt.053.001.02', 'pain.001.001.03', 'pain.002.001.03', 'XF']));
		expect(results.find((r) => r.value === 'XF')?.name).toBe('XF: Debit credit notification camt.054.001.02, Download');
		expect(bank().stats.soapCalls).toEqual([expect.objectContaining({ operation: 'getUserInfo', signature: 'valid', responseCode: '00' })]);
	});

	test('filters by what is typed and always offers the typed code itself (never a closed list)', async () => {
		const search = searchOf();
		const camt = await search.call(editorContext(bank().credentialValues()[FILES] as IDataObject), 'camt');
		expect(camt.results.map((r) => r.value)).toEqual(['camt', 'XT', 'camt.053.001.02', 'XF']);
		const own = await search.call(editorContext(undefined), 'KTL');
		expect(own.results).toEqual([{ name: 'Use "KTL"', value: 'KTL' }]);
		const offline = await search.call(editorContext(undefined));
		expect(offline.results.map((r) => r.value)).toEqual(['XL', 'XP', 'XT', 'camt.053.001.02', 'pain.001.001.03', 'pain.002.001.03', '']);
		expect(offline.results[6].name).toMatch(/unavailable/);
	});
});
