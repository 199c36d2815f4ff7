import type { IDataObject } from 'n8n-workflow';

import { DeliveredFiles } from '../../shared/delivery';
import { stringList } from '../../shared/common/polling';

/**
 * What the trigger keeps in the workflow's static data (per workflow and node):
 * - `scope`: the file types, target and service the rest belongs to;
 * - `baseline`: references of the files the bank had already handed out (any status but NEW) when
 *   the trigger started on this scope, and `baselineDay`, the day that was noted. They are never
 *   emitted;
 * - `coveredFrom`: the first day (YYYY-MM-DD) whose downloaded files the trigger answers for: a
 *   downloaded file from that day on that it has not emitted and that is not in the baseline was
 *   downloaded but never emitted, and is emitted now. It moves with the look-back window and
 *   never back;
 * - `emitted`: references of the files emitted, oldest first, at most Remember Files.
 */
export interface StoredFileState {
	scope?: string;
	baseline?: string[];
	baselineDay?: string;
	coveredFrom?: string;
	emitted?: string[];
}

function day(value: unknown): string | undefined {
	return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
}

/**
 * The delivery bookkeeping of one poll: read from static data at the start, written back by
 * `save()` with new values (never changed in place: n8n notices assignments only). Nothing is
 * written before `save()`, so a poll that throws leaves the stored state as it was.
 */
export class FileMemory {
	private scope?: string;
	private baseline: Set<string>;
	private baselineDay?: string;
	private coveredFrom?: string;
	private readonly emittedFiles: DeliveredFiles;

	constructor(
		private readonly data: IDataObject,
		limit: number,
	) {
		this.scope = typeof data.scope === 'string' ? data.scope : undefined;
		this.baseline = new Set(stringList(data.baseline));
		this.baselineDay = day(data.baselineDay);
		this.coveredFrom = day(data.coveredFrom);
		this.emittedFiles = new DeliveredFiles(data, 'emitted', limit);
	}

	/**
	 * Whether the trigger has noted its baseline for this scope (else the poll notes it and emits
	 * nothing).
	 */
	startedFor(scope: string): boolean {
		return this.scope === scope && this.coveredFrom !== undefined;
	}

	/**
	 * Notes the files the bank has already handed out; they are never emitted. Emitted files stay
	 * remembered.
	 */
	start(scope: string, handedOut: string[], today: string, windowStart: string): void {
		this.scope = scope;
		this.baseline = new Set(handedOut);
		this.baselineDay = today;
		this.coveredFrom = windowStart;
	}

	/**
	 * Moves the covered days with the look-back window (never back), and forgets a baseline no file
	 * can match any more.
	 */
	advance(windowStart: string): void {
		if (!this.coveredFrom || windowStart > this.coveredFrom) this.coveredFrom = windowStart;
		if (this.baselineDay && this.coveredFrom > this.baselineDay) {
			this.baseline = new Set();
			this.baselineDay = undefined;
		}
	}

	get firstCoveredDay(): string {
		return this.coveredFrom ?? '';
	}

	get baselineSize(): number {
		return this.baseline.size;
	}

	inBaseline(reference: string): boolean {
		return this.baseline.has(reference);
	}

	wasEmitted(reference: string): boolean {
		return this.emittedFiles.has(reference);
	}

	/** A file was emitted: remember it. */
	emitted(reference: string): void {
		this.emittedFiles.add(reference);
	}

	/**
	 * Writes the state back to static data. When more files are remembered than the limit, the
	 * oldest the bank no longer lists (`listed`: this poll's listings) are forgotten first, so a
	 * file still listed is forgotten only when the listings alone exceed the limit.
	 */
	save(listed: ReadonlySet<string>): void {
		this.data.scope = this.scope;
		this.data.baseline = [...this.baseline];
		this.data.baselineDay = this.baselineDay;
		this.data.coveredFrom = this.coveredFrom;
		this.emittedFiles.save(listed);
	}
}
