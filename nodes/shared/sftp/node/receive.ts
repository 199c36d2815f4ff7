/**
 * A file from the bank's server into n8n's binary storage, streamed: read over SFTP, decrypted and
 * verified when asked, stored as it comes. The item is made only once the whole file is stored,
 * the OpenPGP integrity check and the bank's signature verified, and the file found unchanged at
 * the bank after the read (same size and time): a file the bank is still writing is refused.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { PrivateKey, PublicKey } from 'openpgp';

import { storeStream } from '../../common/binaryOutput';
import type { Readable } from 'node:stream';

import {
	open,
	SftpFileBusyError,
	signatureFirst,
	spacedFingerprint,
	verifyDetached,
	type DetachedResult,
	type RemoteEntry,
} from '../index';
import type { SftpContext, SftpRun } from './context';

export interface ReceiveOptions {
	itemIndex: number;
	binaryPropertyName: string;
	/** Decrypt and verify with the credential's keys. */
	decrypt: boolean;
	allowUnsigned: boolean;
	/**
	 * A detached signature of the file (as it is at the bank) to verify it against: its name (for
	 * messages) and bytes. With one, a message without a signature inside is accepted.
	 */
	detached?: { name: string; signature: Buffer };
}

/** The file's name without the OpenPGP extension (`statement.xml.pgp` -> `statement.xml`). */
export function plainName(name: string): string {
	return name.replace(/\.(pgp|gpg|asc)$/i, '') || name;
}

/** What an item says of a remote file (no content). */
export function entryJson(entry: RemoteEntry): IDataObject {
	return {
		name: entry.name,
		path: entry.path,
		size: entry.size,
		modifiedAt: new Date(entry.modifiedAt).toISOString(),
		type: entry.isDirectory ? 'directory' : entry.isFile ? 'file' : 'other',
	};
}

/**
 * A file's bytes into n8n's binary storage: checked against its detached signature when one is
 * given, decrypted and verified when asked (a message without a signature inside is then accepted
 * when the detached one holds). A failure of the detached signature is told as it is, not as what
 * the decryption made of it. Returns what was stored and what the item says of the checks.
 */
export async function openAndStore(
	ctx: SftpContext,
	itemIndex: number,
	source: Readable,
	options: {
		decrypt: boolean;
		allowUnsigned: boolean;
		detached?: { name: string; signature: Buffer };
		/** The bank's keys, asked for only when something is verified. */
		verifyWith: () => Promise<PublicKey[]>;
		/** The customer's key, asked for only when decrypting. */
		decryptWith: () => Promise<PrivateKey | undefined>;
		/** The file's name as stored (without its OpenPGP extension once decrypted). */
		fileName: string;
		/** How messages name the file. */
		label: string;
	},
): Promise<{ stored: Awaited<ReturnType<typeof storeStream>>; json: IDataObject }> {
	let raw = source;
	let detached: Promise<DetachedResult> | undefined;
	if (options.detached) {
		const checked = await verifyDetached(raw, options.detached.signature, {
			verifyWith: await options.verifyWith(),
			signatureName: options.detached.name,
			fileName: options.label,
		});
		raw = checked.stream;
		detached = checked.result;
	}
	const told = async <T>(work: Promise<T>): Promise<T> => await signatureFirst(work, detached);
	const json: IDataObject = { decrypted: false, signed: false, signedBy: [] };
	let stored;
	if (options.decrypt) {
		const opened = await told(
			open(raw, {
				decryptWith: await options.decryptWith(),
				verifyWith: await options.verifyWith(),
				allowUnsigned: options.allowUnsigned || !!options.detached,
			}),
		);
		stored = await told(
			storeStream(ctx, itemIndex, opened.stream, { userFilename: plainName(options.fileName) }),
		);
		const result = await opened.result;
		Object.assign(json, {
			decrypted: result.encrypted,
			signed: result.signed,
			signedBy: result.signedBy.map(spacedFingerprint),
		});
	} else {
		stored = await told(storeStream(ctx, itemIndex, raw, { userFilename: options.fileName }));
	}
	if (detached && options.detached)
		json.detachedSignature = {
			name: options.detached.name,
			signedBy: spacedFingerprint((await detached).signedBy),
		};
	return { stored, json };
}

/** Reads `entry` into n8n as one item; throws (nothing stored is handed out) when anything fails. */
export async function receiveFile(
	ctx: SftpContext,
	run: SftpRun,
	entry: RemoteEntry,
	options: ReceiveOptions,
): Promise<INodeExecutionData> {
	const session = await run.connect();
	const { stored, json: checked } = await openAndStore(
		ctx,
		options.itemIndex,
		session.read(entry.path),
		{
			decrypt: options.decrypt,
			allowUnsigned: options.allowUnsigned,
			detached: options.detached,
			verifyWith: async () => await run.bankKeys(),
			decryptWith: async () => await run.customerKey(),
			fileName: entry.name,
			label: entry.path,
		},
	);
	const json: IDataObject = { ...entryJson(entry), ...checked };
	const after = await session.stat(entry.path);
	if (!after || after.size !== entry.size || after.modifiedAt !== entry.modifiedAt)
		throw new SftpFileBusyError(
			`${entry.path} changed while it was read (listed with ${entry.size} bytes, now ${after ? `${after.size} bytes` : 'gone'}): the bank is still writing it or replaced it. Nothing of it is used; it is read again later`,
			entry.path,
		);
	if (!options.decrypt && stored.bytes !== entry.size)
		throw new SftpFileBusyError(
			`${entry.path}: ${stored.bytes} bytes read of the ${entry.size} listed: the file is incomplete. Nothing of it is used`,
			entry.path,
		);
	return {
		json: { ...json, fileName: stored.fileName, mimeType: stored.mimeType, fileSize: stored.bytes },
		binary: { [options.binaryPropertyName]: stored.binaryData },
		pairedItem: { item: options.itemIndex },
	};
}
