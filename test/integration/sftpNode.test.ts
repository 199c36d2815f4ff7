/**
 * The Bank SFTP credential and node through n8n's engine against a real OpenSSH server, with
 * GnuPG as the bank's side: the credential test (host key pinned, never trusted on first use),
 * uploads signed and encrypted that gpg opens, never sent twice for the same bytes (also after n8n
 * stopped between the temporary file and the rename), downloads decrypted and verified, list,
 * move, delete, and the local OpenPGP operations.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';

import type { INodeExecutionData } from 'n8n-workflow';

import { SFTP_GENERATED_KEY_FIELD } from '../../nodes/shared/sftp/credential/sftpCredential';
import { SFTP_UPLOAD_JOURNAL_FIELD } from '../../nodes/shared/sftp/journal/uploadJournal';
import { testCredential } from '../harness/credentialTest';
import type { CredentialStore, RunResult } from '../harness/engine';
import { Gpg } from '../helpers/gpg';
import { packageCredentialTypes } from '../helpers/nodes';
import { fileItem, journalOf, runSftp, SFTP_ID, sftpStore, sftpValues, type SftpKeys } from '../helpers/sftp';
import { storedBytes } from '../helpers/fileTrigger';
import { startSshd, type Sshd } from '../helpers/sshd';

let sshd: Sshd;
let keys: SftpKeys;
let store: CredentialStore;

beforeAll(async () => {
	sshd = await startSshd();
	const gpg = new Gpg();
	keys = { gpg, bankFp: gpg.generate('Bank <h2h@bank.example>', { algorithm: 'ed25519' }), customerFp: gpg.generate('Customer <treasury@customer.example>', { algorithm: 'ed25519' }) };
});
afterAll(async () => {
	await sshd?.stop();
	keys?.gpg.remove();
});
beforeEach(() => {
	store = sftpStore(sftpValues(sshd, keys));
});

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const spaced = (fp: string) => fp.replace(/(.{4})/g, '$1 ').trim();
const items = (result: RunResult): INodeExecutionData[] => result.output('Bank');
const errorOf = (result: RunResult) => result.nodeError('Bank');
const cleanOutgoing = () => {
	for (const name of readdirSync(sshd.bankPath('outgoing'))) require('node:fs').rmSync(sshd.bankPath('outgoing', name));
};

/** Nothing secret in what n8n logged or returned. */
function expectNoSecrets(result: RunResult): void {
	const text = JSON.stringify({ logs: result.logs, data: result.executedNodes().map((n) => (n === 'Bank' ? errorOf(result) ?? items(result) : null)) });
	for (const secret of [sshd.clientKeyPassphrase, 'PRIVATE KEY', sshd.protectedClientKey.split('\n')[1]]) expect(text).not.toContain(secret);
}

describe('credential test', () => {
	it('no fingerprint pinned: refused, showing the server\'s fingerprint; pinned: logs in and lists the incoming folder', async () => {
		const unpinned = sftpStore(sftpValues(sshd, keys, { hostKeyFingerprint: '' }));
		const refused = await testCredential({ store: unpinned, credentialTypes: packageCredentialTypes(), id: SFTP_ID });
		expect(refused.status).toBe('Error');
		expect(refused.message).toContain(`The server shows ssh-ed25519 ${sshd.fingerprint}`);
		expect(await testCredential({ store, credentialTypes: packageCredentialTypes(), id: SFTP_ID })).toEqual({ status: 'OK' });
		const missing = sftpStore(sftpValues(sshd, keys, { incomingFolder: 'no-such-folder' }));
		expect(await testCredential({ store: missing, credentialTypes: packageCredentialTypes(), id: SFTP_ID })).toEqual({
			status: 'Error',
			message: 'Listing no-such-folder failed: no such file or folder',
		});
	});

	it('a key made in n8n is made once by the test; Key Information shows its public key and the fingerprints', async () => {
		const made = sftpStore(sftpValues(sshd, keys, { pgpKeySource: 'generated', pgpPrivateKey: '', pgpKeyType: 'ecc', pgpUserName: 'Esimerkki Oyj', pgpUserEmail: 'treasury@esimerkki.example' }));
		expect(await testCredential({ store: made, credentialTypes: packageCredentialTypes(), id: SFTP_ID })).toEqual({ status: 'OK' });
		const first = made.get(SFTP_ID)!.data[SFTP_GENERATED_KEY_FIELD];
		expect(first).toMatch(/^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
		await testCredential({ store: made, credentialTypes: packageCredentialTypes(), id: SFTP_ID });
		expect(made.get(SFTP_ID)!.data[SFTP_GENERATED_KEY_FIELD]).toBe(first);

		const result = await runSftp(made, { resource: 'openpgp', operation: 'keyInformation' });
		const info = items(result)[0].json as { yourKey: { publicKey: string; fingerprint: string; userIds: string[] }; bankKeys: Array<{ fingerprint: string }> };
		expect(info.yourKey.userIds).toEqual(['Esimerkki Oyj <treasury@esimerkki.example>']);
		expect(info.yourKey.publicKey).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
		expect(JSON.stringify(info)).not.toContain('PRIVATE');
		expect(info.bankKeys.map((k) => k.fingerprint)).toEqual([spaced(keys.bankFp)]);
		// The bank (gpg) takes the public key and its fingerprint is the one shown.
		const bank = new Gpg();
		try {
			bank.import(info.yourKey.publicKey);
			expect(spaced(bank.fingerprintOf('Esimerkki'))).toBe(info.yourKey.fingerprint);
		} finally {
			bank.remove();
		}
	});
});

describe('upload', () => {
	beforeEach(cleanOutgoing);

	it('signs and encrypts, writes under a temporary name, renames; gpg (the bank) decrypts and verifies it', async () => {
		const content = Buffer.from('<?xml version="1.0"?><Document><CstmrCdtTrfInitn/></Document>\n');
		const result = await runSftp(store, { resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, fileItem(content, 'pain001.xml'));
		expect(result.status).toBe('success');
		const out = items(result)[0].json;
		expect(out).toMatchObject({ folder: 'outgoing', name: 'pain001.xml.pgp', path: 'outgoing/pain001.xml.pgp', sha256: sha(content), signed: true, encrypted: true, signedBy: spaced(keys.customerFp), encryptedTo: [spaced(keys.bankFp)] });
		expect(readdirSync(sshd.bankPath('outgoing'))).toEqual(['pain001.xml.pgp']);
		const atBank = readFileSync(sshd.bankPath('outgoing', 'pain001.xml.pgp'));
		expect(out.bytes).toBe(atBank.length);
		const opened = keys.gpg.decrypt(atBank);
		expect(opened.content).toEqual(content);
		expect(opened.status).toContain(`VALIDSIG ${keys.customerFp}`);
		expect(journalOf(store)).toEqual([expect.objectContaining({ sha256: sha(content), name: 'pain001.xml.pgp', state: 'sent', folder: 'outgoing' })]);
		expectNoSecrets(result);
	});

	it('the same bytes are not sent twice: refused naming when and as what; Send Again sends them', async () => {
		const content = Buffer.from('<Document>pay once</Document>');
		await runSftp(store, { resource: 'file', operation: 'upload', binaryPropertyName: 'data', fileName: 'a.pgp' }, fileItem(content, 'p.xml'));
		const again = await runSftp(store, { resource: 'file', operation: 'upload', binaryPropertyName: 'data', fileName: 'b.pgp' }, fileItem(content, 'p.xml'));
		expect(again.status).toBe('error');
		expect(errorOf(again)?.message).toMatch(/^This file \(SHA-256 [0-9a-f]{16}…\) was sent to outgoing on .* UTC as a\.pgp: it is not sent twice$/);
		expect(readdirSync(sshd.bankPath('outgoing'))).toEqual(['a.pgp']);
		const forced = await runSftp(store, { resource: 'file', operation: 'upload', binaryPropertyName: 'data', fileName: 'b.pgp', options: { sendAgain: true } }, fileItem(content, 'p.xml'));
		expect(forced.status).toBe('success');
		expect(readdirSync(sshd.bankPath('outgoing')).sort()).toEqual(['a.pgp', 'b.pgp']);
	});

	it('n8n stopped between the temporary file and the rename: the next run finishes the rename, the bank gets the file once', async () => {
		const content = Buffer.from('<Document>interrupted</Document>');
		// What the stopped run left: the complete file under its temporary name, the journal saying "renaming".
		sshd.put('outgoing', '.c.pgp.part', 'sealed bytes of the stopped run');
		const row = store.get(SFTP_ID)!;
		const entry = { owner: `${sshd.username}@${sshd.host}:${sshd.port}`, folder: 'outgoing', sha256: sha(content), name: 'c.pgp', temporaryName: '.c.pgp.part', state: 'renaming', at: new Date().toISOString() };
		store.set({ ...row, data: { ...row.data, [SFTP_UPLOAD_JOURNAL_FIELD]: JSON.stringify({ v: 1, entries: [entry] }) } });
		const result = await runSftp(store, { resource: 'file', operation: 'upload', binaryPropertyName: 'data', fileName: 'c.pgp' }, fileItem(content, 'p.xml'));
		expect(result.status).toBe('success');
		expect(items(result)[0].json).toMatchObject({ completed: 'renamed', path: 'outgoing/c.pgp' });
		expect(readdirSync(sshd.bankPath('outgoing'))).toEqual(['c.pgp']);
		expect(readFileSync(sshd.bankPath('outgoing', 'c.pgp'), 'utf8')).toBe('sealed bytes of the stopped run');
		expect(journalOf(store)).toEqual([expect.objectContaining({ state: 'sent', name: 'c.pgp' })]);

		// Stopped the same way, but the bank has taken the file already (neither name is there): refused.
		cleanOutgoing();
		const row2 = store.get(SFTP_ID)!;
		store.set({ ...row2, data: { ...row2.data, [SFTP_UPLOAD_JOURNAL_FIELD]: JSON.stringify({ v: 1, entries: [{ ...entry, at: new Date().toISOString() }] }) } });
		const unknown = await runSftp(store, { resource: 'file', operation: 'upload', binaryPropertyName: 'data', fileName: 'c.pgp' }, fileItem(content, 'p.xml'));
		expect(errorOf(unknown)?.message).toContain('when n8n stopped, and it is no longer there under either name: the bank may have taken it. It is not sent again');
		expect(readdirSync(sshd.bankPath('outgoing'))).toEqual([]);
	});

	it('an expired bank key is refused before anything is sent, naming the key', async () => {
		const old = new Gpg();
		try {
			old.ok(['--faked-system-time', '20200101T000000', '--passphrase', '', '--quick-generate-key', 'Old Bank <old@bank.example>', 'rsa2048', 'sign,encr', '1y']);
			const fp = old.fingerprintOf('Old Bank');
			const expired = sftpStore(sftpValues(sshd, keys, { bankPublicKeys: old.exportPublic(fp) }));
			const result = await runSftp(expired, { resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, fileItem(Buffer.from('x'), 'x.xml'));
			expect(errorOf(result)?.message).toBe(`The bank's key ${spaced(fp)} expired on 2020-12-31: ask for (or make) a new key, or have its expiry extended`);
			expect(readdirSync(sshd.bankPath('outgoing'))).toEqual([]);
		} finally {
			old.remove();
		}
	});

	it('a wrong host key: nothing is sent, the error names both fingerprints and the field', async () => {
		const other = sftpStore(sftpValues(sshd, keys, { hostKeyFingerprint: 'SHA256:' + 'A'.repeat(43) }));
		const result = await runSftp(other, { resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, fileItem(Buffer.from('<x/>'), 'x.xml'));
		expect(errorOf(result)?.message).toBe(`Host Key Fingerprint: The server's host key (ssh-ed25519 ${sshd.fingerprint}) is not the pinned one (SHA256:${'A'.repeat(43)}): the connection was refused before logging in`);
		expect(readdirSync(sshd.bankPath('outgoing'))).toEqual([]);
		expect(journalOf(other)).toEqual([]);
	});
});

describe('download, list, move, delete', () => {
	it('a statement gpg encrypted and signed as the bank is downloaded decrypted, naming the bank key; archived; deleted', async () => {
		const statement = Buffer.from('<Document><BkToCstmrStmt/></Document>\n');
		sshd.put('incoming', 'stmt-1.xml.pgp', keys.gpg.encrypt(statement, keys.customerFp, keys.bankFp));
		sshd.put('incoming', '.stmt-2.xml.pgp.part', 'being written');

		const listed = await runSftp(store, { resource: 'file', operation: 'list' });
		expect(items(listed).map((i) => i.json.name)).toEqual(['stmt-1.xml.pgp']);

		const got = await runSftp(store, { resource: 'file', operation: 'download', path: 'stmt-1.xml.pgp' });
		expect(got.status).toBe('success');
		const item = items(got)[0];
		expect(item.json).toMatchObject({ path: 'incoming/stmt-1.xml.pgp', decrypted: true, signed: true, signedBy: [spaced(keys.bankFp)], fileName: 'stmt-1.xml', mimeType: 'application/xml', fileSize: statement.length });
		expect(await storedBytes(item)).toEqual(statement);

		const moved = await runSftp(store, { resource: 'file', operation: 'move', path: 'stmt-1.xml.pgp' });
		expect(items(moved)[0].json).toMatchObject({ from: 'incoming/stmt-1.xml.pgp', path: 'archive/stmt-1.xml.pgp' });
		expect(existsSync(sshd.bankPath('archive', 'stmt-1.xml.pgp'))).toBe(true);
		const deleted = await runSftp(store, { resource: 'file', operation: 'delete', path: 'archive/stmt-1.xml.pgp' });
		expect(items(deleted)[0].json).toEqual({ path: 'archive/stmt-1.xml.pgp', deleted: true });
		expect(existsSync(sshd.bankPath('archive', 'stmt-1.xml.pgp'))).toBe(false);
		require('node:fs').rmSync(sshd.bankPath('incoming', '.stmt-2.xml.pgp.part'));
	});

	it('unsigned, signed by another key, tampered: each refused with its cause, no file handed out', async () => {
		const other = new Gpg();
		try {
			const strangerFp = other.generate('Stranger <s@example.org>', { algorithm: 'ed25519' });
			keys.gpg.import(other.exportPublic(strangerFp));
			const content = Buffer.from('<Document/>');
			sshd.put('incoming', 'unsigned.pgp', keys.gpg.encrypt(content, keys.customerFp));
			other.import(keys.gpg.exportPublic(keys.customerFp));
			sshd.put('incoming', 'stranger.pgp', other.encrypt(content, keys.customerFp, strangerFp));
			const sealed = Buffer.from(keys.gpg.encrypt(Buffer.from(require('node:crypto').randomBytes(50_000)), keys.customerFp, keys.bankFp));
			sealed[25_000] ^= 0xff;
			sshd.put('incoming', 'tampered.pgp', sealed);

			const unsigned = await runSftp(store, { resource: 'file', operation: 'download', path: 'unsigned.pgp' });
			expect(errorOf(unsigned)?.message).toMatch(/^The file is not signed: it is refused/);
			const allowed = await runSftp(store, { resource: 'file', operation: 'download', path: 'unsigned.pgp', allowUnsigned: true });
			expect(items(allowed)[0].json).toMatchObject({ signed: false, decrypted: true });

			const stranger = await runSftp(store, { resource: 'file', operation: 'download', path: 'stranger.pgp' });
			expect(errorOf(stranger)?.message).toContain(`The file is signed by key ID ${strangerFp.slice(-16)}, which is not one of the bank's keys (${spaced(keys.bankFp)})`);

			const tampered = await runSftp(store, { resource: 'file', operation: 'download', path: 'tampered.pgp' });
			expect(tampered.status).toBe('error');
			expect(errorOf(tampered)?.message).toMatch(/changed after it was (encrypted|signed)|not a readable OpenPGP message/);
		} finally {
			other.remove();
			for (const name of ['unsigned.pgp', 'stranger.pgp', 'tampered.pgp']) require('node:fs').rmSync(sshd.bankPath('incoming', name), { force: true });
		}
	});
});

describe('local OpenPGP', () => {
	it('Encrypt and Sign makes what gpg opens; Decrypt and Verify opens what gpg makes', async () => {
		const content = Buffer.from('payments,1\n');
		const sealed = await runSftp(store, { resource: 'openpgp', operation: 'encryptSign', binaryPropertyName: 'data', armour: true }, fileItem(content, 'pay.csv'));
		const item = items(sealed)[0];
		expect(item.json).toMatchObject({ fileName: 'pay.csv.asc', signed: true, encrypted: true });
		const opened = keys.gpg.decrypt(await storedBytes(item));
		expect(opened.content).toEqual(content);
		expect(opened.status).toContain(`VALIDSIG ${keys.customerFp}`);

		const fromBank = keys.gpg.encrypt(Buffer.from('ack\n'), keys.customerFp, keys.bankFp, true);
		const back = await runSftp(store, { resource: 'openpgp', operation: 'decryptVerify', binaryPropertyName: 'data' }, fileItem(fromBank, 'ack.txt.asc'));
		const plain = items(back)[0];
		expect(plain.json).toMatchObject({ fileName: 'ack.txt', decrypted: true, signed: true, signedBy: [spaced(keys.bankFp)] });
		expect((await storedBytes(plain)).toString()).toBe('ack\n');
	});
});
