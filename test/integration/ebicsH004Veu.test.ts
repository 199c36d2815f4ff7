/**
 * The distributed signature (VEU) of the EBICS node with EBICS 2.5 (H004) credentials, through the
 * n8n engine against the sandbox EBICS bank: two subscribers of one partner set up in H004 (INI,
 * HIA, HPB); SIGNER1 (class A) uploads a CCT that waits at the bank; SIGNER2 (class B) lists it
 * (HVU, HVZ), reads its details (HVD) and payments (HVT), and signs it (HVE, a signature only), and
 * the bank executes it; HVS cancels another. The bank checks every request against the H004
 * schemas (a request that is not valid is refused with 091010) and its own VEU answers against
 * ebics_orders_H004.xsd. A digest other than the order's, a missing or EBICS 3.0 order type are
 * refused before anything is signed or sent.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../helpers/bank';
import { painFile } from '../helpers/ebics';
import { bankH004Hashes, credentialTest, ebicsSecrets, ebicsStore, ebicsValues, errorText, hints, items, runEbics, storedState } from '../helpers/ebicsNode';
import type { RunResult } from '../harness/engine';
import type { CredentialStore } from '../harness/credentials';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const runs: RunResult[] = [];
/** This test's credentials (the sandbox bank starts afresh for each test), and every one made. */
let stores: Partial<Record<1 | 2, CredentialStore>> = {};
const made: CredentialStore[] = [];
beforeEach(() => {
	stores = {};
});

/** PARTNER4's signers in H004: SIGNER1 class A (first signature), SIGNER2 class B (second). */
async function signer(n: 1 | 2): Promise<CredentialStore> {
	const existing = stores[n];
	if (existing) return existing;
	const userId = `SIGNER${n}`;
	if (!bank().ebics.subscriber('PARTNER4', userId)) bank().ebics.addSubscriber({ partnerId: 'PARTNER4', userId, name: n === 1 ? 'Anna Signer' : 'Bernd Signer', authorisationLevel: n === 1 ? 'A' : 'B' });
	const store = ebicsStore(ebicsValues(bank(), 'PARTNER4', userId, { ebicsVersion: 'H004', ...bankH004Hashes(bank()) }));
	expect((await credentialTest(store)).message).toMatch(/^Letters sent/);
	bank().ebics.activate('PARTNER4', userId);
	expect(await credentialTest(store)).toEqual({ status: 'OK' });
	expect(bank().ebics.subscriber('PARTNER4', userId)).toMatchObject({ protocol: 'H004' });
	stores[n] = store;
	made.push(store);
	return store;
}

async function run(n: 1 | 2, parameters: Record<string, unknown>, input?: INodeExecutionData[]): Promise<RunResult> {
	const result = await runEbics(await signer(n), parameters as IDataObject, input);
	runs.push(result);
	return result;
}

async function uploadBySigner1(messageId: string): Promise<string> {
	const file = painFile(messageId, { payments: 2, version: 'pain.001.001.03' });
	const input = [{ json: {}, binary: { data: { data: file.toString('base64'), mimeType: 'application/xml', fileName: `${messageId}.xml` } } }];
	const [sent] = items(await run(1, { operation: 'upload', uploadService: 'sct', signature: 'authorise' }, input));
	expect(sent.json).toMatchObject({ orderType: 'CCT' });
	return sent.json.orderId as string;
}

/** The order fields of Details, Transactions, Sign and Cancel, as an HVU item gives them. */
function orderParameters(order: IDataObject): Record<string, unknown> {
	return { veuOrderId: order.orderId, veuPartnerId: order.partnerId, veuOrderType: order.orderType, veuFileFormat: order.fileFormat ?? '' };
}

const veuRecords = (...types: string[]) => bank().ebics.records.filter((r) => r.protocol === 'H004' && types.includes(r.orderType ?? ''));

test('an H004 upload by one signer is approved by another: HVU lists it by order type, HVD shows what is signed, HVE executes it', async () => {
	await signer(2);
	const orderId = await uploadBySigner1('MSG-H004-VEU');
	expect(bank().ebics.veu.orders.find((o) => o.orderId === orderId)?.state).toBe('waiting');

	const waiting = items(await run(2, { operation: 'veuOrders' }));
	expect(waiting.map((i) => i.json)).toEqual([
		{
			orderId,
			partnerId: 'PARTNER4',
			service: 'CCT (SEPA credit transfer pain.001)',
			serviceName: null,
			scope: null,
			serviceOption: null,
			msgName: null,
			msgVersion: null,
			container: null,
			orderType: 'CCT',
			fileFormat: null,
			originator: { partnerId: 'PARTNER4', userId: 'SIGNER1', name: 'Anna Signer', submittedAt: expect.any(String) },
			readyToBeSigned: true,
			signaturesRequired: 2,
			signaturesDone: 1,
			signers: [expect.objectContaining({ userId: 'SIGNER1', signatureClass: 'A' })],
			orderDataSize: expect.any(Number),
			additionalInfo: null,
		},
	]);
	const withDigests = items(await run(2, { operation: 'veuOrders', veuWithDigests: true }));
	expect(withDigests[0].json.dataDigest).toMatch(/^([0-9A-F]{2} ){31}[0-9A-F]{2}$/);
	const order = waiting[0].json;

	const details = items(await run(2, { operation: 'veuDetails', ...orderParameters(order) }))[0].json;
	expect(details).toMatchObject({ orderId, orderType: 'CCT', service: 'CCT (SEPA credit transfer pain.001)', dataDigest: withDigests[0].json.dataDigest, signatureVersion: 'A006' });
	expect(details.displayFile).toContain('Message MSG-H004-VEU: 2 payment(s), control sum 201.50');

	// What the order pays (HVT), with H004's OrderFormat as the message.
	const payments = items(await run(2, { operation: 'veuTransactions', ...orderParameters(order), veuReturnAll: true }));
	expect(payments.map((i) => i.json)).toEqual([
		expect.objectContaining({
			orderId,
			position: 1,
			transactionsInOrder: 2,
			msgName: 'pain.001',
			amount: 100.25,
			currency: 'EUR',
			isCredit: false,
			originator: { accountNumber: 'DE89370400440532013000', bankCode: '37040044', holder: 'Sandbox Customer GmbH', currency: 'EUR' },
			recipient: { accountNumber: 'FR1420041010050500013M02606', bankCode: 'BNPAFRPP', holder: 'Supplier 1', currency: 'EUR' },
			purpose: 'Invoice 1',
		}),
		expect.objectContaining({ position: 2, amount: 101.25, purpose: 'Invoice 2' }),
	]);
	const [file] = items(await run(2, { operation: 'veuTransactions', ...orderParameters(order), veuTransactionsOutput: 'file' }));
	expect(file.json).toMatchObject({ orderId, fileName: `${orderId}_CCT.xml` });

	// Refused before anything is signed or sent: a digest that is not the order's, no order type, an EBICS 3.0 order type.
	const before = veuRecords('HVE').length;
	const wrong = await run(2, { operation: 'veuSign', ...orderParameters(order), confirmedDigest: 'AB'.repeat(32) });
	expect(errorText(wrong)).toMatch(/The confirmed digest AB AB .* is not the data digest the bank reports for order \w{4} .*: nothing was signed or sent/);
	const hvdBefore = veuRecords('HVD').length;
	const noType = await run(2, { operation: 'veuSign', ...orderParameters(order), veuOrderType: '', confirmedDigest: details.dataDigest });
	expect(errorText(noType)).toMatch(/^Order Type is required with an EBICS 2\.5 \(H004\) credential: the order type of the order as HVU lists it \(orderType, e\.g\. CCT\)\nNothing was sent to the bank\./);
	const btu = await run(2, { operation: 'veuDetails', ...orderParameters(order), veuOrderType: 'BTU' });
	expect(errorText(btu)).toMatch(/^BTU is an EBICS 3\.0 order type: an EBICS 2\.5 \(H004\) bank takes the order type of the file/);
	const malformed = await run(2, { operation: 'veuCancel', ...orderParameters(order), confirmedDigest: 'yes' });
	expect(errorText(malformed)).toMatch(/^Confirmed Data Digest is not a SHA-256 digest: 64 hexadecimal digits/);
	expect(veuRecords('HVD')).toHaveLength(hvdBefore);
	expect(veuRecords('HVE', 'HVS')).toHaveLength(before);

	const signed = items(await run(2, { operation: 'veuSign', ...orderParameters(order), confirmedDigest: details.dataDigest }))[0].json;
	expect(signed).toMatchObject({ signed: true, signer: 'PARTNER4/SIGNER2', orderId, orderType: 'CCT', dataDigest: details.dataDigest, signaturesBefore: 1, returnCodes: { technical: '000000', business: '000000' } });
	expect(bank().ebics.veu.orders.find((o) => o.orderId === orderId)).toMatchObject({ state: 'executed', signatures: [expect.objectContaining({ userId: 'SIGNER1' }), expect.objectContaining({ userId: 'SIGNER2', level: 'B' })] });
	// Executed: the first signer gets the bank's status report of the payments.
	expect(bank().ebics.subscriber('PARTNER4', 'SIGNER1')!.files.map((f) => f.name)).toContain(`pain002_${orderId}.xml`);
	const none = await run(2, { operation: 'veuOrders' });
	expect(items(none)).toEqual([]);
	expect(hints(none)).toEqual([expect.stringMatching(/^No order waits for signatures in the distributed signature \(HVU\): no items/)]);
	// Signing it again is refused by the bank with its own code.
	expect(errorText(await run(2, { operation: 'veuSign', ...orderParameters(order), confirmedDigest: details.dataDigest }))).toMatch(/091114/);
	// HVE went as a signature only (UZHNN), in H004; every request was valid against the H004 schemas.
	expect(veuRecords('HVE').filter((r) => r.business === '000000' && r.technical === '000000')).toHaveLength(1);
	expect(bank().ebics.records.filter((r) => r.technical === '091010')).toEqual([]);
});

test('an H004 order is cancelled (HVS with its HVSRequestOrderData, OZHNN) and never executed', async () => {
	const orderId = await uploadBySigner1('MSG-H004-HVS');
	const waiting = items(await run(2, { operation: 'veuOrders', veuWithDigests: true }));
	const order = waiting.find((i) => i.json.orderId === orderId)!.json;
	const cancelled = items(await run(2, { operation: 'veuCancel', ...orderParameters(order), confirmedDigest: order.dataDigest }))[0].json;
	expect(cancelled).toMatchObject({ cancelled: true, canceller: 'PARTNER4/SIGNER2', orderId, orderType: 'CCT', returnCodes: { technical: '000000', business: '000000' } });
	expect(bank().ebics.veu.orders.find((o) => o.orderId === orderId)?.state).toBe('cancelled');
	expect(bank().ebics.subscriber('PARTNER4', 'SIGNER1')!.files.some((f) => f.name === `pain002_${orderId}.xml`)).toBe(false);
	// The initialisation, then its order data in one segment; every request valid against the H004 schemas.
	const records = bank().ebics.records;
	const init = records.lastIndexOf(veuRecords('HVS').at(-1)!);
	expect(records.slice(init).map((r) => [r.protocol, r.phase, r.technical, r.business])).toEqual([
		['H004', 'Initialisation', '000000', '000000'],
		['H004', 'Transfer', '000000', '000000'],
	]);
	expect(bank().ebics.records.filter((r) => r.technical === '091010')).toEqual([]);
});

test('no key shows in anything a run shows', () => {
	const secrets = ebicsSecrets(bank(), made[0]);
	made.forEach((store, index) => {
		for (const [use, pair] of Object.entries(storedState(store)!.generated!)) secrets.addPem(`signer ${index} ${use} key`, pair.privateKeyPem);
	});
	expect(made).toHaveLength(4);
	expect(secrets.count('signer')).toBeGreaterThan(10);
	expect(runs.length).toBeGreaterThan(10);
	for (const result of runs) expect(secrets.scan(shownBy(result))).toEqual([]);
});
