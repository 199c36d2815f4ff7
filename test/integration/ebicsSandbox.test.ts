/**
 * The EBICS library against the sandbox EBICS bank over real HTTPS: a new subscriber from INI
 * and HIA to activation, HPB with pinned hashes, downloads (ZIP containers, many segments,
 * receipts, date ranges, no data), uploads (signature classes, many segments), the
 * administrative orders, SPR; and what a strict bank refuses and a bad bank sends.
 */
import { X509Certificate } from 'node:crypto';

import {
	certificateDigest,
	downloadInitRequest,
	formatHash,
	publicKeyDigest,
	loadBankKeys,
	loadSubscriberKeys,
	prepareUpload,
	uploadInitRequest,
	uploadTransferRequest,
	EbicsBankKeyError,
	EbicsDataError,
	EbicsFormatError,
	EbicsReturnCodeError,
	EbicsSignatureError,
	EbicsValidationError,
	SERVICE_PRESETS,
	type EbicsBankKeys,
	type EbicsClient,
} from '../../nodes/shared/ebics';
import { startSandbox, type SandboxBank } from '../sandbox';
import { ebicsAdmin, rejection, sandboxClient, sandboxSend } from '../helpers/ebicsSandbox';
import { otherSubscriberKeys, painFile, testSubscriberKeys, validateEbics } from '../helpers/ebics';

let bank: SandboxBank;
let bankKeys: EbicsBankKeys;

const camt053 = { ...SERVICE_PRESETS.camt053.service, scope: 'DE' };
const mt940 = SERVICE_PRESETS.mt940.service;
const sct = { ...SERVICE_PRESETS.sct.service, scope: 'DE' };

beforeAll(async () => {
	bank = await startSandbox({ seed: 7 });
});
afterAll(async () => {
	await bank.stop();
});

describe('a new subscriber, from INI and HIA to the first statement and payment', () => {
	let ready: EbicsClient;

	it('is refused before the bank has its keys and has activated it, with what to do', async () => {
		const keys = await testSubscriberKeys();
		const log: Array<{ step: string; request: string; answer: string }> = [];
		const client = sandboxClient(bank, 'PARTNER1', 'USER1', keys, { send: sandboxSend(bank, log) });
		expect((await client.hev()).map((v) => v.protocol)).toEqual(['H004', 'H005']);
		const early = await rejection(client.hpb({}));
		expect(early).toBeInstanceOf(EbicsReturnCodeError);
		expect(early).toMatchObject({ code: '091002', level: 'technical', step: 'HPB' });
		expect((early as EbicsReturnCodeError).action).toMatch(/has not activated the subscriber yet: send the signed initialisation letters and wait/);

		expect((await client.ini()).codes).toEqual({ technical: '000000', business: '000000', reportText: expect.stringContaining('EBICS_OK') });
		expect(bank.ebics.subscriber('PARTNER1', 'USER1')?.state).toBe('iniReceived');
		await client.hia();
		expect(bank.ebics.subscriber('PARTNER1', 'USER1')?.state).toBe('initialised');
		expect(await rejection(client.ini())).toMatchObject({ code: '091002' });
		expect(await rejection(client.hpb({}))).toMatchObject({ code: '091002' });
		// Every request and every answer of the bank is valid against the official schemas.
		for (const { step, request, answer } of log) {
			const schema = step === 'HEV' ? 'ebics_hev.xsd' : 'ebics_H005.xsd';
			expect({ step, ...validateEbics(request, schema) }).toMatchObject({ step, valid: true });
			expect({ step, ...validateEbics(answer, schema) }).toMatchObject({ step, valid: true });
		}
	});

	it('after activation fetches the bank keys and refuses them until the pinned hashes match', async () => {
		await ebicsAdmin(bank, '/subscribers/PARTNER1/USER1/activate', {});
		const client = sandboxClient(bank, 'PARTNER1', 'USER1', await testSubscriberKeys());
		const hashes = bank.ebics.letterHashes();
		const unpinned = await rejection(client.hpb({}));
		expect(unpinned).toBeInstanceOf(EbicsBankKeyError);
		expect(unpinned.message).toContain(hashes.authentication);
		expect(unpinned.message).toMatch(/Compare them with the hashes printed in the bank's letter/);
		const wrong = await rejection(client.hpb({ authentication: hashes.encryption, encryption: hashes.encryption }));
		expect(wrong.message).toMatch(/The bank's authentication \(X002\) key does not match the hash pinned from the bank's letter/);
		// A bank still migrating may print the EBICS 2.5 hash of its key (exponent, modulus): it pins the same key.
		const keyForm = (pem: string): string => formatHash(publicKeyDigest(new X509Certificate(pem).publicKey));
		const bankFile = bank.ebicsClient('PARTNER1', 'USER1');
		expect(bankFile.bankHashes).toEqual(hashes);
		expect((await client.hpb({ authentication: keyForm(bank.ebics.bankAuthentication.certificatePem), encryption: keyForm(bank.ebics.bankEncryption.certificatePem) })).hashes).toEqual(hashes);
		const result = await client.hpb({ authentication: hashes.authentication.toLowerCase(), encryption: hashes.encryption.replace(/\s/g, '') });
		expect(result.hashes).toEqual(hashes);
		expect(result.hostId).toBe('SBXEBICS');
		bankKeys = result.keys;
		ready = sandboxClient(bank, 'PARTNER1', 'USER1', await testSubscriberKeys(), { bank: bankKeys });
	});

	it('reads what the subscriber may do (HTD, HKD) and what is waiting (HAA)', async () => {
		const htd = await ready.htd();
		expect(htd.partner.hostId).toBe('SBXEBICS');
		expect(htd.users).toEqual([expect.objectContaining({ userId: 'USER1', status: 1, permissions: expect.arrayContaining([expect.objectContaining({ orderType: 'BTU', authorisationLevel: 'E', service: { serviceName: 'SCT', msgName: 'pain.001' } })]) })]);
		expect((await ready.hkd()).users.map((u) => u.userId)).toEqual(['USER1', 'USER2']);
		expect(await ready.haa()).toEqual(expect.arrayContaining([{ serviceName: 'EOP', msgName: 'camt.053' }, { serviceName: 'EOP', msgName: 'mt940' }, { serviceName: 'STM', msgName: 'camt.052' }]));
	});

	it('downloads the statements in a ZIP, one file per statement, and gets them again only until the receipt', async () => {
		const download = await ready.btd(camt053);
		expect(download).toBeDefined();
		const files = download!.files();
		expect(files).toHaveLength(5);
		expect(files[0].name).toMatch(/^camt053_\d{4}-\d{2}-\d{2}_\d{4}\.xml$/);
		expect(files[0].data.toString()).toContain('urn:iso:std:iso:20022:tech:xsd:camt.053.001.02');
		// No receipt yet: the bank delivers the same data again.
		const again = await ready.btd(camt053);
		expect(again!.files().map((f) => f.name)).toEqual(files.map((f) => f.name));
		expect(await again!.reject()).toMatchObject({ technical: '011001' });
		await expect(again!.reject()).rejects.toThrow(/receipt of BTD EOP DE camt.053 ZIP was already sent/);
		expect(await download!.acknowledge()).toMatchObject({ technical: '011000' });
		// Delivered: nothing new (090005 is an empty result, not an error) ...
		expect(await ready.btd(camt053)).toBeUndefined();
		// ... but a date range fetches them again.
		const dates = files.map((f) => /_(\d{4}-\d{2}-\d{2})_/.exec(f.name)?.[1] ?? '').sort();
		const ranged = await ready.btd(camt053, { start: dates[0], end: dates[1] });
		expect(ranged!.files()).toHaveLength(2);
		await ranged!.acknowledge();
	});

	it('downloads an MT940 statement (no container) as one file', async () => {
		const download = await ready.btd(mt940);
		expect(download!.files()).toEqual([{ name: 'mt940.txt', data: expect.any(Buffer) }]);
		expect(download!.data.toString('latin1')).toMatch(/^:20:STMT/);
		await download!.acknowledge();
	});

	it('uploads a pain.001 signed with A006 and gets its order ID; the bank stores it and reports on it', async () => {
		const file = painFile('MSG-EBICS-1');
		const result = await ready.btu(sct, file, 'authorise', { fileName: 'payments.xml' });
		expect(result.orderId).toMatch(/^[A-Z][A-Z0-9]{3}$/);
		const stored = bank.ebics.subscriber('PARTNER1', 'USER1')!.uploads.find((u) => u.orderId === result.orderId)!;
		expect(stored).toMatchObject({ orderType: 'BTU', fileName: 'payments.xml', signatureFlag: 'authorise', service: expect.objectContaining({ serviceName: 'SCT', scope: 'DE' }) });
		expect(stored.data.equals(file)).toBe(true);
		const status = await ready.btd({ ...SERVICE_PRESETS.pain002.service });
		expect(status!.files()[0].data.toString()).toContain('<OrgnlMsgId>MSG-EBICS-1</OrgnlMsgId>');
		await status!.acknowledge();
		const hac = await ready.hac();
		expect(hac!.data.toString()).toContain(result.orderId);
		await hac!.acknowledge();
		const ptk = await ready.ptk();
		expect(ptk!.data.toString('latin1')).toContain(`Order ${result.orderId}`);
		await ptk!.acknowledge();
	});

	it('sends the signature classes as the spec says: distributed signature (EDS) and transport only', async () => {
		const distributed = await ready.btu(sct, painFile('MSG-EDS'), 'distributed');
		const transport = await ready.btu(sct, painFile('MSG-T'), 'transport');
		const uploads = bank.ebics.subscriber('PARTNER1', 'USER1')!.uploads;
		expect(uploads.find((u) => u.orderId === distributed.orderId)?.signatureFlag).toBe('distributed');
		expect(uploads.find((u) => u.orderId === transport.orderId)?.signatureFlag).toBe('transport');
	});

	it('uploads and downloads in many segments', async () => {
		const log: Array<{ step: string; request: string; answer: string }> = [];
		const segmented = sandboxClient(bank, 'PARTNER1', 'USER1', await testSubscriberKeys(), { bank: bankKeys, segmentBytes: 999, send: sandboxSend(bank, log) });
		const file = painFile('MSG-MANY', { payments: 200 });
		const result = await segmented.btu(sct, file);
		expect(result.numSegments).toBeGreaterThan(3);
		expect(log.filter((l) => l.step.includes('transfer of segment'))).toHaveLength(result.numSegments);
		expect(log.every((l) => validateEbics(l.request).valid)).toBe(true);
		// The bank's answers are valid against the same schemas.
		for (const { step, answer } of log) expect({ step, ...validateEbics(answer) }).toMatchObject({ step, valid: true });
		expect(bank.ebics.subscriber('PARTNER1', 'USER1')!.uploads.find((u) => u.orderId === result.orderId)!.data.equals(file)).toBe(true);

		await ebicsAdmin(bank, '/switches', { segmentBytes: 3000 });
		try {
			const big = Buffer.from(Array.from({ length: 3000 }, (_, i) => `:61:line ${i} ${Math.sin(i)}\r\n`).join(''));
			await ebicsAdmin(bank, '/files', { partnerId: 'PARTNER1', userId: 'USER1', serviceName: 'STM', msgName: 'mt942', name: 'mt942.txt', contentBase64: big.toString('base64') });
			const download = await segmented.btd(SERVICE_PRESETS.mt942.service);
			expect(download!.numSegments).toBeGreaterThan(3);
			expect(download!.data.equals(big)).toBe(true);
			await download!.acknowledge();
		} finally {
			await ebicsAdmin(bank, '/switches', { segmentBytes: 786432 });
		}
	});

	it('suspends the subscriber with SPR; the bank then refuses it until it is activated again', async () => {
		const keys = await testSubscriberKeys();
		await ebicsAdmin(bank, '/subscribers', { partnerId: 'PARTNER1', userId: 'USER3' });
		const client = sandboxClient(bank, 'PARTNER1', 'USER3', keys);
		await client.ini();
		await client.hia();
		await ebicsAdmin(bank, '/subscribers/PARTNER1/USER3/activate', {});
		const user3 = sandboxClient(bank, 'PARTNER1', 'USER3', keys, { bank: bankKeys });
		await user3.spr();
		expect(bank.ebics.subscriber('PARTNER1', 'USER3')?.state).toBe('suspended');
		expect(await rejection(user3.btd(camt053))).toMatchObject({ code: '091002' });
		await ebicsAdmin(bank, '/subscribers/PARTNER1/USER3/activate', {});
		await (await user3.btd(mt940))!.reject();
	});
});

describe('a strict bank', () => {
	let keys: Awaited<ReturnType<typeof testSubscriberKeys>>;
	beforeAll(async () => {
		keys = await testSubscriberKeys();
	});

	it('refuses a replayed request (same nonce) with 091103', async () => {
		const log: Array<{ step: string; request: string; answer: string }> = [];
		const client = sandboxClient(bank, 'PARTNER1', 'USER1', keys, { bank: bankKeys, send: sandboxSend(bank, log) });
		await client.htd();
		const first = log.find((l) => l.step === 'HTD initialisation')!;
		const replayed = await sandboxSend(bank)(first.request, 'replay');
		expect(replayed).toMatch(/<ReturnCode>091103<\/ReturnCode>/);
		expect(replayed).toContain('EBICS_TX_MESSAGE_REPLAY');
	});

	it('refuses an old timestamp (091103), segments out of order (011101) or beyond the declared number (091104)', async () => {
		const loaded = loadSubscriberKeys(keys);
		const bankLoaded = loadBankKeys(bankKeys);
		const digests = { authentication: certificateDigest(bankLoaded.authentication.certificateDer as Buffer), encryption: certificateDigest(bankLoaded.encryption.certificateDer as Buffer) };
		const subscriber = { hostId: 'SBXEBICS', partnerId: 'PARTNER1', userId: 'USER1' };
		const send = sandboxSend(bank);
		const code = (answer: string): string | undefined => /<ReturnCode>(\d{6})<\/ReturnCode>/.exec(answer)?.[1];
		const old = downloadInitRequest(subscriber, 'HTD', { kind: 'standard' }, digests, loaded.authentication.privateKey, { timestamp: new Date(Date.now() - 3_600_000) });
		expect(code(await send(old, 'old'))).toBe('091103');

		const prepared = prepareUpload(painFile('MSG-ORDER', { payments: 200 }), { signatureKey: loaded.signature.privateKey, signer: subscriber, bankEncryptionKey: bankLoaded.encryption.publicKey, segmentBytes: 999 });
		expect(prepared.segments.length).toBeGreaterThan(2);
		const init = await send(uploadInitRequest(subscriber, 'BTU', { kind: 'BTU', service: sct }, digests, { ...prepared, numSegments: prepared.segments.length }, loaded.authentication.privateKey), 'init');
		const transactionId = /<TransactionID>([0-9A-F]{32})</.exec(init)?.[1] ?? '';
		const transfer = (index: number, last = index === prepared.segments.length): string =>
			uploadTransferRequest('SBXEBICS', transactionId, index, last, prepared.segments[Math.min(index, prepared.segments.length) - 1], loaded.authentication.privateKey);
		expect(code(await send(transfer(2), 'segment 2 first'))).toBe('011101');
		expect(code(await send(transfer(1), 'segment 1'))).toBe('000000');
		expect(code(await send(transfer(prepared.segments.length + 1, true), 'beyond'))).toBe('091104');
	});

	it('refuses a request that is not valid against the H005 schema with 091010', async () => {
		const log: Array<{ step: string; request: string; answer: string }> = [];
		const client = sandboxClient(bank, 'PARTNER1', 'USER1', keys, { bank: bankKeys, send: sandboxSend(bank, log) });
		await client.htd();
		const request = log[0].request.replace('<SecurityMedium>', '<Unexpected/><SecurityMedium>');
		const answer = await sandboxSend(bank)(request, 'invalid');
		expect(answer).toMatch(/<ReturnCode>091010<\/ReturnCode><ReportText>\[EBICS_INVALID_XML\] Request not valid against the H005 schema/);
	});

	it('refuses bank key digests that are not its keys (091008), in the EBICS 2.5 form unless switched to accept it', async () => {
		const client = sandboxClient(bank, 'PARTNER1', 'USER1', keys, { bank: bankKeys, bankKeyDigestForm: 'publicKey' });
		expect(await rejection(client.btd(mt940))).toMatchObject({ code: '091008', info: expect.objectContaining({ name: 'EBICS_BANK_PUBKEY_UPDATE_REQUIRED' }) });
		await ebicsAdmin(bank, '/switches', { acceptKeyDigests: true });
		try {
			expect(await client.btd(camt053)).toBeUndefined();
		} finally {
			await ebicsAdmin(bank, '/switches', { acceptKeyDigests: false });
		}
		const otherBank = sandboxClient(bank, 'PARTNER1', 'USER1', keys, { bank: { authenticationCertificatePem: bankKeys.encryptionCertificatePem, encryptionCertificatePem: bankKeys.encryptionCertificatePem } });
		expect(await rejection(otherBank.btd(camt053))).toMatchObject({ code: '091008' });
	});

	it('refuses requests signed with other keys (061001) and order signatures that do not verify (091301)', async () => {
		const other = await otherSubscriberKeys();
		const impostor = sandboxClient(bank, 'PARTNER1', 'USER1', { ...keys, authentication: other.authentication }, { bank: bankKeys });
		expect(await rejection(impostor.btd(camt053))).toMatchObject({ code: '061001', info: expect.objectContaining({ name: 'EBICS_AUTHENTICATION_FAILED' }) });
		const wrongSigner = sandboxClient(bank, 'PARTNER1', 'USER1', { ...keys, signature: other.signature }, { bank: bankKeys });
		const refused = await rejection(wrongSigner.btu(sct, painFile('MSG-BAD')));
		expect(refused).toMatchObject({ code: '091301', level: 'business', info: expect.objectContaining({ name: 'EBICS_SIGNATURE_VERIFICATION_FAILED' }) });
	});

	it('names unknown IDs and refuses services the subscriber may not use', async () => {
		const unknown = sandboxClient(bank, 'PARTNER1', 'NOBODY', keys);
		expect(await rejection(unknown.ini())).toMatchObject({ code: '091003', info: expect.objectContaining({ name: 'EBICS_USER_UNKNOWN' }) });
		const wrongHost = new (await import('../../nodes/shared/ebics')).EbicsClient({ subscriber: { hostId: 'OTHERHOST', partnerId: 'PARTNER1', userId: 'USER1' }, keys: { version: 1, subscriber: keys }, send: sandboxSend(bank) });
		expect(await rejection(wrongHost.ini())).toMatchObject({ code: '091011' });
		const ready = sandboxClient(bank, 'PARTNER1', 'USER1', keys, { bank: bankKeys });
		expect(await rejection(ready.btu({ serviceName: 'DCT', msgName: 'pain.001' }, painFile('MSG-DCT')))).toMatchObject({ code: '090003', level: 'business' });
	});

	it('refuses bad IDs and parameters before anything is sent', async () => {
		const send = jest.fn();
		expect(() => sandboxClient(bank, 'PARTNER 1', 'USER1', keys, { send })).toThrow(new EbicsValidationError('partnerId', 'Partner ID "PARTNER 1" is not valid: 1 to 35 letters, digits, "," or "=" (EBICS PartnerID)'));
		const client = sandboxClient(bank, 'PARTNER1', 'USER1', keys, { bank: bankKeys, send });
		await expect(client.btd({ serviceName: 'EOP', msgName: 'camt.053', container: 'RAR' as 'ZIP' })).rejects.toThrow(/service.container "RAR" is not valid/);
		await expect(client.btd(camt053, { start: '2026-02-30', end: '2026-03-01' })).rejects.toThrow(/dateRange.start must be a date/);
		expect(send).not.toHaveBeenCalled();
	});
});

describe('a bad bank', () => {
	let client: EbicsClient;
	beforeAll(async () => {
		client = sandboxClient(bank, 'PARTNER1', 'USER1', await testSubscriberKeys(), { bank: bankKeys });
	});

	async function withFault(kind: string): Promise<void> {
		await ebicsAdmin(bank, '/faults', { kind });
	}

	it('a response changed after signing is refused as a broken signature', async () => {
		await withFault('tamperSignature');
		const error = await rejection(client.htd());
		expect(error).toBeInstanceOf(EbicsSignatureError);
		expect(error.message).toBe("The bank's answer to HTD initialisation: the authentication signature does not match the content (digest differs: the message was changed after signing)");
	});

	it('an unsigned response is refused', async () => {
		await withFault('unsignedResponse');
		expect(await rejection(client.htd())).toEqual(new EbicsSignatureError("The bank's answer to HTD initialisation is not signed: it has no AuthSignature"));
	});

	it('a damaged segment is named', async () => {
		await ebicsAdmin(bank, '/files', { partnerId: 'PARTNER1', userId: 'USER1', serviceName: 'EOP', msgName: 'mt940', name: 'x.txt', content: ':20:X\r\n' });
		await withFault('damageSegment');
		expect(await rejection(client.btd(mt940))).toEqual(new EbicsDataError('Segment 1 of the order data is damaged: its OrderData is not base64'));
	});

	it('a truncated ZIP is named, and the negative receipt keeps the data at the bank', async () => {
		const more = Buffer.from('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"/>');
		await ebicsAdmin(bank, '/files', { partnerId: 'PARTNER1', userId: 'USER1', serviceName: 'EOP', msgName: 'camt.053', name: 'late.xml', contentBase64: more.toString('base64') });
		await withFault('truncateZip');
		const download = await client.btd(camt053);
		expect(() => download!.files()).toThrow(/The ZIP container is damaged or cut off/);
		await download!.reject();
		const again = await client.btd(camt053);
		expect(again!.files().map((f) => f.name)).toContain('late.xml');
		await again!.acknowledge();
	});

	it('an error in the body under an OK header (as some French banks answer) is an error', async () => {
		await withFault('headerOkBodyError');
		const error = await rejection(client.btu(sct, painFile('MSG-FR')));
		expect(error).toMatchObject({ code: '091116', level: 'business', reportText: expect.stringContaining('Erreur de traitement') });
	});

	it('an answer that is not EBICS, or declares a DOCTYPE, is named', async () => {
		const html = new (await import('../../nodes/shared/ebics')).EbicsClient({ subscriber: { hostId: 'SBXEBICS', partnerId: 'PARTNER1', userId: 'USER1' }, keys: { version: 1, subscriber: await testSubscriberKeys(), bank: bankKeys }, send: async () => '<html><body>Maintenance</body></html>' });
		expect(await rejection(html.htd())).toEqual(new EbicsFormatError("The bank's answer to HTD initialisation is not an EBICS 3.0 response: its root is html without namespace"));
		const doctype = new (await import('../../nodes/shared/ebics')).EbicsClient({ subscriber: { hostId: 'SBXEBICS', partnerId: 'PARTNER1', userId: 'USER1' }, keys: { version: 1, subscriber: await testSubscriberKeys(), bank: bankKeys }, send: async () => '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>' });
		expect((await rejection(doctype.htd())).message).toBe("The bank's answer to HTD initialisation is refused: XML with a DOCTYPE declaration is refused");
	});

	it('no error carries private key material', async () => {
		const keys = await testSubscriberKeys();
		const secrets = [keys.signature, keys.authentication, keys.encryption].map((k) => k.privateKeyPem.split('\n')[1].slice(0, 24));
		const errors = [
			await rejection(sandboxClient(bank, 'PARTNER1', 'NOBODY', keys).ini()),
			await rejection(client.btd({ serviceName: 'EOP', msgName: 'BAD!' })),
		];
		expect(errors.map((error) => error.constructor.name)).toEqual(['EbicsReturnCodeError', 'EbicsValidationError']);
		for (const error of errors) for (const secret of secrets) expect(`${error.message} ${error.stack}`).not.toContain(secret);
	});
});
