/**
 * One SSH connection with its SFTP channel (ssh2's client), the server's host key checked against
 * the pinned fingerprints before the login is sent. Files are read and written as streams with
 * several requests in flight (as OpenSSH's own client does), so a transfer holds a few chunks of
 * the file at a time whatever its size.
 */
import { Readable, Writable } from 'node:stream';

import { Client, type ConnectConfig, type FileEntryWithStats, type SFTPWrapper } from 'ssh2';

import {
	SftpAuthError,
	SftpConnectionError,
	SftpError,
	SftpFileError,
	SftpHostKeyError,
} from './errors';
import { hostKeyFingerprint, hostKeyType } from './hostKey';

export interface SftpConnectOptions {
	host: string;
	port: number;
	username: string;
	/** OpenSSH or PEM private key, with its passphrase when it has one. */
	privateKey?: string;
	passphrase?: string;
	password?: string;
	/** SHA256 fingerprints the server's host key must have (any of them); none: always refused. */
	pinnedFingerprints: string[] | undefined;
	/** Milliseconds for the connection and login. */
	readyTimeoutMs?: number;
}

/** A remote file or folder as a listing shows it. */
export interface RemoteEntry {
	name: string;
	/** Folder and name joined with `/`. */
	path: string;
	size: number;
	/** Modification time, milliseconds since 1970 (the server keeps seconds). */
	modifiedAt: number;
	isFile: boolean;
	isDirectory: boolean;
}

/** SFTP status codes (draft-ietf-secsh-filexfer-02, 7). */
export const SFTP_STATUS = { EOF: 1, NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4 } as const;

/**
 * Bytes asked for in one read: 128 KiB, under OpenSSH's limit of one read (256 KiB less its
 * header); ssh2 splits a read that a server's smaller limit does not allow into several requests.
 * Fewer, larger requests cost the client and the server less per byte than 32 KiB ones.
 */
const READ_CHUNK = 128 * 1024;
/**
 * Bytes sent in one write: four SSH packets of 32 KiB (the packet size OpenSSH gives a session
 * channel) less the write request's own header, so that a write is not split into four packets
 * and a fifth of a few bytes.
 */
const WRITE_CHUNK = 4 * 32 * 1024 - 64;
/**
 * Requests kept in flight on one file: reads wait for the server's answer to carry the data, so
 * enough of them fill the channel's window (2 MiB in ssh2); writes are answered at once.
 */
const READS_IN_FLIGHT = 16;
const WRITES_IN_FLIGHT = 8;

/** A remote path: folder and name joined with one `/`. */
export function joinRemote(folder: string, name: string): string {
	if (!folder || folder === '.') return name;
	return `${folder.replace(/\/+$/, '')}/${name}`;
}

function statusOf(error: unknown): number | undefined {
	const code = (error as { code?: unknown })?.code;
	return typeof code === 'number' ? code : undefined;
}

/** An SFTP failure on `path` as SftpFileError, with what the server said. */
export function fileError(error: unknown, action: string, path: string): SftpError {
	if (error instanceof SftpError) return error;
	const status = statusOf(error);
	const said = (error as Error)?.message ?? String(error);
	const what =
		status === SFTP_STATUS.NO_SUCH_FILE
			? 'no such file or folder'
			: status === SFTP_STATUS.PERMISSION_DENIED
				? 'permission denied'
				: said;
	return new SftpFileError(`${action} ${path} failed: ${what}`, path, status);
}

function entryOf(folder: string, entry: FileEntryWithStats): RemoteEntry {
	const attrs = entry.attrs;
	return {
		name: entry.filename,
		path: joinRemote(folder, entry.filename),
		size: Number(attrs.size ?? 0),
		modifiedAt: Number(attrs.mtime ?? 0) * 1000,
		isFile: attrs.isFile(),
		isDirectory: attrs.isDirectory(),
	};
}

/** What a failed connection or login says, without anything from the credential. */
function connectionError(error: unknown, options: SftpConnectOptions): SftpError {
	if (error instanceof SftpError) return error;
	const e = error as { level?: string; code?: string; message?: string };
	const where = `${options.host}:${options.port}`;
	if (e?.level === 'client-authentication')
		return new SftpAuthError(
			`The server ${where} refused the login of user ${options.username} (${options.privateKey ? 'SSH key' : 'password'}): check the user and the key or password the bank registered`,
		);
	if (e?.level === 'client-timeout')
		return new SftpConnectionError(
			`The server ${where} did not complete the SSH handshake in time`,
			'ETIMEDOUT',
		);
	const code = typeof e?.code === 'string' ? e.code : undefined;
	return new SftpConnectionError(
		`The connection to ${where} failed: ${e?.message ?? String(error)}`,
		code,
	);
}

export class SftpSession {
	private closed = false;

	private constructor(
		private readonly client: Client,
		private readonly sftp: SFTPWrapper,
		/** The host key the server showed (fingerprint, type). */
		readonly hostKey: { fingerprint: string; type: string },
	) {}

	/**
	 * Connects, checks the host key against the pinned fingerprints (before the login is sent),
	 * logs in and opens the SFTP channel.
	 */
	static async open(options: SftpConnectOptions): Promise<SftpSession> {
		const client = new Client();
		let seen: { fingerprint: string; type: string } | undefined;
		let refused: SftpHostKeyError | undefined;
		const config: ConnectConfig = {
			host: options.host,
			port: options.port,
			username: options.username,
			readyTimeout: options.readyTimeoutMs ?? 20_000,
			keepaliveInterval: 15_000,
			hostVerifier: (key: Buffer) => {
				seen = { fingerprint: hostKeyFingerprint(key), type: hostKeyType(key) };
				if (options.pinnedFingerprints?.includes(seen.fingerprint)) return true;
				refused = new SftpHostKeyError(
					seen.fingerprint,
					options.pinnedFingerprints?.join(', '),
					seen.type,
				);
				return false;
			},
		};
		if (options.privateKey) {
			config.privateKey = options.privateKey;
			if (options.passphrase) config.passphrase = options.passphrase;
		} else if (options.password !== undefined) {
			config.password = options.password;
		}
		await new Promise<void>((resolve, reject) => {
			const fail = (error: unknown) => {
				client.removeAllListeners('ready');
				client.end();
				reject(refused ?? connectionError(error, options));
			};
			client.once('ready', () => {
				client.removeListener('error', fail);
				client.on('error', () => undefined);
				resolve();
			});
			client.once('error', fail);
			client.once('close', () => fail(new Error('the server closed the connection')));
			try {
				client.connect(config);
			} catch (error) {
				// ssh2 throws here for a private key it cannot read (or a wrong passphrase).
				const message = (error as Error).message ?? String(error);
				client.removeAllListeners();
				reject(
					new SftpAuthError(
						/passphrase|decrypt|encrypted/i.test(message)
							? 'The SSH private key could not be decrypted: check its passphrase'
							: `The SSH private key cannot be read: ${message.replace(/[\r\n]+/g, ' ')}`,
					),
				);
			}
		});
		client.removeAllListeners('close');
		const sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
			client.sftp((error, channel) => {
				if (error) {
					client.end();
					reject(
						new SftpConnectionError(
							`The server ${options.host}:${options.port} has no SFTP service for this user: ${error.message}`,
						),
					);
				} else resolve(channel);
			});
		});
		return new SftpSession(client, sftp, seen!);
	}

	/** The entries of a folder (without `.` and `..`). */
	async list(folder: string): Promise<RemoteEntry[]> {
		const entries = await new Promise<FileEntryWithStats[]>((resolve, reject) =>
			this.sftp.readdir(folder || '.', (error, list) =>
				error ? reject(fileError(error, 'Listing', folder || '.')) : resolve(list),
			),
		);
		return entries
			.filter((e) => e.filename !== '.' && e.filename !== '..')
			.map((e) => entryOf(folder, e));
	}

	/** A file's size and time, or undefined when there is no such file. */
	async stat(path: string): Promise<RemoteEntry | undefined> {
		return await new Promise((resolve, reject) =>
			this.sftp.stat(path, (error, attrs) => {
				if (error) {
					if (statusOf(error) === SFTP_STATUS.NO_SUCH_FILE) resolve(undefined);
					else reject(fileError(error, 'Reading the details of', path));
					return;
				}
				const slash = path.lastIndexOf('/');
				resolve({
					name: path.slice(slash + 1),
					path,
					size: Number(attrs.size ?? 0),
					modifiedAt: Number(attrs.mtime ?? 0) * 1000,
					isFile: attrs.isFile(),
					isDirectory: attrs.isDirectory(),
				});
			}),
		);
	}

	private async openHandle(path: string, flags: 'r' | 'w', action: string): Promise<Buffer> {
		return await new Promise((resolve, reject) =>
			this.sftp.open(path, flags, 0o640, (error, handle) =>
				error ? reject(fileError(error, action, path)) : resolve(handle),
			),
		);
	}

	private async closeHandle(handle: Buffer, path: string): Promise<void> {
		await new Promise<void>((resolve, reject) =>
			this.sftp.close(handle, (error) =>
				error ? reject(fileError(error, 'Closing', path)) : resolve(),
			),
		);
	}

	/**
	 * The file as a stream, read with several requests in flight. It ends at the end of the file
	 * (the server's EOF), so a file that grows while it is read is read to where it is then; the
	 * caller compares sizes when that matters.
	 */
	read(path: string): Readable {
		let handle: Buffer | undefined;
		let position = 0;
		let ended = false;
		let reading = 0;
		// Reads in the order of the file; each resolves with the bytes (empty at EOF).
		const queue: Array<{ at: number; data: Promise<Buffer> }> = [];
		const sftp = this.sftp;
		const openHandle = this.openHandle.bind(this);
		const request = (at: number, length: number): Promise<Buffer> =>
			new Promise((resolve, reject) => {
				const buffer = Buffer.allocUnsafe(length);
				sftp.read(handle!, buffer, 0, length, at, (error, bytes) => {
					if (error) {
						if (statusOf(error) === SFTP_STATUS.EOF) resolve(Buffer.alloc(0));
						else reject(fileError(error, 'Reading', path));
					} else resolve(buffer.subarray(0, bytes));
				});
			});
		const fill = () => {
			while (!ended && queue.length < READS_IN_FLIGHT) {
				queue.push({ at: position, data: request(position, READ_CHUNK) });
				position += READ_CHUNK;
			}
		};
		return new Readable({
			highWaterMark: READ_CHUNK * 2,
			async read() {
				if (reading++) return;
				try {
					handle ??= await openHandle(path, 'r', 'Opening');
					for (;;) {
						fill();
						const head = queue.shift();
						if (!head) {
							this.push(null);
							return;
						}
						const data = await head.data;
						if (data.length === 0) {
							// The end: whatever was asked beyond it answers EOF too.
							ended = true;
							await Promise.allSettled(queue.splice(0).map((q) => q.data));
							this.push(null);
							return;
						}
						if (data.length < READ_CHUNK) {
							// A short read: ask for the rest of that chunk before anything after it.
							queue.unshift({
								at: head.at + data.length,
								data: request(head.at + data.length, READ_CHUNK - data.length),
							});
						}
						if (!this.push(data)) return;
					}
				} catch (error) {
					this.destroy(error as Error);
				} finally {
					reading = 0;
				}
			},
			destroy(error, done) {
				ended = true;
				const h = handle;
				handle = undefined;
				void Promise.allSettled(queue.splice(0).map((q) => q.data)).then(() => {
					if (!h) return done(error);
					sftp.close(h, () => done(error));
				});
			},
		});
	}

	/**
	 * A stream that writes a new file at `path` (created or truncated), with several writes in
	 * flight; it finishes once the server has acknowledged every write and closed the file.
	 */
	write(path: string): Writable & { bytesWritten(): number } {
		let handle: Buffer | undefined;
		let position = 0;
		let acknowledged = 0;
		let failure: Error | undefined;
		const inFlight = new Set<Promise<void>>();
		const openHandle = this.openHandle.bind(this);
		const closeHandle = this.closeHandle.bind(this);
		const sftp = this.sftp;
		const send = (chunk: Buffer, at: number): Promise<void> => {
			const p = new Promise<void>((resolve) => {
				sftp.write(handle!, chunk, 0, chunk.length, at, (error) => {
					if (error) failure ??= fileError(error, 'Writing', path);
					else acknowledged += chunk.length;
					resolve();
				});
			});
			inFlight.add(p);
			void p.then(() => inFlight.delete(p));
			return p;
		};
		// Bytes short of a whole write, kept for the next chunks (the stream's chunks rarely come in
		// multiples of WRITE_CHUNK): every write but the last is a whole one. Only what makes up a
		// whole write from the kept parts is copied, once.
		let carry: Buffer[] = [];
		let carried = 0;
		const sendWhole = async (part: Buffer): Promise<void> => {
			while (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
			if (failure) throw failure;
			void send(part, position);
			position += part.length;
		};
		const takeCarry = (tail?: Buffer): Buffer => {
			const parts = tail ? [...carry, tail] : carry;
			const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
			carry = [];
			carried = 0;
			return whole;
		};
		const sendAll = async (chunk: Buffer): Promise<void> => {
			let data = chunk;
			if (carried) {
				const need = WRITE_CHUNK - carried;
				if (data.length < need) {
					carry.push(data);
					carried += data.length;
					return;
				}
				const whole = takeCarry(data.subarray(0, need));
				data = data.subarray(need);
				await sendWhole(whole);
			}
			let offset = 0;
			for (; data.length - offset >= WRITE_CHUNK; offset += WRITE_CHUNK)
				await sendWhole(data.subarray(offset, offset + WRITE_CHUNK));
			if (offset < data.length) {
				carry.push(data.subarray(offset));
				carried = data.length - offset;
			}
		};
		const writable = new Writable({
			highWaterMark: WRITE_CHUNK * 2,
			async write(chunk: Buffer, _encoding, done) {
				try {
					handle ??= await openHandle(path, 'w', 'Creating');
					await sendAll(chunk);
					done(failure ?? null);
				} catch (error) {
					done(error as Error);
				}
			},
			async final(done) {
				try {
					handle ??= await openHandle(path, 'w', 'Creating');
					if (carried) await sendWhole(takeCarry());
					await Promise.all(inFlight);
					if (failure) throw failure;
					const h = handle;
					handle = undefined;
					await closeHandle(h, path);
					done();
				} catch (error) {
					done(error as Error);
				}
			},
			destroy(error, done) {
				const h = handle;
				handle = undefined;
				void Promise.allSettled([...inFlight]).then(() => {
					if (!h) return done(error);
					sftp.close(h, () => done(error));
				});
			},
		});
		return Object.assign(writable, { bytesWritten: () => acknowledged });
	}

	/**
	 * Renames a file (SFTP's own rename, which refuses to replace an existing file on OpenSSH and
	 * most servers, so a file the bank has not picked up yet is never overwritten).
	 */
	async rename(from: string, to: string): Promise<void> {
		await new Promise<void>((resolve, reject) =>
			this.sftp.rename(from, to, (error) =>
				error ? reject(fileError(error, `Renaming ${from} to`, to)) : resolve(),
			),
		);
	}

	/** Deletes a file. */
	async remove(path: string): Promise<void> {
		await new Promise<void>((resolve, reject) =>
			this.sftp.unlink(path, (error) =>
				error ? reject(fileError(error, 'Deleting', path)) : resolve(),
			),
		);
	}

	/** Closes the channel and the connection. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		try {
			this.sftp.end();
		} catch {
			// already gone
		}
		this.client.end();
	}
}

/** Runs `work` on a session opened for it and closes the session afterwards, whatever happens. */
export async function withSession<T>(
	options: SftpConnectOptions,
	work: (session: SftpSession) => Promise<T>,
): Promise<T> {
	const session = await SftpSession.open(options);
	try {
		return await work(session);
	} finally {
		session.close();
	}
}
