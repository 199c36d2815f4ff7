/**
 * The sandbox EBICS bank speaks EBICS, not only this project's dialect: clients written by others
 * run against it.
 *
 * - ebics-client 5.x (npm, node-ebics): INI, HIA, HPB, an upload (CCT, the EBICS 2.5 order type of
 *   BTU SCT) and downloads (STA and C53, those of BTD EOP mt940 / camt.053) in EBICS 2.5 (H004),
 *   the only version it speaks, run in a child process as a user would run it.
 * - For EBICS 3.0 (H005), where no independent client can be installed here (the TypeScript fork
 *   with H005 is not on the npm registry), the X002 signatures are checked across with xmlsec1:
 *   the sandbox's answers verify with xmlsec1, and an answer signed by xmlsec1 verifies in the
 *   library (test/unit/ebicsProtocol.test.ts); every H005 request validates against the official
 *   schemas.
 */
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';

import { buildPaymentFile } from '../../nodes/shared/bankfiles/pain001';
import { startSandbox, type SandboxBank } from '../sandbox';
import { ebicsAdmin, sandboxClient, sandboxSend } from '../helpers/ebicsSandbox';
import { xmlsecVerifyX002 } from '../helpers/ebics';

let bank: SandboxBank;
let dir: string;

beforeAll(async () => {
	bank = await startSandbox({ seed: 11 });
	dir = mkdtempSync(path.join(tmpdir(), 'ebics-h004-client-'));
	writeFileSync(path.join(dir, 'ca.pem'), bank.tls.caPem);
	await ebicsAdmin(bank, '/subscribers', { partnerId: 'NODEEBICS', userId: 'CLIENT1', name: 'ebics-client' });
});
afterAll(async () => {
	await bank.stop();
	rmSync(dir, { recursive: true, force: true });
});

/** Runs one step of ebics-client in its own Node process; resolves with its JSON line. */
function run(step: string, file?: string): Promise<Record<string, unknown>> {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			[path.resolve(__dirname, '../helpers/ebicsClientH004.js'), step, dir, bank.urls.ebics, bank.ebics.hostId, 'NODEEBICS', 'CLIENT1', ...(file ? [file] : [])],
			{ env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.pem'), NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		let out = '';
		let err = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
		child.on('error', reject);
		child.on('close', () => {
			const line = out.trim().split('\n').pop() ?? '';
			try {
				resolve(JSON.parse(line) as Record<string, unknown>);
			} catch {
				reject(new Error(`ebics-client printed no result: ${out}${err}`));
			}
		});
	});
}

const OK = { technicalCode: '000000', businessCode: '000000' };

describe('ebics-client 5.x (EBICS 2.5) against the sandbox bank', () => {
	it('INI and HIA: the bank registers its bare RSA keys and waits for the letters', async () => {
		expect(await run('keys')).toMatchObject({ ini: OK, hia: OK });
		expect(bank.ebics.subscriber('NODEEBICS', 'CLIENT1')).toMatchObject({ state: 'initialised', protocol: 'H004' });
		expect(await run('hpb')).toMatchObject({ hpb: { technicalCode: '091002', technicalCodeSymbol: expect.stringContaining('EBICS_INVALID_USER_OR_USER_STATE') } });
	});

	it('HPB after activation: the client gets and keeps the bank keys', async () => {
		await ebicsAdmin(bank, '/subscribers/NODEEBICS/CLIENT1/activate', {});
		expect(await run('hpb')).toEqual({ hpb: expect.objectContaining(OK), bankKeys: ['bankE002', 'bankX002'] });
	});

	it('an upload (CCT): the bank verifies the signatures and stores the pain.001', async () => {
		const xml = buildPaymentFile(
			[{ debtorName: 'Node Client GmbH', debtorIban: 'DE89370400440532013000', creditorName: 'Supplier', creditorIban: 'FR1420041010050500013M02606', amount: '12.50', requestedExecutionDate: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10), remittanceText: 'Invoice 7' }],
			{ version: 'pain.001.001.03', messageId: 'NODE-EBICS-1', initiatingPartyName: 'Node Client GmbH' },
		).xml;
		const file = path.join(dir, 'pain.001.xml');
		writeFileSync(file, xml);
		const result = await run('upload', file);
		expect(result).toEqual({ transactionId: expect.stringMatching(/^[0-9A-F]{32}$/), orderId: expect.stringMatching(/^[A-Z][A-Z0-9]{3}$/) });
		const stored = bank.ebics.subscriber('NODEEBICS', 'CLIENT1')!.uploads.find((u) => u.orderId === result.orderId)!;
		expect(stored).toMatchObject({ orderType: 'CCT', service: { serviceName: 'SCT', msgName: 'pain.001' } });
		// ebics-client removes line breaks before it signs and sends: the same bytes otherwise.
		expect(stored.data.toString()).toBe(xml.replace(/\r|\n/g, ''));
		const records = bank.ebics.records.filter((r) => r.protocol === 'H004' && r.partnerId === 'NODEEBICS');
		expect(records.every((r) => r.technical === '000000' || r.technical === '091002')).toBe(true);
	});

	it('downloads (STA, C53) with their receipts: MT940 and a ZIP of camt.053', async () => {
		const sta = await run('download-sta');
		expect(sta).toMatchObject(OK);
		expect(Buffer.from(String(sta.orderData), 'base64').toString('latin1')).toMatch(/^:20:STMT/);
		const c53 = await run('download-c53');
		expect(c53).toMatchObject(OK);
		const files = unzipSync(new Uint8Array(Buffer.from(String(c53.orderData), 'base64')));
		expect(Object.keys(files)).toHaveLength(5);
		// The client sent positive receipts: the same downloads now have no data.
		expect(await run('download-c53')).toMatchObject({ businessCode: '090005' });
		const receipts = bank.ebics.records.filter((r) => r.protocol === 'H004' && r.phase === 'Receipt');
		expect(receipts.map((r) => r.technical)).toEqual(['011000', '011000']);
	});
});

describe('EBICS 3.0: the sandbox answers verify with xmlsec1', () => {
	it('every signed answer of a download transaction carries an X002 signature xmlsec1 accepts', async () => {
		const log: Array<{ step: string; request: string; answer: string }> = [];
		const client = sandboxClient(bank, 'PARTNER2', 'READY1', bank.ebicsClient('PARTNER2', 'READY1').subscriberKeys!, { send: sandboxSend(bank, log) });
		const hashes = bank.ebics.letterHashes();
		const bankKeys = (await client.hpb(hashes)).keys;
		const ready = sandboxClient(bank, 'PARTNER2', 'READY1', bank.ebicsClient('PARTNER2', 'READY1').subscriberKeys!, { bank: bankKeys, send: sandboxSend(bank, log) });
		const download = await ready.btd({ serviceName: 'EOP', msgName: 'camt.053', container: 'ZIP' });
		await download!.acknowledge();
		const signed = log.filter((l) => l.answer.includes('<ebicsResponse'));
		expect(signed.map((l) => l.step)).toEqual([expect.stringContaining('initialisation'), expect.stringContaining('receipt')]);
		const bankKey = publicKeyPem(bankKeys.authenticationCertificatePem as string);
		const subscriberKey = publicKeyPem(bank.ebicsClient('PARTNER2', 'READY1').subscriberKeys!.authentication.certificatePem);
		for (const { answer, request } of signed) {
			expect(xmlsecVerifyX002(answer, bankKey)).toEqual({ ok: true, output: expect.stringContaining('OK') });
			expect(xmlsecVerifyX002(request, subscriberKey).ok).toBe(true);
			// And the other way round: the bank's answer does not verify with another key.
			expect(xmlsecVerifyX002(answer, subscriberKey).ok).toBe(false);
		}
	});
});

function publicKeyPem(certificatePem: string): string {
	return new X509Certificate(certificatePem).publicKey.export({ type: 'spki', format: 'pem' }).toString();
}
