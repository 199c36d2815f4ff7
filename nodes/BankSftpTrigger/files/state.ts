import type { IDataObject } from 'n8n-workflow';

import { DeliveredFiles } from '../../shared/delivery';
import { stringList } from '../../shared/common/polling';
import type { RemoteEntry } from '../../shared/sftp';

/** A file version: its path, size and time (a file the bank writes again is a new one). */
export function fileKey(entry: RemoteEntry): string {
	return `${entry.path}|${entry.size}|${entry.modifiedAt}`;
}

/** A move or delete due once n8n holds the file for good. */
export interface DueAction {
	path: string;
	key: string;
	action: 'move' | 'delete';
	/** Failed attempts so far. */
	tries: number;
}

function dueList(value: unknown): DueAction[] {
	if (!Array.isArray(value)) return [];
	return value.filter(
		(d): d is DueAction =>
			!!d &&
			typeof d.path === 'string' &&
			typeof d.key === 'string' &&
			(d.action === 'move' || d.action === 'delete') &&
			typeof d.tries === 'number',
	);
}

/**
 * What the trigger keeps in the workflow's static data (per workflow and node):
 * - `scope`: the login and folder the rest belongs to;
 * - `baseline`: the files there when the trigger started (never emitted);
 * - `settling`: files seen by the last poll, emitted when the next finds them unchanged;
 * - `delivered`: the files handed over, oldest first, at most Remember Files;
 * - `due`: moves or deletes of delivered files, done by the next poll (n8n has saved the hand-over
 *   by then). A file whose move fails stays remembered, so it is never emitted again; the move is
 *   tried again by the following polls.
 * Written back only by `save()`, with new values.
 */
export class SftpTriggerState {
	private scope?: string;
	private baseline: Set<string>;
	private settling: Set<string>;
	private due: DueAction[];
	readonly delivered: DeliveredFiles;

	constructor(
		private readonly data: IDataObject,
		limit: number,
	) {
		this.scope = typeof data.scope === 'string' ? data.scope : undefined;
		this.baseline = new Set(stringList(data.baseline));
		this.settling = new Set(stringList(data.settling));
		this.due = dueList(data.due);
		this.delivered = new DeliveredFiles(data, 'delivered', limit);
	}

	startedFor(scope: string): boolean {
		return this.scope === scope;
	}

	start(scope: string, present: string[]): void {
		this.scope = scope;
		this.baseline = new Set(present);
		this.settling = new Set();
	}

	inBaseline(key: string): boolean {
		return this.baseline.has(key);
	}

	/** Whether the last poll saw this file version (so it has settled). */
	wasSettling(key: string): boolean {
		return this.settling.has(key);
	}

	/** The file versions this poll saw, for the next to compare with. */
	seen(keys: string[]): void {
		this.settling = new Set(keys);
	}

	/** Keeps only the baseline entries still listed. */
	pruneBaseline(listed: ReadonlySet<string>): void {
		this.baseline = new Set([...this.baseline].filter((k) => listed.has(k)));
	}

	takeDue(): DueAction[] {
		const due = this.due;
		this.due = [];
		return due;
	}

	addDue(action: DueAction): void {
		if (!this.due.some((d) => d.key === action.key)) this.due.push(action);
	}

	hasDue(key: string): boolean {
		return this.due.some((d) => d.key === key);
	}

	save(listed: ReadonlySet<string>): void {
		this.data.scope = this.scope;
		this.data.baseline = [...this.baseline];
		this.data.settling = [...this.settling];
		this.data.due = this.due.map((d) => ({ ...d }));
		this.delivered.save(listed);
	}
}
