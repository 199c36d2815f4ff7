/**
 * The SFTP and OpenPGP library (nodes/shared/sftp) against servers and tools we did not write: a
 * real OpenSSH server (sshd, chrooted SFTP user) and GnuPG. Files the library signs and encrypts
 * decrypt and verify with gpg; files gpg signs and encrypts open in the library; every refusal
 * names its cause.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { Readable } from 'node:stream';

import {
	open,
	PgpError,
	protect,
	readPrivateKey,
	readPublicKeys,
	SftpAuthError,
	SftpFileError,
	SftpHostKeyError,
	SftpSession,
	uploadStream,
	type SftpConnectOptions,
} from '../../nodes/shared/sftp';
import { Gpg } from '../helpers/gpg';
import { allocationWatch, fileChunks } from '../helpers/memory';
import { startSshd, type Sshd } from '../helpers/sshd';

let sshd: Sshd;
let gpg: Gpg;
/** The bank's key (gpg) and the customer's key (gpg too, so that both sides are gpg-made). */
let bankFp: string;
let customerFp: string;
let otherFp: string;

beforeAll(async () => {
	sshd = await startSshd();
	gpg = new Gpg();
	bankFp = gpg.generate('Bank <h2h@bank.example>');
	customerFp = gpg.generate('Customer <treasury@customer.example>', { algorithm: 'ed25519' });
	otherFp = gpg.generate('Somebody Else <other@example.org>');
});

afterAll(async () => {
	await sshd?.stop();
	gpg?.remove();
});

const connect = (over: Partial<SftpConnectOptions> = {}): SftpConnectOptions => ({
	host: sshd.host,
	port: sshd.port,
	username: sshd.username,
	privateKey: sshd.clientKey,
	pinnedFingerprints: [sshd.fingerprint],
	...over,
});

async function readAll(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

const bankPublic = async () => await readPublicKeys('Bank Public Keys', gpg.exportPublic(bankFp));
const customerPrivate = async () => await readPrivateKey('Private Key', gpg.exportSecret(customerFp), undefined);
const customerPublic = async () => await readPublicKeys('Customer Key', gpg.exportPublic(customerFp));

describe('SSH and SFTP against OpenSSH', () => {
	it('logs in with a pinned host key and an SSH key, lists, uploads under a temporary name, reads, moves and deletes', async () => {
		expect(sshd.chrooted).toBe(process.getuid?.() === 0);
		const session = await SftpSession.open(connect());
		try {
			expect(session.hostKey).toEqual({ fingerprint: sshd.fingerprint, type: 'ssh-ed25519' });
			const listed = (await session.list('.')).map((e) => e.name).sort();
			// Chrooted: the user sees its folders and nothing of the machine.
			expect(listed).toEqual(['archive', 'incoming', 'outgoing']);

			const content = Buffer.from('<Document>pain.001</Document>\n');
			const seenBeforeRename: string[] = [];
			const result = await uploadStream(session, Readable.from([content]), { folder: 'outgoing', name: 'pay-1.xml' }, async (temporaryPath, bytes) => {
				// The bytes are at the bank under the temporary name only.
				seenBeforeRename.push(...readdirSync(sshd.bankPath('outgoing')));
				expect(bytes).toBe(content.length);
				expect(temporaryPath).toBe('outgoing/.pay-1.xml.part');
			});
			expect(seenBeforeRename).toEqual(['.pay-1.xml.part']);
			expect(result).toMatchObject({ path: 'outgoing/pay-1.xml', bytes: content.length, removedLeftover: false });
			expect(readdirSync(sshd.bankPath('outgoing'))).toEqual(['pay-1.xml']);
			expect(readFileSync(sshd.bankPath('outgoing', 'pay-1.xml'))).toEqual(content);

			// A second file of the same name is refused: the bank has not taken the first.
			await expect(uploadStream(session, Readable.from([Buffer.from('other')]), { folder: 'outgoing', name: 'pay-1.xml' })).rejects.toThrow(
				/already at the bank.*nothing was written/,
			);
			expect(readFileSync(sshd.bankPath('outgoing', 'pay-1.xml'))).toEqual(content);

			const entries = await session.list('outgoing');
			expect(entries).toEqual([expect.objectContaining({ name: 'pay-1.xml', path: 'outgoing/pay-1.xml', size: content.length, isFile: true })]);
			expect(await readAll(session.read('outgoing/pay-1.xml'))).toEqual(content);
			await session.rename('outgoing/pay-1.xml', 'archive/pay-1.xml');
			expect(existsSync(sshd.bankPath('archive', 'pay-1.xml'))).toBe(true);
			await session.remove('archive/pay-1.xml');
			expect(existsSync(sshd.bankPath('archive', 'pay-1.xml'))).toBe(false);
			expect(await session.stat('archive/pay-1.xml')).toBeUndefined();
			await expect(session.remove('archive/pay-1.xml')).rejects.toThrow(/Deleting archive\/pay-1.xml failed: no such file/);
			// Outside the chroot there is nothing to reach.
			if (sshd.chrooted) await expect(session.list('/etc')).rejects.toThrow(SftpFileError);
		} finally {
			session.close();
		}
	});

	it('chunks of any size (a byte, less than a write, more than several) arrive whole and in order, and read back the same', async () => {
		// Writes are whole (128 KiB less a header) but the last: what a chunk leaves over is kept for the next.
		const sizes = [1, 3, 131_007, 70_000, 262_145, 1, 600_000, 131_008, 17];
		let seed = 7;
		const chunks = sizes.map((n) => Buffer.from(Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) & 0xff))));
		const content = Buffer.concat(chunks);
		const session = await SftpSession.open(connect());
		try {
			const result = await uploadStream(session, Readable.from(chunks), { folder: 'outgoing', name: 'odd-chunks.bin' });
			expect(result.bytes).toBe(content.length);
			expect(readFileSync(sshd.bankPath('outgoing', 'odd-chunks.bin')).equals(content)).toBe(true);
			expect((await readAll(session.read('outgoing/odd-chunks.bin'))).equals(content)).toBe(true);
			await session.remove('outgoing/odd-chunks.bin');
		} finally {
			session.close();
		}
	});

	it('a temporary file left by an upload that stopped is removed and the file written again from the start', async () => {
		sshd.put('outgoing', '.pay-2.xml.part', 'half a fi');
		const session = await SftpSession.open(connect());
		try {
			const result = await uploadStream(session, Readable.from([Buffer.from('the whole file')]), { folder: 'outgoing', name: 'pay-2.xml' });
			expect(result.removedLeftover).toBe(true);
			expect(readFileSync(sshd.bankPath('outgoing', 'pay-2.xml'), 'utf8')).toBe('the whole file');
			expect(readdirSync(sshd.bankPath('outgoing'))).not.toContain('.pay-2.xml.part');
			await session.remove('outgoing/pay-2.xml');
		} finally {
			session.close();
		}
	});

	it('a source that fails in the middle leaves nothing under the file\'s name', async () => {
		const session = await SftpSession.open(connect());
		try {
			async function* failing() {
				yield Buffer.alloc(100_000, 1);
				throw new Error('the input broke');
			}
			await expect(uploadStream(session, Readable.from(failing()), { folder: 'outgoing', name: 'pay-3.xml' })).rejects.toThrow('the input broke');
			expect(readdirSync(sshd.bankPath('outgoing')).filter((n) => n.includes('pay-3'))).toEqual([]);
		} finally {
			session.close();
		}
	});

	it('no pinned host key: refused before the login, naming the fingerprint the server shows (as OpenSSH prints it)', async () => {
		const error = await SftpSession.open(connect({ pinnedFingerprints: undefined })).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SftpHostKeyError);
		expect((error as SftpHostKeyError).seen).toBe(sshd.fingerprint);
		expect((error as Error).message).toContain(`No host key is pinned. The server shows ssh-ed25519 ${sshd.fingerprint}`);
	});

	it('a wrong host key: refused before the login, naming both fingerprints', async () => {
		const pinned = 'SHA256:' + createHash('sha256').update('another server').digest('base64').replace(/=+$/, '');
		const error = await SftpSession.open(connect({ pinnedFingerprints: [pinned] })).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(SftpHostKeyError);
		expect((error as Error).message).toBe(
			`The server's host key (ssh-ed25519 ${sshd.fingerprint}) is not the pinned one (${pinned}): the connection was refused before logging in`,
		);
	});

	it('an SSH key with a passphrase logs in; a wrong passphrase and an unknown key are told apart', async () => {
		const session = await SftpSession.open(connect({ privateKey: sshd.protectedClientKey, passphrase: sshd.clientKeyPassphrase }));
		session.close();
		await expect(SftpSession.open(connect({ privateKey: sshd.protectedClientKey, passphrase: 'wrong' }))).rejects.toThrow(
			new SftpAuthError('The SSH private key could not be decrypted: check its passphrase'),
		);
		const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
		const refused = await SftpSession.open(connect({ privateKey: stranger })).catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(SftpAuthError);
		expect((refused as Error).message).toBe(
			`The server ${sshd.host}:${sshd.port} refused the login of user ${sshd.username} (SSH key): check the user and the key or password the bank registered`,
		);
		expect((refused as Error).message).not.toContain('PRIVATE');
	});
});

describe('OpenPGP both ways with GnuPG', () => {
	it('a file the library signs and encrypts decrypts and verifies with gpg (binary and armoured)', async () => {
		const content = Buffer.from('<Document><CstmrCdtTrfInitn>…</CstmrCdtTrfInitn></Document>\n', 'utf8');
		for (const armour of [false, true]) {
			const out = await readAll(await protect(Readable.from([content]), { encryptTo: await bankPublic(), signWith: await customerPrivate(), armour }));
			if (armour) expect(out.toString('utf8')).toMatch(/^-----BEGIN PGP MESSAGE-----/);
			const opened = gpg.decrypt(out);
			expect(opened.code).toBe(0);
			expect(opened.content).toEqual(content);
			// gpg's status lines: a good signature by the customer's key, AES-256 (cipher 9).
			expect(opened.status).toContain(`[GNUPG:] VALIDSIG ${customerFp}`);
			expect(opened.status).toMatch(/\[GNUPG:\] DECRYPTION_INFO \d+ 9/);
			expect(opened.status).toContain('[GNUPG:] DECRYPTION_OKAY');
		}
	});

	it('a file gpg signs and encrypts opens in the library, naming the bank key that signed (binary and armoured)', async () => {
		const content = Buffer.from('01,BANK,CUST,261202,0600,1,,,2/\n99,0,1,2/\n');
		for (const armour of [false, true]) {
			const encrypted = gpg.encrypt(content, customerFp, bankFp, armour);
			const { stream, result } = await open(Readable.from([encrypted]), { decryptWith: await customerPrivate(), verifyWith: await bankPublic() });
			expect(await readAll(stream)).toEqual(content);
			expect(await result).toMatchObject({ encrypted: true, signed: true, signedBy: [bankFp] });
		}
	});

	it('a file gpg only signs opens and verifies; signing alone in the library verifies in gpg', async () => {
		const content = Buffer.from('ACK;PAY-1;ACCEPTED\n');
		const { stream, result } = await open(Readable.from([gpg.sign(content, bankFp)]), { verifyWith: await bankPublic() });
		expect(await readAll(stream)).toEqual(content);
		expect(await result).toMatchObject({ encrypted: false, signed: true, signedBy: [bankFp] });

		const signed = await readAll(await protect(Readable.from([content]), { signWith: await customerPrivate() }));
		const checked = gpg.decrypt(signed);
		expect(checked.content).toEqual(content);
		expect(checked.status).toContain(`[GNUPG:] VALIDSIG ${customerFp}`);
	});

	it('an unsigned file is refused before anything is read, unless allowed', async () => {
		const unsigned = gpg.encrypt(Buffer.from('statement'), customerFp);
		await expect(open(Readable.from([unsigned]), { decryptWith: await customerPrivate(), verifyWith: await bankPublic() })).rejects.toThrow(
			expect.objectContaining({ problem: 'unsigned', message: expect.stringMatching(/^The file is not signed: it is refused/) }),
		);
		const { stream, result } = await open(Readable.from([unsigned]), { decryptWith: await customerPrivate(), verifyWith: await bankPublic(), allowUnsigned: true });
		expect((await readAll(stream)).toString()).toBe('statement');
		expect(await result).toMatchObject({ signed: false, signedBy: [] });
	});

	it('a file signed by a key that is not the bank\'s is refused, naming the key that signed', async () => {
		const encrypted = gpg.encrypt(Buffer.from('statement'), customerFp, otherFp);
		const otherKeyId = otherFp.slice(-16);
		const error = (await open(Readable.from([encrypted]), { decryptWith: await customerPrivate(), verifyWith: await bankPublic() }).catch((e: unknown) => e)) as PgpError;
		expect(error.problem).toBe('signer');
		expect(error.message).toContain(`signed by key ID ${otherKeyId}, which is not one of the bank's keys`);
	});

	it('a file encrypted for another key is refused, naming both keys', async () => {
		const encrypted = gpg.encrypt(Buffer.from('statement'), otherFp, bankFp);
		const error = (await open(Readable.from([encrypted]), { decryptWith: await customerPrivate(), verifyWith: await bankPublic() }).catch((e: unknown) => e)) as PgpError;
		expect(error.problem).toBe('recipient');
		expect(error.message).toMatch(/^The file is encrypted for key ID [0-9A-F]{16}, not for your key /);
	});

	it('tampered ciphertext: the stream ends with the integrity error, the result says the same', async () => {
		// Content that does not compress, so that the byte changed is one of the file's.
		const content = Buffer.concat([...fileChunks(200_000)]);
		const encrypted = gpg.encrypt(content, customerFp, bankFp);
		expect(encrypted.length).toBeGreaterThan(200_000);
		const tampered = Buffer.from(encrypted);
		tampered[100_000] ^= 0x01;
		const opened = await open(Readable.from([tampered]), { decryptWith: await customerPrivate(), verifyWith: await bankPublic() }).catch((e: unknown) => e);
		const error = opened instanceof Error ? opened : await readAll((opened as { stream: Readable }).stream).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(PgpError);
		expect(['integrity', 'signature']).toContain((error as PgpError).problem);
		expect((error as Error).message).toMatch(/changed after it was (encrypted|signed)/);
	});

	it('a file cut short (still being written) ends with the error saying it is incomplete', async () => {
		const encrypted = gpg.encrypt(Buffer.alloc(300_000, 'y'), customerFp, bankFp);
		const cut = encrypted.subarray(0, Math.floor(encrypted.length / 2));
		const opened = await open(Readable.from([cut]), { decryptWith: await customerPrivate(), verifyWith: await bankPublic() }).catch((e: unknown) => e);
		const error = opened instanceof Error ? opened : await readAll((opened as { stream: Readable }).stream).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(PgpError);
		expect((error as PgpError).problem).toBe('truncated');
		expect((error as Error).message).toContain('it is incomplete (still being written by the bank, or cut off)');
	});

	it('an expired bank key and a revoked bank key are refused, naming the key', async () => {
		const old = new Gpg();
		try {
			old.ok(['--faked-system-time', '20200101T000000', '--passphrase', '', '--quick-generate-key', 'Old Bank <old@bank.example>', 'rsa2048', 'sign,encr', '1y']);
			const expiredFp = old.fingerprintOf('Old Bank');
			const expired = await readPublicKeys('Bank Public Keys', old.exportPublic(expiredFp));
			await expect(protect(Readable.from([Buffer.from('x')]), { encryptTo: expired })).rejects.toThrow(
				expect.objectContaining({ problem: 'expired', message: expect.stringContaining(`The bank's key ${expiredFp.replace(/(.{4})/g, '$1 ').trim()} expired on 2020-12-31`) }),
			);

			const revokedFp = old.generate('Revoked Bank <revoked@bank.example>', { algorithm: 'ed25519' });
			// Signed while the key was good; the bank revoked it since.
			const signedByRevoked = old.sign(Buffer.from('x'), revokedFp);
			old.revoke(revokedFp);
			const revoked = await readPublicKeys('Bank Public Keys', old.exportPublic(revokedFp));
			await expect(protect(Readable.from([Buffer.from('x')]), { encryptTo: revoked })).rejects.toThrow(
				expect.objectContaining({ problem: 'revoked', message: expect.stringMatching(/^The bank's key [0-9A-F ]+ is revoked/) }),
			);
			await expect(open(Readable.from([signedByRevoked]), { verifyWith: revoked })).rejects.toThrow(expect.objectContaining({ problem: 'revoked' }));
		} finally {
			old.remove();
		}
	});

	it('keys in the wrong field are refused naming the field; a private key\'s passphrase is checked', async () => {
		await expect(readPublicKeys('Bank Public Keys', gpg.exportSecret(customerFp))).rejects.toThrow(/holds a private key/);
		await expect(readPublicKeys('Bank Public Keys', 'not a key')).rejects.toThrow(/is not an armoured OpenPGP public key/);
		const protectedFp = gpg.generate('Protected <p@customer.example>', { passphrase: 'pw-1', algorithm: 'ed25519' });
		const armoured = gpg.exportSecret(protectedFp, 'pw-1');
		await expect(readPrivateKey('Private Key', armoured, undefined)).rejects.toThrow('the private key is protected: give its passphrase');
		await expect(readPrivateKey('Private Key', armoured, 'wrong')).rejects.toThrow('does not decrypt the private key: check the passphrase');
		expect((await readPrivateKey('Private Key', armoured, 'pw-1')).isDecrypted()).toBe(true);
		expect((await customerPublic())[0].getFingerprint().toUpperCase()).toBe(customerFp);
	});
});

describe('streaming', () => {
	it('an 8 MiB file signed, encrypted, uploaded, read back, decrypted and verified: no buffer of a megabyte or more is ever made', async () => {
		const size = 8 * 1024 * 1024;
		const hash = createHash('sha256');
		for (const chunk of fileChunks(size)) hash.update(chunk);
		const expected = hash.digest('hex');
		const session = await SftpSession.open(connect());
		const keys = { bank: await bankPublic(), customer: await customerPrivate() };
		const watch = allocationWatch();
		let largest: number;
		try {
			const sealed = await protect(Readable.from(fileChunks(size)), { encryptTo: keys.bank, signWith: keys.customer });
			await uploadStream(session, sealed, { folder: 'outgoing', name: 'big.pgp' });
			// Read back and opened as the bank would (the bank's key decrypts, the customer's verifies).
			const { stream, result } = await open(session.read('outgoing/big.pgp'), { decryptWith: (await readPrivateKey('Private Key', gpg.exportSecret(bankFp), undefined)), verifyWith: await customerPublic() });
			const back = createHash('sha256');
			for await (const chunk of stream) back.update(chunk as Buffer);
			expect(back.digest('hex')).toBe(expected);
			expect(await result).toMatchObject({ signed: true, signedBy: [customerFp] });
			largest = watch.stop();
			// The bank (gpg) decrypts what arrived.
			const byGpg = gpg.decrypt(readFileSync(sshd.bankPath('outgoing', 'big.pgp')));
			expect(createHash('sha256').update(byGpg.content).digest('hex')).toBe(expected);
		} finally {
			watch.stop();
			session.close();
		}
		expect(largest).toBeLessThan(1024 * 1024);
	});
});
