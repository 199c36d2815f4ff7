/**
 * The files of one EBICS download as the trigger's items: each file (a ZIP container opened into
 * its files) in n8n's binary data with where it came from, or with Output Parsed Entries its
 * entries, statements and the file item (the Bank File parser).
 */
import { createHash } from 'node:crypto';

import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { ContainerFile, Download } from '../../shared/ebics';
import { parsedItems } from '../../shared/delivery';
import { binaryItem } from '../../shared/common/binaryOutput';
import type { EbicsTriggerSettings } from './settings';

export const TRIGGER = 'EBICS Trigger';

/** How the trigger knows a file: the SHA-256 of its content, hex. */
export function digestOf(file: ContainerFile): string {
	return createHash('sha256').update(file.data).digest('hex');
}

/** A file of a download, with its place in it. */
export interface DownloadedFile {
	file: ContainerFile;
	digest: string;
	index: number;
	count: number;
}

/** The items of some files of one download, in order. */
export async function fileItems(
	ctx: IPollFunctions,
	download: Download,
	label: string,
	files: DownloadedFile[],
	settings: EbicsTriggerSettings,
): Promise<INodeExecutionData[]> {
	const downloadedAt = new Date().toISOString();
	const items: INodeExecutionData[] = [];
	for (const { file, digest, index, count } of files) {
		const item = await binaryItem(
			ctx,
			0,
			file.data,
			{ userFilename: file.name },
			settings.binaryPropertyName,
			{
				service: label,
				...(download.service
					? { serviceName: download.service.serviceName, msgName: download.service.msgName }
					: {}),
				orderType: download.orderType,
				orderId: download.orderId ?? null,
				transactionId: download.transactionId,
				fileIndex: index + 1,
				fileCount: count,
				sha256: digest,
				downloadedAt,
			},
		);
		delete item.pairedItem;
		if (settings.output === 'parse') {
			const fileName = (item.json.fileName as string | undefined) ?? file.name;
			items.push(
				...(await parsedItems(ctx, item, { sha256: digest, fileName }, settings, TRIGGER)),
			);
		} else items.push(item);
	}
	return items;
}

/** The files of a download with their digests. */
export function filesOf(download: Download): DownloadedFile[] {
	const files = download.files();
	return files.map((file, index) => ({ file, digest: digestOf(file), index, count: files.length }));
}

/** A failure as one log line: the error's message and description. */
export function describeFailure(error: unknown): string {
	const e = error as { message?: string; description?: string | null };
	return [e?.message ?? String(error), e?.description ?? '']
		.filter(Boolean)
		.join(' ')
		.replace(/\s+/g, ' ')
		.trim();
}
