/**
 * Known answers from public sources: what a real bank's EBICS server produced (the Credit Suisse
 * test system's HPB answer in the node-ebics test suite) read with this project's E002 and key
 * digest code, and the EBICS 2.5 specification's example letter (in ebicsProtocol.test.ts).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { decodeDownload, formatHash, publicKeyDigest, unwrapTransactionKey } from '../../nodes/shared/ebics';

const DIR = path.resolve(__dirname, '../fixtures/ebics/node-ebics');

/** The test subscriber's E002 key, read by ebics-client from its own key file format. */
async function subscriberEncryptionKey(): Promise<string> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Client, fsKeysStorage } = require('ebics-client') as {
		Client: new (options: Record<string, unknown>) => { keys(): Promise<{ e(): { toPem(): string } }> };
		fsKeysStorage: (file: string) => unknown;
	};
	const warn = console.warn;
	console.warn = () => undefined; // ebics-client warns about its legacy key file format
	try {
		const client = new Client({ url: 'https://bank.invalid', partnerId: 'CRS04381', userId: 'CRS04381', hostId: 'CRSISOTB', passphrase: 'test', keyStorage: fsKeysStorage(path.join(DIR, 'TEST_KEYS.key')) });
		return (await client.keys()).e().toPem();
	} finally {
		console.warn = warn;
	}
}

describe("a real bank's HPB answer (Credit Suisse test system, from the node-ebics test suite)", () => {
	const answer = readFileSync(path.join(DIR, 'HPB_response.xml'), 'utf8');

	it("names the subscriber's encryption key by the digest this project computes (H004 form)", async () => {
		const key = createPublicKey(createPrivateKey(await subscriberEncryptionKey()));
		const bankDigest = /EncryptionPubKeyDigest[^>]*>([^<]+)</.exec(answer)?.[1];
		expect(publicKeyDigest(key).toString('base64')).toBe(bankDigest);
		expect(formatHash(publicKeyDigest(key))).toBe(formatHash(Buffer.from(bankDigest ?? '', 'base64')));
	});

	it("opens with this project's E002: the RSA PKCS#1 v1.5 key unwrap on this Node, AES-128-CBC, the bank's padding, zlib", async () => {
		const privateKey = createPrivateKey(await subscriberEncryptionKey());
		const transactionKey = unwrapTransactionKey(Buffer.from(/<TransactionKey>([^<]+)</.exec(answer)?.[1] ?? '', 'base64'), privateKey);
		expect(transactionKey).toHaveLength(16);
		const orderData = decodeDownload([/<OrderData>([^<]+)</.exec(answer)?.[1] ?? ''], transactionKey);
		expect(orderData.toString('utf8')).toBe(readFileSync(path.join(DIR, 'HPB_response_data.xml'), 'utf8'));
	});
});
