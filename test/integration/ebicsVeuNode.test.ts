/**
 * The distributed signature (VEU) operations of the EBICS node through the n8n engine against
 * the sandbox EBICS bank, with two credentials of one partner: SIGNER1 (class A) uploads a
 * pain.001 that waits at the bank; SIGNER2 (class B) lists it (HVU), reads its details (HVD) and
 * signs it (HVE), and the bank executes it; a digest other than the order's is refused before
 * anything is signed; HVS cancels. No key shows in anything a run shows.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { useSandbox } from '../helpers/bank';
import { painFile } from '../helpers/ebics';
import { ebicsSecrets, ebicsStore, errorText, hints, items, runEbics, runEbicsThenInspect } from '../helpers/ebicsNode';
import type { RunResult } from '../harness/engine';
import { shownBy } from '../reliability/lib/secrets';

const sandbox = useSandbox({ seed: 42 });
const bank = () => sandbox.bank();
const runs: RunResult[] = [];

function signerStore(n: 1 | 2) {
	return ebicsStore({ ...bank().credentialValues()[`corporateBankingEbicsApi#SIGNER${n}`] });
}

async function run(n: 1 | 2, parameters: Record<string, unknown>, input?: INodeExecutionData[]): Promise<RunResult> {
	const result = await runEbics(signerStore(n), parameters as IDataObject, input);
	runs.push(result);
	return result;
}

let uploaded: Buffer;

async function uploadBySigner1(messageId: string): Promise<string> {
	const file = painFile(messageId, { payments: 2 });
	uploaded = file;
	const input = [{ json: {}, binary: { data: { data: file.toString('base64'), mimeType: 'application/xml', fileName: `${messageId}.xml` } } }];
	const out = items(await run(1, { operation: 'upload', uploadService: 'sct', scope: 'DE', signature: 'authorise' }, input));
	return out[0].json.orderId as string;
}

/** The order fields of Details, Sign and Cancel, as an HVU item gives them. */
function orderParameters(order: Record<string, unknown>): Record<string, unknown> {
	return {
		veuOrderId: order.orderId,
		veuPartnerId: order.partnerId,
		veuServiceName: order.serviceName,
		veuScope: order.scope ?? '',
		veuMsgName: order.msgName,
		veuMsgVersion: order.msgVersion ?? '',
	};
}

test('an upload by one signer is approved by another: HVU lists it, HVD shows what is signed, HVE executes it', async () => {
	const orderId = await uploadBySigner1('MSG-NODE-VEU');
	expect(bank().ebics.veu.orders.find((o) => o.orderId === orderId)?.state).toBe('waiting');

	const waiting = items(await run(2, { operation: 'veuOrders' }));
	expect(waiting.map((i) => i.json)).toEqual([
		expect.objectContaining({
			orderId,
			partnerId: 'PARTNER3',
			service: 'SCT DE pain.001.03',
			serviceName: 'SCT',
			scope: 'DE',
			msgName: 'pain.001',
			msgVersion: '03',
			readyToBeSigned: true,
			signaturesRequired: 2,
			signaturesDone: 1,
			originator: expect.objectContaining({ userId: 'SIGNER1', name: 'Anna Signer' }),
			signers: [expect.objectContaining({ userId: 'SIGNER1', signatureClass: 'A' })],
			additionalInfo: 'MSG-NODE-VEU.xml',
			orderType: null,
			fileFormat: null,
		}),
	]);
	const withDigests = items(await run(2, { operation: 'veuOrders', veuWithDigests: true }));
	expect(withDigests[0].json.dataDigest).toMatch(/^([0-9A-F]{2} ){31}[0-9A-F]{2}$/);

	const details = items(await run(2, { operation: 'veuDetails', ...orderParameters(waiting[0].json) }))[0].json;
	expect(details).toMatchObject({ orderId, dataDigest: withDigests[0].json.dataDigest, signatureVersion: 'A006' });
	expect(details.displayFile).toContain('Message MSG-NODE-VEU: 2 payment(s), control sum 201.50');

	// What the order pays (HVT): one item per payment, or the complete file.
	const payments = items(await run(2, { operation: 'veuTransactions', ...orderParameters(waiting[0].json), veuReturnAll: true }));
	expect(payments.map((i) => i.json)).toEqual([
		expect.objectContaining({
			orderId,
			position: 1,
			transactionsInOrder: 2,
			amount: 100.25,
			amountText: '100.25',
			currency: 'EUR',
			isCredit: false,
			originator: { accountNumber: 'DE89370400440532013000', bankCode: null, holder: 'Sandbox Customer GmbH', currency: 'EUR' },
			recipient: { accountNumber: 'FR1420041010050500013M02606', bankCode: 'BNPAFRPP', holder: 'Supplier 1', currency: 'EUR' },
			purpose: 'Invoice 1',
		}),
		expect.objectContaining({ position: 2, amount: 101.25, purpose: 'Invoice 2' }),
	]);
	expect(items(await run(2, { operation: 'veuTransactions', ...orderParameters(waiting[0].json), veuLimit: 1 }))).toHaveLength(1);
	const hvtBefore = bank().ebics.records.filter((r) => r.orderType === 'HVT').length;
	for (const typed of [-5, 0, 1.5, ''])
		expect(errorText(await run(2, { operation: 'veuTransactions', ...orderParameters(waiting[0].json), veuLimit: typed }))).toMatch(/^Limit: must be a whole number of at least 1, got (-5|0|1\.5|nothing)\nNothing was sent to the bank\./);
	expect(bank().ebics.records.filter((r) => r.orderType === 'HVT')).toHaveLength(hvtBefore);
	const fileRun = await runEbicsThenInspect(signerStore(2), { operation: 'veuTransactions', ...orderParameters(waiting[0].json), veuTransactionsOutput: 'file' });
	runs.push(fileRun);
	const file = items(fileRun)[0];
	expect(file.json).toMatchObject({ orderId, fileName: `${orderId}_pain.001.xml`, size: uploaded.length });
	expect(file.binary!.data).toMatchObject({ mimeType: 'application/xml', fileName: `${orderId}_pain.001.xml` });
	// What the next node reads from n8n's storage is the file as the first signer uploaded it.
	expect(fileRun.output('Inspect')[0].json.sha256).toBe(createHash('sha256').update(uploaded).digest('hex'));

	// A digest that is not the order's: refused, no signature sent.
	const before = bank().ebics.records.filter((r) => r.orderType === 'HVE').length;
	const wrong = await run(2, { operation: 'veuSign', ...orderParameters(waiting[0].json), confirmedDigest: 'AB'.repeat(32) });
	expect(wrong.status).toBe('error');
	expect(errorText(wrong)).toMatch(/The confirmed digest AB AB .* is not the data digest the bank reports for order \w{4} .*: nothing was signed or sent/);
	const malformed = await run(2, { operation: 'veuSign', ...orderParameters(waiting[0].json), confirmedDigest: 'yes' });
	expect(errorText(malformed)).toMatch(/^Confirmed Data Digest is not a SHA-256 digest: 64 hexadecimal digits/);
	const noOrder = await run(2, { operation: 'veuSign', ...orderParameters(waiting[0].json), veuOrderId: 'x1', confirmedDigest: details.dataDigest });
	expect(errorText(noOrder)).toMatch(/^Order ID "X1" is not valid: a letter then three letters or digits \(e\.g\. A102\), as HVU lists it\nNothing was sent to the bank\./);
	// Service Name and Message Name are what names the order in EBICS 3.0: refused by name when empty.
	const hvdBefore = bank().ebics.records.filter((r) => r.orderType === 'HVD').length;
	const noService = await run(2, { operation: 'veuSign', ...orderParameters(waiting[0].json), veuServiceName: '', confirmedDigest: details.dataDigest });
	expect(errorText(noService)).toMatch(/^Service Name is required with an EBICS 3\.0 \(H005\) credential: the order's serviceName as Get Orders Waiting \(HVU\) lists it\nNothing was sent to the bank\./);
	const noMessage = await run(2, { operation: 'veuDetails', ...orderParameters(waiting[0].json), veuMsgName: '' });
	expect(errorText(noMessage)).toMatch(/^Message Name is required with an EBICS 3\.0 \(H005\) credential/);
	expect(bank().ebics.records.filter((r) => r.orderType === 'HVD')).toHaveLength(hvdBefore);
	expect(bank().ebics.records.filter((r) => r.orderType === 'HVE')).toHaveLength(before);

	const signed = items(await run(2, { operation: 'veuSign', ...orderParameters(waiting[0].json), confirmedDigest: details.dataDigest }))[0].json;
	expect(signed).toMatchObject({ signed: true, signer: 'PARTNER3/SIGNER2', orderId, dataDigest: details.dataDigest, displayFile: details.displayFile, signaturesBefore: 1, returnCodes: { technical: '000000', business: '000000' } });
	expect(bank().ebics.veu.orders.find((o) => o.orderId === orderId)?.state).toBe('executed');
	// Executed: the first signer gets the bank's status report of the payments.
	const status = items(await run(1, { operation: 'download', downloadService: 'pain002' }));
	expect(status.map((i) => i.json.fileName)).toContain(`pain002_${orderId}.xml`);
	const none = await run(2, { operation: 'veuOrders' });
	expect(items(none)).toEqual([]);
	expect(hints(none)).toEqual([expect.stringMatching(/^No order waits for signatures in the distributed signature \(HVU\): no items/)]);
	// Signing it again is refused by the bank with its own code.
	const again = await run(2, { operation: 'veuSign', ...orderParameters(waiting[0].json), confirmedDigest: details.dataDigest });
	expect(errorText(again)).toMatch(/091114/);
});

test('an order is cancelled (HVS) and never executed', async () => {
	const orderId = await uploadBySigner1('MSG-NODE-HVS');
	const waiting = items(await run(2, { operation: 'veuOrders', veuWithDigests: true }));
	const order = waiting.find((i) => i.json.orderId === orderId)!.json;
	const cancelled = items(await run(2, { operation: 'veuCancel', ...orderParameters(order), confirmedDigest: order.dataDigest }))[0].json;
	expect(cancelled).toMatchObject({ cancelled: true, canceller: 'PARTNER3/SIGNER2', orderId });
	expect(bank().ebics.veu.orders.find((o) => o.orderId === orderId)?.state).toBe('cancelled');
	expect(bank().ebics.subscriber('PARTNER3', 'SIGNER1')!.files.some((f) => f.name === `pain002_${orderId}.xml`)).toBe(false);
});

test('no key shows in anything a run shows', () => {
	const secrets = ebicsSecrets(bank(), signerStore(1));
	for (const n of [1, 2] as const) for (const [use, pair] of Object.entries(bank().ebicsClient('PARTNER3', `SIGNER${n}`).subscriberKeys!)) secrets.addPem(`signer ${n} ${use} key`, pair.privateKeyPem);
	expect(secrets.count('signer')).toBeGreaterThan(10);
	expect(runs.length).toBeGreaterThan(8);
	for (const result of runs) expect(secrets.scan(shownBy(result))).toEqual([]);
});
