/**
 * GnuPG (`gpg`, Debian's gnupg) as the independent OpenPGP implementation of the tests: a key
 * ring in a temporary GNUPGHOME, keys made and exported, files encrypted, signed, decrypted and
 * verified by gpg itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface GpgResult {
	status: number | null;
	stdout: Buffer;
	stderr: string;
}

export class Gpg {
	readonly home = mkdtempSync(path.join(tmpdir(), 'n8n-gnupg-'));

	run(args: string[], input?: Buffer | string): GpgResult {
		const res = spawnSync('gpg', ['--batch', '--yes', '--no-tty', '--pinentry-mode', 'loopback', '--trust-model', 'always', ...args], {
			env: { ...process.env, GNUPGHOME: this.home },
			input,
			maxBuffer: 1 << 30,
		});
		return { status: res.status, stdout: res.stdout, stderr: res.stderr.toString('utf8') };
	}

	ok(args: string[], input?: Buffer | string): Buffer {
		const res = this.run(args, input);
		if (res.status !== 0) throw new Error(`gpg ${args.join(' ')} failed: ${res.stderr}`);
		return res.stdout;
	}

	/** A new key (primary for signing, a subkey for encryption); its fingerprint. */
	generate(userId: string, options: { algorithm?: string; expire?: string; passphrase?: string } = {}): string {
		const passphrase = options.passphrase ?? '';
		this.ok(['--passphrase', passphrase, '--quick-generate-key', userId, options.algorithm ?? 'rsa3072', 'sign', options.expire ?? 'never']);
		const fingerprint = this.fingerprintOf(userId);
		const sub = (options.algorithm ?? 'rsa3072').startsWith('ed25519') ? 'cv25519' : (options.algorithm ?? 'rsa3072');
		this.ok(['--passphrase', passphrase, '--quick-add-key', fingerprint, sub, 'encr', options.expire ?? 'never']);
		return fingerprint;
	}

	fingerprintOf(userId: string): string {
		const listing = this.ok(['--with-colons', '--list-keys', userId]).toString('utf8');
		const line = listing.split('\n').find((l) => l.startsWith('fpr:'));
		if (!line) throw new Error(`no key for ${userId}`);
		return line.split(':')[9];
	}

	exportPublic(fingerprint: string): string {
		return this.ok(['--armor', '--export', fingerprint]).toString('utf8');
	}

	exportSecret(fingerprint: string, passphrase = ''): string {
		return this.ok(['--passphrase', passphrase, '--armor', '--export-secret-keys', fingerprint]).toString('utf8');
	}

	import(armoured: string): void {
		this.ok(['--import'], armoured);
	}

	/** Revokes a key with the revocation certificate gpg made for it. */
	revoke(fingerprint: string): void {
		const cert = path.join(this.home, 'openpgp-revocs.d', `${fingerprint}.rev`);
		const text = require('node:fs').readFileSync(cert, 'utf8').replace(/^:-----/m, '-----');
		this.import(text);
	}

	/** Encrypts to `recipient`, signed by `signer` when given. */
	encrypt(content: Buffer, recipient: string, signer?: string, armour = false): Buffer {
		const args = ['--encrypt', '--recipient', recipient, '--cipher-algo', 'AES256', '--digest-algo', 'SHA256'];
		if (signer) args.push('--sign', '--local-user', signer, '--passphrase', '');
		if (armour) args.push('--armor');
		return this.ok(args, content);
	}

	/** Signs only (inline, not encrypted). */
	sign(content: Buffer, signer: string): Buffer {
		return this.ok(['--sign', '--local-user', signer, '--passphrase', '', '--digest-algo', 'SHA256'], content);
	}

	/** Decrypts and verifies; the content and gpg's status lines. */
	decrypt(content: Buffer): { content: Buffer; status: string; code: number | null } {
		const statusFile = path.join(this.home, `status-${process.pid}-${Date.now()}`);
		writeFileSync(statusFile, '');
		const res = this.run(['--status-file', statusFile, '--decrypt'], content);
		const status = require('node:fs').readFileSync(statusFile, 'utf8') as string;
		return { content: res.stdout, status, code: res.status };
	}

	remove(): void {
		spawnSync('gpgconf', ['--kill', 'all'], { env: { ...process.env, GNUPGHOME: this.home } });
		rmSync(this.home, { recursive: true, force: true });
	}
}
