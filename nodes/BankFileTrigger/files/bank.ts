import type { IPollFunctions } from 'n8n-workflow';

import type { FileDescriptor } from '../../shared/bxd';
import { redactSecrets } from '../../shared/transport/redact';
import type { FileListQuery } from '../../shared/bxd/node/bankFiles';
import { listFiles } from '../../shared/bxd/node/bankFiles';
import type { ServiceContext } from '../../shared/bxd/node/serviceContext';
import type { FileTriggerSettings } from './settings';

/** A listed file with a reference (files without one cannot be downloaded or remembered). */
export type ListedFile = FileDescriptor & { fileReference: string };

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day of a moment, YYYY-MM-DD. */
export function utcDay(ms: number): string {
	return new Date(ms).toISOString().slice(0, 10);
}

/** The first day of the look-back window. */
export function windowStart(now: number, lookBackDays: number): string {
	return utcDay(now - lookBackDays * DAY_MS);
}

/** The day of a file (its timestamp's UTC day), or undefined when the bank gave none. */
export function fileDay(file: FileDescriptor): string | undefined {
	const stamp = file.fileTimestamp;
	return stamp && /^\d{4}-\d{2}-\d{2}/.test(stamp) ? stamp.slice(0, 10) : undefined;
}

/**
 * Lists the files of the trigger's types, target and service with one status (and a first day):
 * one request per file type, since a request names at most one. Descriptors without a reference
 * are left out; the same file listed twice (a bank matching a code and its ISO name) counts once.
 */
export async function listForTrigger(
	ctx: IPollFunctions,
	service: ServiceContext,
	settings: FileTriggerSettings,
	query: Pick<FileListQuery, 'status' | 'startDate'>,
): Promise<ListedFile[]> {
	const types = settings.fileTypes.length ? settings.fileTypes : [undefined];
	const files = new Map<string, ListedFile>();
	for (const fileType of types) {
		const listed = await listFiles(
			ctx,
			service,
			{ ...query, fileType, targetId: settings.targetId, serviceId: settings.serviceId },
			settings.request,
		);
		for (const file of listed) {
			if (file.fileReference && !files.has(file.fileReference))
				files.set(file.fileReference, file as ListedFile);
		}
	}
	return [...files.values()];
}

/** Oldest first (by the bank's timestamp, then by reference). */
export function oldestFirst(a: FileDescriptor, b: FileDescriptor): number {
	const ta = a.fileTimestamp ?? '';
	const tb = b.fileTimestamp ?? '';
	if (ta !== tb) return ta < tb ? -1 : 1;
	return (a.fileReference ?? '').localeCompare(b.fileReference ?? '');
}

/** A failure as one log line: the error's message and description, without secrets. */
export function describeFailure(error: unknown, service: ServiceContext | undefined): string {
	const e = error as { message?: string; description?: string | null };
	const text = [e?.message ?? String(error), e?.description ?? '']
		.filter(Boolean)
		.join(' ')
		.replace(/\s+/g, ' ')
		.trim();
	return redactSecrets(text, service?.secrets ?? []);
}
