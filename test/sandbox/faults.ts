import type { ActiveFault, Area, FaultController, FaultKind, FaultSpec } from './types';

const KINDS: ReadonlySet<FaultKind> = new Set<FaultKind>([
	'status',
	'drop',
	'delay',
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

export class FaultEngine implements FaultController {
	private items: ActiveFault[] = [];
	private nextId = 1;

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
