/**
 * An EBICS 2.5 (H004) credential and the EBICS node through the n8n engine against the sandbox
 * bank: keys made in n8n sent with INI and HIA in H004, the letters with the hashes of exponent
 * and modulus, activation, HPB against the bank's H004 hashes, a CCT upload from the SEPA credit
 * transfer preset, C53 from the camt.053 preset with its receipt, HAC, STA and FDL chosen as
 * order types; HTD, HKD and HAA read as EBICS 2.5 writes them; and the choices that do not fit the credential's version refused by name before
 * anything is sent. The distributed signature in H004: ebicsH004Veu.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { INodeExecutionData } from 'n8n-workflow';

import { formatHash, publicKeyDigest } from '../../nodes/shared/ebics';
import type { CredentialStore } from '../harness/engine';
import { useSandbox } from '../helpers/bank';
import { painFile } from '../helpers/ebics';
import { bankH004Hashes as bankH004HashesOf, bankRecords, credentialTest, h004KeyHash, ebicsStore, ebicsValues, errorText, hints, items, runEbics, runEbicsThenInspect, sandboxBankParameters, storedState } from '../helpers/ebicsNode';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();

const bankH004Hashes = () => bankH004HashesOf(bank());

/** An EBICS 2.5 credential of PARTNER1/USER1 initialised, activated at the bank and tested (HPB). */
async function readyH004Store(): Promise<CredentialStore> {
	const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { ebicsVersion: 'H004', ...bankH004Hashes() }));
	await credentialTest(store);
	bank().ebics.activate('PARTNER1', 'USER1');
	expect(await credentialTest(store)).toEqual({ status: 'OK' });
	return store;
}

function fileItem(data: Buffer, fileName = 'payments.xml'): INodeExecutionData[] {
	return [{ json: {}, binary: { data: { data: data.toString('base64'), mimeType: 'application/xml', fileName } } }];
}

describe('an EBICS 2.5 (H004) credential', () => {
	test('from a new subscriber to a payment sent and the statements fetched', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { ebicsVersion: 'H004', h004KeyForm: 'key', ...bankH004Hashes() }));
		// Saving the credential sends INI and HIA in H004.
		const saved = await credentialTest(store);
		expect(saved.message).toMatch(/^Letters sent/);
		const subscriber = bank().ebics.subscriber('PARTNER1', 'USER1')!;
		expect(subscriber).toMatchObject({ state: 'initialised', protocol: 'H004' });
		expect(bankRecords(bank(), 'USER1')).toEqual([
			['INI', '', '000000', '000000'],
			['HIA', '', '000000', '000000'],
		]);
		// The letters print the hashes of exponent and modulus, which the bank compares with the keys it got.
		const [letter] = items(await runEbics(store, { operation: 'initialisationLetters' }));
		const keys = storedState(store)!.generated!;
		// As fields, the letters' two lines of byte pairs are one line.
		const oneLine = (hash: string) => hash.replace('\n', ' ');
		expect(letter.json).toMatchObject({
			ebicsVersion: 'H004',
			signatureHash: oneLine(h004KeyHash(keys.signature.certificatePem)),
			authenticationHash: oneLine(h004KeyHash(keys.authentication.certificatePem)),
			encryptionHash: oneLine(h004KeyHash(keys.encryption.certificatePem)),
		});
		expect(letter.json.signatureHash).toBe(oneLine(formatHash(publicKeyDigest(subscriber.keys.signature!.publicKey))));
		// Activated: the next test fetches the bank's keys and checks them against its H004 letter.
		bank().ebics.activate('PARTNER1', 'USER1');
		expect(await credentialTest(store)).toEqual({ status: 'OK' });
		expect(storedState(store)).toMatchObject({ phase: 'ready', bank: { hashes: { authentication: bankH004Hashes().bankAuthenticationHash } } });

		// The SEPA credit transfer preset goes as CCT.
		const file = painFile('MSG-H004-NODE', { version: 'pain.001.001.03' });
		const beforeUpload = bank().ebics.records.length;
		const [sent] = items(await runEbics(store, { operation: 'upload', uploadService: 'sct' }, fileItem(file)));
		// It changes the bank's books: its initialisation and its one (last) segment each go on a
		// connection of their own, never on one kept alive from an earlier request.
		const upload = bank().ebics.records.slice(beforeUpload);
		expect(upload.map((r) => r.phase)).toEqual(['Initialisation', 'Transfer']);
		for (const [i, r] of upload.entries()) expect(r.connection).toBeGreaterThan(Math.max(0, ...bank().ebics.records.slice(0, beforeUpload + i).map((e) => e.connection ?? 0)));
		expect(sent.json).toMatchObject({ orderType: 'CCT', service: 'CCT (SEPA credit transfer pain.001)', signature: 'authorise', returnCodes: { technical: '000000', business: '000000' } });
		const stored = subscriber.uploads.find((u) => u.orderId === sent.json.orderId)!;
		expect(stored.orderType).toBe('CCT');
		expect(stored.data.equals(file)).toBe(true);

		// The camt.053 preset goes as C53, with the positive receipt once n8n holds the files.
		const expected = subscriber.files.filter((f) => f.serviceName === 'EOP' && f.msgName === 'camt.053');
		const statements = items(await runEbics(store, { operation: 'download', downloadService: 'camt053' }));
		expect(statements.map((i) => i.json.fileName)).toEqual(expected.map((f) => f.name));
		expect(statements[0].json).toMatchObject({ orderType: 'C53', service: 'C53 (End-of-day statement camt.053)', receipt: 'positive' });
		expect(expected.every((f) => f.delivered)).toBe(true);
		expect(items(await runEbics(store, { operation: 'download', downloadService: 'camt053' }))).toEqual([]);

		// The customer acknowledgement (HAC) names the CCT order.
		const hac = items(await runEbics(store, { operation: 'customerAcknowledgement' }));
		expect(JSON.stringify(hac.map((i) => i.json))).toContain(String(sent.json.orderId));

		// Order types chosen: STA, and FDL with a file format.
		const sta = items(await runEbics(store, { operation: 'download', downloadService: 'orderType', downloadOrderType: 'STA' }));
		expect(sta[0].json).toMatchObject({ orderType: 'STA', fileName: 'mt940.txt' });
		const fdl = items(await runEbics(store, { operation: 'download', downloadService: 'orderType', downloadOrderType: 'FDL', downloadFileFormat: 'camt.052.001.02' }));
		expect(fdl[0].json).toMatchObject({ orderType: 'FDL', service: 'FDL camt.052.001.02 (File by its format)' });
		expect(bankRecords(bank(), 'USER1').filter((r) => r[0] === 'BTD' || r[0] === 'BTU')).toEqual([]);

		// The bank's parameters (HPD) as fields, from H004's HPDResponseOrderData.
		const [hpd] = items(await runEbics(store, { operation: 'bankParameters' }));
		expect(hpd.json).toEqual(sandboxBankParameters('H004'));
		expect(bankRecords(bank(), 'USER1').filter((r) => r[0] === 'HPD').at(-1)).toEqual(['HPD', 'Initialisation', '000000', '000000']);
	});

	test('Get Subscriber Permissions, Get Customer Data and Get Available Downloads read the EBICS 2.5 answers (HTD, HKD, HAA) and acknowledge them', async () => {
		const store = await readyH004Store();
		const subscriber = bank().ebics.subscriber('PARTNER1', 'USER1')!;
		const before = bank().ebics.records.length;
		const user = { userId: 'USER1', userName: 'Erika Mustermann', userStatus: 1 };
		const permissions = items(await runEbics(store, { operation: 'subscriberPermissions' })).map((i) => i.json);
		// The bank's contract in EBICS 2.5: downloads by their order type without a signature class, uploads with the user's class E for account ACC1.
		expect(permissions).toContainEqual({ ...user, orderType: 'C53' });
		expect(permissions).toContainEqual({ ...user, orderType: 'CCT', accountId: 'ACC1', iban: subscriber.iban, signatureClass: 'E', signatureClassText: 'single signature' });
		expect(permissions.every((p) => /^[A-Z0-9]{3}$/.test(String(p.orderType)))).toBe(true);
		const orders = items(await runEbics(store, { operation: 'customerData', infoOutput: 'orders' })).map((i) => i.json);
		expect(orders).toContainEqual({ orderType: 'C53', transferType: 'Download', description: 'camt.053 (C53)' });
		expect(orders).toContainEqual({ orderType: 'CCT', transferType: 'Upload', description: 'pain.001 (CCT)', signaturesRequired: 1 });
		const users = items(await runEbics(store, { operation: 'customerData', infoOutput: 'whole' }))[0].json as { users: Array<{ userId: string }> };
		expect(users.users.map((u) => u.userId)).toEqual(['USER1', 'USER2']);
		const waiting = items(await runEbics(store, { operation: 'availableDownloads' })).map((i) => i.json);
		const statements = subscriber.files.filter((f) => !f.delivered && f.serviceName === 'EOP' && f.msgName === 'camt.053');
		expect(statements.length).toBeGreaterThan(0);
		expect(waiting).toContainEqual({ service: 'C53 (End-of-day statement camt.053)', orderType: 'C53', preset: 'End-of-day statement (camt.053)' });
		expect(waiting.every((w) => typeof w.orderType === 'string' && 'preset' in w)).toBe(true);
		// Each read in H004, then acknowledged (positive receipt); nothing refused.
		const records = bank().ebics.records.slice(before).filter((r) => r.userId === 'USER1' || !r.userId);
		expect(records.filter((r) => r.phase === 'Initialisation').map((r) => `${r.protocol} ${r.orderType} ${r.technical} ${r.business}`)).toEqual([
			'H004 HTD 000000 000000',
			'H004 HKD 000000 000000',
			'H004 HKD 000000 000000',
			'H004 HAA 000000 000000',
		]);
		expect(records.filter((r) => r.phase === 'Receipt').map((r) => r.technical)).toEqual(['011000', '011000', '011000', '011000']);
	});

	test("an upload whose initialisation gets no answer is not sent again, and the error says the bank does not process the incomplete order", async () => {
		const store = await readyH004Store();
		const before = bank().ebics.records.length;
		// The bank opens the transaction, then the connection closes without its answer.
		bank().faults.add({ kind: 'drop', area: 'ebics', phase: 'after', count: 1 });
		const result = await runEbics(store, { operation: 'upload', uploadService: 'sct' }, fileItem(painFile('MSG-H004-LOST', { version: 'pain.001.001.03' })));
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(/CCT initialisation/);
		expect(errorText(result)).toMatch(/The upload stopped before its last segment: the bank does not process an incomplete order\. Send the file again\./);
		expect(errorText(result)).not.toMatch(/download is delivered again/);
		expect(bank().ebics.records.slice(before).map((r) => r.phase)).toEqual(['Initialisation']);
		expect(bank().ebics.subscriber('PARTNER1', 'USER1')!.uploads).toEqual([]);
	});

	test('segments each a base64 value of its own (ending in "==" and "="), and a download that broke off: no receipt', async () => {
		const store = await readyH004Store();
		bank().ebics.switches.base64PerSegment = true;
		const content = randomBytes(6000);
		const sha256 = createHash('sha256').update(content).digest('hex');
		for (const [segmentBytes, padding] of [[1000, '=='], [1001, '=']] as const) {
			bank().ebics.switches.segmentBytes = segmentBytes;
			const file = bank().ebics.addFile('PARTNER1', 'USER1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content });
			const sent = jest.spyOn(bank().ebics, 'segmentText');
			const result = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'orderType', downloadOrderType: 'VMK' });
			const texts = sent.mock.results.map((r) => r.value as string);
			sent.mockRestore();
			// Full segments (1,336 characters); one asked for again is made again, so texts may hold it twice.
			const full = texts.filter((t) => t.length === 1336);
			expect(full.length).toBeGreaterThanOrEqual(5);
			expect(full.every((t) => /[^=]={2}$/.test(t) === (padding === '==') && t.endsWith('='))).toBe(true);
			expect(items(result)[0].json).toMatchObject({ orderType: 'VMK', receipt: 'positive' });
			expect(items(result)[0].json.segments).toBeGreaterThanOrEqual(6);
			expect(result.output('Inspect')[0].json.sha256).toBe(sha256);
			expect(file.delivered).toBe(true);
		}

		// Segment 2's answer never comes: the error says so, and no receipt goes to the bank.
		const file = bank().ebics.addFile('PARTNER1', 'USER1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content });
		const before = bank().ebics.records.length;
		bank().ebics.faults.push(...Array.from({ length: 10 }, () => 'dropDownloadAnswer' as const));
		const broke = await runEbics(store, { operation: 'download', downloadService: 'orderType', downloadOrderType: 'VMK' });
		bank().ebics.faults.length = 0;
		expect(errorText(broke)).toMatch(/^VMK transfer of segment 2 of \d+: no answer came, also not when the segment was sent again\nThe transfer broke off at segment 2 of \d+, so n8n sent no receipt/);
		expect(bank().ebics.records.slice(before).filter((r) => r.phase === 'Receipt')).toEqual([]);
		expect(file.delivered).toBe(false);
	});

	test('a preset without an EBICS 2.5 order type or a bad file format is refused by name; nothing is sent', async () => {
		const store = await readyH004Store();
		const before = bank().ebics.records.length;
		const instant = await runEbics(store, { operation: 'upload', uploadService: 'sctInstant' }, fileItem(painFile('MSG-SCI', { version: 'pain.001.001.03' })));
		expect(errorText(instant)).toMatch(/^Service: SEPA instant credit transfer \(pain\.001\) has no EBICS 2\.5 order type common to all banks, and the credential's EBICS Version is H004/);
		const status = await runEbics(store, { operation: 'download', downloadService: 'pain002' });
		expect(errorText(status)).toMatch(/e\.g\. CRZ or Z01 for pain\.002 status reports\)\. Nothing was sent to the bank/);
		const format = await runEbics(store, { operation: 'download', downloadService: 'orderType', downloadOrderType: 'FDL', downloadFileFormat: 'camt 053' });
		expect(errorText(format)).toMatch(/^File format "camt 053" is not valid/);
		expect(bank().ebics.records.slice(before).filter((r) => r.phase === 'Initialisation')).toEqual([]);
	});
});

describe("a credential's first use (the bank's keys not fetched yet)", () => {
	/** A subscriber the bank has activated, whose credential has never fetched the bank's keys (HPB). */
	async function activatedNotFetched(userId: string) {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', userId, { ebicsVersion: 'H004', ...bankH004Hashes() }));
		expect((await credentialTest(store)).message).toMatch(/^Letters sent/);
		bank().ebics.activate('PARTNER1', userId);
		expect(storedState(store)).not.toMatchObject({ phase: 'ready' });
		return { store, sent: () => bankRecords(bank(), userId).slice(2) };
	}
	const otherOrderType = (typed: string) => ({ operation: 'download', downloadService: 'orderType', downloadOrderType: 'other', downloadOtherOrderType: typed });
	const twoItems = [{ json: { n: 1 } }, { json: { n: 2 } }];

	test("wrong fields are refused naming the field before anything is sent, the bank's keys included", async () => {
		const { store, sent } = await activatedNotFetched('USER1');
		const typed = await runEbics(store, otherOrderType('c53'));
		expect(errorText(typed)).toMatch(/^Other Order Type: "c53" is not valid: it must be three upper-case letters or digits/);
		const format = await runEbics(store, { operation: 'download', downloadService: 'orderType', downloadOrderType: 'FDL', downloadFileFormat: 'camt 053' });
		expect(errorText(format)).toMatch(/^File format "camt 053" is not valid/);
		const range = await runEbics(store, { operation: 'customerProtocol', which: 'dateRange', startDate: '2026-01-09', endDate: '2026-01-05' });
		expect(errorText(range)).toMatch(/the start 2026-01-09 is after the end 2026-01-05/);
		const veu = await runEbics(store, { operation: 'veuSign', veuOrderId: 'A1', veuOrderType: 'CCT', confirmedDigest: '00' });
		expect(errorText(veu)).toMatch(/Order ID "A1" is not valid/);
		const suspend = await runEbics(store, { operation: 'suspend', confirmSuspend: false });
		expect(errorText(suspend)).toMatch(/^Confirm Suspension: switch it on/);
		expect(sent()).toEqual([]);
		expect(storedState(store)).not.toMatchObject({ phase: 'ready' });
	});

	test('one wrong item of several stops the run before anything is sent; with Continue On Fail the others go', async () => {
		const { store, sent } = await activatedNotFetched('USER1');
		const expressions = { ...otherOrderType('={{ $json.n === 1 ? "STA" : "st a" }}') };
		const stopped = await runEbics(store, expressions, twoItems);
		expect(errorText(stopped)).toMatch(/^Other Order Type: "st a" is not valid/);
		expect((stopped.nodeError('Bank') as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex).toBe(1);
		expect(sent()).toEqual([]);

		// Every item wrong, Continue On Fail: error items, and still nothing sent.
		const allWrong = await runEbics(store, otherOrderType('st a'), twoItems, { onError: 'continueRegularOutput' });
		expect(items(allWrong).map((i) => i.json.error)).toEqual([expect.stringMatching(/^Other Order Type: "st a" is not valid/), expect.stringMatching(/^Other Order Type: "st a" is not valid/)]);
		expect(sent()).toEqual([]);

		// One right: the bank's keys are fetched and STA downloaded for it; the wrong one is its error item.
		const oneRight = items(await runEbics(store, expressions, twoItems, { onError: 'continueRegularOutput' }));
		expect(oneRight.map((i) => [i.json.orderType ?? null, i.pairedItem])).toEqual([
			['STA', { item: 0 }],
			[null, { item: 1 }],
		]);
		expect(oneRight[1].json.error).toMatch(/^Other Order Type: "st a" is not valid/);
		expect(sent()).toEqual([
			['HPB', '', '000000', '000000'],
			['STA', 'Initialisation', '000000', '000000'],
		]);
	});
});

describe('Bank Versions with an EBICS 2.5 credential', () => {
	test('marks H004 as the version the credential uses, and warns when the bank does not offer it', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1', { ebicsVersion: 'H004' }));
		const result = await runEbics(store, { operation: 'bankVersions' });
		expect(items(result).map((i) => [i.json.protocol, i.json.spokenByThisNode, i.json.usedByThisCredential])).toEqual([
			['H004', true, true],
			['H005', true, false],
		]);
		expect(hints(result)).toEqual([]);
		bank().ebics.switches.offerH004 = false;
		const only3 = await runEbics(store, { operation: 'bankVersions' });
		expect(hints(only3)).toEqual(["The bank does not offer EBICS 2.5 (H004), which this credential is set to: it offers H005 (03.00). Set the credential's EBICS Version to H005."]);
	});
});

describe('an EBICS 3.0 (H005) credential', () => {
	test('refuses the EBICS 2.5 order type choice by name; nothing is sent', async () => {
		const store = ebicsStore(ebicsValues(bank()));
		const before = bank().ebics.records.length;
		const result = await runEbics(store, { operation: 'download', downloadService: 'orderType', downloadOrderType: 'C53' });
		expect(errorText(result)).toMatch(/^Service: EBICS 2\.5 order types need a credential whose EBICS Version is H004 \(EBICS 2\.5\); this credential speaks EBICS 3\.0 \(H005\)/);
		expect(bank().ebics.records.slice(before).filter((r) => r.phase === 'Initialisation')).toEqual([]);
	});

	test('an EBICS Version that is neither is refused naming the field', async () => {
		const store = ebicsStore(ebicsValues(bank(), 'PARTNER2', 'READY1', { ebicsVersion: 'H003' }));
		const result = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
		expect(errorText(result)).toMatch(/EBICS Version: "H003" is not one of H005 \(EBICS 3\.0\) or H004 \(EBICS 2\.5\)/);
	});
});
