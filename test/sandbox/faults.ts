import type { ActiveFault, Area, FaultController, FaultKind, FaultSpec, HeldRequest } from './types';

const KINDS: ReadonlySet<FaultKind> = new Set<FaultKind>([
	'status',
	'drop',
	'delay',
	'hold',
	'malformed',
	'html',
	'nonJson200',
	'soapFault',
	'soapResponseCode',
	'soapDoctype',
	'soapTamperedSignature',
	'soapUnsigned',
	'eventBadSignature',
	'eventUnknownKid',
	'eventWrongAudience',
	'eventWrongIssuer',
	'eventOmitMoreAvailable',
]);

/** Areas a kind can apply to when the fault names none. */
function implicitAreas(kind: FaultKind): Area[] | undefined {
	if (kind.startsWith('soap')) return ['soap', 'soapLarge'];
	if (kind.startsWith('event')) return ['events'];
	return undefined;
}

/** Faults that replace the answer and therefore also make sense "after" processing. */
export const PHASED_KINDS: ReadonlySet<FaultKind> = new Set<FaultKind>([
	'status',
	'drop',
	'html',
	'nonJson200',
]);

/** How a held request ended: released by the test, or given up by the client. */
export type HoldOutcome = 'released' | 'gaveUp';

export class FaultEngine implements FaultController {
	private items: ActiveFault[] = [];
	private nextId = 1;
	/** Held requests no `held()` call has taken yet, and `held()` calls waiting for one. */
	private unclaimed: HeldRequest[] = [];
	private claims: Array<(request: HeldRequest) => void> = [];
	/** Releases of every request still held. */
	private holding = new Set<() => void>();

	add(spec: FaultSpec | FaultSpec[]): number[] {
		const specs = Array.isArray(spec) ? spec : [spec];
		const ids: number[] = [];
		for (const item of specs) {
			if (!item || !KINDS.has(item.kind)) {
				throw new Error(`Unknown fault kind: ${String(item?.kind)}`);
			}
			if (item.pathRegex !== undefined) new RegExp(item.pathRegex);
			const count = item.count ?? 1;
			if (!Number.isInteger(count) || count < 1)
				throw new Error('Fault count must be a positive integer');
			const fault: ActiveFault = { ...item, id: this.nextId++, remaining: count };
			this.items.push(fault);
			ids.push(fault.id);
		}
		return ids;
	}

	list(): ActiveFault[] {
		return this.items.map((item) => ({ ...item }));
	}

	clear(id?: number): void {
		this.items = id === undefined ? [] : this.items.filter((item) => item.id !== id);
		if (id !== undefined) return;
		for (const release of [...this.holding]) release();
		this.unclaimed = [];
		this.claims = [];
	}

	async held(): Promise<HeldRequest> {
		const ready = this.unclaimed.shift();
		if (ready) return ready;
		return await new Promise<HeldRequest>((resolve) => this.claims.push(resolve));
	}

	/**
	 * Holds a request for a 'hold' fault until the test releases it or `clientGone` resolves
	 * (the client closed the connection).
	 */
	async hold(fault: ActiveFault, area: Area, path: string, clientGone: Promise<void>): Promise<HoldOutcome> {
		return await new Promise<HoldOutcome>((resolve) => {
			let settled = false;
			const settle = (outcome: HoldOutcome): void => {
				if (settled) return;
				settled = true;
				this.holding.delete(release);
				resolve(outcome);
			};
			const release = (): void => settle('released');
			const gaveUp = clientGone.then(() => settle('gaveUp'));
			this.holding.add(release);
			const request: HeldRequest = { faultId: fault.id, area, path, phase: fault.phase ?? 'before', release, gaveUp };
			const claim = this.claims.shift();
			if (claim) claim(request);
			else this.unclaimed.push(request);
		});
	}

	/**
	 * Consumes and returns the first armed fault matching the request, if any.
	 * `pathname` has no query; `fullPath` has it.
	 */
	take(area: Area, method: string, pathname: string, fullPath: string): ActiveFault | undefined {
		for (const fault of this.items) {
			const areas = fault.area ? [fault.area] : implicitAreas(fault.kind);
			if (areas && !areas.includes(area)) continue;
			if (fault.method && fault.method.toUpperCase() !== method.toUpperCase()) continue;
			if (fault.pathPrefix && !pathname.startsWith(fault.pathPrefix)) continue;
			if (fault.pathRegex && !new RegExp(fault.pathRegex).test(fullPath)) continue;
			fault.remaining -= 1;
			if (fault.remaining <= 0) this.items = this.items.filter((item) => item !== fault);
			return { ...fault };
		}
		return undefined;
	}
}
