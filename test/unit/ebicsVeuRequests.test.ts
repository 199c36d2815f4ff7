/**
 * The requests of the distributed signature (HVU, HVZ, HVD, HVE, HVS) and of the key changes
 * (PUB, HCA, HCS) against the official H005 schemas, and the HVE signature: this subscriber's
 * A006 signature of the order's DataDigest, as the bank decrypts and verifies it.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { inflateSync } from 'node:zlib';

import {
	child,
	decryptE002,
	downloadInitRequest,
	EbicsClient,
	EbicsVeu,
	generateSubscriberKeys,
	H005_NS,
	hvListParams,
	hvOrderParams,
	keyChangeOrderData,
	keysAfterChange,
	orderDataDigest,
	parseDocument,
	path as xmlPath,
	S002_NS,
	text,
	unwrapTransactionKey,
	verifyA006,
	type EbicsSubscriberKeys,
} from '../../nodes/shared/ebics';
import { testBankKeys, testSubscriberKeys, validateEbics } from '../helpers/ebics';

const subscriber = { hostId: 'SBXHOST', partnerId: 'PARTNER3', userId: 'SIGNER2' };
const service = { serviceName: 'SCT', scope: 'DE', msgName: 'pain.001', msgVersion: '09' };
const ref = { partnerId: 'PARTNER3', service, orderId: 'A1B2' };
const digests = { authentication: Buffer.alloc(32, 1), encryption: Buffer.alloc(32, 2) };

let keys: EbicsSubscriberKeys;
beforeAll(async () => {
	keys = await testSubscriberKeys();
});

describe('distributed signature requests', () => {
	test('HVU, HVZ (with a service filter) and HVD initialisations are valid H005 requests', () => {
		const key = createPrivateKey(keys.authentication.privateKeyPem);
		for (const xml of [
			downloadInitRequest(subscriber, 'HVU', { kind: 'element', xml: hvListParams('HVU') }, digests, key),
			downloadInitRequest(subscriber, 'HVZ', { kind: 'element', xml: hvListParams('HVZ', [service]) }, digests, key),
			downloadInitRequest(subscriber, 'HVD', { kind: 'element', xml: hvOrderParams('HVD', ref) }, digests, key),
		])
			expect(validateEbics(xml)).toEqual({ valid: true, output: expect.stringContaining('validates') });
		expect(hvListParams('HVZ', [service])).toBe('<HVZOrderParams><ServiceFilter><ServiceName>SCT</ServiceName><Scope>DE</Scope><MsgName version="09">pain.001</MsgName></ServiceFilter></HVZOrderParams>');
	});

	test('order references are checked before anything is built', () => {
		expect(() => hvOrderParams('HVE', { ...ref, orderId: 'a1' })).toThrow(/Order ID "A1" is not valid: a letter then three letters or digits/);
		expect(() => hvOrderParams('HVE', { ...ref, partnerId: 'PART NER' })).toThrow(/Originator Partner ID "PART NER" is not valid/);
		expect(() => hvOrderParams('HVE', { ...ref, service: { ...service, serviceName: 'sct' } })).toThrow(/service\.serviceName/);
	});

	test.each(['HVE', 'HVS'] as const)("%s is a valid upload signed with this subscriber's A006 key over the order's DataDigest", async (orderType) => {
		const bank = await testBankKeys();
		const sent: string[] = [];
		const send = async (xml: string): Promise<string> => {
			sent.push(xml);
			throw new Error('stop after the first request');
		};
		const options = { subscriber, keys: { version: 1 as const, subscriber: keys, bank: bank }, send };
		const veu = new EbicsVeu(new EbicsClient(options), options);
		const digest = orderDataDigest(Buffer.from('<Document>the order</Document>'));
		const sendOrder = (veu as unknown as { send: (t: string, r: typeof ref, d: Buffer, o?: string) => Promise<unknown> }).send.bind(veu);
		await expect(sendOrder(orderType, ref, digest, orderType === 'HVS' ? '<x/>' : undefined)).rejects.toThrow('stop after the first request');
		const xml = sent[0];
		expect(validateEbics(xml)).toEqual({ valid: true, output: expect.stringContaining('validates') });
		expect(xml).toContain(`<AdminOrderType>${orderType}</AdminOrderType><${orderType}OrderParams><PartnerID>PARTNER3</PartnerID><Service>`);
		expect(xml).toContain(`<NumSegments>${orderType === 'HVE' ? 0 : 1}</NumSegments>`);
		// What the bank does: unwrap the transaction key, decrypt the signature, verify it over the digest.
		const doc = parseDocument(xml, 'request');
		const transfer = xmlPath(doc.documentElement, H005_NS, 'body', 'DataTransfer');
		const transactionKey = unwrapTransactionKey(Buffer.from(text(xmlPath(transfer, H005_NS, 'DataEncryptionInfo', 'TransactionKey'))!, 'base64'), createPrivateKey(bank.encryptionKeyPem));
		const signatureXml = inflateSync(decryptE002(Buffer.from(text(child(transfer, H005_NS, 'SignatureData'))!, 'base64'), transactionKey));
		expect(validateEbics(signatureXml, 'ebics_signature_S002.xsd').valid).toBe(true);
		const signature = Buffer.from(text(xmlPath(parseDocument(signatureXml, 'signature').documentElement, S002_NS, 'OrderSignatureData', 'SignatureValue'))!, 'base64');
		expect(verifyA006(digest, signature, createPublicKey(keys.signature.certificatePem))).toBe(true);
		expect(verifyA006(orderDataDigest(Buffer.from('another order')), signature, createPublicKey(keys.signature.certificatePem))).toBe(false);
		expect(text(child(transfer, H005_NS, 'DataDigest'))).toBe(digest.toString('base64'));
	});
});

describe('key change order data', () => {
	test.each(['PUB', 'HCA', 'HCS'] as const)('%s carries the new certificates and is valid against its schema', async (order) => {
		const next = await generateSubscriberKeys({ subject: { commonName: 'Next keys' } });
		const after = keysAfterChange(order, keys, next);
		const xml = keyChangeOrderData(order, subscriber, after);
		expect(validateEbics(xml, order === 'PUB' ? 'ebics_signature_S002.xsd' : 'ebics_H005.xsd')).toEqual({ valid: true, output: expect.stringContaining('validates') });
		const body = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
		expect(xml.includes(body(next.signature.certificatePem))).toBe(order !== 'HCA');
		expect(xml.includes(body(next.authentication.certificatePem))).toBe(order !== 'PUB');
		expect(xml.includes(body(next.encryption.certificatePem))).toBe(order !== 'PUB');
		expect(after.signature).toBe(order === 'HCA' ? keys.signature : next.signature);
		expect(after.authentication).toBe(order === 'PUB' ? keys.authentication : next.authentication);
	});
});
