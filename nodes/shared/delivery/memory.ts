/**
 * The memory of a file trigger: which files it has handed over to n8n, kept in the workflow's
 * static data under one field, oldest first, at most a limit. A file is known by a key the
 * trigger chooses (the bank's file reference, the SHA-256 of the content). The list is written
 * back only by `save()`, with a new array (n8n notices assignments only), so a poll that throws
 * leaves the stored memory as it was.
 */
import type { IDataObject } from 'n8n-workflow';

import { RememberedIds } from '../common/polling';

export class DeliveredFiles {
	private readonly ids: RememberedIds;

	constructor(
		private readonly data: IDataObject,
		private readonly field: string,
		private readonly limit: number,
	) {
		this.ids = new RememberedIds(data[field]);
	}

	/** Whether the file was handed over (by this poll or an earlier one). */
	has(key: string): boolean {
		return this.ids.has(key);
	}

	/** A file was handed over: remember it. */
	add(key: string): void {
		this.ids.add(key);
	}

	/** Whether this poll added any. */
	get changed(): boolean {
		return this.ids.changed;
	}

	/**
	 * Writes the memory back when it changed or is over the limit. The oldest keys go first; those
	 * in `keep` (files the bank still lists) only when the others do not make room.
	 */
	save(keep: ReadonlySet<string> = new Set()): void {
		let all = this.ids.all();
		if (all.length > this.limit) {
			let excess = all.length - this.limit;
			const kept: string[] = [];
			for (const key of all) {
				if (excess > 0 && !keep.has(key)) {
					excess--;
					continue;
				}
				kept.push(key);
			}
			all = excess > 0 ? kept.slice(excess) : kept;
		}
		if (this.ids.changed || all.length !== this.ids.storedCount) this.data[this.field] = all;
	}
}
