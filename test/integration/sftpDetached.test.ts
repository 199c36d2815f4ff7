/**
 * Detached OpenPGP signatures (`<file>.sig`, `<file>.asc`) with GnuPG as the independent side both
 * ways: gpg --verify accepts the signatures the library and the Bank SFTP node make (binary and
 * armoured), and the library and the node accept gpg's --detach-sign output and refuse a tampered
 * file, a signature by a key that is not the bank's (naming it) and a missing signature. Through
 * n8n's engine against a real OpenSSH server: Upload puts the signature beside the file through a
 * temporary name, renamed before the file is; Download finds it beside the file; the local Encrypt
 * and Sign and Decrypt and Verify make and check one in a binary field.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	PgpError,
	readPrivateKey,
	readPublicKeys,
	signDetached,
	verifyDetached,
} from '../../nodes/shared/sftp';
import { storedBytes } from '../helpers/fileTrigger';
import { Gpg } from '../helpers/gpg';
import {
	fileItem,
	journalOf,
	runSftp,
	sftpStore,
	sftpValues,
	type SftpKeys,
} from '../helpers/sftp';
import { startSshd, type Sshd } from '../helpers/sshd';

let sshd: Sshd;
let keys: SftpKeys;

beforeAll(async () => {
	sshd = await startSshd();
	const gpg = new Gpg();
	keys = {
		gpg,
		bankFp: gpg.generate('Bank <h2h@bank.example>', { algorithm: 'ed25519' }),
		customerFp: gpg.generate('Customer <treasury@customer.example>', { algorithm: 'ed25519' }),
	};
});
afterAll(async () => {
	await sshd?.stop();
	keys?.gpg.remove();
});

const spaced = (fp: string) => fp.replace(/(.{4})/g, '$1 ').trim();
const content = Buffer.from(
	'<?xml version="1.0"?><Document><CstmrCdtTrfInitn><GrpHdr><MsgId>DETACHED-1</MsgId></GrpHdr></CstmrCdtTrfInitn></Document>\n',
);

/** gpg --verify of a detached signature over a file: its exit code and status lines. */
function gpgVerify(signature: Buffer, data: Buffer): { code: number | null; status: string } {
	const dir = keys.gpg.home;
	const sigFile = path.join(dir, `v-${Date.now()}-${Math.random()}.sig`);
	const dataFile = `${sigFile}.data`;
	writeFileSync(sigFile, signature);
	writeFileSync(dataFile, data);
	const res = keys.gpg.run(['--status-fd', '1', '--verify', sigFile, dataFile]);
	return { code: res.status, status: res.stdout.toString('utf8') };
}

async function drain(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

describe('library', () => {
	it('a detached signature made as the bytes pass is one gpg --verify accepts (binary and armoured); the bytes pass unchanged', async () => {
		const customer = await readPrivateKey('key', keys.gpg.exportSecret(keys.customerFp), undefined);
		for (const form of ['binary', 'armoured'] as const) {
			const signature = await signDetached(
				Readable.from([content.subarray(0, 10), content.subarray(10)]),
				customer,
				{ form },
			);
			if (form === 'armoured')
				expect(signature.toString('utf8')).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
			else expect(signature[0] & 0x80).toBe(0x80);
			const checked = gpgVerify(signature, content);
			expect([form, checked.code]).toEqual([form, 0]);
			expect(checked.status).toContain(`VALIDSIG ${keys.customerFp}`);
			// Not a signature of another file.
			expect(gpgVerify(signature, Buffer.concat([content, Buffer.from(' ')])).code).not.toBe(0);
		}
	});

	it("gpg's --detach-sign is verified, naming the bank key; a tampered file ends its stream with the signature error; another signer is refused before reading, named", async () => {
		const bank = await readPublicKeys('Bank', keys.gpg.exportPublic(keys.bankFp));
		for (const armour of [false, true]) {
			const signature = keys.gpg.ok(
				[
					'--detach-sign',
					'--local-user',
					keys.bankFp,
					'--passphrase',
					'',
					...(armour ? ['--armor'] : []),
				],
				content,
			);
			const ok = await verifyDetached(Readable.from([content]), signature, {
				verifyWith: bank,
				signatureName: 'f.xml.sig',
				fileName: 'f.xml',
			});
			expect(await drain(ok.stream)).toEqual(content);
			expect(await ok.result).toEqual({
				signedBy: keys.bankFp,
				signatureKeyId: expect.stringMatching(/^[0-9A-F]{16}$/),
			});

			const tampered = Buffer.from(content);
			tampered[40] ^= 1;
			const bad = await verifyDetached(Readable.from([tampered]), signature, {
				verifyWith: bank,
				signatureName: 'f.xml.sig',
				fileName: 'f.xml',
			});
			await expect(drain(bad.stream)).rejects.toThrow(
				`The detached signature f.xml.sig (key ${spaced(keys.bankFp)}) does not match f.xml: the file was changed after it was signed`,
			);
			await expect(bad.result).rejects.toBeInstanceOf(PgpError);
		}
		const byCustomer = keys.gpg.ok(
			['--detach-sign', '--local-user', keys.customerFp, '--passphrase', ''],
			content,
		);
		const customerKeyId = keys.customerFp.slice(-16);
		await expect(
			verifyDetached(Readable.from([content]), byCustomer, {
				verifyWith: bank,
				signatureName: 'f.xml.sig',
				fileName: 'f.xml',
			}),
		).rejects.toThrow(
			`f.xml.sig is a signature by key ID ${customerKeyId}, which is not one of the bank's keys (${spaced(keys.bankFp)}): the file is refused`,
		);
		await expect(
			verifyDetached(Readable.from([content]), Buffer.from('not a signature'), {
				verifyWith: bank,
				signatureName: 'f.xml.sig',
				fileName: 'f.xml',
			}),
		).rejects.toThrow('f.xml.sig is not an OpenPGP signature (neither armoured nor binary)');
	});
});

describe('Bank SFTP node', () => {
	const items = (result: Awaited<ReturnType<typeof runSftp>>): INodeExecutionData[] =>
		result.output('Bank');

	it('Upload with a detached signature: the file and its .sig beside it, no temporary name left; gpg at the bank decrypts the file and verifies the .sig over it; the same bytes are not sent twice', async () => {
		const store = sftpStore(sftpValues(sshd, keys));
		const result = await runSftp(
			store,
			{
				resource: 'file',
				operation: 'upload',
				binaryPropertyName: 'data',
				fileName: 'pain001-detached.xml.pgp',
				options: { detachedSignature: 'binary' },
			},
			fileItem(content, 'pain001.xml'),
		);
		expect(result.nodeError('Bank')).toBeUndefined();
		const out = items(result)[0].json;
		expect(out).toMatchObject({
			name: 'pain001-detached.xml.pgp',
			signed: true,
			encrypted: true,
			detachedSignature: {
				name: 'pain001-detached.xml.pgp.sig',
				path: 'outgoing/pain001-detached.xml.pgp.sig',
				form: 'binary',
				signedBy: spaced(keys.customerFp),
			},
		});
		expect(readdirSync(sshd.bankPath('outgoing')).sort()).toEqual([
			'pain001-detached.xml.pgp',
			'pain001-detached.xml.pgp.sig',
		]);
		const atBank = readFileSync(sshd.bankPath('outgoing', 'pain001-detached.xml.pgp'));
		const sig = readFileSync(sshd.bankPath('outgoing', 'pain001-detached.xml.pgp.sig'));
		const verified = gpgVerify(sig, atBank);
		expect(verified.code).toBe(0);
		expect(verified.status).toContain(`VALIDSIG ${keys.customerFp}`);
		expect(keys.gpg.decrypt(atBank).content).toEqual(content);
		expect(journalOf(store)).toEqual([
			expect.objectContaining({ name: 'pain001-detached.xml.pgp', state: 'sent' }),
		]);
		const again = await runSftp(
			store,
			{
				resource: 'file',
				operation: 'upload',
				binaryPropertyName: 'data',
				fileName: 'other.xml.pgp',
				options: { detachedSignature: 'binary' },
			},
			fileItem(content, 'pain001.xml'),
		);
		expect(again.nodeError('Bank')?.message).toMatch(/it is not sent twice$/);
		expect(readdirSync(sshd.bankPath('outgoing')).sort()).toEqual([
			'pain001-detached.xml.pgp',
			'pain001-detached.xml.pgp.sig',
		]);
	});

	it('Download verifies the .sig (or .asc) the bank put beside the file, naming the bank key; a missing or wrong signature refuses the file, nothing handed out', async () => {
		const store = sftpStore(sftpValues(sshd, keys));
		/** Download of an incoming file with its detached signature checked as `options` say. */
		const download = async (path: string, options: IDataObject, decrypt = false) =>
			await runSftp(store, { resource: 'file', operation: 'download', path, ...(decrypt ? {} : { decrypt: false }), options });
		const plain = Buffer.from(
			'{1:F01BANKFIHHAXXX}camt.053 as the bank sends it in clear with a detached signature\n',
		);
		writeFileSync(sshd.bankPath('incoming', 'stmt-1.txt'), plain);
		writeFileSync(
			sshd.bankPath('incoming', 'stmt-1.txt.asc'),
			keys.gpg.ok(
				['--detach-sign', '--armor', '--local-user', keys.bankFp, '--passphrase', ''],
				plain,
			),
		);
		const ok = await download('stmt-1.txt', { detachedSignature: 'beside' });
		expect(ok.nodeError('Bank')).toBeUndefined();
		const item = items(ok)[0];
		expect(item.json).toMatchObject({
			name: 'stmt-1.txt',
			detachedSignature: { name: 'stmt-1.txt.asc', signedBy: spaced(keys.bankFp) },
		});
		expect(await storedBytes(item)).toEqual(plain);

		// Encrypted by gpg to the customer, not signed inside, its signature beside it as .sig.
		const sealed = keys.gpg.encrypt(plain, keys.customerFp);
		writeFileSync(sshd.bankPath('incoming', 'stmt-2.txt.pgp'), sealed);
		writeFileSync(
			sshd.bankPath('incoming', 'stmt-2.txt.pgp.sig'),
			keys.gpg.ok(['--detach-sign', '--local-user', keys.bankFp, '--passphrase', ''], sealed),
		);
		const both = await download('stmt-2.txt.pgp', { detachedSignature: 'beside' }, true);
		expect(both.nodeError('Bank')).toBeUndefined();
		expect(items(both)[0].json).toMatchObject({
			decrypted: true,
			signed: false,
			detachedSignature: { name: 'stmt-2.txt.pgp.sig', signedBy: spaced(keys.bankFp) },
		});
		expect(await storedBytes(items(both)[0])).toEqual(plain);

		// Missing.
		writeFileSync(sshd.bankPath('incoming', 'stmt-3.txt'), plain);
		const missing = await download('stmt-3.txt', { detachedSignature: 'beside' });
		expect(missing.nodeError('Bank')?.message).toBe(
			'No detached signature beside incoming/stmt-3.txt: neither stmt-3.txt.sig nor stmt-3.txt.asc is at the bank. The file is refused',
		);
		// Tampered after signing (the signature given by name).
		writeFileSync(
			sshd.bankPath('incoming', 'stmt-4.txt'),
			Buffer.concat([plain, Buffer.from('+1000000.00')]),
		);
		writeFileSync(
			sshd.bankPath('incoming', 'signatures-4.asc'),
			readFileSync(sshd.bankPath('incoming', 'stmt-1.txt.asc')),
		);
		const tampered = await download('stmt-4.txt', { detachedSignature: 'named', signatureFile: 'signatures-4.asc' });
		expect(tampered.nodeError('Bank')?.message).toBe(
			`The detached signature signatures-4.asc (key ${spaced(keys.bankFp)}) does not match incoming/stmt-4.txt: the file was changed after it was signed, or the signature is of another file. Nothing of it is used`,
		);
		expect(items(tampered)).toEqual([]);
		// Signed by a key that is not the bank's.
		writeFileSync(sshd.bankPath('incoming', 'stmt-5.txt'), plain);
		writeFileSync(
			sshd.bankPath('incoming', 'stmt-5.txt.sig'),
			keys.gpg.ok(['--detach-sign', '--local-user', keys.customerFp, '--passphrase', ''], plain),
		);
		const other = await download('stmt-5.txt', { detachedSignature: 'beside' });
		expect(other.nodeError('Bank')?.message).toBe(
			`stmt-5.txt.sig is a signature by key ID ${keys.customerFp.slice(-16)}, which is not one of the bank's keys (${spaced(keys.bankFp)}): the file is refused`,
		);
	});

	it('Encrypt and Sign makes a detached signature gpg verifies over its output; Decrypt and Verify checks one in a binary field (gpg made it) and refuses it for a changed file', async () => {
		const store = sftpStore(sftpValues(sshd, keys));
		const made = await runSftp(
			store,
			{
				resource: 'openpgp',
				operation: 'encryptSign',
				binaryPropertyName: 'data',
				sign: false,
				encrypt: true,
				options: { detachedSignature: 'armoured' },
			},
			fileItem(content, 'pain001.xml'),
		);
		expect(made.nodeError('Bank')).toBeUndefined();
		const out = items(made)[0];
		expect(out.json).toMatchObject({
			encrypted: true,
			signed: false,
			detachedSignature: {
				name: 'pain001.xml.pgp.asc',
				field: 'signature',
				form: 'armoured',
				signedBy: spaced(keys.customerFp),
			},
		});
		expect(out.binary!.signature.fileName).toBe('pain001.xml.pgp.asc');
		const sealed = await storedBytes(out);
		const sig = await storedBytes(out, 'signature');
		expect(sig.toString('utf8')).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
		expect(gpgVerify(sig, sealed).status).toContain(`VALIDSIG ${keys.customerFp}`);

		const plain = Buffer.from('camt.053 from the bank, signed beside\n');
		const bankSig = keys.gpg.ok(
			['--detach-sign', '--local-user', keys.bankFp, '--passphrase', ''],
			plain,
		);
		const withSig = (data: Buffer): INodeExecutionData[] => [
			{
				json: {},
				binary: {
					data: { data: data.toString('base64'), mimeType: 'text/plain', fileName: 'stmt.txt' },
					signature: {
						data: bankSig.toString('base64'),
						mimeType: 'application/pgp-signature',
						fileName: 'stmt.txt.sig',
					},
				},
			},
		];
		const checked = await runSftp(
			store,
			{
				resource: 'openpgp',
				operation: 'decryptVerify',
				binaryPropertyName: 'data',
				options: { detachedSignatureField: 'signature', decrypt: false },
			},
			withSig(plain),
		);
		expect(checked.nodeError('Bank')).toBeUndefined();
		expect(items(checked)[0].json).toMatchObject({
			detachedSignature: { name: 'stmt.txt.sig', signedBy: spaced(keys.bankFp) },
		});
		expect(await storedBytes(items(checked)[0])).toEqual(plain);
		const changed = await runSftp(
			store,
			{
				resource: 'openpgp',
				operation: 'decryptVerify',
				binaryPropertyName: 'data',
				options: { detachedSignatureField: 'signature', decrypt: false },
			},
			withSig(Buffer.from('camt.053 from the bank, signed beside!\n')),
		);
		expect(changed.nodeError('Bank')?.message).toMatch(
			/^The detached signature stmt\.txt\.sig \(key .+\) does not match stmt\.txt: the file was changed after it was signed/,
		);
	});
});
