/**
 * EBICS 2.5 (H004) key changes without a bank: the order data of PUB (S001
 * SignaturePubKeyOrderData), HCA and HCS (HCARequestOrderData, HCSRequestOrderData) carrying the
 * new keys as RSAKeyValue, with or without their certificates as the credential sends keys, valid
 * against the official H004 schemas; and their upload initialisation (OZHNN: the order data
 * signed with the current signature key).
 */
import { createPublicKey, randomBytes } from 'node:crypto';

import { generateSubscriberKeys, h004Dialect, H004_NS, keyChangeOrderDataH004, loadSubscriberKeys, parseDocument, prepareUpload, S001_NS, type KeyChangeOrder } from '../../nodes/shared/ebics';
import { testBankKeys, validateEbics } from '../helpers/ebics';

const subscriber = { hostId: 'SBXHOST', partnerId: 'PARTNER1', userId: 'USER1', product: { name: 'n8n-nodes-corporate-banking' } };

function expectValid(xml: string, schema: string): void {
	const result = validateEbics(xml, schema);
	expect(result.output).toMatch(/validates/);
	expect(result.valid).toBe(true);
}

function modulus(key: ReturnType<typeof createPublicKey>): string {
	return Buffer.from(key.export({ format: 'jwk' }).n as string, 'base64url').toString('base64');
}

let keys: ReturnType<typeof loadSubscriberKeys>;
beforeAll(async () => {
	keys = loadSubscriberKeys(await generateSubscriberKeys({ subject: { commonName: 'Next Keys' } }));
});

describe('H004 key change order data against the official H004 schemas', () => {
	test.each(['certificate', 'key'] as const)('PUB, HCA and HCS with keys sent as %s', (form) => {
		const expected: Record<KeyChangeOrder, { ns: string; root: string; schema: string; keys: Array<keyof typeof keys> }> = {
			PUB: { ns: S001_NS, root: 'SignaturePubKeyOrderData', schema: 'H004/ebics_signature.xsd', keys: ['signature'] },
			HCA: { ns: H004_NS, root: 'HCARequestOrderData', schema: 'H004/ebics_orders_H004.xsd', keys: ['authentication', 'encryption'] },
			HCS: { ns: H004_NS, root: 'HCSRequestOrderData', schema: 'H004/ebics_orders_H004.xsd', keys: ['signature', 'authentication', 'encryption'] },
		};
		for (const order of ['PUB', 'HCA', 'HCS'] as const) {
			const data = keyChangeOrderDataH004(order, subscriber, keys, form);
			expectValid(data, expected[order].schema);
			const root = parseDocument(data, order).documentElement;
			expect([root.namespaceURI, root.localName]).toEqual([expected[order].ns, expected[order].root]);
			// Each new key as modulus and exponent; the certificates only when the credential sends them.
			for (const key of ['signature', 'authentication', 'encryption'] as const) expect(data.includes(`<ds:Modulus>${modulus(keys[key].publicKey)}</ds:Modulus>`)).toBe(expected[order].keys.includes(key));
			expect((data.match(/<ds:X509Certificate>/g) ?? []).length).toBe(form === 'certificate' ? expected[order].keys.length : 0);
			expect(data).toContain('<PartnerID>PARTNER1</PartnerID><UserID>USER1</UserID>');
		}
		const hcs = keyChangeOrderDataH004('HCS', subscriber, keys, form);
		expect(hcs).toMatch(new RegExp(`<SignaturePubKeyInfo xmlns="${S001_NS}">.*<SignatureVersion>A006</SignatureVersion></SignaturePubKeyInfo><PartnerID>`));
		expect(keyChangeOrderDataH004('PUB', subscriber, keys, form)).toContain('<SignatureVersion>A006</SignatureVersion>');
	});

	test('the upload initialisation of PUB, HCA and HCS: OZHNN, standard order parameters, signed order data', async () => {
		const bank = await testBankKeys();
		const dialect = h004Dialect();
		const digests = { authentication: randomBytes(32), encryption: randomBytes(32) };
		for (const order of ['PUB', 'HCA', 'HCS'] as const) {
			const prepared = prepareUpload(Buffer.from(keyChangeOrderDataH004(order, subscriber, keys)), {
				signatureKey: keys.signature.privateKey,
				signer: { partnerId: subscriber.partnerId, userId: subscriber.userId },
				bankEncryptionKey: createPublicKey(bank.encryptionCertificatePem as string),
				signatureNamespace: S001_NS,
			});
			const xml = dialect.uploadInitRequest(subscriber, order, { kind: 'standard' }, digests, { ...prepared, numSegments: prepared.segments.length }, keys.authentication.privateKey);
			expectValid(xml, 'H004/ebics_H004.xsd');
			expect(xml).toContain(`<OrderType>${order}</OrderType><OrderAttribute>OZHNN</OrderAttribute><StandardOrderParams/>`);
		}
	});
});
