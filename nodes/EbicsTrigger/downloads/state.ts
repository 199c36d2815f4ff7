import type { IDataObject } from 'n8n-workflow';

import { DeliveredFiles } from '../../shared/delivery';

/** A download whose files were handed over to n8n and whose positive receipt is still due. */
export interface DueReceipt {
	transactionId: string;
	/** The service as the logs name it (`BTD EOP DE camt.053 ZIP`). */
	service: string;
}

/**
 * What the trigger keeps in the workflow's static data (per workflow and node):
 * - `delivered`: the SHA-256 (hex) of every file handed over to n8n, oldest first, at most
 *   Remember Files: a file the bank delivers again (its receipt did not reach the bank) is
 *   recognised by it and not emitted again;
 * - `receipts`: the downloads handed over by the last poll that emitted, whose positive receipt
 *   the next poll sends (n8n has then saved this state together with starting the execution).
 *
 * Nothing is written before `save()`, so a poll that throws leaves the stored state as it was.
 */
export class DownloadState {
	private readonly files: DeliveredFiles;
	private readonly before: Set<string>;
	private due: DueReceipt[];

	constructor(
		private readonly data: IDataObject,
		limit: number,
	) {
		this.files = new DeliveredFiles(data, 'delivered', limit);
		this.before = new Set(
			Array.isArray(data.delivered) ? data.delivered.filter((d) => typeof d === 'string') : [],
		);
		this.due = Array.isArray(data.receipts)
			? (data.receipts as unknown[]).filter(
					(r): r is DueReceipt =>
						typeof (r as DueReceipt)?.transactionId === 'string' &&
						typeof (r as DueReceipt)?.service === 'string',
				)
			: [];
	}

	/** The receipts earlier polls left due; from now on they are this poll's to send. */
	takeDueReceipts(): DueReceipt[] {
		const due = this.due;
		this.due = [];
		return due;
	}

	/** Whether a file was handed over by an earlier poll (whose state n8n has saved). */
	deliveredBefore(digest: string): boolean {
		return this.before.has(digest);
	}

	/** Whether a file was handed over by an earlier poll or this one. */
	delivered(digest: string): boolean {
		return this.files.has(digest);
	}

	/** A file is handed over by this poll. */
	deliver(digest: string): void {
		this.files.add(digest);
	}

	/** A download whose files this poll hands over: its positive receipt goes with the next poll. */
	receiptLater(receipt: DueReceipt): void {
		this.due.push(receipt);
	}

	/** Writes the state back to static data. */
	save(): void {
		this.files.save();
		const receipts = this.due.map((r) => ({ transactionId: r.transactionId, service: r.service }));
		if (JSON.stringify(receipts) !== JSON.stringify(this.data.receipts ?? []))
			this.data.receipts = receipts;
	}
}
