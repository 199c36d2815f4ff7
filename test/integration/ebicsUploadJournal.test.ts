/**
 * A payment upload is never submitted twice, also when n8n stopped after its last segment went
 * out: the EBICS credential's upload journal, through the n8n engine against the sandbox bank.
 * The entry is written (through the credential's preAuthentication) before the last segment goes
 * out and removed once the bank has answered; a run of the same file while the entry is kept asks
 * the bank's customer acknowledgement (HAC) instead of sending. The journal holds no secret and
 * its writes never touch the subscriber's keys.
 */
import { createHash, randomBytes, X509Certificate } from 'node:crypto';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { formatHash, publicKeyDigest } from '../../nodes/shared/ebics';
import { EBICS_UPLOAD_JOURNAL_FIELD, readUploadJournal, type UploadJournalEntry } from '../../nodes/shared/ebics/journal/ebicsUploadJournal';
import { useSandbox } from '../helpers/bank';
import { MAKE_STREAMED_FILE, streamedFileNodes } from '../helpers/binaryNodes';
import { painFile } from '../helpers/ebics';
import { credentialTest, EBICS, EBICS_ID, ebicsSecrets, ebicsStore, ebicsValues, errorText, items, runEbics, stored } from '../helpers/ebicsNode';
import { NODE_NAME, PACKAGE, packageCredentialTypes, packageNodeTypes } from '../helpers/nodes';
import { chainWorkflow, runWorkflow, type CredentialStore, type RunResult } from '../harness/engine';
import { armHold, releaseHolds, whenHeld } from '../sandbox/ebics';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const ready = () => bank().ebics.subscriber('PARTNER2', 'READY1')!;
const OWNER = () => `${bank().ebics.hostId}/PARTNER2/READY1`;
const ORDER = 'BTU SCT pain.001';
const MIB = 1024 * 1024;
const UPLOAD = { operation: 'upload', uploadService: 'custom', serviceName: 'SCT', msgName: 'pain.001' };

let store: CredentialStore;
beforeEach(() => {
	store = ebicsStore(ebicsValues(bank()));
	bank().ebics.switches.validateSchema = false;
});
afterEach(() => releaseHolds(bank().ebics, false));

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

function fileItem(data: Buffer): INodeExecutionData[] {
	return [{ json: {}, binary: { data: { data: data.toString('base64'), mimeType: 'application/octet-stream', fileName: 'batch.bin' } } }];
}

async function upload(data: Buffer, options: IDataObject = {}): Promise<RunResult> {
	return await runEbics(store, { ...UPLOAD, options: { checkSchema: false, ...options } }, fileItem(data));
}

function journal(): UploadJournalEntry[] {
	return readUploadJournal(stored(store)[EBICS_UPLOAD_JOURNAL_FIELD]).entries;
}

/** Puts an entry into the stored journal, as a run that n8n lost after its last segment left it. */
function leaveEntry(entry: Partial<UploadJournalEntry> & { sha256: string }): void {
	const full: UploadJournalEntry = { owner: OWNER(), order: ORDER, at: new Date().toISOString(), ...entry };
	const row = store.get(EBICS_ID)!;
	store.set({ ...row, data: { ...row.data, [EBICS_UPLOAD_JOURNAL_FIELD]: JSON.stringify({ v: 1, entries: [...journal(), full] }) } });
}

/** BTU initialisations and upload transfers the bank got since `from`. */
function sent(from: number): { inits: number; transfers: number } {
	const rows = bank().ebics.records.slice(from).filter((r) => r.orderType === 'BTU' || (r.phase === 'Transfer' && r.orderType !== 'HAC'));
	return { inits: rows.filter((r) => r.phase === 'Initialisation').length, transfers: rows.filter((r) => r.phase === 'Transfer').length };
}

const hacRequests = (from: number): number => bank().ebics.records.slice(from).filter((r) => r.orderType === 'HAC' && r.phase === 'Initialisation').length;

test('the upload is in the journal before its last segment goes out and gone once the bank answered; its writes leave the keys and the check as they were; no secret in it', async () => {
	// A first upload brings the credential to where it stays (the bank's keys fetched).
	items(await upload(randomBytes(1000)));
	const before = stored(store);
	const writesBefore = store.history.length;
	const data = randomBytes(2 * MIB);
	armHold(bank().ebics, 'lastSegment');
	const running = upload(data);
	await whenHeld(bank().ebics, 'lastSegment');
	const entries = journal();
	expect(entries).toEqual([{ owner: OWNER(), order: ORDER, sha256: sha(data), orderId: expect.stringMatching(/^[A-Z0-9]{4,}$/), at: expect.any(String) }]);
	expect(ready().uploads).toHaveLength(1);
	releaseHolds(bank().ebics, true);
	const out = items(await running)[0].json;
	expect(ready().uploads).toHaveLength(2);
	expect(out).toMatchObject({ orderId: entries[0].orderId, sha256: sha(data), segments: 3 });
	expect(out.alreadySubmitted).toBeUndefined();
	expect(journal()).toEqual([]);
	// Two writes (the entry, then its removal); neither changed the keys, the state or the check.
	const writes = store.history.slice(writesBefore).map((h) => h.data);
	expect(writes).toHaveLength(2);
	for (const written of [...writes, stored(store)]) {
		expect(written.ebicsState).toBe(before.ebicsState);
		expect(written.ebicsCheck).toBe(before.ebicsCheck);
		expect(written.ebicsUploadJournalWrite).toBe('');
	}
	const secrets = ebicsSecrets(bank(), store);
	expect(secrets.scan(writes.map((w, i) => ({ where: `journal write ${i + 1}`, text: `${String(w.ebicsUploadJournal)} ${String(w.ebicsUploadJournalWrite)}` })))).toEqual([]);
});

test('the answer to the last segment is lost; the same file run again is not sent: HAC lists the order, the item says it was submitted already', async () => {
	const data = randomBytes(2 * MIB);
	bank().ebics.faults.push('dropLastUploadAnswer');
	const lost = await upload(data);
	expect(lost.status).toBe('error');
	expect(ready().uploads).toHaveLength(1);
	const orderId = ready().uploads[0].orderId;
	expect(errorText(lost)).toContain('The upload is kept in the credential: running this file again does not send it but asks the bank (HAC) whether it has the order.');
	expect(journal()).toEqual([expect.objectContaining({ sha256: sha(data), orderId })]);

	const from = bank().ebics.records.length;
	const again = await upload(data);
	const out = items(again)[0].json;
	expect(out).toMatchObject({ orderId, alreadySubmitted: true, sha256: sha(data), service: ORDER, submittedAt: firstJournalEntry().at });
	// Also an order not sent again names the subscriber it was signed as.
	expect(out).toMatchObject(ready().uploads[0].signer);
	expect(out.hac).toEqual(expect.arrayContaining([expect.objectContaining({ action: 'ORDER_HAC_FINAL_POS' })]));
	expect(ready().uploads).toHaveLength(1);
	expect(sent(from)).toEqual({ inits: 0, transfers: 0 });
	expect(hacRequests(from)).toBe(1);
	// Looked at only: the bank still delivers the acknowledgement to a download of what is new.
	expect(ready().orderLog.every((e) => !e.delivered.HAC)).toBe(true);
	expect(journal()).toEqual([]);
	expect(ebicsSecrets(bank(), store).scan(shownBy(again))).toEqual([]);
});

/** The first entry n8n stored in the journal (from the credential's history). */
function firstJournalEntry(): UploadJournalEntry {
	const written = store.history.map((h) => readUploadJournal(h.data[EBICS_UPLOAD_JOURNAL_FIELD]).entries).find((e) => e.length);
	return written![0];
}

test('HAC does not list the order: a clear error naming the order, the time and what to check; nothing sent; the entry stays', async () => {
	const data = randomBytes(2 * MIB);
	leaveEntry({ sha256: sha(data), orderId: 'Z999', at: '2026-11-26T10:00:00.000Z' });
	const from = bank().ebics.records.length;
	const result = await upload(data);
	expect(result.status).toBe('error');
	const error = result.nodeError(NODE_NAME) as Error & { description?: string };
	expect(error.name).toBe('NodeOperationError');
	expect(error.message).toBe("Not sent: this file was sent as order Z999 (BTU SCT pain.001) on 2026-11-26T10:00:00.000Z and the bank's answer to its last segment never came, so the bank may have it");
	expect(error.description).toMatch(/^n8n did not send the file again: the customer acknowledgement \(HAC\) of \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d (does not list order Z999|is empty)\.\n/);
	expect(error.description).toContain('Check the Customer Protocol (PTK) or the Customer Acknowledgement (HAC) of 2026-11-26 for order Z999');
	expect(error.description).toContain('switch on "Send Again After an Interrupted Upload" (Options) and run again');
	expect(sent(from)).toEqual({ inits: 0, transfers: 0 });
	expect(ready().uploads).toEqual([]);
	expect(journal()).toEqual([expect.objectContaining({ orderId: 'Z999' })]);
});

test('"Send Again After an Interrupted Upload": the entry is cleared and the file sent once more, as one new order', async () => {
	const data = randomBytes(2 * MIB);
	leaveEntry({ sha256: sha(data), orderId: 'Z998' });
	const from = bank().ebics.records.length;
	const out = items(await upload(data, { sendAgainAfterInterruption: true }))[0].json;
	expect(ready().uploads).toHaveLength(1);
	expect(ready().uploads[0]).toMatchObject({ orderId: out.orderId, sha256: sha(data) });
	expect(out.earlierAttempt).toMatchObject({ orderId: 'Z998', state: 'not checked' });
	expect(sent(from)).toEqual({ inits: 1, transfers: 3 });
	expect(hacRequests(from)).toBe(0);
	expect(journal()).toEqual([]);
});

test('HAC lists the earlier order as refused: the file is sent as a new order, the item names the refused one', async () => {
	const data = randomBytes(1000);
	bank().ebics.logOrder(ready(), { orderId: 'R001', orderType: 'BTU', accepted: false, reasonCode: 'DS0B', text: '091301 EBICS_SIGNATURE_VERIFICATION_FAILED' });
	leaveEntry({ sha256: sha(data), orderId: 'R001' });
	const out = items(await upload(data))[0].json;
	expect(ready().uploads).toHaveLength(1);
	expect(out.orderId).toBe(ready().uploads[0].orderId);
	expect(out.earlierAttempt).toMatchObject({ orderId: 'R001', state: 'refused', hac: expect.arrayContaining([expect.objectContaining({ action: 'ORDER_HAC_FINAL_NEG' })]) });
	expect(journal()).toEqual([]);
});

test('another file, or the same file for another service, is sent as usual; the entry of the interrupted one stays', async () => {
	const interrupted = randomBytes(1000);
	leaveEntry({ sha256: sha(interrupted), orderId: 'Z997' });
	const from = bank().ebics.records.length;
	const other = randomBytes(1000);
	const out = items(await upload(other))[0].json;
	expect(out).toMatchObject({ sha256: sha(other) });
	const sameFileOtherService = items(await runEbics(store, { ...UPLOAD, msgName: 'pain.008', serviceName: 'SDD', options: { checkSchema: false } }, fileItem(interrupted)))[0].json;
	expect(sameFileOtherService).toMatchObject({ sha256: sha(interrupted), service: 'BTU SDD pain.008' });
	expect(ready().uploads).toHaveLength(2);
	expect(hacRequests(from)).toBe(0);
	expect(journal()).toEqual([expect.objectContaining({ orderId: 'Z997' })]);
});

test('a large file streamed from n8n storage: after a lost answer the same file is not sent again', async () => {
	const run = async (): Promise<RunResult> =>
		await runWorkflow({
			workflow: chainWorkflow(
				[
					{ name: 'Make', type: MAKE_STREAMED_FILE, parameters: { size: 6 * MIB, fileName: 'batch.bin' } },
					{ name: NODE_NAME, type: `${PACKAGE}.ebics`, parameters: { ...UPLOAD, options: { checkSchema: false } } },
				],
				{ [`${PACKAGE}.ebics`]: { [EBICS]: { id: EBICS_ID, name: 'EBICS (sandbox)' } } },
			),
			nodeTypes: { ...packageNodeTypes(), ...streamedFileNodes() },
			credentialTypes: packageCredentialTypes(),
			credentials: store,
			binaryDataMode: 'filesystem',
		});
	bank().ebics.faults.push('dropLastUploadAnswer');
	const lost = await run();
	expect(lost.status).toBe('error');
	const made = lost.output('Make')[0].json.sha256;
	expect(journal()).toEqual([expect.objectContaining({ sha256: made, orderId: ready().uploads[0].orderId })]);
	const out = items(await run())[0].json;
	expect(out).toMatchObject({ alreadySubmitted: true, orderId: ready().uploads[0].orderId, sha256: made });
	expect(ready().uploads).toHaveLength(1);
});

describe('an EBICS 2.5 (H004) credential: the same journal', () => {
	test('the CCT upload is in the journal before its last segment; run again with its entry left behind, HAC names the order and nothing is sent', async () => {
		const keyHash = (pem: string): string => formatHash(publicKeyDigest(new X509Certificate(pem).publicKey));
		store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { ebicsVersion: 'H004', bankAuthenticationHash: keyHash(bank().ebics.bankAuthentication.certificatePem), bankEncryptionHash: keyHash(bank().ebics.bankEncryption.certificatePem) }));
		await credentialTest(store);
		bank().ebics.activate('PARTNER1', 'USER1');
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		const subscriber = bank().ebics.subscriber('PARTNER1', 'USER1')!;
		const file = painFile('MSG-H004-JOURNAL', { version: 'pain.001.001.03' });
		const run = async (): Promise<RunResult> => await runEbics(store, { operation: 'upload', uploadService: 'sct' }, fileItem(file));

		armHold(bank().ebics, 'lastSegment');
		const running = run();
		await whenHeld(bank().ebics, 'lastSegment');
		const owner = `${bank().ebics.hostId}/PARTNER1/USER1`;
		const [entry] = journal();
		expect(entry).toEqual({ owner, order: 'CCT (SEPA credit transfer pain.001)', sha256: sha(file), orderId: expect.stringMatching(/^[A-Z0-9]{4}$/), at: expect.any(String) });
		releaseHolds(bank().ebics, true);
		const sent = items(await running)[0].json;
		expect(sent).toMatchObject({ orderType: 'CCT', orderId: entry.orderId });
		expect(journal()).toEqual([]);

		// As if n8n had been killed before the bank's answer to the last segment arrived.
		leaveEntry(entry);
		const from = bank().ebics.records.length;
		const again = items(await run())[0].json;
		expect(again).toMatchObject({ alreadySubmitted: true, orderId: entry.orderId, orderType: 'CCT', sha256: sha(file) });
		expect(subscriber.uploads).toHaveLength(1);
		expect(bank().ebics.records.slice(from).map((r) => r.orderType)).not.toContain('CCT');
		expect(journal()).toEqual([]);
	});
});
