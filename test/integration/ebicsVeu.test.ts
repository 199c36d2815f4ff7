/**
 * The distributed signature (VEU) and the key changes (PUB, HCA, HCS) of the EBICS library
 * against the sandbox EBICS bank over real HTTPS: an upload by the first signer (class A) waits
 * at the bank, HVU/HVZ list it for the second (class B), HVD gives its digest and display file,
 * HVE by the second executes it, HVS cancels; a wrong digest is refused before anything is sent.
 * New keys sent signed with the current ones: the new keys work, the old ones are refused.
 */
import {
	EbicsClient,
	EbicsKeyError,
	EbicsReturnCodeError,
	EbicsValidationError,
	EbicsVeu,
	generateSubscriberKeys,
	H005_NS,
	hvListParams,
	hvOrderParams,
	hvtOrderParams,
	keysAfterChange,
	orderDataDigest,
	parseDocument,
	readConfirmedDigest,
	sendKeyChange,
	SERVICE_PRESETS,
	type EbicsBankKeys,
	type EbicsSubscriberKeys,
} from '../../nodes/shared/ebics';
import { startSandbox, type SandboxBank } from '../sandbox';
import { rejection, sandboxClient, sandboxSend } from '../helpers/ebicsSandbox';
import { painFile, testSubscriberKeys, validateEbics } from '../helpers/ebics';

let bank: SandboxBank;
let bankKeys: EbicsBankKeys;
const log: Array<{ step: string; request: string; answer: string }> = [];
const sct = { ...SERVICE_PRESETS.sct.service, scope: 'DE' };

function signer(n: 1 | 2): { client: EbicsClient; veu: EbicsVeu; keys: EbicsSubscriberKeys } {
	const keys = bank.ebicsClient('PARTNER3', `SIGNER${n}`).subscriberKeys as EbicsSubscriberKeys;
	const send = sandboxSend(bank, log);
	const client = sandboxClient(bank, 'PARTNER3', `SIGNER${n}`, keys, { bank: bankKeys, send });
	const veu = new EbicsVeu(client, { subscriber: client.subscriber, keys: { version: 1, subscriber: keys, bank: bankKeys }, send });
	return { client, veu, keys };
}

beforeAll(async () => {
	bank = await startSandbox({ seed: 11 });
	const keys = bank.ebicsClient('PARTNER3', 'SIGNER1').subscriberKeys as EbicsSubscriberKeys;
	bankKeys = (await sandboxClient(bank, 'PARTNER3', 'SIGNER1', keys).hpb(bank.ebics.letterHashes())).keys;
});
afterAll(async () => {
	await bank.stop();
});

describe('distributed signature: an upload by one signer approved by another', () => {
	let orderId: string;
	const file = painFile('MSG-VEU-1', { payments: 3 });

	it('holds the upload of the first signer (class A) until a second signature', async () => {
		const first = signer(1);
		const result = await first.client.btu(sct, file, 'authorise', { fileName: 'suppliers.xml' });
		orderId = result.orderId as string;
		expect(orderId).toMatch(/^[A-Z][A-Z0-9]{3}$/);
		expect(bank.ebics.veu.orders).toEqual([expect.objectContaining({ orderId, state: 'waiting' })]);
		// Not executed: no status report yet.
		expect(bank.ebics.subscriber('PARTNER3', 'SIGNER1')!.files.some((f) => f.name === `pain002_${orderId}.xml`)).toBe(false);
	});

	it('lists it for the second signer (HVU, HVZ with its digest) and shows what is signed (HVD)', async () => {
		const second = signer(2);
		const orders = await second.veu.orders();
		expect(orders).toEqual([
			expect.objectContaining({
				orderId,
				service: expect.objectContaining({ serviceName: 'SCT', scope: 'DE', msgName: 'pain.001' }),
				readyToBeSigned: true,
				signaturesRequired: 2,
				signaturesDone: 1,
				signers: [expect.objectContaining({ userId: 'SIGNER1', authorisationLevel: 'A' })],
				originator: expect.objectContaining({ partnerId: 'PARTNER3', userId: 'SIGNER1', name: 'Anna Signer' }),
				additionalInfo: 'suppliers.xml',
				orderDataSize: file.length,
			}),
		]);
		expect(orders[0].dataDigest).toBeUndefined();
		const withDigests = await second.veu.orders({ withDigests: true });
		const digest = orderDataDigest(file);
		expect(withDigests[0].dataDigest).toBe(digest.toString('hex').toUpperCase().match(/.{2}/g)!.join(' '));
		// The first signer sees it too, but may not sign it again.
		expect((await signer(1).veu.orders())[0].readyToBeSigned).toBe(false);

		const details = await second.veu.details({ partnerId: 'PARTNER3', service: orders[0].service, orderId });
		expect(details.dataDigest.equals(digest)).toBe(true);
		expect(details.signatureVersion).toBe('A006');
		expect(details.displayFile).toContain('Message MSG-VEU-1: 3 payment(s), control sum 303.75');
		expect(details.displayFile).toContain('100.25 EUR to Supplier 1 FR1420041010050500013M02606');
		expect(details.signers).toEqual([expect.objectContaining({ userId: 'SIGNER1', authorisationLevel: 'A' })]);
		// The order data the client read is what the H005 schemas define.
		const subscriber = bank.ebics.subscriber('PARTNER3', 'SIGNER2')!;
		const params = (xml: string) => parseDocument(`<OrderDetails xmlns="${H005_NS}">${xml}</OrderDetails>`, 'order details').documentElement;
		for (const [orderType, xml] of [
			['HVU', hvListParams('HVU')],
			['HVZ', hvListParams('HVZ', [sct])],
			['HVD', hvOrderParams('HVD', { partnerId: 'PARTNER3', service: orders[0].service, orderId })],
			['HVT', hvtOrderParams({ partnerId: 'PARTNER3', service: orders[0].service, orderId }, { completeOrderData: false, limit: 2, offset: 1 })],
		])
			expect({ orderType, ...validateEbics(bank.ebics.veu.download(subscriber, orderType, params(xml))!.data) }).toMatchObject({ orderType, valid: true });
	});

	it('shows what the order pays (HVT): its transactions a page at a time, and its complete file', async () => {
		const second = signer(2);
		const ref = { partnerId: 'PARTNER3', service: sct, orderId };
		const all = await second.veu.transactions(ref, { limit: 0, offset: 0 });
		expect(all.total).toBe(3);
		expect(all.transactions.map((t) => t.amount)).toEqual(['100.25', '101.25', '102.25']);
		expect(all.transactions[0]).toEqual({
			msgName: 'pain.001',
			accounts: [
				{ role: 'Originator', accountNumber: 'DE89370400440532013000', international: true, holder: 'Sandbox Customer GmbH', currency: 'EUR' },
				{ role: 'Recipient', accountNumber: 'FR1420041010050500013M02606', international: true, bankCode: 'BNPAFRPP', holder: 'Supplier 1', currency: 'EUR' },
			],
			executionDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
			amount: '100.25',
			currency: 'EUR',
			isCredit: false,
			descriptions: [
				{ type: 'Purpose', text: 'Invoice 1' },
				{ type: 'Details', text: expect.stringMatching(/^End-to-end ID /) },
			],
		});
		// A page: the bank's fetchLimit and fetchOffset.
		const page = await second.veu.transactions(ref, { limit: 1, offset: 2 });
		expect(page).toEqual({ total: 3, transactions: [expect.objectContaining({ amount: '102.25' })] });
		const request = log.filter((l) => l.step.startsWith('HVT')).map((l) => l.request).find((r) => r.includes('fetchOffset="2"'));
		expect(request).toContain('<OrderFlags completeOrderData="false" fetchLimit="1" fetchOffset="2"/>');
		// Past the last one: no data (090005), no transactions.
		expect(await second.veu.transactions(ref, { limit: 1, offset: 3 })).toEqual({ total: 0, transactions: [] });
		// The complete file, byte for byte as the first signer uploaded it.
		expect((await second.veu.orderFile(ref)).equals(file)).toBe(true);
		// Nothing was signed by looking.
		expect(bank.ebics.veu.orders.find((o) => o.orderId === orderId)!.signatures).toHaveLength(1);
		expect(() => hvtOrderParams(ref, { completeOrderData: false, limit: -1, offset: 0 })).toThrow(/Limit "-1" is not valid: a whole number from 0 to 9999999999/);
		expect(() => hvtOrderParams(ref, { completeOrderData: false, limit: 1, offset: 0.5 })).toThrow(/Offset "0.5" is not valid/);
	});

	it('refuses a digest that is not the order\'s before anything is signed or sent', async () => {
		const second = signer(2);
		const wrong = readConfirmedDigest('00'.repeat(32));
		const before = bank.ebics.records.length;
		const error = await rejection(second.veu.sign({ partnerId: 'PARTNER3', service: sct, orderId }, wrong));
		expect(error).toBeInstanceOf(EbicsValidationError);
		expect(error.message).toMatch(/The confirmed digest 00 00 .* is not the data digest the bank reports for order .*: nothing was signed or sent/);
		// Only the HVD download went out (initialisation and receipt): no HVE.
		expect(bank.ebics.records.slice(before).map((r) => r.orderType ?? r.phase)).not.toContain('HVE');
		expect(bank.ebics.veu.orders[0].signatures).toHaveLength(1);
		expect(() => readConfirmedDigest('12 34')).toThrow(/confirmedDigest is not a SHA-256 digest: 64 hexadecimal digits/);
		expect(() => readConfirmedDigest('')).toThrow(/confirmedDigest is required/);
		await expect(second.veu.sign({ partnerId: 'PARTNER3', service: sct, orderId: 'x1' }, wrong)).rejects.toThrow(/Order ID "X1" is not valid/);
	});

	it('executes the order once the second signer signs its digest (HVE), the bank verifying the signature', async () => {
		const second = signer(2);
		const digest = orderDataDigest(file);
		// Typed as the letter-style hex HVZ shows, lower case: the same digest.
		const confirmed = readConfirmedDigest(digest.toString('hex').match(/.{2}/g)!.join(' ').toLowerCase());
		const result = await second.veu.sign({ partnerId: 'PARTNER3', service: sct, orderId }, confirmed);
		expect(result.codes).toMatchObject({ technical: '000000', business: '000000' });
		const held = bank.ebics.veu.orders.find((o) => o.orderId === orderId)!;
		expect(held.state).toBe('executed');
		expect(held.signatures.map((s) => `${s.userId}:${s.level}`)).toEqual(['SIGNER1:A', 'SIGNER2:B']);
		// The HVE carried SIGNER2's A006 signature of the digest, as the bank verified it.
		const hve = log.find((l) => l.step === `HVE order ${orderId} initialisation`)!;
		expect(hve.request).toContain('<AdminOrderType>HVE</AdminOrderType><HVEOrderParams><PartnerID>PARTNER3</PartnerID>');
		expect(hve.request).toContain(`<DataDigest SignatureVersion="A006">${digest.toString('base64')}</DataDigest>`);
		expect(bank.ebics.subscriber('PARTNER3', 'SIGNER1')!.files.some((f) => f.name === `pain002_${orderId}.xml`)).toBe(true);
		expect(await second.veu.orders()).toEqual([]);
		await expect(second.veu.sign({ partnerId: 'PARTNER3', service: sct, orderId }, confirmed)).rejects.toMatchObject({ code: '091114' });
	});

	it('signs only with its own key: a signature by another key is refused by the bank (091301)', async () => {
		const first = signer(1);
		const again = await first.client.btu(sct, painFile('MSG-VEU-FORGED'), 'authorise');
		const keys = bank.ebicsClient('PARTNER3', 'SIGNER2').subscriberKeys as EbicsSubscriberKeys;
		const forged = { ...keys, signature: (await testSubscriberKeys()).signature };
		const send = sandboxSend(bank, log);
		const client = sandboxClient(bank, 'PARTNER3', 'SIGNER2', forged, { bank: bankKeys, send });
		const veu = new EbicsVeu(client, { subscriber: client.subscriber, keys: { version: 1, subscriber: forged, bank: bankKeys }, send });
		const details = await signer(2).veu.details({ partnerId: 'PARTNER3', service: sct, orderId: again.orderId! });
		const error = await rejection(veu.sign({ partnerId: 'PARTNER3', service: sct, orderId: again.orderId! }, details.dataDigest));
		expect(error).toMatchObject({ code: '091301' });
		expect(bank.ebics.veu.orders.find((o) => o.orderId === again.orderId)!.signatures).toHaveLength(1);
		// The first signer cannot add a second signature of its own.
		expect(await rejection(first.veu.sign({ partnerId: 'PARTNER3', service: sct, orderId: again.orderId! }, details.dataDigest))).toMatchObject({ code: '091306' });
	});

	it('cancels an order (HVS): it is never executed', async () => {
		const waiting = bank.ebics.veu.orders.find((o) => o.state === 'waiting')!;
		const second = signer(2);
		const result = await second.veu.cancel({ partnerId: 'PARTNER3', service: sct, orderId: waiting.orderId }, waiting.dataDigest);
		expect(result.codes.business).toBe('000000');
		expect(waiting.state).toBe('cancelled');
		expect(bank.ebics.subscriber('PARTNER3', 'SIGNER1')!.files.some((f) => f.name === `pain002_${waiting.orderId}.xml`)).toBe(false);
		expect(await second.veu.orders()).toEqual([]);
		const hac = await signer(1).client.hac();
		expect(hac!.data.toString()).toContain('cancelled in the distributed signature by SIGNER2 (HVS)');
		await hac!.acknowledge();
	});

	it('sends only requests valid against the H005 schemas, and the bank answers valid ones', () => {
		const veuSteps = log.filter((l) => /^(HV[UZDTES])/.test(l.step));
		expect(new Set(veuSteps.map((l) => l.step.slice(0, 3)))).toEqual(new Set(['HVU', 'HVZ', 'HVD', 'HVT', 'HVE', 'HVS']));
		for (const { step, request, answer } of veuSteps) {
			expect({ step, ...validateEbics(request) }).toMatchObject({ step, valid: true });
			expect({ step, ...validateEbics(answer) }).toMatchObject({ step, valid: true });
		}
	});
});

describe('key changes: new keys sent signed with the current ones', () => {
	let current: EbicsSubscriberKeys;

	async function newKeys(name: string): Promise<EbicsSubscriberKeys> {
		return await generateSubscriberKeys({ subject: { commonName: name } });
	}

	beforeAll(async () => {
		bank.ebics.addSubscriber({ partnerId: 'PARTNER4', userId: 'KEYS1' });
		current = await newKeys('Key Changer');
		const client = sandboxClient(bank, 'PARTNER4', 'KEYS1', current);
		await client.ini();
		await client.hia();
		bank.ebics.activate('PARTNER4', 'KEYS1');
	});

	for (const order of ['PUB', 'HCA', 'HCS'] as const) {
		it(`${order}: the bank takes the new keys; requests with them work and the old ones are refused`, async () => {
			const requests: typeof log = [];
			const old = sandboxClient(bank, 'PARTNER4', 'KEYS1', current, { bank: bankKeys, send: sandboxSend(bank, requests) });
			const after = keysAfterChange(order, current, await newKeys(`New ${order}`));
			const result = await sendKeyChange(old, order, after);
			expect(result.codes).toMatchObject({ technical: '000000', business: '000000' });
			for (const { step, request } of requests) expect({ step, ...validateEbics(request) }).toMatchObject({ step, valid: true });
			const orderData = bank.ebics.subscriber('PARTNER4', 'KEYS1')!.keys;
			expect(orderData.signature!.certificateDer!.equals(Buffer.from(after.signature.certificatePem.replace(/-----[^-]+-----|\s/g, ''), 'base64'))).toBe(true);
			const fresh = sandboxClient(bank, 'PARTNER4', 'KEYS1', after, { bank: bankKeys });
			expect((await fresh.htd()).users[0].userId).toBe('KEYS1');
			expect((await fresh.btu(sct, painFile(`MSG-${order}-NEW`))).orderId).toBeDefined();
			const stale = sandboxClient(bank, 'PARTNER4', 'KEYS1', current, { bank: bankKeys });
			const refused = await rejection(order === 'PUB' ? stale.btu(sct, painFile(`MSG-${order}-OLD`)) : stale.htd());
			expect(refused).toBeInstanceOf(EbicsReturnCodeError);
			expect(refused).toMatchObject({ code: order === 'PUB' ? '091301' : '061001' });
			current = after;
		});
	}

	it('refuses new keys that are not three different keys before sending, leaving the current ones in force', async () => {
		const requests: typeof log = [];
		const client = sandboxClient(bank, 'PARTNER4', 'KEYS1', current, { bank: bankKeys, send: sandboxSend(bank, requests) });
		const same = { ...current, signature: current.authentication };
		const error = await rejection(sendKeyChange(client, 'PUB', same));
		expect(error).toBeInstanceOf(EbicsKeyError);
		expect(error.message).toBe('The signature, authentication and encryption keys must be three different keys');
		expect(requests).toEqual([]);
		expect((await client.htd()).users[0].userId).toBe('KEYS1');
	});
});
