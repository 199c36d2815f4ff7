/**
 * The sandbox bank's SFTP host (ssh2's server side, for the demo) speaks what the Bank SFTP node
 * needs: the credential test with its pinned host key and a password, an upload under a
 * temporary name renamed when complete, a download decrypted and verified, a move to the archive.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { testCredential } from '../harness/credentialTest';
import { storedBytes } from '../helpers/fileTrigger';
import { Gpg } from '../helpers/gpg';
import { packageCredentialTypes } from '../helpers/nodes';
import { fileItem, runSftp, SFTP_ID, sftpStore } from '../helpers/sftp';
import { makeHostKey, startSandboxSftp, type SandboxSftp } from '../sandbox/sftp';

let host: SandboxSftp;
let gpg: Gpg;
let bankFp: string;
let customerFp: string;

beforeAll(async () => {
	host = await startSandboxSftp();
	gpg = new Gpg();
	bankFp = gpg.generate('Sandbox Bank <h2h@sandbox.example>', { algorithm: 'ed25519' });
	customerFp = gpg.generate('Customer <c@customer.example>', { algorithm: 'ed25519' });
});
afterAll(async () => {
	await host?.stop();
	gpg?.remove();
});

const values = (over: Record<string, unknown> = {}) => ({
	host: host.host,
	port: host.port,
	username: host.username,
	authentication: 'password',
	password: host.password,
	hostKeyFingerprint: host.fingerprint,
	pgpKeySource: 'imported',
	pgpPrivateKey: gpg.exportSecret(customerFp),
	bankPublicKeys: gpg.exportPublic(bankFp),
	...over,
});

it('credential test, upload, download and move against the sandbox host', async () => {
	expect((await testCredential({ store: sftpStore(values({ hostKeyFingerprint: '' })), credentialTypes: packageCredentialTypes(), id: SFTP_ID })).message).toContain(host.fingerprint);
	expect((await testCredential({ store: sftpStore(values({ password: 'wrong' })), credentialTypes: packageCredentialTypes(), id: SFTP_ID })).message).toContain('refused the login');
	const store = sftpStore(values());
	expect(await testCredential({ store, credentialTypes: packageCredentialTypes(), id: SFTP_ID })).toEqual({ status: 'OK' });

	const up = await runSftp(store, { resource: 'file', operation: 'upload', binaryPropertyName: 'data' }, fileItem(Buffer.from('<Document/>'), 'pain001.xml'));
	expect(up.status).toBe('success');
	expect(host.sent()).toEqual(['pain001.xml.pgp']);
	const opened = gpg.decrypt(readFileSync(path.join(host.root, 'outgoing', 'pain001.xml.pgp')));
	expect(opened.content.toString()).toBe('<Document/>');
	expect(opened.status).toContain(`VALIDSIG ${customerFp}`);

	host.arrive('ack.txt.pgp', gpg.encrypt(Buffer.from('ACK pain001.xml'), customerFp, bankFp));
	const down = await runSftp(store, { resource: 'file', operation: 'download', path: 'ack.txt.pgp' });
	expect(down.output('Bank')[0].json).toMatchObject({ signed: true, decrypted: true, fileName: 'ack.txt' });
	expect((await storedBytes(down.output('Bank')[0])).toString()).toBe('ACK pain001.xml');
	await runSftp(store, { resource: 'file', operation: 'move', path: 'ack.txt.pgp' });
	expect(host.sent('archive')).toEqual(['ack.txt.pgp']);
	// The host keeps the user inside its root.
	const outside = await runSftp(store, { resource: 'file', operation: 'list', folder: '../../etc' });
	expect(outside.status).toBe('error');
});

it('every host key the sandbox makes reads back, so the sandbox bank always starts (ssh2 alone fails about 4 in 1000)', () => {
	for (let i = 0; i < 3000; i++) {
		const { parsedHostKey } = makeHostKey();
		expect(Array.isArray(parsedHostKey) ? parsedHostKey[0].type : parsedHostKey.type).toBe('ssh-ed25519');
	}
});

it('an SSH key the sandbox host was given logs in (its signature verified); another key is refused', async () => {
	const dir = require('node:fs').mkdtempSync(path.join(require('node:os').tmpdir(), 'sandbox-ssh-key-'));
	try {
		for (const name of ['allowed', 'other']) require('node:child_process').execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, name)]);
		const keyed = await startSandboxSftp({ authorizedKeys: [readFileSync(path.join(dir, 'allowed.pub'), 'utf8').trim()] });
		try {
			const withKey = (file: string) => sftpStore({ ...values(), host: keyed.host, port: keyed.port, hostKeyFingerprint: keyed.fingerprint, authentication: 'privateKey', privateKey: readFileSync(path.join(dir, file), 'utf8') });
			expect(await testCredential({ store: withKey('allowed'), credentialTypes: packageCredentialTypes(), id: SFTP_ID })).toEqual({ status: 'OK' });
			expect((await testCredential({ store: withKey('other'), credentialTypes: packageCredentialTypes(), id: SFTP_ID })).message).toContain('refused the login');
		} finally {
			await keyed.stop();
		}
	} finally {
		require('node:fs').rmSync(dir, { recursive: true, force: true });
	}
});
