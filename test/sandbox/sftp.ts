/**
 * The sandbox bank's host-to-host SFTP server, on ssh2's server side (no system package needed,
 * so `npm run demo` runs anywhere): one user with a password or an SSH key, the folders outgoing,
 * incoming and archive under a temporary root (the user sees nothing else), the file operations
 * the Bank SFTP node uses (open, read, write, close, stat, list, rename without replacing,
 * remove), its own ed25519 host key, and a bank side: `arrive()` puts a file into the incoming
 * folder as the bank would, `sent()` lists what the customer uploaded. The tests also run the
 * node against Debian's OpenSSH server (test/helpers/sshd.ts); this one is for the demo.
 */
import { timingSafeEqual } from 'node:crypto';
import {
	closeSync,
	existsSync,
	fstatSync,
	linkSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readSync,
	readdirSync,
	rmSync,
	statSync,
	unlinkSync,
	writeFileSync,
	writeSync,
	type Stats,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Server, utils, type Connection, type ParsedKey, type SFTPWrapper } from 'ssh2';

import { hostKeyFingerprint } from '../../nodes/shared/sftp';

const { OPEN_MODE, STATUS_CODE } = utils.sftp;

export interface SandboxSftpOptions {
	username?: string;
	password?: string;
	/** OpenSSH public key lines allowed to log in (besides the password). */
	authorizedKeys?: string[];
	port?: number;
}

export interface SandboxSftp {
	host: string;
	port: number;
	username: string;
	password: string;
	/** The host key's fingerprint as OpenSSH prints it. */
	fingerprint: string;
	root: string;
	folders: { outgoing: string; incoming: string; archive: string };
	/** The bank puts a file into a folder (incoming by default). */
	arrive(name: string, content: Buffer | string, folder?: string): void;
	/** The files in a folder (outgoing by default), as the bank sees them. */
	sent(folder?: string): string[];
	stop(): Promise<void>;
}

function attrsOf(stats: Stats) {
	return {
		mode: stats.mode,
		uid: 0,
		gid: 0,
		size: stats.size,
		atime: Math.floor(stats.atimeMs / 1000),
		mtime: Math.floor(stats.mtimeMs / 1000),
	};
}

/** A path the client gave, inside the root (never outside it). */
function inside(root: string, given: string): string | undefined {
	const resolved = path.resolve(root, `.${path.posix.resolve('/', given)}`);
	return resolved === root || resolved.startsWith(`${root}${path.sep}`) ? resolved : undefined;
}

function serveSftp(sftp: SFTPWrapper, root: string): void {
	const handles = new Map<number, { fd?: number; dir?: string; listed?: boolean }>();
	let next = 0;
	const handleOf = (buffer: Buffer) => (buffer.length === 4 ? handles.get(buffer.readUInt32BE(0)) : undefined);
	const newHandle = (value: { fd?: number; dir?: string }) => {
		const id = next++;
		handles.set(id, value);
		const buffer = Buffer.alloc(4);
		buffer.writeUInt32BE(id, 0);
		return buffer;
	};
	const fail = (reqid: number, error: unknown) => {
		const code = (error as NodeJS.ErrnoException)?.code;
		sftp.status(reqid, code === 'ENOENT' ? STATUS_CODE.NO_SUCH_FILE : code === 'EACCES' ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.FAILURE, String((error as Error)?.message ?? error));
	};
	sftp.on('REALPATH', (reqid, given) => {
		const name = path.posix.resolve('/', given);
		sftp.name(reqid, [{ filename: name, longname: name, attrs: {} as never }]);
	});
	const stat = (reqid: number, given: string) => {
		const file = inside(root, given);
		if (!file) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
		try {
			sftp.attrs(reqid, attrsOf(statSync(file)));
		} catch (error) {
			fail(reqid, error);
		}
	};
	sftp.on('STAT', stat);
	sftp.on('LSTAT', stat);
	sftp.on('FSTAT', (reqid, handle) => {
		const h = handleOf(handle);
		if (h?.fd === undefined) return sftp.status(reqid, STATUS_CODE.FAILURE);
		sftp.attrs(reqid, attrsOf(fstatSync(h.fd)));
	});
	sftp.on('OPEN', (reqid, given, flags) => {
		const file = inside(root, given);
		if (!file) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
		const mode = flags & OPEN_MODE.WRITE ? (flags & OPEN_MODE.APPEND ? 'a' : flags & OPEN_MODE.EXCL ? 'wx' : 'w') : 'r';
		try {
			sftp.handle(reqid, newHandle({ fd: openSync(file, mode, 0o640) }));
		} catch (error) {
			fail(reqid, error);
		}
	});
	sftp.on('READ', (reqid, handle, offset, length) => {
		const h = handleOf(handle);
		if (h?.fd === undefined) return sftp.status(reqid, STATUS_CODE.FAILURE);
		const buffer = Buffer.alloc(length);
		const bytes = readSync(h.fd, buffer, 0, length, offset);
		if (bytes === 0) sftp.status(reqid, STATUS_CODE.EOF);
		else sftp.data(reqid, buffer.subarray(0, bytes));
	});
	sftp.on('WRITE', (reqid, handle, offset, data) => {
		const h = handleOf(handle);
		if (h?.fd === undefined) return sftp.status(reqid, STATUS_CODE.FAILURE);
		writeSync(h.fd, data, 0, data.length, offset);
		sftp.status(reqid, STATUS_CODE.OK);
	});
	sftp.on('CLOSE', (reqid, handle) => {
		const h = handleOf(handle);
		if (!h) return sftp.status(reqid, STATUS_CODE.FAILURE);
		if (h.fd !== undefined) closeSync(h.fd);
		handles.delete(handle.readUInt32BE(0));
		sftp.status(reqid, STATUS_CODE.OK);
	});
	sftp.on('OPENDIR', (reqid, given) => {
		const dir = inside(root, given);
		if (!dir || !existsSync(dir) || !statSync(dir).isDirectory()) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
		sftp.handle(reqid, newHandle({ dir }));
	});
	sftp.on('READDIR', (reqid, handle) => {
		const h = handleOf(handle);
		if (!h?.dir) return sftp.status(reqid, STATUS_CODE.FAILURE);
		if (h.listed) return sftp.status(reqid, STATUS_CODE.EOF);
		h.listed = true;
		sftp.name(
			reqid,
			readdirSync(h.dir).map((name) => ({ filename: name, longname: name, attrs: attrsOf(statSync(path.join(h.dir!, name))) as never })),
		);
	});
	sftp.on('REMOVE', (reqid, given) => {
		const file = inside(root, given);
		if (!file) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
		try {
			unlinkSync(file);
			sftp.status(reqid, STATUS_CODE.OK);
		} catch (error) {
			fail(reqid, error);
		}
	});
	sftp.on('RENAME', (reqid, fromGiven, toGiven) => {
		const from = inside(root, fromGiven);
		const to = inside(root, toGiven);
		if (!from || !to) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
		try {
			// As OpenSSH does: a link then an unlink, so an existing file is never replaced.
			linkSync(from, to);
			unlinkSync(from);
			sftp.status(reqid, STATUS_CODE.OK);
		} catch (error) {
			fail(reqid, error);
		}
	});
}

function equal(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * An Ed25519 host key. ssh2's generator writes about 4 keys in 1000 that its own parser refuses
 * ("Malformed OpenSSH private key"), so a key is made again until it reads back.
 */
export function makeHostKey(): { hostKey: string; parsedHostKey: ParsedKey | ParsedKey[] } {
	let last: Error | undefined;
	for (let attempt = 0; attempt < 20; attempt++) {
		const hostKey = utils.generateKeyPairSync('ed25519').private;
		const parsedHostKey = utils.parseKey(hostKey);
		if (!(parsedHostKey instanceof Error)) return { hostKey, parsedHostKey };
		last = parsedHostKey;
	}
	throw last!;
}

export async function startSandboxSftp(options: SandboxSftpOptions = {}): Promise<SandboxSftp> {
	const root = mkdtempSync(path.join(tmpdir(), 'n8n-sandbox-sftp-'));
	const folders = { outgoing: 'outgoing', incoming: 'incoming', archive: 'archive' };
	for (const folder of Object.values(folders)) mkdirSync(path.join(root, folder));
	const username = options.username ?? 'sandbox-h2h';
	const password = options.password ?? 'sandbox-h2h-password';
	const { hostKey, parsedHostKey } = makeHostKey();
	const hostKeyObject = Array.isArray(parsedHostKey) ? parsedHostKey[0] : parsedHostKey;
	const allowed = (options.authorizedKeys ?? [])
		.map((line) => utils.parseKey(line))
		.filter((k): k is ParsedKey => !(k instanceof Error) && !Array.isArray(k));
	const connections = new Set<Connection>();
	const server = new Server({ hostKeys: [hostKey] }, (client) => {
		connections.add(client);
		client.on('close', () => connections.delete(client));
		client.on('error', () => undefined);
		client.on('authentication', (ctx) => {
			if (ctx.username !== username) return ctx.reject();
			if (ctx.method === 'password' && equal(ctx.password, password)) return ctx.accept();
			if (ctx.method === 'publickey') {
				const key = allowed.find((k) => k.getPublicSSH().equals(ctx.key.data));
				if (key && (!ctx.signature || key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true)) return ctx.accept();
			}
			ctx.reject(['password', 'publickey']);
		});
		client.on('ready', () => {
			client.on('session', (accept) => {
				const session = accept();
				session.on('sftp', (acceptSftp) => serveSftp(acceptSftp(), root));
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		host: '127.0.0.1',
		port,
		username,
		password,
		fingerprint: hostKeyFingerprint(hostKeyObject.getPublicSSH()),
		root,
		folders,
		arrive(name, content, folder = folders.incoming) {
			writeFileSync(path.join(root, folder, name), content);
		},
		sent(folder = folders.outgoing) {
			return readdirSync(path.join(root, folder)).sort();
		},
		async stop() {
			for (const c of connections) c.end();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			rmSync(root, { recursive: true, force: true });
		},
	};
}

/** The SFTP server with the two sides' OpenPGP keys, as the sandbox bank runs it. */
export interface SandboxH2h extends SandboxSftp {
	/** The bank's OpenPGP key (armoured): it signs the files it puts and decrypts what it gets. */
	bankKey: { privateKey: string; publicKey: string };
	/** The customer's OpenPGP key (armoured), as the credential holds it. */
	customerKey: { privateKey: string; publicKey: string };
	/** The values of a Bank SFTP credential for this server. */
	credentialValues(): Record<string, unknown>;
	/** The bank puts a file encrypted to the customer and signed by the bank. */
	arriveSealed(name: string, content: Buffer | string): Promise<void>;
}

export async function startSandboxH2h(options: SandboxSftpOptions = {}): Promise<SandboxH2h> {
	const openpgp = await import('openpgp');
	const make = async (name: string, email: string) => {
		const pair = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name, email }], format: 'armored' });
		return { privateKey: pair.privateKey, publicKey: pair.publicKey };
	};
	const [bankKey, customerKey] = await Promise.all([make('Sandbox Bank H2H', 'h2h@sandbox-bank.localhost'), make('Sandbox Customer', 'treasury@customer.localhost')]);
	const server = await startSandboxSftp(options);
	return {
		...server,
		bankKey,
		customerKey,
		credentialValues: () => ({
			host: server.host,
			port: server.port,
			username: server.username,
			authentication: 'password',
			password: server.password,
			hostKeyFingerprint: server.fingerprint,
			outgoingFolder: server.folders.outgoing,
			incomingFolder: server.folders.incoming,
			archiveFolder: server.folders.archive,
			pgpKeySource: 'imported',
			pgpPrivateKey: customerKey.privateKey,
			pgpPassphrase: '',
			bankPublicKeys: bankKey.publicKey,
		}),
		async arriveSealed(name, content) {
			const message = await openpgp.createMessage({ binary: typeof content === 'string' ? Buffer.from(content, 'utf8') : content });
			const sealed = await openpgp.encrypt({
				message,
				encryptionKeys: await openpgp.readKey({ armoredKey: customerKey.publicKey }),
				signingKeys: await openpgp.readPrivateKey({ armoredKey: bankKey.privateKey }),
				format: 'binary',
			});
			server.arrive(name, Buffer.from(sealed));
		},
	};
}
