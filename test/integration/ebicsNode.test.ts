/**
 * Every operation of the EBICS node through the n8n engine against the sandbox EBICS bank (the
 * subscriber PARTNER2/READY1, its keys imported into the credential): downloads with their
 * receipts, uploads checked against their schema and signed, the administrative orders; and
 * what a bad bank or a bad file does: each a clear error naming what is wrong, nothing sent or
 * acknowledged at the bank that should not be, no key in anything a run shows.
 */
import { createHash } from 'node:crypto';

import type { INodeExecutionData } from 'n8n-workflow';

import { buildDirectDebitFile } from '../../nodes/shared/bankfiles/pain008';
import { useSandbox } from '../helpers/bank';
import { painFile } from '../helpers/ebics';
import { bankRecords, ebicsSecrets, ebicsStore, ebicsValues, errorText, hints, items, runEbics, runEbicsThenInspect, sandboxBankParameters, storedState } from '../helpers/ebicsNode';
import type { CredentialStore } from '../harness/engine';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const ready = () => bank().ebics.subscriber('PARTNER2', 'READY1')!;

let store: CredentialStore;
beforeEach(() => {
	store = ebicsStore(ebicsValues(bank()));
});

function fileItem(data: Buffer, fileName = 'payments.xml'): INodeExecutionData[] {
	return [{ json: {}, binary: { data: { data: data.toString('base64'), mimeType: 'application/xml', fileName } } }];
}

async function upload(parameters: Record<string, unknown>, data: Buffer) {
	return await runEbics(store, { operation: 'upload', ...parameters }, fileItem(data));
}

function uploadsOfReady(): number {
	return ready().uploads.length;
}

describe('Download', () => {
	test('end-of-day statements (camt.053): one item per statement of the ZIP, each file in n8n; the bank marks them delivered after, and the next run has none (090005)', async () => {
		const expected = ready().files.filter((f) => f.serviceName === 'EOP' && f.msgName === 'camt.053');
		expect(expected.length).toBe(5);
		const result = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'camt053' });
		const out = items(result);
		expect(out.map((i) => i.json.fileName)).toEqual(expected.map((f) => f.name));
		expect(out[0].json).toMatchObject({ service: 'BTD EOP camt.053 ZIP', serviceName: 'EOP', msgName: 'camt.053', orderType: 'BTD', fileIndex: 1, fileCount: 5, receipt: 'positive', mimeType: 'application/xml' });
		// What the next node reads back from n8n's storage is each file as the bank holds it.
		const inspected = result.output('Inspect').map((i) => i.json);
		expect(inspected.map((i) => i.sha256)).toEqual(expected.map((f) => createHash('sha256').update(f.content).digest('hex')));
		expect(expected.every((f) => f.delivered)).toBe(true);

		const again = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
		expect(again.status).toBe('success');
		expect(items(again)).toEqual([]);
		expect(hints(again)).toEqual([expect.stringMatching(/^The bank has no BTD EOP camt\.053 ZIP data to download \(EBICS 090005 EBICS_NO_DOWNLOAD_DATA_AVAILABLE\): no items/)]);
		// The hint names the Which Data choice that brings the files downloaded before, as the panel names it.
		expect(hints(again)[0]).toContain('Which Data is "New (Not Downloaded Yet)": the bank gives only what it has not delivered yet, and what an earlier run downloaded (a test step too) is delivered. To download it again, set Which Data to "Date Range (Again, Delivered or Not)" with its Start Date and End Date.');
	});

	test('a date range fetches statements again, delivered or not', async () => {
		items(await runEbics(store, { operation: 'download', downloadService: 'camt053' }));
		const dates = ready().files.filter((f) => f.msgName === 'camt.053').map((f) => f.date).sort();
		const result = await runEbics(store, { operation: 'download', downloadService: 'camt053', which: 'dateRange', startDate: `${dates[1]}T00:00:00`, endDate: dates[2] });
		expect(items(result).map((i) => i.json.fileName)).toEqual([expect.stringContaining(dates[1]), expect.stringContaining(dates[2])]);
		// Days the bank has nothing of: the hint names them, and no other Which Data could bring more.
		const none = await runEbics(store, { operation: 'download', downloadService: 'camt053', which: 'dateRange', startDate: '2020-01-06', endDate: '2020-01-07' });
		expect(items(none)).toEqual([]);
		expect(hints(none)).toEqual([expect.stringMatching(/^The bank has no BTD EOP camt\.053 ZIP data from 2020-01-06 to 2020-01-07 to download \(EBICS 090005 EBICS_NO_DOWNLOAD_DATA_AVAILABLE\): no items\. Set "Always Output Data"/)]);
	});

	test('MT940 (no container): one file; Keep at the Bank sends the negative receipt, so it comes again', async () => {
		const kept = await runEbics(store, { operation: 'download', downloadService: 'mt940', options: { keepAtBank: true } });
		expect(items(kept)).toEqual([expect.objectContaining({ json: expect.objectContaining({ fileName: 'mt940.txt', receipt: 'negative', mimeType: 'text/plain' }) })]);
		expect(ready().files.filter((f) => f.msgName === 'mt940').some((f) => f.delivered)).toBe(false);
		expect(items(await runEbics(store, { operation: 'download', downloadService: 'mt940' }))[0].json.receipt).toBe('positive');
	});

	test('a service typed in full (BTF parameters) and its scope reach the bank', async () => {
		const result = await runEbics(store, { operation: 'download', downloadService: 'custom', serviceName: 'STM', customScope: 'DE', msgName: 'camt.052', customMsgVersion: '02', container: 'ZIP' });
		expect(items(result)[0].json.service).toBe('BTD STM DE camt.052.02 ZIP');
	});

	test('a typed service that breaks the BTF rules is refused naming the field; nothing is sent', async () => {
		await runEbics(store, { operation: 'bankVersions' });
		const before = bank().ebics.records.length;
		const result = await runEbics(store, { operation: 'download', downloadService: 'custom', serviceName: 'EOP', msgName: 'Camt 053' });
		expect(errorText(result)).toMatch(/^Message Name "Camt 053" is not valid: it must be one to ten lower-case letters, digits or dots/);
		expect(errorText(result)).toMatch(/Nothing was sent to the bank/);
		const bad = await runEbics(store, { operation: 'download', downloadService: 'camt053', which: 'dateRange', startDate: 'yesterday', endDate: '2026-01-01' });
		expect(errorText(bad)).toMatch(/^Start Date: must be a date \(YYYY-MM-DD\), got "yesterday"/);
		const noSuchDay = await runEbics(store, { operation: 'download', downloadService: 'camt053', which: 'dateRange', startDate: '2026-01-01', endDate: '2026-02-30' });
		expect(errorText(noSuchDay)).toMatch(/^End Date: "2026-02-30" is not a day of the calendar/);
		expect(errorText(noSuchDay)).toMatch(/Nothing was sent to the bank/);
		// Something after the day is not taken as the day.
		const trailing = await runEbics(store, { operation: 'download', downloadService: 'camt053', which: 'dateRange', startDate: '2026-01-05 to 2026-01-09', endDate: '2026-01-09' });
		expect(errorText(trailing)).toMatch(/^Start Date: must be a date \(YYYY-MM-DD\), got "2026-01-05 to 2026-01-09"/);
		expect(bank().ebics.records.slice(before).filter((r) => r.orderType === 'BTD')).toEqual([]);
	});

	test('many segments', async () => {
		await runEbics(store, { operation: 'bankVersions' });
		bank().ebics.switches.segmentBytes = 3000;
		const big = Buffer.from(Array.from({ length: 3000 }, (_, i) => `:61:line ${i} ${Math.sin(i)}\r\n`).join(''));
		bank().ebics.addFile('PARTNER2', 'READY1', { serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', content: big });
		const result = await runEbicsThenInspect(store, { operation: 'download', downloadService: 'mt942' });
		expect(items(result)[0].json.segments).toBeGreaterThan(3);
		expect(result.output('Inspect')[0].json.sha256).toBe(createHash('sha256').update(big).digest('hex'));
	});

	test('a truncated ZIP: the error names it, the negative receipt keeps the statements at the bank, the next run gets them', async () => {
		bank().ebics.faults.push('truncateZip');
		const result = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(/^The ZIP container is damaged or cut off/);
		expect(errorText(result)).toMatch(/n8n got every segment and sent the negative receipt: the bank keeps the data and delivers it again on the next download/);
		expect(ready().files.filter((f) => f.msgName === 'camt.053').some((f) => f.delivered)).toBe(false);
		expect(items(await runEbics(store, { operation: 'download', downloadService: 'camt053' }))).toHaveLength(5);
	});

	test('a damaged segment: named, nothing acknowledged', async () => {
		bank().ebics.faults.push('damageSegment');
		const result = await runEbics(store, { operation: 'download', downloadService: 'mt940' });
		expect(errorText(result)).toMatch(/^Segment 1 of the order data is damaged: its OrderData is not base64\nThe data could not be read, so n8n did not confirm the download: the bank keeps it/);
		expect(ready().files.filter((f) => f.msgName === 'mt940').some((f) => f.delivered)).toBe(false);
	});

	test('an answer changed after the bank signed it: refused as a broken signature, nothing used or acknowledged', async () => {
		await runEbics(store, { operation: 'bankVersions' });
		bank().ebics.faults.push('tamperSignature');
		const result = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
		expect(errorText(result)).toMatch(/^The bank's answer to BTD EOP camt\.053 ZIP initialisation: the authentication signature does not match the content/);
		expect(errorText(result)).toMatch(/nothing in it was used and no receipt was sent/);
		expect(ready().files.some((f) => f.delivered)).toBe(false);
	});

	test('a service the subscriber may not use: the bank refuses it (090003) with what to do', async () => {
		const result = await runEbics(store, { operation: 'download', downloadService: 'custom', serviceName: 'XYZ', msgName: 'camt.053' });
		expect(errorText(result)).toMatch(/^BTD XYZ camt\.053 initialisation: the bank answered 090003 EBICS_AUTHORISATION_ORDER_IDENTIFIER_FAILED/);
		expect(errorText(result)).toMatch(/What to do: Ask the bank to grant the service to the subscriber/);
		expect(errorText(result)).toMatch(/EBICS return code 090003 EBICS_AUTHORISATION_ORDER_IDENTIFIER_FAILED \(business, in the body\)/);
	});
});

describe('Upload', () => {
	test('a SEPA credit transfer (pain.001.001.09): checked against the EPC schema, signed with A006, stored by the bank with its order ID', async () => {
		const file = painFile('MSG-N8N-1', { version: 'pain.001.001.09' });
		const result = await upload({ uploadService: 'sct', scope: 'DE' }, file);
		const [out] = items(result);
		expect(out.json).toMatchObject({
			orderId: expect.stringMatching(/^[A-Z][A-Z0-9]{3}$/),
			service: 'BTU SCT DE pain.001.09',
			msgVersion: '09',
			signature: 'authorise',
			fileName: 'payments.xml',
			fileSize: file.length,
			sha256: createHash('sha256').update(file).digest('hex'),
			message: 'pain.001.001.09',
			schema: 'pain.001.001.09 (EPC SEPA credit transfer)',
			returnCodes: { technical: '000000', business: '000000' },
		});
		const stored = ready().uploads.find((u) => u.orderId === out.json.orderId)!;
		// The sandbox verified the A006 signature against the order data before storing it.
		expect(stored).toMatchObject({ orderType: 'BTU', fileName: 'payments.xml', signatureFlag: 'authorise', service: expect.objectContaining({ serviceName: 'SCT', scope: 'DE', msgName: 'pain.001', msgVersion: '09' }) });
		expect(stored.data.equals(file)).toBe(true);
		// The item names the subscriber whose signature the bank verified, at the bank's host.
		expect({ partnerId: out.json.partnerId, userId: out.json.userId, hostId: out.json.hostId }).toEqual({ ...stored.signer, hostId: bank().ebics.hostId });
		expect(out.json.systemId).toBeUndefined();
	});

	test.each([
		['instant (SCI)', { uploadService: 'sctInstant' }, painFile('MSG-SCI', { version: 'pain.001.001.03' }), 'SCI', 'pain.001.001.03 (ISO 20022)'],
		['foreign in USD (XCT), plain ISO schema', { uploadService: 'xct' }, painFile('MSG-XCT', { version: 'pain.001.001.09', currency: 'USD' }), 'XCT', 'pain.001.001.09 (ISO 20022)'],
	])('%s', async (_name, parameters, file, serviceName, schema) => {
		const [out] = items(await upload(parameters, file));
		expect(out.json).toMatchObject({ serviceName, schema });
		expect(ready().uploads.find((u) => u.orderId === out.json.orderId)!.data.equals(file)).toBe(true);
	});

	test('SEPA direct debits, core and B2B (pain.008)', async () => {
		for (const [preset, scheme, option] of [['sddCore', 'CORE', 'COR'], ['sddB2b', 'B2B', 'B2B']] as const) {
			const built = await buildDirectDebitFile(
				[{ creditorName: 'Sandbox Customer GmbH', creditorIban: 'DE89370400440532013000', creditorId: 'DE98ZZZ09999999999', debtorName: 'Customer One', debtorIban: 'FR1420041010050500013M02606', debtorBic: 'BNPAFRPP', amount: '49.90', mandateId: 'MANDATE-1', mandateSignatureDate: '2025-01-15', sequenceType: 'RCUR', requestedCollectionDate: new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10), scheme, remittanceText: 'Subscription' }],
				{ version: 'pain.008.001.02', messageId: `MSG-${preset}`, initiatingPartyName: 'Sandbox Customer GmbH' },
			);
			const [out] = items(await upload({ uploadService: preset }, Buffer.from(built.xml)));
			expect(ready().uploads.find((u) => u.orderId === out.json.orderId)!.service).toMatchObject({ serviceName: 'SDD', serviceOption: option, msgName: 'pain.008' });
		}
	});

	test('the signature classes: distributed (VEU) and transport only', async () => {
		const distributed = items(await upload({ uploadService: 'sct', signature: 'distributed' }, painFile('MSG-EDS', { version: 'pain.001.001.09' })))[0];
		const transport = items(await upload({ uploadService: 'sct', signature: 'transport' }, painFile('MSG-T', { version: 'pain.001.001.09' })))[0];
		expect(ready().uploads.find((u) => u.orderId === distributed.json.orderId)?.signatureFlag).toBe('distributed');
		expect(ready().uploads.find((u) => u.orderId === transport.json.orderId)?.signatureFlag).toBe('transport');
	});

	test('any service typed in full, with a file that is not ISO 20022: sent unchecked, and the output says so', async () => {
		ready().uploadServices.push('MT1');
		const [out] = items(await upload({ uploadService: 'custom', serviceName: 'MT1', msgName: 'mt101' }, Buffer.from(':20:REF1\r\n:28D:1/1\r\n')));
		expect(out.json).toMatchObject({ service: 'BTU MT1 mt101', schemaNotChecked: 'not XML' });
	});

	test.each([
		['an invalid pain.001 (the schema refuses it)', { uploadService: 'sct' }, () => Buffer.from(painFile('MSG-BAD', { version: 'pain.001.001.09' }).toString().replace(/<NbOfTxs>2<\/NbOfTxs>/, '<NbOfTxs>two</NbOfTxs>')), /^The file in "data" is not valid against the pain\.001\.001\.09 \(EPC SEPA credit transfer\) schema, so nothing was sent to the bank: line \d+: Element '\{urn:iso:std:iso:20022:tech:xsd:pain\.001\.001\.09\}NbOfTxs': \[facet 'pattern'\] The value 'two' is not accepted by the pattern/],
		['a SEPA credit transfer in USD (SEPA is euro only)', { uploadService: 'sct' }, () => painFile('MSG-USD', { version: 'pain.001.001.09', currency: 'USD' }), /^The file in "data" has amounts in USD: SEPA credit transfers are in euro only \(EPC rule\)\. Use the foreign transfer service \(XCT\) for other currencies\. Nothing was sent to the bank/],
		['a direct debit file for a credit transfer', { uploadService: 'sct' }, () => Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.02"><CstmrDrctDbtInitn/></Document>'), /^The file in "data" is a pain\.008\.001\.02, but the service takes pain\.001 files/],
		['a file that is not XML', { uploadService: 'sct' }, () => Buffer.from('Amount;IBAN\n100;DE89370400440532013000\n'), /^The file in "data" is not well-formed XML .*: a pain\.001 payment file is XML\. Nothing was sent to the bank/],
		['a version the node has no schema for', { uploadService: 'sct' }, () => Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.05"/>'), /is a pain\.001\.001\.05, whose schema this node does not have .*Switch off "Check Against Schema" to send it unchecked/],
		['an empty file', { uploadService: 'sct' }, () => Buffer.alloc(0), /^The file in the binary field "data" is empty/],
	])('%s: refused naming the problem; nothing reaches the bank', async (_name, parameters, file, message) => {
		await runEbics(store, { operation: 'bankVersions' });
		const records = bank().ebics.records.length;
		const result = await upload(parameters, file());
		expect(result.status).toBe('error');
		expect(errorText(result)).toMatch(message);
		expect(uploadsOfReady()).toBe(0);
		expect(bank().ebics.records.slice(records).filter((r) => r.orderType === 'BTU' || r.phase === 'Transfer')).toEqual([]);
	});

	test('a signature the bank cannot verify: refused (091301) with what to do, and the customer protocol says why', async () => {
		const other = (await import('../helpers/ebics')).otherSubscriberKeys;
		const keys = await other();
		store = ebicsStore(ebicsValues(bank(), 'PARTNER2', 'READY1', { signaturePrivateKey: keys.signature.privateKeyPem, signatureCertificate: keys.signature.certificatePem }));
		const result = await upload({ uploadService: 'sct' }, painFile('MSG-SIG', { version: 'pain.001.001.09' }));
		expect(errorText(result)).toMatch(/^BTU SCT pain\.001\.09 initialisation: the bank answered 091301 EBICS_SIGNATURE_VERIFICATION_FAILED/);
		expect(errorText(result)).toMatch(/What to do: /);
		expect(uploadsOfReady()).toBe(0);
		const hac = items(await runEbics(store, { operation: 'customerAcknowledgement' }));
		expect(hac.map((i) => [i.json.action, i.json.reasonCode])).toEqual([
			['FILE_UPLOAD', 'TS01'],
			['ES_VERIFICATION', 'DS0B'],
			['ORDER_HAC_FINAL_NEG', null],
		]);
		expect(hac[2].json).toMatchObject({ refused: true, actionText: 'Order finished: refused', bankText: expect.stringMatching(/^091301 EBICS_SIGNATURE_VERIFICATION_FAILED/) });
	});

	test('an error in the body under an OK header (as some French banks answer) is an error, not an upload', async () => {
		await runEbics(store, { operation: 'bankVersions' });
		bank().ebics.faults.push('headerOkBodyError');
		const result = await upload({ uploadService: 'sct' }, painFile('MSG-FR', { version: 'pain.001.001.09' }));
		expect(errorText(result)).toMatch(/the bank answered 091116 EBICS_PROCESSING_ERROR: Erreur de traitement de la remise\n/);
		expect(errorText(result)).toMatch(/The bank's text: .*Erreur de traitement de la remise/);
	});
});

describe('administration', () => {
	test('HEV: the versions the bank speaks, without keys', async () => {
		const fresh = ebicsStore(ebicsValues(bank(), 'PARTNER1', 'USER1'));
		const result = await runEbics(fresh, { operation: 'bankVersions' });
		expect(items(result).map((i) => i.json)).toEqual([
			{ hostId: 'SBXEBICS', protocol: 'H004', version: '02.50', ebics: '2.5', spokenByThisNode: true, usedByThisCredential: false },
			{ hostId: 'SBXEBICS', protocol: 'H005', version: '03.00', ebics: '3.0', spokenByThisNode: true, usedByThisCredential: true },
		]);
		// HEV needs nothing of the subscriber: no keys were made, no INI or HIA was sent.
		expect(storedState(fresh)).toBeUndefined();
		expect(bankRecords(bank())).toEqual([]);
	});

	test('HTD: what the subscriber may do, one item per permission; HKD: the accounts and every user', async () => {
		const permissions = items(await runEbics(store, { operation: 'subscriberPermissions' })).map((i) => i.json);
		expect(permissions).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ userId: 'READY1', orderType: 'BTU', serviceName: 'SCT', msgName: 'pain.001', accountId: 'ACC1', iban: expect.stringMatching(/^DE/), signatureClass: 'E', signatureClassText: 'single signature' }),
				expect.objectContaining({ orderType: 'BTD', serviceName: 'EOP', msgName: 'camt.053' }),
				expect.objectContaining({ orderType: 'SPR' }),
			]),
		);
		const accounts = items(await runEbics(store, { operation: 'customerData', infoOutput: 'accounts' })).map((i) => i.json);
		expect(accounts).toEqual([expect.objectContaining({ id: 'ACC1', currency: 'EUR', iban: expect.stringMatching(/^DE/), bic: 'SBXBDEFF' })]);
		const orders = items(await runEbics(store, { operation: 'customerData', infoOutput: 'orders' })).map((i) => i.json);
		expect(orders).toEqual(expect.arrayContaining([expect.objectContaining({ orderType: 'BTD', service: 'EOP DE camt.053.02 ZIP', description: 'End-of-day statement' })]));
		const whole = items(await runEbics(store, { operation: 'customerData', infoOutput: 'whole' }));
		expect(whole).toHaveLength(1);
		expect(whole[0].json).toMatchObject({ partner: { hostId: 'SBXEBICS' }, users: [expect.objectContaining({ userId: 'READY1' })] });
	});

	test("HPD: the bank's parameters as one item, read from H005's HPDResponseOrderData", async () => {
		const [hpd] = items(await runEbics(store, { operation: 'bankParameters' }));
		expect(hpd.json).toEqual(sandboxBankParameters('H005'));
	});

	test('HAA: what is waiting, one item per service, named as the presets name it', async () => {
		const waiting = items(await runEbics(store, { operation: 'availableDownloads' })).map((i) => i.json);
		expect(waiting).toEqual(expect.arrayContaining([{ service: 'EOP camt.053', serviceName: 'EOP', msgName: 'camt.053', preset: 'End-of-day statement (camt.053)' }]));
	});

	test('HAC and PTK after an accepted upload: the events, and the protocol lines naming the order; each delivered once', async () => {
		const [uploaded] = items(await upload({ uploadService: 'sct' }, painFile('MSG-HAC', { version: 'pain.001.001.09' })));
		const orderId = uploaded.json.orderId;
		const hac = items(await runEbics(store, { operation: 'customerAcknowledgement' }));
		expect(hac.map((i) => [i.json.orderId, i.json.action, i.json.reasonCode, i.json.receipt])).toEqual([
			[orderId, 'FILE_UPLOAD', 'TS01', 'positive'],
			[orderId, 'ES_VERIFICATION', 'DS01', 'positive'],
			[orderId, 'ORDER_HAC_FINAL_POS', null, 'positive'],
		]);
		expect(hac[2].json).toMatchObject({ refused: false, OrderType: 'BTU', ServiceName: 'SCT', UserID: 'READY1', timestamp: expect.any(String) });
		const ptk = items(await runEbics(store, { operation: 'customerProtocol' })).map((i) => i.json);
		expect(ptk).toEqual(expect.arrayContaining([expect.objectContaining({ orderId, text: expect.stringMatching(/accepted: signature verified/) })]));
		// Delivered: nothing new; a date range brings it again.
		expect(items(await runEbics(store, { operation: 'customerAcknowledgement' }))).toEqual([]);
		const today = new Date().toISOString().slice(0, 10);
		expect(items(await runEbics(store, { operation: 'customerAcknowledgement', which: 'dateRange', startDate: today, endDate: today }))).toHaveLength(3);
		// The HAC file itself, through Download.
		const file = items(await runEbics(store, { operation: 'download', downloadService: 'hac', which: 'dateRange', startDate: today, endDate: today }));
		expect(file[0].json).toMatchObject({ service: 'HAC (customer acknowledgement)', fileName: 'hac.xml' });
	});

	test('SPR: refused until confirmed; then the subscriber is suspended, the credential says so, and every order is refused (091002)', async () => {
		const unconfirmed = await runEbics(store, { operation: 'suspend' });
		expect(errorText(unconfirmed)).toMatch(/^Confirm Suspension: switch it on to suspend the subscriber\. Nothing was sent to the bank/);
		expect(ready().state).toBe('ready');
		const [suspended] = items(await runEbics(store, { operation: 'suspend', confirmSuspend: true }));
		expect(suspended.json).toMatchObject({ suspended: true, subscriber: 'SBXEBICS/PARTNER2/READY1', status: expect.stringMatching(/^Suspended: the bank refuses this subscriber since \d{4}-\d\d-\d\d/) });
		expect(ready().state).toBe('suspended');
		expect(storedState(store)!.phase).toBe('suspended');
		const refused = await runEbics(store, { operation: 'download', downloadService: 'camt053' });
		// The code, its name in the spec and the bank's own text (its "[NAME]" not repeated), one full stop each.
		expect(errorText(refused)).toMatch(/^Download: HPB: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE: [^[\s]/);
		expect(errorText(refused)).toMatch(/The bank's text: \[EBICS_INVALID_USER_OR_USER_STATE\] /);
		expect(errorText(refused)).toMatch(/The credential: Suspended/);
		expect(errorText(refused)).not.toMatch(/\.\./);
		// The bank activates it again: the next run finds it ready.
		bank().ebics.activate('PARTNER2', 'READY1');
		expect(items(await runEbics(store, { operation: 'download', downloadService: 'camt053' }))).toHaveLength(5);
		expect(storedState(store)!.phase).toBe('ready');
		// Suspended by the bank while the credential says ready: the refused order records it.
		bank().ebics.suspend('PARTNER2', 'READY1');
		const refusedAgain = await runEbics(store, { operation: 'subscriberPermissions' });
		expect(errorText(refusedAgain)).toMatch(/^HTD initialisation: the bank answered 091002 EBICS_INVALID_USER_OR_USER_STATE: [^[\s]/);
		expect(storedState(store)!.phase).toBe('suspended');
	});
});

describe('secrets', () => {
	test('no private key shows in the items, errors or logs of any operation', async () => {
		const runs = [
			await runEbics(store, { operation: 'download', downloadService: 'camt053' }),
			await upload({ uploadService: 'sct' }, painFile('MSG-S', { version: 'pain.001.001.09' })),
			await runEbics(store, { operation: 'subscriberPermissions', infoOutput: 'whole' }),
			await runEbics(store, { operation: 'customerAcknowledgement' }),
			await runEbics(store, { operation: 'customerProtocol' }),
			await runEbics(store, { operation: 'initialisationLetters' }),
			await upload({ uploadService: 'sct' }, Buffer.from('<x/>')),
		];
		const secrets = ebicsSecrets(bank(), store);
		expect(secrets.count('ready subscriber')).toBeGreaterThan(10);
		for (const run of runs) expect(secrets.scan(shownBy(run))).toEqual([]);
	});
});
