/**
 * A real OpenSSH server for the tests (Debian's openssh-server): `/usr/sbin/sshd -D -e -f CONFIG`
 * on a loopback port with its own host key and configuration, SFTP only (internal-sftp), no root
 * login, no password, no forwarding. Run as root (as the tests are here), the SFTP user is the
 * unprivileged `nobody`, chrooted to a folder of its own: sshd requires every component of a
 * chroot path to be owned by root and writable by nobody else, so the folder lives under
 * /var/cache (not /tmp, which everyone may write). Run as another user, sshd can only log in that
 * user and cannot chroot: internal-sftp then starts in the folder (`-d`), unchrooted.
 *
 * The bank's side of the folders is the local path (`bankPath`): tests put files there as the
 * bank would, and read what the node uploaded.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

import { hostKeyFingerprint } from '../../nodes/shared/sftp';

export const SSHD = '/usr/sbin/sshd';

export interface Sshd {
	host: string;
	port: number;
	username: string;
	/** The client's SSH private key (OpenSSH format, no passphrase). */
	clientKey: string;
	/** The same key protected by `clientKeyPassphrase`. */
	protectedClientKey: string;
	clientKeyPassphrase: string;
	/** The host key's fingerprint as OpenSSH prints it (SHA256:...). */
	fingerprint: string;
	/** Where the SFTP user lands, on this machine: the bank's side of the folders. */
	root: string;
	/** A path under the SFTP root as this machine sees it. */
	bankPath(...parts: string[]): string;
	/** The folders given to the SFTP user (created, owned by it): outgoing, incoming, archive. */
	folders: { outgoing: string; incoming: string; archive: string };
	/** Whether the SFTP user is chrooted. */
	chrooted: boolean;
	/** Puts a file where the bank puts it, owned by the SFTP user. */
	put(folder: string, name: string, content: Buffer | string): string;
	stop(): Promise<void>;
}

async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

function keygen(file: string, type: 'ed25519' | 'rsa', passphrase = ''): void {
	const args = ['-q', '-t', type, '-N', passphrase, '-f', file, '-C', 'n8n-test'];
	if (type === 'rsa') args.push('-b', '3072');
	const res = spawnSync('ssh-keygen', args, { encoding: 'utf8' });
	if (res.status !== 0) throw new Error(`ssh-keygen failed: ${res.stderr}`);
}

/** The public key blob of an OpenSSH `.pub` line. */
function blobOf(pubLine: string): Buffer {
	return Buffer.from(pubLine.trim().split(/\s+/)[1], 'base64');
}

/** Starts sshd and resolves once it listens (it prints "Server listening" with -e). */
export async function startSshd(options: { hostKeyType?: 'ed25519' | 'rsa' } = {}): Promise<Sshd> {
	const asRoot = process.getuid?.() === 0;
	const nobody = asRoot ? { uid: 65534, gid: 65534, name: 'nobody' } : undefined;
	const base = asRoot
		? (() => {
				const parent = '/var/cache/n8n-nodes-corporate-banking-sshd';
				mkdirSync(parent, { recursive: true, mode: 0o755 });
				chmodSync(parent, 0o755);
				const dir = mkdtempSync(path.join(parent, 'sshd-'));
				chmodSync(dir, 0o755);
				return dir;
			})()
		: mkdtempSync(path.join(tmpdir(), 'n8n-sshd-'));
	const etc = path.join(base, 'etc');
	const root = path.join(base, 'root');
	mkdirSync(etc, { mode: 0o755 });
	mkdirSync(root, { mode: 0o755 });
	chmodSync(etc, 0o755);
	chmodSync(root, 0o755);
	const folders = { outgoing: 'outgoing', incoming: 'incoming', archive: 'archive' };
	for (const folder of Object.values(folders)) {
		const dir = path.join(root, folder);
		mkdirSync(dir, { mode: 0o755 });
		if (nobody) chownSync(dir, nobody.uid, nobody.gid);
	}
	const hostKey = path.join(etc, 'host_key');
	keygen(hostKey, options.hostKeyType ?? 'ed25519');
	const clientKeyFile = path.join(etc, 'client_key');
	keygen(clientKeyFile, 'ed25519');
	const protectedKeyFile = path.join(etc, 'client_key_protected');
	const clientKeyPassphrase = 'correct horse battery staple';
	keygen(protectedKeyFile, 'rsa', clientKeyPassphrase);
	const authorized = path.join(etc, 'authorized_keys');
	writeFileSync(
		authorized,
		readFileSync(`${clientKeyFile}.pub`, 'utf8') + readFileSync(`${protectedKeyFile}.pub`, 'utf8'),
		{ mode: 0o644 },
	);
	chmodSync(authorized, 0o644);
	const username = nobody?.name ?? userInfo().username;
	const port = await freePort();
	const config = [
		`Port ${port}`,
		'ListenAddress 127.0.0.1',
		`HostKey ${hostKey}`,
		'PidFile none',
		'UsePAM no',
		'PermitRootLogin no',
		'PasswordAuthentication no',
		'KbdInteractiveAuthentication no',
		'PubkeyAuthentication yes',
		`AuthorizedKeysFile ${authorized}`,
		`AllowUsers ${username}`,
		'AllowTcpForwarding no',
		'AllowAgentForwarding no',
		'X11Forwarding no',
		'PermitTTY no',
		'LogLevel VERBOSE',
		'Subsystem sftp internal-sftp',
		...(nobody
			? ['StrictModes yes', `Match User ${username}`, `\tChrootDirectory ${root}`, '\tForceCommand internal-sftp']
			: ['StrictModes no', `Match User ${username}`, `\tForceCommand internal-sftp -d ${root}`]),
	].join('\n');
	const configFile = path.join(etc, 'sshd_config');
	writeFileSync(configFile, `${config}\n`, { mode: 0o644 });
	mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
	const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
	let log = '';
	await new Promise<void>((resolve, reject) => {
		child.stderr!.on('data', (chunk: Buffer) => {
			log += chunk.toString('utf8');
			if (log.includes('Server listening')) resolve();
		});
		child.once('exit', (code) => reject(new Error(`sshd exited (${code}): ${log}`)));
		child.once('error', reject);
	});
	const bankPath = (...parts: string[]) => path.join(root, ...parts);
	return {
		host: '127.0.0.1',
		port,
		username,
		clientKey: readFileSync(clientKeyFile, 'utf8'),
		protectedClientKey: readFileSync(protectedKeyFile, 'utf8'),
		clientKeyPassphrase,
		fingerprint: hostKeyFingerprint(blobOf(readFileSync(`${hostKey}.pub`, 'utf8'))),
		root,
		bankPath,
		folders,
		chrooted: !!nobody,
		put(folder, name, content) {
			const file = bankPath(folder, name);
			writeFileSync(file, content);
			if (nobody) chownSync(file, nobody.uid, nobody.gid);
			return file;
		},
		async stop() {
			if (child.exitCode === null) {
				const exited = new Promise((resolve) => child.once('exit', resolve));
				child.kill('SIGTERM');
				await exited;
			}
			rmSync(base, { recursive: true, force: true });
		},
	};
}

/** Whether sshd is installed (scripts/setup.js installs openssh-server). */
export function hasSshd(): boolean {
	return spawnSync(SSHD, ['-V'], { encoding: 'utf8' }).status !== null;
}
