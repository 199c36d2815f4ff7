/**
 * The EBICS library speaking EBICS 2.5 (H004) to the sandbox bank over real HTTPS: a new
 * subscriber from INI and HIA (bare keys, or keys with certificates) to activation, the letters'
 * hashes as the bank registered the keys, HPB with the bank's bare keys pinned by their H004
 * hashes, a CCT upload the bank verifies (A006 over the order data, S001), C53 and FDL downloads
 * with receipts, STA, VMK, HAC, PTK, HPD, FUL; HTD, HKD and HAA in the H004 shape; every request valid against the H004 schemas;
 * and what the bank or the library refuses.
 */
import { X509Certificate } from 'node:crypto';
import { inflateSync } from 'node:zlib';

import {
	EbicsBankKeyError,
	EbicsClient,
	EbicsFormatError,
	EbicsReturnCodeError,
	EbicsValidationError,
	downloadInitRequestH004,
	formatHash,
	H004_NS,
	loadBankKeys,
	loadSubscriberKeys,
	readResponse,
	publicKeyDigest,
	readCustomerAcknowledgement,
	type EbicsBankKeys,
	type EbicsSend,
	type EbicsSubscriberKeys,
} from '../../nodes/shared/ebics';
import { startSandbox, type SandboxBank } from '../sandbox';
import { ebicsAdmin, rejection, sandboxSend } from '../helpers/ebicsSandbox';
import { otherSubscriberKeys, painFile, testSubscriberKeys, validateEbics } from '../helpers/ebics';

let bank: SandboxBank;

function h004Client(partnerId: string, userId: string, keys: EbicsSubscriberKeys, options: { bank?: EbicsBankKeys; send?: EbicsSend; keyForm?: 'certificate' | 'key'; segmentBytes?: number } = {}): EbicsClient {
	return new EbicsClient({
		subscriber: { hostId: bank.ebics.hostId, partnerId, userId, product: { name: 'n8n-nodes-corporate-banking tests', language: 'en' } },
		keys: { version: 1, subscriber: keys, bank: options.bank },
		send: options.send ?? sandboxSend(bank),
		version: 'H004',
		h004KeyForm: options.keyForm,
		segmentBytes: options.segmentBytes,
	});
}

/** The order data INI and HIA sent, inflated. */
function orderDataOf(entries: Array<{ request: string }>): string[] {
	return entries.map(({ request }) => inflateSync(Buffer.from(/<OrderData>([^<]+)</.exec(request)?.[1] ?? '', 'base64')).toString('utf8'));
}

/** The bank's letter in EBICS 2.5: the hashes of its bare keys. */
function bankH004Hashes(): { authentication: string; encryption: string } {
	const hash = (pem: string): string => formatHash(publicKeyDigest(new X509Certificate(pem).publicKey));
	return { authentication: hash(bank.ebics.bankAuthentication.certificatePem), encryption: hash(bank.ebics.bankEncryption.certificatePem) };
}

beforeAll(async () => {
	bank = await startSandbox({ seed: 11 });
	await ebicsAdmin(bank, '/subscribers', { partnerId: 'H004CUST', userId: 'H004USER', name: 'EBICS 2.5 subscriber' });
});
afterAll(async () => {
	await bank.stop();
});

describe('a new EBICS 2.5 subscriber, from INI and HIA to the first statement and payment', () => {
	let keys: EbicsSubscriberKeys;
	let bankKeys: EbicsBankKeys;
	let ready: EbicsClient;
	const log: Array<{ step: string; request: string; answer: string }> = [];

	it('sends bare keys with INI and HIA; the letters print the hashes the bank registered', async () => {
		keys = await testSubscriberKeys();
		const client = h004Client('H004CUST', 'H004USER', keys, { keyForm: 'key', send: sandboxSend(bank, log) });
		expect(client.version).toBe('H004');
		expect(await rejection(client.hpb({}))).toMatchObject({ code: '091002', step: 'HPB' });
		expect((await client.ini()).codes).toMatchObject({ technical: '000000', business: '000000' });
		expect((await client.hia()).codes).toMatchObject({ technical: '000000', business: '000000' });
		const subscriber = bank.ebics.subscriber('H004CUST', 'H004USER')!;
		expect(subscriber).toMatchObject({ state: 'initialised', protocol: 'H004' });
		const registered = {
			signature: formatHash(publicKeyDigest(subscriber.keys.signature!.publicKey)),
			authentication: formatHash(publicKeyDigest(subscriber.keys.authentication!.publicKey)),
			encryption: formatHash(publicKeyDigest(subscriber.keys.encryption!.publicKey)),
		};
		expect(client.letterHashes()).toEqual(registered);
		// The INI and HIA requests carried the bare keys, no certificate.
		const sentData = orderDataOf(log.filter((l) => l.step === 'INI' || l.step === 'HIA'));
		expect(sentData).toHaveLength(2);
		for (const data of sentData) {
			expect(data).toContain('<PubKeyValue><ds:RSAKeyValue>');
			expect(data).not.toContain('X509Certificate');
		}
		expect(await rejection(client.ini())).toMatchObject({ code: '091002' });
	});

	it('after activation fetches the bank keys (bare) and uses them only when the pinned H004 hashes match', async () => {
		await ebicsAdmin(bank, '/subscribers/H004CUST/H004USER/activate', {});
		const client = h004Client('H004CUST', 'H004USER', keys, { send: sandboxSend(bank, log) });
		const hashes = bankH004Hashes();
		const unpinned = await rejection(client.hpb({}));
		expect(unpinned).toBeInstanceOf(EbicsBankKeyError);
		expect(unpinned.message).toContain(hashes.authentication);
		const wrong = await rejection(client.hpb({ authentication: hashes.encryption, encryption: hashes.encryption }));
		expect(wrong.message).toMatch(/The bank's authentication \(X002\) key does not match the hash pinned/);
		const result = await client.hpb(hashes);
		expect(result.hashes).toEqual(hashes);
		expect(result.keys.authenticationCertificatePem).toBeUndefined();
		expect(result.keys.authenticationPublicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
		bankKeys = result.keys;
		ready = h004Client('H004CUST', 'H004USER', keys, { bank: bankKeys, send: sandboxSend(bank, log) });
	});

	let cctOrderId: string | undefined;

	it('uploads a SEPA credit transfer (CCT): the bank verifies the A006 signature and stores the pain.001', async () => {
		const file = painFile('MSG-H004-CCT', { version: 'pain.001.001.03' });
		const result = await ready.upload('CCT', { kind: 'standard' }, file);
		expect(result.orderId).toMatch(/^[A-Z][A-Z0-9]{3}$/);
		expect(result.codes).toMatchObject({ technical: '000000', business: '000000' });
		const stored = bank.ebics.subscriber('H004CUST', 'H004USER')!.uploads.find((u) => u.orderId === result.orderId)!;
		expect(stored).toMatchObject({ orderType: 'CCT', signatureFlag: 'authorise', service: { serviceName: 'SCT' } });
		expect(stored.data.equals(file)).toBe(true);
		cctOrderId = result.orderId;
	});

	it('uploads in many segments and with a transport signature (DZHNN)', async () => {
		const client = h004Client('H004CUST', 'H004USER', keys, { bank: bankKeys, segmentBytes: 3 * 64 });
		const file = painFile('MSG-H004-SEG', { version: 'pain.001.001.03', payments: 40 });
		const result = await client.upload('CCT', { kind: 'standard', signatureFlag: 'transport' }, file);
		expect(result.numSegments).toBeGreaterThan(2);
		const stored = bank.ebics.subscriber('H004CUST', 'H004USER')!.uploads.find((u) => u.orderId === result.orderId)!;
		expect(stored).toMatchObject({ signatureFlag: 'transport' });
		expect(stored.data.equals(file)).toBe(true);
	});

	it('downloads the statements (C53) as a ZIP, again until the receipt, then nothing new', async () => {
		const download = await ready.download('C53', { kind: 'standard' });
		const files = download!.files();
		expect(files.length).toBeGreaterThan(0);
		expect(files[0].data.toString()).toContain('camt.053');
		const again = await ready.download('C53', { kind: 'standard' });
		expect(again!.files().map((f) => f.name)).toEqual(files.map((f) => f.name));
		expect(await again!.reject()).toMatchObject({ technical: '011001' });
		expect(await download!.acknowledge()).toMatchObject({ technical: '011000' });
		expect(await ready.download('C53', { kind: 'standard' })).toBeUndefined();
		const date = /_(\d{4}-\d{2}-\d{2})_/.exec(files[0].name)?.[1] ?? '';
		const ranged = await ready.download('C53', { kind: 'standard', dateRange: { start: date, end: date } });
		expect(ranged!.files().length).toBeGreaterThan(0);
		await ranged!.acknowledge();
	});

	it('downloads by file format (FDL), MT940 (STA) and the customer acknowledgement (HAC) of the CCT', async () => {
		const fdl = await ready.download('FDL', { kind: 'file', fileFormat: 'camt.054.001.02' });
		expect(fdl!.files()[0].data.toString()).toContain('camt.054');
		await fdl!.acknowledge();
		const sta = await ready.download('STA', { kind: 'standard' });
		expect(sta!.files()).toEqual([{ name: 'mt940.txt', data: expect.any(Buffer) }]);
		expect(sta!.data.toString('latin1')).toMatch(/^:20:/);
		await sta!.acknowledge();
		const hac = await ready.hac();
		expect(hac!.files()[0].name).toBe('hac.xml');
		const report = readCustomerAcknowledgement(hac!.data);
		expect(report.entries.filter((e) => e.orderId === cctOrderId).length).toBeGreaterThan(0);
		await hac!.acknowledge();
		const ptk = await ready.ptk();
		expect(ptk!.data.toString('latin1')).toContain('CCT');
		await ptk!.acknowledge();
		const hpd = await ready.download('HPD', { kind: 'standard' });
		expect(hpd!.data.toString()).toContain('<HostID>SBXEBICS</HostID>');
		await hpd!.acknowledge();
	});

	it('HTD, HKD and HAA answer in the H004 shape (valid against ebics_orders_H004.xsd) and are read by order type', async () => {
		const raw = await ready.download('HTD', { kind: 'standard' });
		expect(validateEbics(raw!.data, 'H004/ebics_orders_H004.xsd')).toMatchObject({ valid: true });
		await raw!.reject();
		const subscriber = bank.ebics.subscriber('H004CUST', 'H004USER')!;
		const htd = await ready.htd();
		expect(htd.partner).toMatchObject({ hostId: 'SBXEBICS', accounts: [expect.objectContaining({ id: 'ACC1', iban: subscriber.iban })] });
		// The sandbox's contract: downloads of EOP, STM, REP, PSR and uploads of SCT, SDD, XCT, by their DK order types.
		expect(htd.partner.orders).toContainEqual(expect.objectContaining({ orderType: 'C53', transferType: 'Download' }));
		expect(htd.partner.orders).toContainEqual(expect.objectContaining({ orderType: 'CCT', transferType: 'Upload', numSigRequired: 1 }));
		expect(htd.users).toHaveLength(1);
		const permissions = htd.users[0].permissions;
		expect(permissions.filter((p) => !p.authorisationLevel).map((p) => p.orderType)).toEqual(['STA', 'C53', 'C52', 'C54', 'Z53', 'Z52', 'Z54', 'Z01', 'VMK', 'FDL', 'HTD', 'HKD', 'HPD', 'HAA', 'HAC', 'PTK', 'HVU', 'HVZ', 'HVD', 'HVT']);
		expect(permissions.filter((p) => p.authorisationLevel)).toEqual(['CCT', 'CDD', 'CDB', 'XCT', 'FUL', 'SPR', 'HVE', 'HVS'].map((orderType) => ({ orderType, accountId: 'ACC1', authorisationLevel: 'E' })));
		const hkd = await ready.hkd();
		expect(hkd.users.map((u) => u.userId)).toEqual(['H004USER']);
		const rawHaa = await ready.download('HAA', { kind: 'standard' });
		expect(validateEbics(rawHaa!.data, 'H004/ebics_orders_H004.xsd')).toMatchObject({ valid: true });
		await rawHaa!.reject();
		const available = await ready.haa();
		expect(available.length).toBeGreaterThan(0);
		// C53 was fetched and acknowledged above: not listed; each listed order type has data now.
		expect(available).not.toContainEqual({ orderType: 'C53' });
		for (const entry of available) {
			expect(entry).toEqual({ orderType: expect.stringMatching(/^[A-Z0-9]{3}$/) });
			const waiting = await ready.download((entry as { orderType: string }).orderType, { kind: 'standard' });
			expect(waiting?.data.length).toBeGreaterThan(0);
			await waiting!.reject();
		}
	});

	it('uploads by file format (FUL)', async () => {
		const result = await ready.upload('FUL', { kind: 'file', fileFormat: 'pain.001.001.03' }, painFile('MSG-H004-FUL', { version: 'pain.001.001.03' }));
		const stored = bank.ebics.subscriber('H004CUST', 'H004USER')!.uploads.find((u) => u.orderId === result.orderId)!;
		expect(stored).toMatchObject({ orderType: 'FUL', service: { serviceName: 'SCT' } });
	});

	it('sent only requests valid against the H004 schemas, and got answers in H004', () => {
		expect(log.length).toBeGreaterThan(10);
		for (const { step, request, answer } of log) {
			expect({ step, ...validateEbics(request, 'H004/ebics_H004.xsd') }).toMatchObject({ step, valid: true });
			expect(answer).toContain('urn:org:ebics:H004');
		}
	});
});

describe('the strict bank in EBICS 2.5', () => {
	async function readyClient(send?: EbicsSend): Promise<{ client: EbicsClient; keys: EbicsSubscriberKeys; bankKeys: EbicsBankKeys }> {
		const keys = await testSubscriberKeys();
		const bankKeys = (await h004Client('H004CUST', 'H004USER', keys).hpb(bankH004Hashes())).keys;
		return { client: h004Client('H004CUST', 'H004USER', keys, { bank: bankKeys, send }), keys, bankKeys };
	}
	const post = async (xml: string, step: string, bankKeys: EbicsBankKeys) =>
		readResponse(await sandboxSend(bank)(xml, step), step, { namespace: H004_NS, bankAuthenticationKey: loadBankKeys(bankKeys).authentication.publicKey });

	it('refuses a nonce used before (091103), wrong digests of its keys (091008) and a request changed after signing (061001)', async () => {
		const { keys, bankKeys } = await readyClient();
		const loaded = loadSubscriberKeys(keys);
		const bankLoaded = loadBankKeys(bankKeys);
		const digests = { authentication: publicKeyDigest(bankLoaded.authentication.publicKey), encryption: publicKeyDigest(bankLoaded.encryption.publicKey) };
		const time = { nonce: 'AB'.repeat(16) };
		const hpd = () => downloadInitRequestH004({ hostId: bank.ebics.hostId, partnerId: 'H004CUST', userId: 'H004USER' }, 'HPD', { kind: 'standard' }, digests, loaded.authentication.privateKey, time);
		expect(await post(hpd(), 'HPD', bankKeys)).toMatchObject({ codes: { technical: '000000' }, signed: true, transactionId: expect.stringMatching(/^[0-9A-F]{32}$/) });
		const again = await rejection(post(hpd(), 'HPD', bankKeys));
		expect(again).toMatchObject({ code: '091103' });
		// The H005 form of its keys' hashes is not the H004 one.
		const certificateForm = { authentication: Buffer.alloc(32, 1), encryption: digests.encryption };
		expect(await rejection(post(downloadInitRequestH004({ hostId: bank.ebics.hostId, partnerId: 'H004CUST', userId: 'H004USER' }, 'STA', { kind: 'standard' }, certificateForm, loaded.authentication.privateKey), 'STA', bankKeys))).toMatchObject({ code: '091008' });
		const signed = downloadInitRequestH004({ hostId: bank.ebics.hostId, partnerId: 'H004CUST', userId: 'H004USER' }, 'STA', { kind: 'standard' }, digests, loaded.authentication.privateKey);
		expect(await rejection(post(signed.replace('<OrderType>STA</OrderType>', '<OrderType>C53</OrderType>'), 'STA', bankKeys))).toMatchObject({ code: '061001' });
		// A request the H004 schema refuses.
		expect(await rejection(post(signed.replace('<OrderAttribute>DZHNN</OrderAttribute>', '<OrderAttribute>XXXXX</OrderAttribute>'), 'STA', bankKeys))).toMatchObject({ code: '091010' });
	});

	it('refuses an upload whose A006 signature is not over its order data, and writes the refusal into HAC', async () => {
		const { client, keys, bankKeys } = await readyClient();
		// Signed with a key the bank did not register for this subscriber (another subscriber's).
		const forged = h004Client('H004CUST', 'H004USER', { ...keys, signature: (await otherSubscriberKeys()).signature }, { bank: bankKeys });
		const refused = await rejection(forged.upload('CCT', { kind: 'standard' }, painFile('MSG-FORGED', { version: 'pain.001.001.03' })));
		expect(refused).toMatchObject({ code: '091301' });
		expect(bank.ebics.subscriber('H004CUST', 'H004USER')!.uploads.some((u) => u.data.toString().includes('MSG-FORGED'))).toBe(false);
		const hac = await client.hac();
		expect(readCustomerAcknowledgement(hac!.data).entries.some((e) => e.reasonCode === 'DS0B')).toBe(true);
		await hac!.reject();
	});
});

describe('EBICS 2.5 with certificates, and what is refused', () => {
	it('sends keys with their certificates in INI and HIA', async () => {
		await ebicsAdmin(bank, '/subscribers', { partnerId: 'H004CUST', userId: 'H004CERT' });
		const keys = await otherSubscriberKeys();
		const log: Array<{ step: string; request: string; answer: string }> = [];
		const client = h004Client('H004CUST', 'H004CERT', keys, { send: sandboxSend(bank, log) });
		await client.ini();
		await client.hia();
		expect(bank.ebics.subscriber('H004CUST', 'H004CERT')).toMatchObject({ state: 'initialised', protocol: 'H004' });
		const sentData = orderDataOf(log);
		expect(sentData).toHaveLength(2);
		for (const data of sentData) {
			expect(data).toContain('<ds:X509Certificate>');
			expect(data).toContain('<PubKeyValue><ds:RSAKeyValue>');
		}
	});

	it('refuses EBICS 3.0 orders and bad values before sending; the bank refuses an order type outside the contract', async () => {
		const keys = await testSubscriberKeys();
		const sent: string[] = [];
		const send = sandboxSend(bank);
		const client = h004Client('H004CUST', 'H004USER', keys, { bank: (await h004Client('H004CUST', 'H004USER', keys).hpb(bankH004Hashes())).keys, send: async (xml, step) => (sent.push(step), await send(xml, step)) });
		expect(await rejection(client.btd({ serviceName: 'EOP', msgName: 'camt.053' }))).toEqual(new EbicsValidationError('orderType', 'BTD is an EBICS 3.0 order type: an EBICS 2.5 (H004) bank takes the order type of the file (e.g. C53, CCT, FDL, FUL)'));
		expect(await rejection(client.download('FDL', { kind: 'standard' }))).toBeInstanceOf(EbicsValidationError);
		expect(await rejection(client.upload('FUL', { kind: 'file', fileFormat: 'pain 001' }, Buffer.from('x')))).toBeInstanceOf(EbicsValidationError);
		expect(sent).toEqual([]);
		const refused = await rejection(client.download('FDL', { kind: 'file', fileFormat: 'dtazv' }));
		expect(refused).toBeInstanceOf(EbicsReturnCodeError);
		expect(refused).toMatchObject({ code: '091112' });
		// An H005 client meets an H004 answer with the version to set.
		const h005 = new EbicsClient({ subscriber: { hostId: bank.ebics.hostId, partnerId: 'H004CUST', userId: 'H004USER' }, keys: { version: 1, subscriber: keys }, send: async () => '<ebicsKeyManagementResponse xmlns="urn:org:ebics:H004"/>' });
		const wrongVersion = await rejection(h005.ini());
		expect(wrongVersion).toBeInstanceOf(EbicsFormatError);
		expect(wrongVersion.message).toMatch(/set the credential's EBICS Version/);
	});
});
