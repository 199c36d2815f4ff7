/**
 * Containers of downloaded order data: a ZIP (Container containerType="ZIP", or data that starts
 * with a ZIP local file header) is opened into one file per entry with fflate (bundled); anything
 * else is one file. A damaged or cut-off archive is an EbicsDataError naming the problem.
 */
import { unzipSync } from 'fflate';

import { EbicsDataError, rethrowAs } from './errors';

export interface ContainerFile {
	/** The entry's name in the archive (folders kept), or the name given for a single file. */
	name: string;
	data: Buffer;
}

/** Whether data starts like a ZIP archive (local file header, or the empty archive's end record). */
export function isZip(data: Buffer): boolean {
	return (
		data.length >= 4 &&
		data[0] === 0x50 &&
		data[1] === 0x4b &&
		(data[2] === 0x03 || data[2] === 0x05) &&
		(data[3] === 0x04 || data[3] === 0x06)
	);
}

export interface OpenOptions {
	/** The Container of the service: ZIP opens the archive; absent: by the data's first bytes. */
	container?: string;
	/** Name of the single file when the data is not an archive. */
	name: string;
	/** Refuse an archive that unpacks to more than this many bytes (default 4 GiB). */
	maxBytes?: number;
}

/** Opens a download's order data into its files. */
export function openContainer(data: Buffer, options: OpenOptions): ContainerFile[] {
	const zip = options.container === 'ZIP' || (options.container === undefined && isZip(data));
	if (!zip) return [{ name: options.name, data }];
	if (!isZip(data))
		throw new EbicsDataError(
			'The download was announced as a ZIP container but is not a ZIP archive',
		);
	const limit = options.maxBytes ?? 4 * 1024 ** 3;
	let total = 0;
	const entries: Record<string, Uint8Array> = rethrowAs(
		() =>
			unzipSync(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), {
				filter: (file) => {
					total += file.originalSize;
					if (total > limit)
						throw new EbicsDataError(`The ZIP container unpacks to more than ${limit} bytes`);
					return !file.name.endsWith('/');
				},
			}),
		(error) =>
			error instanceof EbicsDataError
				? error
				: new EbicsDataError(
						`The ZIP container is damaged or cut off: ${(error as Error).message || 'it cannot be read'}`,
					),
	);
	return Object.entries(entries).map(([name, content]) => ({
		name,
		data: Buffer.from(content.buffer, content.byteOffset, content.byteLength),
	}));
}
